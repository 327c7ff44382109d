"""Creating a game: the one transaction that makes a game rather than changing one.

A :class:`NewGame` is a checked request for a game (the RPC layer builds it, for CreateGame and
Rematch). :func:`create` gives it an id, seat tokens and its first bot turns, indexes and
schedules it, and stores it, exactly once for a request id: a retry, even one made under a token
secret since rotated to ``previous``, gets back the first game and the same tokens.

Each API key may create ``CreateLimits.rate`` games a second and hold ``CreateLimits.max_games``
at once (:func:`check_quota`): the games in its index, counted by one ZCARD. Expired games stay in
the index until a sweep removes them, so at the cap the key's whole index is swept first (at most
once per ``QUOTA_SWEEP_EVERY_S`` per key) and only the games still there count.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field

import engine
from service.errors import Aborted, FailedPrecondition, InvalidArgument, QuotaExceeded, ResourceExhausted
from service.store import GameExists, Store
from service.store.port import MAX_BATCH
from service.table import gamelog, lifecycle, retries, tokens
from service.table.record import LEFT, SPECTATORS_TOKEN, GameRecord, Lifecycle, Seat
from service.table.table import SWEEP_LEASE_MS, Table, now_ms


@dataclass(frozen=True)
class NewGame:
    """A game to create, every part already checked: the owner (the caller's API key id, "" on an
    open server), the engine's new game (its options, first dealer and prearranged decks in it),
    the seats (no tokens yet), the shuffle seed, labels, lifecycle options and spectator policy."""

    owner: str
    state: engine.TableState
    seats: list[Seat]
    seed: int | None = None
    labels: dict[str, str] = field(default_factory=dict)
    lifecycle: Lifecycle = field(default_factory=Lifecycle)
    spectators: int = SPECTATORS_TOKEN


@dataclass
class Created:
    """A created game (or, for a retry, the first one as it stood then) and its tokens."""

    record: GameRecord
    version: int
    seat_tokens: dict[int, str]
    spectator_token: str = ""


DEFAULT_MAX_GAMES = 10_000   # games an API key may hold at once (--max-games-per-key)
QUOTA_SWEEP_EVERY_S = 10.0   # an API key at its game cap has its index swept at most this often


@dataclass(frozen=True)
class CreateLimits:
    """What game creation needs beyond the store: the token secrets (the current one first),
    each API key's creation rate (games a second) and burst, and the games it may hold at once."""

    token_secrets: tuple[bytes, ...]
    rate: float = 5.0
    burst: int = 100
    max_games: int = DEFAULT_MAX_GAMES   # games an API key holds at once; 0 = no cap


def game_id_of(secret: bytes, method: str, owner: str, request_id: str | None) -> str:
    """A new game's id: random, or for a request id (whose retry must find the game again) an
    HMAC of the method, the owner's key id and the request id under the token secret, so nobody
    without the secret can compute it. Another API key reusing a request id gets another game."""
    if not request_id:
        return secrets.token_hex(12)
    message = f"game-id\0{method.lower()}\0{owner}\0{request_id}".encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()[:24]


async def create(table: Table, new: NewGame, limits: CreateLimits, request_id: str | None, fingerprint: str,
                 method: str) -> Created:
    """Create ``new`` exactly once for ``request_id`` (see the module docstring); ``method`` names
    the entry point (CreateGame, Rematch) in the game id, ``fingerprint`` the request."""
    store, secret = table.store, limits.token_secrets[0]
    game_id = game_id_of(secret, method, new.owner, request_id)
    if request_id:  # the first call may have made its id under a secret since rotated away
        for earlier_secret in limits.token_secrets:
            earlier = game_id_of(earlier_secret, method, new.owner, request_id)
            replay = await store.get_retry(earlier, request_id)
            if replay is not None:
                return await _replayed(table, limits, earlier, replay, fingerprint)
    if new.owner:
        wait_s = await store.take_token(f"create:{new.owner}", limits.rate, limits.burst)
        if wait_s:
            raise ResourceExhausted(f"this API key may create {limits.rate:g} games a second; "
                                    f"retry in {wait_s:.3f} s", "RATE_LIMITED", wait_s)
        await check_quota(store, new.owner, limits.max_games)
    seats = [Seat(s.name, s.kind, s.bot, "", s.external_id, s.fallback) for s in new.seats]
    seat_tokens = {}
    for i, seat in enumerate(seats):
        if not seat.bot:
            seat_tokens[i] = tokens.derived_token(secret, game_id, i) if request_id else tokens.random_token()
            seat.token_hash = tokens.token_hash(game_id, seat_tokens[i])
    spectator_token = ""
    if new.spectators == SPECTATORS_TOKEN:
        spectator_token = tokens.spectator_token(secret, game_id, bool(request_id))
    state = new.state
    created = now_ms()
    record = GameRecord(game_id, state, seats, new.seed, owner=new.owner, labels=new.labels, created_ms=created,
                        lifecycle=new.lifecycle, spectators=new.spectators,
                        spectator_hash=tokens.token_hash(game_id, spectator_token) if spectator_token else "")
    genesis = gamelog.genesis(state)   # before the bots' first moves change the state
    played, bots_left = await table.bot_entries(record, 1, "create-")
    entries = [genesis, *played]
    version = len(entries)
    lifecycle.set_deadline(record, created, bots_left)
    retry = retries.retry_record(fingerprint, None, version, record) if request_id else None
    owner, terms = lifecycle.owner_of(new.owner), lifecycle.terms(record)
    # The index and the schedule are written first: hints that never miss a game that exists.
    await store.index_game(owner, game_id, created, terms)
    if record.deadline_ms:
        await store.schedule(game_id, record.deadline_ms)
    try:
        await store.create(game_id, record.to_bytes(), entries, request_id, retry)
    except GameExists:
        replay = await store.get_retry(game_id, request_id) if request_id else None
        if replay is not None:
            return await _replayed(table, limits, game_id, replay, fingerprint)
        if request_id:
            raise InvalidArgument("request_id was already used to create a game") from None
        raise Aborted("a new game id collided with an existing game; retry") from None
    # Indexed again once it exists: an index sweep between the two writes cannot drop it.
    await store.index_game(owner, game_id, created, terms)
    if record.deadline_ms and record.deadline_ms <= now_ms() + SWEEP_LEASE_MS:
        # A sweeper may have claimed the game before it existed, found nothing and unscheduled it:
        # its first deadline is set again (moves that keep it or push it later write no schedule).
        await store.schedule(game_id, record.deadline_ms)
    return Created(record, version, seat_tokens, spectator_token)


async def check_quota(store: Store, key_id: str, max_games: int) -> None:
    """Refuse (RESOURCE_EXHAUSTED, reason GAME_QUOTA, a QuotaFailure for the key) a new game of an
    API key that holds ``max_games`` games already (0: no cap). The count is the key's index; at the
    cap the index is swept of games that expired (a full pass, at most once per
    ``QUOTA_SWEEP_EVERY_S``) and counted again. Concurrent creations may each pass at the cap less
    one: the cap is exact for one caller at a time and loose by the calls in flight."""
    if not max_games:
        return
    owner = lifecycle.owner_of(key_id)
    held = await store.count_index(owner)
    if held >= max_games and not await store.take_token(f"quota-sweep:{key_id}", 1 / QUOTA_SWEEP_EVERY_S, 1):
        cursor, rounds = "", 0
        while True:   # a full pass of the index; bounded in case the set keeps changing under it
            cursor = await store.sweep_index(owner, cursor, MAX_BATCH)
            rounds += 1
            if not cursor or rounds > held // MAX_BATCH + 10:
                break
        held = await store.count_index(owner)
    if held >= max_games:
        raise QuotaExceeded(f"this API key holds {held} games, its limit of {max_games}; delete finished "
                            "games (DeleteGame) or wait for idle ones to expire", "GAME_QUOTA", key_id,
                            f"at most {max_games} games held at once per API key")


async def _replayed(table: Table, limits: CreateLimits, game_id: str, raw: bytes, fingerprint: str) -> Created:
    """The first creation again: the game at the version it was created at, and the tokens
    derived anew from the token secrets (checked against the seats' stored hashes)."""
    version = retries.check_retry(raw, fingerprint, None)
    record = await table.recorded(game_id, raw, version)
    spectator_token = ""
    if record.spectator_hash:
        found = tokens.recovered_token(limits.token_secrets, game_id, tokens.SPECTATOR_SEAT, record.spectator_hash,
                                       tokens.SPECTATOR_PURPOSE)
        if found is None:
            raise FailedPrecondition("this game's spectator token was derived from a token secret this server "
                                     "no longer has (--token-secret-previous); it cannot be returned again",
                                     "TOKEN_SECRET_CHANGED")
        spectator_token = found
    seat_tokens = {}
    for i, seat in enumerate(record.seats):
        if not seat.bot and seat.presence != LEFT:
            if seat.reissues:
                raise FailedPrecondition(f"seat {i} was given a new token since the game was created "
                                         "(ReissueSeatToken)", "TOKEN_REISSUED")
            token = tokens.recovered_token(limits.token_secrets, game_id, i, seat.token_hash)
            if token is None:
                raise FailedPrecondition("this game's seat tokens were derived from a token secret this "
                                         "server no longer has (--token-secret-previous); they cannot be "
                                         "returned again", "TOKEN_SECRET_CHANGED")
            seat_tokens[i] = token
    return Created(record, version, seat_tokens, spectator_token)
