"""Service tests: real server processes on real ports, against real Redis."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import grpc
import pytest

from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from testkit.launcher import ServerProcess

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)  # the `players` helper module

from tests.conftest import SERVER_TEST_FLAGS  # noqa: E402


@pytest.fixture(scope="module")
def second_server(redis_url: str, module_prefix: str, server):
    """Another server process on the same Redis and prefix as ``server``."""
    with ServerProcess(*SERVER_TEST_FLAGS, redis_url=redis_url, prefix=module_prefix) as proc:
        yield proc


@pytest.fixture(scope="module")
def stub(server):
    """A GameService stub on a channel to ``server``."""
    with grpc.insecure_channel(server.address) as channel:
        yield pb_grpc.GameServiceStub(channel)


@pytest.fixture(scope="module")
def second_stub(second_server):
    """A GameService stub on a channel to ``second_server``."""
    with grpc.insecure_channel(second_server.address) as channel:
        yield pb_grpc.GameServiceStub(channel)


@contextlib.contextmanager
def instances(count: int, *flags: str, redis_url: str, prefix: str, env: dict[str, str] | None = None):
    """``count`` server processes on one Redis and prefix, started with ``flags``, and stopped after."""
    procs = [ServerProcess(*SERVER_TEST_FLAGS, *flags, redis_url=redis_url, prefix=prefix, env=env)
             for _ in range(count)]
    try:
        for proc in procs:
            proc.start()
        yield procs
    finally:
        for proc in procs:
            proc.stop()


@contextlib.contextmanager
def stubs_of(servers: list[ServerProcess]):
    """A GameService stub on a channel of its own to each server."""
    channels = [grpc.insecure_channel(s.address) for s in servers]
    try:
        yield [pb_grpc.GameServiceStub(c) for c in channels]
    finally:
        for channel in channels:
            channel.close()
