// What four- and two-player Spades draw alike: bids and Double Nil, a bid the table's settings
// forced (Mirror, Suicide...), spades broken, the exchange's cards, bags, and a hand's score by
// contract, Nil and bags.
import type { GameView, HandScore, LegalAction, SeatView, SideTotal } from "@cardgame/client/web";

import { SUIT_SYMBOLS, cardList, cardName, parseCard } from "../cards.js";
import { type Child, h } from "../dom.js";
import { plural, signed } from "../text.js";
import type { HandDetails, SeatNamer } from "./renderer.js";

export const SPADES_REASONS: Record<string, string> = {
  SPADES_NOT_BROKEN: "Spades are not broken yet: lead another suit.",
  BLIND_NIL_AFTER_LOOKING: "Double Nil must be bid before looking at your cards.",
};

/**
 * The label of a bid in the bidding grid: "Nil" or the number alone (the grid says it is a bid);
 * undefined for the other actions, which read as their titles ("Deal", "Double Nil (blind)").
 */
export function spadesActionLabel(action: LegalAction): string | undefined {
  if (action.word !== "bid") return undefined;
  return action.number === 0 ? "Nil" : String(action.number);
}

/** A Spades call ("bid 4", "bid 0", "double-nil") in words. */
export function spadesCallText(call: string): string {
  const [word, arg] = call.split(" ");
  if (word === "bid") return arg === "0" ? "Nil" : `Bid ${arg}`;
  if (word === "double-nil") return "Double Nil";
  return call;
}

/** The bidding prompt; undefined in other phases. */
export function spadesBidPrompt(view: GameView): string | undefined {
  if (view.phaseName !== "bid") return undefined;
  return view.handVisible ? "Your bid." : "Your bid: Double Nil or a blind bid, or look at your cards first.";
}

/** A seat's Double Nil bid, a bid it was left no choice in, and during the exchange whether it has made its choice. */
export function spadesSeatBadges(seat: SeatView, view: GameView): Child[] {
  if (seat.rules.case !== "spades") return [];
  const { doubleNil, exchangeDone, bidForced } = seat.rules.value;
  return [
    doubleNil ? h("span", { class: "badge alert" }, "Double Nil") : null,
    bidForced ? h("span", {
      class: "badge forced", "data-field": "bid-forced", title: "The table's settings left this seat one bid only",
    }, "forced bid") : null,
    view.phaseName === "exchange" && exchangeDone ? h("span", { class: "badge" }, "exchanged") : null,
  ];
}

/** The spades above the A♠ at a table with jokers (the setting `trumps`), highest first. */
const TOP_TRUMPS: Readonly<Record<string, readonly string[]>> = {
  jokers: ["BJ", "LJ"],
  jokers_deuces: ["BJ", "LJ", "2D", "2S"],
};

/** "BJ", "2♦": a card as short as the table writes it in a line of text. */
function shortCard(card: string): string {
  if (card === "BJ" || card === "LJ") return card;
  const { rank, suit } = parseCard(card);
  return `${rank}${SUIT_SYMBOLS[suit]}`;
}

/** At a table with jokers, while a hand is bid and played: the cards that rank above the A♠, as spades. */
export function topTrumps(view: GameView): Child {
  const top = TOP_TRUMPS[view.options?.settings.trumps ?? ""];
  if (!top || view.phaseName === "deal" || view.phaseName === "game_over") return null;
  return h("div", { class: "trump top-trumps", "data-role": "top-trumps", "data-cards": top.join(" "),
    title: top.map(cardName).join(", ") }, `Spades above A♠: ${top.map(shortCard).join(" ")}`);
}

/** Whether spades are broken, while the hand is played. */
export function spadesBroken(view: GameView, broken: boolean): Child {
  if (view.phaseName !== "play") return null;
  return h("div", { class: "broken", "data-role": "spades-broken", "data-value": broken },
    broken ? "Spades broken ♠" : "Spades not broken");
}

/** The cards the viewer gave and received in the exchange, under the game's labels. */
export function exchangeCards(labels: { given: string; received: string },
  given: readonly string[], received: readonly string[]): Child[] {
  return [
    given.length > 0 ? cardList(labels.given, given, "exchange-given") : null,
    received.length > 0 ? cardList(labels.received, received, "exchange-received") : null,
  ];
}

/** A side's bags. */
export function spadesTotalNote(total: SideTotal): string {
  return plural(total.bags, "bag");
}

/**
 * A Spades hand in words, per side: contract and tricks, bags, the bids the table's settings
 * forced, each Nil, the bag penalty.
 */
export function spadesHandDetails(hand: HandScore, name: SeatNamer): HandDetails {
  return {
    note: "",
    sides: hand.sides.map((result) => {
      const parts = [`bid ${result.contract}, took ${result.tricks}`];
      if (result.bagsGained) parts.push(plural(result.bagsGained, "bag", signed(result.bagsGained)));
      const seats = hand.seats.filter((s) => result.seats.includes(s.seat));
      const forced = seats.filter((s) => s.rules.case === "spades" && s.rules.value.bidForced).map((s) => name(s.seat));
      if (forced.length) parts.push(`${forced.length === 1 ? "bid" : "bids"} forced: ${forced.join(", ")}`);
      for (const seat of seats) {
        const own = seat.rules.case === "spades" ? seat.rules.value : undefined;
        if (own && own.nilPoints !== 0) {
          parts.push(`${name(seat.seat)} ${own.doubleNil ? "Double Nil" : "Nil"} ${signed(own.nilPoints)}`);
        }
      }
      if (result.bagPenalty) parts.push(`bag penalty ${result.bagPenalty}`);
      return parts.join(" · ");
    }),
  };
}
