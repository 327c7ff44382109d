// The lobby and the table of a game the web table has no renderer for, in Chromium against a live
// server started with `--game-module tests.games.call_whist` (see table.test.ts): the settings
// panel is built from GetCatalog (one input per setting by its type, labelled by its title with
// its help), a setting the server refuses to take is caught before CreateGame, a server requiring
// API keys is explained to the operator, and Call Whist created from the lobby with no trump
// turned off is played through its "call" phase and its first hand by four friends clicking the
// buttons its words produce — and no "No trump" button is ever offered. Screenshots: lobby-hearts-
// settings, lobby-call-whist, call-whist-call, call-whist-hand-1-score (or -game-over). Run by
// tests/web/test_browser.py.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { ActionShape, type GameView, PlayerKind, Suit } from "@cardgame/client";
import type { Page } from "playwright-core";

import { HTTP_SERVER, api, newPage, readTable, screenshot, seatLabel } from "./browser.js";
import { GAME_TIMEOUT_MS, type Player, type Policy, first, handsFinished, play, player, suiteBrowser } from "./players.js";

const UI_TIMEOUT_MS = 10_000;

/** The lobby, once the server's catalog is in and `game` is chosen. */
async function lobbyWith(page: Page, game: string): Promise<void> {
  await page.goto(`${HTTP_SERVER}/`);
  await page.locator(`#game option[value="${game}"]`).waitFor({ state: "attached", timeout: UI_TIMEOUT_MS });
  await page.selectOption("#game", game);
  await page.locator(`fieldset.options[data-game="${game}"]`).waitFor({ timeout: UI_TIMEOUT_MS });
}

/** Each setting input of the lobby: its type, attributes, value, label and hint. */
async function settingInputs(page: Page) {
  return page.locator("fieldset.options [data-setting]").evaluateAll((inputs) => inputs.map((el) => {
    const input = el as HTMLInputElement | HTMLSelectElement;
    const hint = input.getAttribute("aria-describedby");
    return {
      name: input.dataset.setting ?? "",
      tag: input.tagName.toLowerCase(),
      type: input instanceof HTMLInputElement ? input.type : "",
      min: input.getAttribute("min"),
      max: input.getAttribute("max"),
      pattern: input.getAttribute("pattern"),
      value: input instanceof HTMLInputElement && input.type === "checkbox" ? String(input.checked) : input.value,
      choices: input instanceof HTMLSelectElement ? Array.from(input.options).map((o) => o.value) : [],
      label: document.querySelector(`label[for="${input.id}"]`)?.textContent ?? "",
      hint: hint ? document.getElementById(hint)?.textContent ?? "" : "",
    };
  }));
}

describe("a game without a renderer, from the catalog-built lobby", { concurrency: false }, () => {
  const browser = suiteBrowser();

  test("the settings panel follows GetCatalog; bad values and a keyed server are explained", { timeout: GAME_TIMEOUT_MS },
    async () => {
      const { games } = await api().getCatalog({});
      const hearts = games.find((g) => g.name === "hearts");
      assert.ok(hearts, "the server does not play Hearts");
      const { page, errors } = await newPage(browser.context);
      await lobbyWith(page, "hearts");
      const options = await page.locator("#game option").evaluateAll((o) => o.map((e) => (e as HTMLOptionElement).value));
      assert.deepEqual(options, games.map((g) => g.name), "the lobby offers the catalog's games, in its order");
      const inputs = await settingInputs(page);
      assert.deepEqual(inputs.map((i) => i.name), hearts.settings.map((s) => s.name), "one input per setting");
      const types = new Set<string>();
      for (const [i, setting] of hearts.settings.entries()) {
        const input = inputs[i]!;
        assert.equal(input.label, setting.title, `${setting.name}: label`);
        assert.equal(input.hint, setting.help, `${setting.name}: hint`);
        assert.equal(input.value, setting.defaultValue, `${setting.name}: default`);
        types.add(`${input.tag}:${input.type}`);
        if (input.type === "number") assert.deepEqual([input.min, input.max], [String(setting.min), String(setting.max)]);
        if (input.type === "text") assert.equal(input.pattern, setting.pattern, `${setting.name}: pattern`);
        if (input.tag === "select") assert.deepEqual(input.choices, setting.choices, `${setting.name}: choices`);
      }
      assert.deepEqual([...types].sort(), ["input:checkbox", "input:number", "input:text", "select:"],
        "Hearts' settings are one of each type");
      await screenshot(page, "lobby-hearts-settings");

      // A value the setting does not take is caught in the page, in the catalog's words.
      let creates = 0;
      page.on("request", (r) => {
        if (r.url().endsWith("/cardgame.v1.GameService/CreateGame")) creates++;
      });
      await page.fill("#setting-pass_cycle", "LRX");
      await page.click("#create");
      const message = page.locator("form.lobby .message:not([hidden])");
      await message.waitFor({ timeout: UI_TIMEOUT_MS });
      const passCycle = hearts.settings.find((s) => s.name === "pass_cycle")!;
      assert.equal(await message.textContent(), `Check the settings: ${passCycle.title}: ${passCycle.allowed}.`);
      assert.equal(creates, 0, "a bad setting reached CreateGame");
      await page.fill("#setting-pass_cycle", passCycle.defaultValue);

      // A server that requires API keys refuses the page's CreateGame: the operator is told why.
      await page.route("**/cardgame.v1.GameService/CreateGame", (route) => route.fulfill({
        status: 401, contentType: "application/json",
        body: JSON.stringify({ code: "unauthenticated", message: "CreateGame needs an API key: send it in the x-api-key header" }),
      }));
      await page.click("#create");
      await page.locator("form.lobby .message:not([hidden])", { hasText: "API key" }).waitFor({ timeout: UI_TIMEOUT_MS });
      const refused = (await message.textContent()) ?? "";
      assert.match(refused, /^The game could not be created: This server requires an API key .*: the operator must /);
      assert.doesNotMatch(refused, /CreateGame needs/, "the raw message is shown");
      assert.equal(await page.locator("#create").isDisabled(), false, "the lobby can be used again");
      await page.unroute("**/cardgame.v1.GameService/CreateGame");
      assert.equal(new URL(page.url()).hash, "", "the page left the lobby");
      assert.deepEqual(errors.filter((e) => !/status of 401/.test(e)), []);
      await page.close();
    });

  test("Call Whist from the lobby with no trump off, through the call by its words' buttons",
    { timeout: GAME_TIMEOUT_MS }, async () => {
      const { games } = await api().getCatalog({});
      const game = games.find((g) => g.name === "call_whist");
      assert.ok(game, "the server does not play Call Whist (start it with --game-module tests.games.call_whist)");
      const { page, errors } = await newPage(browser.context);
      await lobbyWith(page, "call_whist");
      const inputs = await settingInputs(page);
      assert.deepEqual(inputs.map((i) => [i.name, i.type, i.value, i.label]),
        [["target", "number", "3", "Target"], ["no_trump_allowed", "checkbox", "true", "No trump"]]);
      assert.deepEqual([inputs[0]!.min, inputs[0]!.max], ["1", "20"]);
      await page.uncheck("#setting-no_trump_allowed");
      // no basic or strong bot plays it (the catalog's bots): a seat offers the random bot or a friend
      assert.deepEqual(await page.locator('select[name="seat-1-kind"] option').evaluateAll(
        (options) => options.map((o) => (o as HTMLOptionElement).value)), ["random", "friend"]);
      await page.fill("#my-name", "Ana");
      for (const seat of [1, 2, 3]) await page.selectOption(`select[name="seat-${seat}-kind"]`, "friend");
      await screenshot(page, "lobby-call-whist");
      const request = page.waitForRequest((r) => r.url().endsWith("/cardgame.v1.GameService/CreateGame"));
      await page.click("#create");
      assert.deepEqual((await request).postDataJSON().options, { settings: { no_trump_allowed: "false" } },
        "the lobby sends the settings that differ from their defaults");
      await page.locator("#table").waitFor({ timeout: UI_TIMEOUT_MS });
      const place = new URLSearchParams(new URL(page.url()).hash.slice(1));
      const gameId = place.get("game") ?? "";
      const ana: Player = { name: "Ana", seat: 0, page, errors, client: api(place.get("token") ?? ""), handsSeen: 0,
        shots: new Set() };
      const friends: Player[] = [];
      for (const seat of [1, 2, 3]) {
        const link = await page.locator(`.invites a[data-seat="${seat}"]`).getAttribute("href");
        assert.ok(link, `no seat link for seat ${seat}`);
        friends.push(await player(browser.context, `seat-${seat}`, seat, link,
          new URLSearchParams(new URL(link).hash.slice(1)).get("token") ?? ""));
      }
      const created = (await api().getGame({ gameId })).view!;
      assert.equal(created.variantName, "call_whist");
      assert.deepEqual(created.seats.map((s) => [s.name, s.kind]),
        [["Ana", PlayerKind.HUMAN], ["West", PlayerKind.HUMAN], ["North", PlayerKind.HUMAN], ["East", PlayerKind.HUMAN]]);
      assert.deepEqual({ ...created.options?.settings }, { target: "3", no_trump_allowed: "false" },
        "the settings in effect");

      let called: string | undefined;
      const callPhase = game.phases.find((p) => p.name === "call")!;
      const policy: Policy = (view) => {
        assert.ok(!view.legalActions.some((a) => a.word === "no-trump"), "no trump offered though turned off");
        const call = view.legalActions.find((a) => a.word === "call" && a.suit === Suit.SPADES);
        if (call) {
          called = call.notation;
          return { action: call };
        }
        const action = first(view, "deal", "play");
        assert.ok(action, `nothing to do among ${view.legalActions.map((a) => a.notation).join(", ")}`);
        return { action };
      };
      const onView = async (view: GameView, who: Player) => {
        if (view.phaseName !== "call") return;
        const shown = await readTable(who.page);
        assert.equal(shown.phaseTitle, callPhase.title, `${who.name}: the phase's title`);
        if (view.turn !== who.seat) {
          assert.deepEqual(shown.actions, [], `${who.name}: buttons out of turn`);
          assert.equal(shown.status, `Waiting for ${seatLabel(view, view.turn!)}.`);
          return;
        }
        assert.deepEqual(shown.actionLabels, ["Call trump ♣", "Call trump ♦", "Call trump ♥", "Call trump ♠"],
          `${who.name}: the call's buttons`);
        assert.deepEqual(new Set(shown.actionWords), new Set(["call"]));
        assert.equal(await who.page.locator('.actions [data-word="no-trump"]').count(), 0, "a no-trump button");
        assert.equal(await who.page.getByRole("button", { name: "No trump" }).count(), 0, "a No trump button");
        assert.equal(shown.status, "Your turn: Call trump.");
        assert.deepEqual(shown.playable, [], "cards playable while calling");
        if (!who.shots.has("call")) {
          who.shots.add("call");
          await screenshot(who.page, "call-whist-call");
        }
      };
      const players = [ana, ...friends];
      const end = await play(gameId, players, policy, "call-whist", (v) => handsFinished(v) >= 1, onView);
      assert.equal(called, "call S", "the call was made through its button");
      assert.ok(players.some((p) => p.shots.has("call")), "the caller's page was never seen in the call phase");
      const score = await api().getScore({ gameId });
      assert.equal(score.hands.length, 1);
      assert.equal(end.legalActions.some((a) => a.shape === ActionShape.NONE && a.word === "no-trump"), false);
      console.log(`Call Whist ${gameId}: called ${called}, hand 1 points ` +
        `${score.hands[0]!.sides.map((s) => s.handPoints).join("/")}, totals ${end.scores.map((s) => s.score).join("/")}`);
      for (const p of players) await p.page.close();
    });
});
