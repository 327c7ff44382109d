// Seat names as the table shows them: the viewer is "You", and nobody else ever is.

/** Whether a name reads as "you" (any case, spaces around), which only the viewer may be called. */
export function isYou(name: string): boolean {
  return name.trim().toLowerCase() === "you";
}

/** A typed name, or `fallback` when it is empty or "You" (which would confuse the other players). */
export function nameOrDefault(typed: string, fallback: string): string {
  const name = typed.trim();
  return name === "" || isYou(name) ? fallback : name;
}

/** The name of another player's seat: its name, or "Player <n>" when that is empty or "You". */
export function otherName(seat: number, name: string | undefined): string {
  return nameOrDefault(name ?? "", `Player ${seat + 1}`);
}

/** The label of the viewer's own seat: "Ana (you)", or "You" when the name says so already. */
export function ownLabel(name: string): string {
  const trimmed = name.trim();
  return trimmed === "" || isYou(trimmed) ? "You" : `${trimmed} (you)`;
}
