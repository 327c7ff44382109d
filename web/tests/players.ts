// The people at a web table in the browser tests: a page at one seat with the API client of the
// same seat, and the loop that plays through the pages by a policy, checking after every move that
// each page shows exactly its seat's view and that every finished hand brings up the score table.
import assert from "node:assert/strict";
import { after, before } from "node:test";

import { ActionShape, type GameServiceClient, type GameView, type LegalAction } from "@cardgame/client";
import type { BrowserContext, Page } from "playwright-core";

import { api, checkScoreDialog, moved, newPage, openBrowser, requireServer, screenshot, settle } from "./browser.js";

export const MAX_STEPS = 400;
export const GAME_TIMEOUT_MS = 60_000;

/** A person at the table: a page at one seat, and the API client of the same seat. */
export interface Player {
  name: string;
  seat: number;
  page: Page;
  errors: string[];
  client: GameServiceClient;
  handsSeen: number;
  shots: Set<string>;
}

export type Policy = (view: GameView, player: Player) => { action: LegalAction; cards?: string[] };

export function handsFinished(view: GameView): number {
  return view.phaseName === "deal" || view.phaseName === "game_over" ? view.handNumber
    : Math.max(0, view.handNumber - 1);
}

/** The first legal action with the first of `words` that has one (the order says the preference). */
export function first(view: GameView, ...words: string[]): LegalAction | undefined {
  for (const word of words) {
    const found = view.legalActions.find((a) => a.word === word);
    if (found) return found;
  }
  return undefined;
}

/**
 * Takes `action` through the page, as its shape says: its card (CARD), or its cards then its
 * button (CARDS: an exchange, a discard, a pass), or its button (any other).
 */
export async function take(page: Page, action: LegalAction, cards: readonly string[] = []): Promise<void> {
  await page.bringToFront(); // a background tab gets few animation frames, which clicks wait for
  if (action.shape === ActionShape.CARD) {
    await page.locator(`.hand button[data-card="${action.card}"]`).click();
    return;
  }
  if (action.shape === ActionShape.CARDS) {
    for (const card of cards) await page.locator(`.hand button[data-card="${card}"]`).click();
    await page.locator(`.actions button[data-notation="${action.notation}"]:not([disabled])`).click();
    return;
  }
  await page.locator(`.actions button[data-notation="${action.notation}"]`).click();
}

/** Shoots a state once per player and name. */
export async function shootOnce(player: Player, name: string): Promise<void> {
  if (player.shots.has(name)) return;
  player.shots.add(name);
  await screenshot(player.page, name);
}

/**
 * Plays through the pages until `done` says so: each round, every page must show its seat's
 * view; a finished hand must bring up the score table; then the player whose turn it is (or any
 * with something to do) acts by its policy, through its page.
 */
export async function play(gameId: string, players: Player[], policy: Policy, prefix: string,
  done: (view: GameView) => boolean, onView?: (view: GameView, player: Player) => Promise<void>): Promise<GameView> {
  for (let step = 0; step < MAX_STEPS; step++) {
    const views = new Map<Player, GameView>();
    for (const player of players) {
      const { view } = await settle(player.page, player.client, gameId, `${prefix} ${player.name}, step ${step}`);
      views.set(player, view);
      const finished = handsFinished(view);
      if (finished > player.handsSeen) {
        const score = await api().getScore({ gameId });
        const last = view.phaseName === "game_over" ? "game-over" : `hand-${finished}-score`;
        await checkScoreDialog(player.page, score, player.shots.has(last) ? undefined : `${prefix}-${last}`);
        player.shots.add(last);
        player.handsSeen = finished;
      }
      assert.deepEqual(player.errors, [], `${player.name}'s page reported errors`);
      if (onView) await onView(view, player);
    }
    const view = views.get(players[0]!)!;
    if (done(view)) return view;
    const mover = players.find((p) => views.get(p)!.turn === p.seat && views.get(p)!.legalActions.length > 0)
      ?? players.find((p) => views.get(p)!.legalActions.length > 0);
    assert.ok(mover, `${prefix}: nobody at the pages has anything to do in ${view.phaseName} (` +
      `${players.map((p) => `${p.name} at version ${views.get(p)!.version}, turn ${views.get(p)!.turn}`).join("; ")})`);
    const seen = views.get(mover)!;
    const { action, cards } = policy(seen, mover);
    await take(mover.page, action, cards);
    // Like a player, wait for the page to come back from its move before looking again: the
    // server answers once the move and every bot turn it hands on are committed (a strong bot's
    // turns, thought out in the server's process pool, take a while), and until then the API
    // and the other pages still show the version before it, which `settle` would accept.
    await moved(mover.page, seen.version, `${prefix} ${mover.name}'s ${action.notation}`);
  }
  assert.fail(`${prefix}: not done after ${MAX_STEPS} steps`);
}

export async function player(context: BrowserContext, name: string, seat: number, url: string, token: string): Promise<Player> {
  const { page, errors } = await newPage(context);
  await page.goto(url);
  await page.locator("#table").waitFor();
  return { name, seat, page, errors, client: api(token), handsSeen: 0, shots: new Set() };
}

/**
 * The creator at the page the lobby has just moved to its new game's seat 0: the game's id, and
 * the player with the seat token of the page's link.
 */
export async function creator(page: Page, errors: string[], name: string): Promise<{ gameId: string; player: Player }> {
  await page.locator("#table").waitFor();
  const place = new URLSearchParams(new URL(page.url()).hash.slice(1));
  const gameId = place.get("game") ?? "";
  assert.match(gameId, /^[0-9a-f]{24}$/, `the lobby's page is at no game: ${page.url()}`);
  assert.equal(place.get("seat"), "0", "the lobby seats the creator at seat 0");
  return { gameId, player: { name, seat: 0, page, errors, client: api(place.get("token") ?? ""), handsSeen: 0,
    shots: new Set() } };
}

/** The browser of a `describe` block: opened before its tests (which need a live server), closed after them. */
export function suiteBrowser(): { readonly context: BrowserContext } {
  const suite = {} as { context: BrowserContext };
  let close: (() => Promise<void>) | undefined;
  before(async () => {
    requireServer();
    const opened = await openBrowser();
    suite.context = opened.context;
    close = opened.close;
  });
  after(async () => {
    await close?.();
  });
  return suite;
}
