"""The events of the in-process store: each game's outbox (kept with the game), and the owners'
event streams, whose ids are made from the wall clock, ``<ms>-<n>``, always increasing; a
blocked ``read_events`` waits on an asyncio condition that ``publish`` notifies."""

from __future__ import annotations

import asyncio
import bisect
import time
from collections.abc import Sequence

from service.store.memory.base import MemoryBase
from service.store.memory.structures import Stream
from service.store.port import event_seq, parse_stream_id


class MemoryEvents(MemoryBase):
    """The outbox of each game, and the event stream and publish record of each owner."""

    async def outbox(self, game_id: str) -> list[bytes]:
        """Return the game's outbox events, oldest first ([] for no such game)."""
        self._check_open()
        game = self._live_game(game_id, self._now())
        return [] if game is None else list(game.outbox)

    async def trim_outbox(self, game_id: str, upto_seq: int) -> int:
        """Drop the outbox's leading events whose seq is at most ``upto_seq``; return how many."""
        self._check_open()
        game = self._live_game(game_id, self._now())
        if game is None:
            return 0
        dropped = 0
        while dropped < len(game.outbox) and event_seq(game.outbox[dropped]) <= upto_seq:
            dropped += 1
        del game.outbox[:dropped]
        return dropped

    async def publish(self, owner: str, game_id: str, events: Sequence[bytes], max_len: int) -> int:
        """Append to the owner's stream, in order, each event whose seq is above the game's last
        published one, keeping the latest ``max_len`` entries; returns how many were appended."""
        self._check_open()
        now = self._now()
        if not events:
            return 0
        stream = self._streams.setdefault(owner, Stream())
        if stream.seq_expires_at <= now:
            stream.seq.clear()
        last = stream.seq.get(game_id, -1)
        added = 0
        for event in events:
            seq = event_seq(event)
            if seq > last:
                ms = int(time.time() * 1000)
                stream.last_id = (ms, 0) if ms > stream.last_id[0] else (stream.last_id[0], stream.last_id[1] + 1)
                stream.entries.append((stream.last_id, game_id, event))
                last = seq
                added += 1
        if added:
            stream.seq[game_id] = last
            del stream.entries[:-max_len]
        if stream.seq:
            stream.seq_expires_at = now + self._event_seq_ttl_s
        if added:
            async with self._published:
                self._published.notify_all()
        return added

    async def read_events(self, owner: str, after: str, count: int, block_ms: int) -> list[tuple[str, str, bytes]]:
        """Return up to ``count`` (stream id, game id, event) entries of the owner's stream after
        ``after``, oldest first, waiting up to ``block_ms`` for one (0: do not wait)."""
        after_id = parse_stream_id(after)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + block_ms / 1000
        async with self._published:
            while True:
                self._check_open()
                stream = self._streams.get(owner)
                if stream is not None:
                    first = bisect.bisect_right(stream.entries, after_id, key=lambda entry: entry[0])
                    found = stream.entries[first:first + count]
                    if found:
                        return [(f"{ms}-{n}", game_id, event) for (ms, n), game_id, event in found]
                remaining = deadline - loop.time()
                if block_ms == 0 or remaining <= 0:
                    return []
                try:
                    async with asyncio.timeout(remaining):
                        await self._published.wait()
                except TimeoutError:
                    pass

    async def forget(self, owner: str, game_id: str) -> None:
        """Drop the game's entry of the owner's publish record."""
        self._check_open()
        stream = self._streams.get(owner)
        if stream is not None:
            stream.seq.pop(game_id, None)
