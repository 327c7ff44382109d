"""What every part of the Redis store shares: its clients, key prefix, TTLs and limits, its Lua
scripts, its change feed, and the reads of many games' keys.

Every key starts with the prefix ``P`` (``cardgame`` by default) and has a hash tag, so that a
Redis Cluster keeps together what one script touches: the keys of one game under ``{<game_id>}``
(``P:{id}:<part>``, see ``games``), an owner's under ``{<owner>}`` (``events``, ``index``), a
schedule shard's under ``{<n>}`` (``schedule``), a rate-limit bucket's under ``{<bucket>}``
(``ratelimit``). Each port's module lists its keys.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.client import PubSub

from service.store.port import (
    DEFAULT_EVENT_SEQ_TTL_S,
    DEFAULT_FINISHED_TTL_S,
    DEFAULT_IDLE_TTL_S,
    DEFAULT_MAX_REQUESTS,
    DEFAULT_REQUEST_TTL_S,
    validate_int,
    validate_limits,
)
from service.store.redis.connection import (
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_POOL_WAIT_S,
    Script,
    block_chunk_ms,
    connect,
    connect_cluster,
    unavailable_on_error,
)
from service.store.redis.direct import DirectCommands
from service.store.redis.feed import PubSubHub, ShardedFeed
from service.store.redis.presence import Presence
from service.store.redis.scripts import SCRIPTS, sharded


class RedisBase:
    """The clients, prefix, TTLs, scripts and change feed of a RedisStore, and its game keys."""

    def __init__(
        self,
        url_or_client: str | Redis,
        prefix: str = "cardgame",
        idle_ttl_s: float = DEFAULT_IDLE_TTL_S,
        finished_ttl_s: float = DEFAULT_FINISHED_TTL_S,
        request_ttl_s: float = DEFAULT_REQUEST_TTL_S,
        max_requests: int = DEFAULT_MAX_REQUESTS,
        *,
        socket_timeout_s: float = 2.0,
        connect_timeout_s: float = 2.0,
        watch_timeout_s: float = 3.0,
        liveness_s: float = 5.0,
        pubsub_client: Redis | None = None,
        cluster: bool = False,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        pool_wait_s: float = DEFAULT_POOL_WAIT_S,
        event_seq_ttl_s: float = DEFAULT_EVENT_SEQ_TTL_S,
        states_concurrency: int = 16,
    ) -> None:
        """Use a URL (the store owns and closes its clients) or a caller-owned client.

        ``cluster=True`` with a URL of any node talks to a Redis Cluster: notifications are
        SPUBLISHed on each game's shard and read by one SSUBSCRIBE connection per master node
        (``service.store.redis.feed.ShardedFeed``), which follows slots to their new node after a
        failover. With a caller-owned RedisCluster client (which has no pub/sub), notifications
        are plain PUBLISH, which reaches every node: pass a plain ``pubsub_client`` connected to
        any node.

        ``event_seq_ttl_s``: how long an owner's publish record outlives its last publish (longer
        than any game lives, so no event is published twice). ``states_concurrency``: how many
        reads of other slots ``loads`` and ``sweep_index`` keep in flight at once.

        ``max_connections`` bounds the pool (per node in a cluster); a command waits up to
        ``pool_wait_s`` for a free connection, then fails with StoreBusy. ``ping`` has a
        connection of its own, outside that pool, so a busy pool never reads as a store failure.
        """
        if not prefix or "{" in prefix or "}" in prefix:
            raise ValueError(f"prefix must be non-empty and free of braces: {prefix!r}")
        validate_limits(idle_ttl_s, finished_ttl_s, request_ttl_s, max_requests)
        if not event_seq_ttl_s > 0:
            raise ValueError(f"event_seq_ttl_s must be positive, got {event_seq_ttl_s!r}")
        validate_int("states_concurrency", states_concurrency, 1, 1000)
        validate_int("max_connections", max_connections, 1, 1_000_000)
        if not 0 < pool_wait_s <= 3600:
            raise ValueError(f"pool_wait_s must be above 0 and at most 3600, got {pool_wait_s!r}")
        # redis-py types each command as returning "value or awaitable of value" (one class serves
        # both its sync and asyncio clients), so the client is held untyped here.
        self._client: Any
        self._ping_client: Any
        if isinstance(url_or_client, str):
            url, timeout, connect_timeout = url_or_client, socket_timeout_s, connect_timeout_s
            if cluster:
                self._client = connect_cluster(url, socket_timeout_s=timeout, connect_timeout_s=connect_timeout,
                                               max_connections=max_connections, pool_wait_s=pool_wait_s)
                self._ping_client = connect_cluster(url, socket_timeout_s=timeout, connect_timeout_s=connect_timeout,
                                                    max_connections=1, pool_wait_s=timeout)
            else:
                self._client = connect(url, socket_timeout_s=timeout, connect_timeout_s=connect_timeout,
                                       max_connections=max_connections, pool_wait_s=pool_wait_s)
                self._ping_client = connect(url, socket_timeout_s=timeout, connect_timeout_s=connect_timeout,
                                            max_connections=1, pool_wait_s=timeout)
            self._owns_client = True
        else:
            pool = getattr(url_or_client, "connection_pool", None)
            if pool is not None and pool.connection_kwargs.get("decode_responses"):
                raise ValueError("RedisStore needs a client with decode_responses=False")
            self._client = url_or_client
            self._ping_client = url_or_client
            self._owns_client = False
        self._prefix = prefix
        self._idle_ttl_ms = int(idle_ttl_s * 1000)
        self._finished_ttl_ms = int(finished_ttl_s * 1000)
        self._request_ttl_ms = int(request_ttl_s * 1000)
        self._max_requests = max_requests
        self._sharded = cluster and isinstance(url_or_client, str)  # SPUBLISH, one feed per master
        # The commands of a move (a state's HMGET, every script) skip the client's per-command
        # layers on one Redis (``direct``); a cluster client routes them by their keys itself.
        self._direct = DirectCommands(self._client) if isinstance(self._client, Redis) else None
        self._execute: Callable[..., Awaitable[Any]] = self._direct or self._client.execute_command
        self._scripts = {name: Script(self._execute, sharded(source) if self._sharded else source)
                         for name, source in SCRIPTS.items()}
        self._event_seq_ttl_ms = int(event_seq_ttl_s * 1000)
        self._states_concurrency = states_concurrency
        self._block_chunk_ms = block_chunk_ms(self._client, socket_timeout_s if self._owns_client else None)
        self._pubsub_client: Any = pubsub_client or self._client
        self._connect_kwargs: dict[str, Any] = {"socket_timeout_s": socket_timeout_s,
                                                "connect_timeout_s": connect_timeout_s}
        self._hub: PubSubHub | ShardedFeed = (ShardedFeed(self, watch_timeout_s, liveness_s) if self._sharded
                                              else PubSubHub(self, watch_timeout_s, liveness_s))
        self._presence = Presence(self)   # tells a watched game's watchers when it expired

    @property
    def client(self) -> Redis:
        """Return the underlying redis.asyncio client."""
        return self._client

    def key(self, game_id: str, part: str) -> str:
        """Return the Redis key (or channel) ``<prefix>:{<game_id>}:<part>``."""
        return f"{self._prefix}:{{{game_id}}}:{part}"

    async def read_version(self, game_id: str) -> int:
        """Return the game's current version, 0 when there is no such game (a watch's first version;
        the change feed re-reads it after a reconnection, the presence check for a game gone)."""
        key = self.key(game_id, "state")
        with unavailable_on_error("read_version"):
            value = await self._client.hget(key, "v")
        return 0 if value is None else int(value)

    async def _run(self, script: str, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """Run the Lua script ``lua/<script>.lua`` on the node of its keys; return its reply."""
        return await self._scripts[script](keys=keys, args=args)

    async def _per_game(self, game_ids: Sequence[str], read: Any) -> list[Any]:
        """Run one read per game (each on its game's slot), ``states_concurrency`` at a time, in order."""
        gate = asyncio.Semaphore(self._states_concurrency)

        async def one(game_id: str) -> Any:
            async with gate:
                return await read(game_id)

        return list(await asyncio.gather(*(one(game_id) for game_id in game_ids)))

    async def pubsub(self, after_failure: bool) -> PubSub:
        """Return a new PubSub object for the (unsharded) watch hub."""
        return self._pubsub_client.pubsub()

    def node_client(self, host: str, port: int) -> Redis:
        """A plain client of one cluster node for its sharded change feed (no health-check
        PINGs: the connection is in pub/sub mode)."""
        return connect(f"redis://{host}:{port}/0", health_check_interval_s=0, **self._connect_kwargs)
