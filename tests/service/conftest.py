"""Service tests: real server processes on real ports, against real Redis."""

from __future__ import annotations

import grpc
import pytest

from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from service.launcher import ServerProcess

TEST_FLAGS = ("--allow-prearranged-decks", "--allow-seeded-shuffle")


@pytest.fixture(scope="module")
def module_prefix(redis_run_prefix: str, request: pytest.FixtureRequest) -> str:
    """A key prefix for the module's servers (deleted with the run's prefix)."""
    return f"{redis_run_prefix}-{request.module.__name__.rsplit('.', 1)[-1]}"


@pytest.fixture(scope="module")
def server(redis_url: str, module_prefix: str):
    """One server process on Redis with prearranged decks and seeds allowed."""
    with ServerProcess(*TEST_FLAGS, redis_url=redis_url, prefix=module_prefix) as proc:
        yield proc


@pytest.fixture(scope="module")
def second_server(redis_url: str, module_prefix: str, server):
    """Another server process on the same Redis and prefix as ``server``."""
    with ServerProcess(*TEST_FLAGS, redis_url=redis_url, prefix=module_prefix) as proc:
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
