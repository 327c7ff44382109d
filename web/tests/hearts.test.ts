// Hearts at the web table in Chromium against a live server (see table.test.ts): a hand against
// three bots through the page, the pass of three cards first; the cards received are shown at the
// table until the first trick is played (then a small "Your pass" line), each seat's points taken
// this hand are on its panel, and the hand's score tells Ana her own pass and the one she received,
// no other.
// Screenshots: hearts-pass, hearts-play, hearts-hand-1-score. Run by tests/web/test_browser.py.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";

import { ActionShape, PlayerKind } from "@cardgame/client";

import { ARTIFACTS, HTTP_SERVER, api } from "./browser.js";
import { GAME_TIMEOUT_MS, type Policy, first, handsFinished, play, player, shootOnce, suiteBrowser } from "./players.js";

describe("Hearts at the web table in Chromium", { concurrency: false }, () => {
  const browser = suiteBrowser();

  test("a Hearts hand against three bots: the pass, then every trick", { timeout: GAME_TIMEOUT_MS }, async () => {
    const created = await api().createGame({
      variantName: "hearts",
      seats: [{ name: "Ana", kind: PlayerKind.HUMAN },
        ...["West", "North", "East"].map((name) => ({ name, kind: PlayerKind.BOT_BASIC }))],
      firstDealer: 3,
      shuffleSeed: 5n,
    });
    const token = created.seatTokens[0]!.token;
    const ana = await player(browser.context, "Ana", 0, `${HTTP_SERVER}/#game=${created.gameId}&seat=0&token=${token}`, token);
    let passed: string[] = [];
    let received: string[] = [];
    let pointsSeen = false;
    let passGone = false;
    const policy: Policy = (view) => {
      const action = first(view, "deal", "pass", "play");
      assert.ok(action, `no action for Ana among ${view.legalActions.map((a) => a.notation).join(", ")}`);
      if (action.shape === ActionShape.CARDS) passed = action.cards.slice(0, action.minCards);
      return { action, cards: action.shape === ActionShape.CARDS ? passed : undefined };
    };
    const final = await play(created.gameId, [ana], policy, "hearts", (v) => handsFinished(v) >= 1,
      async (view, p) => {
        if (view.rules.case !== "hearts") return;
        if (view.phaseName === "pass") await shootOnce(p, "hearts-pass");
        if (view.rules.value.passReceived.length) received = [...view.rules.value.passReceived];
        if (view.phaseName !== "play") return;
        const points = view.rules.value.pointsTaken;
        for (const seat of view.seats) {
          const badge = p.page.locator(`[data-seat="${seat.seat}"] [data-field="points"]`);
          assert.equal(await badge.getAttribute("data-value"), String(points[seat.seat] ?? 0),
            `seat ${seat.seat}'s points this hand on its panel`);
        }
        if (points.some((n) => n > 0)) pointsSeen = true;
        const firstTrickDone = (view.lastTrick?.plays.length ?? 0) > 0 || view.seats.some((s) => s.tricksWon > 0);
        const shownReceived = p.page.locator('[data-role="pass-received"]');
        if (!firstTrickDone && received.length) {
          assert.ok(await shownReceived.isVisible(), "the pass is shown until the first trick is played");
          const shown = await shownReceived.getAttribute("data-cards");
          assert.deepEqual(shown?.split(" "), received, "the cards Ana received are shown at the table");
          await shootOnce(p, "hearts-play");
        } else if (firstTrickDone) {
          assert.equal(await shownReceived.isVisible(), false, "the pass leaves the middle after the first trick");
          assert.equal(await p.page.locator('[data-role="pass-summary"]').count(), 1, "a small line keeps Ana's pass");
          passGone = true;
        }
      });
    assert.ok(pointsSeen, "some points taken were shown on the seats during the hand");
    assert.ok(passGone, "the pass panel went after the first trick");
    assert.equal(passed.length, 3, "Ana passed three cards through the page");
    assert.equal(received.length, 3, "Ana's view showed the three cards she received");
    const score = await api(token).getScore({ gameId: created.gameId });
    const hand = score.hands[0]!;
    assert.ok(hand.rules.case === "hearts" && hand.rules.value.direction === "left", "the hand's pass went left");
    const mine = hand.rules.value.passes.find((p) => p.seat === 0);
    assert.deepEqual([...(mine?.cards ?? [])].sort(), [...passed].sort(), "Ana's pass in her score");
    assert.equal(hand.rules.value.passes.length, 2, "Ana knows her own pass and the one she received, no other");
    console.log(`Hearts ${created.gameId}: Ana passed ${passed.join(" ")}, received ${received.join(" ")}, ` +
      `points ${final.scores.map((s) => s.score).join("/")}`);
    for (const shot of ["hearts-pass", "hearts-play", "hearts-hand-1-score"]) {
      assert.ok(existsSync(join(ARTIFACTS, `${shot}.png`)), `no screenshot ${shot}`);
    }
    await ana.page.close();
  });
});
