// The client's interceptors and stream helpers without a server: request ids filled in once and
// kept on every retry, RetryInfo waited out (and given up beyond MAX_RETRY_DELAY_MS), listAllGames
// across pages, followEvents resuming after the last event when its stream breaks.
import assert from "node:assert/strict";
import { test } from "node:test";

import { create } from "@bufbuild/protobuf";
import { BinaryWriter } from "@bufbuild/protobuf/wire";

import {
  Code,
  ConnectError,
  type Event,
  EventKind,
  EventSchema,
  type GameServiceClient,
  GameSummarySchema,
  MAX_RETRY_DELAY_MS,
  errorReason,
  followEvents,
  listAllGames,
  requestIdInterceptor,
  retryDelayMs,
  retryInterceptor,
} from "../src/index.js";

/** A RESOURCE_EXHAUSTED error as the server sends a rate-limited CreateGame: ErrorInfo and RetryInfo. */
function rateLimited(delayMs: number): ConnectError {
  const err = new ConnectError("slow down", Code.ResourceExhausted);
  const info = new BinaryWriter().uint32((1 << 3) | 2).string("RATE_LIMITED").uint32((2 << 3) | 2)
    .string("cardgame.v1").finish();
  const seconds = Math.floor(delayMs / 1000);
  const duration = new BinaryWriter().uint32(1 << 3).int64(seconds).uint32(2 << 3)
    .int32(Math.round((delayMs - seconds * 1000) * 1e6)).finish();
  const retry = new BinaryWriter().uint32((1 << 3) | 2).bytes(duration).finish();
  err.details.push({ type: "google.rpc.ErrorInfo", value: info }, { type: "google.rpc.RetryInfo", value: retry });
  return err;
}

/** A stand-in for Connect's next function: fails with `errors` in turn, then answers; records each call. */
function fakeNext(errors: Error[]) {
  const calls: { at: number; message: unknown }[] = [];
  const next = async (req: { message: unknown }) => {
    calls.push({ at: performance.now(), message: req.message });
    const err = errors.shift();
    if (err !== undefined) throw err;
    return { message: "ok" };
  };
  return { calls, next };
}

const unary = (message: object) => ({ message, stream: false, signal: new AbortController().signal });

test("retryDelayMs and errorReason read a rate-limited refusal's details", () => {
  const err = rateLimited(1250);
  assert.equal(retryDelayMs(err), 1250);
  assert.equal(errorReason(err), "RATE_LIMITED");
  assert.equal(retryDelayMs(new ConnectError("busy", Code.Unavailable)), undefined);
  assert.equal(retryDelayMs(new Error("not a ConnectError")), undefined);
});

test("a retry never comes sooner than RetryInfo asks", async () => {
  const { calls, next } = fakeNext([rateLimited(300), rateLimited(150)]);
  const call = retryInterceptor(3, 1)(next as never);
  assert.deepEqual(await call(unary({ requestId: "r1" }) as never), { message: "ok" });
  assert.equal(calls.length, 3);
  const [first, second, third] = calls.map((c) => c.at);
  assert.ok(second! - first! >= 295, `waited ${second! - first!} ms, asked 300`);
  assert.ok(third! - second! >= 145, `waited ${third! - second!} ms, asked 150`);
});

test("a refusal asking for more than MAX_RETRY_DELAY_MS is given up at once", async () => {
  const { calls, next } = fakeNext([rateLimited(MAX_RETRY_DELAY_MS + 1000)]);
  const started = performance.now();
  await assert.rejects(retryInterceptor(3, 1)(next as never)(unary({ requestId: "r1" }) as never) as Promise<unknown>,
    (err: unknown) => err instanceof ConnectError && err.code === Code.ResourceExhausted && retryDelayMs(err) === 6000);
  assert.equal(calls.length, 1);
  assert.ok(performance.now() - started < 500);
});

test("an aborted call stops waiting for its retry", async () => {
  const { calls, next } = fakeNext([rateLimited(3000)]);
  const stop = new AbortController();
  const request = { message: { requestId: "r1" }, stream: false, signal: stop.signal };
  setTimeout(() => stop.abort(), 50);
  const started = performance.now();
  await assert.rejects(retryInterceptor(3, 1)(next as never)(request as never) as Promise<unknown>,
    (err: unknown) => err instanceof ConnectError && err.code === Code.Canceled);
  assert.ok(performance.now() - started < 1000 && calls.length === 1);
});

test("an empty requestId is filled in once, and the same id goes out on every retry", async () => {
  const { calls, next } = fakeNext([new ConnectError("busy", Code.Unavailable)]);
  const call = requestIdInterceptor()(retryInterceptor(3, 1)(next as never));
  await call(unary({ gameId: "g", requestId: "" }) as never);
  assert.equal(calls.length, 2);
  const ids = calls.map((c) => (c.message as { requestId: string }).requestId);
  assert.match(ids[0]!, /^[0-9a-f-]{36}$/);
  assert.equal(ids[1], ids[0]);
  const given = fakeNext([]);
  await requestIdInterceptor()(given.next as never)(unary({ requestId: "mine" }) as never);
  assert.equal((given.calls[0]?.message as { requestId: string }).requestId, "mine");
  const none = fakeNext([]);
  await requestIdInterceptor()(none.next as never)(unary({ gameId: "g" }) as never);
  assert.deepEqual(none.calls[0]?.message, { gameId: "g" }); // GetGame and the like have no request id
});

test("listAllGames follows the page tokens", async () => {
  const pages: Record<string, { games: string[]; next: string }> = {
    "": { games: ["g5", "g4"], next: "t1" }, t1: { games: [], next: "t2" }, t2: { games: ["g3"], next: "" },
  };
  const asked: unknown[] = [];
  const client = {
    listGames: async (request: { pageToken: string }) => {
      asked.push(request);
      const page = pages[request.pageToken]!;
      return { games: page.games.map((gameId) => create(GameSummarySchema, { gameId })), nextPageToken: page.next };
    },
  } as unknown as GameServiceClient;
  const found: string[] = [];
  for await (const game of listAllGames(client, { labels: { run: "x" }, pageSize: 2 })) found.push(game.gameId);
  assert.deepEqual(found, ["g5", "g4", "g3"]);
  assert.deepEqual(asked, ["", "t1", "t2"].map((pageToken) => ({ labels: { run: "x" }, pageSize: 2, pageToken })));
});

test("followEvents opens the stream again after the last event seen", async () => {
  const event = (id: string): Event => create(EventSchema, { id, gameId: "g", kind: EventKind.HAND_END });
  const streams: [string[], Code | undefined][] = [[["1-0", "2-0"], Code.Unavailable], [[], Code.Internal],
    [["3-0"], undefined], [["4-0"], undefined]];
  const afterIds: string[] = [];
  const client = {
    watchEvents: (request: { afterId: string }) => {
      afterIds.push(request.afterId);
      const [ids, code] = streams.shift() ?? [[], Code.Unavailable];
      return (async function* () {
        for (const id of ids) yield { event: event(id) };
        if (code !== undefined) throw new ConnectError("connection lost", code);
      })();
    },
  } as unknown as GameServiceClient;
  const seen: string[] = [];
  for await (const e of followEvents(client, { afterId: "0-1" })) {
    seen.push(e.id);
    if (seen.length === 4) break;
  }
  assert.deepEqual(seen, ["1-0", "2-0", "3-0", "4-0"]);
  assert.deepEqual(afterIds, ["0-1", "2-0", "2-0", "3-0"]);

  const refusing = {
    watchEvents: () => (async function* () {
      yield* [];
      throw new ConnectError("needs an API key", Code.Unauthenticated);
    })(),
  } as unknown as GameServiceClient;
  await assert.rejects((async () => {
    for await (const _ of followEvents(refusing)) assert.fail("no event expected");
  })(), (err: unknown) => err instanceof ConnectError && err.code === Code.Unauthenticated);
});
