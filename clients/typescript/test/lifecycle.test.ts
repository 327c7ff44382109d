// The lifecycle RPCs through the TypeScript client against a live server that requires API keys
// (CARDGAME_KEYED_SERVER, its gRPC port, and CARDGAME_KEYED_HTTP_SERVER, its HTTP port; keys in
// CARDGAME_API_KEY, CARDGAME_OTHER_API_KEY and, for the rate limit, CARDGAME_RATE_API_KEY and
// CARDGAME_RATE_HTTP_API_KEY; the server lets each key create 1 game a second in bursts of
// CARDGAME_CREATE_BURST). Run by tests/clients/test_typescript_client.py; skipped when
// CARDGAME_KEYED_SERVER is not set.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { before, describe, test } from "node:test";

import { create } from "@bufbuild/protobuf";

import {
  ActRequestSchema,
  ActionShape,
  Code,
  ConnectError,
  type Event,
  EventKind,
  GameStatus,
  type GameServiceClient,
  type GameView,
  type Interceptor,
  LeavePolicy,
  Phase,
  PlayerKind,
  Presence,
  type Protocol,
  Variant,
  createClient,
  errorReason,
  followEvents,
  listAllGames,
  newRequestId,
  requestFor,
  retryDelayMs,
  sendBack,
  sendMove,
} from "../src/index.js";

const SERVER = process.env.CARDGAME_KEYED_SERVER ?? "";
const HTTP_SERVER = process.env.CARDGAME_KEYED_HTTP_SERVER ?? "";
const KEY = process.env.CARDGAME_API_KEY ?? "";
const OTHER_KEY = process.env.CARDGAME_OTHER_API_KEY ?? "";
const RATE_KEYS: Record<string, string> = {
  grpc: process.env.CARDGAME_RATE_API_KEY ?? "",
  connect: process.env.CARDGAME_RATE_HTTP_API_KEY ?? "",
};
const BURST = Number(process.env.CARDGAME_CREATE_BURST ?? "0");
const TEST_TIMEOUT_MS = 60_000;
const MAX_MOVES = 2_000;

const backend = (apiKey = KEY) => createClient(SERVER, { apiKey });
const player = (token: string) => createClient(SERVER, { token });
const BOTS = [1, 2, 3].map((i) => ({ name: `bot ${i}`, kind: PlayerKind.BOT_BASIC }));
const act = (gameId: string, action: string) => create(ActRequestSchema, { gameId, action });

/** The error a call fails with (asserting that it fails). */
async function failure(call: Promise<unknown>): Promise<ConnectError> {
  const err = await call.then(() => assert.fail("the call was accepted"), (e: unknown) => e);
  assert.ok(err instanceof ConnectError, `not a ConnectError: ${String(err)}`);
  return err;
}

/** Waits until `condition()` holds, looking every 50 ms, failing after `withinMs`. */
async function until(condition: () => boolean | Promise<boolean>, what: string, withinMs = 15_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await condition())) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A Buck Euchre game of one human (seat 0, the first dealer) against three bots, soon over. */
async function shortEuchre(client: GameServiceClient, labels: Record<string, string> = {}) {
  const created = await client.createGame({
    variant: Variant.BUCK_EUCHRE, firstDealer: 0, labels,
    seats: [{ name: "Ann", externalPlayerId: "u-ann" }, ...BOTS],
    options: { variant: { case: "buckEuchre", value: { startingScore: 5 } } },
  });
  return { gameId: created.gameId, token: created.seatTokens[0]!.token };
}

/** Plays the seat's first legal action until the game is over; the last view. */
async function playOut(seat: GameServiceClient, gameId: string): Promise<GameView> {
  let view = (await seat.getGame({ gameId })).view!;
  for (let moves = 0; view.phase !== Phase.GAME_OVER; moves++) {
    assert.ok(moves < MAX_MOVES, "the game does not end");
    view = await sendMove(seat, requestFor(view.legalActions[0]!, gameId));
  }
  return view;
}

/** followEvents in the background, keeping every event until stopped. */
function collect(client: GameServiceClient, afterId = "") {
  const events: Event[] = [];
  const stop = new AbortController();
  const done = (async () => {
    for await (const event of followEvents(client, { afterId, signal: stop.signal })) events.push(event);
  })();
  return { events, of: (gameId: string) => events.filter((e) => e.gameId === gameId),
    stop: async () => { stop.abort(); await done; } };
}

const skip = SERVER === "" ? "CARDGAME_KEYED_SERVER (a server that requires API keys) is not set" : false;

describe("the lifecycle RPCs through the TypeScript client", { concurrency: true, skip }, () => {
  before(() => {
    assert.match(SERVER, /^https?:\/\/[^/]+$/, "CARDGAME_KEYED_SERVER is not a server's URL");
    assert.ok(KEY && OTHER_KEY && RATE_KEYS.grpc && RATE_KEYS.connect && BURST > 0,
      "set CARDGAME_API_KEY, CARDGAME_OTHER_API_KEY, CARDGAME_RATE_API_KEY, CARDGAME_RATE_HTTP_API_KEY and " +
      "CARDGAME_CREATE_BURST");
  });

  test("createGame sends the API key and takes player ids, fallbacks, labels and lifecycle options", async () => {
    const refused = await failure(createClient(SERVER).createGame({ variant: Variant.BUCK_EUCHRE,
      seats: [{ name: "Ann" }, ...BOTS] }));
    assert.equal(refused.code, Code.Unauthenticated);
    const created = await backend().createGame({
      variant: Variant.SPADES, firstDealer: 0, labels: { table: "7" },
      seats: [{ name: "Ann", externalPlayerId: "u-ann", fallback: PlayerKind.BOT_RANDOM },
        { name: "Bo", externalPlayerId: "u-bo" }, ...BOTS.slice(0, 2)],
      lifecycle: { turnTimeoutMs: 60_000n, timeoutsBeforeAway: 2, leavePolicy: LeavePolicy.ABANDON },
    });
    const view = created.view!;
    assert.deepEqual(created.seatTokens.map((t) => t.seat), [0, 1]);
    assert.deepEqual(view.labels, { table: "7" });
    assert.equal(view.status, GameStatus.WAITING);
    assert.deepEqual(view.seats.map((s) => s.externalPlayerId), ["u-ann", "u-bo", "", ""]);
    const dealt = await sendMove(player(created.seatTokens[0]!.token),
      act(created.gameId, "deal"));
    assert.equal(dealt.status, GameStatus.IN_PLAY);
    const left = Number(dealt.turnDeadline!.seconds) * 1000 - Date.now();
    assert.ok(left > 50_000 && left <= 60_000, `${left} ms left of a 60 s turn`);
  });

  test("reissueSeatToken voids the old token; a retry gets the same new one", async () => {
    const client = backend();
    const { gameId, token } = await shortEuchre(client);
    const requestId = newRequestId();
    const { seatToken } = await client.reissueSeatToken({ gameId, seat: 0, requestId });
    assert.ok(seatToken && seatToken.seat === 0 && seatToken.token !== token);
    assert.equal((await client.reissueSeatToken({ gameId, seat: 0, requestId })).seatToken?.token, seatToken.token);
    assert.equal((await player(seatToken.token).getGame({ gameId })).view?.viewerSeat, 0);
    assert.equal((await failure(player(token).getGame({ gameId }))).code, Code.Unauthenticated);
    assert.equal((await failure(backend(OTHER_KEY).reissueSeatToken({ gameId, seat: 0 }))).code, Code.NotFound);
    const fresh = await client.reissueSeatToken({ gameId, seat: 0 }); // the client fills in a request id
    assert.notEqual(fresh.seatToken?.token, seatToken.token);
  });

  test("listAllGames follows every page, newest first, with filters", async () => {
    const client = backend();
    const run = newRequestId().slice(0, 8);
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      made.push((await shortEuchre(client, { run, odd: String(i % 2) })).gameId);
      await new Promise((resolve) => setTimeout(resolve, 3)); // distinct creation times
    }
    const listed = async (filters: Parameters<typeof listAllGames>[1]) => {
      const ids: string[] = [];
      for await (const game of listAllGames(client, filters)) ids.push(game.gameId);
      return ids;
    };
    assert.deepEqual(await listed({ labels: { run }, pageSize: 2 }), [...made].reverse());
    assert.deepEqual(await listed({ labels: { run, odd: "1" } }), [made[3], made[1]]);
    const page = await client.listGames({ labels: { run }, pageSize: 2 });
    assert.ok(page.games.length <= 2 && page.nextPageToken !== "");
    const [summary] = page.games;
    assert.equal(summary?.variantName, "buck_euchre");
    assert.deepEqual(summary?.seats.map((s) => s.externalPlayerId), ["u-ann", "", "", ""]);
    await sendMove(player((await client.reissueSeatToken({ gameId: made[2]!, seat: 0 })).seatToken!.token),
      act(made[2]!, "deal"));
    assert.deepEqual(await listed({ labels: { run }, status: GameStatus.IN_PLAY }), [made[2]]);
    assert.deepEqual(await listed({ labels: { run }, externalPlayerId: "nobody" }), []);
    const foreign: string[] = [];
    for await (const game of listAllGames(backend(OTHER_KEY), { labels: { run } })) foreign.push(game.gameId);
    assert.deepEqual(foreign, []);
  });

  test("leaveGame hands the seat to its fallback bot, or abandons the game", async () => {
    const client = backend();
    const created = await client.createGame({ variant: Variant.SPADES, firstDealer: 0,
      seats: [{ name: "A" }, { name: "B" }, ...BOTS.slice(0, 2)] });
    const [a, b] = created.seatTokens.map((t) => player(t.token));
    const { view } = await b!.leaveGame({ gameId: created.gameId });
    assert.equal(view?.seats[1]?.presence, Presence.LEFT);
    assert.equal(view?.viewerSeat, undefined);
    assert.equal((await failure(b!.getGame({ gameId: created.gameId }))).code, Code.Unauthenticated);
    assert.equal((await a!.getGame({ gameId: created.gameId })).view?.phase, Phase.DEAL);

    const abandoned = await client.createGame({ variant: Variant.SPADES, firstDealer: 0,
      seats: [{ name: "A" }, { name: "B" }, ...BOTS.slice(0, 2)], lifecycle: { leavePolicy: LeavePolicy.ABANDON } });
    const [c, d] = abandoned.seatTokens.map((t) => player(t.token));
    const over = (await c!.leaveGame({ gameId: abandoned.gameId })).view!;
    assert.ok(over.phase === Phase.GAME_OVER && over.abandoned && over.status === GameStatus.FINISHED);
    assert.equal(over.winnerSide, 1);
    const late = await failure(d!.leaveGame({ gameId: abandoned.gameId }));
    assert.equal(late.code, Code.FailedPrecondition);
    assert.equal(errorReason(late), "GAME_OVER");
  });

  test("a seat that lets its turn pass is marked away until sendBack", { timeout: TEST_TIMEOUT_MS }, async () => {
    const created = await backend().createGame({ variant: Variant.SPADES, firstDealer: 0,
      seats: ["A", "B", "C", "D"].map((name) => ({ name })), lifecycle: { turnTimeoutMs: 2000n, timeoutsBeforeAway: 1 } });
    const { gameId } = created;
    const seats = created.seatTokens.map((t) => player(t.token));
    await sendMove(seats[0]!, act(gameId, "deal"));
    for (const n of [1, 2, 3]) {
      await sendMove(seats[n]!, act(gameId, "bid 2"));
    }
    await until(async () => (await seats[0]!.getGame({ gameId })).view?.seats[0]?.presence === Presence.AWAY,
      "seat 0 marked away");
    const away = (await seats[0]!.getGame({ gameId })).view!;
    assert.ok(away.legalActions.some((a) => a.word === "back" && a.shape === ActionShape.NONE && a.notation === "back"));
    assert.equal(away.seats[0]?.timeouts, 1);
    const back = await sendBack(seats[0]!, gameId);
    assert.equal(back.seats[0]?.presence, Presence.PLAYING);
    assert.equal(back.seats[0]?.timeouts, 0);
    const twice = await failure(sendBack(seats[0]!, gameId));
    assert.equal(twice.code, Code.FailedPrecondition);
    assert.equal(errorReason(twice), "NOT_AWAY");
  });

  test("followEvents tells a game's hands, its end and its deletion; getHistory proves every deal fair",
    { timeout: TEST_TIMEOUT_MS }, async () => {
      const client = backend();
      const following = collect(client);
      let mine: Event[];
      const { gameId, token } = await shortEuchre(client, { events: "ts" });
      try {
        const final = await playOut(player(token), gameId);
        await until(() => following.of(gameId).some((e) => e.kind === EventKind.GAME_OVER), "the game over event");

        const history = await client.getHistory({ gameId });
        const score = await client.getScore({ gameId, pageSize: 500 });
        const deals = history.entries.filter((e) => e.action === "deal");
        assert.ok(deals.length > 0 && deals.length === score.hands.length);
        deals.forEach((deal, i) => {
          const commitment = createHash("sha256").update(`${deal.salt}:${deal.deck.join(" ")}`).digest("hex");
          assert.equal(commitment, score.hands[i]?.commitment, `hand ${i + 1}`);
        });
        assert.equal(history.version, final.version);
        assert.equal(history.variantName, "buck_euchre");

        const again = await client.rematch({ gameId, requestId: "rematch-" + gameId });
        assert.deepEqual(await client.rematch({ gameId, requestId: "rematch-" + gameId }), again);
        const rematched = (await player(again.seatTokens[0]!.token).getGame({ gameId: again.gameId })).view!;
        assert.deepEqual(rematched.labels, { events: "ts" });
        assert.equal(rematched.seats[0]?.externalPlayerId, "u-ann");

        await client.deleteGame({ gameId });
        assert.equal((await failure(client.getGame({ gameId }))).code, Code.NotFound);
        await until(() => following.of(gameId).some((e) => e.kind === EventKind.DELETE), "the delete event");
      } finally {
        await following.stop();
      }
      mine = following.of(gameId);
      const kinds = mine.map((e) => e.kind);
      assert.deepEqual(kinds.slice(-2), [EventKind.GAME_OVER, EventKind.DELETE]);
      assert.ok(kinds.slice(0, -2).every((k) => k === EventKind.HAND_END) && kinds.length >= 3);
      assert.deepEqual(mine.slice(0, -1).map((e) => e.sequence), mine.slice(0, -1).map((_, i) => BigInt(i + 1)));
      assert.ok(mine.every((e) => e.labels.events === "ts"));

      const resumed = collect(client, mine[0]!.id);
      try {
        await until(() => resumed.of(gameId).length === mine.length - 1, "the resumed stream");
      } finally {
        await resumed.stop();
      }
      assert.deepEqual(resumed.of(gameId).map((e) => e.id), mine.slice(1).map((e) => e.id));
      const refused = await failure((async () => {
        for await (const _ of followEvents(createClient(SERVER))) assert.fail("an event without an API key");
      })());
      assert.equal(refused.code, Code.Unauthenticated);
    });

  const RATE_VIA: [string, Protocol][] = [["gRPC", "grpc"], ["Connect JSON over the HTTP port", "connect"]];
  for (const [name, protocol] of RATE_VIA) {
    test(`${name}: a rate-limited createGame is retried no sooner than RetryInfo says`,
      { timeout: TEST_TIMEOUT_MS }, async () => {
        const attempts: { at: number; requestId: string; waitMs?: number; reason?: string }[] = [];
        const record: Interceptor = (next) => async (req) => {
          const attempt = { at: performance.now(), requestId: (req.message as { requestId?: string }).requestId ?? "" };
          attempts.push(attempt);
          try {
            return await next(req);
          } catch (err) {
            Object.assign(attempt, { waitMs: retryDelayMs(err), reason: errorReason(err) });
            throw err;
          }
        };
        const url = protocol === "grpc" ? SERVER : HTTP_SERVER;
        assert.match(url, /^https?:\/\/[^/]+$/, "set CARDGAME_KEYED_HTTP_SERVER");
        const client = createClient(url, { apiKey: RATE_KEYS[protocol], protocol, interceptors: [record] });
        const seats = [{ name: "Ann" }, ...BOTS];
        for (let i = 0; i < BURST; i++) await client.createGame({ variant: Variant.BUCK_EUCHRE, seats });
        // The bucket refills a token a second: on a busy machine the burst may take long enough for
        // the next create to find one, so create on (a bounded number of times) until one is refused.
        let tries: typeof attempts = [];
        for (let extra = 0; extra < BURST + 10 && tries.length < 2; extra++) {
          const before = attempts.length;
          const created = await client.createGame({ variant: Variant.BUCK_EUCHRE, seats });
          assert.ok(created.gameId);
          tries = attempts.slice(before);
        }
        assert.ok(tries.length >= 2, `no create after the burst was refused (${tries.length} attempt)`);
        for (let i = 0; i + 1 < tries.length; i++) {
          const [refused, retry] = [tries[i]!, tries[i + 1]!];
          assert.equal(refused.reason, "RATE_LIMITED");
          assert.ok(refused.waitMs !== undefined && refused.waitMs > 0 && refused.waitMs <= 1000, `${refused.waitMs}`);
          assert.ok(retry.at - refused.at >= refused.waitMs - 1, `retried after ${retry.at - refused.at} ms, ` +
            `asked ${refused.waitMs} ms`);
        }
        assert.ok(tries.every((t) => t.requestId !== "" && t.requestId === tries[0]!.requestId),
          "every attempt carries the same request id");
      });
  }
});
