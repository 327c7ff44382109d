// Buck Euchre: four players each for themselves; the turn-up, ordering up or naming trump, the
// dealer's discard, dropping out, and scores counting down to 0.
import type { HandScore } from "@cardgame/client/web";

import { SUIT_SYMBOLS, type SuitLetter, cardFace, cardList, suitLetter } from "../cards.js";
import { type Child, h } from "../dom.js";
import { plural } from "../text.js";
import type { GameRenderer, HandDetails, SeatNamer } from "./renderer.js";

/** The score table's words for a Buck Euchre hand: trump, maker and sweep; each player's part. */
function handDetails(hand: HandScore, name: SeatNamer): HandDetails {
  const rules = hand.rules.case === "buckEuchre" ? hand.rules.value : undefined;
  const letter = rules ? suitLetter(rules.trump) : "";
  const trump = letter ? SUIT_SYMBOLS[letter] : rules?.noTrump ? "no trump" : "";
  const maker = rules?.maker !== undefined ? ` by ${name(rules.maker)}` : "";
  const swept = rules?.sweptBy !== undefined ? `, swept by ${name(rules.sweptBy)}` : "";
  const turnedDown = rules?.turnUpTurnedDown ? `${trump ? ", " : ""}turn-up turned down` : "";
  return {
    note: `${trump}${maker}${turnedDown}${swept}`,
    sides: hand.sides.map((side) => {
      const seat = hand.seats.find((s) => side.seats.includes(s.seat));
      if (!seat) return "";
      const own = seat.rules.case === "buckEuchre" ? seat.rules.value : undefined;
      if (own?.droppedOut) return "dropped out";
      const parts = [plural(seat.tricksWon, "trick")];
      if (own?.isMaker) parts.push("maker");
      if (own?.penalty) parts.push(`penalty +${own.penalty}`);
      return parts.join(" · ");
    }),
  };
}

const CALLS: Record<string, string> = { pass: "Passed", "order-up": "Ordered up", stay: "Stays in", drop: "Dropped out" };

export const buckEuchre: GameRenderer = {
  name: "buck_euchre",
  title: "Buck Euchre",
  lobby: {
    blurb: "Four players, each for themselves, 24 cards; first to count down to 0 wins.",
    seatNames: ["South", "West", "North", "East"],
  },
  reasons: {
    SUIT_TURNED_DOWN: "That suit was turned down: name another one.",
    MAKER_CANNOT_DROP: "The maker cannot drop out.",
    CANNOT_DROP_ON_CLUBS: "Nobody may drop out when clubs are turned up.",
  },
  dealer: { badge: "dealer", title: "Dealer" },
  exchange: { button: "Discard", prompt: "discard" },
  actionLabel(action) {
    if (action.word !== "name") return undefined; // the others read as their titles ("Order up", "Stay in")
    const letter = suitLetter(action.suit);
    return letter ? `Name ${SUIT_SYMBOLS[letter]}` : undefined;
  },
  callText(call) {
    const [word, arg] = call.split(" ");
    if (word === "name") return `Named ${SUIT_SYMBOLS[arg as SuitLetter] ?? arg}`;
    return CALLS[call] ?? call;
  },
  prompt(view) {
    switch (view.phaseName) {
      case "order_up":
        return "Order up the turn-up, or pass.";
      case "name_trump":
        return "Name trump, or pass.";
      case "drop_out":
        return "Stay in, or drop out of this hand.";
      default:
        return undefined;
    }
  },
  seatBadges(seat, view) {
    return [
      seat.rules.case === "buckEuchre" && seat.rules.value.droppedOut
        ? h("span", { class: "badge out", "data-field": "dropped-out", title: "Dropped out of this hand" }, "out") : null,
      view.rules.case === "buckEuchre" && view.rules.value.maker === seat.seat
        ? h("span", { class: "badge alert" }, "maker") : null,
    ];
  },
  facts(view, name) {
    if (view.rules.case !== "buckEuchre") return [];
    const { turnUp, turnUpTurnedDown, trump, noTrump, maker, dealerDiscard } = view.rules.value;
    const facts: Child[] = [];
    if (turnUp) {
      facts.push(h("div", { class: `turn-up${turnUpTurnedDown ? " turned-down" : ""}`, "data-role": "turn-up", "data-card": turnUp },
        h("span", { class: "label" }, turnUpTurnedDown ? "Turned down" : "Turn-up"), cardFace(turnUp)));
    }
    if (dealerDiscard) facts.push(cardList("Your discard", [dealerDiscard], "dealer-discard")); // the dealer's view alone
    const letter = suitLetter(trump);
    if (letter) {
      facts.push(h("div", { class: "trump", "data-role": "trump", "data-suit": letter },
        `Trump ${SUIT_SYMBOLS[letter]}`, maker !== undefined ? ` · made by ${name(maker)}` : ""));
    } else if (noTrump) {
      facts.push(h("div", { class: "trump", "data-role": "trump", "data-suit": "none" }, "No trump"));
    }
    return facts;
  },
  totalNote: () => "",
  handDetails,
};

export default buckEuchre;
