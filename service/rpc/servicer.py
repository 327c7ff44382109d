"""GameService: each request loads the game, applies the engine, and compare-and-sets it back.

Nothing about a game lives in this process between requests, so any number of instances can
serve the same game. A move is committed together with the events it caused (bot turns
included) and its idempotency record, atomically, only if the version is still the one read.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import hmac
import logging
import random
import secrets
import time
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from functools import wraps
from typing import TypeVar

import grpc

import bots
import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from service.errors import (
    Aborted,
    FailedPrecondition,
    InvalidArgument,
    PermissionDenied,
    ResourceExhausted,
    ServiceError,
    Unavailable,
    to_status,
)
from service.rpc import apikeys, checks, convert, lifecycle_messages, watching
from service.rpc.apikeys import ApiKeys
from service.rpc.lifecycle_rpcs import LifecycleRpcs
from service.store.event_feed import EventFeed
from service.store.port import GameExists, Store, StoreUnavailable
from service.table import gamelog, lifecycle, retries, table, tokens
from service.table.record import LEFT, GameRecord, Lifecycle, Seat
from service.table.table import now_ms
from service.telemetry import metrics, tracing

log = logging.getLogger("cardgame.requests")
T = TypeVar("T")

MAX_DECKS = 200
MAX_LOGGED_ID = 256  # characters of a request id that a log line shows
DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 500


@dataclass
class Settings:
    """Server options that change what requests may do."""

    allow_prearranged_decks: bool = False
    allow_seeded_shuffle: bool = False
    stream_limits: watching.StreamLimits = field(default_factory=watching.StreamLimits)
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
        if call.seat is None:
            call.seat = exc.seat
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
        self.table = table.Table(store, self.settings.events_max_len)
        self.event_feed = EventFeed(store)   # WatchEvents streams wait on it, not on Redis each
        self.streams = watching.StreamGate(self.settings.stream_limits)
        self.feeds = watching.Feeds(store, self._encoded_view)   # WatchGame streams share them

    # ---- reading ----

    async def _load(self, game_id: str) -> tuple[int, GameRecord]:
        return await self.table.load(game_id)

    def _view(self, record: GameRecord, seat: int | None, version: int, state: engine.TableState | None = None):
        state = state or record.state
        message = convert.view_message(engine.view(state, seat), record.game_id, version,
                                       [s.name for s in record.seats], [s.kind for s in record.seats])
        return lifecycle_messages.decorate(message, record, seat)

    def _viewer(self, record: GameRecord, context) -> int | None:
        """The caller's seat in the game, or None for a spectator its spectator policy admits
        (Unauthenticated / PermissionDenied otherwise; see ``tokens.viewer``)."""
        metadata = context.invocation_metadata()
        token = checks.bearer_token(metadata)
        return tokens.viewer(record.game_id, token, [s.token_hash for s in record.seats], record.spectators,
                           record.spectator_hash, token is None and self._owner_calls(record, metadata))

    def _owner_calls(self, record: GameRecord, metadata) -> bool:
        """Whether the call carries the API key that created the game (servers with API keys only;
        an invalid key is Unauthenticated)."""
        keys = self.settings.api_keys
        if not keys.required or not any(name == apikeys.HEADER for name, _ in metadata or ()):
            return False
        return keys.caller(metadata, "watching a game") == record.owner

    @_rpc
    async def GetGame(self, request, context, call):
        """The caller's view of a game."""
        call.game_id = checks.game_id(request.game_id)
        version, record = await self._load(call.game_id)
        call.seat = self._viewer(record, context)
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
        call.seat = self._viewer(record, context)
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
        life = lifecycle_messages.lifecycle_of(request.lifecycle)
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
        if request.spectators not in pb.SpectatorPolicy.values():
            raise InvalidArgument("spectators is not a known SpectatorPolicy")
        spectators = request.spectators or pb.SPECTATOR_POLICY_ANYONE
        return await self._create(caller, variant, seats, options, first, decks, seed, request_id, request,
                                  "CreateGame", labels, life, spectators, call)

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
                      labels: dict[str, str], life: Lifecycle, spectators: int, call=None) -> pb.CreateGameResponse:
        """Create a game for ``caller`` (CreateGame, Rematch): tokens, index, first bot turns,
        all exactly once for a request id."""
        game_id = _game_id(self.settings.token_secret, method, caller, request_id)
        if call is not None:
            call.game_id = game_id
        if request_id:  # the first call may have made its id under a secret since rotated away
            for secret in self.settings.token_secrets:
                earlier = _game_id(secret, method, caller, request_id)
                replay = await self.store.get_retry(earlier, request_id)
                if replay is not None:
                    if call is not None:
                        call.game_id = earlier
                    return await self._replay_create(replay, request, earlier, method)
        if caller:
            wait_s = await self.store.take_token(f"create:{caller}", self.settings.create_rate,
                                                 self.settings.create_burst)
            if wait_s:
                raise ResourceExhausted(f"this API key may create {self.settings.create_rate:g} games a second; "
                                        f"retry in {wait_s:.3f} s", "RATE_LIMITED", wait_s)
        seat_tokens = {}
        for i, seat in enumerate(seats):
            if not seat.bot:
                seat_tokens[i] = (tokens.derived_token(self.settings.token_secret, game_id, i) if request_id
                                  else tokens.random_token())
                seat.token_hash = tokens.token_hash(game_id, seat_tokens[i])
        spectator_token = ""
        if spectators == pb.SPECTATOR_POLICY_TOKEN:
            spectator_token = tokens.spectator_token(self.settings.token_secret, game_id, bool(request_id))
        rng = random.Random(f"{seed}:0") if seed is not None else None
        state = engine.new_game(variant, options, rng, first, decks)
        created = now_ms()
        record = GameRecord(game_id, state, seats, seed, owner=caller, labels=labels, created_ms=created,
                            lifecycle=life, spectators=spectators,
                            spectator_hash=tokens.token_hash(game_id, spectator_token) if spectator_token else "")
        entries = [gamelog.genesis(state)] + await self.table.bot_entries(record, 1, "create-")
        version = len(entries)
        lifecycle.set_deadline(record, created)
        retry = retries.retry_record(checks.fingerprint(method, request), None, version, record) if request_id else None
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
        response = pb.CreateGameResponse(game_id=game_id, view=self._view(record, None, version),
                                         spectator_token=spectator_token)
        response.seat_tokens.extend(pb.SeatToken(seat=i, token=t) for i, t in seat_tokens.items())
        return response

    async def _replay_create(self, raw: bytes, request, game_id: str, method: str = "CreateGame"):
        """The first answer again: the game at the version it was created at, and the seat tokens
        derived anew from the token secret (checked against the seats' stored hashes)."""
        version = retries.check_retry(raw, checks.fingerprint(method, request), None)
        record = await self._recorded(game_id, raw, version)
        response = pb.CreateGameResponse(game_id=game_id, view=self._view(record, None, version))
        if record.spectator_hash:
            spectator = tokens.recovered_token(self.settings.token_secrets, game_id, tokens.SPECTATOR_SEAT,
                                             record.spectator_hash, tokens.SPECTATOR_PURPOSE)
            if spectator is None:
                raise FailedPrecondition("this game's spectator token was derived from a token secret this server "
                                         "no longer has (--token-secret-previous); it cannot be returned again",
                                         "TOKEN_SECRET_CHANGED")
            response.spectator_token = spectator
        for i, seat in enumerate(record.seats):
            if not seat.bot and seat.presence != LEFT:
                if seat.reissues:
                    raise FailedPrecondition(f"seat {i} was given a new token since the game was created "
                                             "(ReissueSeatToken)", "TOKEN_REISSUED")
                token = tokens.recovered_token(self.settings.token_secrets, game_id, i, seat.token_hash)
                if token is None:
                    raise FailedPrecondition("this game's seat tokens were derived from a token secret this "
                                             "server no longer has (--token-secret-previous); they cannot be "
                                             "returned again", "TOKEN_SECRET_CHANGED")
                response.seat_tokens.add(seat=i, token=token)
        return response

    async def _recorded(self, game_id: str, raw: bytes, version: int) -> GameRecord:
        return await self.table.recorded(game_id, raw, version)

    # ---- moves ----

    async def _move(self, request, context, call, method: str, action: int, response_cls):
        """Apply one action of the caller's seat (and the bot turns it hands over), exactly once."""
        call.game_id = game_id = checks.game_id(request.game_id)
        request_id = checks.request_id(request.request_id)
        expected = request.expected_version if request.HasField("expected_version") else None
        move = table.Move(checks.bearer_token(context.invocation_metadata()), action, expected)
        done = await self.table.transact(game_id, move, request_id, checks.fingerprint(method, request),
                                         method=method)
        assert done is not None
        call.seat = done.seat
        return response_cls(view=self._view(done.record, done.seat, done.version))

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
            call.game_id = game_id = checks.game_id(request.game_id)
            back = table.Back(checks.bearer_token(context.invocation_metadata()),
                              request.expected_version if request.HasField("expected_version") else None)
            done = await self.table.transact(game_id, back, checks.request_id(request.request_id),
                                             checks.fingerprint("Act", request), method="Act")
            assert done is not None
            call.seat = done.seat
            return pb.ActResponse(view=self._view(done.record, done.seat, done.version))
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
            checks.event_id(request.after_id)   # refused before the stream takes a place
            with self.streams.admit(context.peer()):
                async for event in self.events(caller, request.after_id):
                    await _send(context, pb.WatchEventsResponse(event=event))

    # ---- watching ----

    async def WatchGame(self, request, context):
        """Stream the caller's view after every change, from ``from_version`` on; the stream ends
        with the game, or UNAUTHENTICATED once its seat token is void."""
        call = _Call()
        async with _handled("WatchGame", call, context):
            checks.check_decoded(request)
            call.game_id = checks.game_id(request.game_id)
            if request.from_version < 0:
                raise InvalidArgument("from_version must not be negative")
            version, record = await self._load(call.game_id)
            call.seat = self._viewer(record, context)
            if request.from_version > version:
                raise InvalidArgument(f"from_version {request.from_version} is ahead of the game (version {version})")
            token = checks.bearer_token(context.invocation_metadata())
            watcher = watching.Watcher(call.seat, tokens.token_hash(call.game_id, token)
                                       if call.seat is not None and token else None)
            with self.streams.admit(context.peer(), call.game_id):
                async for frame in self._watch(record, version, watcher, request.from_version):
                    await _send(context, frame.data)
                    if frame.over:
                        break

    def _encoded_view(self, record: GameRecord, seat: int | None, version: int, state: engine.TableState) -> bytes:
        return watching.encoded_view(self._view(record, seat, version, state))

    async def _watch(self, record: GameRecord, version: int, watcher: watching.Watcher,
                     last: int) -> AsyncGenerator[watching.Frame, None]:
        """The frames after version ``last`` (from 0: the view at ``version`` first): caught up
        from the log by the stream itself, then shared with the game's other streams through its
        feed, and caught up again should the stream fall behind the feed."""
        game_id, seat = record.game_id, watcher.audience
        if last:
            state = await self.table.state_at(game_id, last)
        else:
            last, state = version, record.state
            yield watching.Frame(version, self._encoded_view(record, seat, version, state),
                                 state.phase == engine.Phase.GAME_OVER)
        while True:
            feed = await self.feeds.of(game_id)
            while last < feed.version:   # behind the feed: fold the log up to it
                entries = await watching.outlasting(
                    functools.partial(self.store.log_after, game_id, last, feed.version))
                try:
                    for v, raw in entries:
                        gamelog.apply(state, raw)
                        if gamelog.note_of(raw) is not None:  # seats changed: their presence, tokens
                            record = (await self._load(game_id))[1]
                            if not watcher.still_holds(record):
                                raise watching.Unauthenticated(
                                    "this seat token is void now (the seat was given a new token, or its "
                                    "player left the game)")
                        record.state = state
                        last = v
                        yield watching.Frame(v, self._encoded_view(record, seat, v, state),
                                             state.phase == engine.Phase.GAME_OVER)
                except (ValueError, engine.IllegalAction):   # the log no longer fits: resync on the stored game
                    last, record = await self._load(game_id)
                    state = record.state
                    yield watching.Frame(last, self._encoded_view(record, seat, last, state),
                                         state.phase == engine.Phase.GAME_OVER)
                if not entries:
                    break
            feed.join(watcher)
            try:
                while True:
                    frame = await watcher.next()
                    if frame.version > last:
                        last = frame.version
                        yield frame
            except watching.Lagged:
                state = await self.table.state_at(game_id, last)
                watcher = watching.Watcher(watcher.audience, watcher.token_hash)
                record = (await self._load(game_id))[1]
            finally:
                feed.leave(watcher)


async def _send(context, message) -> None:
    """Write one message of a stream; _PeerGone once the caller is gone."""
    try:
        await context.write(message)
    except Exception as exc:  # gRPC fails a write only once the call has ended
        raise _PeerGone(type(exc).__name__) from exc


def _game_id(secret: bytes, method: str, caller: str, request_id: str | None) -> str:
    """A new game's id: random, or for a request id (whose retry must find the game again) an
    HMAC of the method, the caller's key id and the request id under the token secret, so nobody
    without the secret can compute it. Another API key reusing a request id gets another game."""
    if not request_id:
        return secrets.token_hex(12)
    message = f"game-id\0{method.lower()}\0{caller}\0{request_id}".encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()[:24]
