// The TypeScript client of cardgame.v1.GameService: the generated API (src/gen, produced by
// `make clients` from proto/, never edited) plus a few hand-written helpers.
import { randomUUID } from "node:crypto";

import { create } from "@bufbuild/protobuf";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import {
  type CallOptions,
  type Client,
  Code,
  ConnectError,
  type Interceptor,
  createClient as createConnectClient,
} from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";

import { ActionKind } from "./gen/cardgame/v1/enums_pb.js";
import {
  BidKind,
  type BidRequest,
  BidRequestSchema,
  type DealRequest,
  DealRequestSchema,
  DrawChoice,
  type DrawRequest,
  DrawRequestSchema,
  type ExchangeRequest,
  ExchangeRequestSchema,
  GameService,
  type PlayRequest,
  PlayRequestSchema,
  type RevealHandRequest,
  RevealHandRequestSchema,
} from "./gen/cardgame/v1/game_service_pb.js";
import type { GameView, LegalAction } from "./gen/cardgame/v1/view_pb.js";

export * from "./gen/cardgame/v1/enums_pb.js";
export * from "./gen/cardgame/v1/game_service_pb.js";
export * from "./gen/cardgame/v1/options_pb.js";
export * from "./gen/cardgame/v1/score_pb.js";
export * from "./gen/cardgame/v1/view_pb.js";
export { Code, ConnectError } from "@connectrpc/connect";

/** A typed client of cardgame.v1.GameService. */
export type GameServiceClient = Client<typeof GameService>;

/** Options of {@link createClient}. */
export interface ClientOptions {
  /** A seat token: sent as `authorization: Bearer <token>` on every call (none = spectator). */
  token?: string;
  /** Extra interceptors, run after the one adding the token. */
  interceptors?: Interceptor[];
}

/** A GameService client speaking gRPC over HTTP/2 to `baseUrl`, e.g. "http://localhost:50051". */
export function createClient(baseUrl: string, options: ClientOptions = {}): GameServiceClient {
  const interceptors: Interceptor[] = [];
  const { token } = options;
  if (token !== undefined) {
    interceptors.push((next) => (req) => {
      req.header.set("authorization", `Bearer ${token}`);
      return next(req);
    });
  }
  interceptors.push(...(options.interceptors ?? []));
  const transport = createGrpcTransport({ baseUrl, interceptors }); // gRPC over HTTP/2
  return createConnectClient(GameService, transport);
}

/** The `google.rpc.ErrorInfo` reason of a failed call (e.g. "MUST_FOLLOW_SUIT"), if any. */
export function errorReason(err: unknown): string | undefined {
  if (!(err instanceof ConnectError)) return undefined;
  for (const detail of err.details) {
    if ("type" in detail && detail.type === "google.rpc.ErrorInfo") {
      // ErrorInfo { string reason = 1; string domain = 2; map<string, string> metadata = 3; }
      const reader = new BinaryReader(detail.value);
      while (reader.pos < reader.len) {
        const [field, wireType] = reader.tag();
        if (field === 1 && wireType === WireType.LengthDelimited) return reader.string();
        reader.skip(wireType);
      }
    }
  }
  return undefined;
}

/** The GameService method that performs a {@link LegalAction}, with its request. */
export type Move =
  | { method: "deal"; request: DealRequest }
  | { method: "revealHand"; request: RevealHandRequest }
  | { method: "draw"; request: DrawRequest }
  | { method: "bid"; request: BidRequest }
  | { method: "exchange"; request: ExchangeRequest }
  | { method: "play"; request: PlayRequest };

/** Options of {@link requestFor}. */
export interface MoveOptions {
  /** The idempotency key; a fresh random UUID when absent. Reuse it only to retry a move. */
  requestId?: string;
  /** When set, the move fails with ABORTED unless the game is at this version. */
  expectedVersion?: bigint;
  /**
   * ACTION_KIND_EXCHANGE: the chosen cards, between `minCards` and `maxCards` of
   * `action.cards`. When absent, the first `minCards` of `action.cards`.
   */
  cards?: readonly string[];
}

const BID_KINDS: Partial<Record<ActionKind, BidKind>> = {
  [ActionKind.DOUBLE_NIL]: BidKind.DOUBLE_NIL,
  [ActionKind.ORDER_UP]: BidKind.ORDER_UP,
  [ActionKind.PASS]: BidKind.PASS,
  [ActionKind.STAY_IN]: BidKind.STAY_IN,
  [ActionKind.DROP_OUT]: BidKind.DROP_OUT,
};

/**
 * The move that takes `action` (one of a view's `legalActions`) in game `gameId`: which
 * method to call and its request. Send it with {@link sendMove}.
 */
export function requestFor(action: LegalAction, gameId: string, options: MoveOptions = {}): Move {
  const { requestId = randomUUID(), expectedVersion } = options;
  const base = { gameId, requestId, expectedVersion };
  switch (action.kind) {
    case ActionKind.DEAL:
      return { method: "deal", request: create(DealRequestSchema, base) };
    case ActionKind.REVEAL:
      return { method: "revealHand", request: create(RevealHandRequestSchema, base) };
    case ActionKind.DRAW_KEEP:
    case ActionKind.DRAW_DISCARD: {
      const choice = action.kind === ActionKind.DRAW_KEEP ? DrawChoice.KEEP : DrawChoice.DISCARD;
      return { method: "draw", request: create(DrawRequestSchema, { ...base, choice }) };
    }
    case ActionKind.BID: {
      const request = create(BidRequestSchema, { ...base, kind: BidKind.TRICKS, tricks: action.tricks });
      return { method: "bid", request };
    }
    case ActionKind.NAME_SUIT: {
      const request = create(BidRequestSchema, { ...base, kind: BidKind.NAME_SUIT, suit: action.suit });
      return { method: "bid", request };
    }
    case ActionKind.EXCHANGE: {
      const cards = [...(options.cards ?? action.cards.slice(0, action.minCards))];
      return { method: "exchange", request: create(ExchangeRequestSchema, { ...base, cards }) };
    }
    case ActionKind.PLAY:
      return { method: "play", request: create(PlayRequestSchema, { ...base, card: action.card }) };
    default: {
      const kind = BID_KINDS[action.kind];
      if (kind === undefined) throw new RangeError(`no request performs action kind ${action.kind}`);
      return { method: "bid", request: create(BidRequestSchema, { ...base, kind }) };
    }
  }
}

/** Sends a {@link Move}; resolves to the caller's view after it and any bot turns it caused. */
export async function sendMove(client: GameServiceClient, move: Move, options?: CallOptions): Promise<GameView> {
  let view: GameView | undefined;
  switch (move.method) {
    case "deal":
      ({ view } = await client.deal(move.request, options));
      break;
    case "revealHand":
      ({ view } = await client.revealHand(move.request, options));
      break;
    case "draw":
      ({ view } = await client.draw(move.request, options));
      break;
    case "bid":
      ({ view } = await client.bid(move.request, options));
      break;
    case "exchange":
      ({ view } = await client.exchange(move.request, options));
      break;
    case "play":
      ({ view } = await client.play(move.request, options));
      break;
  }
  if (view === undefined) throw new Error(`${move.method}: the response carries no view`);
  return view;
}

/** Options of {@link watchViews}. */
export interface WatchOptions {
  /** The last version the caller has seen: the stream starts after it (0 = from the current view). */
  fromVersion?: bigint;
  /** Cancels the stream. */
  signal?: AbortSignal;
  /** Ends the stream with DEADLINE_EXCEEDED after this many milliseconds. */
  timeoutMs?: number;
}

/**
 * The caller's view of a game after every change, from WatchGame. Leaving the loop early
 * (`break`, `return`, a throw) cancels the call, so no stream or timer keeps Node running.
 */
export async function* watchViews(
  client: GameServiceClient,
  gameId: string,
  options: WatchOptions = {},
): AsyncGenerator<GameView, void, undefined> {
  // Leaving a `for await` over a Connect stream does not cancel the call by itself, and the
  // timer of a `timeoutMs` call option outlives a cancelled call: abort and time out here.
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => {
    stop.abort(new ConnectError(`WatchGame timed out after ${options.timeoutMs} ms`, Code.DeadlineExceeded));
  }, options.timeoutMs).unref();
  try {
    for await (const { view } of client.watchGame({ gameId, fromVersion: options.fromVersion ?? 0n }, { signal })) {
      if (view !== undefined) yield view;
    }
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
}
