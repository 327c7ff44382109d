"""Streams: the caps on open streams, and one feed per watched game per process.

A :class:`StreamGate` counts the open WatchGame and WatchEvents streams of the process, of each
connection, of each client address and (WatchGame) of each game, and refuses a stream past any
cap with RESOURCE_EXHAUSTED; the process cap is kept well below the server's RPC cap, so health
checks and moves are answered whatever the streams do. When the server shuts down the gate ends
every open stream at once, and refuses new ones, with UNAVAILABLE ``SHUTTING_DOWN`` (clients
reconnect, to another instance, and resume where they were).

The gate also keeps two quotas of each API key, for its WatchEvents streams, in this process
(with N processes a key may hold N times as much): the streams it holds open at once (past the
cap, RESOURCE_EXHAUSTED ``STREAM_QUOTA``) and the bytes of events they are sent per minute
(:class:`KeyBytes`; past it the stream ends RESOURCE_EXHAUSTED ``EVENT_BYTES_QUOTA`` with a
RetryInfo until the minute is over, and the client resumes from its last event id). Both come
with a google.rpc.QuotaFailure naming the limit, subject the key id.

A :class:`GameFeed` follows one game for every WatchGame stream of this process that is up to
date with it: it hears each new version once, reads the log once, folds it into its own copy of
the game, and encodes each version's view once per audience (a seat, or the spectators); every
stream of that audience is handed the same bytes. Whenever the game's seats change (a token
reissued, a seat left) the feed re-checks each stream's credential and ends the streams whose
token no longer holds. A stream that falls behind its feed by more than a bounded queue is
dropped from it and catches up from the log on its own, so every version is still shown.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hmac
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass

import engine
from cardgame.v1 import game_service_pb2 as pb
from engine import Phase
from service.errors import NotFound, QuotaExceeded, ResourceExhausted, ServiceError, Unauthenticated, Unavailable
from service.store.outages import outlasting
from service.store.port import Store, StoreUnavailable
from service.table import gamelog
from service.table.record import GameRecord

log = logging.getLogger("cardgame.requests")

WATCH_CHECK_S = 30.0   # an idle feed checks this often that its game still exists: a backstop. A deletion
                       # is told at once (version 0), and the Redis store's watch tells a game that
                       # expired (no message says so) the same way within 2 s (its ``Presence``), so
                       # the streams end NOT_FOUND promptly either way
QUEUE_FRAMES = 256     # versions a stream may fall behind its feed before it catches up on its own
SHUTTING_DOWN = "server shutting down; reconnect"
BYTES_WINDOW_S = 60.0  # the window of the bytes quota of each key's WatchEvents streams


@dataclass(frozen=True)
class StreamLimits:
    """Caps on open streams (WatchGame and WatchEvents together, WatchGame alone per game,
    WatchEvents alone per API key) and on the bytes of events a key's streams are sent a minute
    (0: no cap, for the last two)."""

    per_process: int = 1000
    per_connection: int = 100
    per_address: int = 200
    per_game: int = 500
    per_key: int = 20
    key_bytes_per_minute: int = 50_000_000


def client_address(peer: str) -> str:
    """The client address of a peer string, without its port ("ipv4:127.0.0.1:5000" → "ipv4:127.0.0.1").

    >>> client_address("ipv6:[::1]:5000"), client_address("http:127.0.0.1:80"), client_address("unix:")
    ('ipv6:[::1]', 'http:127.0.0.1', 'unix:')
    """
    head, sep, port = peer.rpartition(":")
    return head if sep and port.isdigit() and ":" in head else peer


class KeyBytes:
    """The bytes each API key's streams were sent in its current window of ``window_s`` (a fixed
    window per key, starting with the first message after the last one ended): O(1) a message, in
    memory; the entries of windows that are over are dropped at most once a window, so the table
    holds only the keys sent something lately."""

    def __init__(self, limit: int, window_s: float = BYTES_WINDOW_S,
                 clock: Callable[[], float] = time.monotonic):
        self.limit = limit   # 0: no cap
        self.window_s = window_s
        self.clock = clock
        self._windows: dict[str, tuple[float, int]] = {}   # key id → (window start, bytes sent in it)
        self._sweep_at = 0.0

    def __len__(self) -> int:
        return len(self._windows)

    def check(self, key: str) -> None:
        """QuotaExceeded (with the wait until the key's window is over) once the key was sent its
        limit in this window."""
        if not self.limit or key not in self._windows:
            return
        now = self.clock()
        start, sent = self._windows[key]
        if now - start < self.window_s and sent >= self.limit:
            wait = max(0.001, start + self.window_s - now)
            raise QuotaExceeded(f"this API key's event streams were sent their {self.limit} bytes for this minute "
                                f"on this server; reconnect in {wait:.1f} s, resuming from the last event id",
                                "EVENT_BYTES_QUOTA", key,
                                f"at most {self.limit} bytes of WatchEvents a minute per API key and server process",
                                retry_delay_s=wait)

    def charge(self, key: str, size: int) -> None:
        """Count a message of ``size`` bytes about to be sent to one of the key's streams;
        QuotaExceeded instead (nothing counted) once the key was sent its limit in this window: the
        message that crosses the limit still goes, so a message larger than it is sent too."""
        if not self.limit:
            return
        self.check(key)
        now = self.clock()
        if now >= self._sweep_at:
            self._sweep(now)
        start, sent = self._windows.get(key, (now, 0))
        if now - start >= self.window_s:
            start, sent = now, 0
        self._windows[key] = (start, sent + size)

    def _sweep(self, now: float) -> None:
        self._sweep_at = now + self.window_s
        for key in [key for key, (start, _) in self._windows.items() if now - start >= self.window_s]:
            del self._windows[key]


class StreamGate:
    """Open streams counted by process, connection, client address, game and API key, within
    caps, and the bytes of events each API key's streams are sent a minute."""

    def __init__(self, limits: StreamLimits):
        self.limits = limits
        self.event_bytes = KeyBytes(limits.key_bytes_per_minute)
        self.open = 0
        self.closed = False
        self._counts: collections.Counter[tuple[str, str]] = collections.Counter()
        self._tasks: set[asyncio.Task] = set()     # the tasks of the open streams
        self._ended: set[asyncio.Task] = set()     # those close() cancelled

    def close(self) -> int:
        """End every open stream now with UNAVAILABLE (the tasks running them are cancelled, and
        :meth:`admit` turns that cancellation into the status) and refuse new ones from now on;
        returns how many streams were ended."""
        self.closed = True
        for task in self._tasks - self._ended:
            self._ended.add(task)
            task.cancel(SHUTTING_DOWN)
        return len(self._ended)

    def charge(self, key: str, size: int) -> None:
        """Count ``size`` bytes about to be sent to a WatchEvents stream of API key ``key``;
        QuotaExceeded ``EVENT_BYTES_QUOTA`` (with a retry delay) past the key's bytes a minute.
        No quota for "" (an open server's callers, without keys)."""
        if key:
            self.event_bytes.charge(key, size)

    @contextlib.contextmanager
    def admit(self, peer: str, game_id: str | None = None, key: str | None = None) -> Iterator[None]:
        """Hold one stream's place while the block runs; ResourceExhausted past a cap (QuotaExceeded
        past one of the quotas of API key ``key``, a WatchEvents stream's), Unavailable once the
        server is shutting down (:meth:`close`), the block's stream ended then included."""
        if self.closed:
            raise Unavailable(SHUTTING_DOWN, "SHUTTING_DOWN")
        limits = self.limits
        caps = {"connection": limits.per_connection, "address": limits.per_address, "game": limits.per_game}
        if self.open >= limits.per_process:
            raise ResourceExhausted(f"this server holds at most {limits.per_process} open streams; retry later",
                                    "STREAM_LIMIT", 1.0)
        slots = [("connection", peer), ("address", client_address(peer))] + ([("game", game_id)] if game_id else [])
        for slot in slots:
            if self._counts[slot] >= caps[slot[0]]:
                raise ResourceExhausted(f"at most {caps[slot[0]]} open streams per {slot[0]}; close one first",
                                        "STREAM_LIMIT", 1.0)
        if key:
            self._check_key(key)
            if limits.per_key:
                slots.append(("key", key))
        self.open += 1
        for slot in slots:
            self._counts[slot] += 1
        try:
            task = asyncio.current_task()
        except RuntimeError:   # no event loop: nothing close() could cancel
            task = None
        if task is not None:
            self._tasks.add(task)
        try:
            yield
        except asyncio.CancelledError:
            if task is None or task not in self._ended:
                raise
            task.uncancel()   # ended by close(): the stream's status says why, and to reconnect
            raise Unavailable(SHUTTING_DOWN, "SHUTTING_DOWN") from None
        finally:
            if task is not None:
                self._tasks.discard(task)
                self._ended.discard(task)
            self.open -= 1
            for slot in slots:
                self._counts[slot] -= 1
                if not self._counts[slot]:
                    del self._counts[slot]

    def _check_key(self, key: str) -> None:
        """QuotaExceeded when API key ``key`` holds its cap of streams, or was sent its bytes."""
        cap = self.limits.per_key
        if cap and self._counts[("key", key)] >= cap:
            raise QuotaExceeded(f"this API key holds its {cap} open WatchEvents streams on this server; "
                                "close one first", "STREAM_QUOTA", key,
                                f"at most {cap} open WatchEvents streams per API key and server process")
        self.event_bytes.check(key)


@dataclass(frozen=True, slots=True)
class Frame:
    """One version of a game as a stream sends it: the encoded WatchGameResponse."""

    version: int
    data: bytes
    over: bool   # the game ended at this version: the stream ends after it


class Lagged(Exception):
    """The stream fell too far behind its feed: it catches up from the log."""


class Watcher:
    """One stream's place in a feed: who it is (``audience``: a seat, or None for a spectator),
    the hash of the seat token it opened with, and the frames waiting for it."""

    __slots__ = ("audience", "token_hash", "_queue", "_ready", "_end")

    def __init__(self, audience: int | None, token_hash: str | None):
        self.audience = audience
        self.token_hash = token_hash
        self._queue: collections.deque[Frame] = collections.deque()
        self._ready = asyncio.Event()
        self._end: Exception | None = None

    def still_holds(self, record: GameRecord) -> bool:
        """Whether the seat token the stream opened with is still its seat's token."""
        if self.audience is None or self.token_hash is None:
            return True
        stored = record.seats[self.audience].token_hash
        return bool(stored) and hmac.compare_digest(stored, self.token_hash)

    def offer(self, frame: Frame) -> bool:
        """Queue a frame; False (and nothing queued) when the stream is too far behind."""
        if len(self._queue) >= QUEUE_FRAMES:
            return False
        self._queue.append(frame)
        self._ready.set()
        return True

    def end(self, exc: Exception) -> None:
        """End the stream with ``exc`` once the frames queued before are sent."""
        self._end = exc
        self._ready.set()

    async def next(self) -> Frame:
        """The next frame; raises what ended the stream once its frames are out."""
        while not self._queue:
            if self._end is not None:
                raise self._end
            self._ready.clear()
            await self._ready.wait()
        return self._queue.popleft()


ViewBytes = Callable[[GameRecord, "int | None", int, engine.TableState], bytes]


class GameFeed:
    """Follows one game for the up-to-date streams watching it in this process."""

    def __init__(self, game_id: str, store: Store, encode: ViewBytes, on_close: Callable[[GameFeed], None]):
        self.game_id = game_id
        self.store = store
        self.encode = encode
        self.version = 0
        self.watchers: set[Watcher] = set()
        self.closed = False
        self._record: GameRecord | None = None
        self._on_close = on_close
        self._task: asyncio.Task | None = None
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"feed-{self.game_id}")

    def join(self, watcher: Watcher) -> None:
        """Hand the stream every version after the feed's; a closed feed sends it back to the log."""
        if self.closed:
            watcher.end(Lagged())
        else:
            self.watchers.add(watcher)

    def leave(self, watcher: Watcher) -> None:
        self.watchers.discard(watcher)
        if not self.watchers and self._task is not None and self.ready.done():
            self._task.cancel()

    async def _load(self) -> GameRecord:
        loaded = await outlasting(lambda: self.store.load(self.game_id))
        if loaded is None:
            raise NotFound(f"game {self.game_id!r} no longer exists")
        self.version = loaded.version
        return GameRecord.from_bytes(loaded.state)

    async def _exists(self) -> None:
        if await self.store.version(self.game_id) == 0:
            raise NotFound(f"game {self.game_id!r} no longer exists")

    async def _run(self) -> None:
        watch = self.store.watch(self.game_id)
        versions = checked(watch, lambda: outlasting(self._exists), WATCH_CHECK_S)
        try:
            try:
                self._record = await self._load()
            except BaseException as exc:
                if not self.ready.done():
                    self.ready.set_exception(exc if isinstance(exc, Exception) else asyncio.CancelledError())
                raise
            self.ready.set_result(None)
            async for current in versions:
                if current == 0:   # the store tells a deleted game's watchers version 0
                    raise NotFound(f"game {self.game_id!r} no longer exists")
                if current > self.version:
                    await self._advance()
        except (ServiceError, StoreUnavailable) as exc:
            self._end_all(exc)
        except asyncio.CancelledError:
            self._end_all(Lagged())   # closed under its streams: they go on from the log
            raise
        except Exception:
            log.exception("the feed of game %s failed", self.game_id)
            self._end_all(ServiceError("internal error"))
        finally:
            self._on_close(self)
            await versions.aclose()
            await watch.aclose()

    async def _advance(self) -> None:
        """Fold the log entries after the feed's version and hand each version to its streams."""
        record = self._record
        assert record is not None
        try:
            entries = await outlasting(lambda: self.store.log_after(self.game_id, self.version))
            for version, raw in entries:
                gamelog.apply(record.state, raw)
                if gamelog.note_of(raw) is not None:  # seats changed: presence, tokens
                    state = record.state
                    record = await self._load()
                    record.state = state
                    self._record = record
                    self._check_credentials(record)
                self._publish(record, version)
        except (ValueError, engine.IllegalAction):   # the log no longer fits: resync on the stored game
            self._record = record = await self._load()
            self._publish(record, self.version)

    def _check_credentials(self, record: GameRecord) -> None:
        for watcher in list(self.watchers):
            if not watcher.still_holds(record):
                self.watchers.discard(watcher)
                watcher.end(Unauthenticated("this seat token is void now (the seat was given a new token, or "
                                            "its player left the game)"))

    def _publish(self, record: GameRecord, version: int) -> None:
        self.version = version
        over = record.state.phase == Phase.GAME_OVER
        encoded: dict[int | None, bytes] = {}
        for watcher in list(self.watchers):
            data = encoded.get(watcher.audience)
            if data is None:
                data = encoded[watcher.audience] = self.encode(record, watcher.audience, version, record.state)
            if not watcher.offer(Frame(version, data, over)):
                self.watchers.discard(watcher)
                watcher.end(Lagged())

    def _end_all(self, exc: Exception) -> None:
        self.closed = True
        for watcher in list(self.watchers):
            watcher.end(exc)
        self.watchers.clear()


class Feeds:
    """The game feeds of this process, by game id, each started by its first stream."""

    def __init__(self, store: Store, encode: ViewBytes):
        self.store = store
        self.encode = encode
        self._feeds: dict[str, GameFeed] = {}

    def __len__(self) -> int:
        return len(self._feeds)

    async def of(self, game_id: str) -> GameFeed:
        """The game's feed, started if none runs; ready to join."""
        feed = self._feeds.get(game_id)
        if feed is None:
            feed = self._feeds[game_id] = GameFeed(game_id, self.store, self.encode, self._closed)
            feed.start()
        await asyncio.shield(feed.ready)
        return feed

    def _closed(self, feed: GameFeed) -> None:
        if self._feeds.get(feed.game_id) is feed:
            del self._feeds[feed.game_id]


def encoded_view(view) -> bytes:
    """A view as the WatchGameResponse bytes a stream sends."""
    return pb.WatchGameResponse(view=view).SerializeToString()


async def checked(watch: AsyncIterator[int], still_there: Callable[[], Awaitable[None]],
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
