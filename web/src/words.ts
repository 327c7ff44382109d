// What the table reads from the API's open vocabulary, for any game: the phases every game has,
// and what each legal action offers by its shape (a card, a number, a suit, a choice of cards,
// or nothing but its word), labelled by its title. No game's own phase or word is named here:
// those come from the server (GameView.phase_name / phase_title, LegalAction.word / title).
import { ActionShape, type GameView, type LegalAction } from "@cardgame/client/web";

import { SUIT_NAMES, SUIT_SYMBOLS, suitLetter } from "./cards.js";

/** The phases every game has (GetCatalog): between hands, the hand's tricks, and the end. */
export const DEAL_PHASE = "deal";
export const GAME_OVER_PHASE = "game_over";

/** Whether the game is over. */
export function isOver(view: GameView): boolean {
  return view.phaseName === GAME_OVER_PHASE;
}

/** Hands finished in a view: during a hand, all before it; between hands and at the end, all. */
export function handsFinished(view: GameView): number {
  return view.phaseName === DEAL_PHASE || isOver(view) ? view.handNumber : Math.max(0, view.handNumber - 1);
}

/** The action that chooses a set of cards (an exchange, a discard, a pass), if any. */
export function cardsAction(view: GameView): LegalAction | undefined {
  return view.legalActions.find((a) => a.shape === ActionShape.CARDS || (a.shape === ActionShape.UNSPECIFIED && a.maxCards > 0));
}

/** The actions that take one card of the hand (plays). */
export function cardActions(view: GameView): LegalAction[] {
  return view.legalActions.filter((a) => a.shape === ActionShape.CARD);
}

/** The actions offered as buttons: all but those chosen on the cards (one card, or a set of them). */
export function buttonActions(view: GameView): LegalAction[] {
  const order = new Map<string, number>();
  for (const a of view.legalActions) if (!order.has(a.word)) order.set(a.word, order.size);
  return view.legalActions
    .filter((a) => a.shape !== ActionShape.CARD && a !== cardsAction(view))
    .map((a, i) => ({ a, i }))
    .sort((x, y) => order.get(x.a.word)! - order.get(y.a.word)! || x.a.number - y.a.number || x.i - y.i)
    .map(({ a }) => a);
}

/** Whether the viewer is asked for a number (a bid): some action has the NUMBER shape. */
export function choosingNumber(view: GameView): boolean {
  return view.legalActions.some((a) => a.shape === ActionShape.NUMBER);
}

/** A word as a person reads it: "order_up" -> "Order up", "no-trump" -> "No trump". */
export function humanize(word: string): string {
  const text = word.replace(/[_-]+/g, " ").trim();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** An action's title: the server's, else its word in words. */
export function actionTitle(action: LegalAction): string {
  return action.title || humanize(action.word || action.notation);
}

/**
 * A button's label for an action, from its title and what it carries: "Deal", "Bid 4",
 * "Bid Nil" (a named number), "Call trump ♠". `spoken` spells a suit out ("Call trump spades").
 */
export function actionLabel(action: LegalAction, spoken = false): string {
  const title = actionTitle(action);
  switch (action.shape) {
    case ActionShape.NUMBER:
      return `${title} ${action.numberName ? humanize(action.numberName) : action.number}`;
    case ActionShape.SUIT: {
      const letter = suitLetter(action.suit);
      if (!letter) return title;
      return `${title} ${spoken ? SUIT_NAMES[letter] : SUIT_SYMBOLS[letter]}`;
    }
    default:
      return title;
  }
}

/** "A or B", "A, B or C". */
export function either(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
}
