// What the table says in every game: the phase, counts, and why a move was refused. Each game's
// own words come from the server (phase and action titles) or its renderer (games/).
import type { GameView } from "@cardgame/client/web";

import { humanize } from "./words.js";

/** The phase as the table shows it: the server's title, else the phase's name in words. */
export function phaseText(view: Pick<GameView, "phaseName" | "phaseTitle">): string {
  return view.phaseTitle || humanize(view.phaseName);
}

/** "1 card", "2 cards", "0 tricks"; `shown` writes the count otherwise ("+1 trick"). */
export function plural(count: number, noun: string, shown: string = String(count)): string {
  return `${shown} ${noun}${count === 1 ? "" : "s"}`;
}

/** A score change with its sign: "+10", "-100", "0". */
export function signed(n: number): string {
  return n > 0 ? `+${n}` : String(n);
}

const REASONS: Record<string, string> = {
  WRONG_PHASE: "That cannot be done at this point of the hand.",
  NOT_YOUR_TURN: "It is not your turn.",
  CARD_NOT_IN_HAND: "That card is not in your hand.",
  MUST_FOLLOW_SUIT: "You must follow suit.",
  INVALID_BID: "That bid is not allowed.",
  INVALID_EXCHANGE: "Those cards cannot be exchanged.",
  UNSUPPORTED_GAME_FORMAT: "This game was stored by an older server and cannot be continued.",
};

/**
 * Why a move was refused, for a person: the reason code's sentence (the game's own `reasons`
 * first), else the server's message.
 */
export function refusal(reason: string | undefined, message: string, reasons: Readonly<Record<string, string>> = {}): string {
  return (reason && (reasons[reason] ?? REASONS[reason])) || message;
}
