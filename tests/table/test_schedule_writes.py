"""When a change writes the sweeper's schedule: only when the game's time comes earlier than the
one it is already scheduled at (a first deadline, events to publish, bot turns due now), never
for a move that just starts the next turn's timer, and without ever losing a deadline."""

from __future__ import annotations

import engine
from service.store.checked import checked
from service.store.memory import MemoryStore
from service.store.port import Commit, Committed, shard_of
from service.table import gamelog
from service.table import tokens as auth
from service.table.record import GameRecord, Lifecycle, Seat
from service.table.sweeper import LEASE_MS, Sweeper
from service.table.table import Leave, Move, Table

GAME = "0123456789abcdef01234568"
TIMEOUT_MS = 60_000


class _Counting:
    """A store that counts its schedule writes: ``schedule`` calls and commits with a ``due_ms``."""

    def __init__(self, inner) -> None:
        self.inner, self.scheduled = inner, []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    async def schedule(self, game_id: str, at_ms: int) -> int | None:
        self.scheduled.append(at_ms)
        return await self.inner.schedule(game_id, at_ms)

    async def commit(self, change: Commit) -> Committed:
        if change.due_ms:
            self.scheduled.append(change.due_ms)
        return await self.inner.commit(change)


async def _table() -> tuple[Table, _Counting, dict[int, str]]:
    store = _Counting(checked(MemoryStore()))
    table = Table(store, events_max_len=1000)   # type: ignore[arg-type]
    tokens = {seat: auth.random_token() for seat in range(2)}
    seats = [Seat(f"P{seat}", 1, None, auth.token_hash(GAME, tokens[seat])) for seat in range(2)]
    state = engine.new_game("spades2", None, None, 0)
    record = GameRecord(GAME, state, seats, None, lifecycle=Lifecycle(turn_timeout_ms=TIMEOUT_MS))
    await store.create(GAME, record.to_bytes(), [gamelog.genesis(state)])
    return table, store, tokens


async def _move(table: Table, tokens: dict[int, str]):
    """The game's next move, by the seat whose turn it is (its first legal action)."""
    _, record = await table.load(GAME)
    state = record.state
    seat = state.turn if state.turn >= 0 else next(s for s in range(2) if engine.legal_actions(state, s))
    done = await table.transact(GAME, Move(tokens[seat], engine.legal_actions(state, seat)[0]))
    assert done is not None
    return done


async def test_a_move_that_starts_the_next_turns_timer_writes_no_schedule() -> None:
    table, store, tokens = await _table()
    first = await _move(table, tokens)   # the first deadline: scheduled
    assert store.scheduled == [first.record.deadline_ms]
    deadlines = [first.record.deadline_ms]
    for _ in range(5):
        done = await _move(table, tokens)
        assert done.record.deadline_ms >= deadlines[-1]
        deadlines.append(done.record.deadline_ms)
    assert store.scheduled == [first.record.deadline_ms]   # no more writes
    # the game stays due at its first deadline, before its current one: the sweeper comes then
    assert await store.inner.next_due(shard_of(GAME)) == deadlines[0] <= deadlines[-1]


async def test_a_change_with_events_or_an_earlier_time_writes_the_schedule() -> None:
    table, store, tokens = await _table()
    await _move(table, tokens)
    written = len(store.scheduled)
    done = await table.transact(GAME, Leave(tokens[0]))   # an event to publish, and seat 0's bot plays on
    assert done is not None
    assert store.scheduled[written:], "a change with events writes the schedule"
    assert store.scheduled[-1] < (done.record.deadline_ms or 2**62)   # the events' grace comes first


async def test_a_sweeper_that_comes_at_the_earlier_time_settles_the_game_at_its_deadline() -> None:
    table, store, tokens = await _table()
    first = (await _move(table, tokens)).record.deadline_ms
    later = (await _move(table, tokens)).record.deadline_ms
    shard = shard_of(GAME)
    claims = await store.claim_due(shard, first, LEASE_MS, 10)
    assert [game for game, _ in claims] == [GAME]
    await Sweeper(table).attend(GAME, claims[0][1])   # nothing has passed: the game is settled at its deadline
    assert (await table.load(GAME))[1].deadline_ms == later
    assert await store.inner.next_due(shard) == later


async def test_a_move_during_a_sweepers_visit_leaves_the_game_due_no_later_than_its_deadline() -> None:
    table, store, tokens = await _table()
    first = (await _move(table, tokens)).record.deadline_ms
    shard = shard_of(GAME)
    (_, claim), = await store.claim_due(shard, first, LEASE_MS, 10)
    loaded = await store.load(GAME)   # the sweeper read the game ...
    written = len(store.scheduled)
    latest = (await _move(table, tokens)).record.deadline_ms   # ... a move commits meanwhile (no schedule write)
    assert len(store.scheduled) == written
    sweeper = Sweeper(table)
    real_load = store.inner.load

    async def stale_load(game_id: str):
        return loaded   # the sweeper's read came before the move

    store.inner.load = stale_load
    try:
        await sweeper.attend(GAME, claim)
    finally:
        store.inner.load = real_load
    due = await store.inner.next_due(shard)
    assert due is not None and due <= latest   # the deadline of the game is never lost
