// Where the API is, and which game and seat this page is at (the URL's fragment).
import { type GameServiceClient, createClient } from "@cardgame/client/web";

/** The server's HTTP port: this page's own origin, unless the build names another (dev server). */
export const API_URL: string = import.meta.env.VITE_CARDGAME_API || location.origin;

/** A client of the API, as a seat (with its token) or as a spectator. */
export function client(token?: string): GameServiceClient {
  return createClient(API_URL, { token });
}

/** A seat at a game, as a link carries it: `#game=<id>&seat=<n>&token=<token>` (no token: watch). */
export interface Place {
  gameId: string;
  seat?: number;
  token?: string;
}

/** The place in this page's URL fragment, if any. */
export function placeFromHash(hash: string = location.hash): Place | undefined {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const gameId = params.get("game");
  if (!gameId) return undefined;
  const seat = params.get("seat");
  return { gameId, seat: seat === null ? undefined : Number(seat), token: params.get("token") ?? undefined };
}

/** The link to a place at this page (kept in the fragment: it never reaches a server log). */
export function linkTo(place: Place): string {
  const params = new URLSearchParams({ game: place.gameId });
  if (place.seat !== undefined) params.set("seat", String(place.seat));
  if (place.token !== undefined) params.set("token", place.token);
  return `${location.origin}${location.pathname}#${params.toString()}`;
}

const INVITES = "cardgame.invites.";

/** Remembers the seat links the creator of a game may still hand out. */
export function saveInvites(gameId: string, links: { seat: number; name: string; link: string }[]): void {
  try {
    localStorage.setItem(INVITES + gameId, JSON.stringify(links));
  } catch {
    // storage refused (private mode): the links stay on screen until the page is left
  }
}

export function loadInvites(gameId: string): { seat: number; name: string; link: string }[] {
  try {
    return JSON.parse(localStorage.getItem(INVITES + gameId) ?? "[]");
  } catch {
    return [];
  }
}
