// The web table in Chromium against a live server (CARDGAME_HTTP_SERVER serves the built page and
// the API; CARDGAME_SERVER is the gRPC port the checks use): a whole Buck Euchre game, a
// four-player Spades hand with a friend at the partner's seat (two pages, a Double Nil exchange, a
// refused card), the two-player draw, and a four-player Spades hand with a strong bot seated in the
// lobby (the friend's moves hand it the turn). After every move (its page back with the answer)
// each page must show exactly what the API's view of its seat says; the score table after each
// hand must match GetScore; every seat's label must read as its player and the others should
// see it (the viewer's own "Ana (you)", never "You" for anyone else; "1 card", "5 cards"). The
// lobby's default names and a seat named "You" are seen from both sides. Screenshots of the key
// states go to CARDGAME_ARTIFACTS. Run by tests/web/test_browser.py.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import {
  ActionShape,
  type GameView,
  PlayerKind,
  Variant,
} from "@cardgame/client";
import type { Page } from "playwright-core";

import {
  HTTP_SERVER,
  api,
  newPage,
  readTable,
  screenshot,
  seatLabel,
  settle,
} from "./browser.js";
import { GAME_TIMEOUT_MS, type Player, type Policy, first, handsFinished, play, player, shootOnce, suiteBrowser } from "./players.js";

/** The lobby set for four-player Spades: Ana at seat 1, her friend Cy at the partner's seat. */
async function spadesLobbyWithCy(page: Page): Promise<void> {
  await page.goto(`${HTTP_SERVER}/`);
  await page.locator("form.lobby").waitFor();
  await page.selectOption("#game", "spades");
  await page.fill("#my-name", "Ana");
  await page.fill('input[name="seat-2-name"]', "Cy");
  await page.selectOption('select[name="seat-2-kind"]', "friend");
}

describe("the web table in Chromium", { concurrency: false }, () => {
  const browser = suiteBrowser();

  test("a whole Buck Euchre game against three bots", { timeout: GAME_TIMEOUT_MS }, async () => {
    const created = await api().createGame({
      variant: Variant.BUCK_EUCHRE,
      seats: [{ name: "Ana", kind: PlayerKind.HUMAN },
        ...["West", "North", "East"].map((name) => ({ name, kind: PlayerKind.BOT_BASIC }))],
      firstDealer: 3,
      shuffleSeed: 11n,
      options: { variant: { case: "buckEuchre", value: { startingScore: 5 } } },
    });
    const token = created.seatTokens[0]!.token;
    const ana = await player(browser.context, "Ana", 0, `${HTTP_SERVER}/#game=${created.gameId}&seat=0&token=${token}`, token);
    const words = new Set<string>();
    const discards = new Set<string>();
    let oneCard = "";
    const policy: Policy = (view) => {
      const action = first(view, "deal", "order-up", "name", "stay", "exchange", "play", "pass", "drop");
      assert.ok(action, `no action for Ana among ${view.legalActions.map((a) => a.notation).join(", ")}`);
      words.add(action.word);
      return { action, cards: action.shape === ActionShape.CARDS ? action.cards.slice(0, action.minCards) : undefined };
    };
    const final = await play(created.gameId, [ana], policy, "buck-euchre", (v) => v.phaseName === "game_over",
      async (view, p) => {
        if (view.phaseName === "order_up") await shootOnce(p, "buck-euchre-order-up");
        if (view.rules.case === "buckEuchre" && view.rules.value.dealerDiscard) discards.add(view.rules.value.dealerDiscard);
        if (view.phaseName === "play" && (view.currentTrick?.plays.length ?? 0) > 0) await shootOnce(p, "buck-euchre-play");
        if (!oneCard && view.seats.some((s) => s.cardCount === 1)) {
          oneCard = (await readTable(p.page)).seats.find((s) => s.cards === 1)?.cardsText ?? "";
        }
      });
    assert.equal(final.phaseName, "game_over");
    assert.equal(oneCard, "1 card", "a seat holding one card");
    const shown = await readTable(ana.page);
    assert.match(shown.status, /Game over/);
    await screenshot(ana.page, "buck-euchre-game-over-table");
    await ana.page.setViewportSize({ width: 1280, height: 900 });
    await screenshot(ana.page, "buck-euchre-game-over-desktop");
    console.log(`Buck Euchre ${created.gameId}: ${final.handNumber} hands, totals ` +
      `${final.scores.map((s) => s.score).join("/")}, Ana's actions: ${[...words].join(" ")}, ` +
      `her discards shown: ${[...discards].join(" ") || "none"}`);
    await ana.page.close();
  });

  test("a four-player Spades hand, created in the lobby, with a friend at the partner's seat",
    { timeout: GAME_TIMEOUT_MS }, async () => {
      const { page, errors } = await newPage(browser.context);
      await spadesLobbyWithCy(page);
      const kinds = await page.locator('select[name="seat-3-kind"] option')
        .evaluateAll((options) => options.map((o) => [(o as HTMLOptionElement).value, o.textContent]));
      assert.deepEqual(kinds, [["basic", "Bot"], ["strong", "Strong bot"], ["random", "Bot (plays at random)"],
        ["friend", "A friend"]], "the seat kinds the lobby offers");
      await screenshot(page, "lobby");
      await page.click("#create");
      await page.locator("#table").waitFor();
      const place = new URLSearchParams(new URL(page.url()).hash.slice(1));
      const gameId = place.get("game") ?? "";
      const token = place.get("token") ?? "";
      assert.match(gameId, /^[0-9a-f]{24}$/);
      const friendLink = await page.locator('.invites a[data-seat="2"]').getAttribute("href");
      assert.ok(friendLink, "no seat link for the friend");
      const friendToken = new URLSearchParams(new URL(friendLink).hash.slice(1)).get("token") ?? "";
      const ana: Player = { name: "Ana", seat: 0, page, errors, client: api(token), handsSeen: 0, shots: new Set() };
      const cy = await player(browser.context, "Cy", 2, friendLink, friendToken);
      const created = (await ana.client.getGame({ gameId })).view!;
      assert.deepEqual(created.seats.map((s) => [s.name, s.kind]),
        [["Ana", PlayerKind.HUMAN], ["West", PlayerKind.BOT_BASIC], ["Cy", PlayerKind.HUMAN], ["East", PlayerKind.BOT_BASIC]]);

      let refused = false;
      const policy: Policy = (view, who) => {
        if (who.seat === 0) {
          const doubleNil = first(view, "double-nil");
          if (doubleNil) return { action: doubleNil };
        } else if (!view.handVisible) {
          const reveal = first(view, "reveal");
          if (reveal) return { action: reveal };
        }
        const bids = view.legalActions.filter((a) => a.word === "bid");
        if (bids.length > 0) return { action: bids.find((a) => a.number === 3) ?? bids.at(-1)! };
        const action = first(view, "deal", "exchange", "play") ?? view.legalActions[0]!;
        return { action, cards: action.shape === ActionShape.CARDS ? action.cards.slice(0, action.minCards) : undefined };
      };
      const onView = async (view: GameView, who: Player) => {
        if (view.phaseName === "bid") await shootOnce(who, `spades-bidding-${who.name}`);
        if (view.phaseName === "exchange" && view.legalActions.length > 0) await shootOnce(who, `spades-exchange-${who.name}`);
        if (view.phaseName !== "play" || view.turn !== who.seat || refused) return;
        // Once: a card that is not a legal play is refused, with the reason in words; nothing changes.
        const playable = new Set(view.legalActions.filter((a) => a.shape === ActionShape.CARD).map((a) => a.card));
        const illegal = view.hand.find((card) => !playable.has(card));
        if (illegal === undefined) return;
        refused = true;
        await who.page.locator(`.hand button[data-card="${illegal}"]`).click();
        await who.page.locator("#message:not([hidden])").waitFor();
        const { shown } = await settle(who.page, who.client, gameId, `${who.name} after a refused card`);
        assert.equal(shown.version, String(view.version), "a refused card changed the game");
        assert.match(shown.message, /^(You must follow suit\.|Spades are not broken yet: lead another suit\.)$/);
        await screenshot(who.page, "spades-refused-card");
      };
      const players = [ana, cy];
      const end = await play(gameId, players, policy, "spades", (v) => handsFinished(v) >= 1, onView);
      assert.ok(refused, "no card was ever refused");
      const score = await api().getScore({ gameId });
      assert.equal(score.hands.length, 1);
      const hand = score.hands[0]!;
      const doubleNil = hand.seats.filter((s) => s.rules.case === "spades" && s.rules.value.doubleNil).map((s) => s.seat);
      assert.ok(doubleNil.includes(0), `Ana's Double Nil is not in the hand's record: ${doubleNil}`);
      const given = (await ana.client.getGame({ gameId })).view;
      assert.ok(end.handNumber >= 1 && given);
      console.log(`Spades ${gameId}: hand 1 points ${hand.sides.map((s) => s.handPoints).join("/")}, ` +
        `Double Nil by seats ${doubleNil.join(", ")}`);
      for (const p of players) await p.page.close();
    });

  test("the two-player draw", { timeout: GAME_TIMEOUT_MS }, async () => {
    const created = await api().createGame({
      variant: Variant.SPADES_TWO_PLAYER,
      seats: [{ name: "Ana", kind: PlayerKind.HUMAN }, { name: "Bo", kind: PlayerKind.BOT_BASIC }],
      firstDealer: 0,
      shuffleSeed: 5n,
    });
    const token = created.seatTokens[0]!.token;
    const ana = await player(browser.context, "Ana", 0, `${HTTP_SERVER}/#game=${created.gameId}&seat=0&token=${token}`, token);
    let kept = 0;
    const policy: Policy = (view) => {
      const keep = first(view, "keep");
      const discard = first(view, "discard");
      const offered = view.rules.case === "spadesTwoPlayer" ? view.rules.value.offeredCard : "";
      if (keep && (!discard || offered.endsWith("S") || /^[AKQ]/.test(offered))) {
        kept++;
        return { action: keep };
      }
      return { action: discard ?? first(view, "deal") ?? view.legalActions[0]! };
    };
    const end = await play(created.gameId, [ana], policy, "spades2", (v) => v.phaseName === "bid",
      async (view, p) => {
        if (view.phaseName === "draw" && view.turn === 0) await shootOnce(p, "spades2-draw");
      });
    assert.equal(end.phaseName, "bid");
    assert.equal(end.hand.length, 13, "Ana holds 13 cards after the draw");
    const shown = await readTable(ana.page);
    assert.equal(shown.hand.length, 13);
    await screenshot(ana.page, "spades2-after-the-draw");
    console.log(`Spades for two ${created.gameId}: the draw done, ${kept} offered cards kept`);
    await ana.page.close();
  });

  test("a four-player Spades hand from the lobby with a strong bot, a basic bot and a friend",
    { timeout: GAME_TIMEOUT_MS }, async () => {
      const { page, errors } = await newPage(browser.context);
      await spadesLobbyWithCy(page);
      await page.selectOption('select[name="seat-3-kind"]', "strong");
      await page.click("#create");
      await page.locator("#table").waitFor();
      const place = new URLSearchParams(new URL(page.url()).hash.slice(1));
      const gameId = place.get("game") ?? "";
      const ana: Player = { name: "Ana", seat: 0, page, errors, client: api(place.get("token") ?? ""), handsSeen: 0,
        shots: new Set() };
      const friendLink = await page.locator('.invites a[data-seat="2"]').getAttribute("href");
      assert.ok(friendLink, "no seat link for the friend");
      const cy = await player(browser.context, "Cy", 2, friendLink,
        new URLSearchParams(new URL(friendLink).hash.slice(1)).get("token") ?? "");
      const { view } = await settle(page, ana.client, gameId, "spades with a strong bot");
      assert.deepEqual(view.seats.map((s) => s.kind),
        [PlayerKind.HUMAN, PlayerKind.BOT_BASIC, PlayerKind.HUMAN, PlayerKind.BOT_STRONG]);
      assert.equal(await page.locator('.seat[data-seat="3"] .badge.bot').getAttribute("title"), "Strong bot");
      // Both look at their cards and bid 3; then each plays its first legal card.
      const policy: Policy = (seen) => {
        const reveal = seen.handVisible ? undefined : first(seen, "reveal");
        if (reveal) return { action: reveal };
        const bids = seen.legalActions.filter((a) => a.word === "bid");
        if (bids.length > 0) return { action: bids.find((a) => a.number === 3) ?? bids.at(-1)! };
        return { action: first(seen, "deal", "play") ?? seen.legalActions[0]! };
      };
      const started = Date.now();
      await play(gameId, [ana, cy], policy, "spades-strong", (v) => handsFinished(v) >= 1, async (seen, who) => {
        if (seen.phaseName === "play" && seen.currentTrick?.plays.some((p) => p.seat === 3)) {
          await shootOnce(who, `spades-strong-bot-${who.name}`);
        }
      });
      const score = await api().getScore({ gameId });
      assert.equal(score.hands.length, 1);
      const east = score.hands[0]!.seats.find((s) => s.seat === 3);
      assert.ok(east, "the hand's record has no strong bot's seat");
      console.log(`Spades with a strong bot ${gameId}: hand 1 played in ${Date.now() - started} ms, points ` +
        `${score.hands[0]!.sides.map((s) => s.handPoints).join("/")}, the strong bot took ${east.tricksWon} tricks`);
      for (const p of [ana, cy]) await p.page.close();
    });

  test("the lobby's default names, as the creator and a friend read them", { timeout: GAME_TIMEOUT_MS }, async () => {
    const { page, errors } = await newPage(browser.context);
    await page.goto(`${HTTP_SERVER}/`);
    await page.locator("form.lobby").waitFor();
    await page.selectOption("#game", "spades");
    assert.equal(await page.inputValue("#my-name"), "South", "the creator's default name");
    await page.selectOption('select[name="seat-2-kind"]', "friend");
    await page.click("#create");
    await page.locator("#table").waitFor();
    const place = new URLSearchParams(new URL(page.url()).hash.slice(1));
    const gameId = place.get("game") ?? "";
    const south: Player = { name: "South", seat: 0, page, errors, client: api(place.get("token") ?? ""), handsSeen: 0,
      shots: new Set() };
    const friendLink = await page.locator('.invites a[data-seat="2"]').getAttribute("href");
    assert.ok(friendLink, "no seat link for the friend");
    const north = await player(browser.context, "North", 2, friendLink,
      new URLSearchParams(new URL(friendLink).hash.slice(1)).get("token") ?? "");
    const created = (await api().getGame({ gameId })).view!;
    assert.deepEqual(created.seats.map((s) => s.name), ["South", "West", "North", "East"]);

    const { shown: bySouth } = await settle(page, south.client, gameId, "South's page");
    const { shown: byNorth } = await settle(north.page, north.client, gameId, "North's page");
    assert.deepEqual(bySouth.seats.map((s) => s.label), ["South (you)", "West", "North", "East"]);
    assert.deepEqual(byNorth.seats.map((s) => s.label), ["South", "West", "North (you)", "East"]);
    assert.deepEqual(bySouth.scores.map((s) => s.who), ["You & North", "West & East"]);
    assert.deepEqual(byNorth.scores.map((s) => s.who), ["South & You", "West & East"]);

    // Through the bidding, until each has waited for the other by name.
    const waited = new Set<string>();
    const policy: Policy = (seen) => {
      const bids = seen.legalActions.filter((a) => a.word === "bid");
      const action = first(seen, "deal", "reveal") ?? bids.find((a) => a.number === 3) ?? bids.at(-1)
        ?? first(seen, "play") ?? seen.legalActions[0]!;
      return { action };
    };
    await play(gameId, [south, north], policy, "default-names", () => waited.size === 2, async (seen, who) => {
      const { status } = await readTable(who.page);
      assert.doesNotMatch(status, /\bYou\b/, `${who.name}'s status names another player "You"`);
      if (seen.turn !== undefined && seen.turn !== who.seat && seen.phaseName !== "game_over") {
        assert.equal(status, `Waiting for ${seatLabel(seen, seen.turn)}.`, `${who.name}'s status`);
        if (seen.turn === 2 - who.seat) {
          waited.add(status);
          await shootOnce(who, `default-names-${who.name}`);
        }
      }
    });
    assert.deepEqual([...waited].sort(), ["Waiting for North.", "Waiting for South."]);
    for (const p of [south, north]) await p.page.close();
  });

  test("a seat named You is You to itself alone", { timeout: GAME_TIMEOUT_MS }, async () => {
    // The lobby does not let "you" through as a name: the seat keeps its default.
    const { page, errors } = await newPage(browser.context);
    await page.goto(`${HTTP_SERVER}/`);
    await page.locator("form.lobby").waitFor();
    await page.selectOption("#game", "buck_euchre");
    await page.fill("#my-name", " you ");
    await page.fill('input[name="seat-1-name"]', "YOU");
    await page.click("#create");
    await page.locator("#table").waitFor();
    const gameId = new URLSearchParams(new URL(page.url()).hash.slice(1)).get("game") ?? "";
    const named = (await api().getGame({ gameId })).view!;
    assert.deepEqual(named.seats.map((s) => s.name), ["South", "West", "North", "East"]);
    assert.deepEqual(errors, []);
    await page.close();

    // A game created through the API keeps the name; only its own seat reads it.
    const created = await api().createGame({
      variant: Variant.SPADES_TWO_PLAYER,
      seats: [{ name: "You", kind: PlayerKind.HUMAN }, { name: "Bo", kind: PlayerKind.HUMAN }],
      firstDealer: 0,
    });
    const [mine, theirs] = created.seatTokens.map((t) => t.token);
    const you = await player(browser.context, "You", 0, `${HTTP_SERVER}/#game=${created.gameId}&seat=0&token=${mine}`, mine!);
    const bo = await player(browser.context, "Bo", 1, `${HTTP_SERVER}/#game=${created.gameId}&seat=1&token=${theirs}`, theirs!);
    const { shown: byYou } = await settle(you.page, you.client, created.gameId, "the page of the seat named You");
    const { shown: byBo, view } = await settle(bo.page, bo.client, created.gameId, "Bo's page");
    assert.deepEqual(byYou.seats.map((s) => s.label), ["You", "Bo"]);
    assert.deepEqual(byBo.seats.map((s) => s.label), ["Player 1", "Bo (you)"]);
    assert.deepEqual(byBo.scores.map((s) => s.who), ["Player 1", "You"]);
    assert.equal(view.turn, 0, "the first drawer starts the draw");
    assert.equal(byBo.status, "Waiting for Player 1.");
    for (const p of [you, bo]) await p.page.close();
  });
});
