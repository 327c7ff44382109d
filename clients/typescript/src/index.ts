// The TypeScript client of cardgame.v1.GameService: the generated API (src/gen, produced by
// `make clients` from proto/, never edited) plus a few hand-written helpers.
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import { type Client, ConnectError, type Interceptor, createClient as createConnectClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";

import { GameService } from "./gen/cardgame/v1/game_service_pb.js";

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
