// Cards as the API writes them ("AS", "10H", "JC", "9D"): rank then suit letter.
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

/** "10 of hearts", "ace of spades". */
export function cardName(card: string): string {
  const { rank, suit } = parseCard(card);
  return `${RANK_NAMES[rank] ?? rank} of ${SUIT_NAMES[suit]}`;
}

/** A card face: rank and suit symbol, red for hearts and diamonds (`extraClass` adds classes). */
export function cardFace(card: string, extraClass = "", attrs: Record<string, string> = {}): HTMLElement {
  const { rank, suit } = parseCard(card);
  const red = suit === "H" || suit === "D";
  return h("span", { class: `card${red ? " red" : ""}${extraClass ? ` ${extraClass}` : ""}`, "data-card": card,
    "aria-label": cardName(card), ...attrs },
  h("span", { class: "rank" }, rank), h("span", { class: "suit", "aria-hidden": "true" }, SUIT_SYMBOLS[suit]));
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
