"""The lifecycle RPCs of GameService (tokens, listing, leaving, deleting, events, history,
rematch) and the commit path every change goes through, as a mixin of the servicer.

Every change of a game commits, in the same compare-and-set as its log entries, the events it
emits (into the game's outbox) and its new turn deadline. Before the commit the game is put on
the sweeper's schedule (for its deadline, and a little later when it emitted events), so a
crash between the commit and the publishing of its events, or a deadline nobody acts on, is
taken up by any instance's sweeper (``service.sweeper``). The schedule and the listing index are
hints, never the truth: whoever acts on them reads the game first.
"""

from __future__ import annotations

import base64
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from engine import Phase
from engine.core.actions import action_name
from service import auth, bot_turns, checks, gamelog, lifecycle
from service.errors import Aborted, FailedPrecondition, InvalidArgument, NotFound, PermissionDenied
from service.event_feed import EventFeed
from service.games import AWAY, LEFT, PLAYING, GameRecord, UnsupportedRecord
from service.store import Committed, Loaded, Store, StoreUnavailable

log = logging.getLogger("cardgame.requests")

PUBLISH_GRACE_MS = 2000  # a game whose events were not published by its committer is swept after this
MAX_CHANGE_ATTEMPTS = 32
MAX_TIMEOUT_ACTIONS = 4  # the fallback bot's actions for one passed turn (e.g. look, then bid)
DEFAULT_LIST_PAGE = 50
MAX_LIST_PAGE = 200
EVENTS_BATCH = 100
EVENTS_BLOCK_MS = 1000


def now_ms() -> int:
    """Wall-clock epoch milliseconds (deadlines and event times)."""
    return time.time_ns() // 1_000_000


def _list_token(owner: str, created_ms: int, game_id: str) -> str:
    return base64.urlsafe_b64encode(f"{owner}\0{created_ms}\0{game_id}".encode()).decode()


def _list_cursor(token: str, owner: str) -> tuple[int, str] | None:
    if not token:
        return None
    try:
        who, created, game_id = base64.urlsafe_b64decode(token.encode()).decode().split("\0")
        if who == owner and created.isdigit() and len(created) <= 15:
            return int(created), checks.game_id(game_id)
    except (ValueError, UnicodeError, InvalidArgument):
        pass
    raise InvalidArgument("page_token is not one that ListGames returned to this caller")


class LifecycleRpcs:
    """The lifecycle half of GameServicer, which supplies these:"""

    store: Store
    settings: Any  # service.servicer.Settings
    event_feed: EventFeed
    _load: Callable[[str], Awaitable[tuple[int, GameRecord]]]
    _view: Callable[..., Any]
    _bot_entries: Callable[..., Awaitable[list[bytes]]]
    _create: Callable[..., Awaitable[Any]]
    _recorded: Callable[[str, bytes, int], Awaitable[GameRecord]]
    _viewer: Callable[[GameRecord, Any], int | None]

    # ---- the commit path of every change ----

    async def _commit(self, record: GameRecord, version: int, entries: list[bytes], request_id: str | None,
                      retry: bytes | None, at_ms: int, events: list[bytes] | None = None) -> Committed:
        """Commit a change: its entries, the events it emits and the new turn deadline, scheduled
        for the sweeper before the commit and published after it."""
        events = [*(events or ()), *lifecycle.change_events(record, version + len(entries), at_ms)]
        lifecycle.set_deadline(record, at_ms)
        due = [t for t in (record.deadline_ms, at_ms + PUBLISH_GRACE_MS if events else 0) if t]
        if due:
            await self.store.schedule(record.game_id, min(due))
        result = await self.store.commit(record.game_id, version, record.to_bytes(), entries, request_id, retry,
                                         record.state.phase == Phase.GAME_OVER, record.new_hands(), events=events)
        if result.ok and events:
            await self.publish(record.game_id, record.owner)
        return result

    async def publish(self, game_id: str, owner: str) -> None:
        """Publish what the game's outbox holds to its owner's event stream (each event once),
        then trim the outbox; a failure is left to the sweeper, which tries again."""
        try:
            pending = await self.store.outbox(game_id)
            if pending:
                await self.store.publish(lifecycle.owner_of(owner), game_id, pending, self.settings.events_max_len)
                await self.store.trim_outbox(game_id, lifecycle.sequence_of(pending[-1]))
        except StoreUnavailable as exc:
            log.warning("events of game %s not published yet (%s); the sweeper retries", game_id, exc)

    async def _change(self, game_id: str, seat: int | None, token: str | None, method: str, request,
                      make, response) -> object:
        """One change that is no card-game move (leave, back, reissue): load, let ``make(record,
        version)`` change the record and return (entries, events), commit with compare-and-set
        (retried on conflicts), and answer ``response(record, version)``; a retried request id
        gets the first answer."""
        request_id = checks.request_id(request.request_id)
        for _ in range(MAX_CHANGE_ATTEMPTS):
            version, record = await self._load(game_id)
            if token is not None:
                seat = auth.mover(game_id, token, [s.token_hash for s in record.seats], record.spectator_hash)
            if request_id:
                raw = await self.store.get_retry(game_id, request_id)
                if raw is not None:
                    replayed = checks.check_retry(raw, method, request, seat)
                    return response(await self._recorded(game_id, raw, replayed), replayed)
            expects = "expected_version" in request.DESCRIPTOR.fields_by_name and request.HasField("expected_version")
            if expects and request.expected_version != version:
                raise Aborted(f"the game is at version {version}, not {request.expected_version}")
            entries, events = make(record, version, seat)
            entries += await self._bot_entries(record, version + len(entries))
            after = version + len(entries)
            at = now_ms()
            lifecycle.set_deadline(record, at)
            retry = checks.retry_record(method, request, seat, after, record) if request_id else None
            result = await self._commit(record, version, entries, request_id, retry, at, events)
            if result.replay is not None:
                replayed = checks.check_retry(result.replay, method, request, seat)
                return response(await self._recorded(game_id, result.replay, replayed), replayed)
            if result.ok:
                return response(record, after)
        raise Aborted("too many concurrent changes to this game; retry")

    # ---- turn deadlines ----

    async def time_out(self, game_id: str, loaded: Loaded | None = None) -> GameRecord | None:
        """Play the timed-out turn of a game whose deadline has passed, with the seat's fallback
        bot, or the bot turns a commit left due, exactly once whatever the number of sweepers; the
        game as it then stands (None if gone). ``loaded``: the game as the caller just read it, for
        the first attempt."""
        for attempt in range(MAX_CHANGE_ATTEMPTS):
            if attempt or loaded is None:
                loaded = await self.store.load(game_id)
            if loaded is None:
                return None
            version, record = loaded.version, GameRecord.from_bytes(loaded.state)
            at = now_ms()
            if not record.deadline_ms or record.deadline_ms > at:
                return record
            entries: list[bytes] = []
            events: list[bytes] = []
            if not lifecycle.bots_due(record):  # else bot turns one commit could not hold: play on
                seat = lifecycle.timed_out_seat(record)
                if seat is None:
                    return record
                entries, events = await self._timed_out(record, version, seat, at)
            entries += await self._bot_entries(record, version + len(entries))
            result = await self._commit(record, version, entries, None, None, at, events)
            if result.ok:
                return record
        return None

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
            played.append(action_name(action))
        held = record.seats[seat]
        held.timeouts += 1
        events = [lifecycle.event(record, lifecycle.TIMEOUT, version + len(entries), at, seat=seat,
                                  deadline=record.deadline_ms, action=played[-1])]
        if held.timeouts >= record.lifecycle.timeouts_before_away:
            held.presence = AWAY
            entries.append(gamelog.note("away", seat))
        return entries, events

    # ---- the RPCs ----

    async def _owned(self, game_id: str, context, method: str) -> tuple[int, GameRecord, str]:
        """The game, if the caller's API key created it (NotFound otherwise: other games are not
        even confirmed to exist)."""
        caller = self.settings.api_keys.caller(context.invocation_metadata(), method)
        version, record = await self._load(game_id)
        if record.owner != caller:
            raise NotFound(f"no game {game_id!r}")
        return version, record, caller

    async def reissue_seat_token(self, request, context, call):
        """A human seat's new token (random), its old one void at once."""
        call.game_id = game_id = checks.game_id(request.game_id)
        _, record, _ = await self._owned(game_id, context, "ReissueSeatToken")
        if not 0 <= request.seat < len(record.seats) or record.seats[request.seat].bot:
            raise InvalidArgument(f"seat {request.seat} is not a human seat of this game")
        if record.seats[request.seat].presence == LEFT:
            raise FailedPrecondition("the seat's player left the game; it has no token", "SEAT_LEFT")
        call.seat = request.seat
        request_id = checks.request_id(request.request_id) or ""
        purpose = f"reissue:{request_id}"
        token = (auth.derived_token(self.settings.token_secret, game_id, request.seat, purpose)
                 if request_id else auth.random_token())

        def make(record: GameRecord, version: int, seat: int | None):
            record.seats[request.seat].token_hash = auth.token_hash(game_id, token)
            record.seats[request.seat].reissues += 1
            return [gamelog.note("reissue", request.seat)], []

        def answer(record: GameRecord, version: int):
            given: str | None = token
            if request_id:   # a retry's token was derived by the first call, maybe under an earlier secret
                seat = record.seats[request.seat]
                given = auth.recovered_token(self.settings.token_secrets, game_id, request.seat, seat.token_hash,
                                             purpose)
                if given is None and seat.reissues > 1:
                    raise FailedPrecondition("the seat was given a newer token since (ReissueSeatToken)",
                                             "TOKEN_REISSUED")
                if given is None:
                    raise FailedPrecondition("this seat's new token was derived from a token secret this server "
                                             "no longer has (--token-secret-previous); it cannot be returned "
                                             "again", "TOKEN_SECRET_CHANGED")
            return pb.ReissueSeatTokenResponse(seat_token=pb.SeatToken(seat=request.seat, token=given))

        return await self._change(game_id, request.seat, None, "ReissueSeatToken", request, make, answer)

    async def leave_game(self, request, context, call):
        """The caller's seat leaves: its fallback bot plays on, or the game ends as abandoned."""
        call.game_id = game_id = checks.game_id(request.game_id)
        request_id = checks.request_id(request.request_id)
        raw = await self.store.get_retry(game_id, request_id) if request_id else None
        if raw is not None:  # the leave voided the token: its retry is known by the request alone
            call.seat, version = checks.retried_seat(raw, "LeaveGame", request)
            return pb.LeaveGameResponse(view=self._view(await self._recorded(game_id, raw, version), None, version))
        token = auth.bearer_token(context.invocation_metadata())
        if token is None:
            raise PermissionDenied("LeaveGame needs the leaving seat's token")

        def make(record: GameRecord, version: int, seat: int | None):
            assert seat is not None
            if record.state.phase == Phase.GAME_OVER:
                raise FailedPrecondition("the game is over", "GAME_OVER")
            at = now_ms()
            held = record.seats[seat]
            held.presence, held.token_hash = LEFT, ""
            entries = [gamelog.note("leave", seat)]
            events = [lifecycle.event(record, lifecycle.LEAVE, version + 1, at, seat=seat)]
            if record.lifecycle.abandon_on_leave:
                record.left_seat = seat
                record.state.phase = Phase.GAME_OVER
                entries.append(gamelog.note("abandon", seat))
            return entries, events

        def answer(record: GameRecord, version: int):
            return pb.LeaveGameResponse(view=self._view(record, None, version))

        return await self._change(game_id, None, token, "LeaveGame", request, make, answer)

    async def back(self, request, context, call):
        """Act "back": an away seat plays its own turns again."""
        game_id = call.game_id
        token = auth.bearer_token(context.invocation_metadata())
        if token is None:
            raise PermissionDenied("spectators cannot make moves; send a seat token")

        def make(record: GameRecord, version: int, seat: int | None):
            assert seat is not None
            call.seat = seat
            if record.state.phase == Phase.GAME_OVER:
                raise FailedPrecondition("the game is over", "GAME_OVER")
            if record.seats[seat].presence != AWAY:
                raise FailedPrecondition("the seat is not marked away", "NOT_AWAY")
            record.seats[seat].presence, record.seats[seat].timeouts = PLAYING, 0
            return [gamelog.note("back", seat)], []

        def answer(record: GameRecord, version: int):
            return pb.ActResponse(view=self._view(record, call.seat, version))

        return await self._change(game_id, None, token, "Act", request, make, answer)

    async def delete_game(self, request, context, call):
        """Remove a game and everything about it; a delete event goes to the owner's stream."""
        call.game_id = game_id = checks.game_id(request.game_id)
        version, record, caller = await self._owned(game_id, context, "DeleteGame")
        owner = lifecycle.owner_of(caller)
        await self.publish(game_id, record.owner)  # what the game emitted comes before its deletion
        final = lifecycle.event(record, lifecycle.DELETE, version, now_ms())
        await self.store.unindex_game(owner, game_id, lifecycle.terms(record))
        if await self.store.delete(game_id):
            await self.store.publish(owner, game_id, [final], self.settings.events_max_len)
        await self.store.forget(owner, game_id)
        return pb.DeleteGameResponse()

    async def list_games(self, request, context, call):
        """The caller's games, newest first, filtered by labels, player id and status."""
        caller = self.settings.api_keys.caller(context.invocation_metadata(), "ListGames")
        owner = lifecycle.owner_of(caller)
        labels = lifecycle.check_labels(dict(request.labels), "labels filter")
        player = lifecycle.check_external_id(request.external_player_id, "external_player_id")
        if request.status not in enums.GameStatus.values():
            raise InvalidArgument("status is not a known game status")
        if request.page_size < 0:
            raise InvalidArgument("page_size must not be negative")
        size = min(request.page_size or DEFAULT_LIST_PAGE, MAX_LIST_PAGE)
        cursor = _list_cursor(request.page_token, owner)
        terms = lifecycle.label_terms(labels) + ([f"p:{player}"] if player else [])
        response = pb.ListGamesResponse()
        for _ in range(4):  # a few index pages at most per call; the token continues the rest
            found, cursor = await self.store.list_index(owner, terms, cursor, size - len(response.games))
            loaded = await self.store.loads([game_id for _, game_id in found])
            gone = []
            for (_, game_id), game in zip(found, loaded, strict=True):
                try:
                    record = GameRecord.from_bytes(game.state) if game is not None else None
                except UnsupportedRecord:  # stored by an older release: not listed
                    continue
                if game is None or record is None or record.owner != caller:
                    gone.append(game_id)
                elif not request.status or lifecycle.status(record) == request.status:
                    response.games.append(lifecycle.summary(record, game.version))
            if gone:
                await self.store.prune_index(owner, gone)
            if cursor is None or len(response.games) >= size:
                break
        if cursor is not None:
            response.next_page_token = _list_token(owner, *cursor)
        return response

    async def get_history(self, request, context, call):
        """A page of the game's log with chance outcomes, as far as the caller may know them: the
        entries after ``after_version``, at most ``page_size`` (1000 for 0; a larger size than
        5000 is taken as 5000, as AIP-158 has it and as ListGames and GetScore do)."""
        call.game_id = game_id = checks.game_id(request.game_id)
        default_size, max_size = 1000, 5000  # entries per page, as the proto documents them
        if request.page_size < 0:
            raise InvalidArgument(f"page_size must not be negative, not {request.page_size}")
        size = min(request.page_size or default_size, max_size)
        if request.after_version < 0:
            raise InvalidArgument(f"after_version must not be negative, not {request.after_version}")
        version, record = await self._load(game_id)
        call.seat = self._viewer(record, context)
        after = max(request.after_version, 1)  # version 1, the creation, has no entry
        last = min(after + size, version)
        until = last if last > after else 1  # hand numbers need the replay from the genesis on
        raw = [entry for _, entry in await self.store.log_after(game_id, 0, until=until)]
        if len(raw) != until:
            raise NotFound(f"game {game_id!r} no longer exists")
        response = lifecycle.history(record, raw, version, after)
        if last < version:
            response.next_after_version = last
        return response

    async def rematch(self, request, context, call):
        """A new game with the same seats, labels and options as the given one."""
        call.game_id = game_id = checks.game_id(request.game_id)
        _, record, caller = await self._owned(game_id, context, "Rematch")
        request_id = checks.request_id(request.request_id)
        created = await self._create(caller, record.state.variant, [seat.fresh() for seat in record.seats],
                                     record.state.options, None, [], None, request_id, request, "Rematch",
                                     record.labels, record.lifecycle, record.spectators)
        return pb.RematchResponse(game_id=created.game_id, seat_tokens=created.seat_tokens, view=created.view,
                                  spectator_token=created.spectator_token)

    async def events(self, caller: str, after_id: str):
        """Every event of the caller's games after ``after_id``, as Event messages, waiting for
        new ones while none come (the stream ends only when the caller leaves)."""
        owner = lifecycle.owner_of(caller)
        last = checks.event_id(after_id)
        while True:
            found = await self.event_feed.read(owner, last, EVENTS_BATCH, EVENTS_BLOCK_MS)
            for stream_id, _, raw in found:
                last = stream_id
                yield lifecycle.event_message(stream_id, raw)
