"""API tests: real server processes on real ports, against real Redis (``server`` and ``stub``
are tests/conftest.py's); here a second server on the same Redis and prefix, and several at once."""

from __future__ import annotations

import contextlib

import grpc
import pytest

from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from testkit.launcher import ServerProcess
from tests.conftest import SERVER_TEST_FLAGS


@pytest.fixture(scope="module")
def second_server(redis_url: str, module_prefix: str, server):
    """Another server process on the same Redis and prefix as ``server``."""
    with ServerProcess(*SERVER_TEST_FLAGS, redis_url=redis_url, prefix=module_prefix) as proc:
        yield proc


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
