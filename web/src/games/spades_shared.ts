// What four- and two-player Spades draw alike: bids and Double Nil, spades broken, the exchange's
// cards, bags, and a hand's score by contract, Nil and bags.
import type { GameView, HandScore, LegalAction, SeatView, SideTotal } from "@cardgame/client/web";

import { cardList } from "../cards.js";
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

/** A seat's Double Nil bid, and during the exchange whether it has made its choice. */
export function spadesSeatBadges(seat: SeatView, view: GameView): Child[] {
  if (seat.rules.case !== "spades") return [];
  const { doubleNil, exchangeDone } = seat.rules.value;
  return [
    doubleNil ? h("span", { class: "badge alert" }, "Double Nil") : null,
    view.phaseName === "exchange" && exchangeDone ? h("span", { class: "badge" }, "exchanged") : null,
  ];
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

/** A Spades hand in words, per side: contract and tricks, bags, each Nil, the bag penalty. */
export function spadesHandDetails(hand: HandScore, name: SeatNamer): HandDetails {
  return {
    note: "",
    sides: hand.sides.map((result) => {
      const parts = [`bid ${result.contract}, took ${result.tricks}`];
      if (result.bagsGained) parts.push(plural(result.bagsGained, "bag", signed(result.bagsGained)));
      for (const seat of hand.seats.filter((s) => result.seats.includes(s.seat))) {
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
