// The lobby: choose a game, who sits where (bots or friends) and its settings, then create it. The
// games, their seats and their settings come from the server (GetCatalog): one input per setting
// by its type, labelled by its title with its help as a hint, set to its default. A game played by
// more than one number of players names the setting that chooses it (seat_setting): the seat rows
// follow that input, and CreateGame sends as many seats. A game's renderer (games/) may lend a
// blurb and default seat names.
import {
  Code,
  ConnectError,
  type GameDescription,
  PlayerKind,
  type SettingDescription,
  SettingType,
  errorReason,
} from "@cardgame/client/web";

import { client, linkTo, saveInvites } from "./api.js";
import { h } from "./dom.js";
import { hasRenderer, rendererFor } from "./games/index.js";
import { nameOrDefault } from "./names.js";
import {
  API_KEY_REQUIRED,
  blurb,
  seatCount,
  seatCountProblem,
  seatNames,
  seatSetting,
  settingProblem,
  settingsToSend,
} from "./settings.js";
import { refusal } from "./text.js";
import { humanize } from "./words.js";

const KINDS: [string, PlayerKind, string][] = [
  ["basic", PlayerKind.BOT_BASIC, "Bot"],
  ["strong", PlayerKind.BOT_STRONG, "Strong bot"],
  ["random", PlayerKind.BOT_RANDOM, "Bot (plays at random)"],
  ["friend", PlayerKind.HUMAN, "A friend"],
];

const MAX_NAME = 64;

/** The seat kinds the lobby offers for a game: the bots the catalog says play it (all of them when
 * a server's catalog does not say), and a friend. */
function kindsFor(game: GameDescription): [string, PlayerKind, string][] {
  const bots = new Set(game.bots);
  return KINDS.filter(([, kind]) => kind === PlayerKind.HUMAN || bots.size === 0 || bots.has(kind));
}

let catalog: Promise<GameDescription[]> | undefined;

/** The server's games, asked once per page (again after a failure). */
function games(): Promise<GameDescription[]> {
  catalog ??= client().getCatalog({}).then(({ games: found }) => found);
  catalog.catch(() => (catalog = undefined));
  return catalog;
}

/** The id of a setting's input. */
const inputId = (setting: SettingDescription) => `setting-${setting.name}`;

/** One setting's label, input (by its type, set to its default) and hint. */
function settingInput(setting: SettingDescription): HTMLElement {
  const id = inputId(setting);
  const hintId = `${id}-hint`;
  const common = { id, name: id, "data-setting": setting.name, "aria-describedby": setting.help ? hintId : undefined };
  const label = h("label", { for: id }, setting.title || humanize(setting.name));
  const hint = setting.help ? h("small", { class: "hint", id: hintId }, setting.help) : null;
  let input: HTMLElement;
  switch (setting.type) {
    case SettingType.INTEGER:
      input = h("input", { ...common, type: "number", inputmode: "numeric", step: 1, min: setting.min, max: setting.max,
        value: setting.defaultValue, required: true });
      break;
    case SettingType.BOOLEAN:
      input = h("input", { ...common, type: "checkbox", checked: setting.defaultValue === "true" });
      return h("div", { class: "setting boolean", "data-type": "boolean" }, input, label, hint);
    case SettingType.CHOICE:
      input = h("select", common, ...setting.choices.map((choice) =>
        h("option", { value: choice, selected: choice === setting.defaultValue }, humanize(choice))));
      break;
    default:
      input = h("input", { ...common, type: "text", pattern: setting.pattern || undefined, value: setting.defaultValue,
        spellcheck: false, autocomplete: "off" });
  }
  const type = SettingType[setting.type]?.toLowerCase() ?? "text";
  return h("div", { class: `setting ${type}`, "data-type": type }, label, input, hint);
}

/** A setting's value as text, read from its input. */
function settingValue(form: HTMLFormElement, setting: SettingDescription): string | undefined {
  const input = form.querySelector<HTMLInputElement | HTMLSelectElement>(`#${CSS.escape(inputId(setting))}`);
  if (!input) return undefined;
  if (input instanceof HTMLInputElement && input.type === "checkbox") return String(input.checked);
  return input.value.trim();
}

/** Why CreateGame failed, for a person. */
function createFailure(err: unknown): string {
  if (!(err instanceof ConnectError)) return String(err);
  if (err.code === Code.Unauthenticated || err.code === Code.PermissionDenied) return API_KEY_REQUIRED;
  return refusal(errorReason(err), err.rawMessage);
}

/** Draws the lobby into `root` once the server's catalog is in; creating a game moves this page to the new seat's link. */
export function showLobby(root: HTMLElement): void {
  document.title = "Card table";
  root.replaceChildren(h("p", { class: "loading" }, "Loading the games…"));
  games().then((found) => {
    if (found.length === 0) throw new Error("the server offers no game");
    drawLobby(root, found);
  }, (err: unknown) => {
    const text = err instanceof ConnectError ? err.rawMessage : String(err);
    root.replaceChildren(h("main", { class: "lobby" }, h("h1", {}, "Card table"),
      h("p", { class: "message", role: "alert" }, `The server's games could not be loaded: ${text}`),
      h("button", { type: "button", class: "primary", onclick: () => showLobby(root) }, "Try again")));
  });
}

function drawLobby(root: HTMLElement, catalogGames: readonly GameDescription[]): void {
  const gameSelect = h("select", { id: "game", name: "game" },
    ...catalogGames.map((game) => h("option", { value: game.name }, game.title || humanize(game.name))));
  const chosen = (): GameDescription => catalogGames.find((g) => g.name === gameSelect.value) ?? catalogGames[0]!;
  const entryOf = (game: GameDescription) => (hasRenderer(game.name) ? rendererFor(game.name).lobby : undefined);
  const about = h("p", { class: "blurb" });
  const myName = h("input", { id: "my-name", name: "my-name", maxlength: MAX_NAME, required: true,
    autocomplete: "nickname" });
  const seatRows = h("div", { class: "seat-rows" });
  const options = h("fieldset", { class: "options" });
  const message = h("p", { class: "message", role: "alert", hidden: true });
  const create = h("button", { type: "submit", class: "primary", id: "create" }, "Create the game");

  let myDefault = "";
  let seats = 0; // the seats drawn: the game's, or as many as its seat setting reads

  /** The other seats' rows for `count` seats; a name typed in and a seat's kind stay with its seat. */
  const drawSeats = (game: GameDescription, count: number) => {
    const [mine = "", ...others] = seatNames(game, entryOf(game), count);
    if (myName.value === myDefault) myName.value = mine; // a name typed in stays
    myDefault = mine;
    const before = seats === 0 ? [] : seatNames(game, entryOf(game), seats).slice(1);
    const kept = others.map((_, i) => {
      const name = seatRows.querySelector<HTMLInputElement>(`input[name="seat-${i + 1}-name"]`);
      const kind = seatRows.querySelector<HTMLSelectElement>(`select[name="seat-${i + 1}-kind"]`);
      return { name: name && name.value !== before[i] ? name.value : undefined, kind: kind?.value };
    });
    seats = count;
    seatRows.setAttribute("data-seats", String(count));
    seatRows.replaceChildren(...others.map((name, i) => h("div", { class: "seat-row" },
      h("input", { name: `seat-${i + 1}-name`, value: kept[i]?.name ?? name, maxlength: MAX_NAME,
        "aria-label": `Seat ${i + 1} name` }),
      h("select", { name: `seat-${i + 1}-kind`, "aria-label": `Who plays ${name}` },
        ...kindsFor(game).map(([value, , label]) => h("option", { value, selected: value === kept[i]?.kind }, label))))));
  };

  const draw = () => {
    const game = chosen();
    const entry = entryOf(game);
    about.textContent = blurb(game, entry);
    seatRows.replaceChildren();
    seats = 0;
    drawSeats(game, seatCount(game, seatSetting(game)?.defaultValue) ?? game.seats);
    options.setAttribute("data-game", game.name);
    options.replaceChildren(h("legend", {}, "Settings"), ...game.settings.map(settingInput));
    options.hidden = game.settings.length === 0;
    message.hidden = true;
  };
  gameSelect.addEventListener("change", draw);

  /** The seat setting's input changed: as many seat rows as it reads (a value that is no seat count keeps them). */
  const followSeats = (event: Event) => {
    const game = chosen();
    const input = event.target as HTMLInputElement | HTMLSelectElement;
    if (!game.seatSetting || input.dataset.setting !== game.seatSetting) return;
    const count = seatCount(game, input.value);
    if (count !== undefined && count !== seats) drawSeats(game, count);
  };
  options.addEventListener("input", followSeats);
  options.addEventListener("change", followSeats);

  const form = h("form", { class: "lobby", novalidate: true },
    h("h1", {}, "Card table"),
    h("p", {}, "Play against the server's bots, or seat friends: each gets a link to their seat."),
    h("label", { for: "game" }, "Game"), gameSelect, about,
    h("label", { for: "my-name" }, "Your name"), myName,
    h("fieldset", {}, h("legend", {}, "The other seats, clockwise from your left"), seatRows),
    options, message, create);

  const fail = (text: string) => {
    message.textContent = text;
    message.hidden = false;
    create.disabled = false;
  };

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void (async () => {
      const game = chosen();
      const values: Record<string, string> = {};
      for (const setting of game.settings) {
        const value = settingValue(form, setting);
        if (value === undefined) continue;
        const problem = settingProblem(setting, value) ?? (setting.name === game.seatSetting
          ? seatCountProblem(game, value) : undefined);
        if (problem) {
          fail(`Check the settings: ${problem}`);
          form.querySelector<HTMLElement>(`#${CSS.escape(inputId(setting))}`)?.focus();
          return;
        }
        values[setting.name] = value;
      }
      const count = seatCount(game, game.seatSetting ? values[game.seatSetting] : undefined) ?? game.seats;
      if (count !== seats) drawSeats(game, count);
      const data = new FormData(form);
      const names = seatNames(game, entryOf(game), count);
      const seatConfigs = names.map((fallback, i) => {
        if (i === 0) return { name: nameOrDefault(myName.value, fallback), kind: PlayerKind.HUMAN };
        const kind = KINDS.find(([value]) => value === data.get(`seat-${i}-kind`))?.[1] ?? PlayerKind.BOT_BASIC;
        return { name: nameOrDefault(String(data.get(`seat-${i}-name`) ?? ""), fallback), kind };
      });
      create.disabled = true;
      message.hidden = true;
      try {
        const created = await client().createGame({
          variantName: game.name, seats: seatConfigs, options: { settings: settingsToSend(game.settings, values) },
        });
        const tokens = new Map(created.seatTokens.map((t) => [t.seat, t.token]));
        const invites = seatConfigs.flatMap((seat, i) => (i > 0 && tokens.has(i)
          ? [{ seat: i, name: seat.name, link: linkTo({ gameId: created.gameId, seat: i, token: tokens.get(i)! }) }]
          : []));
        saveInvites(created.gameId, invites);
        location.hash = new URL(linkTo({ gameId: created.gameId, seat: 0, token: tokens.get(0)! })).hash;
      } catch (err) {
        fail(`The game could not be created: ${createFailure(err)}`);
      }
    })();
  });

  draw();
  root.replaceChildren(form);
}
