// The lobby's and the table's reading of the server's vocabulary against a live server
// (CARDGAME_SERVER, started with tests.games.call_whist): every game of GetCatalog is created from
// the lobby's defaults with one setting changed (only that one sent), its view lists every setting
// in effect and finds its renderer; every renderer module is a game the server plays; and a game
// without a renderer of its own (Call Whist) is offered by its words alone. Run by
// tests/web/test_browser.py.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";

import { type GameDescription, PlayerKind, type SettingDescription, SettingType } from "@cardgame/client";

import { hasRenderer, rendererFor } from "../src/games/index.js";
import { REGISTERED } from "../src/games/registry.gen.js";
import { blurb, seatNames, settingProblem, settingValid, settingsToSend } from "../src/settings.js";
import { actionLabel, buttonActions, cardActions, cardsAction, choosingNumber } from "../src/words.js";
import { api, requireServer } from "./browser.js";

/** A valid value other than the default where the type has one. */
function otherValue(setting: SettingDescription): string {
  switch (setting.type) {
    case SettingType.INTEGER:
      return String(setting.defaultValue === String(setting.min) ? setting.max : setting.min);
    case SettingType.BOOLEAN:
      return setting.defaultValue === "true" ? "false" : "true";
    case SettingType.CHOICE:
      return setting.choices.find((c) => c !== setting.defaultValue) ?? setting.defaultValue;
    default:
      return setting.defaultValue;
  }
}

/** A value the setting does not take, if its type has one. */
function badValue(setting: SettingDescription): string | undefined {
  switch (setting.type) {
    case SettingType.INTEGER:
      return String(setting.max + 1);
    case SettingType.BOOLEAN:
      return "maybe";
    case SettingType.CHOICE:
      return "not-a-choice";
    case SettingType.TEXT:
      return "!?\n";
    default:
      return undefined;
  }
}

describe("the lobby and the table read the server's catalog", () => {
  let games: GameDescription[] = [];

  before(async () => {
    requireServer();
    games = (await api().getCatalog({})).games;
  });

  test("every game is created from the lobby's defaults and settings, and its views find its renderer", async () => {
    assert.ok(games.length > 0, "the catalog lists no game");
    for (const renderer of REGISTERED) {
      assert.ok(games.some((g) => g.name === renderer.name), `the renderer ${renderer.name} is no game of the server`);
    }
    for (const game of games) {
      const names = seatNames(game, rendererFor(game.name).lobby);
      assert.equal(names.length, game.seats, `${game.name}: one default name per seat`);
      assert.ok(blurb(game, rendererFor(game.name).lobby) !== "", `${game.name}: no blurb`);
      const defaults = Object.fromEntries(game.settings.map((s) => [s.name, s.defaultValue]));
      for (const setting of game.settings) {
        assert.ok(settingValid(setting, setting.defaultValue), `${game.name}: ${setting.name}'s default`);
        const bad = badValue(setting);
        if (bad !== undefined) {
          assert.equal(settingValid(setting, bad), false, `${game.name}: ${setting.name} takes ${JSON.stringify(bad)}`);
          assert.equal(settingProblem(setting, bad), `${setting.title}: ${setting.allowed}.`);
        }
      }
      assert.deepEqual(settingsToSend(game.settings, defaults), {}, `${game.name}: defaults are not sent`);
      const changed = game.settings.find((s) => otherValue(s) !== s.defaultValue);
      assert.ok(changed, `${game.name}: no setting to change`);
      const values = { ...defaults, [changed.name]: otherValue(changed) };
      const sent = settingsToSend(game.settings, values);
      assert.deepEqual(sent, { [changed.name]: otherValue(changed) }, `${game.name}: only the change is sent`);

      const created = await api().createGame({
        variantName: game.name,
        seats: names.map((name) => ({ name, kind: PlayerKind.HUMAN })),
        options: { settings: sent },
      });
      const view = created.view;
      assert.ok(view, `${game.name}: CreateGame returned no view`);
      assert.equal(view.variantName, game.name, `${game.name}: the view's registry name`);
      assert.equal(view.variantTitle, game.title, `${game.name}: the view's title`);
      assert.equal(rendererFor(view.variantName).name, game.name, `${game.name}: the renderer its views find`);
      assert.equal(hasRenderer(view.variantName), REGISTERED.some((r) => r.name === game.name));
      assert.deepEqual(view.seats.map((s) => s.name), names, `${game.name}: seats`);
      assert.deepEqual({ ...view.options?.settings }, values, `${game.name}: the settings in effect`);
    }
  });

  test("a game without a renderer of its own is offered by its words alone", async () => {
    const game = games.find((g) => g.name === "call_whist");
    assert.ok(game, "the server does not play Call Whist (start it with --game-module tests.games.call_whist)");
    assert.equal(hasRenderer(game.name), false, "Call Whist has a renderer of its own");
    const created = await api().createGame({
      variantName: game.name, firstDealer: 3,
      seats: seatNames(game).map((name) => ({ name, kind: PlayerKind.HUMAN })),
    });
    const token = (seat: number) => created.seatTokens.find((t) => t.seat === seat)!.token;
    const dealer = (await api(token(3)).getGame({ gameId: created.gameId })).view!;
    assert.deepEqual(buttonActions(dealer).map((a) => actionLabel(a)), ["Deal"]);
    await api(token(3)).act({ gameId: created.gameId, requestId: crypto.randomUUID(), action: buttonActions(dealer)[0]!.notation });

    const caller = (await api(token(0)).getGame({ gameId: created.gameId })).view!;
    assert.equal(caller.phaseName, "call");
    assert.equal(caller.phaseTitle, game.phases.find((p) => p.name === "call")?.title);
    assert.equal(choosingNumber(caller), false);
    assert.equal(cardsAction(caller), undefined);
    assert.deepEqual(cardActions(caller), []);
    assert.deepEqual(buttonActions(caller).map((a) => actionLabel(a)),
      ["Call trump ♣", "Call trump ♦", "Call trump ♥", "Call trump ♠", "No trump"]);
    assert.deepEqual(buttonActions(caller).map((a) => actionLabel(a, true)),
      ["Call trump clubs", "Call trump diamonds", "Call trump hearts", "Call trump spades", "No trump"]);
    const generic = rendererFor(game.name);
    assert.equal(generic.actionLabel, undefined, "the generic renderer words no action its own way");
    assert.deepEqual(generic.facts(caller, String), []);
    assert.deepEqual(caller.seats.map((s) => generic.seatBadges(s, caller)), caller.seats.map(() => []));
    assert.equal(generic.prompt(caller), undefined);
    assert.equal(generic.callText("call S"), "call S");
  });
});
