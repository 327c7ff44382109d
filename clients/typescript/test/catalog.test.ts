// GetCatalog against a live server (CARDGAME_SERVER, and CARDGAME_HTTP_SERVER over Connect): every
// game describes itself in full (its seats and sides, its phases, its action words with their
// shapes, its settings with their types and defaults), and a game created with settings by name
// only (RuleOptions.settings) plays them: its view lists every setting in effect, and its phase
// and actions are in the catalog's words. Nothing here knows any game beforehand. Run by
// tests/clients/test_typescript_client.py.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";

import {
  ActionShape,
  type GameDescription,
  type GameServiceClient,
  PlayerKind,
  type SettingDescription,
  SettingType,
  createClient,
} from "../src/index.js";

const SERVER = process.env.CARDGAME_SERVER ?? "";
const HTTP_SERVER = process.env.CARDGAME_HTTP_SERVER ?? "";
const TIMEOUT_MS = 60_000;
/** The phases every game has (catalog.proto, view.proto). */
const COMMON_PHASES = ["deal", "play", "game_over"];

/** Whether `value` is a valid value of `setting`, as its type, range, choices or pattern say. */
function valid(setting: SettingDescription, value: string): boolean {
  switch (setting.type) {
    case SettingType.INTEGER:
      return /^-?\d+$/.test(value) && Number(value) >= setting.min && Number(value) <= setting.max;
    case SettingType.BOOLEAN:
      return value === "true" || value === "false";
    case SettingType.CHOICE:
      return setting.choices.includes(value);
    case SettingType.TEXT:
      return new RegExp(`^(?:${setting.pattern})$`).test(value);
    default:
      return false;
  }
}

/** Another valid value than the default where the type offers one (the default for text). */
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

/** Checks one game's description, whatever the game. */
function checkDescription(game: GameDescription): void {
  const at = game.name;
  assert.match(game.name, /^[a-z0-9_]+$/, `${at}: registry name`);
  assert.ok(game.title !== "", `${at}: no title`);
  assert.ok(game.seats >= 2, `${at}: ${game.seats} seats`);
  const sideSeats = game.sides.flatMap((s) => s.seats).sort((a, b) => a - b);
  assert.deepEqual(sideSeats, Array.from({ length: game.seats }, (_, i) => i), `${at}: the sides seat everyone once`);

  assert.ok(game.phases.length > 0, `${at}: no phases`);
  const phases = game.phases.map((p) => p.name);
  assert.equal(new Set(phases).size, phases.length, `${at}: a phase twice`);
  for (const common of COMMON_PHASES) assert.ok(phases.includes(common), `${at}: no phase ${common}`);
  for (const phase of game.phases) assert.ok(phase.title !== "", `${at}: phase ${phase.name} has no title`);

  assert.ok(game.words.length > 0, `${at}: no words`);
  const words = game.words.map((w) => w.word);
  assert.equal(new Set(words).size, words.length, `${at}: a word twice`);
  for (const word of game.words) {
    assert.match(word.word, /^[a-z][a-z0-9-]*$/, `${at}: word ${word.word}`);
    assert.ok(word.title !== "", `${at}: word ${word.word} has no title`);
    assert.ok(ActionShape[word.shape] !== undefined && word.shape !== ActionShape.UNSPECIFIED,
      `${at}: word ${word.word} has no shape`);
    if (Object.keys(word.numbers).length > 0) assert.equal(word.shape, ActionShape.NUMBER, `${at}: ${word.word}'s numbers`);
  }
  assert.ok(game.words.some((w) => w.shape === ActionShape.CARD), `${at}: no word plays a card`);

  assert.ok(game.settings.length > 0, `${at}: no settings`);
  const names = game.settings.map((s) => s.name);
  assert.equal(new Set(names).size, names.length, `${at}: a setting twice`);
  for (const setting of game.settings) {
    const what = `${at}: setting ${setting.name}`;
    assert.match(setting.name, /^[a-z][a-z0-9_]*$/, what);
    assert.ok(setting.type !== SettingType.UNSPECIFIED, `${what} has no type`);
    assert.ok(setting.title !== "" && setting.help !== "" && setting.allowed !== "", `${what}: title, help, allowed`);
    assert.ok(valid(setting, setting.defaultValue), `${what}: default ${JSON.stringify(setting.defaultValue)}`);
    if (setting.type === SettingType.INTEGER) assert.ok(setting.min <= setting.max, `${what}: range`);
    if (setting.type === SettingType.CHOICE) assert.ok(setting.choices.length >= 2, `${what}: choices`);
    if (setting.type === SettingType.TEXT) assert.ok(setting.pattern !== "", `${what}: pattern`);
  }
  if (game.targetSetting) assert.ok(names.includes(game.targetSetting), `${at}: target ${game.targetSetting}`);
}

describe("GetCatalog through the TypeScript client", { concurrency: false }, () => {
  let grpc: GameServiceClient;

  before(() => {
    assert.match(SERVER, /^https?:\/\/[^/]+$/, "set CARDGAME_SERVER to a running server, e.g. http://127.0.0.1:50051");
    grpc = createClient(SERVER);
  });

  test("every game has its seats, sides, phases, words and settings", { timeout: TIMEOUT_MS }, async () => {
    const { games } = await grpc.getCatalog({});
    assert.ok(games.length > 0, "the catalog lists no game");
    const names = games.map((g) => g.name);
    assert.equal(new Set(names).size, names.length, "a game listed twice");
    for (const game of games) checkDescription(game);
    console.log(`GetCatalog: ${games.map((g) => `${g.name} (${g.phases.length} phases, ${g.words.length} words, ` +
      `${g.settings.length} settings)`).join(", ")}`);
  });

  test("the HTTP port's Connect answer is the same catalog", { timeout: TIMEOUT_MS }, async () => {
    assert.match(HTTP_SERVER, /^https?:\/\/[^/]+$/, "set CARDGAME_HTTP_SERVER to a running server's HTTP port");
    const [viaGrpc, viaConnect] = await Promise.all([grpc.getCatalog({}),
      createClient(HTTP_SERVER, { protocol: "connect" }).getCatalog({})]);
    assert.deepEqual(viaConnect.games, viaGrpc.games);
  });

  test("a game created with settings by name plays them, in the catalog's words", { timeout: TIMEOUT_MS }, async () => {
    const { games } = await grpc.getCatalog({});
    for (const game of games) {
      // One setting other than its default, sent by name as text; the others take their defaults.
      const changed = game.settings.find((s) => otherValue(s) !== s.defaultValue) ?? game.settings[0]!;
      const created = await grpc.createGame({
        variantName: game.name,
        firstDealer: 0,
        seats: Array.from({ length: game.seats }, (_, seat) => ({ name: `p${seat}`, kind: PlayerKind.HUMAN })),
        options: { settings: { [changed.name]: otherValue(changed) } },
      });
      const view = created.view;
      assert.ok(view, `${game.name}: CreateGame returned no view`);
      assert.equal(view.variantName, game.name);
      const expected = Object.fromEntries(game.settings.map((s) => [s.name,
        s === changed ? otherValue(s) : s.defaultValue]));
      assert.deepEqual({ ...view.options?.settings }, expected, `${game.name}: the settings in effect`);

      // The dealer's view: its phase and every legal action are the catalog's.
      const dealer = createClient(SERVER, { token: created.seatTokens.find((t) => t.seat === 0)?.token });
      const seen = (await dealer.getGame({ gameId: created.gameId })).view;
      assert.ok(seen, `${game.name}: GetGame returned no view`);
      const phase = game.phases.find((p) => p.name === seen.phaseName);
      assert.ok(phase, `${game.name}: phase ${seen.phaseName} is not in the catalog`);
      assert.equal(seen.phaseTitle, phase.title, `${game.name}: the phase's title`);
      assert.ok(seen.legalActions.length > 0, `${game.name}: the first dealer has nothing to do`);
      for (const action of seen.legalActions) {
        const word = game.words.find((w) => w.word === action.word);
        assert.ok(word, `${game.name}: ${action.notation}'s word ${action.word} is not in the catalog`);
        assert.equal(action.shape, word.shape, `${game.name}: ${action.notation}'s shape`);
        assert.equal(action.title, word.title, `${game.name}: ${action.notation}'s title`);
      }

    }
  });
});
