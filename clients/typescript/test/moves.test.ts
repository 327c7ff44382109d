// requestFor, notationFor and sendMove without a server: every LegalAction becomes an ActRequest.
import assert from "node:assert/strict";
import { test } from "node:test";

import { type MessageInitShape, create } from "@bufbuild/protobuf";

import {
  ActionKind,
  Code,
  ConnectError,
  type GameServiceClient,
  GameViewSchema,
  LegalActionSchema,
  Suit,
  notationFor,
  requestFor,
  retryInterceptor,
  sendMove,
} from "../src/index.js";

const action = (init: MessageInitShape<typeof LegalActionSchema>) => create(LegalActionSchema, init);

test("each action becomes an ActRequest carrying its notation", () => {
  const cases: [MessageInitShape<typeof LegalActionSchema>, string][] = [
    [{ kind: ActionKind.DEAL, notation: "deal" }, "deal"],
    [{ kind: ActionKind.REVEAL, notation: "reveal" }, "reveal"],
    [{ kind: ActionKind.DRAW_KEEP, notation: "keep" }, "keep"],
    [{ kind: ActionKind.DRAW_DISCARD, notation: "discard" }, "discard"],
    [{ kind: ActionKind.BID, tricks: 0, notation: "bid 0" }, "bid 0"],
    [{ kind: ActionKind.BID, tricks: 4, notation: "bid 4" }, "bid 4"],
    [{ kind: ActionKind.DOUBLE_NIL, notation: "double-nil" }, "double-nil"],
    [{ kind: ActionKind.ORDER_UP, notation: "order-up" }, "order-up"],
    [{ kind: ActionKind.PASS, notation: "pass" }, "pass"],
    [{ kind: ActionKind.NAME_SUIT, suit: Suit.HEARTS, notation: "name H" }, "name H"],
    [{ kind: ActionKind.STAY_IN, notation: "stay" }, "stay"],
    [{ kind: ActionKind.DROP_OUT, notation: "drop" }, "drop"],
    [{ kind: ActionKind.EXCHANGE, notation: "exchange", cards: ["9C", "JD", "AS"], minCards: 1, maxCards: 1 },
      "exchange 9C"],
    [{ kind: ActionKind.PLAY, card: "10H", notation: "play 10H" }, "play 10H"],
  ];
  for (const [init, notation] of cases) {
    const request = requestFor(action(init), "g1");
    assert.equal(request.action, notation, ActionKind[init.kind ?? 0]);
    assert.equal(request.gameId, "g1");
    assert.match(request.requestId, /^[0-9a-f-]{36}$/);
    assert.equal(request.expectedVersion, undefined);
  }
});

test("request ids are fresh unless given; options pass through", () => {
  const play = action({ kind: ActionKind.PLAY, card: "AS", notation: "play AS" });
  assert.notEqual(requestFor(play, "g").requestId, requestFor(play, "g").requestId);
  const request = requestFor(play, "g", { requestId: "retry-1", expectedVersion: 7n });
  assert.equal(request.requestId, "retry-1");
  assert.equal(request.expectedVersion, 7n);
  const exchange = action({
    kind: ActionKind.EXCHANGE, notation: "exchange", cards: ["2C", "3C", "4C", "5C"], minCards: 0, maxCards: 3,
  });
  assert.equal(requestFor(exchange, "g", { cards: ["3C", "5C"] }).action, "exchange 3C 5C");
  assert.equal(notationFor(exchange), "exchange"); // no cards given: the first minCards (here none)
  assert.equal(notationFor(play, ["KS"]), "play AS"); // cards matter only for an exchange
});

test("an action without a notation is refused", () => {
  assert.throws(() => requestFor(action({ kind: ActionKind.PLAY, card: "AS" }), "g"), RangeError);
});

test("sendMove calls Act and returns the view", async () => {
  const calls: string[] = [];
  const view = create(GameViewSchema, { gameId: "g", version: 3n });
  const client = new Proxy({}, {
    get: (_target, method: string) => async (request: { gameId: string; action: string }) => {
      calls.push(`${method}:${request.gameId}:${request.action}`);
      return { view };
    },
  }) as GameServiceClient;
  assert.equal(await sendMove(client, requestFor(action({ kind: ActionKind.REVEAL, notation: "reveal" }), "g")), view);
  const name = action({ kind: ActionKind.NAME_SUIT, suit: Suit.CLUBS, notation: "name C" });
  assert.equal(await sendMove(client, requestFor(name, "g")), view);
  assert.deepEqual(calls, ["act:g:reveal", "act:g:name C"]);
});

test("retryInterceptor sends a refused unary call again, unchanged, and gives up in time", async () => {
  const seen: unknown[] = [];
  const failing = (codes: Code[]) => async (req: { message: unknown; stream: boolean }) => {
    seen.push(req.message);
    const code = codes.shift();
    if (code !== undefined) throw new ConnectError("busy", code);
    return { message: "ok" };
  };
  const request = { message: { requestId: "r1" }, stream: false };
  const retry = retryInterceptor(3, 1);
  // a minimal stand-in for Connect's request and response types
  const call = (codes: Code[]) => retry(failing(codes) as never)(request as never) as Promise<unknown>;
  assert.deepEqual(await call([Code.Unavailable, Code.Unavailable]), { message: "ok" });
  assert.equal(seen.length, 3);
  assert.ok(seen.every((m) => m === request.message));          // the same requestId each time
  await assert.rejects(call([Code.Unavailable, Code.Unavailable, Code.Unavailable, Code.Unavailable]));
  await assert.rejects(call([Code.InvalidArgument]), (err: ConnectError) => err.code === Code.InvalidArgument);
  // RESOURCE_EXHAUSTED without RetryInfo is a limit that waiting does not lift: not retried
  await assert.rejects(call([Code.ResourceExhausted]), (err: ConnectError) => err.code === Code.ResourceExhausted);
  assert.equal(seen.length, 3 + 4 + 1 + 1);                       // 1 + 3 retries, then no retry at all
});
