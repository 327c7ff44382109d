"""The event feed on the in-memory store: many waiting reads share one blocking read per owner,
each gets its own entries, and nothing is left running once nobody waits."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from service.store.event_feed import EventFeed
from service.store.memory import MemoryStore
from service.store.port import StoreUnavailable


class _Counting(MemoryStore):
    """A memory store counting the reads that may block."""

    def __init__(self) -> None:
        super().__init__()
        self.blocking = 0
        self.fail = False

    async def read_events(self, owner, after, count, block_ms):
        if block_ms:
            self.blocking += 1
            if self.fail:
                raise StoreUnavailable("down")
        return await super().read_events(owner, after, count, block_ms)


async def first_batch(feed: EventFeed, owner: str, after: str, timeout_s: float = 5.0) -> list:
    """The first entries a follower of the owner's stream after ``after`` gets (then it stops)."""
    async with contextlib.aclosing(feed.follow(owner, after, 10)) as batches:
        return await asyncio.wait_for(anext(batches), timeout_s)


def test_waiting_followers_share_one_blocking_read_and_each_gets_its_entries():
    async def scenario() -> None:
        store = _Counting()
        feed = EventFeed(store, block_ms=200)
        await store.publish("o", "g1", [b"1 one"], 100)
        first = (await store.read_events("o", "", 10, 0))[0][0]
        readers = [asyncio.create_task(first_batch(feed, "o", first)) for _ in range(30)]
        older = asyncio.create_task(first_batch(feed, "o", ""))   # has an entry already: no wait
        await asyncio.sleep(0.05)
        assert store.blocking == 1       # thirty streams wait on one read
        await store.publish("o", "g2", [b"1 two"], 100)
        got = await asyncio.gather(*readers)
        assert all([e[2] for e in entries] == [b"1 two"] for entries in got)
        assert [e[2] for e in await older] == [b"1 one"]
        await store.publish("p", "g", [b"1 at once"], 100)
        assert [e[2] for e in await first_batch(feed, "p", "")] == [b"1 at once"]
        assert "p" not in feed._owners   # found without waiting: nothing kept for the owner
        await asyncio.sleep(0.3)          # the blocking read ends within block_ms once nobody waits
        assert feed._owners == {}
        await feed.close()

    asyncio.run(scenario())


def test_a_failed_blocking_read_reaches_every_waiting_stream():
    async def scenario() -> None:
        store = _Counting()
        feed = EventFeed(store, block_ms=200)
        store.fail = True
        readers = [asyncio.create_task(first_batch(feed, "o", "")) for _ in range(5)]
        await asyncio.sleep(0.05)
        store.fail = False
        await store.publish("o", "g", [b"1 late"], 100)
        got = await asyncio.wait_for(asyncio.gather(*readers), 2)   # well within their 5 s wait
        assert all([e[2] for e in entries] == [b"1 late"] for entries in got)
        await feed.close()

    asyncio.run(scenario())


class _Reads(_Counting):
    """Also counts the reads that do not block."""

    def __init__(self) -> None:
        super().__init__()
        self.at_once = 0

    async def read_events(self, owner, after, count, block_ms):
        if not block_ms:
            self.at_once += 1
        return await super().read_events(owner, after, count, block_ms)


def test_idle_followers_cost_one_blocking_read_however_many_they_are():
    async def scenario() -> None:
        store = _Reads()
        feed = EventFeed(store, block_ms=100)
        got: list[list[bytes]] = [[] for _ in range(200)]

        async def stream(i: int) -> None:
            async for found in feed.follow("o", "0", 10):
                got[i] += [event for _, _, event in found]

        streams = [asyncio.create_task(stream(i)) for i in range(200)]
        await asyncio.sleep(0.55)
        assert store.at_once == 200          # one read each when it opened, none while idle since
        assert store.blocking <= 7           # the owner's one blocking read, every 100 ms
        await store.publish("o", "g", [b"1 news"], 100)
        for _ in range(100):
            if all(got):
                break
            await asyncio.sleep(0.01)
        assert all(events == [b"1 news"] for events in got)
        for task in streams:
            task.cancel()
        await asyncio.gather(*streams, return_exceptions=True)
        assert feed._owners == {} or not feed._owners["o"].after   # nothing kept for streams gone
        await feed.close()

    asyncio.run(scenario())


class _Down(MemoryStore):
    """A memory store whose reads fail (StoreUnavailable) while ``down`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.down = False
        self.failed = 0

    async def read_events(self, owner, after, count, block_ms):
        if self.down:
            self.failed += 1
            raise StoreUnavailable("failing over")
        return await super().read_events(owner, after, count, block_ms)


def test_a_follower_waits_out_a_short_outage_and_ends_after_a_long_one():
    async def scenario() -> None:
        store = _Down()
        feed = EventFeed(store, block_ms=100, outage_s=5.0)
        await store.publish("o", "g", [b"1 before"], 100)
        store.down = True
        reader = asyncio.create_task(first_batch(feed, "o", ""))
        await asyncio.sleep(0.3)
        assert store.failed >= 2 and not reader.done()   # retrying, not ended
        store.down = False
        assert [e[2] for e in await reader] == [b"1 before"]
        await feed.close()
        store.down = True
        impatient = EventFeed(store, block_ms=100, outage_s=0.3)   # an outage longer than it waits
        with pytest.raises(StoreUnavailable):
            await first_batch(impatient, "o", "")
        await impatient.close()

    asyncio.run(scenario())
