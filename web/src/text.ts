// What the table says in every game: phase names, counts, and why a move was refused. Each
// game's own words are in its renderer (games/).
import { Phase } from "@cardgame/client/web";

const PHASES: Partial<Record<Phase, string>> = {
  [Phase.DEAL]: "Deal",
  [Phase.PLAY]: "Playing",
  [Phase.GAME_OVER]: "Game over",
};

/** A phase's name: the game's own (`names`), a common one, else the enum's name in words. */
export function phaseName(phase: Phase, names: Partial<Record<Phase, string>> = {}): string {
  const known = names[phase] ?? PHASES[phase];
  if (known !== undefined) return known;
  const word = (Phase[phase] ?? "").toLowerCase().replace(/_/g, " ");
  return word === "unspecified" ? "" : word.charAt(0).toUpperCase() + word.slice(1);
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
