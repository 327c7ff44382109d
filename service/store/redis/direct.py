"""The commands of a move on one Redis, sent without the client's per-command layers.

redis-py's client runs every command through layers this store does not use: its observability
recorder (looked up twice per command), a retry wrapper (the store never retries), an encoder
called per argument, the response callbacks, and the pool's checks of a connection at every
hand-over. A move's commands (the state's ``HMGET``, the commit script's ``EVALSHA``) paid some
250 Python calls each for them. ``DirectCommands`` packs a command with hiredis, sends it on a
connection of the client's own pool (so the pool's bound and wait and its health checks hold as
for any command), bounds it by the pool's socket timeout and reads the reply with the
connection's parser, raising what the client raises: an error reply as ResponseError
(NoScriptError, OutOfMemoryError ...), a socket failure or timeout as ConnectionError or
TimeoutError after the connection was dropped, a pool that stayed full as the pool's error.

Only a plain client (one Redis) has such a pool; a cluster client keeps its own routing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from hiredis import pack_command
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError


def pack(args: Sequence[bytes | str | int]) -> bytes:
    """The RESP array of a command's arguments (bytes as they are, text in UTF-8, integers in
    decimal), packed by hiredis in C."""
    return pack_command(tuple(args))   # type: ignore[arg-type]  # its stub types a tuple of one item


READS = frozenset({"HMGET"})
"""The commands sent here that change nothing, so may be sent again (the state's read)."""


class DirectCommands:
    """Commands sent on the pool of a plain redis.asyncio client, replies read raw (bytes, ints, lists).

    A connection whose reply was read whole is kept for the next command (at most ``KEEP`` of
    them, and never more than a quarter of the pool, so the client's other commands always find
    the rest free) instead of going back to the pool: the pool's checks at each hand-over (a
    non-blocking read that the connection holds no stray reply, its observability records, its
    lock) are for connections whose last reply nobody can vouch for. One that failed in any other
    way than an error reply (a cancel in mid-reply, a timeout, a lost socket) is disconnected and
    handed back to the pool, which reconnects it before its next use.

    The pool's socket timeout bounds a whole command, its write and its reply together, by one
    ``asyncio.timeout``: a connection in use here has no timeout of its own (the client's bounds
    its write by a task of ``asyncio.wait_for``, a task per command), and gets the pool's back when
    it returns to the pool. A command that runs out of time raises the client's TimeoutError.
    """

    KEEP = 8

    def __init__(self, client: Redis) -> None:
        """Use ``client``'s connection pool."""
        self._pool = client.connection_pool
        self._keep = min(self.KEEP, self._pool.max_connections // 4)
        self._timeout: float | None = self._pool.connection_kwargs.get("socket_timeout")
        self._idle: list[Any] = []

    async def __call__(self, *args: bytes | str | int) -> Any:
        """Send one command, return its reply.

        A kept connection that fails as a lost connection does (the server closed it meanwhile: a
        Redis restart) is dropped with every other kept one, made before the same restart: they go
        back to the pool, which checks each before its next use. A read (``READS``) is then sent
        once more, on a connection from the pool; a write is never sent twice (its error stands).
        """
        if not self._idle:
            return await self._send(await self._from_pool(), args)
        try:
            return await self._send(self._idle.pop(), args)
        except (RedisConnectionError, ConnectionError):
            await self._give_back_kept()
            if args[0] not in READS:
                raise
        return await self._send(await self._from_pool(), args)

    async def _give_back_kept(self) -> None:
        """Hand every kept connection back to the pool (with the pool's timeout)."""
        kept, self._idle = self._idle, []
        for connection in kept:
            await self._release(connection)

    async def _from_pool(self) -> Any:
        """A connection of the pool (checked by it), without a timeout of its own (see above)."""
        connection = await self._pool.get_connection()
        connection.socket_timeout = None
        return connection

    async def _send(self, connection: Any, args: Sequence[bytes | str | int]) -> Any:
        """Send one command on ``connection``, return its reply; keep the connection or drop it."""
        try:
            async with asyncio.timeout(self._timeout):
                await connection.send_packed_command(pack(args))
                reply = await connection.read_response()
        except ResponseError:
            await self._done(connection)   # an error reply, read whole: the connection is in step
            raise
        except TimeoutError:
            await self._drop(connection)
            raise RedisTimeoutError(f"Timeout after {self._timeout} s of {_name(args)}") from None
        except BaseException:
            await self._drop(connection)
            raise
        await self._done(connection)
        return reply

    async def _done(self, connection: Any) -> None:
        """Keep a connection in step for the next command, or give it back to the pool."""
        if len(self._idle) < self._keep:
            self._idle.append(connection)
        else:
            await self._release(connection)

    async def _drop(self, connection: Any) -> None:
        """Disconnect a connection that may be out of step and give it back to the pool."""
        await connection.disconnect()
        await self._release(connection)

    async def _release(self, connection: Any) -> None:
        """Give a connection back to the pool, with the pool's socket timeout again."""
        connection.socket_timeout = self._timeout
        await self._pool.release(connection)


def _name(args: Sequence[bytes | str | int]) -> str:
    """The command's name, for an error (never its arguments, which may hold a game)."""
    name = args[0]
    return name.decode(errors="replace") if isinstance(name, bytes) else str(name)
