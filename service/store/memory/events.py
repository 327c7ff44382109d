"""The owners' event streams of the in-process store. An entry's cursor is ``e<number>``, its
number in the owner's stream (1, 2, ...): a form of this store's own, unlike Redis' stream ids
and not ordered as strings ("e10" < "e9"), so nothing outside the store can lean on either. A
blocked ``read_events`` waits on an asyncio condition that ``publish`` notifies."""

from __future__ import annotations

import asyncio
import bisect
import re
from collections.abc import Sequence

from service.store.memory.base import MemoryBase
from service.store.memory.structures import Stream
from service.store.port import BadCursor, event_seq

_CURSOR = re.compile(r"e(0|[1-9][0-9]{0,17})")


def cursor_of(number: int) -> str:
    """The cursor of a stream's entry ``number`` (0: before the first)."""
    return f"e{number}"


def number_of(cursor: str) -> int:
    """The entry number a cursor stands for ("": 0, the start); BadCursor for another form."""
    if cursor == "":
        return 0
    match = _CURSOR.fullmatch(cursor)
    if match is None:
        raise BadCursor(f"not an event cursor of this store: {cursor!r:.40}")
    return int(match.group(1))


class MemoryEvents(MemoryBase):
    """The event stream and publish record of each owner."""

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
                stream.last += 1
                stream.entries.append((stream.last, game_id, event))
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
        """Return up to ``count`` (cursor, game id, event) entries of the owner's stream after
        ``after``, oldest first, waiting up to ``block_ms`` for one (0: do not wait)."""
        after_number = number_of(after)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + block_ms / 1000
        async with self._published:
            while True:
                self._check_open()
                stream = self._streams.get(owner)
                if stream is not None:
                    first = bisect.bisect_right(stream.entries, after_number, key=lambda entry: entry[0])
                    found = stream.entries[first:first + count]
                    if found:
                        return [(cursor_of(number), game_id, event) for number, game_id, event in found]
                remaining = deadline - loop.time()
                if block_ms == 0 or remaining <= 0:
                    return []
                try:
                    async with asyncio.timeout(remaining):
                        await self._published.wait()
                except TimeoutError:
                    pass

    async def stream_end(self, owner: str) -> str:
        """Return the cursor of the owner's newest entry ("" while it has none)."""
        self._check_open()
        stream = self._streams.get(owner)
        return "" if stream is None or not stream.last else cursor_of(stream.last)

    async def forget(self, owner: str, game_id: str) -> None:
        """Drop the game's entry of the owner's publish record."""
        self._check_open()
        stream = self._streams.get(owner)
        if stream is not None:
            stream.seq.pop(game_id, None)
