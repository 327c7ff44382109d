// What both entry points share (index.ts for Node, web.ts for browsers): the generated API
// (src/gen, produced by `make clients` from proto/, never edited) and the hand-written helpers,
// none of which depends on the transport or on Node.
import { create } from "@bufbuild/protobuf";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import {
  type CallOptions,
  type Client,
  Code,
  ConnectError,
  type Interceptor,
  type Transport,
  createClient as createConnectClient,
} from "@connectrpc/connect";

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

/** Options of `createClient` (both entry points). */
export interface ClientOptions {
  /** A seat token: sent as `authorization: Bearer <token>` on every call (none = spectator). */
  token?: string;
  /** Extra interceptors, run after the one adding the token. */
  interceptors?: Interceptor[];
  /** How often a unary call refused as UNAVAILABLE or RESOURCE_EXHAUSTED is tried again (default 3). */
  retries?: number;
  /**
   * "grpc" (HTTP/2, Node only: the server's gRPC port), "connect" or "grpc-web" (HTTP/1.1 or
   * fetch: the server's HTTP port). Default: "grpc" in Node, "connect" in browsers.
   */
  protocol?: Protocol;
  /** Protobuf binary rather than JSON on the wire (default: JSON for "connect", binary otherwise). */
  binary?: boolean;
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

/** How a client reaches the server (see {@link ClientOptions.protocol}). */
export type Protocol = "grpc" | "connect" | "grpc-web";

/** What a transport factory of an entry point is given. */
export interface TransportSettings {
  baseUrl: string;
  protocol: Protocol;
  binary: boolean;
  interceptors: Interceptor[];
}

/**
 * A GameService client on the transport `transportFor` makes: the retry interceptor first, then
 * the one adding the seat token, then the caller's own.
 */
export function clientOn(
  transportFor: (settings: TransportSettings) => Transport,
  baseUrl: string,
  defaultProtocol: Protocol,
  options: ClientOptions,
): GameServiceClient {
  const interceptors: Interceptor[] = [retryInterceptor(options.retries ?? 3)];
  const { token } = options;
  if (token !== undefined) {
    interceptors.push((next) => (req) => {
      req.header.set("authorization", `Bearer ${token}`);
      return next(req);
    });
  }
  interceptors.push(...(options.interceptors ?? []));
  const protocol = options.protocol ?? defaultProtocol;
  const binary = options.binary ?? protocol !== "connect";
  return createConnectClient(GameService, transportFor({ baseUrl, protocol, binary, interceptors }));
}

/** A random RFC 4122 version 4 UUID, also on pages served over plain HTTP (no secure context). */
export function newRequestId(): string {
  const webCrypto = globalThis.crypto;
  if (typeof webCrypto.randomUUID === "function") return webCrypto.randomUUID();
  const bytes = webCrypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
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
  const { requestId = newRequestId(), expectedVersion } = options;
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
  }, options.timeoutMs);
  (timer as { unref?: () => void } | undefined)?.unref?.(); // Node: the timer alone keeps nothing running
  try {
    for await (const { view } of client.watchGame({ gameId, fromVersion: options.fromVersion ?? 0n }, { signal })) {
      if (view !== undefined) yield view;
    }
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
}
