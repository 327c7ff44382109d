// The renderer of a game without a module of its own: the common view only. The table offers
// every legal action by its word (buttons labelled by their titles, cards to play, cards to
// choose), so such a game is fully playable from the API's vocabulary alone.
import type { GameRenderer } from "./renderer.js";

/** A renderer for the game registered as `name`, drawing what every game has. */
export function genericRenderer(name: string): GameRenderer {
  return {
    name,
    title: name,
    reasons: {},
    dealer: { badge: "dealer", title: "Dealer" },
    callText: (call) => call,
    prompt: () => undefined,
    seatBadges: () => [],
    facts: () => [],
    totalNote: () => "",
    handDetails: (hand) => ({ note: "", sides: hand.sides.map(() => "") }),
  };
}
