// The renderer of a game the registry does not know: the common view only, and every legal
// action as a button labelled by its notation.
import type { GameRenderer } from "./renderer.js";

/** A renderer for the game registered as `name`, drawing what every game has. */
export function genericRenderer(name: string): GameRenderer {
  return {
    name,
    title: name,
    phases: {},
    reasons: {},
    dealer: { badge: "dealer", title: "Dealer" },
    exchange: { button: "Exchange", prompt: "exchange" },
    actionLabel: (action) => action.notation,
    callText: (call) => call,
    prompt: () => undefined,
    seatBadges: () => [],
    facts: () => [],
    totalNote: () => "",
    handDetails: (hand) => ({ note: "", sides: hand.sides.map(() => "") }),
  };
}
