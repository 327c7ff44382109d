// The lobby: choose a game, who sits where (bots or friends) and a rule option, then create it.
import { ConnectError, PlayerKind, Variant, errorReason } from "@cardgame/client/web";

import { client, linkTo, saveInvites } from "./api.js";
import { h } from "./dom.js";
import { refusal } from "./text.js";

interface GameChoice {
  variant: Variant;
  name: string;
  seats: string[]; // default names of the other seats, clockwise from the player's left
  blurb: string;
}

export const GAMES: Record<string, GameChoice> = {
  buck_euchre: { variant: Variant.BUCK_EUCHRE, name: "Buck Euchre", seats: ["West", "North", "East"],
    blurb: "Four players, each for themselves, 24 cards; first to count down to 0 wins." },
  spades: { variant: Variant.SPADES, name: "Spades", seats: ["West", "North", "East"],
    blurb: "Four players in two partnerships (you and North); bid, make your tricks, mind the bags." },
  spades2: { variant: Variant.SPADES_TWO_PLAYER, name: "Spades for two", seats: ["Opponent"],
    blurb: "Two players build their hands by the draw, then bid and play." },
};

const KINDS: [string, PlayerKind, string][] = [
  ["basic", PlayerKind.BOT_BASIC, "Bot"],
  ["strong", PlayerKind.BOT_STRONG, "Strong bot"],
  ["random", PlayerKind.BOT_RANDOM, "Bot (plays at random)"],
  ["friend", PlayerKind.HUMAN, "A friend"],
];

const MAX_NAME = 64;

/** Draws the lobby into `root`; creating a game moves this page to the new seat's link. */
export function showLobby(root: HTMLElement): void {
  const gameSelect = h("select", { id: "game", name: "game" },
    ...Object.entries(GAMES).map(([key, game]) => h("option", { value: key }, game.name)));
  const blurb = h("p", { class: "blurb" });
  const myName = h("input", { id: "my-name", name: "my-name", value: "You", maxlength: MAX_NAME, required: true,
    autocomplete: "nickname" });
  const seatRows = h("div", { class: "seat-rows" });
  const option = h("input", { id: "option", name: "option", type: "number", inputmode: "numeric" });
  const optionLabel = h("label", { for: "option" });
  const message = h("p", { class: "message", role: "alert", hidden: true });
  const create = h("button", { type: "submit", class: "primary", id: "create" }, "Create the game");

  const draw = () => {
    const game = GAMES[gameSelect.value]!;
    blurb.textContent = game.blurb;
    seatRows.replaceChildren(...game.seats.map((name, i) => h("div", { class: "seat-row" },
      h("input", { name: `seat-${i + 1}-name`, value: name, maxlength: MAX_NAME, "aria-label": `Seat ${i + 1} name` }),
      h("select", { name: `seat-${i + 1}-kind`, "aria-label": `Who plays ${name}` },
        ...KINDS.map(([value, , label]) => h("option", { value }, label))))));
    if (game.variant === Variant.BUCK_EUCHRE) {
      optionLabel.textContent = "Starting score (1–100)";
      Object.assign(option, { min: "1", max: "100", value: "25" });
    } else {
      optionLabel.textContent = "Target score (100–5000)";
      Object.assign(option, { min: "100", max: "5000", step: "50", value: "500" });
    }
  };
  gameSelect.addEventListener("change", draw);

  const form = h("form", { class: "lobby", novalidate: true },
    h("h1", {}, "Card table"),
    h("p", {}, "Play against the server's bots, or seat friends: each gets a link to their seat."),
    h("label", { for: "game" }, "Game"), gameSelect, blurb,
    h("label", { for: "my-name" }, "Your name"), myName,
    h("fieldset", {}, h("legend", {}, "The other seats, clockwise from your left"), seatRows),
    optionLabel, option, message, create);

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void (async () => {
      const key = gameSelect.value;
      const game = GAMES[key]!;
      const data = new FormData(form);
      const seats = [{ name: myName.value.trim() || "You", kind: PlayerKind.HUMAN }, ...game.seats.map((name, i) => {
        const kind = KINDS.find(([value]) => value === data.get(`seat-${i + 1}-kind`))?.[1] ?? PlayerKind.BOT_BASIC;
        return { name: String(data.get(`seat-${i + 1}-name`) ?? "").trim() || name, kind };
      })];
      const value = Number(option.value);
      const options = game.variant === Variant.BUCK_EUCHRE
        ? { variant: { case: "buckEuchre" as const, value: { startingScore: value } } }
        : { variant: { case: "spades" as const, value: { targetScore: value } } };
      create.disabled = true;
      message.hidden = true;
      try {
        const created = await client().createGame({ variant: game.variant, seats, options });
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
