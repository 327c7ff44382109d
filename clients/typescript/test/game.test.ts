// Whole games against a live server (address in CARDGAME_SERVER, e.g. "http://127.0.0.1:50051"):
// one human seat (this test) and three BOT_BASIC seats play Buck Euchre and four-player Spades
// to the end through legal_actions alone, each move sent with Act, while WatchGame streams follow
// each game; every view carries its game's own part (the `rules` oneof), and the final scores are
// checked against GetScore. The same runs over the HTTP port (CARDGAME_HTTP_SERVER, e.g.
// "http://127.0.0.1:8080") with the Connect protocol (JSON and binary) and gRPC-Web. Run by
// tests/clients/test_typescript_client.py, or by hand:
//   make run   # in another shell
//   CARDGAME_SERVER=http://127.0.0.1:50051 CARDGAME_HTTP_SERVER=http://127.0.0.1:8080 npm test
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";

import { type MessageInitShape, create } from "@bufbuild/protobuf";

import {
  ActionShape,
  Code,
  ConnectError,
  type GameServiceClient,
  type GameView,
  type LegalAction,
  LegalActionSchema,
  Phase,
  PlayerKind,
  type Protocol,
  type RuleOptionsSchema,
  type SeatView,
  Suit,
  Variant,
  createClient,
  errorReason,
  requestFor,
  sendMove,
  watchViews,
} from "../src/index.js";

const SERVER = process.env.CARDGAME_SERVER ?? "";
const HTTP_SERVER = process.env.CARDGAME_HTTP_SERVER ?? "";

/** How a test reaches the server: the gRPC port, or the HTTP port in one of its protocols. */
interface Via {
  protocol: Protocol;
  binary?: boolean;
}
const GRPC: Via = { protocol: "grpc" };

/** A client over `via`, with a seat token or none (a spectator). */
function clientVia(via: Via, token?: string): GameServiceClient {
  const server = via.protocol === "grpc" ? SERVER : HTTP_SERVER;
  return createClient(server, { token, protocol: via.protocol, binary: via.binary });
}
const GAME_TIMEOUT_MS = 120_000;
const MAX_MOVES = 2_000;
/** Every FAILED_PRECONDITION reason the contract lists (game_service.proto). */
const REASONS = new Set([
  "WRONG_PHASE", "NOT_YOUR_TURN", "CARD_NOT_IN_HAND", "MUST_FOLLOW_SUIT", "SPADES_NOT_BROKEN", "INVALID_BID",
  "BLIND_NIL_AFTER_LOOKING", "INVALID_EXCHANGE", "SUIT_TURNED_DOWN", "MAKER_CANNOT_DROP", "CANNOT_DROP_ON_CLUBS",
]);

/** A small seeded PRNG (mulberry32), so the human's choices repeat run to run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(items: readonly T[], random: () => number): T {
  const item = items[Math.floor(random() * items.length)];
  assert.ok(item !== undefined, "pick from an empty list");
  return item;
}

/** A rough trick estimate for a Spades hand: aces, guarded kings, high and long spades. */
function estimateTricks(hand: readonly string[]): number {
  const suits = new Map<string, string[]>();
  for (const card of hand) suits.set(card.slice(-1), [...(suits.get(card.slice(-1)) ?? []), card.slice(0, -1)]);
  let tricks = 0;
  for (const [suit, ranks] of suits) {
    if (ranks.includes("A")) tricks += 1;
    if (ranks.includes("K") && ranks.length >= 2) tricks += suit === "S" ? 1 : 0.5;
    if (suit === "S") tricks += (ranks.includes("Q") && ranks.length >= 3 ? 1 : 0) + Math.max(0, ranks.length - 4);
  }
  return Math.round(tricks);
}

/**
 * The human's choice among the view's legal actions: in Spades look at the cards first (never
 * Double Nil) and bid an estimate (at least 1, so games end); otherwise a random legal action.
 */
function choose(view: GameView, random: () => number): LegalAction {
  const actions = view.legalActions;
  const reveal = actions.find((a) => a.word === "reveal");
  if (reveal && !view.handVisible) return reveal;
  const bids = actions.filter((a) => a.word === "bid" && a.shape === ActionShape.NUMBER && a.number >= 1);
  if (bids.length > 0) {
    const want = Math.max(1, estimateTricks(view.hand));
    return bids.reduce((best, a) => (Math.abs(a.number - want) < Math.abs(best.number - want) ? a : best));
  }
  const plain = actions.filter((a) => a.word !== "double-nil" && a.word !== "reveal");
  return pick(plain.length > 0 ? plain : actions, random);
}

/** Between minCards and maxCards of a CARDS-shaped action's cards, chosen at random. */
function exchangeCards(action: LegalAction, random: () => number): string[] {
  const pool = [...action.cards];
  const count = action.minCards + Math.floor(random() * (action.maxCards - action.minCards + 1));
  const chosen: string[] = [];
  while (chosen.length < count) chosen.push(...pool.splice(Math.floor(random() * pool.length), 1));
  return chosen;
}

/** Collects a WatchGame stream's views until GAME_OVER. */
class Watcher {
  readonly views: GameView[] = [];
  readonly done: Promise<GameView[]>;
  /** Resolves with the first view, once the stream is live. */
  readonly started: Promise<void>;

  constructor(client: GameServiceClient, gameId: string, signal: AbortSignal) {
    let markStarted = (): void => undefined;
    this.started = new Promise((resolve) => (markStarted = resolve));
    this.done = (async () => {
      for await (const view of watchViews(client, gameId, { signal, timeoutMs: GAME_TIMEOUT_MS })) {
        this.views.push(view);
        markStarted();
        if (view.phase === Phase.GAME_OVER) break;
      }
      return this.views;
    })();
    this.done.catch(() => markStarted()); // a failed stream must not leave `started` pending
  }
}

/** The FAILED_PRECONDITION reason a call fails with (asserting that it does). */
async function failedPrecondition(call: Promise<unknown>): Promise<string> {
  const err = await call.then(
    () => assert.fail("the illegal move was accepted"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ConnectError, `not a ConnectError: ${String(err)}`);
  assert.equal(err.code, Code.FailedPrecondition, err.message);
  const reason = errorReason(err);
  assert.ok(reason !== undefined && REASONS.has(reason), `not a reason code: ${reason}`);
  return reason;
}

/**
 * Checks that an action describes itself in words: its word starts its notation, its shape says
 * which field it carries, and it has a title to show.
 */
function checkAction(action: LegalAction): void {
  const what = `${action.notation} (${ActionShape[action.shape]})`;
  assert.ok(action.word !== "" && action.title !== "", `${what}: no word or title`);
  assert.equal(action.notation.split(" ")[0], action.word, `${what}: the notation starts with the word`);
  switch (action.shape) {
    case ActionShape.NONE:
    case ActionShape.CARDS:
      assert.equal(action.notation, action.word, what);
      if (action.shape === ActionShape.CARDS) assert.ok(action.maxCards > 0 && action.cards.length >= action.minCards, what);
      break;
    case ActionShape.CARD:
      assert.equal(action.notation, `${action.word} ${action.card}`, what);
      break;
    case ActionShape.NUMBER:
      assert.equal(action.notation, `${action.word} ${action.number}`, what);
      break;
    case ActionShape.SUIT:
      assert.equal(action.notation, `${action.word} ${"CDHS"[action.suit - Suit.CLUBS]}`, what);
      break;
    default:
      assert.fail(`${what}: no shape`);
  }
}

/** The registry name and `rules` oneof case of the games these tests play. */
interface GameRules {
  name: string;
  rules: GameView["rules"]["case"];
  seat: SeatView["rules"]["case"];
}
const GAMES: Partial<Record<Variant, GameRules>> = {
  [Variant.SPADES]: { name: "spades", rules: "spades", seat: "spades" },
  [Variant.BUCK_EUCHRE]: { name: "buck_euchre", rules: "buckEuchre", seat: "buckEuchre" },
};

/** Checks a view's game-specific part (`rules`, and every seat's); true when spades are broken. */
function checkRules(view: GameView, variant: Variant): boolean {
  const game = GAMES[variant];
  assert.ok(game, `no expectations for ${Variant[variant]}`);
  assert.equal(view.variantName, game.name);
  assert.equal(view.rules.case, game.rules, `version ${view.version}: rules ${view.rules.case}`);
  for (const seat of view.seats) assert.equal(seat.rules.case, game.seat, `seat ${seat.seat}: ${seat.rules.case}`);
  if (view.rules.case === "buckEuchre" && view.phase === Phase.PLAY) {
    const { turnUp, trump, noTrump, maker } = view.rules.value;
    assert.match(turnUp, /^(9|10|[JQKA])[CDHS]$/, "a turn-up while playing");
    assert.notEqual(trump !== Suit.UNSPECIFIED, noTrump, "trump is settled while playing: a suit or no trump");
    assert.ok(maker === undefined || view.seats[maker] !== undefined, `maker ${maker}`);
  }
  return view.rules.case === "spades" && view.rules.value.spadesBroken;
}

function assertIncreasing(views: readonly GameView[], what: string): void {
  for (let i = 1; i < views.length; i++) {
    const [prev, next] = [views[i - 1], views[i]];
    assert.ok(prev && next && next.version > prev.version, `${what}: version ${next?.version} after ${prev?.version}`);
  }
}

interface GameSetup {
  variant: Variant;
  options?: MessageInitShape<typeof RuleOptionsSchema>;
  seed: number;
  via?: Via;
}

/** Plays a whole game as seat 0 against three BOT_BASIC seats and checks what the API says. */
async function playWholeGame({ variant, options, seed, via = GRPC }: GameSetup): Promise<void> {
  const spectator = clientVia(via);
  const created = await spectator.createGame({
    variant,
    options,
    seats: [
      { name: "ts-human", kind: PlayerKind.HUMAN },
      ...[1, 2, 3].map((i) => ({ name: `bot-${i}`, kind: PlayerKind.BOT_BASIC })),
    ],
  });
  const gameId = created.gameId;
  assert.deepEqual(created.seatTokens.map((t) => t.seat), [0], "one token, for the human seat");
  const token = created.seatTokens[0]?.token ?? "";
  const seat = clientVia(via, token);

  const stopWatching = new AbortController(); // ends the streams early if the game fails
  try {
    await playAndCheck(spectator, seat, gameId, variant, seed, stopWatching.signal);
  } finally {
    stopWatching.abort();
  }
}

async function playAndCheck(
  spectator: GameServiceClient,
  seat: GameServiceClient,
  gameId: string,
  variant: Variant,
  seed: number,
  signal: AbortSignal,
): Promise<void> {
  const watchers = { spectator: new Watcher(spectator, gameId, signal), seat: new Watcher(seat, gameId, signal) };
  await Promise.all([watchers.spectator.started, watchers.seat.started]);

  const random = rng(seed);
  let view = (await seat.getGame({ gameId })).view;
  assert.ok(view);
  assert.equal(view.viewerSeat, 0);
  const responses: GameView[] = [view];
  const words = new Set<string>();
  let spadesBroken = checkRules(view, variant);
  let illegalTried = 0;
  while (view.phase !== Phase.GAME_OVER) {
    assert.ok(responses.length < MAX_MOVES, "the game does not end");
    assert.ok(view.legalActions.length > 0, `the human has nothing to do in phase ${Phase[view.phase]}`);

    // Now and then, first try a card in hand that is not a legal play: refused, game unchanged.
    const playable = new Set(view.legalActions.filter((a) => a.shape === ActionShape.CARD).map((a) => a.card));
    const illegal = view.hand.find((card) => !playable.has(card));
    if (playable.size > 0 && illegal !== undefined && illegalTried < 3) {
      const notation = `play ${illegal}`;
      const move = requestFor(create(LegalActionSchema, { word: "play", shape: ActionShape.CARD, card: illegal, notation }),
        gameId);
      const reason = await failedPrecondition(sendMove(seat, move));
      assert.ok(["MUST_FOLLOW_SUIT", "SPADES_NOT_BROKEN"].includes(reason), reason);
      assert.equal((await seat.getGame({ gameId })).view?.version, view.version, "a refused move changed the game");
      illegalTried++;
    }

    const action = choose(view, random);
    checkAction(action);
    words.add(action.word);
    const cards = action.shape === ActionShape.CARDS ? exchangeCards(action, random) : undefined;
    const next = await sendMove(seat, requestFor(action, gameId, { cards }));
    assert.equal(next.viewerSeat, 0);
    assert.ok(next.version > view.version, `${action.notation}: version ${next.version} after ${view.version}`);
    spadesBroken = checkRules(next, variant) || spadesBroken;
    responses.push(next);
    view = next;
  }

  const [spectated, seated] = await Promise.all([watchers.spectator.done, watchers.seat.done]);
  const final = (await spectator.getGame({ gameId })).view;
  assert.ok(final);
  assert.equal(final.phase, Phase.GAME_OVER);
  assert.equal(final.version, view.version, "the last response is the final state");
  for (const [what, views] of [["spectator stream", spectated], ["seat stream", seated]] as const) {
    assert.ok(views.length >= 3, `${what}: only ${views.length} views`);
    assertIncreasing(views, what);
    const last = views.at(-1);
    assert.equal(last?.phase, Phase.GAME_OVER, `${what}: the last view is not GAME_OVER`);
    assert.equal(last?.version, final.version, `${what}: the last view is not the final version`);
    assert.deepEqual(last?.scores.map((s) => s.score), final.scores.map((s) => s.score));
  }
  assert.ok(spectated.every((v) => v.viewerSeat === undefined && v.hand.length === 0 && v.legalActions.length === 0),
    "a spectator saw cards or actions");
  assert.ok(seated.every((v) => v.viewerSeat === 0), "the seat stream shows another seat's view");
  assert.ok(seated.some((v) => v.handVisible && v.hand.length > 0), "the seat stream never showed the hand");
  assertIncreasing(responses, "move responses");
  for (const v of [...spectated, ...seated]) checkRules(v, variant);
  if (variant === Variant.SPADES) assert.ok(spadesBroken, "spades were never broken in a whole game");

  const score = await spectator.getScore({ gameId });
  assert.ok(score.hands.length > 0, "no completed hand");
  assert.deepEqual(score.hands.map((h) => h.handNumber), score.hands.map((_, i) => i + 1));
  const totals = score.totals.map((t) => t.score);
  assert.deepEqual(totals, final.scores.map((s) => s.score), "GetScore totals differ from the final view");
  assert.notEqual(score.winnerSide, undefined, "no winner");
  assert.equal(score.winnerSide, final.winnerSide);
  assert.deepEqual(score.winnerSeats, final.winnerSeats);
  assert.deepEqual(score.winnerSeats, score.totals[score.winnerSide!]?.seats);
  if (variant === Variant.SPADES) {
    assert.equal(totals.length, 2);
    for (const side of [0, 1]) {
      const sum = score.hands.reduce((acc, h) => acc + (h.sides[side]?.handPoints ?? NaN), 0);
      assert.equal(sum, totals[side], `side ${side}: hand points add up to ${sum}, total ${totals[side]}`);
      assert.equal(score.hands.at(-1)?.sides[side]?.totalAfter, totals[side]);
    }
    assert.equal(Math.max(...totals), totals[score.winnerSide!], "Spades: the winner has the highest score");
  } else {
    const rules = final.options?.variant;
    assert.equal(rules?.case, "buckEuchre");
    const start = rules.value.startingScore ?? 25;
    assert.equal(totals.length, 4);
    for (const s of [0, 1, 2, 3]) {
      const sum = score.hands.reduce((acc, h) => acc + (h.seats[s]?.points ?? NaN), 0);
      assert.equal(start + sum, totals[s], `seat ${s}: ${start} + ${sum} points, total ${totals[s]}`);
    }
  }
  const used = [...words].join(" ");
  console.log(`${Variant[variant]} ${gameId}: ${responses.length - 1} moves, ${score.hands.length} hands, ` +
    `totals ${totals.join("/")}, winner side ${score.winnerSide}, ${seated.length}/${spectated.length} ` +
    `seat/spectator views, ${illegalTried} illegal plays refused; actions: ${used}`);
}

describe("cardgame.v1.GameService through the TypeScript client", { concurrency: true }, () => {
  before(() => {
    assert.match(SERVER, /^https?:\/\/[^/]+$/, "set CARDGAME_SERVER to a running server, e.g. http://127.0.0.1:50051");
  });

  test("Buck Euchre with three bots, to the end", { timeout: GAME_TIMEOUT_MS }, async () => {
    await playWholeGame({ variant: Variant.BUCK_EUCHRE, seed: 1 });
  });

  test("four-player Spades to 200 with three bots, to the end", { timeout: GAME_TIMEOUT_MS }, async () => {
    await playWholeGame({
      variant: Variant.SPADES,
      options: { variant: { case: "spades", value: { targetScore: 200 } } },
      seed: 2,
    });
  });

  const illegalMoves = async (via: Via) => {
    const spectator = clientVia(via);
    const created = await spectator.createGame({
      variant: Variant.SPADES,
      firstDealer: 0,
      seats: [{ name: "ts-human", kind: PlayerKind.HUMAN }, ...[1, 2, 3].map(() => ({ kind: PlayerKind.BOT_BASIC }))],
    });
    const { gameId } = created;
    const seat = clientVia(via, created.seatTokens[0]?.token ?? "");
    const before = (await seat.getGame({ gameId })).view;
    assert.equal(before?.phase, Phase.DEAL);
    assert.deepEqual(before?.legalActions.map((a) => [a.word, a.shape, a.notation]), [["deal", ActionShape.NONE, "deal"]]);

    const reason = await failedPrecondition(seat.play({ gameId, requestId: crypto.randomUUID(), card: "AS" }));
    assert.equal(reason, "WRONG_PHASE");
    assert.equal(await failedPrecondition(seat.act({ gameId, requestId: crypto.randomUUID(), action: "play AS" })),
      "WRONG_PHASE");
    const unknown = await seat.act({ gameId, requestId: crypto.randomUUID(), action: "fly" }).catch((e: unknown) => e);
    assert.ok(unknown instanceof ConnectError && unknown.code === Code.InvalidArgument, String(unknown));
    assert.equal((await seat.getGame({ gameId })).view?.version, before?.version, "a refused move changed the game");

    // A spectator may read but not act.
    const denied = await spectator.deal({ gameId, requestId: crypto.randomUUID() }).catch((e: unknown) => e);
    assert.ok(denied instanceof ConnectError && denied.code === Code.PermissionDenied, String(denied));
    const acted = await spectator.act({ gameId, requestId: crypto.randomUUID(), action: "deal" }).catch((e) => e);
    assert.ok(acted instanceof ConnectError && acted.code === Code.PermissionDenied, String(acted));
  };

  test("an illegal move fails with FAILED_PRECONDITION and a reason code", () => illegalMoves(GRPC));

  const HTTP: [string, Via][] = [
    ["Connect JSON", { protocol: "connect" }],
    ["Connect binary", { protocol: "connect", binary: true }],
    ["gRPC-Web", { protocol: "grpc-web" }],
  ];
  for (const [name, via] of HTTP) {
    test(`over the HTTP port, ${name}: Buck Euchre to the end, and illegal moves refused with their reasons`,
      { timeout: GAME_TIMEOUT_MS }, async () => {
        assert.match(HTTP_SERVER, /^https?:\/\/[^/]+$/,
          "set CARDGAME_HTTP_SERVER to a running server's HTTP port, e.g. http://127.0.0.1:8080");
        await playWholeGame({ variant: Variant.BUCK_EUCHRE, seed: 3, via });
        await illegalMoves(via);
      });
  }
});
