// The games the web table knows, by registry name: every module of this folder whose default
// export is its GameRenderer (listed in registry.gen.ts by scripts/games-registry.mjs, which
// npm runs before typecheck, build, dev and test), so a game plugs in by its file alone. A game
// the server plays without a module here gets the generic renderer.
import { genericRenderer } from "./generic.js";
import { REGISTERED } from "./registry.gen.js";
import type { GameRenderer, LobbyEntry } from "./renderer.js";

export type { GameRenderer, LobbyEntry, NumberOption, RuleOptionsInit, SeatNamer } from "./renderer.js";

const BY_NAME: ReadonlyMap<string, GameRenderer> = new Map(REGISTERED.map((game) => [game.name, game]));

/** The renderer of the game registered as `name` (GameView.variant_name); the generic one if none. */
export function rendererFor(name: string): GameRenderer {
  return BY_NAME.get(name) ?? genericRenderer(name);
}

/** The games the lobby offers, with their entries, in the order of their modules' file names. */
export function lobbyGames(): (GameRenderer & { lobby: LobbyEntry })[] {
  return REGISTERED.filter((game): game is GameRenderer & { lobby: LobbyEntry } => game.lobby !== undefined);
}
