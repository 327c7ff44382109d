"""The table without gRPC: commands as values, one transaction each, exactly once per request id."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses

import pytest

import engine
from service.errors import Aborted, IllegalMove, InvalidArgument, PermissionDenied, Unauthenticated
from service.store.checked import checked
from service.store.memory import MemoryStore
from service.store.port import shard_of
from service.table import gamelog
from service.table import tokens as auth
from service.table.record import AWAY, LEFT, GameRecord, Lifecycle, Seat
from service.table.sweeper import LEASE_MS, Sweeper
from service.table.table import Back, Leave, Move, Reissue, Table, Timeout, now_ms

GAME = "0123456789abcdef01234567"


async def _table_with_game(timeout_ms: int = 0) -> tuple[Table, dict[int, str]]:
    store = checked(MemoryStore())
    table = Table(store, events_max_len=1000)
    tokens = {seat: auth.random_token() for seat in range(2)}
    seats = [Seat(f"P{seat}", 1, None, auth.token_hash(GAME, tokens[seat])) for seat in range(2)]
    state = engine.new_game("spades2", None, None, 0)
    record = GameRecord(GAME, state, seats, None, lifecycle=Lifecycle(turn_timeout_ms=timeout_ms))
    await store.create(GAME, record.to_bytes(), [gamelog.genesis(state)])
    return table, tokens


async def test_a_move_commits_once_and_its_retry_returns_the_first_outcome() -> None:
    table, tokens = await _table_with_game()
    done = await table.transact(GAME, Move(tokens[0], engine.DEAL), "r1", "fp-deal")
    assert done is not None and done.seat == 0 and done.version == 2 and not done.retried
    again = await table.transact(GAME, Move(tokens[0], engine.DEAL), "r1", "fp-deal")
    assert again is not None and again.retried and again.version == 2
    assert (await table.load(GAME))[0] == 2   # applied once
    with pytest.raises(InvalidArgument):     # the same request id for another request
        await table.transact(GAME, Move(tokens[0], engine.DEAL), "r1", "fp-other")
    with pytest.raises(IllegalMove):         # no retry: the deal is illegal now
        await table.transact(GAME, Move(tokens[0], engine.DEAL), "r2", "fp-deal")
    assert (await table.load(GAME))[0] == 2


async def test_commands_are_authorised_by_their_tokens() -> None:
    table, tokens = await _table_with_game()
    with pytest.raises(PermissionDenied):
        await table.transact(GAME, Move(None, engine.DEAL))
    with pytest.raises(Unauthenticated):
        await table.transact(GAME, Move("forged", engine.DEAL))
    with pytest.raises(Aborted):
        await table.transact(GAME, Move(tokens[0], engine.DEAL, expected_version=7))
    assert (await table.load(GAME))[0] == 1   # nothing changed


async def test_leave_back_and_reissue_are_commands_too() -> None:
    table, tokens = await _table_with_game()
    left = await table.transact(GAME, Leave(tokens[1]), "leave", "fp-leave")
    assert left is not None and left.record.seats[1].presence == LEFT
    retried = await table.transact(GAME, Leave(tokens[1]), "leave", "fp-leave")  # the token is void, yet
    assert retried is not None and retried.retried and retried.version == left.version
    with pytest.raises(Unauthenticated):
        await table.transact(GAME, Back(tokens[1]))
    new = auth.random_token()
    reissued = await table.transact(GAME, Reissue(0, auth.token_hash(GAME, new)), "re", "fp-re")
    assert reissued is not None and reissued.record.seats[0].reissues == 1
    with pytest.raises(Unauthenticated):
        await table.transact(GAME, Move(tokens[0], engine.DEAL))
    assert (await table.transact(GAME, Move(new, engine.DEAL))) is not None


async def test_a_timeout_plays_the_passed_turn_once_and_marks_the_seat_away() -> None:
    table, tokens = await _table_with_game(timeout_ms=60_000)
    await table.transact(GAME, Move(tokens[0], engine.DEAL))
    version, _ = await table.load(GAME)
    done = await table.transact(GAME, Timeout())     # not due yet: nothing happens
    assert done is not None and done.version == version and (await table.load(GAME))[0] == version
    short, tokens = await _table_with_game(timeout_ms=1)   # every turn passes at once
    await short.transact(GAME, Move(tokens[0], engine.DEAL))
    for _ in range(6):   # turns pass, the seats in turn: each seat misses three
        await asyncio.sleep(0.005)
        before = (await short.load(GAME))[0]
        done = await short.transact(GAME, Timeout())
        assert done is not None and done.version > before
    assert any(seat.presence == AWAY for seat in (await short.load(GAME))[1].seats)


async def _table_with_a_passed_turn() -> Table:
    """A table whose game has a turn already past its 1 ms deadline, on the schedule."""
    table, tokens = await _table_with_game(timeout_ms=1)
    await table.transact(GAME, Move(tokens[0], engine.DEAL))
    await table.store.schedule(GAME, now_ms())
    return table


async def _sweep_until_played(table: Table, within_s: float):
    """Run a sweeper on the table until it has played a passed turn or ``within_s`` went by; the sweeper."""
    from service.table.sweeper import Sweeper

    sweeper = Sweeper(table)
    task = asyncio.create_task(sweeper.run())
    try:
        for _ in range(int(within_s / 0.01)):
            if sweeper.swept:
                break
            await asyncio.sleep(0.01)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    return sweeper


async def test_a_fault_in_one_sweeping_round_does_not_end_the_sweeper(monkeypatch) -> None:
    """A round that fails with an unexpected error (here the first lease) is logged and started
    again: the sweeper goes on to hold the shards and play the game's passed turn."""
    from service.table import sweeper as sweeping

    table = await _table_with_a_passed_turn()
    faults = []
    lease = table.store.lease_shards

    async def failing_once(*args):
        if not faults:
            faults.append(args)
            raise RuntimeError("a fault of this round")
        return await lease(*args)

    monkeypatch.setattr(table.store, "lease_shards", failing_once)
    monkeypatch.setattr(sweeping, "RETRY_S", 0.01)
    before = (await table.load(GAME))[0]
    sweeper = await _sweep_until_played(table, 5.0)
    assert faults and sweeper.swept >= 1   # (the shards it held are given up as it stops)
    assert (await table.load(GAME))[0] > before


async def test_a_sweep_that_finds_nothing_claimable_reads_the_shard_again_before_sleeping(monkeypatch) -> None:
    """A due game another sweeper had just claimed (here: the first claim finds nothing) is still
    on the shard: the sweeper reads the shard's next time again and plays the turn when it falls
    due, instead of sleeping until its next lease renewal."""
    table = await _table_with_a_passed_turn()
    claims = []
    claim_due = table.store.claim_due

    async def nothing_the_first_time(*args):
        claims.append(args)
        return [] if len(claims) == 1 else await claim_due(*args)

    monkeypatch.setattr(table.store, "claim_due", nothing_the_first_time)
    sweeper = await _sweep_until_played(table, 3.0)   # well under the 60 s until the sweeper would lease again
    assert len(claims) >= 2 and sweeper.swept >= 1


async def test_a_failed_index_sweep_or_a_busy_store_keeps_the_sweepers_shards(monkeypatch) -> None:
    """The index sweep failing (the store down a moment) and the shard's time unreadable once (its
    connections busy) cost the sweeper none of its shards: it leases once, and plays the turn."""
    from service.store.port import StoreBusy, StoreUnavailable
    from service.table import sweeper as sweeping

    table = await _table_with_a_passed_turn()
    leases, index_sweeps, reads = [], [], []
    lease, next_due = table.store.lease_shards, table.store.next_due

    async def counted_lease(*args):
        leases.append(args)
        return await lease(*args)

    async def failing_index(*args):
        index_sweeps.append(args)
        raise StoreUnavailable("down a moment")

    async def busy_once(shard):
        reads.append(shard)
        if len(reads) == 1:
            raise StoreBusy("every connection in use")
        return await next_due(shard)

    monkeypatch.setattr(table.store, "lease_shards", counted_lease)
    monkeypatch.setattr(table.store, "owners", failing_index)
    monkeypatch.setattr(table.store, "next_due", busy_once)
    monkeypatch.setattr(sweeping, "INDEX_EVERY_S", 0.05)
    monkeypatch.setattr(sweeping.random, "uniform", lambda low, high: low)   # an index sweep in the first round
    monkeypatch.setattr(sweeping, "RETRY_S", 0.05)
    sweeper = await _sweep_until_played(table, 5.0)
    assert index_sweeps and len(reads) >= 2 and sweeper.swept >= 1
    assert len(leases) == 1   # never torn down and leased again


class _SweptMeanwhile:
    """A store that schedules a commit's due time and then commits (as a store must where the
    schedule is elsewhere, a Redis Cluster), whose next commit waits in between while a sweeper,
    a little later, claims and settles the game's due time from the game as it stood."""

    def __init__(self, inner, later_ms: int):
        self.inner, self.later_ms, self.sweeper = inner, later_ms, None

    def __getattr__(self, name):
        return getattr(self.inner, name)

    async def commit(self, change):
        before = await self.inner.schedule(change.game_id, change.due_ms) if change.due_ms else None
        sweeper, self.sweeper = self.sweeper, None
        if sweeper is not None:
            claims = await self.inner.claim_due(shard_of(change.game_id), now_ms() + self.later_ms, LEASE_MS, 10)
            assert [game for game, _ in claims] == [change.game_id]
            for game, claim in claims:
                await sweeper.attend(game, claim)
        result = await self.inner.commit(dataclasses.replace(change, due_ms=0))
        return dataclasses.replace(result, due_before=before)


async def test_a_sweep_between_a_schedule_and_its_commit_cannot_drop_the_new_deadline() -> None:
    table, tokens = await _table_with_game(timeout_ms=1000)   # stored without a deadline yet
    racing = _SweptMeanwhile(table.store, later_ms=1500)
    table.store = racing
    racing.sweeper = Sweeper(table)
    done = await table.transact(GAME, Move(tokens[0], engine.DEAL))   # seat 1's turn: a deadline now
    assert done is not None and done.record.deadline_ms
    # the sweeper settled the game from its old state (no deadline: unscheduled); the deadline is back
    shard = shard_of(GAME)
    assert await racing.inner.next_due(shard) == done.record.deadline_ms


class _StreamDown:
    """The store's event stream refusing every publish (StoreUnavailable) while ``down``, with
    the publish grace cut to 20 ms so the sweeper comes at once."""

    def __init__(self, monkeypatch, store) -> None:
        from service.store.port import StoreUnavailable
        from service.table import table as tables

        monkeypatch.setattr(tables, "PUBLISH_GRACE_MS", 20)
        self.down = True

        def refusing(name: str):
            publish = getattr(store, name)

            async def publishing(*args, **kwargs):
                if self.down:
                    raise StoreUnavailable("the event stream is down for this test")
                return await publish(*args, **kwargs)

            monkeypatch.setattr(store, name, publishing)

        refusing("publish")
        refusing("publish_outbox")


async def test_events_a_committer_could_not_publish_are_published_by_the_sweeper_once(monkeypatch) -> None:
    """A commit's events whose publishing failed wait in the game's outbox; the sweeper, when the
    publish grace has passed, publishes them exactly once and takes the game off the schedule."""
    from service.table import lifecycle
    from service.table import table as tables

    # a commit with events during a sweeper's claim lowers the game's time below the claim's end,
    # so the claim's settle keeps that time (the sweeper does not read the outbox again)
    assert tables.PUBLISH_GRACE_MS < tables.SWEEP_LEASE_MS
    table, tokens = await _table_with_game()
    store = table.store
    stream = _StreamDown(monkeypatch, store)
    await table.transact(GAME, Leave(tokens[1]))
    assert len(await store.outbox(GAME)) == 1   # the leave event, not published
    owner = lifecycle.owner_of("")
    assert await store.read_events(owner, "", 10, 0) == []
    stream.down = False
    sweeper = Sweeper(table)
    task = asyncio.create_task(sweeper.run())
    try:
        for _ in range(500):
            if await store.read_events(owner, "", 10, 0) and await store.next_due(shard_of(GAME)) is None:
                break
            await asyncio.sleep(0.01)
        else:
            raise AssertionError("the event was not published and the game settled within 5 s")
        await asyncio.sleep(0.1)   # a second publishing would be in the stream by now
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    events = await store.read_events(owner, "", 10, 0)
    assert len(events) == 1 and events[0][1] == GAME and b'"k":"leave"' in events[0][2]
    assert await store.outbox(GAME) == []
    assert await store.next_due(shard_of(GAME)) is None   # settled off the schedule


async def test_a_timeout_whose_events_could_not_be_published_is_swept_again(monkeypatch) -> None:
    """The sweeper plays a passed turn while the event stream is down: the timeout's events stay
    in the outbox and the game on the schedule (its commit lowered the claimed time), and once
    the stream is back every event reaches it exactly once, in order."""
    import orjson

    from service.table import lifecycle

    table = await _table_with_a_passed_turn()
    store = table.store
    stream = _StreamDown(monkeypatch, store)
    await _sweep_until_played(table, 5.0)
    stuck = await store.outbox(GAME)
    assert stuck and await store.next_due(shard_of(GAME)) is not None
    last_stuck = int(stuck[-1].split(b" ", 1)[0])
    stream.down = False
    sweeper = Sweeper(table)
    task = asyncio.create_task(sweeper.run())
    try:
        for _ in range(500):
            published = await store.read_events(lifecycle.owner_of(""), "", 1000, 0)
            if published and int(published[-1][2].split(b" ", 1)[0]) >= last_stuck:
                break
            await asyncio.sleep(0.01)
        else:
            raise AssertionError("the events left in the outbox were not published within 5 s")
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    sequences = [int(body.split(b" ", 1)[0]) for _, _, body in
                 await store.read_events(lifecycle.owner_of(""), "", 1000, 0)]
    assert sequences and sequences == list(range(1, len(sequences) + 1))   # each event once, in order
    waiting = [int(body.split(b" ", 1)[0]) for body in await store.outbox(GAME)]
    emitted = (await table.load(GAME))[1].events
    assert sequences + [s for s in waiting if s > sequences[-1]] == list(range(1, emitted + 1))   # none lost
    assert all(orjson.loads(body.split(b" ", 1)[1])["g"] == GAME
               for _, _, body in await store.read_events(lifecycle.owner_of(""), "", 1000, 0))
