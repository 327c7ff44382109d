"""`python -m service.healthcheck`: exit 0 if the local server's gRPC health check says SERVING, else 1.

The image's HEALTHCHECK runs it; it asks ``grpc.health.v1.Health/Check`` on 127.0.0.1:$PORT
(``--address`` and ``--service`` choose another server or service name) and prints why when
the answer is not SERVING.
"""

from __future__ import annotations

import argparse
import os
import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

DEFAULT_TIMEOUT_S = 3.0


def check(address: str, service: str = "", timeout_s: float = DEFAULT_TIMEOUT_S) -> str:
    """The health status name ``address`` answers for ``service`` ("SERVING", "NOT_SERVING", …),
    or the gRPC status code's name when the call fails (e.g. "UNAVAILABLE")."""
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
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
    args = parser.parse_args(argv)
    status = check(args.address, args.service, args.timeout)
    if status == "SERVING":
        return 0
    print(f"{args.address}: {status}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
