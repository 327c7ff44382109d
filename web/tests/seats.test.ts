// Tables of three, lone hands, jokers and forced bids at the web table in Chromium against a live
// server (see table.test.ts): each a hand against bots, every page checked after every move
// against the API's view of its seat (assertShows: seats, hand, trick, scores; the score table
// against GetScore, one column per side) and its layout at its screen size (assertLayout: each
// seat in its place around the trick, nothing overlapping, no sideways scrolling).
// - Three-player Hearts created in the lobby at phone size: typing 3 into the "players" setting
//   redraws the other seats' rows to West and East and CreateGame sends three seats; three seats,
//   17 cards each, the 2♦ nowhere; the same table checked at desktop size mid-trick.
// - A Euchre hand Ana orders up alone (created through the API with a shuffle seed, Ana first to
//   speak), at desktop size: North shown sitting out (greyed, badged, named), in no trick, and in
//   the score table.
// - Four-player Spades at trumps=jokers_deuces from the lobby: BJ, LJ and the 2♦ among Ana's
//   spades in the view's order, the jokers drawn in the trick. The deal is fixed by a shuffle seed
//   the test finds through the API and adds to the lobby's own request.
// - A Mirror hand of Spades: each bid shown forced, on the seats and in the score table.
// - Cutthroat Spades (three players, each alone) through the same three-seat checks as Hearts,
//   run with CARDGAME_WEB_CUTTHROAT=1 (tests/web/test_browser.py sets it once the server plays the
//   game): without it the test is reported as skipped with that reason; with it, a catalog without
//   the game fails the test.
// Screenshots (CARDGAME_ARTIFACTS): hearts-three-lobby, -pass, -trick, -desktop, -hand-1-score;
// euchre-alone, euchre-alone-hand-1-score; spades-jokers-lobby, -hand, -trick, -hand-1-score;
// spades-mirror-bid, spades-mirror-hand-1-score. Run by tests/web/test_browser.py.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";

import { ActionShape, type GameDescription, type GameView, type LegalAction, PlayerKind } from "@cardgame/client";
import type { BrowserContext, Page } from "playwright-core";

import { rendererFor } from "../src/games/index.js";
import { seatNames } from "../src/settings.js";
import {
  ARTIFACTS,
  DESKTOP,
  HTTP_SERVER,
  PHONE,
  api,
  assertLayout,
  newPage,
  readLayout,
  readTable,
  screenshot,
} from "./browser.js";
import {
  GAME_TIMEOUT_MS,
  type Player,
  type Policy,
  creator,
  first,
  handsFinished,
  play,
  player,
  shootOnce,
  suiteBrowser,
} from "./players.js";

const UI_TIMEOUT_MS = 10_000;
const CUTTHROAT = process.env.CARDGAME_WEB_CUTTHROAT === "1";
/**
 * How many shuffle seeds the Spades test tries for a deal that gives Ana BJ, LJ and 2♦ (about one
 * deal in 77: at most 1000 tries leaves a chance of 2e-6 to find none; about 10 ms a try).
 */
const SEED_TRIES = 1000n;
/** The spades of a jokers_deuces table, highest first. */
const JOKERS_DEUCES_TRUMPS = ["BJ", "LJ", "2D", "2S", "AS", "KS", "QS", "JS", "10S", "9S", "8S", "7S", "6S", "5S", "4S", "3S"];

/**
 * Any game's moves by their words: `prefer`'s choice when it has one, else deal, look at the
 * cards, a bid of 3 (or the middle one), the first cards of a choice of cards (a pass, a
 * discard), the first legal card, else the first legal action.
 */
function plainPolicy(prefer: (view: GameView) => LegalAction | undefined = () => undefined): Policy {
  return (view) => {
    const bids = view.legalActions.filter((a) => a.word === "bid");
    const action = prefer(view) ?? first(view, "deal", "reveal")
      ?? (bids.length > 0 ? bids.find((a) => a.number === 3) ?? bids[Math.floor(bids.length / 2)] : undefined)
      ?? view.legalActions.find((a) => a.shape === ActionShape.CARDS) ?? first(view, "play") ?? view.legalActions[0];
    assert.ok(action, `nothing to do in ${view.phaseName}`);
    return { action, cards: action.shape === ActionShape.CARDS ? action.cards.slice(0, action.minCards) : undefined };
  };
}

/** The seats whose panel carries the badge `field` (its data-field), in seat order. */
async function marked(page: Page, field: string): Promise<number[]> {
  return page.locator(`#table .seat:has([data-field="${field}"])`)
    .evaluateAll((seats) => seats.map((s) => Number((s as HTMLElement).dataset.seat)));
}

/** The text of the score table's row of hand `hand`, opened by its button and closed again. */
async function scoreRowText(page: Page, hand: number): Promise<string> {
  await page.locator("button.show-scores").click();
  const row = page.locator(`dialog.scores[open] tbody tr[data-hand="${hand}"]`);
  await row.waitFor({ timeout: UI_TIMEOUT_MS });
  const text = (await row.textContent()) ?? "";
  await page.locator("dialog.scores button.primary").click();
  await page.locator("dialog.scores[open]").waitFor({ state: "detached", timeout: UI_TIMEOUT_MS });
  return text;
}

/** The lobby with `game` chosen, once the server's catalog is in. */
async function lobbyWith(page: Page, game: string): Promise<void> {
  await page.goto(`${HTTP_SERVER}/`);
  await page.locator(`#game option[value="${game}"]`).waitFor({ state: "attached", timeout: UI_TIMEOUT_MS });
  await page.selectOption("#game", game);
  await page.locator(`fieldset.options[data-game="${game}"]`).waitFor({ timeout: UI_TIMEOUT_MS });
}

/** Sets the lobby's setting inputs to `settings`, each by its kind of input. */
async function setSettings(page: Page, settings: Readonly<Record<string, string>>): Promise<void> {
  for (const [name, value] of Object.entries(settings)) {
    const input = page.locator(`#setting-${name}`);
    const kind = await input.evaluate((el) => (el instanceof HTMLSelectElement ? "select" : (el as HTMLInputElement).type));
    if (kind === "select") await input.selectOption(value);
    else if (kind === "checkbox") await input.setChecked(value === "true");
    else await input.fill(value);
  }
}

/** The lobby's rows for the other seats: each row's name, the label of its kind's choice, and the kind chosen. */
async function seatRows(page: Page): Promise<{ name: string; who: string; kind: string }[]> {
  return page.locator(".seat-rows .seat-row").evaluateAll((rows) => rows.map((row) => ({
    name: row.querySelector("input")?.value ?? "",
    who: row.querySelector("select")?.getAttribute("aria-label") ?? "",
    kind: row.querySelector("select")?.value ?? "",
  })));
}

/** The seat kinds the lobby's choices stand for. */
const KINDS: Readonly<Record<string, PlayerKind>> = {
  basic: PlayerKind.BOT_BASIC, strong: PlayerKind.BOT_STRONG, random: PlayerKind.BOT_RANDOM, friend: PlayerKind.HUMAN,
};

/** The server's description of `game`; a test fails, saying so, when the catalog lacks it. */
async function described(game: string): Promise<GameDescription> {
  const { games } = await api().getCatalog({});
  const found = games.find((g) => g.name === game);
  assert.ok(found, `the server's catalog lists no ${game} (it lists ${games.map((g) => g.name).join(", ")})`);
  return found;
}

/** What a three-seat hand is: the game, its table's size, and the game's own checks. */
interface TableOfThree {
  /** The game's registry name. */
  game: string;
  /** How many play: 3 for the tables this file is about (any count the lobby offers works). */
  seats: number;
  /** Typed into the lobby's settings panel (a game's seat setting among them, when it has one). */
  settings: Readonly<Record<string, string>>;
  /** The names the lobby's other seat rows must read after the settings; default: the lobby's own defaults. */
  rows?: readonly string[];
  /** Screenshots' and messages' prefix. */
  prefix: string;
  /** The game's own checks of each view of Ana's page. */
  onView?: (view: GameView, ana: Player) => Promise<void>;
}

/**
 * A hand of a game of `seats` players, each alone, created in the lobby at phone size by Ana
 * against the lobby's default bots (the first the catalog lists of basic, strong, random), with the checks every such table must pass: the lobby's
 * seat rows follow the seat count (from the game's seats before the settings to `seats` after
 * them), CreateGame sends that many seats and the settings changed; the table shows that many
 * seats, each in its place around the trick, and that many totals; mid-trick the same table is
 * checked at desktop size too; the score table has one column per player. Used by three-player
 * Hearts and by Cutthroat Spades.
 */
async function handAtTable(context: BrowserContext, spec: TableOfThree): Promise<{ gameId: string; final: GameView }> {
  const game = await described(spec.game);
  const entry = rendererFor(game.name).lobby;
  const { page, errors } = await newPage(context);
  await page.setViewportSize(PHONE);
  await lobbyWith(page, game.name);
  await page.fill("#my-name", "Ana");
  const before = await seatRows(page);
  assert.deepEqual(before.map((r) => r.name), seatNames(game, entry).slice(1),
    `${spec.prefix}: the lobby's seat rows before the settings (${game.seats} seats)`);
  if (game.seatSetting && game.seatSetting in spec.settings) {
    // A value that is no seat count (a number half typed, say) leaves the rows as they are.
    const none = String(Math.max(...game.seatCounts) + 5);
    await page.fill(`#setting-${game.seatSetting}`, none);
    assert.deepEqual(await seatRows(page), before, `${spec.prefix}: the seat rows with ${game.seatSetting} = ${none}`);
  }
  await setSettings(page, spec.settings);
  const rows = spec.rows ?? seatNames(game, entry, spec.seats).slice(1);
  assert.equal(rows.length, spec.seats - 1);
  const after = await seatRows(page);
  assert.deepEqual(after.map(({ name, who }) => ({ name, who })), rows.map((name) => ({ name, who: `Who plays ${name}` })),
    `${spec.prefix}: the lobby's seat rows for ${spec.seats} players`);
  // Each other seat keeps the lobby's first choice: a bot of those the catalog says play the game.
  const kinds = after.map((row) => KINDS[row.kind]);
  for (const kind of kinds) {
    assert.ok(kind !== undefined && kind !== PlayerKind.HUMAN && (game.bots.length === 0 || game.bots.includes(kind)),
      `${spec.prefix}: the lobby's default seat kind ${JSON.stringify(after.map((r) => r.kind))} is no bot of ${game.bots}`);
  }
  await screenshot(page, `${spec.prefix}-lobby`);

  const request = page.waitForRequest((r) => r.url().endsWith("/cardgame.v1.GameService/CreateGame"));
  await page.click("#create");
  const sent = (await request).postDataJSON() as { variantName: string; seats: { name: string }[];
    options?: { settings?: Record<string, string> } };
  const defaults = new Map(game.settings.map((s) => [s.name, s.defaultValue]));
  assert.equal(sent.variantName, game.name);
  assert.deepEqual(sent.seats.map((s) => s.name), ["Ana", ...rows], `${spec.prefix}: the seats CreateGame sends`);
  assert.deepEqual({ ...sent.options?.settings },
    Object.fromEntries(Object.entries(spec.settings).filter(([name, value]) => defaults.get(name) !== value)),
    `${spec.prefix}: the settings CreateGame sends`);
  const { gameId, player: ana } = await creator(page, errors, "Ana");
  const created = (await ana.client.getGame({ gameId })).view!;
  assert.deepEqual(created.seats.map((s) => [s.name, s.kind]),
    [["Ana", PlayerKind.HUMAN], ...rows.map((name, i) => [name, kinds[i]])], `${spec.prefix}: the seats`);
  for (const [name, value] of Object.entries(spec.settings)) {
    assert.equal(created.options?.settings[name], value, `${spec.prefix}: the setting ${name} in effect`);
  }

  let desktop = false;
  const final = await play(gameId, [ana], plainPolicy(), spec.prefix, (v) => handsFinished(v) >= 1, async (view, who) => {
    const at = `${spec.prefix}, version ${view.version}`;
    assert.equal(view.seats.length, spec.seats, `${at}: seats in the view`);
    assert.equal(view.scores.length, spec.seats, `${at}: one total per player (each alone)`);
    const shown = await readTable(who.page);
    assert.equal(shown.seats.length, spec.seats, `${at}: seats on the page`);
    assert.equal(shown.scores.length, spec.seats, `${at}: totals on the page`);
    assertLayout(await readLayout(who.page), view, `${at} at phone size`);
    if (spec.onView) await spec.onView(view, who);
    if (!desktop && (view.currentTrick?.plays.length ?? 0) >= spec.seats - 1) {
      desktop = true;
      await shootOnce(who, `${spec.prefix}-trick`);
      await who.page.setViewportSize(DESKTOP);
      await who.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
      assertLayout(await readLayout(who.page), view, `${at} at desktop size`);
      await screenshot(who.page, `${spec.prefix}-desktop`);
      await who.page.setViewportSize(PHONE);
    }
  });
  assert.ok(desktop, `${spec.prefix}: Ana never saw a trick with ${spec.seats - 1} cards, to check it at desktop size`);
  const score = await api().getScore({ gameId });
  assert.equal(score.hands.length, 1, `${spec.prefix}: one hand scored`);
  assert.equal(score.totals.length, spec.seats, `${spec.prefix}: the score table's sides`);
  for (const shot of ["lobby", "trick", "desktop", "hand-1-score"]) {
    assert.ok(existsSync(join(ARTIFACTS, `${spec.prefix}-${shot}.png`)), `no screenshot ${spec.prefix}-${shot}`);
  }
  console.log(`${game.name} for ${spec.seats} ${gameId}: hand 1 points ` +
    `${score.hands[0]!.sides.map((s) => s.handPoints).join("/")}`);
  await page.close();
  return { gameId, final };
}

/**
 * CUTTHROAT SPADES (three players, each alone): one hand of `game` at a table of `seats`,
 * created in the lobby with its defaults, through handAtTable's checks. The test that calls it
 * runs with CARDGAME_WEB_CUTTHROAT=1, and fails, saying so, when the server's catalog lacks the
 * game.
 */
async function cutthroatSpadesHand(context: BrowserContext, game = "cutthroat_spades", seats = 3): Promise<void> {
  await handAtTable(context, { game, seats, settings: {}, prefix: `${game.replaceAll("_", "-")}-${seats}` });
}

/**
 * A shuffle seed under which seat 0 of `variantName` at `settings`, seat 3 dealing, is dealt
 * every card of `wanted`, with that hand: tried through the API from 1 up (at most SEED_TRIES),
 * each game with the lobby's default seats and seat 0 looking at its cards.
 */
async function seedDealing(variantName: string, settings: Readonly<Record<string, string>>,
  wanted: readonly string[]): Promise<{ seed: bigint; hand: string[] }> {
  for (let seed = 1n; seed <= SEED_TRIES; seed++) {
    const created = await api().createGame({
      variantName, firstDealer: 3, shuffleSeed: seed, options: { settings: { ...settings } },
      seats: [{ name: "Ana", kind: PlayerKind.HUMAN },
        ...["West", "North", "East"].map((name) => ({ name, kind: PlayerKind.BOT_BASIC }))],
    });
    const me = api(created.seatTokens[0]!.token);
    let view = (await me.getGame({ gameId: created.gameId })).view!;
    const reveal = view.handVisible ? undefined : first(view, "reveal");
    if (reveal) {
      view = (await me.act({ gameId: created.gameId, requestId: crypto.randomUUID(), action: reveal.notation })).view!;
    }
    assert.ok(view.handVisible, `${variantName}: seat 0 cannot see its cards in ${view.phaseName}`);
    if (wanted.every((card) => view.hand.includes(card))) return { seed, hand: view.hand };
  }
  assert.fail(`no shuffle seed up to ${SEED_TRIES} deals seat 0 ${wanted.join(" ")} at ${JSON.stringify(settings)}`);
}

/** The Spades seats whose bid the view says was forced, and the page's marks of them, must agree. */
async function assertForcedBids(view: GameView, page: Page, at: string): Promise<number[]> {
  const forced = view.seats.filter((s) => s.rules.case === "spades" && s.rules.value.bidForced).map((s) => s.seat);
  assert.deepEqual(await marked(page, "bid-forced"), forced, `${at}: the seats marked as bid forced`);
  return forced;
}

describe("tables of three, lone hands, jokers and forced bids at the web table", { concurrency: false }, () => {
  const browser = suiteBrowser();

  test("three-player Hearts from the lobby at phone size: three seats, 17 cards, no 2♦", { timeout: GAME_TIMEOUT_MS },
    async () => {
      let dealt = false;
      await handAtTable(browser.context, {
        game: "hearts", seats: 3, settings: { players: "3" }, rows: ["West", "East"], prefix: "hearts-three",
        onView: async (view, ana) => {
          const at = `hearts-three, version ${view.version}`;
          const played = [...view.currentTrick?.plays ?? [], ...view.lastTrick?.plays ?? []].map((p) => p.card);
          assert.ok(!view.hand.includes("2D") && !played.includes("2D"), `${at}: the 2♦ is in the game`);
          const twos = await ana.page.locator('[data-card="2D"], [data-cards~="2D"], [aria-label="2 of diamonds"]').count();
          assert.equal(twos, 0, `${at}: the page shows a 2♦`);
          if (view.phaseName === "pass") {
            assert.deepEqual(view.seats.map((s) => s.cardCount), [17, 17, 17], `${at}: the deal`);
            assert.equal((await readTable(ana.page)).hand.length, 17, `${at}: Ana's cards on the page`);
            dealt = true;
            await shootOnce(ana, "hearts-three-pass");
          }
        },
      });
      assert.ok(dealt, "the page never showed the pass with 17 cards");
    });

  test("a Euchre hand Ana plays alone, at desktop size: North sits out", { timeout: GAME_TIMEOUT_MS }, async () => {
    const created = await api().createGame({
      variantName: "euchre",
      seats: [{ name: "Ana", kind: PlayerKind.HUMAN },
        ...["West", "North", "East"].map((name) => ({ name, kind: PlayerKind.BOT_BASIC }))],
      firstDealer: 3, // Ana, at the dealer's left, speaks first: going alone is hers to offer
      shuffleSeed: 3n,
    });
    const token = created.seatTokens[0]!.token;
    const ana = await player(browser.context, "Ana", 0, `${HTTP_SERVER}/#game=${created.gameId}&seat=0&token=${token}`, token);
    await ana.page.setViewportSize(DESKTOP);
    let alone = "";
    let outSeen = false;
    const policy = plainPolicy((view) => {
      if (alone) return undefined;
      const lone = first(view, "order-alone", "name-alone");
      assert.ok(lone, `Ana may not go alone at her first call in ${view.phaseName}: ` +
        `${view.legalActions.map((a) => a.notation).join(", ")}`);
      alone = lone.notation;
      return lone;
    });
    await play(created.gameId, [ana], policy, "euchre-alone", (v) => handsFinished(v) >= 1, async (view, who) => {
      const at = `euchre-alone, version ${view.version}`;
      assertLayout(await readLayout(who.page), view, `${at} at desktop size`);
      const out = view.seats.filter((s) => s.rules.case === "buckEuchre" && s.rules.value.droppedOut).map((s) => s.seat);
      assert.deepEqual(await marked(who.page, "sitting-out"), out, `${at}: the seats marked as sitting out`);
      if (!alone || view.phaseName !== "play") return;
      assert.deepEqual(out, [2], `${at}: Ana went alone (${alone}), so North alone sits out`);
      const plays = [...view.currentTrick?.plays ?? [], ...view.lastTrick?.plays ?? []];
      assert.ok(plays.every((p) => p.seat !== 2), `${at}: North, sitting out, played a card`);
      const north = who.page.locator('#table .seat[data-seat="2"]');
      assert.equal(await north.locator('[data-field="sitting-out"]').textContent(), "sitting out");
      assert.ok(Number(await north.evaluate((el) => getComputedStyle(el).opacity)) < 1, `${at}: North's panel is not greyed`);
      assert.equal(await who.page.locator('[data-role="sitting-out"]').textContent(), "Sitting out: North");
      assert.equal(await who.page.locator('#table .seat[data-seat="0"] .badge.alert').textContent(), "maker, alone");
      outSeen = true;
      await shootOnce(who, "euchre-alone");
    });
    assert.match(alone, /^(order-alone|name-alone [CDHS])$/, "Ana did not go alone");
    assert.ok(outSeen, "North was never shown sitting out during the play");
    const hand = (await api().getScore({ gameId: created.gameId })).hands[0]!;
    const record = hand.seats.map((s) => s.rules.case === "buckEuchre" && s.rules.value.droppedOut);
    assert.deepEqual(record, [false, false, true, false], "the hand's record of who sat out");
    assert.ok(hand.rules.case === "buckEuchre" && hand.rules.value.maker === 0, "Ana made trump");
    const row = await scoreRowText(ana.page, 1);
    assert.match(row, /by You alone/, "the score table says Ana went alone");
    assert.match(row, /North sat out/, "the score table says North sat out");
    console.log(`Euchre ${created.gameId}: Ana ${alone}, hand 1 points ${hand.sides.map((s) => s.handPoints).join("/")}`);
    await ana.page.close();
  });

  test("four-player Spades with jokers and deuces from the lobby: BJ, LJ, 2♦ among the spades, a joker in the trick",
    { timeout: GAME_TIMEOUT_MS }, async () => {
      const settings = { trumps: "jokers_deuces" };
      const searching = Date.now();
      const { seed, hand: dealt } = await seedDealing("spades", settings, ["BJ", "LJ", "2D"]);
      const searched = Date.now() - searching;
      const { page, errors } = await newPage(browser.context);
      await lobbyWith(page, "spades");
      await page.fill("#my-name", "Ana");
      await setSettings(page, settings);
      await screenshot(page, "spades-jokers-lobby");
      // The lobby's request as it is, checked; then the seed that deals Ana the jokers added to it.
      let sent: { seats: { name: string }[]; options?: { settings?: Record<string, string> } } | undefined;
      await page.route("**/cardgame.v1.GameService/CreateGame", async (route) => {
        sent = route.request().postDataJSON();
        await route.continue({ postData: JSON.stringify({ ...sent, firstDealer: 3, shuffleSeed: String(seed) }) });
      });
      await page.click("#create");
      const { gameId, player: ana } = await creator(page, errors, "Ana");
      await page.unroute("**/cardgame.v1.GameService/CreateGame");
      assert.deepEqual(sent?.seats.map((s) => s.name), ["Ana", "West", "North", "East"], "the lobby's seats");
      assert.deepEqual({ ...sent?.options?.settings }, settings, "the lobby's settings");

      let held = false;
      const inTrick = new Set<string>();
      const policy = plainPolicy((view) => view.legalActions.find((a) => a.word === "play" && /^[BL]J$/.test(a.card)));
      await play(gameId, [ana], policy, "spades-jokers", (v) => handsFinished(v) >= 1, async (view, who) => {
        const at = `spades-jokers, version ${view.version}`;
        assertLayout(await readLayout(who.page), view, `${at} at phone size`);
        assert.deepEqual(await assertForcedBids(view, who.page, at), [], `${at}: no bid is forced at a standard table`);
        if (view.phaseName === "bid" || view.phaseName === "play") {
          assert.equal(await who.page.locator('[data-role="top-trumps"]').getAttribute("data-cards"), "BJ LJ 2D 2S",
            `${at}: the spades above the A♠`);
        }
        if (view.handVisible && view.hand.length > 0) {
          const trumps = view.hand.filter((card) => JOKERS_DEUCES_TRUMPS.includes(card));
          const from = view.hand.indexOf(trumps[0] ?? "");
          assert.deepEqual(view.hand.slice(from, from + trumps.length), trumps, `${at}: Ana's spades are not together: ${view.hand}`);
          assert.deepEqual(trumps, [...trumps].sort((a, b) => JOKERS_DEUCES_TRUMPS.indexOf(a) - JOKERS_DEUCES_TRUMPS.indexOf(b)),
            `${at}: Ana's spades are not in order: ${view.hand}`);
          const shown = (await readTable(who.page)).hand;
          assert.deepEqual(shown.slice(from, from + trumps.length), trumps, `${at}: the page's spades`);
          for (const joker of trumps.filter((card) => /^[BL]J$/.test(card))) {
            assert.equal(await who.page.locator(`.hand [data-card="${joker}"] .card.joker`).count(), 1, `${at}: ${joker}'s face`);
          }
          if (view.hand.length === 13 && ["BJ", "LJ", "2D"].every((card) => trumps.includes(card))) {
            if (!held) assert.deepEqual(view.hand, dealt, `${at}: the lobby's game, seed ${seed}, dealt another hand`);
            held = true;
            await shootOnce(who, "spades-jokers-hand");
          }
        }
        for (const joker of ["BJ", "LJ"]) {
          const plays = (view.currentTrick?.plays.length ? view.currentTrick.plays : view.lastTrick?.plays) ?? [];
          if (!plays.some((p) => p.card === joker)) continue;
          const face = who.page.locator(`#table .trick .card.joker[data-card="${joker}"]`);
          assert.equal(await face.textContent(), joker === "BJ" ? "BJ★" : "LJ☆", `${at}: ${joker} in the trick`);
          inTrick.add(joker);
          await shootOnce(who, "spades-jokers-trick");
        }
      });
      assert.ok(held, "the page never showed Ana's 13 cards with BJ, LJ and 2♦ among her spades");
      assert.ok(inTrick.has("BJ"), `Ana's BJ, which wins its trick, was never seen in the trick (jokers seen: ${[...inTrick]})`);
      const score = await api().getScore({ gameId });
      console.log(`Spades with jokers and deuces ${gameId} (seed ${seed}, found in ${searched} ms): Ana held ${dealt.join(" ")}, jokers seen in ` +
        `the trick ${[...inTrick].join(" ")}, hand 1 points ${score.hands[0]!.sides.map((s) => s.handPoints).join("/")}`);
      await page.close();
    });

  test("a Mirror hand of Spades: each bid shown forced, on the seats and in the score table", { timeout: GAME_TIMEOUT_MS },
    async () => {
      const created = await api().createGame({
        variantName: "spades",
        seats: [{ name: "Ana", kind: PlayerKind.HUMAN },
          ...["West", "North", "East"].map((name) => ({ name, kind: PlayerKind.BOT_BASIC }))],
        firstDealer: 3, shuffleSeed: 8n, options: { settings: { bidding: "mirror" } },
      });
      const token = created.seatTokens[0]!.token;
      const ana = await player(browser.context, "Ana", 0, `${HTTP_SERVER}/#game=${created.gameId}&seat=0&token=${token}`,
        token);
      let bid = "";
      let shown = false;
      const policy = plainPolicy((view) => {
        const bids = view.legalActions.filter((a) => a.word === "bid");
        if (bids.length === 0) return undefined;
        assert.equal(bids.length, 1, `Mirror leaves Ana one bid, not ${bids.map((a) => a.notation).join(", ")}`);
        bid = bids[0]!.notation;
        return bids[0];
      });
      await play(created.gameId, [ana], policy, "spades-mirror", (v) => handsFinished(v) >= 1, async (view, who) => {
        const at = `spades-mirror, version ${view.version}`;
        const forced = await assertForcedBids(view, who.page, at);
        assertLayout(await readLayout(who.page), view, `${at} at phone size`);
        if (view.phaseName === "play") {
          assert.deepEqual(forced, [0, 1, 2, 3], `${at}: every Mirror bid is forced`);
          assert.equal(await who.page.locator('#table .seat[data-seat="0"] [data-field="bid-forced"]').textContent(),
            "forced bid");
          shown = true;
          await shootOnce(who, "spades-mirror-bid");
        }
      });
      assert.match(bid, /^bid \d+$/, "Ana did not bid");
      assert.ok(shown, "the forced bids were never seen during the play");
      const hand = (await api().getScore({ gameId: created.gameId })).hands[0]!;
      assert.deepEqual(hand.seats.map((s) => s.rules.case === "spades" && s.rules.value.bidForced), [true, true, true, true],
        "the hand's record of forced bids");
      const row = await scoreRowText(ana.page, 1);
      assert.match(row, /bids forced: You, North/, "the score table: Ana's side's forced bids");
      assert.match(row, /bids forced: West, East/, "the score table: the other side's forced bids");
      console.log(`Spades, Mirror ${created.gameId}: Ana's ${bid}, bids ` +
        `${(await api().getGame({ gameId: created.gameId })).view!.seats.map((s) => s.lastCall).join(", ")}`);
      await ana.page.close();
    });

  test("Cutthroat Spades from the lobby: three players, each alone", {
    timeout: GAME_TIMEOUT_MS,
    skip: CUTTHROAT ? false
      : "runs with CARDGAME_WEB_CUTTHROAT=1, which tests/web/test_browser.py sets once the server plays cutthroat_spades",
  }, async () => {
    await cutthroatSpadesHand(browser.context, "cutthroat_spades", 3);
  });
});
