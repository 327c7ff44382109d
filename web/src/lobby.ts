// The lobby: choose a game, who sits where (bots or friends) and its rule options, then create it.
// The games and their options come from the registry (games/).
import { ConnectError, PlayerKind, errorReason } from "@cardgame/client/web";

import { client, linkTo, saveInvites } from "./api.js";
import { h } from "./dom.js";
import { type LobbyEntry, type NumberOption, lobbyGames } from "./games/index.js";
import { nameOrDefault } from "./names.js";
import { refusal } from "./text.js";

const KINDS: [string, PlayerKind, string][] = [
  ["basic", PlayerKind.BOT_BASIC, "Bot"],
  ["strong", PlayerKind.BOT_STRONG, "Strong bot"],
  ["random", PlayerKind.BOT_RANDOM, "Bot (plays at random)"],
  ["friend", PlayerKind.HUMAN, "A friend"],
];

const MAX_NAME = 64;

function optionInput(option: NumberOption): HTMLElement[] {
  const id = `option-${option.key}`;
  return [h("label", { for: id }, option.label),
    h("input", { id, name: id, type: "number", inputmode: "numeric", min: option.min, max: option.max,
      step: option.step, value: option.value, "data-option": option.key })];
}

/** Draws the lobby into `root`; creating a game moves this page to the new seat's link. */
export function showLobby(root: HTMLElement): void {
  const games = lobbyGames();
  const gameSelect = h("select", { id: "game", name: "game" },
    ...games.map((game) => h("option", { value: game.name }, game.title)));
  const chosen = (): LobbyEntry & { name: string } => {
    const game = games.find((g) => g.name === gameSelect.value) ?? games[0]!;
    return { ...game.lobby, name: game.name };
  };
  const blurb = h("p", { class: "blurb" });
  const myName = h("input", { id: "my-name", name: "my-name", maxlength: MAX_NAME, required: true,
    autocomplete: "nickname" });
  const seatRows = h("div", { class: "seat-rows" });
  const options = h("div", { class: "options" });
  const message = h("p", { class: "message", role: "alert", hidden: true });
  const create = h("button", { type: "submit", class: "primary", id: "create" }, "Create the game");

  let myDefault = "";
  const draw = () => {
    const game = chosen();
    const [mine = "", ...others] = game.seatNames;
    if (myName.value === myDefault) myName.value = mine; // a name typed in stays
    myDefault = mine;
    blurb.textContent = game.blurb;
    seatRows.replaceChildren(...others.map((name, i) => h("div", { class: "seat-row" },
      h("input", { name: `seat-${i + 1}-name`, value: name, maxlength: MAX_NAME, "aria-label": `Seat ${i + 1} name` }),
      h("select", { name: `seat-${i + 1}-kind`, "aria-label": `Who plays ${name}` },
        ...KINDS.map(([value, , label]) => h("option", { value }, label))))));
    options.replaceChildren(...game.options.flatMap(optionInput));
  };
  gameSelect.addEventListener("change", draw);

  const form = h("form", { class: "lobby", novalidate: true },
    h("h1", {}, "Card table"),
    h("p", {}, "Play against the server's bots, or seat friends: each gets a link to their seat."),
    h("label", { for: "game" }, "Game"), gameSelect, blurb,
    h("label", { for: "my-name" }, "Your name"), myName,
    h("fieldset", {}, h("legend", {}, "The other seats, clockwise from your left"), seatRows),
    options, message, create);

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void (async () => {
      const game = chosen();
      const data = new FormData(form);
      const seats = game.seatNames.map((fallback, i) => {
        if (i === 0) return { name: nameOrDefault(myName.value, fallback), kind: PlayerKind.HUMAN };
        const kind = KINDS.find(([value]) => value === data.get(`seat-${i}-kind`))?.[1] ?? PlayerKind.BOT_BASIC;
        return { name: nameOrDefault(String(data.get(`seat-${i}-name`) ?? ""), fallback), kind };
      });
      const values = Object.fromEntries(game.options.map((o) => [o.key, Number(data.get(`option-${o.key}`))]));
      create.disabled = true;
      message.hidden = true;
      try {
        const created = await client().createGame({ variantName: game.name, seats, options: game.ruleOptions(values) });
        const tokens = new Map(created.seatTokens.map((t) => [t.seat, t.token]));
        const invites = seats.flatMap((seat, i) => (i > 0 && tokens.has(i)
          ? [{ seat: i, name: seat.name, link: linkTo({ gameId: created.gameId, seat: i, token: tokens.get(i)! }) }]
          : []));
        saveInvites(created.gameId, invites);
        location.hash = new URL(linkTo({ gameId: created.gameId, seat: 0, token: tokens.get(0)! })).hash;
      } catch (err) {
        const text = err instanceof ConnectError ? refusal(errorReason(err), err.rawMessage) : String(err);
        message.textContent = `The game could not be created: ${text}`;
        message.hidden = false;
        create.disabled = false;
      }
    })();
  });

  draw();
  root.replaceChildren(form);
  document.title = "Card table";
}
