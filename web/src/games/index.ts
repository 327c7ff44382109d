// The games the web table has renderers for, by registry name: every module of this folder whose
// default export is its GameRenderer (listed in registry.gen.ts by scripts/games-registry.mjs,
// which npm runs before typecheck, build, dev and test), so a game plugs in by its file alone. A
// game the server plays without a module here gets the generic renderer. Which games the lobby
// offers, and their settings, come from the server (GetCatalog), not from here.
import { genericRenderer } from "./generic.js";
import { REGISTERED } from "./registry.gen.js";
import type { GameRenderer } from "./renderer.js";

export type { GameRenderer, HandDetails, LobbyEntry, SeatNamer } from "./renderer.js";

const BY_NAME: ReadonlyMap<string, GameRenderer> = new Map(REGISTERED.map((game) => [game.name, game]));

/** The renderer of the game registered as `name` (GameView.variant_name); the generic one if none. */
export function rendererFor(name: string): GameRenderer {
  return BY_NAME.get(name) ?? genericRenderer(name);
}

/** Whether `name` has a renderer of its own. */
export function hasRenderer(name: string): boolean {
  return BY_NAME.has(name);
}
