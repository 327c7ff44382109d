"""Shared test fixtures: a session event loop for ``async def`` tests, and Redis servers.

- ``async def test_...`` functions run on one session-wide event loop (no plugin needed).
  Fixtures stay synchronous; one that must await (e.g. ``store.close()``) asks for the
  ``event_loop`` fixture and calls ``event_loop.run_until_complete(...)``.
- ``redis_url``: ``--redis-url``, else ``REDIS_URL``, else 127.0.0.1:6379 if it answers PING,
  else a private ``redis-server`` started for the session; none of these: the test fails.
- ``redis_prefix``: a key prefix unique to the test; every key under this run's prefix is
  deleted at session end (SCAN + UNLINK; the shared server is never flushed).
- ``private_redis``: a started ``PrivateRedis`` of the test's own, to stop and restart.
- ``server`` and ``stub``: one server process on Redis for the module, and a GameService stub to it.
- Tests that use any of these are marked ``redis`` automatically (``-m "not redis"``).
"""

from __future__ import annotations

import asyncio
import inspect
import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # tests/ itself stays off the path: its folders bots/, http/... would shadow packages
    sys.path.insert(0, str(ROOT))

from testkit.redis_server import DEFAULT_URL, PrivateRedis, delete_keys, find_redis_server, redis_answers  # noqa: E402

ASYNC_TEST_TIMEOUT_S = 120.0
REDIS_FIXTURES = {"redis_url", "redis_prefix", "private_redis"}
NO_REDIS_HELP = (
    "set REDIS_URL or pass --redis-url, run Redis on 127.0.0.1:6379, "
    "or install redis-server (apt-get install redis-server)"
)

_loop: asyncio.AbstractEventLoop | None = None


def session_loop() -> asyncio.AbstractEventLoop:
    """Return the event loop shared by every async test of the session."""
    global _loop
    if _loop is None or _loop.is_closed():
        _loop = asyncio.new_event_loop()
    return _loop


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add --redis-url."""
    parser.addoption("--redis-url", default=None,
                     help="Redis for tests (default: REDIS_URL, 127.0.0.1:6379, or a private one)")


def pytest_configure(config: pytest.Config) -> None:
    """Register the redis marker."""
    config.addinivalue_line("markers", "redis: the test needs a real Redis server")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that uses a Redis fixture with ``redis``."""
    for item in items:
        if REDIS_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.redis)


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run ``async def`` tests to completion on the session loop, with a timeout."""
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    kwargs = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
    coro = asyncio.wait_for(pyfuncitem.obj(**kwargs), ASYNC_TEST_TIMEOUT_S)
    session_loop().run_until_complete(coro)
    return True


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Cancel what is left on the session loop and close it."""
    global _loop
    loop, _loop = _loop, None
    if loop is None or loop.is_closed():
        return
    pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.wait(pending))
    loop.run_until_complete(loop.shutdown_asyncgens())
    loop.close()


@pytest.fixture(scope="session")
def event_loop() -> asyncio.AbstractEventLoop:
    """The session event loop, for fixtures that must run coroutines."""
    return session_loop()


def _started_private_redis() -> PrivateRedis:
    """A running private redis-server, or a test failure saying why there is none."""
    if find_redis_server() is None:
        pytest.fail(f"no redis-server on PATH for tests: {NO_REDIS_HELP}")
    server = PrivateRedis()
    try:
        server.start()
    except RuntimeError as exc:
        server.close()
        pytest.fail(f"could not start a private redis-server: {exc}")
    return server


@pytest.fixture(scope="session")
def redis_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """URL of a Redis answering PING: configured, local default, or a private server."""
    configured = request.config.getoption("--redis-url") or os.environ.get("REDIS_URL")
    if configured:
        if not redis_answers(configured, timeout_s=2.0):
            pytest.fail(f"Redis at {configured} (--redis-url/REDIS_URL) does not answer PING")
        yield configured
        return
    if redis_answers(DEFAULT_URL):
        yield DEFAULT_URL
        return
    server = _started_private_redis()
    try:
        yield server.url
    finally:
        server.close()


@pytest.fixture(scope="session")
def redis_run_prefix(redis_url: str) -> Iterator[str]:
    """Key prefix of this test run; all its keys are deleted at session end."""
    prefix = f"cardgame-test-{uuid.uuid4().hex}"
    yield prefix
    delete_keys(redis_url, prefix)


@pytest.fixture
def redis_prefix(redis_run_prefix: str) -> str:
    """Key prefix unique to one test (under the run's prefix)."""
    return f"{redis_run_prefix}-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def private_redis() -> Iterator[PrivateRedis]:
    """A started private redis-server of this test's own, stopped and removed afterwards."""
    server = _started_private_redis()
    try:
        yield server
    finally:
        server.close()


SERVER_TEST_FLAGS = ("--allow-prearranged-decks", "--allow-seeded-shuffle")


@pytest.fixture(scope="module")
def module_prefix(redis_run_prefix: str, request: pytest.FixtureRequest) -> str:
    """A key prefix for the module's servers (deleted with the run's prefix)."""
    return f"{redis_run_prefix}-{request.module.__name__.rsplit('.', 1)[-1]}"


@pytest.fixture(scope="module")
def server(redis_url: str, module_prefix: str):
    """One server process on Redis for the module, with prearranged decks and seeds allowed."""
    from testkit.launcher import ServerProcess

    with ServerProcess(*SERVER_TEST_FLAGS, redis_url=redis_url, prefix=module_prefix) as proc:
        yield proc


@pytest.fixture(scope="module")
def stub(server):
    """A GameService stub on a channel to ``server``."""
    import grpc

    from cardgame.v1 import game_service_pb2_grpc as pb_grpc

    with grpc.insecure_channel(server.address) as channel:
        yield pb_grpc.GameServiceStub(channel)
