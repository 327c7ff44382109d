"""`python -m service.healthcheck`: exit 0 if the local server's gRPC health check says SERVING, else 1.

The image's HEALTHCHECK runs it; it asks ``grpc.health.v1.Health/Check`` on 127.0.0.1:$PORT
(``--address`` and ``--service`` choose another server or service name) and prints why when
the answer is not SERVING. Beside a server that speaks TLS (``TLS_CERT`` in the environment) it
connects with TLS too, trusting ``TLS_CA`` (``--tls-ca``; else the system's CAs), and checking
the certificate for ``TLS_SERVER_NAME`` (``--tls-server-name``; else the address's host); for a
server that requires client certificates it presents ``TLS_CLIENT_CERT`` / ``TLS_CLIENT_KEY``.
"""

from __future__ import annotations

import argparse
import os
import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from service.ops.tls import ClientTls, channel

DEFAULT_TIMEOUT_S = 3.0


def check(address: str, service: str = "", timeout_s: float = DEFAULT_TIMEOUT_S, tls: ClientTls | None = None) -> str:
    """The health status name ``address`` answers for ``service`` ("SERVING", "NOT_SERVING", …),
    or the gRPC status code's name when the call fails (e.g. "UNAVAILABLE"); over TLS with ``tls``."""
    with channel(address, tls) as chan:
        stub = health_pb2_grpc.HealthStub(chan)
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout_s)
        except grpc.RpcError as exc:
            code = exc.code() if isinstance(exc, grpc.Call) else None
            return code.name if code is not None else "UNKNOWN"
    return health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)


def main(argv: list[str] | None = None) -> int:
    """Check the server's health; the exit code is 0 for SERVING and 1 otherwise."""
    parser = argparse.ArgumentParser(prog="python -m service.healthcheck",
                                     description="Exit 0 if the server's gRPC health check says SERVING, else 1.",
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--address", default=f"127.0.0.1:{os.environ.get('PORT', '50051')}",
                        help="host:port of the server (PORT gives the default port)")
    parser.add_argument("--service", default="", help="service name to ask about ('' = the whole server)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="seconds to wait for the answer")
    env = os.environ.get
    parser.add_argument("--tls", action="store_true", default=bool(env("TLS_CERT") or env("TLS_CA")),
                        help="connect with TLS (the default when TLS_CERT or TLS_CA is set)")
    parser.add_argument("--tls-ca", default=env("TLS_CA", ""),
                        help="PEM CA certificate(s) to verify the server with (TLS_CA); implies --tls")
    parser.add_argument("--tls-server-name", default=env("TLS_SERVER_NAME", ""),
                        help="name the server's certificate must carry (TLS_SERVER_NAME); '' = the address's host")
    parser.add_argument("--tls-client-cert", default=env("TLS_CLIENT_CERT", ""),
                        help="PEM client certificate for a server that requires one (TLS_CLIENT_CERT)")
    parser.add_argument("--tls-client-key", default=env("TLS_CLIENT_KEY", ""),
                        help="PEM key of --tls-client-cert (TLS_CLIENT_KEY)")
    args = parser.parse_args(argv)
    if bool(args.tls_client_cert) != bool(args.tls_client_key):
        parser.error("give both --tls-client-cert and --tls-client-key (or neither)")
    tls = (ClientTls(args.tls_ca, args.tls_client_cert, args.tls_client_key, args.tls_server_name)
           if args.tls or args.tls_ca else None)
    try:
        status = check(args.address, args.service, args.timeout, tls)
    except OSError as exc:
        parser.error(f"cannot read a TLS file: {exc}")
    if status == "SERVING":
        return 0
    print(f"{args.address}: {status}", file=sys.stderr)
    return 1
