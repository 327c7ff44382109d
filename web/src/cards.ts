// Cards as the API writes them ("AS", "10H", "JC", "9D"): rank then suit letter; "BJ" and "LJ",
// the Big and Little Jokers of a Spades table with jokers.
import { Suit } from "@cardgame/client/web";

import { h } from "./dom.js";

export type SuitLetter = "C" | "D" | "H" | "S";

export const SUIT_SYMBOLS: Record<SuitLetter, string> = { C: "♣", D: "♦", H: "♥", S: "♠" };
export const SUIT_NAMES: Record<SuitLetter, string> = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const RANK_NAMES: Record<string, string> = { J: "jack", Q: "queen", K: "king", A: "ace" };

/** The suit letter of an API Suit value ("" for none). */
export function suitLetter(suit: Suit): SuitLetter | "" {
  switch (suit) {
    case Suit.CLUBS:
      return "C";
    case Suit.DIAMONDS:
      return "D";
    case Suit.HEARTS:
      return "H";
    case Suit.SPADES:
      return "S";
    default:
      return "";
  }
}

/** The rank and suit letter of a card name. */
export function parseCard(card: string): { rank: string; suit: SuitLetter } {
  return { rank: card.slice(0, -1), suit: card.slice(-1) as SuitLetter };
}

/** The jokers of a Spades table with jokers: their names and the mark their faces show. */
const JOKERS: Record<string, { name: string; mark: string }> = {
  BJ: { name: "big joker", mark: "★" },
  LJ: { name: "little joker", mark: "☆" },
};

/** "10 of hearts", "ace of spades", "big joker". */
export function cardName(card: string): string {
  const joker = JOKERS[card];
  if (joker) return joker.name;
  const { rank, suit } = parseCard(card);
  return `${RANK_NAMES[rank] ?? rank} of ${SUIT_NAMES[suit]}`;
}

/** A card face: rank and suit symbol, red for hearts and diamonds (`extraClass` adds classes). */
export function cardFace(card: string, extraClass = "", attrs: Record<string, string> = {}): HTMLElement {
  const joker = JOKERS[card];
  const { rank, suit } = parseCard(card);
  const red = joker ? card === "BJ" : suit === "H" || suit === "D";
  const classes = `card${joker ? " joker" : ""}${red ? " red" : ""}${extraClass ? ` ${extraClass}` : ""}`;
  return h("span", { class: classes, "data-card": card, "aria-label": cardName(card), ...attrs },
    h("span", { class: "rank" }, joker ? card : rank),
    h("span", { class: "suit", "aria-hidden": "true" }, joker ? joker.mark : SUIT_SYMBOLS[suit]));
}

/** A face-down card. */
export function cardBack(): HTMLElement {
  return h("span", { class: "card back", "aria-hidden": "true" });
}

/** A labelled row of small card faces; `role` names it for the tests (`data-role`). */
export function cardList(label: string, cards: readonly string[], role: string): HTMLElement {
  return h("div", { class: "card-list", "data-role": role, "data-cards": cards.join(" ") },
    h("span", { class: "label" }, label), ...cards.map((c) => cardFace(c, "small")));
}
