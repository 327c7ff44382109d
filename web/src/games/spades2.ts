// Spades for two players: each builds a hand by the draw (keep the offered card or discard it and
// take the next), then bids and plays; a Double Nil bidder puts cards aside and draws others.
import { cardFace, cardList } from "../cards.js";
import { type Child, h } from "../dom.js";
import { plural } from "../text.js";
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
} from "./spades_shared.js";

export const spades2: GameRenderer = {
  name: "spades2",
  title: "Spades for two",
  lobby: {
    blurb: "Two players build their hands by the draw, then bid and play.",
    seatNames: ["South", "Opponent"],
  },
  reasons: SPADES_REASONS,
  dealer: { badge: "first", title: "Draws first" },
  exchange: { button: "Put aside", prompt: "put aside" },
  actionLabel(action) {
    switch (action.word) {
      case "keep":
        return "Keep it";
      case "discard":
        return "Discard it, take the next";
      default:
        return spadesActionLabel(action);
    }
  },
  callText: spadesCallText,
  prompt(view) {
    if (view.phaseName === "deal") return "Your turn to start the draw.";
    if (view.phaseName === "draw") return "Keep the offered card, or discard it and take the next one.";
    return spadesBidPrompt(view);
  },
  seatBadges: spadesSeatBadges,
  facts(view) {
    if (view.rules.case !== "spadesTwoPlayer") return [];
    const { spadesBroken: broken, exchangeGiven, exchangeReceived, offeredCard, stockCount, seenDiscards } =
      view.rules.value;
    const facts: Child[] = [spadesBroken(view, broken),
      ...exchangeCards({ given: "Put aside", received: "Drawn" }, exchangeGiven, exchangeReceived)];
    if (view.phaseName === "draw") {
      facts.push(h("div", { class: "stock", "data-role": "stock", "data-value": stockCount },
        `${plural(stockCount, "card")} in the stock`));
      if (offeredCard) {
        facts.push(h("div", { class: "offered", "data-role": "offered", "data-card": offeredCard },
          h("span", { class: "label" }, "Offered to you"), cardFace(offeredCard)));
      }
    }
    if (seenDiscards.length > 0) facts.push(cardList("Your discards", seenDiscards, "seen-discards"));
    return facts;
  },
  totalNote: spadesTotalNote,
  handDetails: spadesHandDetails,
};

export default spades2;
