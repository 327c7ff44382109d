// What the table says: game and phase names, action labels, calls, and why a move was refused.
import { ActionKind, type GameView, type LegalAction, Phase } from "@cardgame/client/web";

import { SUIT_SYMBOLS, type SuitLetter, cardName, suitLetter } from "./cards.js";

export const GAME_NAMES: Record<string, string> = {
  spades: "Spades",
  spades2: "Spades for two",
  buck_euchre: "Buck Euchre",
};

/** The game's name as a person reads it. */
export function gameName(view: GameView): string {
  return GAME_NAMES[view.variantName] ?? view.variantName;
}

const PHASES: Partial<Record<Phase, string>> = {
  [Phase.DEAL]: "Deal",
  [Phase.DRAW]: "The draw",
  [Phase.BID]: "Bidding",
  [Phase.EXCHANGE]: "Double Nil exchange",
  [Phase.ORDER_UP]: "Order up or pass",
  [Phase.DEALER_DISCARD]: "The dealer discards",
  [Phase.NAME_TRUMP]: "Name trump or pass",
  [Phase.DROP_OUT]: "Stay in or drop out",
  [Phase.PLAY]: "Playing",
  [Phase.GAME_OVER]: "Game over",
};

export function phaseName(phase: Phase): string {
  return PHASES[phase] ?? "";
}

/** The button label of a legal action (plays and exchanges are chosen on the cards instead). */
export function actionLabel(action: LegalAction, view: GameView): string {
  switch (action.kind) {
    case ActionKind.DEAL:
      return view.variantName === "spades2" ? "Start the draw" : "Deal";
    case ActionKind.REVEAL:
      return "Look at my cards";
    case ActionKind.DRAW_KEEP:
      return "Keep it";
    case ActionKind.DRAW_DISCARD:
      return "Discard it, take the next";
    case ActionKind.BID:
      return action.tricks === 0 ? "Nil" : String(action.tricks);
    case ActionKind.DOUBLE_NIL:
      return "Double Nil";
    case ActionKind.ORDER_UP:
      return "Order up";
    case ActionKind.PASS:
      return "Pass";
    case ActionKind.NAME_SUIT: {
      const letter = suitLetter(action.suit);
      return letter ? `Name ${SUIT_SYMBOLS[letter]}` : "Name a suit";
    }
    case ActionKind.STAY_IN:
      return "Stay in";
    case ActionKind.DROP_OUT:
      return "Drop out";
    case ActionKind.PLAY:
      return `Play ${cardName(action.card)}`;
    case ActionKind.EXCHANGE:
      return exchangeVerb(view);
    default:
      return action.notation;
  }
}

/** What choosing the exchange's cards does in this game. */
export function exchangeVerb(view: GameView): string {
  if (view.variantName === "buck_euchre") return "Discard";
  if (view.variantName === "spades2") return "Put aside";
  return "Give to partner";
}

/** A seat's last call (its `last_call` notation) in words. */
export function callText(call: string): string {
  if (call === "") return "";
  const [word, arg] = call.split(" ");
  switch (word) {
    case "bid":
      return arg === "0" ? "Nil" : `Bid ${arg}`;
    case "double-nil":
      return "Double Nil";
    case "pass":
      return "Passed";
    case "order-up":
      return "Ordered up";
    case "name":
      return `Named ${SUIT_SYMBOLS[arg as SuitLetter] ?? arg}`;
    case "stay":
      return "Stays in";
    case "drop":
      return "Dropped out";
    default:
      return call;
  }
}

const REASONS: Record<string, string> = {
  WRONG_PHASE: "That cannot be done at this point of the hand.",
  NOT_YOUR_TURN: "It is not your turn.",
  CARD_NOT_IN_HAND: "That card is not in your hand.",
  MUST_FOLLOW_SUIT: "You must follow suit.",
  SPADES_NOT_BROKEN: "Spades are not broken yet: lead another suit.",
  INVALID_BID: "That bid is not allowed.",
  BLIND_NIL_AFTER_LOOKING: "Double Nil must be bid before looking at your cards.",
  INVALID_EXCHANGE: "Those cards cannot be exchanged.",
  SUIT_TURNED_DOWN: "That suit was turned down: name another one.",
  MAKER_CANNOT_DROP: "The maker cannot drop out.",
  CANNOT_DROP_ON_CLUBS: "Nobody may drop out when clubs are turned up.",
  UNSUPPORTED_GAME_FORMAT: "This game was stored by an older server and cannot be continued.",
};

/** Why a move was refused, for a person: the reason code's sentence, else the server's message. */
export function refusal(reason: string | undefined, message: string): string {
  return (reason && REASONS[reason]) || message;
}
