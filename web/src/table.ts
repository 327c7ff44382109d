// The table: one game seen from one seat (or by a spectator), drawn from the API's views alone.
// Every move goes to the server by its `legal_actions` notation (Act); WatchGame brings the other
// seats' moves; a refused move shows why (its reason code), and the game stays as it was. It knows
// no game's phases or actions: it shows the phase's title, offers each legal action by its shape
// (a card of the hand to play, cards to choose, or a button labelled by the action's title and
// its number or suit), and leaves a game's own facts to its renderer (games/).
import {
  ActionShape,
  Code,
  ConnectError,
  type GameServiceClient,
  type GameView,
  type GetScoreResponse,
  type LegalAction,
  PlayerKind,
  type SeatView,
  errorReason,
  newRequestId,
  watchViews,
} from "@cardgame/client/web";

import { type Place, client, loadInvites } from "./api.js";
import { cardBack, cardFace, cardName } from "./cards.js";
import { type Child, h } from "./dom.js";
import { type GameRenderer, rendererFor } from "./games/index.js";
import { otherName, ownLabel } from "./names.js";
import { phaseText, plural, refusal, signed } from "./text.js";
import {
  actionLabel,
  actionTitle,
  buttonActions,
  cardActions,
  cardsAction,
  choosingNumber,
  either,
  handsFinished,
  isOver,
} from "./words.js";

const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 10_000;

type Position = "bottom" | "left" | "top" | "right";

const BOTS: ReadonlySet<PlayerKind> = new Set([PlayerKind.BOT_RANDOM, PlayerKind.BOT_BASIC, PlayerKind.BOT_STRONG]);

/** Why a call failed, in words (`reasons`: the game's own refusal sentences). */
function describe(err: unknown, reasons: Readonly<Record<string, string>>): string {
  if (!(err instanceof ConnectError)) return `Something went wrong: ${String(err)}`;
  switch (err.code) {
    case Code.FailedPrecondition:
    case Code.InvalidArgument:
      return refusal(errorReason(err), err.rawMessage, reasons);
    case Code.Unauthenticated:
      return "This seat link is not valid for this game.";
    case Code.PermissionDenied:
      return "Spectators cannot make moves.";
    case Code.NotFound:
      return "This game no longer exists.";
    case Code.Aborted:
      return "The game moved on meanwhile; here is where it stands now.";
    case Code.Unavailable:
    case Code.ResourceExhausted:
      return "The server is busy or unreachable; try again in a moment.";
    default:
      return err.rawMessage;
  }
}

export class Table {
  private view: GameView;
  private readonly game: GameRenderer;
  private readonly client: GameServiceClient;
  private readonly selected = new Set<string>();
  private busy = false;
  private message = "";
  private connection = "";
  private handsSeen: number;
  private score: GetScoreResponse | undefined;
  private readonly stop = new AbortController();
  private readonly dialog: HTMLDialogElement;

  /** Loads the game at `place` and draws it into `root`, following it until `close()`. */
  static async open(root: HTMLElement, place: Place): Promise<Table> {
    const seatClient = client(place.token);
    const { view } = await seatClient.getGame({ gameId: place.gameId });
    if (view === undefined) throw new Error("the server sent no view");
    const table = new Table(root, place, seatClient, view);
    void table.follow();
    return table;
  }

  private constructor(
    private readonly root: HTMLElement,
    private readonly place: Place,
    seatClient: GameServiceClient,
    view: GameView,
  ) {
    this.client = seatClient;
    this.view = view;
    this.game = rendererFor(view.variantName);
    this.handsSeen = handsFinished(view);
    this.dialog = h("dialog", { class: "scores", "aria-labelledby": "scores-title" });
    this.render();
    if (isOver(view)) void this.showScores();
  }

  /** Stops following the game (the page moves elsewhere). */
  close(): void {
    this.stop.abort();
    this.dialog.close();
  }

  // ---- the server ----

  /** Follows the game over WatchGame until it ends, reconnecting with a growing pause. */
  private async follow(): Promise<void> {
    let pause = RECONNECT_MIN_MS;
    while (!this.stop.signal.aborted && !isOver(this.view)) {
      try {
        for await (const view of watchViews(this.client, this.place.gameId,
          { fromVersion: this.view.version, signal: this.stop.signal })) {
          if (this.connection) {
            this.connection = "";
            this.render();
          }
          pause = RECONNECT_MIN_MS;
          this.apply(view);
        }
      } catch (err) {
        if (this.stop.signal.aborted) return;
        if (err instanceof ConnectError && err.code === Code.NotFound) {
          this.connection = "This game no longer exists.";
          this.render();
          return;
        }
        this.connection = "Connection lost; reconnecting…";
        this.render();
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, RECONNECT_MAX_MS);
    }
  }

  /** Shows a newer view (older ones, from a stream or a slow answer, are ignored). */
  private apply(view: GameView): void {
    if (view.version <= this.view.version) return;
    this.view = view;
    const exchange = cardsAction(view);
    for (const card of this.selected) if (!exchange?.cards.includes(card)) this.selected.delete(card);
    this.render();
    const finished = handsFinished(view);
    if (finished > this.handsSeen) {
      this.handsSeen = finished;
      void this.showScores();
    }
  }

  /** Sends one move by its notation; a refusal is shown and the view fetched afresh. */
  private async act(notation: string): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.message = "";
    this.render();
    try {
      const { view } = await this.client.act({ gameId: this.place.gameId, requestId: newRequestId(), action: notation });
      if (view !== undefined) this.apply(view);
    } catch (err) {
      this.message = describe(err, this.game.reasons);
      try {
        const { view } = await this.client.getGame({ gameId: this.place.gameId });
        if (view !== undefined) this.apply(view);
      } catch {
        // the message above already says what went wrong
      }
    } finally {
      this.busy = false;
      this.render();
    }
  }

  // ---- drawing ----

  private get me(): number | undefined {
    return this.view.viewerSeat;
  }

  private position(seat: number): Position {
    const n = this.view.seats.length;
    const offset = (seat - (this.me ?? 0) + n) % n;
    const around = n === 2 ? (["bottom", "top"] as const)
      : n === 3 ? (["bottom", "left", "right"] as const) : (["bottom", "left", "top", "right"] as const);
    return around[offset] ?? "top";
  }

  /** A seat's name in the table's sentences: "You" for the viewer, never for anyone else. */
  private readonly name = (seat: number): string =>
    seat === this.me ? "You" : otherName(seat, this.view.seats[seat]?.name);

  private get phase(): string {
    return phaseText(this.view);
  }

  /** The game's name: as the view gives it, else as its renderer does. */
  private get title(): string {
    return this.view.variantTitle || this.game.title;
  }

  /** A button's label for a legal action: the game's own wording, else its title with its number or suit. */
  private label(action: LegalAction): string {
    return this.game.actionLabel?.(action) ?? actionLabel(action);
  }

  private render(): void {
    const v = this.view;
    document.title = `${this.title} · ${this.phase}`;
    const main = h("main", {
      id: "table", class: `table seats-${v.seats.length}${this.busy ? " busy" : ""}`,
      "data-version": String(v.version), "data-phase": v.phaseName, "data-turn": v.turn ?? "",
      "data-trick": v.currentTrick !== undefined,
      "data-hand-number": v.handNumber, "data-viewer": this.me ?? "", "data-busy": String(this.busy),
    },
    this.header(),
    h("div", { class: "board" }, ...v.seats.map((seat) => this.seatChip(seat)), this.center()),
    this.status(),
    h("p", { id: "message", class: "message", role: "alert", hidden: !this.message }, this.message),
    this.actions(),
    this.hand(),
    this.totals(),
    this.invites());
    this.root.replaceChildren(main, this.dialog);
  }

  private header(): HTMLElement {
    const v = this.view;
    return h("header", { class: "bar" },
      h("h1", {}, this.title),
      h("nav", {},
        h("button", { type: "button", class: "show-scores", onclick: () => void this.showScores() }, "Scores"),
        h("a", { href: "#", class: "new-game" }, "New game")),
      h("p", { class: "meta" }, `${v.handNumber > 0 ? `Hand ${v.handNumber}` : "Before the first hand"} · `,
        h("span", { class: "phase", "data-phase": v.phaseName }, this.phase),
        this.me === undefined ? " · watching" : ""));
  }

  private seatChip(seat: SeatView): HTMLElement {
    const v = this.view;
    const turn = v.turn === seat.seat && !isOver(v);
    const badges: Child[] = [];
    if (BOTS.has(seat.kind)) {
      badges.push(h("span", { class: "badge bot", title: seat.kind === PlayerKind.BOT_STRONG ? "Strong bot" : "Bot" }, "bot"));
    }
    if (v.dealer === seat.seat && !isOver(v)) {
      badges.push(h("span", { class: "badge dealer", title: this.game.dealer.title }, this.game.dealer.badge));
    }
    badges.push(...this.game.seatBadges(seat, v));
    const mine = seat.seat === this.me;
    const label = mine ? ownLabel(seat.name) : otherName(seat.seat, seat.name);
    return h("section", {
      class: `seat pos-${this.position(seat.seat)}${turn ? " turn" : ""}${mine ? " mine" : ""}`,
      "data-seat": seat.seat, "data-turn": turn, "aria-label": `${label}${turn ? ", to play" : ""}`,
    },
    h("div", { class: "name" }, h("span", { "data-field": "name" }, label), ...badges),
    h("div", { class: "facts" },
      h("span", { "data-field": "call", "data-value": seat.lastCall }, seat.lastCall && this.game.callText(seat.lastCall)),
      h("span", { "data-field": "tricks", "data-value": seat.tricksWon }, `${seat.tricksWon} won`),
      h("span", { "data-field": "cards", "data-value": seat.cardCount }, plural(seat.cardCount, "card"))));
  }

  private center(): HTMLElement {
    const v = this.view;
    const plays = v.currentTrick?.plays ?? [];
    const last = v.lastTrick;
    const showLast = plays.length === 0 && last !== undefined && last.plays.length > 0;
    const shown = showLast ? last.plays : plays;
    const trick = h("div", { class: `trick${showLast ? " last" : ""}`, "data-role": showLast ? "last-trick" : "current-trick" },
      ...shown.map((p) => cardFace(p.card, `pos-${this.position(p.seat)}`, { "data-seat": String(p.seat) })));
    const caption = showLast && last.winner !== undefined
      ? h("p", { class: "caption" }, `Last trick: ${this.wins([last.winner])}`) : null;
    return h("div", { class: "center" }, trick, caption, this.info());
  }

  /** The game's own facts in the middle of the table, as its renderer draws them. */
  private info(): HTMLElement {
    return h("div", { class: "info" }, ...this.game.facts(this.view, this.name));
  }

  private status(): HTMLElement {
    const v = this.view;
    let text: string;
    if (isOver(v)) {
      text = v.winnerSeats.length === 0 ? "Game over: a draw." : `Game over: ${this.wins(v.winnerSeats)}!`;
    } else if (this.busy) {
      text = "…";
    } else if (v.turn !== undefined && v.turn === this.me && v.legalActions.length > 0) {
      text = this.yourTurn();
    } else if (v.turn !== undefined) {
      text = `Waiting for ${this.name(v.turn)}.`;
    } else if (cardsAction(v)) {
      text = this.yourTurn();
    } else {
      text = "Waiting for the others.";
    }
    return h("p", { id: "status", class: "status", "aria-live": "polite" }, this.connection || text);
  }

  /**
   * What the viewer is asked to do: choose the cards of a CARDS action, the game's own prompt,
   * else from the actions' shapes: a card to play (or lead), or one of the buttons by title.
   */
  private yourTurn(): string {
    const v = this.view;
    const exchange = cardsAction(v);
    if (exchange) {
      const count = exchange.minCards === exchange.maxCards ? `${exchange.minCards}` : `${exchange.minCards} to ${exchange.maxCards}`;
      const verb = this.game.exchange?.prompt ?? actionTitle(exchange).toLowerCase();
      return `Choose ${count} card${exchange.maxCards === 1 ? "" : "s"} to ${verb}.`;
    }
    const prompt = this.game.prompt(v);
    if (prompt !== undefined) return prompt;
    if (cardActions(v).length > 0) {
      return (v.currentTrick?.plays.length ?? 0) === 0 ? "Your lead." : "Your turn: play a card.";
    }
    const titles = [...new Set(buttonActions(v).map((a) => actionTitle(a)))];
    return titles.length > 0 ? `Your turn: ${either(titles)}.` : "Your turn.";
  }

  private actions(): HTMLElement {
    const v = this.view;
    const buttons = buttonActions(v).map((a) => h("button", {
      type: "button", class: `action word-${a.word} shape-${ActionShape[a.shape].toLowerCase()}`,
      "data-word": a.word, "data-notation": a.notation, "aria-label": actionLabel(a, true),
      disabled: this.busy, onclick: () => void this.act(a.notation),
    }, this.label(a)));
    const exchange = cardsAction(v);
    if (exchange) {
      const n = this.selected.size;
      const ok = n >= exchange.minCards && n <= exchange.maxCards;
      const cards = [...this.selected].sort((a, b) => v.hand.indexOf(a) - v.hand.indexOf(b));
      const button = this.game.exchange?.button ?? actionTitle(exchange);
      buttons.push(h("button", {
        type: "button", class: `action primary word-${exchange.word} shape-cards`, "data-word": exchange.word,
        "data-notation": exchange.notation, disabled: this.busy || !ok,
        onclick: () => void this.act([exchange.notation, ...cards].join(" ")),
      }, `${button}${n > 0 ? `: ${cards.map((c) => cardName(c)).join(", ")}` : ""}`));
    }
    return h("section", { class: `actions${choosingNumber(v) ? " bids" : ""}`, "aria-label": "Your choices" }, ...buttons);
  }

  private hand(): HTMLElement {
    const v = this.view;
    const me = this.me;
    if (me === undefined) return h("section", { class: "hand spectator" }, h("p", {}, "You are watching this game."));
    if (!v.handVisible) {
      const count = v.seats[me]?.cardCount ?? 0;
      return h("section", { class: "hand hidden-hand", "data-visible": false, "aria-label": "Your cards, face down" },
        ...Array.from({ length: count }, () => cardBack()));
    }
    // A card of the hand is played by its CARD action's notation; a card none allows is still
    // offered in the same word while such actions are, so the server says why it is refused.
    const plays = cardActions(v);
    const playable = new Map(plays.map((a) => [a.card, a.notation]));
    const word = plays[0]?.word;
    const exchange = cardsAction(v);
    return h("section", { class: `hand${word ? " playing" : ""}`, "data-visible": true, "aria-label": "Your cards" },
      ...v.hand.map((card) => {
        const choosable = exchange?.cards.includes(card) ?? false;
        const selected = this.selected.has(card);
        const face = cardFace(card);
        const button = h("button", {
          type: "button",
          class: `card-button${playable.has(card) ? " playable" : ""}${selected ? " selected" : ""}${choosable ? " choosable" : ""}`,
          "data-card": card, "data-playable": playable.has(card), "aria-pressed": exchange ? selected : undefined,
          "aria-label": cardName(card), disabled: this.busy || !(word !== undefined || choosable),
          onclick: () => {
            if (exchange && choosable) {
              if (selected) this.selected.delete(card);
              else if (this.selected.size < exchange.maxCards) this.selected.add(card);
              this.render();
            } else if (word !== undefined) {
              void this.act(playable.get(card) ?? `${word} ${card}`);
            }
          },
        }, face);
        return button;
      }));
  }

  private sideName(seats: readonly number[]): string {
    return seats.map((s) => this.name(s)).join(" & ");
  }

  /** "You win", "You & North win", "Bo wins". */
  private wins(seats: readonly number[]): string {
    return `${this.sideName(seats)} ${seats.length > 1 || seats.includes(this.me ?? -1) ? "win" : "wins"}`;
  }

  private totals(): HTMLElement {
    const v = this.view;
    return h("section", { class: "totals", "aria-label": "Scores" },
      ...v.scores.map((side) => {
        const note = this.game.totalNote(side);
        return h("div", {
          class: `side${side.seats.includes(this.me ?? -1) ? " mine" : ""}`, "data-side": side.side, "data-score": side.score,
        }, h("span", { class: "who" }, this.sideName(side.seats)), h("strong", {}, String(side.score)),
        note ? h("span", { class: "note" }, note) : null);
      }));
  }

  private invites(): Child {
    if (this.me !== 0) return null; // the lobby seats a game's creator at seat 0
    const links = loadInvites(this.place.gameId);
    if (links.length === 0 || isOver(this.view)) return null;
    return h("details", { class: "invites" }, h("summary", {}, "Seat links for your friends"),
      h("ul", {}, ...links.map((l) => h("li", {}, h("span", {}, `${l.name}: `),
        h("a", { href: l.link, "data-seat": l.seat, target: "_blank", rel: "noopener" }, "seat link"),
        h("button", { type: "button", class: "copy", onclick: () => void navigator.clipboard?.writeText(l.link) }, "Copy")))));
  }

  // ---- the score table ----

  private async showScores(): Promise<void> {
    try {
      this.score = await this.client.getScore({ gameId: this.place.gameId, pageSize: 500 });
    } catch (err) {
      this.message = describe(err, this.game.reasons);
      this.render();
      return;
    }
    this.dialog.replaceChildren(...this.scoreTable(this.score));
    if (!this.dialog.open) this.dialog.showModal();
  }

  private scoreTable(score: GetScoreResponse): HTMLElement[] {
    const v = this.view;
    const over = isOver(v);
    const last = score.hands.at(-1);
    const title = over
      ? `Game over: ${score.winnerSeats.length > 0 ? this.wins(score.winnerSeats) : "a draw"}`
      : last ? `After hand ${last.handNumber}` : "Scores";
    const head = h("tr", {}, h("th", { scope: "col" }, "Hand"),
      ...score.totals.map((t) => h("th", { scope: "col" }, this.sideName(t.seats))));
    const rows = score.hands.map((hand) => {
      const details = this.game.handDetails(hand, this.name);
      return h("tr", { "data-hand": hand.handNumber, class: hand === last ? "latest" : undefined },
        h("th", { scope: "row" }, String(hand.handNumber), details.note ? h("small", {}, details.note) : null),
        ...hand.sides.map((side, i) => h("td", { "data-side": side.side, "data-points": side.handPoints, "data-total": side.totalAfter },
          h("strong", {}, `${signed(side.handPoints)} → ${side.totalAfter}`), h("small", {}, details.sides[i] ?? ""))));
    });
    const foot = h("tr", { class: "total" }, h("th", { scope: "row" }, "Total"),
      ...score.totals.map((t) => {
        const note = this.game.totalNote(t);
        return h("td", { "data-side": t.side, "data-total": t.score }, h("strong", {}, String(t.score)),
          note ? h("small", {}, note) : null);
      }));
    return [
      h("h2", { id: "scores-title" }, title),
      h("div", { class: "table-scroll" },
        h("table", { class: "score-table" }, h("thead", {}, head), h("tbody", {}, ...rows), h("tfoot", {}, foot))),
      h("form", { method: "dialog", class: "dialog-buttons" },
        over ? h("a", { href: "#", class: "button", onclick: () => this.dialog.close() }, "New game") : null,
        h("button", { class: "primary", value: "close", autofocus: true }, over ? "Close" : "Continue")),
    ];
  }
}
