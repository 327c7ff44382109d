"""RedisStore: the Store contract on Redis (or a Redis Cluster), shared by many server processes.

Key layout, all keys of one game under the hash tag ``{<game_id>}`` so a cluster keeps a game
on one shard (``P`` is the prefix, ``cardgame`` by default):

- ``P:{id}:state``  hash, fields ``v`` (version) and ``s`` (opaque state bytes)
- ``P:{id}:log``    list, the game's log: element ``i`` is the entry of version ``i + 1``
- ``P:{id}:hands``  list of the finished hands' score records, appended by commits
- ``P:{id}:req``    list of pairs ``r<request id>``, ``d<unix ms> <retry record>`` for the
  latest ``max_requests`` request ids (LPOS finds one; LTRIM keeps the list bounded)
- ``P:{id}:outbox`` list of the game's events not yet trimmed (``<seq> <opaque>``, ascending),
  appended by a successful create/commit, at most ``MAX_OUTBOX`` (the oldest dropped)
- channel ``P:{id}:changes``  receives the new version after each create/commit
- ``P:ratelimit:{<bucket>}``  hash, fields ``t`` (tokens) and ``at`` (Redis ms) of a token bucket

Around the games, under an owner's hash tag ``{<owner>}`` (owners are API key ids, or
``_open``) or a schedule shard's ``{<n>}``, so every script touches one slot:

- ``P:events:{owner}``      stream of the owner's published events, fields ``e`` (the event) and
  ``g`` (game id), trimmed by ``MAXLEN ~ max_len`` on every publish; no TTL
- ``P:events:{owner}:seq``  hash, game id -> the last seq published (so a racing or repeated
  publish adds nothing twice); a field goes with ``forget``, the whole hash expires
  ``event_seq_ttl_s`` (30 days) after the owner's last publish
- ``P:due:{n}``             sorted set, ``n`` in 0..SHARDS-1 (``shard_of``): game id -> epoch ms
  when the game is due, or the end of its claim's lease
- ``P:idx:{owner}:all``     sorted set of the owner's indexed games, scored by creation ms
- ``P:idx:{owner}:t:<term>`` sorted set of the owner's games with that term, the same scores
- ``P:idx:{owner}:terms``   hash, game id -> its terms joined by newlines, so removing a game
  from the index reaches each of its term sets (the scripts derive those keys from it, all on
  the owner's slot); a field lives as long as the game's entry in ``all``
- ``P:owners``              set of every owner that indexed a game (one per API key: small)

Writes go through Lua scripts, so the check, the writes and the notification are one atomic
step. A script is sent by its SHA (EVALSHA) and, on any node that answers NOSCRIPT (a fresh
node, a replica just promoted by a failover, a SCRIPT FLUSH), sent whole with EVAL to the
same node, which loads it there: a missing script never fails a call. The notification is a
PUBLISH on one Redis, and on a Redis Cluster an SPUBLISH (Redis 7), which stays on the shard of
the game it is about instead of crossing the cluster bus to every node; ``service.redis_feed``
reads it back.

TTLs: every key of a game gets the idle TTL on create and on every unfinished commit, and the
finished TTL on a commit with ``finished=True``. A retry record is honoured for ``request_ttl_s``
after it was written (the script compares Redis' own clock), and never outlives the game. The
index, schedule and owner keys have no TTL: entries of games that expired are removed by
``prune_index`` / ``sweep_index`` and by ``settle``.

Every Redis failure surfaces as StoreUnavailable. Commands are never retried by the client:
a write whose reply was lost may have been applied, and only a request id makes it safe to
send again. Connections dropped by a restarted server are replaced by the pool on next use.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import AsyncGenerator, Iterator, Mapping, Sequence
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.client import PubSub
from redis.asyncio.cluster import RedisCluster
from redis.backoff import NoBackoff
from redis.exceptions import NoScriptError, RedisError
from redis.retry import Retry

from service.store.port import (
    DEFAULT_EVENT_SEQ_TTL_S,
    DEFAULT_FINISHED_TTL_S,
    DEFAULT_IDLE_TTL_S,
    DEFAULT_MAX_REQUESTS,
    DEFAULT_REQUEST_TTL_S,
    MAX_COUNT,
    MAX_OUTBOX,
    MAX_SEQ,
    SHARDS,
    Commit,
    Committed,
    GameExists,
    Loaded,
    StoreUnavailable,
    Watcher,
    index_scan_bound,
    parse_stream_id,
    shard_of,
    validate_bucket,
    validate_cursor,
    validate_entries,
    validate_events,
    validate_game_id,
    validate_game_ids,
    validate_int,
    validate_limits,
    validate_owner,
    validate_request_id,
    validate_terms,
)
from service.store.redis.feed import PubSubHub, ShardedFeed

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

# append_outbox(outbox key, first ARGV index, last ARGV index, cap, ttl_ms): the events of a
# successful write join the game's outbox, which keeps the latest ``cap``.
OUTBOX_LUA = """
local function append_outbox(key, first, last, cap, ttl)
  if last < first then
    if redis.call('EXISTS', key) == 1 then redis.call('PEXPIRE', key, ttl) end
    return
  end
  for i = first, last do redis.call('RPUSH', key, ARGV[i]) end
  redis.call('LTRIM', key, -cap, -1)
  redis.call('PEXPIRE', key, ttl)
end
"""

# KEYS: state, log, hands, req, outbox
# ARGV: state, ttl_ms, channel, req_ttl_ms, max_requests, request_id ('' for none), retry,
#       max_outbox, n_events, event..., entry...
CREATE_LUA = RETRY_LUA + OUTBOX_LUA + """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4], KEYS[5])
local first_entry = 10 + tonumber(ARGV[9])
for i = first_entry, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
local v = string.format('%d', #ARGV - first_entry + 1)
redis.call('HSET', KEYS[1], 'v', v, 's', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
append_outbox(KEYS[5], 10, first_entry - 1, tonumber(ARGV[8]), ARGV[2])
if ARGV[6] ~= '' then remember(KEYS[4], ARGV[6], ARGV[7], now, tonumber(ARGV[5]), ARGV[2]) end
redis.call('PUBLISH', ARGV[3], v)
return 1
"""

# KEYS: state, log, hands, req, outbox
# ARGV: expected, state, ttl_ms, channel, req_ttl_ms, max_requests, request_id ('' for none), retry,
#       max_outbox, n_hands, n_events, hand..., event..., entry...
# Returns {1, new_version} | {0, current_version} | {0, current_version, retry record}.
COMMIT_LUA = RETRY_LUA + OUTBOX_LUA + """
local cur = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if ARGV[7] ~= '' then
  local prev = recall(KEYS[4], ARGV[7], now, tonumber(ARGV[5]))
  if prev then return {0, cur, prev} end
end
if cur == 0 or cur ~= tonumber(ARGV[1]) then return {0, cur} end
local first_event = 12 + tonumber(ARGV[10])
local first_entry = first_event + tonumber(ARGV[11])
for i = 12, first_event - 1 do redis.call('RPUSH', KEYS[3], ARGV[i]) end
for i = first_entry, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
local v = string.format('%d', cur + #ARGV - first_entry + 1)
redis.call('HSET', KEYS[1], 'v', v, 's', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('PEXPIRE', KEYS[3], ARGV[3]) end
append_outbox(KEYS[5], first_event, first_entry - 1, tonumber(ARGV[9]), ARGV[3])
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

# KEYS: state, log, hands, req, outbox.  Returns 1 if the game existed.
DELETE_LUA = """
local existed = redis.call('EXISTS', KEYS[1])
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
return existed
"""

# KEYS: outbox   ARGV: upto seq.  Drops the leading events whose seq is at most upto; returns how many.
TRIM_OUTBOX_LUA = """
local upto = tonumber(ARGV[1])
local dropped = 0
while true do
  local head = redis.call('LINDEX', KEYS[1], 0)
  if not head then break end
  local seq = tonumber(string.match(head, '^(%d+) '))
  if not seq or seq > upto then break end
  redis.call('LPOP', KEYS[1])
  dropped = dropped + 1
end
return dropped
"""

# KEYS: stream, seq hash   ARGV: game id, max_len, seq ttl_ms, event...
# Appends each event whose seq is above the game's last published one; returns how many.
PUBLISH_LUA = """
local last = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '-1')
local added = 0
for i = 4, #ARGV do
  local seq = tonumber(string.match(ARGV[i], '^(%d+) '))
  if seq > last then
    redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'e', ARGV[i], 'g', ARGV[1])
    last = seq
    added = added + 1
  end
end
if added > 0 then redis.call('HSET', KEYS[2], ARGV[1], string.format('%d', last)) end
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
return added
"""

# KEYS: due   ARGV: now_ms, lease end (the claim token), count.  Returns the leased game ids.
CLAIM_DUE_LUA = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, game in ipairs(due) do redis.call('ZADD', KEYS[1], ARGV[2], game) end
return due
"""

# KEYS: due   ARGV: game id, claim token, next_ms ('' to unschedule).  Returns 1 if the claim held.
SETTLE_LUA = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
return 1
"""

# The index of one owner: KEYS[1] the ``all`` set, KEYS[2] the hash of each game's terms (joined
# by newlines); a term's set is ``<term prefix><term>``, under the owner's hash tag like the rest,
# so keys read from the terms hash stay on the script's slot.
# unindex(game, term prefix, terms...): remove the game from all, the given and its recorded terms.
UNINDEX_FN_LUA = """
local function unindex(game, tprefix, given)
  local removed = redis.call('ZREM', KEYS[1], game)
  for _, term in ipairs(given) do redis.call('ZREM', tprefix .. term, game) end
  local recorded = redis.call('HGET', KEYS[2], game)
  if recorded then
    for term in string.gmatch(recorded, '[^\\n]+') do redis.call('ZREM', tprefix .. term, game) end
    redis.call('HDEL', KEYS[2], game)
  end
  return removed
end
"""

# KEYS: all, terms hash, term set...   ARGV: game id, created_ms, term prefix, term... (as KEYS[3..])
INDEX_LUA = """
local game, ms, tprefix = ARGV[1], ARGV[2], ARGV[3]
local wanted = {}
for i = 4, #ARGV do wanted[ARGV[i]] = true end
local recorded = redis.call('HGET', KEYS[2], game)
if recorded then
  for term in string.gmatch(recorded, '[^\\n]+') do
    if not wanted[term] then redis.call('ZREM', tprefix .. term, game) end
  end
end
redis.call('ZADD', KEYS[1], ms, game)
for i = 3, #KEYS do redis.call('ZADD', KEYS[i], ms, game) end
if #ARGV > 3 then
  redis.call('HSET', KEYS[2], game, table.concat(ARGV, '\\n', 4, #ARGV))
else
  redis.call('HDEL', KEYS[2], game)
end
return 1
"""

# KEYS: all, terms hash   ARGV: term prefix, then per game: game id, n terms, term...
# Returns how many of the games were in ``all``.
UNINDEX_LUA = UNINDEX_FN_LUA + """
local removed = 0
local i = 2
while i <= #ARGV do
  local n = tonumber(ARGV[i + 1])
  local given = {}
  for j = i + 2, i + 1 + n do given[#given + 1] = ARGV[j] end
  removed = removed + unindex(ARGV[i], ARGV[1], given)
  i = i + 2 + n
end
return removed
"""

# KEYS: the sets to intersect   ARGV: count, scan bound, has cursor ('1'/'0'), cursor ms, cursor id
# Walks the smallest set from its newest member (ties: greater id first) strictly after the
# cursor and keeps the members found in every other set by ZSCORE. Returns
# {{ms, id, ms, id, ...}, {cursor ms, cursor id} or {} when the walk reached the end}.
LIST_INDEX_LUA = """
local count, bound = tonumber(ARGV[1]), tonumber(ARGV[2])
local walk, card = 1, -1
for i = 1, #KEYS do
  local c = redis.call('ZCARD', KEYS[i])
  if card < 0 or c < card then walk, card = i, c end
end
if card == 0 then return {{}, {}} end
local key = KEYS[walk]
local pos = 0
if ARGV[3] == '1' then
  local ms, id = ARGV[4], ARGV[5]
  local own = redis.call('ZSCORE', key, id)
  if own and tonumber(own) == tonumber(ms) then
    pos = redis.call('ZREVRANK', key, id) + 1
  else
    -- the rank the cursor would have: put it in for a moment, then restore the set
    redis.call('ZADD', key, ms, id)
    pos = redis.call('ZREVRANK', key, id)
    if own then
      redis.call('ZADD', key, own, id)
      if tonumber(own) > tonumber(ms) then pos = pos + 1 end
    else
      redis.call('ZREM', key, id)
    end
  end
end
local found, n, scanned, last_ms, last_id = {}, 0, 0, nil, nil
while n < count and scanned < bound and pos < card do
  local items = redis.call('ZREVRANGE', key, pos, pos + math.min(bound - scanned, 256) - 1, 'WITHSCORES')
  if #items == 0 then break end
  for j = 1, #items, 2 do
    local member = items[j]
    scanned, pos, last_ms, last_id = scanned + 1, pos + 1, tonumber(items[j + 1]), member
    local everywhere = true
    for k = 1, #KEYS do
      if k ~= walk and not redis.call('ZSCORE', KEYS[k], member) then everywhere = false break end
    end
    if everywhere then
      found[#found + 1] = last_ms
      found[#found + 1] = member
      n = n + 1
      if n >= count then break end
    end
  end
end
if last_id and pos < card then return {found, {last_ms, last_id}} end
return {found, {}}
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


def _block_chunk_ms(client: Any, socket_timeout_s: float | None) -> int | None:
    """Return the longest XREAD BLOCK that stays under the client's socket timeout (half of it), None
    when the client has none."""
    if socket_timeout_s is None:
        kwargs = getattr(getattr(client, "connection_pool", None), "connection_kwargs", None)
        if not isinstance(kwargs, dict):  # a RedisCluster keeps them itself
            kwargs = getattr(client, "connection_kwargs", None)
        socket_timeout_s = kwargs.get("socket_timeout") if isinstance(kwargs, dict) else None
    if not isinstance(socket_timeout_s, (int, float)) or socket_timeout_s <= 0:
        return None
    return max(1, int(socket_timeout_s * 500))


def _stream_entries(reply: Any) -> list[tuple[str, str, bytes]]:
    """Return (id, game id, event) of each entry of an XREAD reply for one stream (RESP2 or RESP3)."""
    if isinstance(reply, dict):  # RESP3: {stream: [entries]}
        streams = [entries for wrapped in reply.values() for entries in wrapped]
    else:  # RESP2: [[stream, entries], ...]
        streams = [item[1] for item in reply or ()]
    return [(entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id), fields[b"g"].decode(),
             bytes(fields[b"e"]))
            for entries in streams for entry_id, fields in entries or ()]


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
        event_seq_ttl_s: float = DEFAULT_EVENT_SEQ_TTL_S,
        states_concurrency: int = 16,
    ) -> None:
        """Use a URL (the store owns and closes its clients) or a caller-owned client.

        ``cluster=True`` with a URL of any node talks to a Redis Cluster: notifications are
        SPUBLISHed on each game's shard and read by one SSUBSCRIBE connection per master node
        (``service.redis_feed.ShardedFeed``), which follows slots to their new node after a
        failover. With a caller-owned RedisCluster client (which has no pub/sub), notifications
        are plain PUBLISH, which reaches every node: pass a plain ``pubsub_client`` connected to
        any node.

        ``event_seq_ttl_s``: how long an owner's publish record outlives its last publish (longer
        than any game lives, so no event is published twice). ``states_concurrency``: how many
        reads of other slots ``states`` and ``sweep_index`` keep in flight at once.
        """
        if not prefix or "{" in prefix or "}" in prefix:
            raise ValueError(f"prefix must be non-empty and free of braces: {prefix!r}")
        validate_limits(idle_ttl_s, finished_ttl_s, request_ttl_s, max_requests)
        if not event_seq_ttl_s > 0:
            raise ValueError(f"event_seq_ttl_s must be positive, got {event_seq_ttl_s!r}")
        validate_int("states_concurrency", states_concurrency, 1, 1000)
        # redis-py types each command as returning "value or awaitable of value" (one class serves
        # both its sync and asyncio clients), so the client is held untyped here.
        self._client: Any
        if isinstance(url_or_client, str):
            if cluster:
                self._client = connect_cluster(url_or_client, socket_timeout_s=socket_timeout_s,
                                               connect_timeout_s=connect_timeout_s, max_connections=max_connections)
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
        self._sharded = cluster and isinstance(url_or_client, str)  # SPUBLISH, one feed per master
        notify = (lambda lua: lua.replace("redis.call('PUBLISH', ", "redis.call('SPUBLISH', ")) if self._sharded \
            else (lambda lua: lua)
        self._create_script = _Script(self._client, notify(CREATE_LUA))
        self._commit_script = _Script(self._client, notify(COMMIT_LUA))
        self._recall_script = _Script(self._client, RECALL_LUA)
        self._take_token_script = _Script(self._client, TAKE_TOKEN_LUA)
        self._delete_script = _Script(self._client, DELETE_LUA)
        self._trim_outbox_script = _Script(self._client, TRIM_OUTBOX_LUA)
        self._publish_script = _Script(self._client, PUBLISH_LUA)
        self._claim_due_script = _Script(self._client, CLAIM_DUE_LUA)
        self._settle_script = _Script(self._client, SETTLE_LUA)
        self._index_script = _Script(self._client, INDEX_LUA)
        self._unindex_script = _Script(self._client, UNINDEX_LUA)
        self._list_index_script = _Script(self._client, LIST_INDEX_LUA)
        self._event_seq_ttl_ms = int(event_seq_ttl_s * 1000)
        self._states_concurrency = states_concurrency
        self._block_chunk_ms = _block_chunk_ms(self._client, socket_timeout_s if self._owns_client else None)
        self._pubsub_client: Any = pubsub_client or self._client
        self._connect_kwargs: dict[str, Any] = {"socket_timeout_s": socket_timeout_s,
                                                "connect_timeout_s": connect_timeout_s}
        self._hub: PubSubHub | ShardedFeed = (ShardedFeed(self, watch_timeout_s, liveness_s) if self._sharded
                                              else PubSubHub(self, watch_timeout_s, liveness_s))

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
        *,
        events: Sequence[bytes] = (),
    ) -> None:
        """Store a new game with its first log entries (version = their count) and its first outbox
        events; GameExists if taken."""
        validate_request_id(request_id)
        validate_entries(state, entries)
        events = validate_events(events)
        args: list[Any] = [state, self._idle_ttl_ms, self.key(game_id, "changes"), self._request_ttl_ms,
                           self._max_requests, request_id or "", retry or b"", MAX_OUTBOX, len(events),
                           *events, *entries]
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

    async def commit(self, change: Commit) -> Committed:
        """Replace the state and append log entries (and hand records, and outbox events) if the version
        is still ``change.expected_version``."""
        ttl_ms = self._finished_ttl_ms if change.finished else self._idle_ttl_ms
        args: list[Any] = [change.expected_version, change.state, ttl_ms, self.key(change.game_id, "changes"),
                           self._request_ttl_ms, self._max_requests, change.request_id or "", change.retry or b"",
                           MAX_OUTBOX, len(change.hands), len(change.events), *change.hands, *change.events,
                           *change.entries]
        with unavailable_on_error("commit"):
            reply = await self._commit_script(keys=self._keys(change.game_id), args=args)
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

    async def outbox(self, game_id: str) -> list[bytes]:
        """Return the game's outbox events, oldest first ([] for no such game)."""
        key = self.key(game_id, "outbox")
        with unavailable_on_error("outbox"):
            return list(await self._client.lrange(key, 0, -1))

    async def trim_outbox(self, game_id: str, upto_seq: int) -> int:
        """Drop the outbox's leading events whose seq is at most ``upto_seq``; return how many."""
        key = self.key(game_id, "outbox")
        validate_int("upto_seq", upto_seq, 0, MAX_SEQ)
        with unavailable_on_error("trim_outbox"):
            return int(await self._trim_outbox_script(keys=[key], args=[upto_seq]))

    async def publish(self, owner: str, game_id: str, events: Sequence[bytes], max_len: int) -> int:
        """Append to ``P:events:{owner}``, in order, each event whose seq is above the game's last
        published one (``P:events:{owner}:seq``, refreshed to ``event_seq_ttl_s`` by every publish),
        trimming the stream to about ``max_len`` (MAXLEN ~); returns how many were appended."""
        validate_game_id(game_id)
        events = validate_events(events)
        validate_int("max_len", max_len, 1, MAX_SEQ)
        if not events:
            return 0
        stream = self.events_key(owner)
        with unavailable_on_error("publish"):
            added = await self._publish_script(keys=[stream, stream + ":seq"],
                                               args=[game_id, max_len, self._event_seq_ttl_ms, *events])
        return int(added)

    async def read_events(self, owner: str, after: str, count: int, block_ms: int) -> list[tuple[str, str, bytes]]:
        """Return up to ``count`` (stream id, game id, event) entries of the owner's stream after
        ``after``, oldest first, waiting up to ``block_ms`` for one (XREAD BLOCK, in steps shorter
        than the socket timeout; 0: do not wait)."""
        stream = self.events_key(owner)
        ms, n = parse_stream_id(after)
        validate_int("count", count, 1, MAX_COUNT)
        validate_int("block_ms", block_ms)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + block_ms / 1000
        with unavailable_on_error("read_events"):
            while True:
                wait_ms = 0 if block_ms == 0 else max(1, round((deadline - loop.time()) * 1000))
                if self._block_chunk_ms is not None:
                    wait_ms = min(wait_ms, self._block_chunk_ms)
                reply = await self._client.xread({stream: f"{ms}-{n}"}, count=count, block=wait_ms or None)
                found = _stream_entries(reply)
                if found or block_ms == 0 or loop.time() >= deadline:
                    return found

    async def forget(self, owner: str, game_id: str) -> None:
        """Drop the game's field of the owner's publish record."""
        key = self.events_key(owner) + ":seq"
        validate_game_id(game_id)
        with unavailable_on_error("forget"):
            await self._client.hdel(key, game_id)

    async def schedule(self, game_id: str, at_ms: int) -> None:
        """Make the game due at ``at_ms`` in ``P:due:{<shard>}`` unless it is due earlier (ZADD LT)."""
        key = self.due_key(shard_of(game_id))
        validate_int("at_ms", at_ms)
        with unavailable_on_error("schedule"):
            await self._client.zadd(key, {game_id: at_ms}, lt=True)

    async def claim_due(self, shard: int, now_ms: int, lease_ms: int, count: int) -> list[tuple[str, int]]:
        """Lease up to ``count`` games of the shard due at ``now_ms``, earliest first; each is due
        again at ``now_ms + lease_ms``, the claim token returned with it."""
        key = self.due_key(shard)
        validate_int("now_ms", now_ms)
        validate_int("lease_ms", lease_ms)
        validate_int("count", count, 1, MAX_COUNT)
        token = validate_int("now_ms + lease_ms", now_ms + lease_ms)
        with unavailable_on_error("claim_due"):
            games = await self._claim_due_script(keys=[key], args=[now_ms, token, count])
        return [(game.decode(), token) for game in games]

    async def settle(self, game_id: str, claim: int, next_ms: int | None) -> bool:
        """If the game is still due at ``claim``, make it due at ``next_ms`` or unschedule it (None);
        return whether the claim still held."""
        key = self.due_key(shard_of(game_id))
        validate_int("claim", claim)
        if next_ms is not None:
            validate_int("next_ms", next_ms)
        with unavailable_on_error("settle"):
            held = await self._settle_script(keys=[key], args=[game_id, claim, "" if next_ms is None else next_ms])
        return bool(held)

    async def index_game(self, owner: str, game_id: str, created_ms: int, terms: Sequence[str]) -> None:
        """Index the game in ``P:idx:{owner}:all`` and each ``P:idx:{owner}:t:<term>`` at ``created_ms``;
        its recorded terms (``P:idx:{owner}:terms``) become exactly ``terms``; the owner joins ``P:owners``."""
        validate_game_id(game_id)
        validate_int("created_ms", created_ms)
        unique = validate_terms(terms)
        keys = [self.index_key(owner, "all"), self.index_key(owner, "terms"),
                *(self.index_key(owner, "t:" + term) for term in unique)]
        with unavailable_on_error("index_game"):
            await self._client.sadd(self._owners_key(), owner)  # first: a listed owner may have nothing yet
            await self._index_script(keys=keys, args=[game_id, created_ms, self.index_key(owner, "t:"), *unique])

    async def unindex_game(self, owner: str, game_id: str, terms: Sequence[str] = ()) -> None:
        """Remove the game from the owner's index: ``all``, the given terms and its recorded terms."""
        await self._unindex(owner, {validate_game_id(game_id): validate_terms(terms)}, "unindex_game")

    async def list_index(
        self, owner: str, terms: Sequence[str], before: tuple[int, str] | None, count: int
    ) -> tuple[list[tuple[int, str]], tuple[int, str] | None]:
        """Page through the owner's games in every term's set, newest first, by one script on the
        owner's slot that walks the smallest set and checks the others with ZSCORE (at most
        ``index_scan_bound(count)`` members scanned); the page and the cursor to go on from."""
        unique = validate_terms(terms)
        cursor = validate_cursor(before)
        validate_int("count", count, 1, MAX_COUNT)
        keys = [self.index_key(owner, "t:" + term) for term in unique] or [self.index_key(owner, "all")]
        args: list[Any] = [count, index_scan_bound(count), *(("1", *cursor) if cursor else ("0", 0, ""))]
        with unavailable_on_error("list_index"):
            found, more = await self._list_index_script(keys=keys, args=args)
        page = [(int(found[i]), found[i + 1].decode()) for i in range(0, len(found), 2)]
        return page, (int(more[0]), more[1].decode()) if more else None

    async def loads(self, game_ids: Sequence[str]) -> list[Loaded | None]:
        """Return each game's version and state, None for a missing one, in order (reads of many
        slots, ``states_concurrency`` at a time)."""
        ids = validate_game_ids(game_ids)
        with unavailable_on_error("loads"):
            found = await self._per_game(ids, lambda game_id: self._client.hmget(self.key(game_id, "state"),
                                                                                  ["v", "s"]))
        return [None if version is None else Loaded(int(version), bytes(state or b"")) for version, state in found]

    async def prune_index(
        self, owner: str, game_ids: Sequence[str], terms_of: Mapping[str, Sequence[str]] | None = None
    ) -> int:
        """Remove the games from the owner's index (``all``, recorded terms, any in ``terms_of``);
        return how many were in ``all``."""
        ids = validate_game_ids(game_ids)
        given = {game_id: validate_terms((terms_of or {}).get(game_id, ())) for game_id in ids}
        return await self._unindex(owner, given, "prune_index")

    async def sweep_index(self, owner: str, cursor: int, count: int) -> int:
        """ZSCAN about ``count`` members of the owner's ``all`` set from ``cursor``, look up their
        games' state keys (other slots), and remove the missing games from the whole index; return
        the next ZSCAN cursor (0: the pass is complete)."""
        key = self.index_key(owner, "all")
        validate_int("cursor", cursor, 0, 2**64 - 1)
        validate_int("count", count, 1, MAX_COUNT)
        with unavailable_on_error("sweep_index"):
            following, members = await self._client.zscan(key, cursor, count=count)
        ids = list(dict.fromkeys(member.decode() for member, _ in members))
        if ids:
            with unavailable_on_error("sweep_index"):
                found = await self._per_game(ids, lambda game_id: self._client.exists(self.key(game_id, "state")))
            gone = [game_id for game_id, exists in zip(ids, found, strict=True) if not exists]
            for first in range(0, len(gone), 1000):
                await self._unindex(owner, {game_id: [] for game_id in gone[first:first + 1000]}, "sweep_index")
        return int(following)

    async def owners(self) -> list[str]:
        """Return every owner in ``P:owners`` (owners that ever indexed a game), sorted."""
        with unavailable_on_error("owners"):
            members = await self._client.smembers(self._owners_key())
        return sorted(member.decode() for member in members)

    async def delete(self, game_id: str) -> bool:
        """Remove the game's keys (state, log, hands, req, outbox) in one script; True if it existed."""
        keys = [*self._keys(game_id)]
        with unavailable_on_error("delete"):
            return bool(await self._delete_script(keys=keys, args=[]))

    def events_key(self, owner: str) -> str:
        """Return the key of the owner's event stream ``<prefix>:events:{<owner>}`` (its publish
        record is the same key + ``:seq``)."""
        return f"{self._prefix}:events:{{{validate_owner(owner)}}}"

    def due_key(self, shard: int) -> str:
        """Return the key of a schedule shard ``<prefix>:due:{<n>}``."""
        return f"{self._prefix}:due:{{{validate_int('shard', shard, 0, SHARDS - 1)}}}"

    def index_key(self, owner: str, part: str) -> str:
        """Return the key ``<prefix>:idx:{<owner>}:<part>`` of the owner's index (part: ``all``,
        ``terms``, ``t:<term>``)."""
        return f"{self._prefix}:idx:{{{validate_owner(owner)}}}:{part}"

    def _owners_key(self) -> str:
        """Return the key of the set of owners."""
        return f"{self._prefix}:owners"

    async def _unindex(self, owner: str, terms_of: Mapping[str, Sequence[str]], operation: str) -> int:
        """Run the unindex script on the owner's slot for each game with its given terms."""
        if not terms_of:
            return 0
        args: list[Any] = [self.index_key(owner, "t:")]
        for game_id, terms in terms_of.items():
            args += [game_id, len(terms), *terms]
        keys = [self.index_key(owner, "all"), self.index_key(owner, "terms")]
        with unavailable_on_error(operation):
            return int(await self._unindex_script(keys=keys, args=args))

    async def _per_game(self, game_ids: Sequence[str], read: Any) -> list[Any]:
        """Run one read per game (each on its game's slot), ``states_concurrency`` at a time, in order."""
        gate = asyncio.Semaphore(self._states_concurrency)

        async def one(game_id: str) -> Any:
            async with gate:
                return await read(game_id)

        return list(await asyncio.gather(*(one(game_id) for game_id in game_ids)))

    async def close(self) -> None:
        """End all watches, drop the pub/sub connection and close the client if owned."""
        await self._hub.close()
        if self._owns_client:
            for client in {id(c): c for c in (self._client, self._pubsub_client)}.values():
                with contextlib.suppress(RedisError, OSError):
                    await client.aclose()

    def _keys(self, game_id: str) -> list[str]:
        """Return the KEYS of a write script: state, log, hands, retry records and outbox."""
        return [self.key(game_id, part) for part in ("state", "log", "hands", "req", "outbox")]

    async def pubsub(self, after_failure: bool) -> PubSub:
        """Return a new PubSub object for the (unsharded) watch hub."""
        return self._pubsub_client.pubsub()

    def node_client(self, host: str, port: int) -> Redis:
        """A plain client of one cluster node for its sharded change feed (no health-check
        PINGs: the connection is in pub/sub mode)."""
        return connect(f"redis://{host}:{port}/0", health_check_interval_s=0, **self._connect_kwargs)
