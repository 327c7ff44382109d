// The TypeScript client of cardgame.v1.GameService for Node 20+: the generated API and helpers
// (core.ts) on Connect's Node transports. Browsers use web.ts (`@cardgame/client/web`), which
// offers the same API over fetch.
import type { Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";

import { type ClientOptions, type GameServiceClient, type TransportSettings, clientOn } from "./core.js";

export * from "./core.js";

function nodeTransport({ baseUrl, protocol, binary, interceptors }: TransportSettings): Transport {
  switch (protocol) {
    case "grpc":
      return createGrpcTransport({ baseUrl, interceptors }); // gRPC over HTTP/2
    case "connect":
      return createConnectTransport({ baseUrl, httpVersion: "1.1", useBinaryFormat: binary, interceptors });
    case "grpc-web":
      return createGrpcWebTransport({ baseUrl, httpVersion: "1.1", useBinaryFormat: binary, interceptors });
  }
}

/**
 * A GameService client for `baseUrl`: by default gRPC over HTTP/2 to the gRPC port, e.g.
 * "http://localhost:50051"; with `protocol: "connect"` or `"grpc-web"`, HTTP/1.1 to the HTTP
 * port, e.g. "http://localhost:8080".
 */
export function createClient(baseUrl: string, options: ClientOptions = {}): GameServiceClient {
  return clientOn(nodeTransport, baseUrl, "grpc", options);
}
