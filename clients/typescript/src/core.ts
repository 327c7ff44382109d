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

import { ActionShape, type GameStatus } from "./gen/cardgame/v1/enums_pb.js";
import { type ActRequest, ActRequestSchema, GameService } from "./gen/cardgame/v1/game_service_pb.js";
import type { Event, GameSummary, HistoryEntry } from "./gen/cardgame/v1/lifecycle_pb.js";
import type { GameView, LegalAction } from "./gen/cardgame/v1/view_pb.js";

export * from "./gen/cardgame/v1/catalog_pb.js";
export * from "./gen/cardgame/v1/enums_pb.js";
export * from "./gen/cardgame/v1/game_service_pb.js";
export * from "./gen/cardgame/v1/lifecycle_pb.js";
export * from "./gen/cardgame/v1/options_pb.js";
export * from "./gen/cardgame/v1/score_pb.js";
export * from "./gen/cardgame/v1/view_pb.js";
export { Code, ConnectError } from "@connectrpc/connect";
export type { CallOptions, Interceptor } from "@connectrpc/connect";

/** A typed client of cardgame.v1.GameService. */
export type GameServiceClient = Client<typeof GameService>;

/** Options of `createClient` (both entry points). */
export interface ClientOptions {
  /** A seat token: sent as `authorization: Bearer <token>` on every call (none = spectator). */
  token?: string;
  /**
   * The backend's API key: sent as `x-api-key` on every call. A server configured with keys
   * requires it for CreateGame and the backend's calls (ListGames, DeleteGame, ReissueSeatToken,
   * WatchEvents, Rematch), which act only on games created with the same key id.
   */
  apiKey?: string;
  /** Extra interceptors, run (on every attempt) after the ones adding the token and the API key. */
  interceptors?: Interceptor[];
  /** How often a unary call refused as UNAVAILABLE or RESOURCE_EXHAUSTED is tried again (default 3). */
  retries?: number;
  /**
   * The retry policy of unary calls (see {@link retryInterceptor}): its fields override the
   * defaults ({@link DEFAULT_RETRY}, `retries` from the option above); `false` turns retrying off.
   */
  retry?: RetryOptions | false;
  /**
   * "grpc" (HTTP/2, Node only: the server's gRPC port), "connect" or "grpc-web" (HTTP/1.1 or
   * fetch: the server's HTTP port). Default: "grpc" in Node, "connect" in browsers.
   */
  protocol?: Protocol;
  /** Protobuf binary rather than JSON on the wire (default: JSON for "connect", binary otherwise). */
  binary?: boolean;
}

/** The longest wait a server's RetryInfo may ask for that the retry interceptor waits out. */
export const MAX_RETRY_DELAY_MS = 5000;

/** How {@link retryInterceptor} retries a unary call. */
export interface RetryOptions {
  /** Retries after the first attempt (0 = none). */
  retries?: number;
  /** The backoff before the first retry, doubled for each further one. */
  baseDelayMs?: number;
  /** The cap on a retry's backoff (before jitter). */
  maxBackoffMs?: number;
  /** A refusal whose RetryInfo asks for a longer wait is given up at once (the caller decides). */
  maxRetryDelayMs?: number;
}

/** The retry policy of a client created without `retry` options. */
export const DEFAULT_RETRY: Readonly<Required<RetryOptions>> = {
  retries: 3,
  baseDelayMs: 50,
  maxBackoffMs: 1000,
  maxRetryDelayMs: MAX_RETRY_DELAY_MS,
};

/** Whether a failed call may be tried again: UNAVAILABLE, or RESOURCE_EXHAUSTED with a RetryInfo delay. */
export function isRetryable(err: unknown): boolean {
  if (!(err instanceof ConnectError)) return false;
  return err.code === Code.Unavailable || (err.code === Code.ResourceExhausted && retryDelayMs(err) !== undefined);
}

/**
 * Retries a unary call refused as UNAVAILABLE (a server restarting or failing over, a store
 * failure) or as RESOURCE_EXHAUSTED with a `google.rpc.RetryInfo` delay (a busy server, a
 * rate-limited CreateGame; one without a delay is a limit that waiting does not lift), at most
 * `retries` times, each after an exponential backoff (`baseDelayMs` doubled per retry, at most
 * `maxBackoffMs`) with jitter (x0.5 to x1.5), and never sooner than the RetryInfo asks; a refusal
 * asking for more than `maxRetryDelayMs` is given up at once. The request is sent again
 * unchanged, its `requestId` included, so a move whose first answer was lost is never applied
 * twice. DeleteGame carries no request id: a retry of it answered NOT_FOUND means an earlier
 * attempt deleted the game, and counts as done. Streams are not retried here (followEvents
 * resumes its own). Also callable with the former positional arguments
 * `(retries, baseDelayMs, maxRetryDelayMs)`.
 */
export function retryInterceptor(
  options: RetryOptions | number = {},
  baseDelayMs?: number,
  maxRetryDelayMs?: number,
): Interceptor {
  const given = typeof options === "number" ? { retries: options, baseDelayMs, maxRetryDelayMs } : options;
  const policy = { ...DEFAULT_RETRY };
  for (const [key, value] of Object.entries(given) as [keyof RetryOptions, number | undefined][]) {
    if (value === undefined) continue;
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`retry option ${key} must be a number >= 0`);
    policy[key] = value;
  }
  return (next) => async (req) => {
    let mayHaveRun = false;   // an earlier attempt's answer was lost: it may have run on the server
    for (let attempt = 0; ; attempt++) {
      let askedMs: number | undefined;
      try {
        return await next(req);
      } catch (err) {
        if (mayHaveRun && !req.stream && req.method?.name === "DeleteGame" && err instanceof ConnectError
          && err.code === Code.NotFound) {
          const done = { stream: false as const, service: req.service, method: req.method, header: new Headers(),
            trailer: new Headers(), message: create(req.method.output) };
          return done as Awaited<ReturnType<typeof next>>;
        }
        askedMs = retryDelayMs(err);
        if (req.stream || !isRetryable(err) || attempt >= policy.retries || (askedMs ?? 0) > policy.maxRetryDelayMs) {
          throw err;
        }
        // a refusal (RESOURCE_EXHAUSTED) was never applied; a lost answer may have been
        mayHaveRun ||= err instanceof ConnectError && err.code !== Code.ResourceExhausted;
      }
      const backoffMs = Math.min(policy.baseDelayMs * 2 ** attempt, policy.maxBackoffMs) * (0.5 + Math.random());
      await sleep(Math.max(backoffMs, askedMs ?? 0), req.signal);
    }
  };
}

/** Resolves after `ms` milliseconds, or rejects as soon as `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(ConnectError.from(signal.reason, Code.Canceled));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(ConnectError.from(signal?.reason, Code.Canceled));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Gives a unary request whose `requestId` is empty a fresh one (a random UUID) before it is first
 * sent, so the retries of a mutating call (a move, CreateGame, LeaveGame, ReissueSeatToken,
 * Rematch) carry the same id and the server applies it once.
 */
export function requestIdInterceptor(): Interceptor {
  return (next) => (req) => {
    if (!req.stream && "requestId" in req.message && req.message.requestId === "") {
      return next({ ...req, message: { ...req.message, requestId: newRequestId() } } as typeof req);
    }
    return next(req);
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
 * A GameService client on the transport `transportFor` makes: the request id interceptor first,
 * then the retry interceptor (unless `retry: false`), then the ones adding the seat token and the
 * API key, then the caller's own.
 */
export function clientOn(
  transportFor: (settings: TransportSettings) => Transport,
  baseUrl: string,
  defaultProtocol: Protocol,
  options: ClientOptions,
): GameServiceClient {
  const interceptors: Interceptor[] = [requestIdInterceptor()];
  if (options.retry !== false) {
    interceptors.push(retryInterceptor({ retries: options.retries, ...options.retry }));
  }
  const { token, apiKey } = options;
  if (token !== undefined) {
    interceptors.push((next) => (req) => {
      req.header.set("authorization", `Bearer ${token}`);
      return next(req);
    });
  }
  if (apiKey !== undefined) {
    interceptors.push((next) => (req) => {
      req.header.set("x-api-key", apiKey);
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

/** The bytes of a failed call's first status detail of type `type` (e.g. "google.rpc.ErrorInfo"). */
function detailBytes(err: unknown, type: string): Uint8Array | undefined {
  if (!(err instanceof ConnectError)) return undefined;
  for (const detail of err.details) {
    if ("type" in detail && detail.type === type) return detail.value;
  }
  return undefined;
}

/**
 * The `google.rpc.ErrorInfo` reason of a failed call (e.g. "MUST_FOLLOW_SUIT", "NOT_AWAY",
 * "RATE_LIMITED"), if any.
 */
export function errorReason(err: unknown): string | undefined {
  const bytes = detailBytes(err, "google.rpc.ErrorInfo");
  if (bytes === undefined) return undefined;
  // ErrorInfo { string reason = 1; string domain = 2; map<string, string> metadata = 3; }
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1 && wireType === WireType.LengthDelimited) return reader.string();
    reader.skip(wireType);
  }
  return undefined;
}

/**
 * How long a failed call's `google.rpc.RetryInfo` asks the caller to wait before trying again, in
 * milliseconds (a rate-limited CreateGame carries one), if it carries one.
 */
export function retryDelayMs(err: unknown): number | undefined {
  const bytes = detailBytes(err, "google.rpc.RetryInfo");
  if (bytes === undefined) return undefined;
  // RetryInfo { google.protobuf.Duration retry_delay = 1; }  Duration { int64 seconds = 1; int32 nanos = 2; }
  let delayMs = 0;
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field !== 1 || wireType !== WireType.LengthDelimited) {
      reader.skip(wireType);
      continue;
    }
    const duration = new BinaryReader(reader.bytes());
    while (duration.pos < duration.len) {
      const [part, partType] = duration.tag();
      if (part === 1 && partType === WireType.Varint) delayMs += Number(duration.int64()) * 1000;
      else if (part === 2 && partType === WireType.Varint) delayMs += duration.int32() / 1e6;
      else duration.skip(partType);
    }
  }
  return delayMs;
}

/** Options of {@link requestFor}. */
export interface MoveOptions {
  /** The idempotency key; a fresh random UUID when absent. Reuse it only to retry a move. */
  requestId?: string;
  /** When set, the move fails with ABORTED unless the game is at this version. */
  expectedVersion?: bigint;
  /**
   * For an action that chooses cards (shape ACTION_SHAPE_CARDS, e.g. "exchange" or "pass"):
   * the chosen cards, between `minCards` and `maxCards` of `action.cards`. When absent, the
   * first `minCards` of `action.cards`.
   */
  cards?: readonly string[];
}

/**
 * The Act notation that takes `action` (one of a view's `legalActions`): its `notation`, or for
 * an action that chooses cards (shape ACTION_SHAPE_CARDS) its word followed by the chosen cards,
 * e.g. "exchange 2C 3D 4H".
 */
export function notationFor(action: LegalAction, cards?: readonly string[]): string {
  if (action.shape === ActionShape.CARDS || action.maxCards > 0) {
    return [action.notation, ...(cards ?? action.cards.slice(0, action.minCards))].join(" ");
  }
  if (action.notation === "") throw new RangeError(`action ${JSON.stringify(action.word)} has no notation`);
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

/** Codes after which a stream is opened again: the server went away or the connection broke. */
const RECONNECTABLE = new Set([Code.Unavailable, Code.Canceled, Code.Internal, Code.Unknown, Code.DeadlineExceeded]);

/** Options of {@link watchViews}. */
export interface WatchOptions {
  /** The last version the caller has seen: the stream starts after it (0 = from the current view). */
  fromVersion?: bigint;
  /** Cancels the stream. */
  signal?: AbortSignal;
  /** Ends the stream with DEADLINE_EXCEEDED after this many milliseconds. */
  timeoutMs?: number;
  /** How long the server may stay unreachable before the stream fails with its last error (default 30 s). */
  reconnectTimeoutMs?: number;
}

/**
 * The caller's view of a game after every change, from WatchGame. When the connection is lost
 * or the server ends the stream with UNAVAILABLE (a server shutting down ends its streams so),
 * the stream is opened again at once from the last version seen, so no view is repeated or
 * missed; it fails with the last error once the server stays unreachable for
 * `reconnectTimeoutMs`, or at once on an error that reconnecting does not cure. Leaving the loop
 * early (`break`, `return`, a throw) cancels the call, so no stream or timer keeps Node running.
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
  const reconnectMs = options.reconnectTimeoutMs ?? 30_000;
  let last = options.fromVersion ?? 0n;
  let downSince: number | undefined;
  try {
    for (let attempt = 0; ; attempt++) {
      const opened = Date.now();
      let received = false;
      try {
        for await (const { view } of client.watchGame({ gameId, fromVersion: last }, { signal })) {
          if (view === undefined) continue;
          received = true;
          if (view.version <= last) continue;
          last = view.version;
          yield view;
        }
        return; // the server ends the stream after the game's last view
      } catch (err) {
        if (signal.aborted) throw err;
        const code = err instanceof ConnectError ? err.code : undefined;
        if (code === undefined || !RECONNECTABLE.has(code)) throw err;
        const now = Date.now();
        if (downSince === undefined || received || now - opened > 1000) downSince = now; // a new outage
        if (now - downSince > reconnectMs) throw err;
        if (received || now - opened > 1000) attempt = 0;
      }
      await sleep(Math.min(50 * 2 ** attempt, 1000) * (0.5 + Math.random()), signal);
    }
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
}

/** Sends Act "back": a seat marked away (it let too many turns pass their deadline) plays its own turns again. */
export function sendBack(client: GameServiceClient, gameId: string, options?: CallOptions): Promise<GameView> {
  return sendMove(client, create(ActRequestSchema, { gameId, requestId: newRequestId(), action: "back" }), options);
}

/** The filters of {@link listAllGames}, as ListGamesRequest has them. */
export interface GameFilters {
  /** Only games with every one of these labels (key and value equal). */
  labels?: Record<string, string>;
  /** Only games with a seat of this external player id. */
  externalPlayerId?: string;
  /** Only games in this status (GameStatus.UNSPECIFIED or absent: any). */
  status?: GameStatus;
  /** Games per page (0 or absent: the server's 50; at most 200). */
  pageSize?: number;
}

/**
 * Every game of the caller's that matches `filters`, newest first, from ListGames page after page
 * (a page may hold fewer than `pageSize` games even when more follow).
 */
export async function* listAllGames(
  client: GameServiceClient,
  filters: GameFilters = {},
  options?: CallOptions,
): AsyncGenerator<GameSummary, void, undefined> {
  let pageToken = "";
  do {
    const page = await client.listGames({ ...filters, pageToken }, options);
    yield* page.games;
    pageToken = page.nextPageToken;
  } while (pageToken !== "");
}

/** Where {@link allHistoryEntries} starts and how big its pages are, as GetHistoryRequest has them. */
export interface HistoryPages {
  /** The page token to continue after ("" or absent: from the first entry). */
  pageToken?: string;
  /** Entries per page (0 or absent: the server's 1000; more than 5000: 5000). */
  pageSize?: number;
}

/**
 * Every entry of a game's log (as far as the caller may know it), in order, from GetHistory page
 * after page until a page's `nextPageToken` is empty (AIP-158). Each page shows its entries as of
 * the version it was read at, so while the game is played on, later pages may reach past the first.
 */
export async function* allHistoryEntries(
  client: GameServiceClient,
  gameId: string,
  pages: HistoryPages = {},
  options?: CallOptions,
): AsyncGenerator<HistoryEntry, void, undefined> {
  let pageToken = pages.pageToken ?? "";
  do {
    const page = await client.getHistory({ gameId, pageToken, pageSize: pages.pageSize ?? 0 }, options);
    yield* page.entries;
    pageToken = page.nextPageToken;
  } while (pageToken !== "");
}

/** Options of {@link followEvents}. */
export interface EventOptions {
  /** Start after this event id (Event.id); empty or absent: from the oldest event kept. */
  afterId?: string;
  /** Ends the stream (the loop then ends without an error). */
  signal?: AbortSignal;
  /** How long the server may stay unreachable before the stream fails with its last error (default 30 s). */
  reconnectTimeoutMs?: number;
}

/**
 * The events of the caller's games (hand end, game over, timeout, leave, delete) from WatchEvents,
 * each once and in order per game, waiting for new ones for as long as the loop runs. When the
 * connection is lost the stream is opened again after the last event seen. Leaving the loop
 * (or `signal`) cancels the call; keep the last event's `id` to resume later.
 */
export async function* followEvents(
  client: GameServiceClient,
  options: EventOptions = {},
): AsyncGenerator<Event, void, undefined> {
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const reconnectMs = options.reconnectTimeoutMs ?? 30_000;
  let afterId = options.afterId ?? "";
  let downSince: number | undefined;
  try {
    for (let attempt = 0; !signal.aborted; attempt++) {
      const opened = Date.now();
      let received = false;
      try {
        for await (const { event } of client.watchEvents({ afterId }, { signal })) {
          if (event === undefined) continue;
          received = true;
          afterId = event.id;
          yield event;
        }
      } catch (err) {
        if (signal.aborted) return;
        const code = err instanceof ConnectError ? err.code : undefined;
        if (code === undefined || !RECONNECTABLE.has(code)) throw err;
        const now = Date.now();
        if (downSince === undefined || received || now - opened > 1000) downSince = now; // a new outage
        if (now - downSince > reconnectMs) throw err;
      }
      // A stream that delivered, or stayed open a while (a server draining ends idle ones too),
      // is a new outage: reconnect after the first, short delay.
      if (received || Date.now() - opened > 1000) attempt = 0;
      await sleep(Math.min(100 * 2 ** attempt, 1000), signal).catch(() => undefined);
    }
  } finally {
    stop.abort();
  }
}
