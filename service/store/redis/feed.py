"""The change feed of a RedisStore: pub/sub connections that fan new versions out to watchers.

On one Redis, or when the store is given its clients, a :class:`PubSubHub` reads every game's
channel over one connection. On a Redis Cluster the store publishes with SPUBLISH, which keeps a
notification on the shard of the game it is about, and a :class:`ShardedFeed` keeps one hub per
master node, each subscribed with SSUBSCRIBE to the channels of that node's games. When a node
dies or gives a slot away, its hub hands its subscriptions back, the feed asks the cluster for
the new owners of their slots, and their new hubs subscribe again and re-read each game's
version, so a watcher misses nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any, Protocol

from redis.asyncio.client import PubSub
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, SlotNotCoveredError

from service.store.port import StoreUnavailable
from service.store.redis.connection import unavailable_on_error

log = logging.getLogger("service.store.redis.store")


class Listener(Protocol):
    """What a hub hands a channel's messages to: a game's watcher (``service.store.port.Watcher``)
    or a sweeper's shard wake-up."""

    def notify(self, version: int) -> None: ...

    def end(self) -> None: ...


@dataclass
class _Subscription:
    """One subscribed channel: its game, its watchers, and a future set once subscribed."""

    game_id: str
    ready: asyncio.Future[None]
    watchers: set[Listener] = field(default_factory=set)


def _consume_exception(future: asyncio.Future[None]) -> None:
    """Mark a future's exception as retrieved so asyncio does not log it."""
    if not future.cancelled():
        future.exception()


class PubSubHub:
    """One pub/sub connection per store that fans change messages out to every watcher.

    A single background task owns the connection: it (un)subscribes to match the watched
    channels, reads messages, and on any failure reconnects with backoff, resubscribes, and
    re-reads the version of each game whose subscription was re-established. A silent
    connection is detected by PINGing after ``liveness_s`` without traffic.
    """

    def __init__(self, store: Any, watch_timeout_s: float, liveness_s: float, sharded: bool = False) -> None:
        """Create an idle hub over ``store`` (it gives ``pubsub(after_failure)`` and
        ``read_version(game_id)``); ``sharded`` subscribes with SSUBSCRIBE. The task starts with the
        first watcher."""
        self._store = store
        self._sharded = sharded
        self._watch_timeout_s = watch_timeout_s
        self._liveness_s = liveness_s
        self._subs: dict[bytes, _Subscription] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._pubsub: PubSub | None = None
        self._closed = False
        self._backoff_s = 0.05
        self._failed = False  # the last connection failed: the next one may go to another node

    async def add(self, channel: bytes, game_id: str, watcher: Listener) -> None:
        """Register a watcher and return once its channel is subscribed (else StoreUnavailable).
        A channel of no game (``game_id`` "": a schedule shard's wake-ups, a sweeper's presence)
        has its listeners notified with 0 after a reconnection instead of a re-read version."""
        if self._closed:
            raise StoreUnavailable("redis store is closed")
        sub = self._subs.get(channel)
        if sub is None or (sub.ready.done() and not sub.ready.cancelled()
                           and sub.ready.exception() is not None):
            ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            ready.add_done_callback(_consume_exception)
            sub = self._subs[channel] = _Subscription(game_id, ready, sub.watchers if sub else set())
        sub.watchers.add(watcher)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name="redis-watch-hub")
        self._wake.set()
        try:
            await asyncio.wait_for(asyncio.shield(sub.ready), self._watch_timeout_s)
        except BaseException as exc:
            self.remove(channel, watcher)
            if isinstance(exc, TimeoutError):
                raise StoreUnavailable("redis watch: subscription not confirmed in time") from exc
            task = asyncio.current_task()
            if sub.ready.cancelled() and task is not None and not task.cancelling():
                raise StoreUnavailable("redis store closed while subscribing") from exc
            raise

    def remove(self, channel: bytes, watcher: Listener) -> None:
        """Unregister a watcher; the channel is unsubscribed when its last watcher leaves."""
        sub = self._subs.get(channel)
        if sub is None:
            return
        sub.watchers.discard(watcher)
        if not sub.watchers:
            del self._subs[channel]
            sub.ready.cancel()
            self._wake.set()

    async def close(self) -> None:
        """End every watcher, stop the task and drop the connection."""
        self._closed = True
        for sub in self._subs.values():
            sub.ready.cancel()
            for watcher in sub.watchers:
                watcher.end()
        self._subs.clear()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self._drop()

    async def _run(self) -> None:
        """Serve subscriptions while any exist, reconnecting after failures, until closed."""
        while not self._closed:
            if not self._subs:
                await self._drop()
                self._wake.clear()
                if not self._subs:
                    await self._wake.wait()
                continue
            try:
                await self._serve()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # any failure: drop the connection and start over
                log.warning("redis watch connection lost (%s: %s); reconnecting",
                            type(exc).__name__, exc)
                self._fail_pending(exc)
                self._failed = True
                await self._drop()
                await asyncio.sleep(self._backoff_s)
                self._backoff_s = min(self._backoff_s * 2, 1.0)

    async def _serve(self) -> None:
        """Run one connection: keep subscriptions in sync, dispatch messages, check liveness."""
        loop = asyncio.get_running_loop()
        pubsub = self._pubsub = await self._store.pubsub(self._failed)
        subscribed: dict[bytes, _Subscription] = {}
        reader: asyncio.Future[Any] | None = None
        waker: asyncio.Future[Any] | None = None
        last_heard, pinged_at = loop.time(), None
        try:
            while self._subs and not self._closed:
                self._wake.clear()
                await self._sync_subscriptions(pubsub, subscribed)
                if reader is None:
                    reader = asyncio.ensure_future(pubsub.get_message(timeout=self._liveness_s))
                waker = asyncio.ensure_future(self._wake.wait())
                done, _ = await asyncio.wait({reader, waker}, return_when=asyncio.FIRST_COMPLETED)
                waker.cancel()
                if reader not in done:
                    continue
                message, reader = reader.result(), None
                now = loop.time()
                if message is not None:
                    last_heard, pinged_at = now, None
                    self._backoff_s, self._failed = 0.05, False
                    await self._dispatch(message)
                elif pinged_at is not None and now - pinged_at >= self._liveness_s:
                    raise RedisConnectionError("pub/sub connection silent: PING unanswered")
                elif pinged_at is None and now - last_heard >= self._liveness_s:
                    await pubsub.ping(b"cardgame-watch")
                    pinged_at = now
        finally:
            pending = [t for t in (reader, waker) if t is not None and not t.done()]
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending)

    async def _sync_subscriptions(self, pubsub: PubSub, subscribed: dict[bytes, _Subscription]) -> None:
        """SUBSCRIBE new subscriptions (also a channel re-watched since) and drop stale ones."""
        fresh = [ch for ch, sub in self._subs.items() if subscribed.get(ch) is not sub]
        stale = [ch for ch in subscribed if ch not in self._subs]
        if fresh:
            pairs = [(ch, self._subs[ch]) for ch in fresh]  # a watcher may leave during the await
            if self._sharded:  # one command per channel: shard channels of one command share a slot
                for channel in fresh:
                    await pubsub.execute_command("SSUBSCRIBE", channel)
            else:
                await pubsub.subscribe(*fresh)
            subscribed.update(pairs)
        if stale:
            if self._sharded:
                for channel in stale:
                    await pubsub.execute_command("SUNSUBSCRIBE", channel)
            else:
                await pubsub.unsubscribe(*stale)
            for ch in stale:
                del subscribed[ch]

    async def _dispatch(self, message: dict[str, object]) -> None:
        """Deliver one pub/sub message: a version, or a (re)subscription confirmation."""
        channel = message.get("channel")
        sub = self._subs.get(channel) if isinstance(channel, bytes) else None
        if sub is None:
            return
        kind = message["type"]
        if kind in ("message", "smessage"):
            data = message.get("data")
            if isinstance(data, bytes) and data.isdigit():
                for watcher in list(sub.watchers):
                    watcher.notify(int(data))
        elif kind == "sunsubscribe":  # the node gave the slot up (a resharding): find its new node
            raise RedisConnectionError("the channel's slot moved to another node")
        elif kind in ("subscribe", "ssubscribe"):
            if not sub.ready.done():
                sub.ready.set_result(None)
            else:  # re-subscribed after a reconnect: anything may have been missed
                version = await self._store.read_version(sub.game_id) if sub.game_id else 0
                for watcher in list(sub.watchers):
                    watcher.notify(version)

    def take(self) -> dict[bytes, _Subscription]:
        """Give up every subscription (to be adopted by another hub); the connection drops."""
        subs, self._subs = self._subs, {}
        self._wake.set()
        return subs

    def adopt(self, channel: bytes, sub: _Subscription) -> None:
        """Serve a subscription another hub gave up; its watchers re-read the version once subscribed."""
        if not sub.ready.done():
            sub.ready.set_result(None)
        self._subs[channel] = sub
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name="redis-watch-hub")
        self._wake.set()

    def _fail_pending(self, exc: Exception) -> None:
        """Fail the watchers still waiting for their first subscription."""
        for sub in self._subs.values():
            if not sub.ready.done():
                sub.ready.set_exception(
                    StoreUnavailable(f"redis watch failed: {type(exc).__name__}: {exc}"))

    async def _drop(self) -> None:
        """Close the current pub/sub connection, if any, returning it to the pool."""
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            with contextlib.suppress(Exception):
                await pubsub.aclose()


class _NodeSource:
    """What one master's hub reads from: a connection to that node, and versions through the store."""

    def __init__(self, feed: ShardedFeed, node: tuple[str, int]) -> None:
        self.feed, self.node = feed, node

    async def pubsub(self, after_failure: bool) -> PubSub:
        if after_failure:
            await self.feed.rehome(self.node)
        return self.feed.client(self.node).pubsub()

    async def read_version(self, game_id: str) -> int:
        return await self.feed.store.read_version(game_id)


class ShardedFeed:
    """The change feed of a Redis Cluster: one SSUBSCRIBE hub per master node."""

    def __init__(self, store: Any, watch_timeout_s: float, liveness_s: float) -> None:
        self.store = store
        self._watch_timeout_s, self._liveness_s = watch_timeout_s, liveness_s
        self._hubs: dict[tuple[str, int], PubSubHub] = {}
        self._clients: dict[tuple[str, int], Any] = {}
        self._where: dict[bytes, tuple[str, int]] = {}

    def node_of(self, channel: bytes) -> tuple[str, int]:
        """The master node that serves the channel's slot, as the cluster client knows it now."""
        node = self.store.client.get_node_from_key(channel)
        return node.host, int(node.port)

    def client(self, node: tuple[str, int]) -> Any:
        """The plain connection pool of one node (health checks off: it is in pub/sub mode)."""
        if node not in self._clients:
            self._clients[node] = self.store.node_client(*node)
        return self._clients[node]

    def _hub(self, node: tuple[str, int]) -> PubSubHub:
        if node not in self._hubs:
            self._hubs[node] = PubSubHub(_NodeSource(self, node), self._watch_timeout_s, self._liveness_s,
                                         sharded=True)
        return self._hubs[node]

    async def add(self, channel: bytes, game_id: str, watcher: Listener) -> None:
        """Register a watcher on the hub of the channel's node; return once subscribed (the cluster's
        slots are learnt first when the client has sent nothing yet)."""
        node = self._where.get(channel)
        if node is None:
            try:
                node = self.node_of(channel)
            except SlotNotCoveredError:
                with unavailable_on_error("watch"):
                    await self.store.client.nodes_manager.initialize()
                try:
                    node = self.node_of(channel)
                except SlotNotCoveredError as exc:
                    raise StoreUnavailable(f"redis cluster: {exc}") from exc
        self._where[channel] = node
        hub = self._hub(node)
        try:
            await hub.add(channel, game_id, watcher)
        except BaseException:
            if channel not in hub._subs and self._where.get(channel) == node:
                del self._where[channel]   # a watch that failed leaves nothing behind
            raise

    def remove(self, channel: bytes, watcher: Listener) -> None:
        """Unregister a watcher; the channel is unsubscribed when its last watcher leaves."""
        node = self._where.get(channel)
        if node is not None:
            hub = self._hubs[node]
            hub.remove(channel, watcher)
            if channel not in hub._subs:
                del self._where[channel]

    async def rehome(self, node: tuple[str, int]) -> None:
        """After the hub of ``node`` lost its connection: learn the cluster's slots again and move
        every subscription whose slot another node now serves to that node's hub."""
        hub = self._hubs[node]
        with contextlib.suppress(RedisError, OSError):
            await self.store.client.nodes_manager.initialize()
        for channel, sub in hub.take().items():
            target = self.node_of(channel)
            self._where[channel] = target
            self._hub(target).adopt(channel, sub)

    async def close(self) -> None:
        """End every watcher, stop every hub and drop their connections."""
        for hub in list(self._hubs.values()):
            await hub.close()
        for client in self._clients.values():
            with contextlib.suppress(RedisError, OSError):
                await client.aclose()
