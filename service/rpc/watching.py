"""Streams: one feed per watched game per process (the caps on open streams are
``service.rpc.stream_gate``'s).

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
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import engine
from cardgame.v1 import game_service_pb2 as pb
from engine import Phase
from service.errors import NotFound, ServiceError, Unauthenticated
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
        if await self.store.load(self.game_id) is None:
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
