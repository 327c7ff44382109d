// The TypeScript client of cardgame.v1.GameService for browsers (`@cardgame/client/web`): the same
// API as the Node entry (index.ts), on connect-web's fetch transports, to the server's HTTP port.
import type { Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";

import { type ClientOptions, type GameServiceClient, type TransportSettings, clientOn } from "./core.js";

export * from "./core.js";

function webTransport({ baseUrl, protocol, binary, interceptors }: TransportSettings): Transport {
  switch (protocol) {
    case "connect":
      return createConnectTransport({ baseUrl, useBinaryFormat: binary, interceptors });
    case "grpc-web":
      return createGrpcWebTransport({ baseUrl, useBinaryFormat: binary, interceptors });
    case "grpc":
      throw new RangeError('browsers cannot speak gRPC itself: use protocol "connect" or "grpc-web"');
  }
}

/**
 * A GameService client for the server's HTTP port at `baseUrl`, e.g. `location.origin` for a page
 * the server serves, or "http://localhost:8080" from an origin it allows (--cors-origin). Speaks
 * the Connect protocol (JSON) unless `protocol: "grpc-web"` (binary) is asked for.
 */
export function createClient(baseUrl: string, options: ClientOptions = {}): GameServiceClient {
  return clientOn(webTransport, baseUrl, "connect", options);
}
