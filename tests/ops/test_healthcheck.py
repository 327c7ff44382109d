"""`python -m service.healthcheck` (the image's HEALTHCHECK): exit 0 only when the server says SERVING."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent import futures

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from testkit.launcher import ROOT, ServerProcess, closed_port

TIMEOUT_S = 30


def healthcheck(*args: str, port: int | None = None) -> subprocess.CompletedProcess[str]:
    """Run the module as the image does, with PORT set when ``port`` is given."""
    env = {**os.environ, **({"PORT": str(port)} if port is not None else {})}
    return subprocess.run([sys.executable, "-m", "service.healthcheck", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT_S)


@pytest.fixture(scope="module")
def live() -> Iterator[ServerProcess]:
    """A server on the in-memory store."""
    with ServerProcess() as server:
        yield server


def test_serving_server_exits_0(live: ServerProcess) -> None:
    assert healthcheck(port=live.port).returncode == 0  # 127.0.0.1:$PORT, as in the image
    assert healthcheck("--address", live.address, "--service", "cardgame.v1.GameService").returncode == 0


def test_unknown_service_exits_1(live: ServerProcess) -> None:
    done = healthcheck("--address", live.address, "--service", "no.such.Service")
    assert done.returncode == 1 and "NOT_FOUND" in done.stderr


def test_nothing_listening_exits_1() -> None:
    with closed_port() as port:
        done = healthcheck("--timeout", "2", port=port)
    assert done.returncode == 1 and "UNAVAILABLE" in done.stderr


def test_not_serving_exits_1() -> None:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    servicer = health.HealthServicer()
    servicer.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        done = healthcheck(port=port)
    finally:
        server.stop(None)
    assert done.returncode == 1 and "NOT_SERVING" in done.stderr
