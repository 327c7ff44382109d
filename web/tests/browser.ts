// What the browser tests share: Chromium (Debian's, through playwright-core), the server's
// addresses, screenshots, reading the table page back to compare it with the API's view, and
// where its parts are on the screen (the seats around the trick, at any size).
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import {
  ActionShape,
  type GameServiceClient,
  type GameView,
  type GetScoreResponse,
  PlayerKind,
  createClient,
} from "@cardgame/client";
import { type BrowserContext, type Page, chromium } from "playwright-core";

export const HTTP_SERVER = process.env.CARDGAME_HTTP_SERVER ?? "";
export const GRPC_SERVER = process.env.CARDGAME_SERVER ?? "";
export const ARTIFACTS = process.env.CARDGAME_ARTIFACTS ?? join(process.cwd(), "..", "test-artifacts", "web");
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const SETTLE_TIMEOUT_MS = 10_000;
const POLL_MS = 25;

/** Screen sizes the table is checked at: the browser opens at phone size (openBrowser). */
export const PHONE = { width: 390, height: 844 } as const;
export const DESKTOP = { width: 1280, height: 800 } as const;

/** Fails unless the server addresses are set. */
export function requireServer(): void {
  assert.match(HTTP_SERVER, /^http:\/\/[^/]+$/, "set CARDGAME_HTTP_SERVER to the server's HTTP port");
  assert.match(GRPC_SERVER, /^http:\/\/[^/]+$/, "set CARDGAME_SERVER to the server's gRPC port");
}

/** An API client over the gRPC port: the reference the page is checked against. */
export function api(token?: string): GameServiceClient {
  return createClient(GRPC_SERVER, { token });
}

/** A browser of its own: Debian's Chromium, headless, with a fresh profile removed at close. */
export async function openBrowser(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), "cardgame-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-quic",
      "--no-first-run", "--disable-component-update", "--disable-sync"],
    viewport: PHONE,
    deviceScaleFactor: 1,
  });
  // tsx compiles this file keeping function names, wrapping the functions passed to
  // page.evaluate in esbuild's __name helper, which only exists here: give pages one.
  await context.addInitScript({ content: "globalThis.__name = (fn) => fn;" });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * A page whose script errors, console errors and server errors (5xx) are collected, for the test
 * to fail on. API answers in the 4xx range are refusals the page shows (a card not allowed), and
 * Chromium's console line about each is left out.
 */
export async function newPage(context: BrowserContext): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (err) => errors.push(`page error: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() !== "error") return;
    if (/^Failed to load resource: the server responded with a status of 4\d\d/.test(msg.text())) return;
    errors.push(`console error: ${msg.text()}`);
  });
  page.on("response", (response) => {
    if (response.status() >= 500) errors.push(`${response.status()} from ${response.url()}`);
  });
  return { page, errors };
}

/** Saves a screenshot as an artefact, `<ARTIFACTS>/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** What the table page shows, read from its DOM. */
export interface Shown {
  version: string;
  phase: string;
  phaseTitle: string;
  turn: string;
  busy: string;
  handVisible: boolean;
  hand: string[];
  playable: string[];
  backs: number;
  trick: { role: string; plays: { seat: number; card: string }[] };
  seats: { seat: number; label: string; call: string; tricks: number; cards: number; cardsText: string; turn: boolean;
    bot: boolean }[];
  scores: { side: number; score: number; who: string }[];
  actions: string[];
  actionWords: string[];
  actionLabels: string[];
  turnUp: string | null;
  trump: string | null;
  discard: string | null;
  offered: string | null;
  stock: string | null;
  given: string | null;
  received: string | null;
  message: string;
  status: string;
  dialogOpen: boolean;
}

/** Reads the table page (runs in the browser). */
export async function readTable(page: Page): Promise<Shown> {
  return page.evaluate(() => {
    const table = document.querySelector<HTMLElement>("#table");
    if (!table) throw new Error("no #table on the page");
    const all = (selector: string) => Array.from(table.querySelectorAll<HTMLElement>(selector));
    const one = (selector: string) => table.querySelector<HTMLElement>(selector);
    const trick = one("[data-role=current-trick], [data-role=last-trick]");
    return {
      version: table.dataset.version ?? "",
      phase: table.dataset.phase ?? "",
      phaseTitle: one(".meta .phase")?.textContent ?? "",
      turn: table.dataset.turn ?? "",
      busy: table.dataset.busy ?? "",
      handVisible: one(".hand")?.dataset.visible === "true",
      hand: all(".hand .card-button").map((b) => b.dataset.card ?? ""),
      playable: all(".hand .card-button.playable").map((b) => b.dataset.card ?? ""),
      backs: all(".hand .card.back").length,
      trick: {
        role: trick?.dataset.role ?? "",
        plays: Array.from(trick?.querySelectorAll<HTMLElement>(".card") ?? [])
          .map((c) => ({ seat: Number(c.dataset.seat), card: c.dataset.card ?? "" })),
      },
      seats: all(".seat").map((s) => ({
        seat: Number(s.dataset.seat),
        label: s.querySelector<HTMLElement>("[data-field=name]")?.textContent ?? "",
        call: s.querySelector<HTMLElement>("[data-field=call]")?.dataset.value ?? "",
        tricks: Number(s.querySelector<HTMLElement>("[data-field=tricks]")?.dataset.value),
        cards: Number(s.querySelector<HTMLElement>("[data-field=cards]")?.dataset.value),
        cardsText: s.querySelector<HTMLElement>("[data-field=cards]")?.textContent ?? "",
        turn: s.dataset.turn === "true",
        bot: s.querySelector(".badge.bot") !== null,
      })),
      scores: all(".totals .side").map((s) => ({ side: Number(s.dataset.side), score: Number(s.dataset.score),
        who: s.querySelector(".who")?.textContent ?? "" })),
      actions: all(".actions button").map((b) => b.dataset.notation ?? ""),
      actionWords: all(".actions button").map((b) => b.dataset.word ?? ""),
      actionLabels: all(".actions button").map((b) => b.textContent ?? ""),
      turnUp: one("[data-role=turn-up]")?.dataset.card ?? null,
      trump: one("[data-role=trump]")?.dataset.suit ?? null,
      discard: one("[data-role=dealer-discard]")?.dataset.cards ?? null,
      offered: one("[data-role=offered]")?.dataset.card ?? null,
      stock: one("[data-role=stock]")?.dataset.value ?? null,
      given: one("[data-role=exchange-given]")?.dataset.cards ?? null,
      received: one("[data-role=exchange-received]")?.dataset.cards ?? null,
      message: one("#message:not([hidden])")?.textContent ?? "",
      status: one("#status")?.textContent ?? "",
      dialogOpen: document.querySelector("dialog.scores")?.hasAttribute("open") ?? false,
    };
  });
}

const SUIT_LETTERS = ["", "C", "D", "H", "S"];
const BOTS: ReadonlySet<PlayerKind> = new Set([PlayerKind.BOT_RANDOM, PlayerKind.BOT_BASIC, PlayerKind.BOT_STRONG]);

/**
 * The label a seat must have on the page: the viewer's own "Ana (you)" (just "You" when so
 * named); another's its name, or "Player <n>" when it is empty or "You", which only the viewer is.
 */
export function seatLabel(view: GameView, seat: number): string {
  const name = view.seats[seat]?.name.trim() ?? "";
  const unnamed = name === "" || name.toLowerCase() === "you";
  if (seat === view.viewerSeat) return unnamed ? "You" : `${name} (you)`;
  return unnamed ? `Player ${seat + 1}` : name;
}

/** "1 card", "5 cards", "0 cards". */
export function cardsText(count: number): string {
  return count === 1 ? "1 card" : `${count} cards`;
}

/** Asserts that the page shows exactly what `view` says (the API's view of the same seat). */
export function assertShows(shown: Shown, view: GameView, what: string): void {
  const at = `${what}, version ${view.version}`;
  assert.equal(shown.version, String(view.version), `${at}: page version`);
  assert.equal(shown.phase, view.phaseName, `${at}: phase`);
  assert.ok(view.phaseTitle !== "", `${at}: the view has no phase title`);
  assert.equal(shown.phaseTitle, view.phaseTitle, `${at}: the phase's title`);
  assert.equal(shown.turn, view.turn === undefined ? "" : String(view.turn), `${at}: turn`);
  assert.equal(shown.handVisible, view.handVisible, `${at}: hand visible`);
  if (view.handVisible) {
    assert.deepEqual(shown.hand, view.hand, `${at}: hand`);
  } else if (view.viewerSeat !== undefined) {
    assert.equal(shown.backs, view.seats[view.viewerSeat]?.cardCount, `${at}: face-down cards`);
  }
  const plays = view.legalActions.filter((a) => a.shape === ActionShape.CARD).map((a) => a.card);
  assert.deepEqual([...shown.playable].sort(), [...plays].sort(), `${at}: playable cards`);
  const buttons = view.legalActions.filter((a) => a.shape !== ActionShape.CARD)
    .map((a) => `${a.word} ${a.notation}`);
  assert.deepEqual(shown.actions.map((n, i) => `${shown.actionWords[i]} ${n}`).sort(), [...buttons].sort(),
    `${at}: action buttons`);
  assert.ok(shown.actionLabels.every((label) => label.trim() !== ""), `${at}: a button without a label`);
  const current = view.currentTrick?.plays ?? [];
  const trick = current.length > 0 || !view.lastTrick?.plays.length ? current : view.lastTrick.plays;
  assert.equal(shown.trick.role, current.length > 0 || !view.lastTrick?.plays.length ? "current-trick" : "last-trick",
    `${at}: which trick`);
  assert.deepEqual(shown.trick.plays, trick.map((p) => ({ seat: p.seat, card: p.card })), `${at}: trick`);
  assert.deepEqual(shown.seats.map((s) => ({ seat: s.seat, label: s.label, call: s.call, tricks: s.tricks, cards: s.cards,
    cardsText: s.cardsText, bot: s.bot })),
  view.seats.map((s) => ({ seat: s.seat, label: seatLabel(view, s.seat), call: s.lastCall, tricks: s.tricksWon,
    cards: s.cardCount, cardsText: cardsText(s.cardCount), bot: BOTS.has(s.kind) })),
  `${at}: seats`);
  assert.deepEqual(shown.scores.map((s) => ({ side: s.side, score: s.score })),
    view.scores.map((s) => ({ side: s.side, score: s.score })), `${at}: scores`);
  if (view.rules.case === "buckEuchre") {
    const { turnUp, trump, noTrump, dealerDiscard } = view.rules.value;
    assert.equal(shown.turnUp, turnUp || null, `${at}: turn-up`);
    assert.equal(shown.discard, dealerDiscard || null, `${at}: the dealer's discard`);
    assert.equal(shown.trump, SUIT_LETTERS[trump] || (noTrump ? "none" : null), `${at}: trump`);
  }
  if (view.rules.case === "spades" || view.rules.case === "spadesTwoPlayer") {
    const { exchangeGiven, exchangeReceived } = view.rules.value;
    assert.equal(shown.given, exchangeGiven.length ? exchangeGiven.join(" ") : null, `${at}: exchange given`);
    assert.equal(shown.received, exchangeReceived.length ? exchangeReceived.join(" ") : null, `${at}: received`);
  }
  if (view.rules.case === "spadesTwoPlayer" && view.phaseName === "draw") {
    assert.equal(shown.offered, view.rules.value.offeredCard || null, `${at}: offered card`);
    assert.equal(shown.stock, String(view.rules.value.stockCount), `${at}: stock`);
  }
}

/**
 * Waits until the page is idle and shows the API's latest view of its seat; returns both.
 * Bounded by SETTLE_TIMEOUT_MS.
 */
export async function settle(page: Page, client: GameServiceClient, gameId: string,
  what: string): Promise<{ shown: Shown; view: GameView }> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  for (;;) {
    const view = (await client.getGame({ gameId })).view;
    assert.ok(view, "GetGame returned no view");
    const shown = await readTable(page);
    if (shown.busy === "false" && shown.version === String(view.version)) {
      assertShows(shown, view, what);
      return { shown, view };
    }
    assert.ok(Date.now() < deadline,
      `${what}: the page shows version ${shown.version} (busy ${shown.busy}), the API ${view.version}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * Waits until the page has the answer to the move just taken on it (it shows "…" and marks the
 * table busy while the request is out) and shows a version after `before`; a refusal fails with
 * the page's message. Bounded by SETTLE_TIMEOUT_MS.
 */
export async function moved(page: Page, before: bigint, what: string): Promise<void> {
  await page.locator('#table[data-busy="false"]').waitFor({ state: "attached", timeout: SETTLE_TIMEOUT_MS });
  const shown = await readTable(page);
  assert.ok(BigInt(shown.version) > before,
    `${what}: the page still shows version ${shown.version}${shown.message ? `: "${shown.message}"` : ""}`);
}

/** A box on the page, in CSS pixels. */
export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** Where the table's parts are on the page: the seats' panels and the trick's cards, by position class. */
export interface Layout {
  viewport: { width: number; height: number };
  /** The page's width as laid out: wider than the viewport means sideways scrolling. */
  scrollWidth: number;
  seats: { seat: number; position: string; box: Box }[];
  trick: { seat: number; card: string; position: string; box: Box }[];
  /** The side totals under the table. */
  totals: Box[];
}

/** Reads where the table's parts are (runs in the browser). */
export async function readLayout(page: Page): Promise<Layout> {
  return page.evaluate(() => {
    const box = (el: Element) => {
      const r = el.getBoundingClientRect();
      return { left: r.left, top: r.top + window.scrollY, right: r.right, bottom: r.bottom + window.scrollY };
    };
    const position = (el: Element) => Array.from(el.classList).find((c) => c.startsWith("pos-"))?.slice(4) ?? "";
    const all = (selector: string) => Array.from(document.querySelectorAll<HTMLElement>(selector));
    return {
      viewport: { width: window.innerWidth, height: window.innerHeight },
      scrollWidth: document.documentElement.scrollWidth,
      seats: all("#table .board > .seat").map((el) => ({ seat: Number(el.dataset.seat), position: position(el), box: box(el) })),
      trick: all("#table .trick .card").map((el) => ({
        seat: Number(el.dataset.seat), card: el.dataset.card ?? "", position: position(el), box: box(el),
      })),
      totals: all("#table .totals .side").map(box),
    };
  });
}

/** Where a seat sits at a table of `count` seen from `viewer`: the viewer at the bottom, the others clockwise. */
export function seatPosition(seat: number, count: number, viewer = 0): string {
  const around = count === 2 ? ["bottom", "top"] : count === 3 ? ["bottom", "left", "right"]
    : ["bottom", "left", "top", "right"];
  return around[(seat - viewer + count) % count] ?? "";
}

const overlap = (a: Box, b: Box) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
const inside = (a: Box, width: number) => a.left >= -1 && a.right <= width + 1;

/**
 * Asserts that the table is laid out for its seats at the page's size: no sideways scrolling;
 * each seat's panel where its place is (the viewer at the bottom, the others clockwise: left,
 * top, right; with three, left and right), on the screen and clear of the others; each card of
 * the trick on its player's side, clear of the other cards and of the panels; the side on the
 * left of the trick left of it, the right one right of it, the top above and the bottom below.
 */
export function assertLayout(layout: Layout, view: GameView, what: string): void {
  const { width } = layout.viewport;
  const count = view.seats.length;
  const viewer = view.viewerSeat ?? 0;
  assert.ok(layout.scrollWidth <= width + 1, `${what}: the page is ${layout.scrollWidth} px wide in a ${width} px viewport`);
  assert.deepEqual(layout.seats.map((s) => [s.seat, s.position]),
    view.seats.map((s) => [s.seat, seatPosition(s.seat, count, viewer)]), `${what}: the seats' places`);
  for (const [i, a] of layout.seats.entries()) {
    assert.ok(inside(a.box, width), `${what}: seat ${a.seat}'s panel is off the screen: ${JSON.stringify(a.box)}`);
    for (const b of layout.seats.slice(i + 1)) {
      assert.ok(!overlap(a.box, b.box), `${what}: the panels of seats ${a.seat} and ${b.seat} overlap`);
    }
  }
  const panel = new Map(layout.seats.map((s) => [s.seat, s]));
  for (const [i, card] of layout.trick.entries()) {
    const seat = panel.get(card.seat);
    assert.ok(seat, `${what}: the trick's ${card.card} is of no seat (${card.seat})`);
    assert.equal(card.position, seat.position, `${what}: ${card.card} is not on seat ${card.seat}'s side`);
    assert.ok(inside(card.box, width), `${what}: the trick's ${card.card} is off the screen`);
    for (const other of layout.trick.slice(i + 1)) {
      assert.ok(!overlap(card.box, other.box), `${what}: the trick's ${card.card} and ${other.card} overlap`);
    }
    for (const s of layout.seats) {
      assert.ok(!overlap(card.box, s.box), `${what}: the trick's ${card.card} covers seat ${s.seat}'s panel`);
    }
  }
  if (layout.trick.length === 0) return;
  const trick: Box = {
    left: Math.min(...layout.trick.map((c) => c.box.left)), right: Math.max(...layout.trick.map((c) => c.box.right)),
    top: Math.min(...layout.trick.map((c) => c.box.top)), bottom: Math.max(...layout.trick.map((c) => c.box.bottom)),
  };
  for (const { seat, position, box } of layout.seats) {
    const side = { left: box.right <= trick.left + 1, right: box.left >= trick.right - 1, top: box.bottom <= trick.top + 1,
      bottom: box.top >= trick.bottom - 1 }[position];
    assert.ok(side, `${what}: seat ${seat}'s panel (${position}) is not ${position === "left" || position === "right"
      ? `${position} of` : position === "top" ? "above" : "below"} the trick: ${JSON.stringify(box)} vs ${JSON.stringify(trick)}`);
  }
}

/** Checks the open score dialog against GetScore, optionally saves it, and closes it. */
export async function checkScoreDialog(page: Page, score: GetScoreResponse, shot?: string): Promise<void> {
  const dialog = page.locator("dialog.scores[open]");
  await dialog.waitFor({ timeout: SETTLE_TIMEOUT_MS });
  await page.locator("dialog.scores tbody tr").nth(score.hands.length - 1).waitFor({ timeout: SETTLE_TIMEOUT_MS });
  const rows = await page.evaluate(() => Array.from(document.querySelectorAll<HTMLElement>("dialog.scores tbody tr"))
    .map((tr) => ({
      hand: Number(tr.dataset.hand),
      sides: Array.from(tr.querySelectorAll<HTMLElement>("td"))
        .map((td) => ({ side: Number(td.dataset.side), points: Number(td.dataset.points), total: Number(td.dataset.total) })),
    })));
  assert.deepEqual(rows, score.hands.map((hand) => ({
    hand: hand.handNumber,
    sides: hand.sides.map((s) => ({ side: s.side, points: s.handPoints, total: s.totalAfter })),
  })), "the score table differs from GetScore");
  const totals = await page.evaluate(() => Array.from(document.querySelectorAll<HTMLElement>("dialog.scores tfoot td"))
    .map((td) => Number(td.dataset.total)));
  assert.deepEqual(totals, score.totals.map((t) => t.score), "the score table's totals differ from GetScore");
  const fit = await page.evaluate(() => {
    const scroll = document.querySelector<HTMLElement>("dialog.scores .table-scroll");
    const dialog = document.querySelector("dialog.scores[open]")?.getBoundingClientRect();
    return { columns: document.querySelectorAll("dialog.scores thead th").length, viewport: window.innerWidth,
      wider: scroll ? scroll.scrollWidth - scroll.clientWidth : 0, left: dialog?.left ?? 0, right: dialog?.right ?? 0 };
  });
  assert.equal(fit.columns, score.totals.length + 1, "the score table has the hand's column and one per side");
  assert.ok(fit.wider <= 1, `the score table is ${fit.wider} px wider than its dialog (sideways scrolling)`);
  assert.ok(fit.left >= 0 && fit.right <= fit.viewport, `the score dialog (${fit.left}-${fit.right}) is off the screen`);
  if (shot) await screenshot(page, shot);
  await page.locator("dialog.scores button.primary").click();
  await page.locator("dialog.scores[open]").waitFor({ state: "detached", timeout: SETTLE_TIMEOUT_MS });
}
