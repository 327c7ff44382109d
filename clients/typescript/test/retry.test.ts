// The retry policy of unary calls: which refusals are retried, bounded attempts, backoff bounds,
// turning it off; and, against a live server whose HTTP port answers one call at a time
// (CARDGAME_BUSY_HTTP_SERVER, started with --http-max-calls 1 by
// tests/clients/test_typescript_client.py), a burst that is partly refused without retries and
// answered in full with them, over Connect and gRPC-Web.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { create } from "@bufbuild/protobuf";
import { BinaryWriter } from "@bufbuild/protobuf/wire";

import {
  Code,
  ConnectError,
  DEFAULT_RETRY,
  DeleteGameResponseSchema,
  PlayerKind,
  type Protocol,
  Variant,
  createClient,
  isRetryable,
  retryDelayMs,
  retryInterceptor,
} from "../src/index.js";

const BUSY_HTTP_SERVER = process.env.CARDGAME_BUSY_HTTP_SERVER ?? "";
const BURST = 24;

/** A RESOURCE_EXHAUSTED refusal, with a RetryInfo delay when `delayMs` is given. */
function exhausted(delayMs?: number): ConnectError {
  const err = new ConnectError("busy", Code.ResourceExhausted);
  if (delayMs !== undefined) {
    const duration = new BinaryWriter().uint32(2 << 3).int32(delayMs * 1e6).finish();
    err.details.push({ type: "google.rpc.RetryInfo", value: new BinaryWriter().uint32((1 << 3) | 2).bytes(duration).finish() });
  }
  return err;
}

/** Connect's next function, failing with `errors` in turn and then answering; records when it was called. */
function fakeNext(errors: Error[]) {
  const calls: number[] = [];
  const next = async () => {
    calls.push(performance.now());
    const err = errors.shift();
    if (err !== undefined) throw err;
    return { message: "ok" };
  };
  return { calls, next };
}

const unary = () => ({ message: { requestId: "r1" }, stream: false, method: { name: "Act" }, signal: new AbortController().signal });
const run = (interceptor: ReturnType<typeof retryInterceptor>, next: unknown) =>
  interceptor(next as never)(unary() as never) as Promise<unknown>;

test("UNAVAILABLE and RESOURCE_EXHAUSTED with RetryInfo are retried; RESOURCE_EXHAUSTED without it is not", async () => {
  assert.ok(isRetryable(new ConnectError("down", Code.Unavailable)));
  assert.ok(isRetryable(exhausted(10)));
  assert.ok(!isRetryable(exhausted()));
  assert.ok(!isRetryable(new ConnectError("no", Code.FailedPrecondition)));
  const once = fakeNext([exhausted()]);
  await assert.rejects(run(retryInterceptor({ baseDelayMs: 1 }), once.next), (e) => e instanceof ConnectError);
  assert.equal(once.calls.length, 1);
  const twice = fakeNext([exhausted(5), new ConnectError("down", Code.Unavailable)]);
  assert.deepEqual(await run(retryInterceptor({ baseDelayMs: 1 }), twice.next), { message: "ok" });
  assert.equal(twice.calls.length, 3);
});

test("attempts are bounded: `retries` retries, then the last refusal", async () => {
  const down = () => new ConnectError("down", Code.Unavailable);
  const { calls, next } = fakeNext([down(), down(), down(), down()]);
  await assert.rejects(run(retryInterceptor({ retries: 2, baseDelayMs: 1 }), next),
    (e) => e instanceof ConnectError && e.code === Code.Unavailable);
  assert.equal(calls.length, 3);
  assert.equal(DEFAULT_RETRY.retries, 3);
});

test("the backoff grows from baseDelayMs, with jitter, and never beyond maxBackoffMs x1.5", async () => {
  const down = () => new ConnectError("down", Code.Unavailable);
  const { calls, next } = fakeNext([down(), down(), down(), down()]);
  await run(retryInterceptor({ retries: 4, baseDelayMs: 20, maxBackoffMs: 40 }), next);
  const gaps = calls.slice(1).map((at, i) => at - calls[i]!);
  assert.equal(gaps.length, 4);
  assert.ok(gaps[0]! >= 9 && gaps[0]! < 30 + 25, `first backoff ${gaps[0]} ms, expected 10 to 30`);
  for (const gap of gaps.slice(1)) assert.ok(gap >= 19 && gap < 60 + 25, `backoff ${gap} ms, expected 20 to 60`);
});

test("a retried DeleteGame answered NOT_FOUND is done (an earlier attempt deleted the game); a first NOT_FOUND is not", async () => {
  const deleteGame = { name: "DeleteGame", output: DeleteGameResponseSchema };
  const request = () => ({ message: { gameId: "g" }, stream: false, method: deleteGame, service: {}, signal: new AbortController().signal });
  const lost = fakeNext([new ConnectError("down", Code.Unavailable), new ConnectError("no game", Code.NotFound)]);
  const done = await retryInterceptor({ baseDelayMs: 1 })(lost.next as never)(request() as never) as { message: unknown };
  assert.equal(lost.calls.length, 2);
  assert.deepEqual(done.message, create(DeleteGameResponseSchema));
  const missing = fakeNext([new ConnectError("no game", Code.NotFound)]);
  await assert.rejects(retryInterceptor({ baseDelayMs: 1 })(missing.next as never)(request() as never) as Promise<unknown>,
    (e) => e instanceof ConnectError && e.code === Code.NotFound);
  const refused = fakeNext([exhausted(1), new ConnectError("no game", Code.NotFound)]);   // a refusal deleted nothing
  await assert.rejects(retryInterceptor({ baseDelayMs: 1 })(refused.next as never)(request() as never) as Promise<unknown>,
    (e) => e instanceof ConnectError && e.code === Code.NotFound);
  assert.equal(refused.calls.length, 2);
});

test("bad retry options are refused", () => {
  assert.throws(() => retryInterceptor({ retries: -1 }), RangeError);
  assert.throws(() => retryInterceptor({ baseDelayMs: Number.NaN }), RangeError);
});

describe("a live server that answers one HTTP call at a time", { skip: BUSY_HTTP_SERVER === "" }, () => {
  for (const protocol of ["connect", "grpc-web"] as Protocol[]) {
    test(`${protocol}: a burst is partly refused with a message and RetryInfo without retries, answered in full with them`, async () => {
      const patient = createClient(BUSY_HTTP_SERVER, { protocol, retry: { retries: 12 } });
      const { gameId } = await patient.createGame({
        variant: Variant.SPADES,
        seats: [1, 2, 3, 4].map((i) => ({ name: `P${i}`, kind: PlayerKind.HUMAN })),
      });
      const bare = createClient(BUSY_HTTP_SERVER, { protocol, retry: false });
      const outcomes = await Promise.allSettled(Array.from({ length: BURST }, () => bare.getGame({ gameId })));
      const codes = outcomes.map((o) => (o.status === "fulfilled" ? "ok" : o.reason instanceof ConnectError ? o.reason.code : "other"));
      const refused = outcomes.flatMap((o) => (o.status === "rejected" && o.reason instanceof ConnectError
        && o.reason.code === Code.ResourceExhausted ? [o.reason] : []));
      assert.ok(refused.length > 0, `no refusal among ${codes.join(",")}`);
      assert.ok(codes.every((c) => c === "ok" || c === Code.ResourceExhausted), codes.join(","));
      for (const err of refused) {
        assert.match(err.rawMessage, /at most 1 calls at once over HTTP/);
        assert.ok((retryDelayMs(err) ?? 0) > 0, "a refusal without RetryInfo");
      }
      const answers = await Promise.allSettled(Array.from({ length: BURST }, () => patient.getGame({ gameId })));
      const after = answers.map((o) => (o.status === "fulfilled" ? "ok" : o.reason instanceof ConnectError ? o.reason.code : "other"));
      assert.ok(after.every((c) => c === "ok"), `with retries: ${after.join(",")}`);
    });
  }
});
