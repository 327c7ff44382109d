// requestFor, notationFor and sendMove without a server: every LegalAction becomes an ActRequest.
import assert from "node:assert/strict";
import { test } from "node:test";

import { type MessageInitShape, create } from "@bufbuild/protobuf";

import {
  ActionShape,
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

const { NONE, CARD, NUMBER, SUIT, CARDS } = ActionShape;

test("each action becomes an ActRequest carrying its notation, whatever its word", () => {
  const cases: [MessageInitShape<typeof LegalActionSchema>, string][] = [
    [{ word: "deal", shape: NONE, notation: "deal" }, "deal"],
    [{ word: "reveal", shape: NONE, notation: "reveal" }, "reveal"],
    [{ word: "keep", shape: NONE, notation: "keep" }, "keep"],
    [{ word: "discard", shape: NONE, notation: "discard" }, "discard"],
    [{ word: "bid", shape: NUMBER, number: 0, numberName: "nil", notation: "bid 0" }, "bid 0"],
    [{ word: "bid", shape: NUMBER, number: 4, notation: "bid 4" }, "bid 4"],
    [{ word: "double-nil", shape: NONE, notation: "double-nil" }, "double-nil"],
    [{ word: "order-up", shape: NONE, notation: "order-up" }, "order-up"],
    [{ word: "pass", shape: NONE, notation: "pass" }, "pass"],
    [{ word: "name", shape: SUIT, suit: Suit.HEARTS, notation: "name H" }, "name H"],
    [{ word: "stay", shape: NONE, notation: "stay" }, "stay"],
    [{ word: "drop", shape: NONE, notation: "drop" }, "drop"],
    [{ word: "exchange", shape: CARDS, notation: "exchange", cards: ["9C", "JD", "AS"], minCards: 1, maxCards: 1 },
      "exchange 9C"],
    [{ word: "pass", shape: CARDS, notation: "pass", cards: ["2C", "QS", "AH", "KH"], minCards: 3, maxCards: 3 },
      "pass 2C QS AH"],
    [{ word: "play", shape: CARD, card: "10H", notation: "play 10H" }, "play 10H"],
    // a word no built-in game has: the client needs nothing but the action itself
    [{ word: "call", shape: SUIT, suit: Suit.SPADES, notation: "call S" }, "call S"],
    [{ word: "no-trump", shape: NONE, notation: "no-trump" }, "no-trump"],
  ];
  for (const [init, notation] of cases) {
    const request = requestFor(action(init), "g1");
    assert.equal(request.action, notation, `${init.word} (${ActionShape[init.shape ?? 0]})`);
    assert.equal(request.gameId, "g1");
    assert.match(request.requestId, /^[0-9a-f-]{36}$/);
    assert.equal(request.expectedVersion, undefined);
  }
});

test("request ids are fresh unless given; options pass through", () => {
  const play = action({ word: "play", shape: CARD, card: "AS", notation: "play AS" });
  assert.notEqual(requestFor(play, "g").requestId, requestFor(play, "g").requestId);
  const request = requestFor(play, "g", { requestId: "retry-1", expectedVersion: 7n });
  assert.equal(request.requestId, "retry-1");
  assert.equal(request.expectedVersion, 7n);
  const exchange = action({
    word: "exchange", shape: CARDS, notation: "exchange", cards: ["2C", "3C", "4C", "5C"], minCards: 0, maxCards: 3,
  });
  assert.equal(requestFor(exchange, "g", { cards: ["3C", "5C"] }).action, "exchange 3C 5C");
  assert.equal(notationFor(exchange), "exchange"); // no cards given: the first minCards (here none)
  assert.equal(notationFor(play, ["KS"]), "play AS"); // cards matter only for an action choosing cards
});

test("an action without a notation is refused, naming its word", () => {
  assert.throws(() => requestFor(action({ word: "play", shape: CARD, card: "AS" }), "g"),
    (err: Error) => err instanceof RangeError && /"play"/.test(err.message) && !/kind/.test(err.message));
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
  assert.equal(await sendMove(client, requestFor(action({ word: "reveal", shape: NONE, notation: "reveal" }), "g")), view);
  const name = action({ word: "name", shape: SUIT, suit: Suit.CLUBS, notation: "name C" });
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
