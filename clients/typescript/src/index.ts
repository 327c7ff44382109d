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
import { type ActRequest, ActRequestSchema, GameService } from "./gen/cardgame/v1/game_service_pb.js";
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
  /** How often a unary call refused as UNAVAILABLE or RESOURCE_EXHAUSTED is tried again (default 3). */
  retries?: number;
}

/**
 * Retries a unary call refused as UNAVAILABLE or RESOURCE_EXHAUSTED, after a jittered exponential
 * backoff (from `baseDelayMs`, at most one second). The request is sent again unchanged, its
 * `requestId` included, so a move whose first answer was lost is never applied twice.
 */
export function retryInterceptor(retries = 3, baseDelayMs = 50): Interceptor {
  return (next) => async (req) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await next(req);
      } catch (err) {
        const code = err instanceof ConnectError ? err.code : undefined;
        const retryable = code === Code.Unavailable || code === Code.ResourceExhausted;
        if (req.stream || !retryable || attempt >= retries) throw err;
      }
      const delayMs = Math.min(baseDelayMs * 2 ** attempt, 1000) * (0.5 + Math.random());
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  };
}

/** A GameService client speaking gRPC over HTTP/2 to `baseUrl`, e.g. "http://localhost:50051". */
export function createClient(baseUrl: string, options: ClientOptions = {}): GameServiceClient {
  const interceptors: Interceptor[] = [retryInterceptor(options.retries ?? 3)];
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

/**
 * The Act notation that takes `action` (one of a view's `legalActions`): its `notation`, or
 * for an exchange "exchange" followed by the chosen cards, e.g. "exchange 2C 3D 4H".
 */
export function notationFor(action: LegalAction, cards?: readonly string[]): string {
  if (action.kind === ActionKind.EXCHANGE) {
    return ["exchange", ...(cards ?? action.cards.slice(0, action.minCards))].join(" ");
  }
  if (action.notation === "") throw new RangeError(`action kind ${action.kind} has no notation`);
  return action.notation;
}

/**
 * The ActRequest that takes `action` (one of a view's `legalActions`) in game `gameId`.
 * Send it with {@link sendMove}.
 */
export function requestFor(action: LegalAction, gameId: string, options: MoveOptions = {}): ActRequest {
  const { requestId = randomUUID(), expectedVersion } = options;
  const notation = notationFor(action, options.cards);
  return create(ActRequestSchema, { gameId, requestId, expectedVersion, action: notation });
}

/** Sends an ActRequest; resolves to the caller's view after it and any bot turns it caused. */
export async function sendMove(
  client: GameServiceClient,
  request: ActRequest,
  options?: CallOptions,
): Promise<GameView> {
  const { view } = await client.act(request, options);
  if (view === undefined) throw new Error(`${request.action}: the response carries no view`);
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
