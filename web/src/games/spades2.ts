// Spades for two players: each builds a hand by the draw (keep the offered card or discard it and
// take the next), then bids and plays; a Double Nil bidder puts cards aside and draws others.
import { ActionKind, Phase } from "@cardgame/client/web";

import { cardFace, cardList } from "../cards.js";
import { type Child, h } from "../dom.js";
import { plural } from "../text.js";
import type { GameRenderer } from "./renderer.js";
import {
  SPADES_OPTIONS,
  SPADES_PHASES,
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
    ...SPADES_OPTIONS,
  },
  phases: { ...SPADES_PHASES, [Phase.DRAW]: "The draw" },
  reasons: SPADES_REASONS,
  dealer: { badge: "first", title: "Draws first" },
  exchange: { button: "Put aside", prompt: "put aside" },
  actionLabel(action) {
    switch (action.kind) {
      case ActionKind.DEAL:
        return "Start the draw";
      case ActionKind.DRAW_KEEP:
        return "Keep it";
      case ActionKind.DRAW_DISCARD:
        return "Discard it, take the next";
      default:
        return spadesActionLabel(action);
    }
  },
  callText: spadesCallText,
  prompt(view) {
    if (view.phase === Phase.DEAL) return "Your turn to start the draw.";
    if (view.phase === Phase.DRAW) return "Keep the offered card, or discard it and take the next one.";
    return spadesBidPrompt(view);
  },
  seatBadges: spadesSeatBadges,
  facts(view) {
    if (view.rules.case !== "spadesTwoPlayer") return [];
    const { spadesBroken: broken, exchangeGiven, exchangeReceived, offeredCard, stockCount, seenDiscards } =
      view.rules.value;
    const facts: Child[] = [spadesBroken(view, broken),
      ...exchangeCards({ given: "Put aside", received: "Drawn" }, exchangeGiven, exchangeReceived)];
    if (view.phase === Phase.DRAW) {
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
