// The web table's game registry (src/games/) against a live server (CARDGAME_SERVER): every game
// the lobby offers can be created from its lobby entry alone, and its views come back with the
// registry name that finds its renderer; a game the registry does not know gets the generic one.
// Run by tests/web/test_browser.py.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";

import { PlayerKind } from "@cardgame/client";

import { lobbyGames, rendererFor } from "../src/games/index.js";
import { api, requireServer } from "./browser.js";

describe("the game registry", () => {
  before(requireServer);

  test("every game the lobby offers is created from its entry, and its views find its renderer", async () => {
    const games = lobbyGames();
    assert.ok(games.length > 0, "the lobby offers no game");
    for (const game of games) {
      const { seatNames, options, ruleOptions } = game.lobby;
      const defaults = Object.fromEntries(options.map((o) => [o.key, o.value]));
      const wanted = ruleOptions(defaults);
      const created = await api().createGame({
        variantName: game.name,
        seats: seatNames.map((name, seat) => ({ name, kind: seat === 0 ? PlayerKind.HUMAN : PlayerKind.BOT_BASIC })),
        options: wanted,
      });
      const view = created.view;
      assert.ok(view, `${game.name}: CreateGame returned no view`);
      assert.equal(view.variantName, game.name, `${game.name}: the view's registry name`);
      assert.equal(rendererFor(view.variantName), game, `${game.name}: the renderer its views find`);
      assert.deepEqual(view.seats.map((s) => s.name), [...seatNames], `${game.name}: seats`);
      assert.equal(view.options?.variant.case, wanted.variant?.case, `${game.name}: options`);
      for (const [field, value] of Object.entries(wanted.variant?.value ?? {})) {
        assert.equal((view.options?.variant.value as Record<string, unknown> | undefined)?.[field], value,
          `${game.name}: option ${field}`);
      }
      for (const option of options) {
        assert.ok(option.min <= option.value && option.value <= option.max, `${game.name}: ${option.key}'s default`);
      }
    }
  });

  test("a game the registry does not know is drawn by the generic renderer", async () => {
    const [game] = lobbyGames();
    const created = await api().createGame({
      variantName: game!.name,
      seats: game!.lobby.seatNames.map((name) => ({ name, kind: PlayerKind.HUMAN })),
      firstDealer: 0,
    });
    const token = created.seatTokens.find((t) => t.seat === 0)!.token;
    const { view } = await api(token).getGame({ gameId: created.gameId });
    assert.ok(view && view.legalActions.length > 0, "the first dealer has nothing to do");
    const generic = rendererFor("not-a-registered-game");
    assert.equal(generic.name, "not-a-registered-game");
    assert.equal(generic.title, "not-a-registered-game");
    assert.equal(generic.lobby, undefined, "the lobby offers an unknown game");
    assert.deepEqual(view.legalActions.map((a) => generic.actionLabel(a)), view.legalActions.map((a) => a.notation));
    assert.deepEqual(generic.facts(view, String), []);
    assert.deepEqual(view.seats.map((s) => generic.seatBadges(s, view)), view.seats.map(() => []));
    assert.equal(generic.callText("pass"), "pass");
    assert.equal(generic.prompt(view), undefined);
  });
});
