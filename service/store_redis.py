"""RedisStore: the Store contract on Redis (or a Redis Cluster), shared by many server processes.

Key layout, all keys of one game under the hash tag ``{<game_id>}`` so a cluster keeps a game
on one shard (``P`` is the prefix, ``cardgame`` by default):

- ``P:{id}:state``  hash, fields ``v`` (version) and ``s`` (opaque state bytes)
- ``P:{id}:log``    list, the game's log: element ``i`` is the entry of version ``i + 1``
- ``P:{id}:hands``  list of the finished hands' score records, appended by commits
- ``P:{id}:req``    list of pairs ``r<request id>``, ``d<unix ms> <retry record>`` for the
  latest ``max_requests`` request ids (LPOS finds one; LTRIM keeps the list bounded)
- channel ``P:{id}:changes``  receives the new version after each create/commit
- ``P:ratelimit:{<bucket>}``  hash, fields ``t`` (tokens) and ``at`` (Redis ms) of a token bucket

Writes go through Lua scripts, so the check, the writes and the notification are one atomic
step. A script is sent by its SHA (EVALSHA) and, on any node that answers NOSCRIPT (a fresh
node, a replica just promoted by a failover, a SCRIPT FLUSH), sent whole with EVAL to the
same node, which loads it there: a missing script never fails a call. The
notification uses plain PUBLISH, which a Redis Cluster forwards to every node; SPUBLISH would
keep it on the game's shard but needs Redis 7 and sharded subscribers, so it is not used.

TTLs: every key gets the idle TTL on create and on every unfinished commit, and the finished
TTL on a commit with ``finished=True``. A retry record is honoured for ``request_ttl_s`` after
it was written (the script compares Redis' own clock), and never outlives the game.

Every Redis failure surfaces as StoreUnavailable. Commands are never retried by the client:
a write whose reply was lost may have been applied, and only a request id makes it safe to
send again. Connections dropped by a restarted server are replaced by the pool on next use.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import AsyncGenerator, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.client import PubSub
from redis.asyncio.cluster import RedisCluster
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, RedisError
from redis.retry import Retry

from service.store import (
    DEFAULT_FINISHED_TTL_S,
    DEFAULT_IDLE_TTL_S,
    DEFAULT_MAX_REQUESTS,
    DEFAULT_REQUEST_TTL_S,
    Committed,
    GameExists,
    Loaded,
    StoreUnavailable,
    Watcher,
    validate_bucket,
    validate_commit,
    validate_entries,
    validate_game_id,
    validate_limits,
    validate_request_id,
)

log = logging.getLogger(__name__)

# Retry records: remember(req key, request id, record, now, cap, ttl_ms) and recall(req key,
# request id, now, max age) -> record | nil, shared by the scripts below; times in Redis' own
# clock, milliseconds.
RETRY_LUA = """
local function remember(key, rid, record, now, cap, ttl)
  redis.call('RPUSH', key, 'r' .. rid, 'd' .. string.format('%d', now) .. ' ' .. record)
  redis.call('LTRIM', key, -2 * cap, -1)
  redis.call('PEXPIRE', key, ttl)
end
local function recall(key, rid, now, max_age)
  local pos = redis.call('LPOS', key, 'r' .. rid)
  if not pos then return nil end
  local data = redis.call('LINDEX', key, pos + 1)
  local space = string.find(data, ' ', 2, true)
  if now - tonumber(string.sub(data, 2, space - 1)) >= max_age then return nil end
  return string.sub(data, space + 1)
end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
"""

# KEYS: state, log, hands, req
# ARGV: state, ttl_ms, channel, req_ttl_ms, max_requests, request_id ('' for none), retry, entry...
CREATE_LUA = RETRY_LUA + """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
for i = 8, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
local v = string.format('%d', #ARGV - 7)
redis.call('HSET', KEYS[1], 'v', v, 's', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
if ARGV[6] ~= '' then remember(KEYS[4], ARGV[6], ARGV[7], now, tonumber(ARGV[5]), ARGV[2]) end
redis.call('PUBLISH', ARGV[3], v)
return 1
"""

# KEYS: state, log, hands, req
# ARGV: expected, state, ttl_ms, channel, req_ttl_ms, max_requests, request_id ('' for none), retry,
#       n_hands, hand..., entry...
# Returns {1, new_version} | {0, current_version} | {0, current_version, retry record}.
COMMIT_LUA = RETRY_LUA + """
local cur = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if ARGV[7] ~= '' then
  local prev = recall(KEYS[4], ARGV[7], now, tonumber(ARGV[5]))
  if prev then return {0, cur, prev} end
end
if cur == 0 or cur ~= tonumber(ARGV[1]) then return {0, cur} end
local first_entry = 10 + tonumber(ARGV[9])
for i = 10, first_entry - 1 do redis.call('RPUSH', KEYS[3], ARGV[i]) end
for i = first_entry, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
local v = string.format('%d', cur + #ARGV - first_entry + 1)
redis.call('HSET', KEYS[1], 'v', v, 's', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('PEXPIRE', KEYS[3], ARGV[3]) end
if ARGV[7] ~= '' then
  remember(KEYS[4], ARGV[7], ARGV[8], now, tonumber(ARGV[6]), ARGV[3])
elseif redis.call('EXISTS', KEYS[4]) == 1 then
  redis.call('PEXPIRE', KEYS[4], ARGV[3])
end
redis.call('PUBLISH', ARGV[4], v)
return {1, tonumber(v)}
"""

# KEYS: req   ARGV: request_id, req_ttl_ms
RECALL_LUA = RETRY_LUA + """
return recall(KEYS[1], ARGV[1], now, tonumber(ARGV[2]))
"""

# KEYS: bucket   ARGV: rate per second, burst.  Returns 0 when a token was taken, else the
# milliseconds until one will be there. The bucket expires once it would be full again.
TAKE_TOKEN_LUA = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local rate = tonumber(ARGV[1]) / 1000
local burst = tonumber(ARGV[2])
local kept = redis.call('HMGET', KEYS[1], 't', 'at')
local tokens = tonumber(kept[1]) or burst
local at = tonumber(kept[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local wait = 0
if tokens < 1 then wait = math.max(1, math.ceil((1 - tokens) / rate)) else tokens = tokens - 1 end
redis.call('HSET', KEYS[1], 't', string.format('%.6f', tokens), 'at', string.format('%d', now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate) + 1000)
return wait
"""


class _Script:
    """A Lua script run by SHA on the node that owns its keys, or sent whole where it is unknown."""

    def __init__(self, client: Any, source: str) -> None:
        self._client = client
        self._source = source.encode()
        self._sha = hashlib.sha1(self._source).hexdigest()

    async def __call__(self, keys: Sequence[str], args: Sequence[Any]) -> Any:
        try:
            return await self._client.evalsha(self._sha, len(keys), *keys, *args)
        except NoScriptError:  # the script did not run: sending it whole is safe
            return await self._client.eval(self._source, len(keys), *keys, *args)


@contextlib.contextmanager
def unavailable_on_error(operation: str) -> Iterator[None]:
    """Turn any failure of the Redis client call inside the block into StoreUnavailable.

    Redis and socket errors are the expected ones. Anything else the client raises (its cluster
    code has raised IndexError and KeyError while its topology changed) is logged with its
    traceback and answered the same way: the call may be retried, and never becomes INTERNAL.
    """
    try:
        yield
    except (RedisError, OSError) as exc:
        raise StoreUnavailable(f"redis {operation} failed: {type(exc).__name__}: {exc}") from exc
    except Exception as exc:
        log.warning("the redis client failed unexpectedly in %s", operation, exc_info=True)
        raise StoreUnavailable(f"redis {operation} failed: {type(exc).__name__}: {exc}") from exc


DEFAULT_MAX_CONNECTIONS = 64


def connect(url: str, *, socket_timeout_s: float = 2.0, connect_timeout_s: float = 2.0,
            health_check_interval_s: int = 15, max_connections: int = DEFAULT_MAX_CONNECTIONS) -> Redis:
    """Return a redis.asyncio client for url that fails fast and never retries a command.

    Its pool holds at most ``max_connections``; a command that finds none free waits up to the
    socket timeout for one (then StoreUnavailable), so a stall cannot open connections unbounded.
    """
    pool = BlockingConnectionPool.from_url(
        url,
        max_connections=max_connections,
        timeout=socket_timeout_s,
        decode_responses=False,
        socket_timeout=socket_timeout_s,
        socket_connect_timeout=connect_timeout_s,
        health_check_interval=health_check_interval_s,
        retry=Retry(NoBackoff(), 0),
    )
    return Redis.from_pool(pool)


def connect_cluster(url: str, *, socket_timeout_s: float = 2.0, connect_timeout_s: float = 2.0,
                    max_connections: int = DEFAULT_MAX_CONNECTIONS) -> RedisCluster:
    """Return a redis.asyncio cluster client for url (any node) that fails fast, with at most
    ``max_connections`` per node."""
    return RedisCluster.from_url(
        url,
        decode_responses=False,
        socket_timeout=socket_timeout_s,
        socket_connect_timeout=connect_timeout_s,
        retry=Retry(NoBackoff(), 0),
        max_connections=max_connections,
    )


class RedisStore:
    """Store on Redis: atomic Lua compare-and-set, the game's log as a list, shared pub/sub watch."""

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
    ) -> None:
        """Use a URL (the store owns and closes its clients) or a caller-owned client.

        ``cluster=True`` with a URL of any node talks to a Redis Cluster. Its change feed is read
        through a plain connection to one node, since PUBLISH reaches every node of a cluster:
        the URL's node first, and after a lost connection the next node the cluster client knows,
        so the feed outlives the death of any node. With a caller-owned RedisCluster client
        (which has no pub/sub), pass a plain ``pubsub_client`` connected to any node.
        """
        if not prefix or "{" in prefix or "}" in prefix:
            raise ValueError(f"prefix must be non-empty and free of braces: {prefix!r}")
        validate_limits(idle_ttl_s, finished_ttl_s, request_ttl_s, max_requests)
        # redis-py types each command as returning "value or awaitable of value" (one class serves
        # both its sync and asyncio clients), so the client is held untyped here.
        self._client: Any
        if isinstance(url_or_client, str):
            if cluster:
                self._client = connect_cluster(url_or_client, socket_timeout_s=socket_timeout_s,
                                               connect_timeout_s=connect_timeout_s, max_connections=max_connections)
                pubsub_client = connect(url_or_client, socket_timeout_s=socket_timeout_s,
                                        connect_timeout_s=connect_timeout_s)
            else:
                self._client = connect(url_or_client, socket_timeout_s=socket_timeout_s,
                                       connect_timeout_s=connect_timeout_s, max_connections=max_connections)
            self._owns_client = True
        else:
            pool = getattr(url_or_client, "connection_pool", None)
            if pool is not None and pool.connection_kwargs.get("decode_responses"):
                raise ValueError("RedisStore needs a client with decode_responses=False")
            self._client = url_or_client
            self._owns_client = False
        self._prefix = prefix
        self._idle_ttl_ms = int(idle_ttl_s * 1000)
        self._finished_ttl_ms = int(finished_ttl_s * 1000)
        self._request_ttl_ms = int(request_ttl_s * 1000)
        self._max_requests = max_requests
        self._create_script = _Script(self._client, CREATE_LUA)
        self._commit_script = _Script(self._client, COMMIT_LUA)
        self._recall_script = _Script(self._client, RECALL_LUA)
        self._take_token_script = _Script(self._client, TAKE_TOKEN_LUA)
        self._pubsub_client: Any = pubsub_client or self._client
        self._connect_kwargs = {"socket_timeout_s": socket_timeout_s, "connect_timeout_s": connect_timeout_s}
        self._feed_nodes = cluster and isinstance(url_or_client, str)  # the feed may move between nodes
        self._feed_turn = 0
        self._hub = _PubSubHub(self, watch_timeout_s, liveness_s)

    @property
    def client(self) -> Redis:
        """Return the underlying redis.asyncio client."""
        return self._client

    def key(self, game_id: str, part: str) -> str:
        """Return the Redis key (or channel) ``<prefix>:{<game_id>}:<part>``."""
        return f"{self._prefix}:{{{validate_game_id(game_id)}}}:{part}"

    async def create(
        self,
        game_id: str,
        state: bytes,
        entries: Sequence[bytes],
        request_id: str | None = None,
        retry: bytes | None = None,
    ) -> None:
        """Store a new game with its first log entries (version = their count); GameExists if taken."""
        validate_request_id(request_id)
        validate_entries(state, entries)
        args: list[Any] = [state, self._idle_ttl_ms, self.key(game_id, "changes"), self._request_ttl_ms,
                           self._max_requests, request_id or "", retry or b"", *entries]
        with unavailable_on_error("create"):
            created = await self._create_script(keys=self._keys(game_id), args=args)
        if not created:
            raise GameExists(game_id)

    async def load(self, game_id: str) -> Loaded | None:
        """Return the game's version and state, or None when there is no such game."""
        key = self.key(game_id, "state")
        with unavailable_on_error("load"):
            version, state = await self._client.hmget(key, ["v", "s"])
        if version is None:
            return None
        return Loaded(int(version), state or b"")

    async def commit(
        self,
        game_id: str,
        expected_version: int,
        state: bytes,
        entries: Sequence[bytes],
        request_id: str | None,
        retry: bytes | None,
        finished: bool,
        hands: Sequence[bytes] = (),
    ) -> Committed:
        """Replace the state and append log entries (and hand records) if the version is still expected_version."""
        validate_request_id(request_id)
        validate_commit(expected_version, state, entries)
        ttl_ms = self._finished_ttl_ms if finished else self._idle_ttl_ms
        args: list[Any] = [expected_version, state, ttl_ms, self.key(game_id, "changes"), self._request_ttl_ms,
                self._max_requests, request_id or "", retry or b"", len(hands), *hands, *entries]
        with unavailable_on_error("commit"):
            reply = await self._commit_script(keys=self._keys(game_id), args=args)
        if len(reply) == 3:
            return Committed(False, int(reply[1]), bytes(reply[2]))
        return Committed(bool(reply[0]), int(reply[1]), None)

    async def get_retry(self, game_id: str, request_id: str) -> bytes | None:
        """Return the retry record kept for this request id, or None."""
        validate_request_id(request_id)
        with unavailable_on_error("get_retry"):
            found = await self._recall_script(keys=[self.key(game_id, "req")], args=[request_id, self._request_ttl_ms])
        return None if found is None else bytes(found)

    async def hands(self, game_id: str, start: int = 0, count: int | None = None) -> list[bytes]:
        """Return the hand records appended by commits from index ``start`` (``count`` of them, or all
        the rest), oldest first ([] for no such game)."""
        first = max(start, 0)
        if count is not None and count <= 0:
            return []
        key = self.key(game_id, "hands")
        with unavailable_on_error("hands"):
            return await self._client.lrange(key, first, -1 if count is None else first + count - 1)

    async def log_after(self, game_id: str, version: int, until: int | None = None) -> list[tuple[int, bytes]]:
        """Return (version, entry) pairs with versions above ``version`` (and at most ``until``), ascending."""
        first = max(version, 0)
        if until is not None and until <= first:
            return []
        key = self.key(game_id, "log")
        with unavailable_on_error("log_after"):
            entries = await self._client.lrange(key, first, -1 if until is None else until - 1)
        return list(enumerate(entries, first + 1))

    async def watch(self, game_id: str) -> AsyncGenerator[int, None]:
        """Yield the game's current version (0 if none) once subscribed, then every newer one.

        Versions come from any process sharing the Redis. A slow reader skips to the newest
        version; after a lost pub/sub connection the current version is re-read and yielded,
        so a reader that re-reads ``log_after`` on each yield misses nothing.
        """
        channel = self.key(game_id, "changes").encode()
        watcher = Watcher()
        await self._hub.add(channel, game_id, watcher)
        try:
            watcher.notify(await self.version(game_id))
            while (version := await watcher.next()) is not None:
                yield version
        finally:
            self._hub.remove(channel, watcher)

    async def version(self, game_id: str) -> int:
        """Return the game's current version, 0 when there is no such game."""
        key = self.key(game_id, "state")
        with unavailable_on_error("version"):
            value = await self._client.hget(key, "v")
        return 0 if value is None else int(value)

    async def ping(self) -> None:
        """Raise StoreUnavailable unless Redis answers PING."""
        with unavailable_on_error("ping"):
            await self._client.ping()

    async def eviction_policy(self) -> str | None:
        """Redis' ``maxmemory-policy`` (any node's, in a cluster), None when CONFIG GET is not allowed."""
        try:
            reply = await self._client.config_get("maxmemory-policy")
        except (RedisError, OSError) as exc:
            log.info("cannot read the Redis eviction policy: %s", exc)
            return None
        value = reply.get("maxmemory-policy") or reply.get(b"maxmemory-policy")
        return value.decode() if isinstance(value, bytes) else value

    async def take_token(self, bucket: str, rate_per_s: float, burst: int) -> float:
        """Take one token from a bucket refilled at ``rate_per_s`` up to ``burst``, timed by Redis'
        clock so every instance shares it (0.0 when taken, else seconds to wait)."""
        validate_bucket(bucket, rate_per_s, burst)
        key = f"{self._prefix}:ratelimit:{{{bucket}}}"
        with unavailable_on_error("take_token"):
            wait_ms = await self._take_token_script(keys=[key], args=[repr(float(rate_per_s)), burst])
        return int(wait_ms) / 1000

    async def close(self) -> None:
        """End all watches, drop the pub/sub connection and close the client if owned."""
        await self._hub.close()
        if self._owns_client:
            for client in {id(c): c for c in (self._client, self._pubsub_client)}.values():
                with contextlib.suppress(RedisError, OSError):
                    await client.aclose()

    def _keys(self, game_id: str) -> list[str]:
        """Return the KEYS of a write script: state, log, hands and retry records."""
        return [self.key(game_id, part) for part in ("state", "log", "hands", "req")]

    async def pubsub(self, after_failure: bool) -> PubSub:
        """Return a new PubSub object for the watch hub. On a cluster, after a failure, the feed
        moves to the next node of the cluster's current topology (the URL's node may be gone)."""
        if self._feed_nodes and after_failure:
            nodes = sorted({(node.host, int(node.port)) for node in self._client.get_nodes()})
            if nodes:
                self._feed_turn = (self._feed_turn + 1) % len(nodes)
                host, port = nodes[self._feed_turn]
                old, self._pubsub_client = self._pubsub_client, connect(f"redis://{host}:{port}/0",
                                                                       **self._connect_kwargs)
                with contextlib.suppress(RedisError, OSError):
                    await old.aclose()
        return self._pubsub_client.pubsub()


@dataclass
class _Subscription:
    """One subscribed channel: its game, its watchers, and a future set once subscribed."""

    game_id: str
    ready: asyncio.Future[None]
    watchers: set[Watcher] = field(default_factory=set)


def _consume_exception(future: asyncio.Future[None]) -> None:
    """Mark a future's exception as retrieved so asyncio does not log it."""
    if not future.cancelled():
        future.exception()


class _PubSubHub:
    """One pub/sub connection per store that fans change messages out to every watcher.

    A single background task owns the connection: it (un)subscribes to match the watched
    channels, reads messages, and on any failure reconnects with backoff, resubscribes, and
    re-reads the version of each game whose subscription was re-established. A silent
    connection is detected by PINGing after ``liveness_s`` without traffic.
    """

    def __init__(self, store: RedisStore, watch_timeout_s: float, liveness_s: float) -> None:
        """Create an idle hub; the task starts with the first watcher."""
        self._store = store
        self._watch_timeout_s = watch_timeout_s
        self._liveness_s = liveness_s
        self._subs: dict[bytes, _Subscription] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._pubsub: PubSub | None = None
        self._closed = False
        self._backoff_s = 0.05
        self._failed = False  # the last connection failed: the next one may go to another node

    async def add(self, channel: bytes, game_id: str, watcher: Watcher) -> None:
        """Register a watcher and return once its channel is subscribed (else StoreUnavailable)."""
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

    def remove(self, channel: bytes, watcher: Watcher) -> None:
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
            await pubsub.subscribe(*fresh)
            subscribed.update(pairs)
        if stale:
            await pubsub.unsubscribe(*stale)
            for ch in stale:
                del subscribed[ch]

    async def _dispatch(self, message: dict[str, object]) -> None:
        """Deliver one pub/sub message: a version, or a (re)subscription confirmation."""
        channel = message.get("channel")
        sub = self._subs.get(channel) if isinstance(channel, bytes) else None
        if sub is None:
            return
        if message["type"] == "message":
            data = message.get("data")
            if isinstance(data, bytes) and data.isdigit():
                for watcher in list(sub.watchers):
                    watcher.notify(int(data))
        elif message["type"] == "subscribe":
            if not sub.ready.done():
                sub.ready.set_result(None)
            else:  # re-subscribed after a reconnect: anything may have been missed
                version = await self._store.version(sub.game_id)
                for watcher in list(sub.watchers):
                    watcher.notify(version)

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
