"""Waiting for new events without a Redis connection per stream.

Every WatchEvents stream of an owner would otherwise block in its own ``XREAD BLOCK``, each holding
one of the store's pooled connections for as long as it waits: enough streams and no connection is
left for moves. Here a stream reads without blocking, and when nothing is new it waits on the
owner's :class:`_Waiters`, where one task per owner and process does the blocking read for every
stream, from the end of the owner's stream as it found it when it started (``stream_end``), then
past the last entry it woke them for, and wakes them all when it sees an entry; each stream then
reads its own entries, again without blocking. The task ends once no stream waits.

Cursors are the store's, opaque: the feed hands them back to the store and compares them only
for equality (a stream waiting at the very end the task starts from need not read again).
So a process blocks on at most one connection per owner with streams waiting, however many streams.
A stream that ``follow``s the owner's entries reads only when woken, so idle streams cost the store
one blocking read per owner and ``block_ms`` however many are open.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections import Counter
from collections.abc import AsyncGenerator

from service.store.outages import OUTAGE_S, outlasting
from service.store.port import Store

log = logging.getLogger("cardgame.events")

Entry = tuple[str, str, bytes]
PAUSE_S = 0.2   # after a failed blocking read, before the next one may start


class _Waiters:
    """The streams of one owner waiting for an entry, and the task reading for them."""

    def __init__(self) -> None:
        self.after: Counter[str] = Counter()   # each waiting stream's position (a cursor)
        self.woken = asyncio.Event()                        # replaced after every wake-up
        self.task: asyncio.Task | None = None

    def wake(self) -> None:
        woken, self.woken = self.woken, asyncio.Event()
        woken.set()

    def leave(self, position: str) -> None:
        """A stream stopped waiting at ``position``."""
        self.after[position] -= 1
        if not self.after[position]:
            del self.after[position]


class EventFeed:
    """Followers of owners' event streams that wait for new entries (the store's ``read_events``)
    sharing one blocking read per owner in this process."""

    def __init__(self, store: Store, block_ms: int = 1000, outage_s: float = OUTAGE_S):
        self.store = store
        self.block_ms = block_ms
        self.outage_s = outage_s
        self._owners: dict[str, _Waiters] = {}

    async def follow(self, owner: str, after: str, count: int) -> AsyncGenerator[list[Entry], None]:
        """Yield the owner's entries after ``after``, oldest first, up to ``count`` at a time, for as
        long as the caller iterates: it reads (without blocking) at the start and then only when
        the owner's shared blocking read saw a new entry or failed, so an idle stream costs the
        store nothing of its own. A store outage is waited out (``outlasting``, ``outage_s``);
        a longer one raises StoreUnavailable, a cursor the store cannot read BadCursor."""
        position = after
        waiters = self._join(owner, position)
        try:
            while True:
                woken = waiters.woken   # taken before the read: an entry after it wakes this one
                found = await outlasting(functools.partial(self.store.read_events, owner, position, count, 0),
                                         self.outage_s)
                if found:
                    waiters.leave(position)
                    position = found[-1][0]
                    waiters.after[position] += 1
                    yield found
                    continue
                if waiters.task is None:
                    waiters.task = asyncio.get_running_loop().create_task(self._follow(owner, waiters),
                                                                          name=f"events:{owner}")
                await woken.wait()
        finally:
            self._leave(owner, waiters, position)

    def _join(self, owner: str, position: str) -> _Waiters:
        """The owner's waiting streams, with one more waiting at ``position``."""
        waiters = self._owners.get(owner)
        if waiters is None:
            waiters = self._owners[owner] = _Waiters()
        waiters.after[position] += 1
        return waiters

    def _leave(self, owner: str, waiters: _Waiters, position: str) -> None:
        """A stream stopped waiting; an owner nobody waits for and no read runs for is dropped."""
        waiters.leave(position)
        if not waiters.after and waiters.task is None and self._owners.get(owner) is waiters:
            del self._owners[owner]

    async def _follow(self, owner: str, waiters: _Waiters) -> None:
        """Block on the owner's stream for its waiting streams, from its end as found now, waking
        them at every new entry (and at an error, which each then meets in its own read, and again
        after a pause so that they start the next blocking read); end once none waits.

        A stream that found nothing before the end was read may have missed an entry that came
        between its read and that end: unless it waits at that very end, it is woken to read again."""
        try:
            seen = await self.store.stream_end(owner)   # then the last entry it woke the streams for
            if any(position != seen for position in waiters.after):
                waiters.wake()
            while waiters.after:
                found = await self.store.read_events(owner, seen, 1, self.block_ms)
                if found:
                    seen = found[-1][0]
                    waiters.wake()
        except Exception as exc:   # the streams see the store's failure in their own reads
            log.info("event read for %s failed: %s", owner, exc)
            waiters.wake()
            await asyncio.sleep(PAUSE_S)
        finally:
            waiters.task = None
            if waiters.after:
                waiters.wake()   # streams still waiting (after a failure) start the next read
            elif self._owners.get(owner) is waiters:
                del self._owners[owner]

    async def close(self) -> None:
        """Stop every blocking read."""
        tasks = [w.task for w in self._owners.values() if w.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
