"""The table: every change of an existing game goes through :meth:`Table.transact`.

A change is a command value (:class:`Move`, :class:`Leave`, :class:`Back`, :class:`Reissue`,
:class:`Timeout`). ``transact`` loads the game, authorises the caller, applies the command, plays
the bot turns now due, builds the events and the next turn deadline, and commits all of it once
with compare-and-set (retried against the fresh game on a conflict when the caller gave no
expected version). A request id makes it exactly once: a retry gets back the first outcome, as
the game stood then. The RPC layer (gRPC and the HTTP port, through the servicer) and the
sweeper are its callers; it never calls back up into them.

Every commit carries, in the same compare-and-set, the events the change emits (into the game's
outbox) and its new turn deadline. With the commit (in its atomic step on one Redis, just before
it on a cluster) the game is put on the sweeper's schedule (for its deadline, and a little later
when it emitted events), so a crash between the commit and the publishing of its events, or a
deadline nobody acts on, is taken up by any instance's sweeper. The schedule is a hint, never the
truth: whoever acts on it reads the game first.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import bots
import engine
from engine import Phase
from service.errors import Aborted, FailedPrecondition, IllegalMove, InvalidArgument, NotFound, ServiceError
from service.store.port import Commit, Loaded, Store, StoreUnavailable
from service.table import bot_turns, gamelog, lifecycle, retries, tokens
from service.table.record import AWAY, LEFT, PLAYING, GameRecord, UnsupportedRecord
from service.telemetry import metrics

log = logging.getLogger("cardgame.requests")

MAX_ATTEMPTS = 32          # commits tried against a game others keep changing
PUBLISH_GRACE_MS = 2000    # a game whose events were not published by its committer is swept after this;
                           # below SWEEP_LEASE_MS, so a commit with events lowers a claimed game's time
SWEEP_LEASE_MS = 5000      # a sweeper's claim on a due game (service.table.sweeper) lasts this long
MAX_BOT_ACTIONS = 2000     # bot actions one commit carries at most ...
MAX_BOT_SECONDS = 2.0      # ... and the time they may take; the sweeper plays the rest (lifecycle.bots_due)
MAX_TIMEOUT_ACTIONS = 4    # the fallback bot's actions for one passed turn (e.g. look, then bid)


def now_ms() -> int:
    """Wall-clock epoch milliseconds (deadlines and event times)."""
    return time.time_ns() // 1_000_000


# ---- commands ----

MoveAction = int | Callable[[engine.TableState], int]
"""A move's action, or the function that reads it in the words (and at the table) of the game."""


@dataclass(frozen=True)
class Move:
    """A seat's action (its token names the seat), at ``expected_version`` if given: the action
    itself, or a function giving it in the words of the game (called with the game's state once
    the game is loaded; it raises a ServiceError for a move that is none of the game's)."""

    token: str | None
    action: MoveAction
    expected_version: int | None = None


@dataclass(frozen=True)
class Leave:
    """The token's seat leaves: its fallback bot plays on, or the game ends as abandoned."""

    token: str | None


@dataclass(frozen=True)
class Back:
    """The token's seat, marked away, plays its own turns again (at ``expected_version`` if given)."""

    token: str | None
    expected_version: int | None = None


@dataclass(frozen=True)
class Reissue:
    """A human seat gets a new token (its hash here); the old one is void. The caller (the
    game's owner) is authorised before."""

    seat: int
    token_hash: str


@dataclass(frozen=True)
class Timeout:
    """The sweeper: play the passed turn with the seat's fallback bot, or the bot turns a commit
    left due; nothing when neither is due."""


Command = Move | Leave | Back | Reissue | Timeout


@dataclass
class Outcome:
    """The game after a transaction (or, for a retry, as the first outcome left it)."""

    record: GameRecord
    version: int
    seat: int | None
    retried: bool = False


class Table:
    """Transactions on the games of one store."""

    def __init__(self, store: Store, events_max_len: int):
        self.store = store
        self.events_max_len = events_max_len

    # ---- reading ----

    async def load(self, game_id: str) -> tuple[int, GameRecord]:
        """The game's version and record; NotFound when there is none."""
        loaded = await self.store.load(game_id)
        if loaded is None:
            raise NotFound(f"no game {game_id!r}")
        return loaded.version, record_of(loaded.state)

    async def state_at(self, game_id: str, version: int) -> engine.TableState:
        """The engine state of a game at ``version``, rebuilt from its log."""
        log_entries = [raw for _, raw in await self.store.log_after(game_id, 0, until=version)]
        if len(log_entries) != version:
            raise NotFound(f"no game {game_id!r} at version {version}")
        return gamelog.rebuild(log_entries)

    async def recorded(self, game_id: str, raw: bytes, version: int) -> GameRecord:
        """The game as a retried request's first answer showed it: the state at ``version``, with
        the seats' presence, the deadline and the leaver as its retry record kept them."""
        _, record = await self.load(game_id)
        record.state = await self.state_at(game_id, version)
        retries.restore_snapshot(raw, record)
        return record

    # ---- the transaction ----

    async def transact(self, game_id: str, command: Command, request_id: str | None = None,
                       fingerprint: str = "", loaded: Loaded | None = None, method: str = "") -> Outcome | None:
        """Apply ``command`` to the game exactly once (see the module docstring); None when a
        Timeout finds the game gone. ``fingerprint`` names the request a request id belongs to
        (a retry with another request is InvalidArgument); ``loaded``: the game as the caller
        just read it, for the first attempt; ``method``: the entry point's name in the metrics
        (the RPC method; the command's name by default)."""
        expected = command.expected_version if isinstance(command, Move | Back) else None
        seat: int | None = None
        try:
            for attempt in range(MAX_ATTEMPTS):
                if attempt or loaded is None:
                    loaded = await self.store.load(game_id)
                if loaded is None:
                    if isinstance(command, Timeout):
                        return None
                    raise NotFound(f"no game {game_id!r}")
                version, record = loaded.version, record_of(loaded.state)
                scheduled = record.deadline_ms   # the game is on the schedule at this time or earlier
                if request_id and isinstance(command, Leave):   # the leave voids the token it came with
                    raw = await self.store.get_retry(game_id, request_id)
                    if raw is not None:
                        return await self._replayed(game_id, raw, fingerprint, None, check_seat=False)
                seat = _authorised(record, command)
                if request_id and isinstance(command, Back | Reissue):
                    raw = await self.store.get_retry(game_id, request_id)
                    if raw is not None:
                        return await self._replayed(game_id, raw, fingerprint, seat)
                if expected is not None and expected != version:
                    raise Aborted(f"the game is at version {version}, not {expected}")
                at = now_ms()
                step = await self._apply(record, version, seat, command, at)
                if step is None:   # a Timeout with nothing due
                    return Outcome(record, version, seat)
                entries, events = step
                played, bots_left = await self.bot_entries(record, version + len(entries))
                entries += played
                after = version + len(entries)
                lifecycle.set_deadline(record, at, bots_left)
                retry = retries.retry_record(fingerprint, seat, after, record) if request_id else None
                result = await self._commit(record, version, entries, request_id, retry, at, events, scheduled)
                if result.replay is not None:
                    return await self._replayed(game_id, result.replay, fingerprint, seat)
                if result.ok:
                    if isinstance(command, Timeout) and events:   # a passed turn, played by its bot
                        metrics.TURN_TIMEOUTS.inc()
                    return Outcome(record, after, seat)
                retried = expected is None and attempt + 1 < MAX_ATTEMPTS
                metrics.commit_lost(method or type(command).__name__, retried=retried)
                if expected is not None:
                    raise Aborted(f"the game moved on to version {result.version}")
                await asyncio.sleep(random.random() * 0.002 * (attempt + 1))
            raise Aborted("too many concurrent changes to this game; retry")
        except (IllegalMove, Aborted) as exc:
            # A retry of a move that already landed is illegal (or stale) now: answer as the first time.
            raw = await self.store.get_retry(game_id, request_id) if request_id else None
            if raw is None:
                exc.seat = seat
                raise
            return await self._replayed(game_id, raw, fingerprint, seat)
        except ServiceError as exc:
            exc.seat = seat   # the request log names the seat a refused change came from
            raise

    async def _replayed(self, game_id: str, raw: bytes, fingerprint: str, seat: int | None,
                        check_seat: bool = True) -> Outcome:
        recorded_seat, version = retries.retried_seat(raw, fingerprint)
        if check_seat and recorded_seat != seat:
            raise InvalidArgument("request_id was already used for a different request")
        return Outcome(await self.recorded(game_id, raw, version), version, recorded_seat, retried=True)

    async def _apply(self, record: GameRecord, version: int, seat: int | None, command: Command,
                     at: int) -> tuple[list[bytes], list[bytes]] | None:
        """Apply the command to ``record`` in place: (log entries, events), None for nothing to do."""
        if isinstance(command, Move):
            assert seat is not None
            rng = record.rng(version + 1)
            action = command.action if isinstance(command.action, int) else command.action(record.state)
            try:
                chance = engine.apply(record.state, seat, action, rng)
            except engine.IllegalAction as exc:
                raise IllegalMove(exc.message, exc.reason.value) from None
            record.seats[seat].timeouts = 0  # its player is there
            return [gamelog.entry(seat, action, chance)], []
        if isinstance(command, Timeout):
            if not record.deadline_ms or record.deadline_ms > at:
                return None
            if lifecycle.bots_due(record):   # bot turns one commit could not hold: play on
                return [], []
            timed_out = lifecycle.timed_out_seat(record)
            if timed_out is None:
                return None
            return await self._timed_out(record, version, timed_out, at)
        if isinstance(command, Reissue):
            held = record.seats[command.seat]
            if held.presence == LEFT:
                raise FailedPrecondition("the seat's player left the game; it has no token", "SEAT_LEFT")
            held.token_hash = command.token_hash
            held.reissues += 1
            return [gamelog.note("reissue", command.seat)], []
        assert seat is not None
        if record.state.phase == Phase.GAME_OVER:
            raise FailedPrecondition("the game is over", "GAME_OVER")
        held = record.seats[seat]
        if isinstance(command, Back):
            if held.presence != AWAY:
                raise FailedPrecondition("the seat is not marked away", "NOT_AWAY")
            held.presence, held.timeouts = PLAYING, 0
            return [gamelog.note("back", seat)], []
        held.presence, held.token_hash = LEFT, ""   # Leave
        entries = [gamelog.note("leave", seat)]
        events = [lifecycle.event(record, lifecycle.LEAVE, version + 1, at, seat=seat)]
        if record.lifecycle.abandon_on_leave:
            record.left_seat = seat
            record.state.phase = Phase.GAME_OVER
            entries.append(gamelog.note("abandon", seat))
        return entries, events

    async def _timed_out(self, record: GameRecord, version: int, seat: int, at: int) -> tuple[list[bytes], list[bytes]]:
        """The fallback bot's moves for ``seat``, whose turn passed at ``at``, until the turn is
        over, and the seat marked away after enough timeouts in a row: (entries, events)."""
        entries = [gamelog.note("timeout", seat)]
        played: list[str] = []
        while seat in lifecycle.seats_on_the_clock(record) and len(played) < MAX_TIMEOUT_ACTIONS:
            # the bot moves until the turn has passed: looking at the cards is no bid
            rng = record.rng(f"timeout-{version + len(entries) + 1}")
            action = await bot_turns.choose_action(record.seats[seat].fallback, record.state, seat, rng)
            entries.append(gamelog.entry(seat, action, engine.apply(record.state, seat, action, rng)))
            played.append(engine.notation(record.state.variant, action))
        held = record.seats[seat]
        held.timeouts += 1
        events = [lifecycle.event(record, lifecycle.TIMEOUT, version + len(entries), at, seat=seat,
                                  deadline=record.deadline_ms, action=played[-1])]
        if held.timeouts >= record.lifecycle.timeouts_before_away:
            held.presence = AWAY
            entries.append(gamelog.note("away", seat))
        return entries, events

    async def bot_entries(self, record: GameRecord, version: int, label: str = "") -> tuple[list[bytes], bool]:
        """Play the bot turns now due after ``version``: one log entry per action, and whether
        bot turns are still due (left to the sweeper) after them.

        A slow bot (the search bot) chooses in a worker process (``service.table.bot_turns``), so the
        event loop keeps serving other calls meanwhile; the moves still go into the caller's commit.
        One commit takes at most MAX_BOT_ACTIONS of them, or MAX_BOT_SECONDS of choosing (a game
        whose humans are all away is played out by bots): turns still due then are left to the
        sweeper, which the commit schedules at once (``lifecycle.set_deadline``).
        """
        state, strategies = record.state, record.bots
        if not strategies:
            return [], False
        entries: list[bytes] = []
        until = time.monotonic() + MAX_BOT_SECONDS
        turn = bots.bot_turn(state, strategies)
        while turn is not None and len(entries) < MAX_BOT_ACTIONS and (not entries or time.monotonic() < until):
            seat, legal = turn
            rng = record.rng(f"{label}{version + len(entries) + 1}")
            with metrics.bot_thinking(strategies[seat]):
                action = await bot_turns.choose_action(strategies[seat], state, seat, rng, legal)
            entries.append(gamelog.entry(seat, action, engine.apply(state, seat, action, rng)))
            turn = bots.bot_turn(state, strategies)
        return entries, turn is not None

    async def _commit(self, record: GameRecord, version: int, entries: list[bytes], request_id: str | None,
                      retry: bytes | None, at_ms: int, events: list[bytes], scheduled: int = 0):
        """Commit a change: its entries, the events it emits and the new turn deadline, scheduled
        for the sweeper with the commit (``Commit.due_ms``: in its atomic step where the store can,
        before it otherwise, so a crash after it loses nothing), and published after it; scheduled
        again after it when the two steps were apart and a sweeper may have swept the game meanwhile.

        ``scheduled``: the deadline of the game as it stood before the change (``version``), 0
        for none. The game is on the schedule at that time or earlier: the change that set it
        scheduled it (or, as here, found it scheduled earlier still), and a sweeper settles a
        game it attended at the deadline of the game it read, or earlier. So a change that emits
        no events and whose deadline is no earlier (a move that starts the next turn's timer)
        writes nothing to the schedule: the sweeper that comes at the earlier time reads the game
        and settles it at its deadline then. The schedule is a hint; the game is the truth."""
        events = [*events, *lifecycle.change_events(record, version + len(entries), at_ms)]
        due = min([t for t in (record.deadline_ms, at_ms + PUBLISH_GRACE_MS if events else 0) if t], default=0)
        if due and not events and scheduled and due >= scheduled:
            due = 0   # on the schedule already, no later than due
        result = await self.store.commit(Commit(   # scheduled at due with it
            record.game_id, version, record.to_bytes(), entries, request_id, retry,
            record.state.phase == Phase.GAME_OVER, record.new_hands(), events, due))
        prior = result.due_before
        if result.ok and due and not result.due_atomic and min(due, prior or due) <= now_ms() + SWEEP_LEASE_MS:
            # The game was due, or under a sweeper's claim (which ends at most a lease from now),
            # between the schedule and the commit: that sweeper may have settled it from the game
            # as it stood before, dropping this commit's time. It is set again (a lower time always
            # wins, so this is safe whatever happened since).
            await self.store.schedule(record.game_id, due)
        if result.ok and events:
            await self.publish(record.game_id, record.owner)
        return result

    async def publish(self, game_id: str, owner: str) -> bool:
        """Publish what the game's outbox holds to its owner's event stream (each event once),
        then trim the outbox; whether it did. A failure is left to the sweeper, which tries again."""
        try:
            await self.store.publish_outbox(lifecycle.owner_of(owner), game_id, self.events_max_len)
        except StoreUnavailable as exc:
            log.warning("events of game %s not published yet (%s); the sweeper retries", game_id, exc)
            return False
        return True


def _authorised(record: GameRecord, command: Command) -> int | None:
    """The seat a command acts for (PermissionDenied / Unauthenticated when its token names none)."""
    if isinstance(command, Move | Leave | Back):
        return tokens.mover(record.game_id, command.token, [s.token_hash for s in record.seats], record.spectator_hash)
    if isinstance(command, Reissue):
        return command.seat
    return None


def record_of(raw: bytes) -> GameRecord:
    """The stored record of a game; FAILED_PRECONDITION for one this release cannot read."""
    try:
        return GameRecord.from_bytes(raw)
    except UnsupportedRecord as exc:
        raise IllegalMove(str(exc), "UNSUPPORTED_GAME_FORMAT") from None
