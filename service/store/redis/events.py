"""The owners' event streams of the Redis store.

An owner's keys are under the owner's hash tag ``{<owner>}`` (owners are API key ids, or
``_open``), so that a publish touches one slot:

- ``P:events:{owner}``      stream of the owner's published events, fields ``e`` (the event) and
  ``g`` (game id), trimmed by ``MAXLEN ~ max_len`` on every publish; no TTL
- ``P:events:{owner}:seq``  hash, game id -> the last seq published (so a racing or repeated
  publish adds nothing twice); a field goes with ``forget``, the whole hash expires
  ``event_seq_ttl_s`` (30 days) after the owner's last publish

An entry's cursor is its Redis Stream id, ``<ms>-<n>`` (each part below 2^64), and "" the start:
the ids WatchEvents clients have kept as ``Event.id`` stay valid. Only this module reads them.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any

from redis.asyncio.cluster import RedisCluster

from service.store.port import BadCursor
from service.store.redis.base import RedisBase
from service.store.redis.connection import unavailable_on_error

_STREAM_ID = re.compile(r"([0-9]{1,20})-([0-9]{1,20})")
_MAX_ID_PART = 2**64 - 1


def stream_id(cursor: str) -> str:
    """The Redis Stream id a cursor stands for ("": ``0-0``, the start); BadCursor unless it is one."""
    if cursor == "":
        return "0-0"
    match = _STREAM_ID.fullmatch(cursor)
    if match is None or any(int(part) > _MAX_ID_PART for part in match.groups()):
        raise BadCursor(f"an event cursor of this store is a Redis Stream id <ms>-<n>, each part below 2^64: "
                        f"{cursor!r:.40}")
    return cursor


class RedisEvents(RedisBase):
    """The event stream and publish record of each owner."""

    def events_key(self, owner: str) -> str:
        """Return the key of the owner's event stream ``<prefix>:events:{<owner>}`` (its publish
        record is the same key + ``:seq``)."""
        return f"{self._prefix}:events:{{{owner}}}"

    async def publish(self, owner: str, game_id: str, events: Sequence[bytes], max_len: int) -> int:
        """Append to ``P:events:{owner}``, in order, each event whose seq is above the game's last
        published one (``P:events:{owner}:seq``, refreshed to ``event_seq_ttl_s`` by every publish),
        trimming the stream to about ``max_len`` (MAXLEN ~); returns how many were appended."""
        if not events:
            return 0
        stream = self.events_key(owner)
        with unavailable_on_error("publish"):
            added = await self._run("publish", keys=[stream, stream + ":seq"],
                                    args=[game_id, max_len, self._event_seq_ttl_ms, *events])
        return int(added)

    async def read_events(self, owner: str, after: str, count: int, block_ms: int) -> list[tuple[str, str, bytes]]:
        """Return up to ``count`` (stream id, game id, event) entries of the owner's stream after
        ``after``, oldest first, waiting up to ``block_ms`` for one (XREAD BLOCK, in steps shorter
        than the socket timeout; 0: do not wait)."""
        stream = self.events_key(owner)
        after_id = stream_id(after)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + block_ms / 1000
        with unavailable_on_error("read_events"):
            while True:
                wait_ms = 0 if block_ms == 0 else max(1, round((deadline - loop.time()) * 1000))
                if self._block_chunk_ms is not None:
                    wait_ms = min(wait_ms, self._block_chunk_ms)
                reply = await self._xread(stream, after_id, count, wait_ms)
                found = _stream_entries(reply)
                if found or block_ms == 0 or loop.time() >= deadline:
                    return found

    async def _xread(self, stream: str, after: str, count: int, block_ms: int) -> Any:
        """One XREAD of ``stream`` after ``after`` (``block_ms`` 0: no wait). A cluster client is
        told the stream's node: XREAD's keys are not at fixed places, and redis-py's cluster
        client would ask the node it started from (COMMAND GETKEYS) where they are, which fails
        for as long as that node is down, however the slots have moved since."""
        if not isinstance(self._client, RedisCluster):
            return await self._client.xread({stream: after}, count=count, block=block_ms or None)
        args: list[Any] = ["XREAD", "COUNT", count] + (["BLOCK", block_ms] if block_ms else [])
        return await self._client.execute_command(*args, "STREAMS", stream, after,
                                                  target_nodes=self._client.get_node_from_key(stream))

    async def stream_end(self, owner: str) -> str:
        """Return the id of the owner's newest entry (XREVRANGE + - COUNT 1), "" while it has none."""
        with unavailable_on_error("stream_end"):
            newest = await self._client.xrevrange(self.events_key(owner), "+", "-", count=1)
        if not newest:
            return ""
        entry_id = newest[0][0]
        return entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id)

    async def forget(self, owner: str, game_id: str) -> None:
        """Drop the game's field of the owner's publish record."""
        key = self.events_key(owner) + ":seq"
        with unavailable_on_error("forget"):
            await self._client.hdel(key, game_id)


def _stream_entries(reply: Any) -> list[tuple[str, str, bytes]]:
    """Return (id, game id, event) of each entry of an XREAD reply for one stream (RESP2 or RESP3)."""
    if isinstance(reply, dict):  # RESP3: {stream: [entries]}
        streams = [entries for wrapped in reply.values() for entries in wrapped]
    else:  # RESP2: [[stream, entries], ...]
        streams = [item[1] for item in reply or ()]
    return [(entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id), fields[b"g"].decode(),
             bytes(fields[b"e"]))
            for entries in streams for entry_id, fields in entries or ()]
