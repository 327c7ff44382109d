"""The events of the Redis store: each game's outbox, and the owners' event streams.

A game's outbox is its key ``P:{<game_id>}:outbox`` (see ``games``), written by create and
commit. An owner's keys are under the owner's hash tag ``{<owner>}`` (owners are API key ids, or
``_open``), so that a publish touches one slot:

- ``P:events:{owner}``      stream of the owner's published events, fields ``e`` (the event) and
  ``g`` (game id), trimmed by ``MAXLEN ~ max_len`` on every publish; no TTL
- ``P:events:{owner}:seq``  hash, game id -> the last seq published (so a racing or repeated
  publish adds nothing twice); a field goes with ``forget``, the whole hash expires
  ``event_seq_ttl_s`` (30 days) after the owner's last publish
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from redis.asyncio.cluster import RedisCluster

from service.store.port import parse_stream_id
from service.store.redis.base import RedisBase
from service.store.redis.connection import unavailable_on_error


class RedisEvents(RedisBase):
    """The outbox of each game, and the event stream and publish record of each owner."""

    def events_key(self, owner: str) -> str:
        """Return the key of the owner's event stream ``<prefix>:events:{<owner>}`` (its publish
        record is the same key + ``:seq``)."""
        return f"{self._prefix}:events:{{{owner}}}"

    async def outbox(self, game_id: str) -> list[bytes]:
        """Return the game's outbox events, oldest first ([] for no such game)."""
        key = self.key(game_id, "outbox")
        with unavailable_on_error("outbox"):
            return list(await self._client.lrange(key, 0, -1))

    async def trim_outbox(self, game_id: str, upto_seq: int) -> int:
        """Drop the outbox's leading events whose seq is at most ``upto_seq``; return how many."""
        key = self.key(game_id, "outbox")
        with unavailable_on_error("trim_outbox"):
            return int(await self._run("trim_outbox", keys=[key], args=[upto_seq]))

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
        ms, n = parse_stream_id(after)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + block_ms / 1000
        with unavailable_on_error("read_events"):
            while True:
                wait_ms = 0 if block_ms == 0 else max(1, round((deadline - loop.time()) * 1000))
                if self._block_chunk_ms is not None:
                    wait_ms = min(wait_ms, self._block_chunk_ms)
                reply = await self._xread(stream, f"{ms}-{n}", count, wait_ms)
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
