// requestFor and sendMove without a server: every LegalAction kind maps to the right request.
import assert from "node:assert/strict";
import { test } from "node:test";

import { type MessageInitShape, create } from "@bufbuild/protobuf";

import {
  ActionKind,
  BidKind,
  DrawChoice,
  type GameServiceClient,
  GameViewSchema,
  LegalActionSchema,
  type Move,
  Suit,
  requestFor,
  sendMove,
} from "../src/index.js";

const action = (init: MessageInitShape<typeof LegalActionSchema>) => create(LegalActionSchema, init);

test("each action kind maps to its method and request fields", () => {
  const cases: [MessageInitShape<typeof LegalActionSchema>, Move["method"], Record<string, unknown>][] = [
    [{ kind: ActionKind.DEAL }, "deal", {}],
    [{ kind: ActionKind.REVEAL }, "revealHand", {}],
    [{ kind: ActionKind.DRAW_KEEP }, "draw", { choice: DrawChoice.KEEP }],
    [{ kind: ActionKind.DRAW_DISCARD }, "draw", { choice: DrawChoice.DISCARD }],
    [{ kind: ActionKind.BID, tricks: 0 }, "bid", { kind: BidKind.TRICKS, tricks: 0 }],
    [{ kind: ActionKind.BID, tricks: 4 }, "bid", { kind: BidKind.TRICKS, tricks: 4 }],
    [{ kind: ActionKind.DOUBLE_NIL }, "bid", { kind: BidKind.DOUBLE_NIL }],
    [{ kind: ActionKind.ORDER_UP }, "bid", { kind: BidKind.ORDER_UP }],
    [{ kind: ActionKind.PASS }, "bid", { kind: BidKind.PASS }],
    [{ kind: ActionKind.NAME_SUIT, suit: Suit.HEARTS }, "bid", { kind: BidKind.NAME_SUIT, suit: Suit.HEARTS }],
    [{ kind: ActionKind.STAY_IN }, "bid", { kind: BidKind.STAY_IN }],
    [{ kind: ActionKind.DROP_OUT }, "bid", { kind: BidKind.DROP_OUT }],
    [{ kind: ActionKind.EXCHANGE, cards: ["9C", "JD", "AS"], minCards: 1, maxCards: 1 }, "exchange", { cards: ["9C"] }],
    [{ kind: ActionKind.PLAY, card: "10H" }, "play", { card: "10H" }],
  ];
  for (const [init, method, fields] of cases) {
    const move = requestFor(action(init), "g1");
    assert.equal(move.method, method, ActionKind[init.kind ?? 0]);
    assert.equal(move.request.gameId, "g1");
    assert.match(move.request.requestId, /^[0-9a-f-]{36}$/);
    assert.equal(move.request.expectedVersion, undefined);
    for (const [field, value] of Object.entries(fields)) {
      assert.deepEqual((move.request as unknown as Record<string, unknown>)[field], value, `${method}.${field}`);
    }
  }
});

test("request ids are fresh unless given; options pass through", () => {
  const play = action({ kind: ActionKind.PLAY, card: "AS" });
  assert.notEqual(requestFor(play, "g").request.requestId, requestFor(play, "g").request.requestId);
  const move = requestFor(play, "g", { requestId: "retry-1", expectedVersion: 7n });
  assert.equal(move.request.requestId, "retry-1");
  assert.equal(move.request.expectedVersion, 7n);
  const exchange = action({ kind: ActionKind.EXCHANGE, cards: ["2C", "3C", "4C", "5C"], minCards: 0, maxCards: 3 });
  const chosen = requestFor(exchange, "g", { cards: ["3C", "5C"] });
  assert.deepEqual(chosen.method === "exchange" && chosen.request.cards, ["3C", "5C"]);
  const fewest = requestFor(exchange, "g"); // no cards given: the first minCards (here none)
  assert.deepEqual(fewest.method === "exchange" && fewest.request.cards, []);
});

test("an unknown action kind is refused", () => {
  assert.throws(() => requestFor(action({ kind: ActionKind.UNSPECIFIED }), "g"), RangeError);
});

test("sendMove calls the move's method and returns the view", async () => {
  const calls: string[] = [];
  const view = create(GameViewSchema, { gameId: "g", version: 3n });
  const client = new Proxy({}, {
    get: (_target, method: string) => async (request: { gameId: string }) => {
      calls.push(`${method}:${request.gameId}`);
      return { view };
    },
  }) as GameServiceClient;
  assert.equal(await sendMove(client, requestFor(action({ kind: ActionKind.REVEAL }), "g")), view);
  assert.equal(await sendMove(client, requestFor(action({ kind: ActionKind.NAME_SUIT, suit: Suit.CLUBS }), "g")), view);
  assert.deepEqual(calls, ["revealHand:g", "bid:g"]);
});
