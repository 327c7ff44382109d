"""GameService: each request loads the game, applies the engine, and compare-and-sets it back.

Nothing about a game lives in this process between requests, so any number of instances can
serve the same game. A move is committed together with the events it caused (bot turns
included) and its idempotency record, atomically, only if the version is still the one read.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import hashlib
import logging
import random
import secrets
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from functools import wraps
from typing import TypeVar

import grpc

import bots
import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from service import auth, bot_turns, checks, convert, gamelog, lifecycle, metrics, tracing
from service.apikeys import ApiKeys
from service.errors import (
    Aborted,
    FailedPrecondition,
    IllegalMove,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    ServiceError,
    Unavailable,
    to_status,
)
from service.event_feed import EventFeed
from service.games import LEFT, GameRecord, Lifecycle, Seat, UnsupportedRecord
from service.lifecycle_rpcs import LifecycleRpcs, now_ms
from service.store import GameExists, Store, StoreUnavailable

log = logging.getLogger("cardgame.requests")
T = TypeVar("T")

MAX_DECKS = 200
MAX_ATTEMPTS = 32
MAX_LOGGED_ID = 256  # characters of a request id that a log line shows
MAX_BOT_ACTIONS = 2000   # bot actions one commit carries at most ...
MAX_BOT_SECONDS = 2.0    # ... and the time they may take; the sweeper plays the rest (lifecycle.bots_due)
WATCH_CHECK_S = 1.0  # an idle WatchGame stream checks this often that its game still exists
WATCH_OUTAGE_S = 10.0  # a WatchGame stream waits out a store outage this long, then UNAVAILABLE
DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 500


@dataclass
class Settings:
    """Server options that change what requests may do."""

    allow_prearranged_decks: bool = False
    allow_seeded_shuffle: bool = False
    max_watches_per_connection: int = 100
    token_secret: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    api_keys: ApiKeys = field(default_factory=ApiKeys)
    create_rate: float = 5.0
    create_burst: int = 100
    events_max_len: int = 100_000
    previous_token_secrets: tuple[bytes, ...] = ()   # earlier secrets, for retries of what they derived

    @property
    def token_secrets(self) -> tuple[bytes, ...]:
        """The token secret, then the earlier ones still accepted for retries."""
        return (self.token_secret, *self.previous_token_secrets)


class _Call:
    """What the request log line reports about one call."""

    __slots__ = ("game_id", "seat", "request_id")

    def __init__(self, request_id: str = ""):
        self.game_id = ""
        self.seat: int | None = None
        self.request_id = request_id[:MAX_LOGGED_ID]


@contextlib.asynccontextmanager
async def _handled(name: str, call: _Call, context):
    """Map errors to statuses (never UNKNOWN for client input), count the call in the metrics and
    log one line for it."""
    start = time.perf_counter()
    metrics.rpc_started(name)
    code = grpc.StatusCode.OK
    try:
        yield
    except ServiceError as exc:
        code = exc.code
        await _abort(context, to_status(exc))
    except StoreUnavailable as exc:
        code = grpc.StatusCode.UNAVAILABLE
        log.warning("game store unavailable in %s: %s", name, exc)  # the details stay in the log
        await _abort(context, to_status(Unavailable("the game store is unavailable; retry shortly")))
    except (asyncio.CancelledError, grpc.aio.AbortError):
        code = grpc.StatusCode.CANCELLED
        raise
    except _PeerGone:
        code = grpc.StatusCode.CANCELLED  # the caller cancelled or its deadline passed: nobody to answer
    except Exception:
        code = grpc.StatusCode.INTERNAL
        log.exception("internal error in %s", name)
        await _abort(context, to_status(ServiceError("internal error")))
    finally:
        elapsed = time.perf_counter() - start
        metrics.rpc_finished(name, code.name, elapsed)
        _log_request(name, call, code, elapsed, context)


async def _abort(context, status: grpc.Status) -> None:
    """End the call with ``status``; when the caller is already gone (cancelled, or its deadline
    passed while the answer was being made) there is nobody to tell, and the call just ends."""
    try:
        await context.abort_with_status(status)
    except grpc.aio.AbortError:
        raise
    except Exception:  # gRPC refuses to send a status on a call that has ended
        raise asyncio.CancelledError() from None


class _PeerGone(Exception):
    """A stream's caller is gone (cancelled, deadline passed) while a message was being sent."""


def _rpc(method):
    """Wrap a unary handler with :func:`_handled`."""
    name = method.__name__

    @wraps(method)
    async def handler(self, request, context):
        call = _Call(getattr(request, "request_id", ""))
        async with _handled(name, call, context):
            checks.check_decoded(request)
            return await method(self, request, context, call)

    return handler


def _log_request(method: str, call: _Call, code: grpc.StatusCode, seconds: float, context) -> None:
    """The call's log line (its fields: method, game_id, seat, status, latency_ms, request_id, peer,
    and trace_id when the call is traced); its status goes on its span too."""
    trace_id = tracing.finish_call(code)
    if log.isEnabledFor(logging.INFO):
        fields = {"method": method, "game_id": call.game_id, "seat": call.seat, "status": code.name,
                  "latency_ms": round(seconds * 1000, 3), "request_id": call.request_id or None, "peer": context.peer()}
        if trace_id is not None:
            fields["trace_id"] = trace_id
        log.info("%s %s %.3f ms", method, code.name, seconds * 1000, extra=fields)


class GameServicer(LifecycleRpcs, pb_grpc.GameServiceServicer):
    """The cardgame.v1.GameService implementation over a Store."""

    def __init__(self, store: Store, settings: Settings | None = None):
        self.store = store
        self.settings = settings or Settings()
        self.event_feed = EventFeed(store)   # WatchEvents streams wait on it, not on Redis each
        self._watches: collections.Counter[str] = collections.Counter()   # open WatchGame streams by peer

    # ---- reading ----

    async def _load(self, game_id: str) -> tuple[int, GameRecord]:
        loaded = await self.store.load(game_id)
        if loaded is None:
            raise NotFound(f"no game {game_id!r}")
        return loaded.version, _record(loaded.state)

    def _view(self, record: GameRecord, seat: int | None, version: int, state: engine.TableState | None = None):
        state = state or record.state
        message = convert.view_message(engine.view(state, seat), record.game_id, version,
                                       [s.name for s in record.seats], [s.kind for s in record.seats])
        return lifecycle.decorate(message, record, seat)

    async def _exists(self, game_id: str) -> None:
        """NotFound once the game is gone (expired, or lost with its Redis)."""
        if await self.store.version(game_id) == 0:
            raise NotFound(f"game {game_id!r} no longer exists")

    async def _state_at(self, game_id: str, version: int) -> engine.TableState:
        """The engine state of a game at ``version``, rebuilt from its log."""
        log_entries = [raw for _, raw in await self.store.log_after(game_id, 0, until=version)]
        if len(log_entries) != version:
            raise NotFound(f"no game {game_id!r} at version {version}")
        return gamelog.rebuild(log_entries)

    @_rpc
    async def GetGame(self, request, context, call):
        """The caller's view of a game."""
        call.game_id = checks.game_id(request.game_id)
        version, record = await self._load(call.game_id)
        call.seat = auth.seat_of(call.game_id, auth.bearer_token(context.invocation_metadata()),
                                 [s.token_hash for s in record.seats])
        return pb.GetGameResponse(view=self._view(record, call.seat, version))

    @_rpc
    async def GetScore(self, request, context, call):
        """A page of the finished hands' score records, the totals and the winner (public)."""
        call.game_id = checks.game_id(request.game_id)
        if request.page_size < 0:
            raise InvalidArgument("page_size must not be negative")
        size = min(request.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        start = checks.page_start(request.page_token, call.game_id)
        _, record = await self._load(call.game_id)
        auth.seat_of(call.game_id, auth.bearer_token(context.invocation_metadata()),
                     [s.token_hash for s in record.seats])
        hands = await self.store.hands(call.game_id, start, size + 1)
        record.with_hands(hands[:size])
        response = convert.score_message(record.state)
        if len(hands) > size:
            response.next_page_token = checks.page_token(call.game_id, start + size)
        return response

    # ---- creating ----

    @_rpc
    async def CreateGame(self, request, context, call):
        """Create a game; returns its id, one token per human seat and the spectator view."""
        caller = self.settings.api_keys.caller(context.invocation_metadata(), "CreateGame")
        variant = convert.variant(request.variant, request.variant_name)
        request_id = checks.request_id(request.request_id)
        n = engine.game_of(variant).seats
        if len(request.seats) != n:
            raise InvalidArgument(f"{variant} needs exactly {n} seats, not {len(request.seats)}")
        seats = [self._seat(i, cfg, variant) for i, cfg in enumerate(request.seats)]
        if all(s.bot for s in seats):
            raise InvalidArgument("at least one seat must be human")
        options = convert.options(variant, request.options)
        labels = lifecycle.check_labels(dict(request.labels))
        life = lifecycle.lifecycle_of(request.lifecycle)
        if request.HasField("first_dealer") and not 0 <= request.first_dealer < n:
            raise InvalidArgument(f"first_dealer must be a seat from 0 to {n - 1}")
        if request.decks and not self.settings.allow_prearranged_decks:
            raise PermissionDenied("this server does not accept prearranged decks")
        if len(request.decks) > MAX_DECKS:
            raise InvalidArgument(f"at most {MAX_DECKS} prearranged decks")
        decks = [convert.deck(d, variant, i) for i, d in enumerate(request.decks)]
        seed = None
        if request.HasField("shuffle_seed"):
            if not self.settings.allow_seeded_shuffle:
                raise PermissionDenied("this server does not accept shuffle seeds")
            seed = request.shuffle_seed
        first = request.first_dealer if request.HasField("first_dealer") else None
        return await self._create(caller, variant, seats, options, first, decks, seed, request_id, request,
                                  "CreateGame", labels, life, call)

    @staticmethod
    def _seat(i: int, cfg, variant: str) -> Seat:
        """A seat of a CreateGame request, checked."""
        if len(cfg.name) > convert.MAX_NAME_LENGTH:
            raise InvalidArgument(f"seats[{i}].name is longer than {convert.MAX_NAME_LENGTH} characters")
        if cfg.kind not in enums.PlayerKind.values() or cfg.fallback not in enums.PlayerKind.values():
            raise InvalidArgument(f"seats[{i}] names a player kind that does not exist")
        kind = cfg.kind or enums.PLAYER_KIND_HUMAN
        bot = convert.BOTS.get(kind)
        if cfg.fallback:
            fallback = convert.BOTS.get(cfg.fallback)
            if fallback is None:
                raise InvalidArgument(f"seats[{i}].fallback must be a bot kind")
        else:  # the basic bot where it plays the game, else the random one, which plays every game
            fallback = "basic" if bots.BOTS["basic"].plays(variant) else "random"
        for what, name in (("kind", bot), ("fallback", fallback)):
            if name is not None:
                try:
                    bots.bot_of(name, variant)
                except ValueError as exc:
                    raise InvalidArgument(f"seats[{i}].{what}: {exc}") from None
        external = lifecycle.check_external_id(cfg.external_player_id, f"seats[{i}].external_player_id")
        return Seat(cfg.name or f"Seat {i}", kind, bot, "", external, fallback)

    async def _create(self, caller: str, variant: str, seats: list[Seat], options, first: int | None,
                      decks: list[list[int]], seed: int | None, request_id: str | None, request, method: str,
                      labels: dict[str, str], life: Lifecycle, call=None) -> pb.CreateGameResponse:
        """Create a game for ``caller`` (CreateGame, Rematch): tokens, index, first bot turns,
        all exactly once for a request id."""
        # A request id names a game of its caller's: another API key reusing it gets another game.
        game_id = (hashlib.sha256(f"{method.lower()}\0{caller}\0{request_id}".encode()).hexdigest()[:24]
                   if request_id else secrets.token_hex(12))
        if call is not None:
            call.game_id = game_id
        if request_id:
            replay = await self.store.get_retry(game_id, request_id)
            if replay is not None:
                return await self._replay_create(replay, request, game_id, method)
        if caller:
            wait_s = await self.store.take_token(f"create:{caller}", self.settings.create_rate,
                                                 self.settings.create_burst)
            if wait_s:
                raise ResourceExhausted(f"this API key may create {self.settings.create_rate:g} games a second; "
                                        f"retry in {wait_s:.3f} s", "RATE_LIMITED", wait_s)
        tokens = {}
        for i, seat in enumerate(seats):
            if not seat.bot:
                tokens[i] = (auth.derived_token(self.settings.token_secret, game_id, i) if request_id
                             else auth.random_token())
                seat.token_hash = auth.token_hash(game_id, tokens[i])
        rng = random.Random(f"{seed}:0") if seed is not None else None
        state = engine.new_game(variant, options, rng, first, decks)
        created = now_ms()
        record = GameRecord(game_id, state, seats, seed, owner=caller, labels=labels, created_ms=created,
                            lifecycle=life)
        entries = [gamelog.genesis(state)] + await self._bot_entries(record, 1, "create-")
        version = len(entries)
        lifecycle.set_deadline(record, created)
        retry = checks.retry_record(method, request, None, version) if request_id else None
        # The index and the schedule are written first: hints that never miss a game that exists.
        await self.store.index_game(lifecycle.owner_of(caller), game_id, created, lifecycle.terms(record))
        if record.deadline_ms:
            await self.store.schedule(game_id, record.deadline_ms)
        try:
            await self.store.create(game_id, record.to_bytes(), entries, request_id, retry)
        except GameExists:
            replay = await self.store.get_retry(game_id, request_id) if request_id else None
            if replay is not None and request_id:
                return await self._replay_create(replay, request, game_id, method)
            if request_id:
                raise InvalidArgument("request_id was already used to create a game") from None
            raise Aborted("a new game id collided with an existing game; retry") from None
        # Indexed again once it exists: an index sweep between the two writes cannot drop it.
        await self.store.index_game(lifecycle.owner_of(caller), game_id, created, lifecycle.terms(record))
        response = pb.CreateGameResponse(game_id=game_id, view=self._view(record, None, version))
        response.seat_tokens.extend(pb.SeatToken(seat=i, token=t) for i, t in tokens.items())
        return response

    async def _replay_create(self, raw: bytes, request, game_id: str, method: str = "CreateGame"):
        """The first answer again: the game at the version it was created at, and the seat tokens
        derived anew from the token secret (checked against the seats' stored hashes)."""
        version = checks.check_retry(raw, method, request, None)
        _, record = await self._load(game_id)
        response = pb.CreateGameResponse(game_id=game_id,
                                         view=self._view(record, None, version, await self._state_at(game_id, version)))
        for i, seat in enumerate(record.seats):
            if not seat.bot and seat.presence != LEFT:
                if seat.reissues:
                    raise FailedPrecondition(f"seat {i} was given a new token since the game was created "
                                             "(ReissueSeatToken)", "TOKEN_REISSUED")
                token = auth.recovered_token(self.settings.token_secrets, game_id, i, seat.token_hash)
                if token is None:
                    raise FailedPrecondition("this game's seat tokens were derived from a token secret this "
                                             "server no longer has (--token-secret-previous); they cannot be "
                                             "returned again", "TOKEN_SECRET_CHANGED")
                response.seat_tokens.add(seat=i, token=token)
        return response

    # ---- moves ----

    async def _bot_entries(self, record: GameRecord, version: int, label: str = "") -> list[bytes]:
        """Play the bot turns now due after ``version``; return one log entry per action.

        A slow bot (the search bot) chooses in a worker process (``service.bot_turns``), so the
        event loop keeps serving other calls meanwhile; the moves still go into the caller's commit.
        One commit takes at most MAX_BOT_ACTIONS of them, or MAX_BOT_SECONDS of choosing (a game
        whose humans are all away is played out by bots): turns still due then are left to the
        sweeper, which the commit schedules at once (``lifecycle.set_deadline``).
        """
        state, strategies = record.state, record.bots
        bot_seats = set(strategies)
        entries: list[bytes] = []
        until = time.monotonic() + MAX_BOT_SECONDS
        seat = bots.bot_seat_to_act(state, bot_seats)
        while seat is not None and len(entries) < MAX_BOT_ACTIONS and (not entries or time.monotonic() < until):
            rng = record.rng(f"{label}{version + len(entries) + 1}")
            with metrics.bot_thinking(strategies[seat]):
                action = await bot_turns.choose_action(strategies[seat], state, seat, rng)
            entries.append(gamelog.entry(seat, action, engine.apply(state, seat, action, rng)))
            seat = bots.bot_seat_to_act(state, bot_seats)
        return entries

    async def _move(self, request, context, call, method: str, action: int, response_cls):
        """Apply one action of the caller's seat (and the bot turns it hands over), exactly once."""
        call.game_id = game_id = checks.game_id(request.game_id)
        request_id = checks.request_id(request.request_id)
        token = auth.bearer_token(context.invocation_metadata())
        expected = request.expected_version if request.HasField("expected_version") else None

        async def replay(raw: bytes, seat: int | None):
            version = checks.check_retry(raw, method, request, seat)
            _, record = await self._load(game_id)
            return response_cls(view=self._view(record, seat, version, await self._state_at(game_id, version)))

        try:
            for attempt in range(MAX_ATTEMPTS):
                version, record = await self._load(game_id)
                seat = auth.seat_of(game_id, token, [s.token_hash for s in record.seats])
                if seat is None:
                    raise PermissionDenied("spectators cannot make moves; send a seat token")
                call.seat = seat
                if expected is not None and expected != version:
                    raise Aborted(f"the game is at version {version}, not {expected}")
                rng = record.rng(version + 1)
                try:
                    chance = engine.apply(record.state, seat, action, rng)
                except engine.IllegalAction as exc:
                    raise IllegalMove(exc.message, exc.reason.value) from None
                record.seats[seat].timeouts = 0  # its player is there
                entries = [gamelog.entry(seat, action, chance)] + await self._bot_entries(record, version + 1)
                after = version + len(entries)
                retry = checks.retry_record(method, request, seat, after) if request_id else None
                result = await self._commit(record, version, entries, request_id, retry, now_ms())
                if result.replay is not None:
                    return await replay(result.replay, seat)
                if result.ok:
                    return response_cls(view=self._view(record, seat, after))
                metrics.commit_lost(method, retried=expected is None and attempt + 1 < MAX_ATTEMPTS)
                if expected is not None:
                    raise Aborted(f"the game moved on to version {result.version}")
                await asyncio.sleep(random.random() * 0.002 * (attempt + 1))
            raise Aborted("too many concurrent changes to this game; retry")
        except (IllegalMove, Aborted):
            # A retry of a move that already landed is illegal (or stale) now: answer as the first time.
            raw = await self.store.get_retry(game_id, request_id) if request_id else None
            if raw is None:
                raise
            return await replay(raw, call.seat)

    @_rpc
    async def Deal(self, request, context, call):
        """The dealer deals the next hand (2-player Spades: the first drawer starts the draw)."""
        return await self._move(request, context, call, "Deal", engine.DEAL, pb.DealResponse)

    @_rpc
    async def Draw(self, request, context, call):
        """2-player Spades: keep or discard the offered card."""
        return await self._move(request, context, call, "Draw", convert.draw_action(request), pb.DrawResponse)

    @_rpc
    async def RevealHand(self, request, context, call):
        """Look at one's cards (gives up Double Nil)."""
        return await self._move(request, context, call, "RevealHand", engine.REVEAL, pb.RevealHandResponse)

    @_rpc
    async def Bid(self, request, context, call):
        """Spades bids and Buck Euchre trump / stay / drop calls."""
        return await self._move(request, context, call, "Bid", convert.bid_action(request), pb.BidResponse)

    @_rpc
    async def Exchange(self, request, context, call):
        """Double Nil exchange cards, or the Buck Euchre dealer's discard."""
        return await self._move(request, context, call, "Exchange", convert.exchange_action(request),
                                pb.ExchangeResponse)

    @_rpc
    async def Play(self, request, context, call):
        """Play one card."""
        action = engine.play(convert.card(request.card))
        return await self._move(request, context, call, "Play", action, pb.PlayResponse)

    @_rpc
    async def Act(self, request, context, call):
        """Any legal action, by the notation its LegalAction gives ("back" for a seat marked away)."""
        if request.action.strip().lower() == "back":
            call.game_id = checks.game_id(request.game_id)
            return await self.back(request, context, call)
        return await self._move(request, context, call, "Act", convert.act_action(request.action), pb.ActResponse)

    # ---- the lifecycle (service.lifecycle_rpcs) ----

    @_rpc
    async def ReissueSeatToken(self, request, context, call):
        """(API key) A human seat's new token; the old one is void."""
        return await self.reissue_seat_token(request, context, call)

    @_rpc
    async def ListGames(self, request, context, call):
        """(API key) The caller's games, newest first, filtered."""
        return await self.list_games(request, context, call)

    @_rpc
    async def LeaveGame(self, request, context, call):
        """(seat token) The caller's seat leaves the game."""
        return await self.leave_game(request, context, call)

    @_rpc
    async def DeleteGame(self, request, context, call):
        """(API key) Remove a game and everything about it."""
        return await self.delete_game(request, context, call)

    @_rpc
    async def GetHistory(self, request, context, call):
        """The game's log with chance outcomes, as far as the caller may know them."""
        return await self.get_history(request, context, call)

    @_rpc
    async def Rematch(self, request, context, call):
        """(API key) A new game with the same seats, labels and options."""
        return await self.rematch(request, context, call)

    async def WatchEvents(self, request, context):
        """(API key) Stream the events of the caller's games after ``after_id``."""
        call = _Call()
        async with _handled("WatchEvents", call, context):
            checks.check_decoded(request)
            caller = self.settings.api_keys.caller(context.invocation_metadata(), "WatchEvents")
            peer = context.peer()
            if self._watches[peer] >= self.settings.max_watches_per_connection:
                raise ResourceExhausted(f"at most {self.settings.max_watches_per_connection} streams "
                                        "per connection; close one first")
            self._watches[peer] += 1
            try:
                async for event in self.events(caller, request.after_id):
                    try:
                        await context.write(pb.WatchEventsResponse(event=event))
                    except Exception as exc:  # gRPC fails a write only once the call has ended
                        raise _PeerGone(type(exc).__name__) from exc
            finally:
                self._watches[peer] -= 1
                if not self._watches[peer]:
                    del self._watches[peer]

    # ---- watching ----

    async def WatchGame(self, request, context):
        """Stream the caller's view after every change, from ``from_version`` on."""
        call = _Call()
        async with _handled("WatchGame", call, context):
            checks.check_decoded(request)
            call.game_id = checks.game_id(request.game_id)
            if request.from_version < 0:
                raise InvalidArgument("from_version must not be negative")
            version, record = await self._load(call.game_id)
            call.seat = auth.seat_of(call.game_id, auth.bearer_token(context.invocation_metadata()),
                                     [s.token_hash for s in record.seats])
            if request.from_version > version:
                raise InvalidArgument(f"from_version {request.from_version} is ahead of the game (version {version})")
            peer = context.peer()
            if self._watches[peer] >= self.settings.max_watches_per_connection:
                raise ResourceExhausted(f"at most {self.settings.max_watches_per_connection} WatchGame streams "
                                        "per connection; close one first")
            self._watches[peer] += 1
            try:
                async for view in self._watch(record, version, call.seat, request.from_version):
                    message = pb.WatchGameResponse(view=view)
                    try:
                        await context.write(message)
                    except Exception as exc:  # gRPC fails a write only once the call has ended
                        raise _PeerGone(type(exc).__name__) from exc
                    if view.phase == enums.PHASE_GAME_OVER:
                        break
            finally:
                self._watches[peer] -= 1
                if not self._watches[peer]:
                    del self._watches[peer]

    async def _watch(self, record: GameRecord, version: int, seat: int | None, last: int):
        """The view after each change past version ``last`` (from 0: the view at ``version`` first).

        The stream keeps its own copy of the game and folds each new log entry into it, so every
        version is shown, however quickly they follow each other. Should the log stop fitting
        that copy (the game expired and its id was taken by a new one), the stream resyncs on
        the stored game.
        """
        game_id = record.game_id
        watch = self.store.watch(game_id)
        versions = _checked(watch, lambda: _outlasting(lambda: self._exists(game_id)), WATCH_CHECK_S)
        try:
            if last:
                state = await self._state_at(game_id, last)
            else:
                last, state = version, record.state
                yield self._view(record, seat, last, state)
            async for current in versions:
                if current <= last:
                    continue
                try:
                    entries = await _outlasting(functools.partial(self.store.log_after, game_id, last))
                    views = []
                    for v, raw in entries:
                        gamelog.apply(state, raw)
                        if gamelog.note_of(raw) is not None:  # seats changed: their presence, tokens
                            record = (await self._load(game_id))[1]
                        views.append(self._view(record, seat, v, state))
                except (ValueError, engine.IllegalAction):
                    last, record = await self._load(game_id)
                    state = record.state
                    views = [self._view(record, seat, last, state)]
                for view in views:
                    yield view
                    last = view.version
        finally:
            await versions.aclose()
            await watch.aclose()


async def _outlasting(read: Callable[[], Awaitable[T]], within_s: float = WATCH_OUTAGE_S) -> T:
    """``read()``, tried again while the store is unavailable (a failover, a restart) for up to
    ``within_s``; then StoreUnavailable, which ends the stream with UNAVAILABLE."""
    deadline = time.monotonic() + within_s
    pause = 0.05
    while True:
        try:
            return await read()
        except StoreUnavailable:
            if time.monotonic() + pause > deadline:
                raise
        await asyncio.sleep(pause)
        pause = min(pause * 2, 1.0)


async def _checked(watch: AsyncIterator[int], still_there: Callable[[], Awaitable[None]],
                   every_s: float) -> AsyncGenerator[int, None]:
    """The versions ``watch`` yields, calling ``still_there`` whenever none came for ``every_s``."""
    pending: asyncio.Future[int] | None = None
    try:
        while True:
            if pending is None:
                pending = asyncio.ensure_future(anext(watch))
            done, _ = await asyncio.wait({pending}, timeout=every_s)
            if not done:
                await still_there()
                continue
            try:
                version = pending.result()
            except StopAsyncIteration:
                return
            pending = None
            yield version
    finally:
        if pending is not None and not pending.done():
            pending.cancel()
            with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                await pending


def _record(raw: bytes) -> GameRecord:
    """The stored record of a game; FAILED_PRECONDITION for one this release cannot read."""
    try:
        return GameRecord.from_bytes(raw)
    except UnsupportedRecord as exc:
        raise IllegalMove(str(exc), "UNSUPPORTED_GAME_FORMAT") from None
