// Spades for four players in two partnerships: bids (forced ones marked), Nil and Double Nil with
// the partners' exchange, the jokers' and deuces' place among the spades, spades broken, bags.
import type { GameRenderer } from "./renderer.js";
import {
  SPADES_REASONS,
  exchangeCards,
  spadesActionLabel,
  spadesBidPrompt,
  spadesBroken,
  spadesCallText,
  spadesHandDetails,
  spadesSeatBadges,
  spadesTotalNote,
  topTrumps,
} from "./spades_shared.js";

export const spades: GameRenderer = {
  name: "spades",
  title: "Spades",
  lobby: {
    blurb: "Four players in two partnerships (you and North); bid, make your tricks, mind the bags.",
    seatNames: ["South", "West", "North", "East"],
  },
  reasons: SPADES_REASONS,
  dealer: { badge: "dealer", title: "Dealer" },
  exchange: { button: "Give to partner", prompt: "give to your partner" },
  actionLabel: spadesActionLabel,
  callText: spadesCallText,
  prompt: spadesBidPrompt,
  seatBadges: spadesSeatBadges,
  facts(view) {
    if (view.rules.case !== "spades") return [];
    const { spadesBroken: broken, exchangeGiven, exchangeReceived } = view.rules.value;
    return [topTrumps(view), spadesBroken(view, broken),
      ...exchangeCards({ given: "Given", received: "Received" }, exchangeGiven, exchangeReceived)];
  },
  totalNote: spadesTotalNote,
  handDetails: spadesHandDetails,
};

export default spades;
