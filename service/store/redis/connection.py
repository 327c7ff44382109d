"""Connecting to Redis and talking to it: clients that fail fast, the Lua script runner, and the
translation of every client failure into StoreUnavailable.

Writes go through Lua scripts, so the check, the writes and the notification are one atomic
step. A script is sent by its SHA (EVALSHA) and, on any node that answers NOSCRIPT (a fresh
node, a replica just promoted by a failover, a SCRIPT FLUSH), sent whole with EVAL to the
same node, which loads it there: a missing script never fails a call.

Every Redis failure surfaces as StoreUnavailable, except a full connection pool: a command that
finds every connection of this process in use waits a bounded time (``pool_wait_s``) for one,
then fails with StoreBusy, so an overloaded process is told apart from a store that is down; and
a write Redis refuses for lack of memory (``OOM command not allowed when used memory >
'maxmemory'``, from a command or from inside a script), which fails with StoreFull: the store is
up and reads still work, it is full.
Commands are never retried by the client:
a write whose reply was lost may have been applied, and only a request id makes it safe to
send again. Connections dropped by a restarted server are replaced by the pool on next use.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import redis
from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.cluster import RedisCluster
from redis.backoff import NoBackoff
from redis.driver_info import DriverInfo
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import MaxConnectionsError, NoScriptError, OutOfMemoryError, RedisError, ResponseError
from redis.retry import Retry

from service.store.port import StoreBusy, StoreFull, StoreUnavailable

log = logging.getLogger("service.store.redis.store")

DEFAULT_MAX_CONNECTIONS = 64
DEFAULT_POOL_WAIT_S = 0.5
POOL_EXHAUSTED = "No connection available."  # what a blocking pool's timed-out wait raises
OOM_REPLY = "command not allowed when used memory > 'maxmemory'"   # Redis' OOM error, after its "OOM" code


def out_of_memory(exc: BaseException) -> bool:
    """Whether a Redis client error is Redis' OOM refusal: redis-py's OutOfMemoryError (an error
    reply with the OOM code, a script's write included), or a ResponseError that carries the
    OOM reply in its text (a script error wrapping it, as older Redis versions send it)."""
    if isinstance(exc, OutOfMemoryError):
        return True
    return isinstance(exc, ResponseError) and OOM_REPLY in str(exc)


def pool_exhausted(exc: BaseException) -> bool:
    """Whether a Redis client error says that every connection of its pool stayed in use: a
    cluster client's MaxConnectionsError, or the "No connection available." ConnectionError a
    blocking pool raises when its wait for a free connection timed out (a dead server's
    ConnectionError comes from a socket error instead)."""
    if isinstance(exc, MaxConnectionsError):
        return True
    return (isinstance(exc, RedisConnectionError) and str(exc) == POOL_EXHAUSTED
            and isinstance(exc.__cause__, asyncio.TimeoutError))


# What each connection tells Redis it is (CLIENT SETINFO), made once: redis-py otherwise reads
# its own package metadata for every connection it opens (some 0.3 ms of CPU each).
DRIVER_INFO = DriverInfo(lib_version=redis.__version__)


def connect(url: str, *, socket_timeout_s: float = 2.0, connect_timeout_s: float = 2.0,
            health_check_interval_s: int = 15, max_connections: int = DEFAULT_MAX_CONNECTIONS,
            pool_wait_s: float = DEFAULT_POOL_WAIT_S) -> Redis:
    """Return a redis.asyncio client for url that fails fast and never retries a command.

    Its pool holds at most ``max_connections``; a command that finds none free waits up to
    ``pool_wait_s`` for one (then StoreBusy), so a stall cannot open connections unbounded.
    """
    pool = BlockingConnectionPool.from_url(
        url,
        driver_info=DRIVER_INFO,
        max_connections=max_connections,
        timeout=pool_wait_s,
        decode_responses=False,
        socket_timeout=socket_timeout_s,
        socket_connect_timeout=connect_timeout_s,
        health_check_interval=health_check_interval_s,
        retry=Retry(NoBackoff(), 0),
    )
    return Redis.from_pool(pool)


class GatedRedisCluster(RedisCluster):
    """A cluster client whose commands wait their turn for a connection, as a blocking pool's do.

    redis-py's cluster client refuses a command at once (MaxConnectionsError) when the node it
    goes to has ``max_connections`` connections in use, which a burst of first calls meets on a
    cold process while its connections are still being opened. Here at most ``max_connections``
    commands are in flight at once in the whole client, so no node ever has more in use (a
    command holds at most one connection of each node it goes to); a command that finds them all
    taken waits up to ``pool_wait_s`` for one, then fails with MaxConnectionsError (StoreBusy),
    never having been sent.
    """

    def __init__(self, *args: Any, pool_wait_s: float = DEFAULT_POOL_WAIT_S, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._gate = asyncio.Semaphore(kwargs.get("max_connections", DEFAULT_MAX_CONNECTIONS))
        self._pool_wait_s = pool_wait_s

    async def _enter(self) -> None:
        try:
            await asyncio.wait_for(self._gate.acquire(), self._pool_wait_s)
        except TimeoutError:
            raise MaxConnectionsError("every connection stayed in use") from None

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        """Run one command once a connection is free (waiting up to ``pool_wait_s``)."""
        await self._enter()
        try:
            return await super().execute_command(*args, **kwargs)
        finally:
            self._gate.release()

    async def _execute_pipeline_by_slot(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        """A multi-key command split by slot (EXISTS, DEL, UNLINK of several keys), which takes at
        most one connection of each node, once a connection is free."""
        await self._enter()
        try:
            return await super()._execute_pipeline_by_slot(*args, **kwargs)
        finally:
            self._gate.release()


def connect_cluster(url: str, *, socket_timeout_s: float = 2.0, connect_timeout_s: float = 2.0,
                    max_connections: int = DEFAULT_MAX_CONNECTIONS,
                    pool_wait_s: float = DEFAULT_POOL_WAIT_S) -> GatedRedisCluster:
    """Return a redis.asyncio cluster client for url (any node) that fails fast, with at most
    ``max_connections`` commands in flight (so at most that many connections per node); a command
    that finds them all in use waits up to ``pool_wait_s`` for one, then fails with StoreBusy."""
    client = GatedRedisCluster.from_url(
        url,
        driver_info=DRIVER_INFO,
        decode_responses=False,
        socket_timeout=socket_timeout_s,
        socket_connect_timeout=connect_timeout_s,
        retry=Retry(NoBackoff(), 0),
        max_connections=max_connections,
        pool_wait_s=pool_wait_s,
    )
    assert isinstance(client, GatedRedisCluster)
    return client


class Script:
    """A Lua script run by SHA on the node that owns its keys, or sent whole where it is unknown."""

    def __init__(self, execute: Callable[..., Awaitable[Any]], source: str) -> None:
        """Hold the script for ``execute`` (a client's ``execute_command``, or ``DirectCommands``
        on one Redis); its SHA is computed once, here."""
        self._execute = execute
        self._source = source.encode()
        self._sha = hashlib.sha1(self._source).hexdigest()

    async def __call__(self, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """Run the script with these KEYS and ARGV; return its reply."""
        try:
            return await self._execute(*self.by_sha(keys, args))
        except NoScriptError:  # the script did not run: sending it whole is safe
            return await self._execute("EVAL", self._source, len(keys), *keys, *args)

    def by_sha(self, keys: Sequence[str], args: Sequence[Any]) -> list[Any]:
        """The EVALSHA command that runs the script with these KEYS and ARGV."""
        return ["EVALSHA", self._sha, len(keys), *keys, *args]


class unavailable_on_error:   # lower case: read as a phrase, ``with unavailable_on_error("load"):``
    """Turn any failure of the Redis client call inside the block into StoreUnavailable (StoreBusy
    when the pool had no free connection, StoreFull when Redis refused a write for lack of memory).

    Redis and socket errors are the expected ones. Anything else the client raises (its cluster
    code has raised IndexError and KeyError while its topology changed) is logged with its
    traceback and answered the same way: the call may be retried, and never becomes INTERNAL. A
    cancel (not an Exception) goes through as it is. A class, not a generator: every store call
    enters one.
    """

    __slots__ = ("operation",)

    def __init__(self, operation: str) -> None:
        """Name the store operation the block runs, for the error."""
        self.operation = operation

    def __enter__(self) -> None:
        """Run the block."""

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: Any) -> None:
        """Raise the store's error for the block's failure, if it had one that is an Exception."""
        if exc is None or not isinstance(exc, Exception):
            return
        operation = self.operation
        if isinstance(exc, RedisError | OSError):
            if out_of_memory(exc):   # its text is Redis' own, never a command's arguments
                raise StoreFull(f"redis {operation}: out of memory (maxmemory reached): {exc}") from exc
            if pool_exhausted(exc):
                raise StoreBusy(f"redis {operation}: every connection of the pool stayed in use: {exc}") from exc
        else:
            log.warning("the redis client failed unexpectedly in %s", operation, exc_info=exc)
        raise StoreUnavailable(f"redis {operation} failed: {type(exc).__name__}: {exc}") from exc


def block_chunk_ms(client: Any, socket_timeout_s: float | None) -> int | None:
    """Return the longest XREAD BLOCK that stays under the client's socket timeout (half of it), None
    when the client has none."""
    if socket_timeout_s is None:
        kwargs = getattr(getattr(client, "connection_pool", None), "connection_kwargs", None)
        if not isinstance(kwargs, dict):  # a RedisCluster keeps them itself
            kwargs = getattr(client, "connection_kwargs", None)
        socket_timeout_s = kwargs.get("socket_timeout") if isinstance(kwargs, dict) else None
    if not isinstance(socket_timeout_s, (int, float)) or socket_timeout_s <= 0:
        return None
    return max(1, int(socket_timeout_s * 500))
