// The games the web table knows, by registry name. A game plugs in with its module here and one
// line in GAMES; a game the server plays but this list lacks gets the generic renderer.
import { buckEuchre } from "./buck_euchre.js";
import { genericRenderer } from "./generic.js";
import { hearts } from "./hearts.js";
import type { GameRenderer, LobbyEntry } from "./renderer.js";
import { spades } from "./spades.js";
import { spades2 } from "./spades2.js";

export type { GameRenderer, LobbyEntry, NumberOption, RuleOptionsInit, SeatNamer } from "./renderer.js";

/** Every registered renderer, in the lobby's order. */
const GAMES: readonly GameRenderer[] = [
  buckEuchre,
  hearts,
  spades,
  spades2,
];

const BY_NAME: ReadonlyMap<string, GameRenderer> = new Map(GAMES.map((game) => [game.name, game]));

/** The renderer of the game registered as `name` (GameView.variant_name); the generic one if none. */
export function rendererFor(name: string): GameRenderer {
  return BY_NAME.get(name) ?? genericRenderer(name);
}

/** The games the lobby offers, with their entries. */
export function lobbyGames(): (GameRenderer & { lobby: LobbyEntry })[] {
  return GAMES.filter((game): game is GameRenderer & { lobby: LobbyEntry } => game.lobby !== undefined);
}
