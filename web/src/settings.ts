// What the lobby makes of a game's catalog entry (GetCatalog), apart from drawing it: how many seats
// its seat setting asks for, its default seat names and blurb, each setting's validity, and the
// settings a CreateGame sends. No DOM here,
// so the tests check it against a live server's catalog (tests/games.test.ts).
import { type GameDescription, type SettingDescription, SettingType } from "@cardgame/client/web";

import type { LobbyEntry } from "./games/index.js";

/** The sentence shown when CreateGame needs an API key (UNAUTHENTICATED or PERMISSION_DENIED). */
export const API_KEY_REQUIRED =
  "This server requires an API key to create games, and a web page has none to send: the operator must " +
  "either run the server for this table without API keys (leave CARDGAME_API_KEYS unset), or create the " +
  "games from a backend that sends its key in the x-api-key header and hand out the seat links.";

/**
 * The compass names of a table of three or four, in seat order from the creator's seat 0 (the
 * bottom of the table) clockwise: as the table places them (table.ts), three players sit at the
 * bottom, left and right, so the one across is left out.
 */
const COMPASS: Readonly<Record<number, readonly string[]>> = {
  3: ["South", "West", "East"],
  4: ["South", "West", "North", "East"],
};
const COUNTS = ["", "one", "two", "three", "four", "five", "six", "seven", "eight"];

/** The numbers of players a game can be played by: its catalog's seat counts, else its seats alone. */
export function seatCounts(game: GameDescription): number[] {
  return game.seatCounts.length > 0 ? [...game.seatCounts] : [game.seats];
}

/** A game's seat setting (GameDescription.seat_setting: the integer setting that chooses the number of players), if it has one. */
export function seatSetting(game: GameDescription): SettingDescription | undefined {
  return game.seatSetting ? game.settings.find((s) => s.name === game.seatSetting) : undefined;
}

/**
 * How many seats a game is created with when its seat setting reads `value`: that number when it
 * is one of the game's seat counts, undefined when it is not (a value being typed, or a wrong
 * one). A game without a seat setting, or no value, seats the catalog's `seats`.
 */
export function seatCount(game: GameDescription, value: string | undefined): number | undefined {
  if (!seatSetting(game) || value === undefined) return game.seats;
  const text = value.trim();
  if (!/^\d+$/.test(text)) return undefined;
  const count = Number(text);
  return seatCounts(game).includes(count) ? count : undefined;
}

/** What is wrong with a seat setting's value that its range allows but no seat count is; undefined if nothing. */
export function seatCountProblem(game: GameDescription, value: string | undefined): string | undefined {
  const setting = seatSetting(game);
  if (!setting || seatCount(game, value) !== undefined) return undefined;
  return `${setting.title || setting.name}: ${seatCounts(game).join(" or ")}.`;
}

/**
 * Default names, one per seat of a table of `count` (the catalog's seats unless a seat setting
 * says another): the game's own when its renderer has as many, else the compass for three or
 * four seats, else "Player <n>".
 */
export function seatNames(game: GameDescription, entry?: LobbyEntry, count: number = game.seats): string[] {
  if (entry && entry.seatNames.length === count) return [...entry.seatNames];
  const compass = COMPASS[count];
  if (compass) return [...compass];
  return Array.from({ length: count }, (_, i) => `Player ${i + 1}`);
}

function count(n: number): string {
  const word = COUNTS[n] ?? String(n);
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** "Four", "Three or four": the numbers of players a game can be played by, in words. */
function counts(game: GameDescription): string {
  const all = seatCounts(game);
  const words = all.map((n, i) => (i === 0 ? count(n) : COUNTS[n] ?? String(n)));
  return words.length > 1 ? `${words.slice(0, -1).join(", ")} or ${words.at(-1)}` : words[0]!;
}

/** One sentence on the game: its renderer's, else its seats and sides in words. */
export function blurb(game: GameDescription, entry?: LobbyEntry): string {
  if (entry) return entry.blurb;
  const sides = game.sides.length;
  const alone = game.sides.every((s) => s.seats.length === 1);
  const who = alone || sides === 0 ? `${counts(game)} players, each for themselves`
    : `${counts(game)} players in ${COUNTS[sides] ?? sides} ${sides === 1 ? "side" : "partnerships"}`;
  return `${who}; ${game.lowScoreWins ? "lowest" : "highest"} score wins.`;
}

/** Whether `value` (as text) is a value `setting` takes: its type, range, choices or pattern. */
export function settingValid(setting: SettingDescription, value: string): boolean {
  switch (setting.type) {
    case SettingType.INTEGER:
      return /^-?\d+$/.test(value.trim()) && Number(value) >= setting.min && Number(value) <= setting.max;
    case SettingType.BOOLEAN:
      return value === "true" || value === "false";
    case SettingType.CHOICE:
      return setting.choices.includes(value);
    case SettingType.TEXT:
      try {
        return new RegExp(`^(?:${setting.pattern})$`).test(value);
      } catch {
        return true; // a pattern this browser cannot read: the server judges
      }
    default:
      return true;
  }
}

/** A value as the server writes it ("007" -> "7", " 300 " -> "300"). */
export function normalized(setting: SettingDescription, value: string): string {
  return setting.type === SettingType.INTEGER && /^-?\d+$/.test(value.trim()) ? String(Number(value)) : value;
}

/** What is wrong with a value, for a person: "Target: an integer from 1 to 20."; undefined if nothing. */
export function settingProblem(setting: SettingDescription, value: string): string | undefined {
  if (settingValid(setting, value)) return undefined;
  return `${setting.title || setting.name}: ${setting.allowed || "not a value it takes"}.`;
}

/**
 * The settings a CreateGame sends: only those whose value differs from the default. The server
 * fills in every other default (GetCatalog's, the same server's), so the request says exactly what
 * the player chose; GameView.options.settings then lists them all.
 */
export function settingsToSend(settings: readonly SettingDescription[],
  values: Readonly<Record<string, string>>): Record<string, string> {
  const sent: Record<string, string> = {};
  for (const setting of settings) {
    const value = values[setting.name];
    if (value === undefined) continue;
    const text = normalized(setting, value);
    if (text !== setting.defaultValue) sent[setting.name] = text;
  }
  return sent;
}

