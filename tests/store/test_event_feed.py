"""The event feed on the in-memory store: many waiting reads share one blocking read per owner,
each gets its own entries, and nothing is left running once nobody waits. The in-memory store's
cursors (``e1``, ``e2``, ...) are not Redis stream ids and do not sort as strings: the feed, and
the WatchEvents RPC over a server on that store, never parse or order them."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import re
import time

import grpc
import pytest

from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from service.store.event_feed import EventFeed
from service.store.memory import MemoryStore
from service.store.port import BadCursor, StoreUnavailable
from testkit.launcher import ServerProcess
from tests.support.players import create


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
            async for found in feed.follow("o", "", 10):
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


def test_cursors_pass_through_the_feed_unread_and_entries_come_in_the_stores_order():
    async def scenario() -> None:
        store = _Counting()
        feed = EventFeed(store, block_ms=200)
        for n in range(1, 13):   # past e9: "e10" < "e9" as strings, after it in the store's order
            await store.publish("o", f"g{n}", [b"1 n"], 100)
        everything = await first_batch(feed, "o", "")
        cursors = [cursor for cursor, _, _ in everything]
        assert cursors == [f"e{n}" for n in range(1, 11)]       # the memory store's own form
        rest = await first_batch(feed, "o", cursors[-1])
        assert [game for _, game, _ in rest] == ["g11", "g12"]
        waiting = asyncio.create_task(first_batch(feed, "o", rest[-1][0]))
        await asyncio.sleep(0.05)
        assert store.blocking == 1 and not waiting.done()       # it waits at the stream's end
        await store.publish("o", "g13", [b"1 n"], 100)
        assert [game for _, game, _ in await waiting] == ["g13"]
        with pytest.raises(BadCursor):                           # a Redis stream id is not one of its cursors
            await first_batch(feed, "o", "1733054400000-0")
        await feed.close()

    asyncio.run(scenario())


@pytest.fixture(scope="module")
def memory_server():
    """A server on the in-memory store (no REDIS_URL, as ``make run``), open: no API keys."""
    with ServerProcess() as server:
        yield server


def _events(stub, after_id: str, count: int, timeout_s: float = 10.0) -> list:
    """The first ``count`` events WatchEvents streams after ``after_id`` (then the stream is cancelled)."""
    call = stub.WatchEvents(pb.WatchEventsRequest(after_id=after_id), timeout=timeout_s)
    found = []
    try:
        for message in call:
            found.append(message.event)
            if len(found) == count:
                break
    finally:
        call.cancel()
    return found


def test_watch_events_on_the_in_memory_store_resumes_from_its_own_cursors(memory_server):
    with grpc.insecure_channel(memory_server.address) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        games = [create(stub, "spades").game_id for _ in range(12)]
        for game_id in games:   # each deletion is one event of the open owner's stream
            stub.DeleteGame(pb.DeleteGameRequest(game_id=game_id), timeout=10)
        every = _events(stub, "", 12)
        assert [event.game_id for event in every] == games
        assert all(re.fullmatch(r"e[0-9]+", event.id) for event in every), [event.id for event in every]
        resumed = _events(stub, every[9].id, 2)                 # after "e10", which sorts before "e9"
        assert [event.game_id for event in resumed] == games[10:]
        late = create(stub, "spades").game_id
        with concurrent.futures.ThreadPoolExecutor(1) as pool:   # a stream waiting at the end is woken
            waiting = pool.submit(_events, stub, every[-1].id, 1)
            time.sleep(0.5)
            assert not waiting.done()
            stub.DeleteGame(pb.DeleteGameRequest(game_id=late), timeout=10)
            assert [event.game_id for event in waiting.result(10)] == [late]
        for foreign in ("1733054400000-0", "e", "e01", "x" * 65, "e 1"):   # not a cursor this store made
            with pytest.raises(grpc.RpcError) as refused:
                _events(stub, foreign, 1)
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, foreign
