// The table: one game seen from one seat (or by a spectator), drawn from the API's views alone.
// Every move goes to the server by its `legal_actions` notation (Act); WatchGame brings the other
// seats' moves; a refused move shows why (its reason code), and the game stays as it was.
import {
  ActionKind,
  Code,
  ConnectError,
  type GameServiceClient,
  type GameView,
  type GetScoreResponse,
  type HandScore,
  type LegalAction,
  Phase,
  PlayerKind,
  type SeatView,
  errorReason,
  newRequestId,
  watchViews,
} from "@cardgame/client/web";

import { type Place, client, loadInvites } from "./api.js";
import { SUIT_SYMBOLS, cardBack, cardFace, cardName, suitLetter } from "./cards.js";
import { type Child, h } from "./dom.js";
import { actionLabel, callText, exchangeVerb, gameName, phaseName, refusal } from "./text.js";

const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 10_000;

type Position = "bottom" | "left" | "top" | "right";

const BOTS: ReadonlySet<PlayerKind> = new Set([PlayerKind.BOT_RANDOM, PlayerKind.BOT_BASIC, PlayerKind.BOT_STRONG]);

/** Hands finished in a view: during a hand, all before it; between hands and at the end, all. */
function handsFinished(view: GameView): number {
  return view.phase === Phase.DEAL || view.phase === Phase.GAME_OVER ? view.handNumber : Math.max(0, view.handNumber - 1);
}

function signed(n: number): string {
  return n > 0 ? `+${n}` : String(n);
}

/** Why a call failed, in words. */
function describe(err: unknown): string {
  if (!(err instanceof ConnectError)) return `Something went wrong: ${String(err)}`;
  switch (err.code) {
    case Code.FailedPrecondition:
    case Code.InvalidArgument:
      return refusal(errorReason(err), err.rawMessage);
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
    this.handsSeen = handsFinished(view);
    this.dialog = h("dialog", { class: "scores", "aria-labelledby": "scores-title" });
    this.render();
    if (view.phase === Phase.GAME_OVER) void this.showScores();
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
    while (!this.stop.signal.aborted && this.view.phase !== Phase.GAME_OVER) {
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
    const exchange = view.legalActions.find((a) => a.kind === ActionKind.EXCHANGE);
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
      this.message = describe(err);
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
    return (n === 2 ? (["bottom", "top"] as const) : (["bottom", "left", "top", "right"] as const))[offset] ?? "top";
  }

  private name(seat: number | undefined): string {
    if (seat === undefined) return "";
    return seat === this.me ? "You" : this.view.seats[seat]?.name ?? `Seat ${seat}`;
  }

  private render(): void {
    const v = this.view;
    document.title = `${gameName(v)} · ${phaseName(v.phase)}`;
    const main = h("main", {
      id: "table", class: `table seats-${v.seats.length}${this.busy ? " busy" : ""}`,
      "data-version": String(v.version), "data-phase": Phase[v.phase], "data-turn": v.turn ?? "",
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
      h("h1", {}, gameName(v)),
      h("nav", {},
        h("button", { type: "button", class: "show-scores", onclick: () => void this.showScores() }, "Scores"),
        h("a", { href: "#", class: "new-game" }, "New game")),
      h("p", { class: "meta" }, `${v.handNumber > 0 ? `Hand ${v.handNumber}` : "Before the first hand"} · ${phaseName(v.phase)}`,
        this.me === undefined ? " · watching" : ""));
  }

  private seatChip(seat: SeatView): HTMLElement {
    const v = this.view;
    const turn = v.turn === seat.seat && v.phase !== Phase.GAME_OVER;
    const badges: Child[] = [];
    if (BOTS.has(seat.kind)) {
      badges.push(h("span", { class: "badge bot", title: seat.kind === PlayerKind.BOT_STRONG ? "Strong bot" : "Bot" }, "bot"));
    }
    if (v.dealer === seat.seat && v.phase !== Phase.GAME_OVER) {
      badges.push(h("span", { class: "badge dealer", title: "Dealer" }, v.variantName === "spades2" ? "first" : "dealer"));
    }
    if (seat.rules.case === "spades") {
      if (seat.rules.value.doubleNil) badges.push(h("span", { class: "badge alert" }, "Double Nil"));
      if (v.phase === Phase.EXCHANGE && seat.rules.value.exchangeDone) badges.push(h("span", { class: "badge" }, "exchanged"));
    }
    if (seat.rules.case === "buckEuchre" && seat.rules.value.droppedOut) badges.push(h("span", { class: "badge" }, "out"));
    if (v.rules.case === "buckEuchre" && v.rules.value.maker === seat.seat) badges.push(h("span", { class: "badge alert" }, "maker"));
    return h("section", {
      class: `seat pos-${this.position(seat.seat)}${turn ? " turn" : ""}${seat.seat === this.me ? " mine" : ""}`,
      "data-seat": seat.seat, "data-turn": turn, "aria-label": `${seat.name}${turn ? ", to play" : ""}`,
    },
    h("div", { class: "name" }, h("span", { "data-field": "name" }, seat.seat === this.me ? `${seat.name} (you)` : seat.name), ...badges),
    h("div", { class: "facts" },
      h("span", { "data-field": "call", "data-value": seat.lastCall }, callText(seat.lastCall)),
      h("span", { "data-field": "tricks", "data-value": seat.tricksWon }, `${seat.tricksWon} won`),
      h("span", { "data-field": "cards", "data-value": seat.cardCount }, `${seat.cardCount} cards`)));
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

  /** The game's own facts: trump and turn-up, spades broken, the draw, the exchange. */
  private info(): HTMLElement {
    const v = this.view;
    const facts: Child[] = [];
    if (v.rules.case === "buckEuchre") {
      const { turnUp, turnUpTurnedDown, trump, noTrump, maker, dealerDiscard } = v.rules.value;
      if (turnUp) {
        facts.push(h("div", { class: `turn-up${turnUpTurnedDown ? " turned-down" : ""}`, "data-role": "turn-up", "data-card": turnUp },
          h("span", { class: "label" }, turnUpTurnedDown ? "Turned down" : "Turn-up"), cardFace(turnUp)));
      }
      if (dealerDiscard) facts.push(this.cardList("Your discard", [dealerDiscard], "dealer-discard")); // the dealer's view alone
      const letter = suitLetter(trump);
      if (letter) {
        facts.push(h("div", { class: "trump", "data-role": "trump", "data-suit": letter },
          `Trump ${SUIT_SYMBOLS[letter]}`, maker !== undefined ? ` · made by ${this.name(maker)}` : ""));
      } else if (noTrump) {
        facts.push(h("div", { class: "trump", "data-role": "trump", "data-suit": "none" }, "No trump"));
      }
    }
    if (v.rules.case === "spades" || v.rules.case === "spadesTwoPlayer") {
      const { spadesBroken, exchangeGiven, exchangeReceived } = v.rules.value;
      if (v.phase === Phase.PLAY) {
        facts.push(h("div", { class: "broken", "data-role": "spades-broken", "data-value": spadesBroken },
          spadesBroken ? "Spades broken ♠" : "Spades not broken"));
      }
      const given = v.variantName === "spades2" ? "Put aside" : "Given";
      const received = v.variantName === "spades2" ? "Drawn" : "Received";
      if (exchangeGiven.length > 0) facts.push(this.cardList(given, exchangeGiven, "exchange-given"));
      if (exchangeReceived.length > 0) facts.push(this.cardList(received, exchangeReceived, "exchange-received"));
    }
    if (v.rules.case === "spadesTwoPlayer") {
      const { offeredCard, stockCount, seenDiscards } = v.rules.value;
      if (v.phase === Phase.DRAW) {
        facts.push(h("div", { class: "stock", "data-role": "stock", "data-value": stockCount }, `${stockCount} cards in the stock`));
        if (offeredCard) {
          facts.push(h("div", { class: "offered", "data-role": "offered", "data-card": offeredCard },
            h("span", { class: "label" }, "Offered to you"), cardFace(offeredCard)));
        }
      }
      if (seenDiscards.length > 0) facts.push(this.cardList("Your discards", seenDiscards, "seen-discards"));
    }
    return h("div", { class: "info" }, ...facts);
  }

  private cardList(label: string, cards: readonly string[], role: string): HTMLElement {
    return h("div", { class: "card-list", "data-role": role, "data-cards": cards.join(" ") },
      h("span", { class: "label" }, label), ...cards.map((c) => cardFace(c, "small")));
  }

  private status(): HTMLElement {
    const v = this.view;
    let text: string;
    if (v.phase === Phase.GAME_OVER) {
      text = v.winnerSeats.length === 0 ? "Game over: a draw." : `Game over: ${this.wins(v.winnerSeats)}!`;
    } else if (this.busy) {
      text = "…";
    } else if (v.turn !== undefined && v.turn === this.me && v.legalActions.length > 0) {
      text = this.yourTurn();
    } else if (v.turn !== undefined) {
      text = `Waiting for ${this.name(v.turn)}.`;
    } else if (v.legalActions.some((a) => a.kind === ActionKind.EXCHANGE)) {
      text = this.yourTurn();
    } else {
      text = "Waiting for the others.";
    }
    return h("p", { id: "status", class: "status", "aria-live": "polite" }, this.connection || text);
  }

  private yourTurn(): string {
    const v = this.view;
    const exchange = v.legalActions.find((a) => a.kind === ActionKind.EXCHANGE);
    switch (v.phase) {
      case Phase.DEAL:
        return v.variantName === "spades2" ? "Your turn to start the draw." : "Your deal.";
      case Phase.DRAW:
        return "Keep the offered card, or discard it and take the next one.";
      case Phase.BID:
        return v.handVisible ? "Your bid." : "Your bid: Double Nil or a blind bid, or look at your cards first.";
      case Phase.EXCHANGE:
      case Phase.DEALER_DISCARD: {
        if (!exchange) return "Waiting for the others.";
        const count = exchange.minCards === exchange.maxCards ? `${exchange.minCards}` : `${exchange.minCards} to ${exchange.maxCards}`;
        const verb = v.phase === Phase.DEALER_DISCARD ? "discard" : v.variantName === "spades2" ? "put aside" : "give to your partner";
        return `Choose ${count} card${exchange.maxCards === 1 ? "" : "s"} to ${verb}.`;
      }
      case Phase.ORDER_UP:
        return "Order up the turn-up, or pass.";
      case Phase.NAME_TRUMP:
        return "Name trump, or pass.";
      case Phase.DROP_OUT:
        return "Stay in, or drop out of this hand.";
      case Phase.PLAY:
        return (v.currentTrick?.plays.length ?? 0) === 0 ? "Your lead." : "Your turn: play a card.";
      default:
        return "Your turn.";
    }
  }

  private actions(): HTMLElement {
    const v = this.view;
    const buttons = v.legalActions
      .filter((a) => a.kind !== ActionKind.PLAY && a.kind !== ActionKind.EXCHANGE)
      .sort((a, b) => a.kind - b.kind || a.tricks - b.tricks)
      .map((a) => h("button", {
        type: "button", class: `action kind-${ActionKind[a.kind].toLowerCase()}`, "data-notation": a.notation,
        disabled: this.busy, onclick: () => void this.act(a.notation),
      }, actionLabel(a, v)));
    const exchange = v.legalActions.find((a) => a.kind === ActionKind.EXCHANGE);
    if (exchange) {
      const n = this.selected.size;
      const ok = n >= exchange.minCards && n <= exchange.maxCards;
      const cards = [...this.selected].sort((a, b) => v.hand.indexOf(a) - v.hand.indexOf(b));
      buttons.push(h("button", {
        type: "button", class: "action primary", "data-notation": "exchange", disabled: this.busy || !ok,
        onclick: () => void this.act(["exchange", ...cards].join(" ")),
      }, `${exchangeVerb(v)}${n > 0 ? `: ${cards.map((c) => cardName(c)).join(", ")}` : ""}`));
    }
    const bidding = v.legalActions.some((a) => a.kind === ActionKind.BID);
    return h("section", { class: `actions${bidding ? " bids" : ""}`, "aria-label": "Your choices" }, ...buttons);
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
    const playable = new Set(v.legalActions.filter((a) => a.kind === ActionKind.PLAY).map((a) => a.card));
    const exchange = v.legalActions.find((a) => a.kind === ActionKind.EXCHANGE);
    const myTurnToPlay = v.phase === Phase.PLAY && v.turn === me;
    return h("section", { class: "hand", "data-visible": true, "aria-label": "Your cards" },
      ...v.hand.map((card) => {
        const choosable = exchange?.cards.includes(card) ?? false;
        const selected = this.selected.has(card);
        const face = cardFace(card);
        const button = h("button", {
          type: "button",
          class: `card-button${playable.has(card) ? " playable" : ""}${selected ? " selected" : ""}${choosable ? " choosable" : ""}`,
          "data-card": card, "data-playable": playable.has(card), "aria-pressed": exchange ? selected : undefined,
          "aria-label": cardName(card), disabled: this.busy || !(myTurnToPlay || choosable),
          onclick: () => {
            if (exchange && choosable) {
              if (selected) this.selected.delete(card);
              else if (this.selected.size < exchange.maxCards) this.selected.add(card);
              this.render();
            } else if (myTurnToPlay) {
              void this.act(`play ${card}`);
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
    const spades = v.rules.case === "spades" || v.rules.case === "spadesTwoPlayer";
    return h("section", { class: "totals", "aria-label": "Scores" },
      ...v.scores.map((side) => h("div", {
        class: `side${side.seats.includes(this.me ?? -1) ? " mine" : ""}`, "data-side": side.side, "data-score": side.score,
      }, h("span", { class: "who" }, this.sideName(side.seats)), h("strong", {}, String(side.score)),
      spades ? h("span", { class: "bags" }, `${side.bags} bag${side.bags === 1 ? "" : "s"}`) : null)));
  }

  private invites(): Child {
    if (this.me !== 0) return null; // the lobby seats a game's creator at seat 0
    const links = loadInvites(this.place.gameId);
    if (links.length === 0 || this.view.phase === Phase.GAME_OVER) return null;
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
      this.message = describe(err);
      this.render();
      return;
    }
    this.dialog.replaceChildren(...this.scoreTable(this.score));
    if (!this.dialog.open) this.dialog.showModal();
  }

  private scoreTable(score: GetScoreResponse): HTMLElement[] {
    const v = this.view;
    const over = v.phase === Phase.GAME_OVER;
    const last = score.hands.at(-1);
    const title = over
      ? `Game over: ${score.winnerSeats.length > 0 ? this.wins(score.winnerSeats) : "a draw"}`
      : last ? `After hand ${last.handNumber}` : "Scores";
    const head = h("tr", {}, h("th", { scope: "col" }, "Hand"),
      ...score.totals.map((t) => h("th", { scope: "col" }, this.sideName(t.seats))));
    const rows = score.hands.map((hand) => h("tr", { "data-hand": hand.handNumber, class: hand === last ? "latest" : undefined },
      h("th", { scope: "row" }, String(hand.handNumber), this.handNote(hand)),
      ...hand.sides.map((side) => h("td", { "data-side": side.side, "data-points": side.handPoints, "data-total": side.totalAfter },
        h("strong", {}, `${signed(side.handPoints)} → ${side.totalAfter}`), h("small", {}, this.sideDetail(hand, side.side))))));
    const foot = h("tr", { class: "total" }, h("th", { scope: "row" }, "Total"),
      ...score.totals.map((t) => h("td", { "data-side": t.side, "data-total": t.score }, h("strong", {}, String(t.score)),
        v.rules.case === "buckEuchre" ? null : h("small", {}, `${t.bags} bags`))));
    return [
      h("h2", { id: "scores-title" }, title),
      h("div", { class: "table-scroll" },
        h("table", { class: "score-table" }, h("thead", {}, head), h("tbody", {}, ...rows), h("tfoot", {}, foot))),
      h("form", { method: "dialog", class: "dialog-buttons" },
        over ? h("a", { href: "#", class: "button", onclick: () => this.dialog.close() }, "New game") : null,
        h("button", { class: "primary", value: "close", autofocus: true }, over ? "Close" : "Continue")),
    ];
  }

  private handNote(hand: HandScore): Child {
    if (this.view.rules.case !== "buckEuchre") return null;
    const letter = suitLetter(hand.trump);
    const trump = letter ? `${SUIT_SYMBOLS[letter]}` : hand.noTrump ? "no trump" : "";
    const swept = hand.sweptBy !== undefined ? `, swept by ${this.name(hand.sweptBy)}` : "";
    return h("small", {}, `${trump}${hand.maker !== undefined ? ` by ${this.name(hand.maker)}` : ""}${swept}`);
  }

  private sideDetail(hand: HandScore, side: number): string {
    const parts: string[] = [];
    if (this.view.rules.case === "buckEuchre") {
      const seat = hand.seats[side];
      if (!seat) return "";
      if (seat.droppedOut) return "dropped out";
      parts.push(`${seat.tricksWon} trick${seat.tricksWon === 1 ? "" : "s"}`);
      if (seat.isMaker) parts.push("maker");
      if (seat.penalty) parts.push(`penalty +${seat.penalty}`);
      return parts.join(" · ");
    }
    const result = hand.sides[side];
    if (!result) return "";
    parts.push(`bid ${result.contract}, took ${result.tricks}`);
    if (result.bagsGained) parts.push(`${signed(result.bagsGained)} bags`);
    for (const seat of hand.seats.filter((s) => result.seats.includes(s.seat) && s.nilPoints !== 0)) {
      parts.push(`${this.name(seat.seat)} ${seat.doubleNil ? "Double Nil" : "Nil"} ${signed(seat.nilPoints)}`);
    }
    if (result.bagPenalty) parts.push(`bag penalty ${result.bagPenalty}`);
    return parts.join(" · ");
  }
}
