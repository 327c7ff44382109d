// Euchre: four players in two partnerships (you and North); the turn-up, ordering up or naming
// trump, the dealer's pick-up and discard, going alone (the partner sits out), defending alone,
// thrown-in hands, and the first partnership to 10. Its facts travel in the messages it shares
// with Buck Euchre: `buckEuchre` views (the turn-up, trump, the maker, the dealer's discard) and
// seats (`droppedOut`: sitting the hand out); going alone is the maker's call ("order-alone",
// "name-alone H") and defending alone a defender's ("defend-alone").
import type { GameView, HandScore, SeatView } from "@cardgame/client/web";

import { SUIT_SYMBOLS, type SuitLetter, cardFace, cardList, suitLetter } from "../cards.js";
import { type Child, h } from "../dom.js";
import { plural } from "../text.js";
import type { GameRenderer, HandDetails, SeatNamer } from "./renderer.js";

/** The seat across the table. */
function partner(seat: number): number {
  return (seat + 2) % 4;
}

/** Whether a seat sits the hand out (its partner, or the partner of the seat it plays against, went alone). */
function sitsOut(seat: SeatView | undefined): boolean {
  return seat?.rules.case === "buckEuchre" && seat.rules.value.droppedOut;
}

/** The seat that defends alone this hand, if one does: its last call says so. */
function loneDefender(view: GameView): number | undefined {
  return view.seats.find((seat) => seat.lastCall === "defend-alone")?.seat;
}

/** A suit letter's symbol, or the letter itself when it is none. */
function symbol(letter: string): string {
  return SUIT_SYMBOLS[letter as SuitLetter] ?? letter;
}

/** The score table's words for a hand: trump, the maker (alone), a lone defence, a euchre, a throw-in. */
function handDetails(hand: HandScore, name: SeatNamer): HandDetails {
  const rules = hand.rules.case === "buckEuchre" ? hand.rules.value : undefined;
  const out = (seat: number) => {
    const entry = hand.seats.find((s) => s.seat === seat);
    return entry?.rules.case === "buckEuchre" && entry.rules.value.droppedOut;
  };
  if (!rules || rules.maker === undefined) {
    return { note: "thrown in", sides: hand.sides.map(() => "no score") };
  }
  const maker = rules.maker;
  const letter = suitLetter(rules.trump);
  const alone = out(partner(maker)) ? " alone" : "";
  const defender = [(maker + 1) % 4, (maker + 3) % 4].find((seat) => out(partner(seat)));
  const defended = defender !== undefined ? `, ${name(defender)} defended alone` : "";
  const makers = hand.sides.find((side) => side.seats.includes(maker));
  const euchred = makers && makers.tricks < 3 ? ", euchred" : "";
  return {
    note: `${letter ? SUIT_SYMBOLS[letter] : ""} by ${name(maker)}${alone}${defended}${euchred}`,
    sides: hand.sides.map((side) => {
      const parts = [plural(side.tricks, "trick")];
      if (side.seats.includes(maker)) parts.push("makers");
      const resting = side.seats.filter(out);
      if (resting.length) parts.push(`${resting.map(name).join(", ")} sat out`);
      return parts.join(" · ");
    }),
  };
}

const CALLS: Record<string, string> = {
  pass: "Passed", order: "Ordered up", "order-alone": "Ordered up alone", "defend-alone": "Defends alone",
};

export const euchre: GameRenderer = {
  name: "euchre",
  title: "Euchre",
  lobby: {
    blurb: "Four players in two partnerships (you and North), 24 cards, bowers; make trump, take three tricks, first to 10.",
    seatNames: ["South", "West", "North", "East"],
  },
  reasons: {
    MUST_KEEP_TURN_UP: "The dealer keeps the turn-up: discard another card.",
    DEALER_MUST_NAME: "Stick the dealer: you must name trump.",
    SUIT_TURNED_DOWN: "That suit was turned down: name another one.",
  },
  dealer: { badge: "dealer", title: "Dealer" },
  exchange: { button: "Discard", prompt: "discard (any card but the turn-up)" },
  actionLabel(action) {
    if (action.word !== "name" && action.word !== "name-alone") return undefined; // the titles say the others
    const letter = suitLetter(action.suit);
    if (!letter) return undefined;
    return `Name ${SUIT_SYMBOLS[letter]}${action.word === "name-alone" ? " alone" : ""}`;
  },
  callText(call) {
    const [word, arg] = call.split(" ");
    if (word === "name") return `Named ${symbol(arg ?? "")}`;
    if (word === "name-alone") return `Named ${symbol(arg ?? "")} alone`;
    return CALLS[call] ?? call;
  },
  prompt(view) {
    switch (view.phaseName) {
      case "order_up":
        return "Order up the turn-up (alone, if your hand is strong enough), or pass.";
      case "name_trump":
        return view.legalActions.some((a) => a.word === "pass")
          ? "Name trump (not the turned-down suit), alone if you like, or pass."
          : "Stick the dealer: name trump (not the turned-down suit).";
      case "defend_alone":
        return "Defend alone against the lone maker, or pass.";
      default:
        return undefined;
    }
  },
  seatBadges(seat, view) {
    const rules = view.rules.case === "buckEuchre" ? view.rules.value : undefined;
    const maker = rules?.maker;
    const alone = maker !== undefined && sitsOut(view.seats[partner(maker)]);
    return [
      sitsOut(seat)
        ? h("span", { class: "badge out", "data-field": "sitting-out", title: "Sits this hand out, cards face down" },
          "sitting out")
        : null,
      maker === seat.seat ? h("span", { class: "badge alert" }, alone ? "maker, alone" : "maker") : null,
      loneDefender(view) === seat.seat ? h("span", { class: "badge alert" }, "defends alone") : null,
    ];
  },
  facts(view, name) {
    if (view.rules.case !== "buckEuchre") return [];
    const { turnUp, turnUpTurnedDown, trump, maker, dealerDiscard } = view.rules.value;
    const facts: Child[] = [];
    if (turnUp) {
      // Face up while ordering; after it, public knowledge: in the dealer's hand, turned down, or left
      // in the kitty (when the dealer's partner goes alone, the dealer sits out and takes nothing).
      const inKitty = maker !== undefined && maker === partner(view.dealer) && sitsOut(view.seats[view.dealer]);
      const label = turnUpTurnedDown ? "Turned down" : maker === undefined ? "Turn-up" : inKitty ? "In the kitty" : "Picked up";
      facts.push(h("div", {
        class: `turn-up${turnUpTurnedDown ? " turned-down" : ""}`, "data-role": "turn-up", "data-card": turnUp,
      }, h("span", { class: "label" }, label), cardFace(turnUp)));
    }
    if (dealerDiscard) facts.push(cardList("Your discard", [dealerDiscard], "dealer-discard")); // the dealer's view alone
    const letter = suitLetter(trump);
    if (letter) {
      const alone = maker !== undefined && sitsOut(view.seats[partner(maker)]) ? " alone" : "";
      facts.push(h("div", { class: "trump", "data-role": "trump", "data-suit": letter },
        `Trump ${SUIT_SYMBOLS[letter]}`, maker !== undefined ? ` · made by ${name(maker)}${alone}` : ""));
    }
    const resting = view.seats.filter(sitsOut).map((seat) => name(seat.seat));
    if (resting.length) {
      facts.push(h("div", { class: "trump", "data-role": "sitting-out" }, `Sitting out: ${resting.join(", ")}`));
    }
    return facts;
  },
  totalNote: () => "",
  handDetails,
};

export default euchre;
