"""MemoryStore: the Store contract in one process (the embedded default without REDIS_URL).

Every method runs without awaiting between its check and its writes, so on one event loop
each call is atomic, exactly like the Redis Lua scripts. TTLs are honoured lazily against an
injectable monotonic clock, with a sweep of expired entries at most once a minute; the sweep
also drops the index entries and publish records of games that no longer exist (a game's
outbox goes with the game). Event stream ids are made from the wall clock, ``<ms>-<n>``,
always increasing; a blocked ``read_events`` waits on an asyncio condition that ``publish``
notifies.
"""

from __future__ import annotations

import asyncio
import bisect
import hashlib
import heapq
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from dataclasses import dataclass, field

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
    event_seq,
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

SWEEP_INTERVAL_S = 60.0


@dataclass
class _Game:
    """One stored game: version, state, log, hand records, retry records and expiry time."""

    version: int
    state: bytes
    log: list[bytes]
    expires_at: float
    hands: list[bytes] = field(default_factory=list)
    retries: OrderedDict[str, tuple[float, bytes]] = field(default_factory=OrderedDict)
    outbox: list[bytes] = field(default_factory=list)


class _SortedSet:
    """Members scored by ints, kept in (score, member) order as a Redis sorted set keeps them."""

    def __init__(self) -> None:
        """Start empty."""
        self.scores: dict[str, int] = {}
        self.order: list[tuple[int, str]] = []

    def __len__(self) -> int:
        """Return the number of members."""
        return len(self.scores)

    def add(self, member: str, score: int) -> None:
        """Add the member with this score, or move it to this score."""
        old = self.scores.get(member)
        if old == score:
            return
        if old is not None:
            del self.order[bisect.bisect_left(self.order, (old, member))]
        self.scores[member] = score
        bisect.insort(self.order, (score, member))

    def remove(self, member: str) -> bool:
        """Remove the member; return whether it was there."""
        old = self.scores.pop(member, None)
        if old is None:
            return False
        del self.order[bisect.bisect_left(self.order, (old, member))]
        return True


@dataclass
class _OwnerIndex:
    """One owner's index: every game, one set per term, and the terms of each game."""

    all: _SortedSet = field(default_factory=_SortedSet)
    terms: dict[str, _SortedSet] = field(default_factory=dict)
    game_terms: dict[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass
class _Stream:
    """One owner's event stream (at most the ``max_len`` of the last publish) and its publish record."""

    entries: list[tuple[tuple[int, int], str, bytes]] = field(default_factory=list)
    last_id: tuple[int, int] = (0, 0)
    seq: dict[str, int] = field(default_factory=dict)
    seq_expires_at: float = 0.0


def _sweep_order(game_id: str) -> int:
    """Return a game's place in a sweep_index pass (1..2**56, stable while the index changes)."""
    return int.from_bytes(hashlib.sha1(game_id.encode()).digest()[:7], "big") + 1


class MemoryStore:
    """In-process Store with the same semantics as RedisStore (one event loop only)."""

    def __init__(
        self,
        *,
        idle_ttl_s: float = DEFAULT_IDLE_TTL_S,
        finished_ttl_s: float = DEFAULT_FINISHED_TTL_S,
        request_ttl_s: float = DEFAULT_REQUEST_TTL_S,
        max_requests: int = DEFAULT_MAX_REQUESTS,
        clock: Callable[[], float] = time.monotonic,
        event_seq_ttl_s: float = DEFAULT_EVENT_SEQ_TTL_S,
    ) -> None:
        """Create an empty store; ``clock`` returns seconds and may be faked in tests;
        ``event_seq_ttl_s`` is how long an owner's publish record outlives its last publish."""
        validate_limits(idle_ttl_s, finished_ttl_s, request_ttl_s, max_requests)
        if not event_seq_ttl_s > 0:
            raise ValueError(f"event_seq_ttl_s must be positive, got {event_seq_ttl_s!r}")
        self._event_seq_ttl_s = event_seq_ttl_s
        self._idle_ttl_s = idle_ttl_s
        self._finished_ttl_s = finished_ttl_s
        self._request_ttl_s = request_ttl_s
        self._max_requests = max_requests
        self._clock = clock
        self._games: dict[str, _Game] = {}
        self._watchers: dict[str, set[Watcher]] = {}
        self._buckets: dict[str, tuple[float, float, float]] = {}  # name -> (tokens, at, full at)
        self._streams: dict[str, _Stream] = {}
        self._published = asyncio.Condition()
        self._due: list[dict[str, int]] = [{} for _ in range(SHARDS)]
        self._index: dict[str, _OwnerIndex] = {}
        self._owners: set[str] = set()
        self._next_sweep = clock() + SWEEP_INTERVAL_S
        self._closed = False

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
        validate_game_id(game_id)
        validate_request_id(request_id)
        validate_entries(state, entries)
        events = validate_events(events)
        self._check_open()
        now = self._now()
        if self._live_game(game_id, now) is not None:
            raise GameExists(game_id)
        game = self._games[game_id] = _Game(len(entries), state, list(entries), now + self._idle_ttl_s,
                                            outbox=events[-MAX_OUTBOX:])
        if request_id is not None:
            self._remember(game, request_id, retry, now)
        self._publish(game_id, game.version)

    async def load(self, game_id: str) -> Loaded | None:
        """Return the game's version and state, or None when there is no such game."""
        validate_game_id(game_id)
        self._check_open()
        game = self._live_game(game_id, self._now())
        return None if game is None else Loaded(game.version, game.state)

    async def commit(self, change: Commit) -> Committed:
        """Replace the state and append log entries (and hand records, and outbox events) if the version
        is still ``change.expected_version``."""
        game_id, request_id, events = change.game_id, change.request_id, change.events
        self._check_open()
        now = self._now()
        game = self._live_game(game_id, now)
        current = 0 if game is None else game.version
        if game is not None and request_id is not None:
            replay = self._recall(game, request_id, now)
            if replay is not None:
                return Committed(False, current, replay)
        if game is None or current != change.expected_version:
            return Committed(False, current, None)
        game.log.extend(change.entries)
        game.version += len(change.entries)
        game.state = change.state
        game.hands.extend(change.hands)
        if events:
            game.outbox.extend(events)
            del game.outbox[:-MAX_OUTBOX]
        game.expires_at = now + (self._finished_ttl_s if change.finished else self._idle_ttl_s)
        if request_id is not None:
            self._remember(game, request_id, change.retry, now)
        self._publish(game_id, game.version)
        return Committed(True, game.version, None)

    async def get_retry(self, game_id: str, request_id: str) -> bytes | None:
        """Return the retry record kept for this request id, or None."""
        validate_game_id(game_id)
        validate_request_id(request_id)
        self._check_open()
        now = self._now()
        game = self._live_game(game_id, now)
        return None if game is None else self._recall(game, request_id, now)

    async def hands(self, game_id: str, start: int = 0, count: int | None = None) -> list[bytes]:
        """Return the hand records appended by commits from index ``start`` (``count`` of them, or all
        the rest), oldest first ([] for no such game)."""
        validate_game_id(game_id)
        self._check_open()
        game = self._live_game(game_id, self._now())
        if game is None:
            return []
        return game.hands[max(start, 0):None if count is None else max(start, 0) + max(count, 0)]

    async def log_after(self, game_id: str, version: int, until: int | None = None) -> list[tuple[int, bytes]]:
        """Return (version, entry) pairs with versions above ``version`` (and at most ``until``), ascending."""
        validate_game_id(game_id)
        self._check_open()
        game = self._live_game(game_id, self._now())
        if game is None:
            return []
        first = max(version, 0)
        entries = game.log[first:until]
        return list(enumerate(entries, first + 1))

    async def watch(self, game_id: str) -> AsyncGenerator[int, None]:
        """Yield the game's current version (0 if none), then every newer version."""
        validate_game_id(game_id)
        self._check_open()
        watcher = Watcher()
        group = self._watchers.setdefault(game_id, set())
        group.add(watcher)
        try:
            game = self._live_game(game_id, self._now())
            watcher.notify(0 if game is None else game.version)
            while (version := await watcher.next()) is not None:
                yield version
        finally:
            group.discard(watcher)
            if not group and self._watchers.get(game_id) is group:
                del self._watchers[game_id]

    async def ping(self) -> None:
        """Return at once: an in-process store is always reachable until closed."""
        self._check_open()

    async def version(self, game_id: str) -> int:
        """Return the game's current version, 0 when there is no such game."""
        validate_game_id(game_id)
        self._check_open()
        game = self._live_game(game_id, self._now())
        return 0 if game is None else game.version

    async def eviction_policy(self) -> str | None:
        """None: an in-process store never evicts."""
        return None

    async def take_token(self, bucket: str, rate_per_s: float, burst: int) -> float:
        """Take one token from a bucket refilled at ``rate_per_s`` up to ``burst`` (0.0 when taken,
        else seconds to wait); a bucket that has refilled is forgotten by the next sweep."""
        validate_bucket(bucket, rate_per_s, burst)
        self._check_open()
        now = self._now()
        tokens, at, _ = self._buckets.get(bucket, (float(burst), now, now))
        tokens = min(float(burst), tokens + (now - at) * rate_per_s)
        if tokens < 1.0:
            self._buckets[bucket] = (tokens, now, now + (burst - tokens) / rate_per_s)
            return (1.0 - tokens) / rate_per_s
        tokens -= 1.0
        self._buckets[bucket] = (tokens, now, now + (burst - tokens) / rate_per_s)
        return 0.0

    async def outbox(self, game_id: str) -> list[bytes]:
        """Return the game's outbox events, oldest first ([] for no such game)."""
        validate_game_id(game_id)
        self._check_open()
        game = self._live_game(game_id, self._now())
        return [] if game is None else list(game.outbox)

    async def trim_outbox(self, game_id: str, upto_seq: int) -> int:
        """Drop the outbox's leading events whose seq is at most ``upto_seq``; return how many."""
        validate_game_id(game_id)
        validate_int("upto_seq", upto_seq, 0, MAX_SEQ)
        self._check_open()
        game = self._live_game(game_id, self._now())
        if game is None:
            return 0
        dropped = 0
        while dropped < len(game.outbox) and event_seq(game.outbox[dropped]) <= upto_seq:
            dropped += 1
        del game.outbox[:dropped]
        return dropped

    async def publish(self, owner: str, game_id: str, events: Sequence[bytes], max_len: int) -> int:
        """Append to the owner's stream, in order, each event whose seq is above the game's last
        published one, keeping the latest ``max_len`` entries; returns how many were appended."""
        validate_owner(owner)
        validate_game_id(game_id)
        events = validate_events(events)
        validate_int("max_len", max_len, 1, MAX_SEQ)
        self._check_open()
        now = self._now()
        if not events:
            return 0
        stream = self._streams.setdefault(owner, _Stream())
        if stream.seq_expires_at <= now:
            stream.seq.clear()
        last = stream.seq.get(game_id, -1)
        added = 0
        for event in events:
            seq = event_seq(event)
            if seq > last:
                ms = int(time.time() * 1000)
                stream.last_id = (ms, 0) if ms > stream.last_id[0] else (stream.last_id[0], stream.last_id[1] + 1)
                stream.entries.append((stream.last_id, game_id, event))
                last = seq
                added += 1
        if added:
            stream.seq[game_id] = last
            del stream.entries[:-max_len]
        if stream.seq:
            stream.seq_expires_at = now + self._event_seq_ttl_s
        if added:
            async with self._published:
                self._published.notify_all()
        return added

    async def read_events(self, owner: str, after: str, count: int, block_ms: int) -> list[tuple[str, str, bytes]]:
        """Return up to ``count`` (stream id, game id, event) entries of the owner's stream after
        ``after``, oldest first, waiting up to ``block_ms`` for one (0: do not wait)."""
        validate_owner(owner)
        after_id = parse_stream_id(after)
        validate_int("count", count, 1, MAX_COUNT)
        validate_int("block_ms", block_ms)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + block_ms / 1000
        async with self._published:
            while True:
                self._check_open()
                stream = self._streams.get(owner)
                if stream is not None:
                    first = bisect.bisect_right(stream.entries, after_id, key=lambda entry: entry[0])
                    found = stream.entries[first:first + count]
                    if found:
                        return [(f"{ms}-{n}", game_id, event) for (ms, n), game_id, event in found]
                remaining = deadline - loop.time()
                if block_ms == 0 or remaining <= 0:
                    return []
                try:
                    async with asyncio.timeout(remaining):
                        await self._published.wait()
                except TimeoutError:
                    pass

    async def forget(self, owner: str, game_id: str) -> None:
        """Drop the game's entry of the owner's publish record."""
        validate_owner(owner)
        validate_game_id(game_id)
        self._check_open()
        stream = self._streams.get(owner)
        if stream is not None:
            stream.seq.pop(game_id, None)

    async def schedule(self, game_id: str, at_ms: int) -> None:
        """Make the game due at ``at_ms`` unless it is already due earlier."""
        shard = self._due[shard_of(game_id)]
        validate_int("at_ms", at_ms)
        self._check_open()
        if shard.get(game_id, at_ms) >= at_ms:
            shard[game_id] = at_ms

    async def claim_due(self, shard: int, now_ms: int, lease_ms: int, count: int) -> list[tuple[str, int]]:
        """Lease up to ``count`` games of the shard due at ``now_ms``, earliest first (ties: by id);
        each is due again at ``now_ms + lease_ms``, the claim token returned with it."""
        validate_int("shard", shard, 0, SHARDS - 1)
        validate_int("now_ms", now_ms)
        validate_int("lease_ms", lease_ms)
        validate_int("count", count, 1, MAX_COUNT)
        token = validate_int("now_ms + lease_ms", now_ms + lease_ms)
        self._check_open()
        due = self._due[shard]
        claimed = heapq.nsmallest(count, ((at, game_id) for game_id, at in due.items() if at <= now_ms))
        for _, game_id in claimed:
            due[game_id] = token
        return [(game_id, token) for _, game_id in claimed]

    async def settle(self, game_id: str, claim: int, next_ms: int | None) -> bool:
        """If the game is still due at ``claim``, make it due at ``next_ms`` or unschedule it (None);
        return whether the claim still held."""
        due = self._due[shard_of(game_id)]
        validate_int("claim", claim)
        if next_ms is not None:
            validate_int("next_ms", next_ms)
        self._check_open()
        if due.get(game_id) != claim:
            return False
        if next_ms is None:
            del due[game_id]
        else:
            due[game_id] = next_ms
        return True

    async def index_game(self, owner: str, game_id: str, created_ms: int, terms: Sequence[str]) -> None:
        """Index the game for its owner at ``created_ms`` in ``all`` and each term's set; its recorded
        terms become exactly ``terms``."""
        validate_owner(owner)
        validate_game_id(game_id)
        validate_int("created_ms", created_ms)
        unique = validate_terms(terms)
        self._check_open()
        self._now()
        self._owners.add(owner)
        index = self._index.setdefault(owner, _OwnerIndex())
        for term in index.game_terms.get(game_id, ()):
            if term not in unique:
                self._leave_term(index, term, game_id)
        index.all.add(game_id, created_ms)
        for term in unique:
            index.terms.setdefault(term, _SortedSet()).add(game_id, created_ms)
        if unique:
            index.game_terms[game_id] = tuple(unique)
        else:
            index.game_terms.pop(game_id, None)

    async def unindex_game(self, owner: str, game_id: str, terms: Sequence[str] = ()) -> None:
        """Remove the game from the owner's index: ``all``, the given terms and its recorded terms."""
        validate_owner(owner)
        validate_game_id(game_id)
        unique = validate_terms(terms)
        self._check_open()
        self._unindex(owner, {game_id: unique})

    async def list_index(
        self, owner: str, terms: Sequence[str], before: tuple[int, str] | None, count: int
    ) -> tuple[list[tuple[int, str]], tuple[int, str] | None]:
        """Page through the owner's games in every term's set, newest first, walking the smallest
        set (the first of equal ones) for at most ``index_scan_bound(count)`` members; the page and
        the cursor to go on from (None once the walk reached the end)."""
        validate_owner(owner)
        unique = validate_terms(terms)
        cursor = validate_cursor(before)
        validate_int("count", count, 1, MAX_COUNT)
        self._check_open()
        index = self._index.get(owner)
        if index is None:
            return [], None
        sets = [index.terms.get(term) for term in unique] if unique else [index.all]
        present = [found for found in sets if found]
        if len(present) < len(sets):
            return [], None
        walk = min(range(len(present)), key=lambda i: len(present[i]))
        walked, others = present[walk], [found for i, found in enumerate(present) if i != walk]
        pos = len(walked.order) if cursor is None else bisect.bisect_left(walked.order, cursor)
        page: list[tuple[int, str]] = []
        last: tuple[int, str] | None = None
        scanned, bound = 0, index_scan_bound(count)
        while pos > 0 and scanned < bound and len(page) < count:
            pos -= 1
            scanned += 1
            last = walked.order[pos]
            if all(last[1] in other.scores for other in others):
                page.append(last)
        return page, (last if last is not None and pos > 0 else None)

    async def loads(self, game_ids: Sequence[str]) -> list[Loaded | None]:
        """Return each game's version and state, None for a missing one, in order."""
        ids = validate_game_ids(game_ids)
        self._check_open()
        now = self._now()
        games = [self._live_game(game_id, now) for game_id in ids]
        return [None if game is None else Loaded(game.version, game.state) for game in games]

    async def prune_index(
        self, owner: str, game_ids: Sequence[str], terms_of: Mapping[str, Sequence[str]] | None = None
    ) -> int:
        """Remove the games from the owner's index (``all``, recorded terms, any in ``terms_of``);
        return how many were in ``all``."""
        validate_owner(owner)
        ids = validate_game_ids(game_ids)
        given = {game_id: validate_terms((terms_of or {}).get(game_id, ())) for game_id in ids}
        self._check_open()
        return self._unindex(owner, given)

    async def sweep_index(self, owner: str, cursor: int, count: int) -> int:
        """Visit ``count`` members of the owner's ``all`` set from ``cursor`` (in an order that
        insertions and removals do not disturb) and remove those whose game no longer exists from
        the whole index; return the next cursor (0: the pass is complete)."""
        validate_owner(owner)
        validate_int("cursor", cursor, 0, 2**64 - 1)
        validate_int("count", count, 1, MAX_COUNT)
        self._check_open()
        now = self._now()
        index = self._index.get(owner)
        if index is None:
            return 0
        ahead = sorted((place, game_id) for game_id in index.all.scores
                       if (place := _sweep_order(game_id)) >= cursor)
        end = min(count, len(ahead))
        while 0 < end < len(ahead) and ahead[end][0] == ahead[end - 1][0]:
            end += 1  # games sharing a place are visited together
        gone = [game_id for _, game_id in ahead[:end] if self._live_game(game_id, now) is None]
        self._unindex(owner, {game_id: [] for game_id in gone})
        return 0 if end == len(ahead) else ahead[end - 1][0] + 1

    async def owners(self) -> list[str]:
        """Return every owner that ever indexed a game, sorted."""
        self._check_open()
        return sorted(self._owners)

    async def delete(self, game_id: str) -> bool:
        """Remove the game (state, log, hands, retry records, outbox); True if it existed."""
        validate_game_id(game_id)
        self._check_open()
        existed = self._live_game(game_id, self._now()) is not None
        self._games.pop(game_id, None)
        return existed

    async def close(self) -> None:
        """Drop every game, end all watches and wake every blocked read_events (which then fails)."""
        self._closed = True
        for group in self._watchers.values():
            for watcher in group:
                watcher.end()
        self._games.clear()
        self._streams.clear()
        self._index.clear()
        self._due = [{} for _ in range(SHARDS)]
        async with self._published:
            self._published.notify_all()

    def _check_open(self) -> None:
        """Raise StoreUnavailable once the store is closed."""
        if self._closed:
            raise StoreUnavailable("memory store is closed")

    def _now(self) -> float:
        """Return the clock, sweeping expired entries when a sweep is due."""
        now = self._clock()
        if now >= self._next_sweep:
            self._next_sweep = now + SWEEP_INTERVAL_S
            self._games = {k: g for k, g in self._games.items() if g.expires_at > now}
            self._buckets = {k: b for k, b in self._buckets.items() if b[2] > now}
            for owner, index in list(self._index.items()):
                self._unindex(owner, {game_id: () for game_id in index.all.scores if game_id not in self._games})
            for stream in self._streams.values():
                if stream.seq_expires_at <= now:
                    stream.seq.clear()
                else:
                    stream.seq = {k: seq for k, seq in stream.seq.items() if k in self._games}
        return now

    def _unindex(self, owner: str, terms_of: Mapping[str, Sequence[str]]) -> int:
        """Remove each game from the owner's ``all``, its given and its recorded terms; return how
        many were in ``all``. An index left empty is dropped."""
        index = self._index.get(owner)
        if index is None:
            return 0
        removed = 0
        for game_id, given in terms_of.items():
            removed += index.all.remove(game_id)
            for term in (*given, *index.game_terms.pop(game_id, ())):
                self._leave_term(index, term, game_id)
        if not index.all and not index.terms:
            del self._index[owner]
        return removed

    @staticmethod
    def _leave_term(index: _OwnerIndex, term: str, game_id: str) -> None:
        """Remove the game from one term's set, dropping the set once empty."""
        found = index.terms.get(term)
        if found is not None and found.remove(game_id) and not found:
            del index.terms[term]

    def _live_game(self, game_id: str, now: float) -> _Game | None:
        """Return the game unless it is missing or expired (expired ones are dropped)."""
        game = self._games.get(game_id)
        if game is not None and game.expires_at <= now:
            del self._games[game_id]
            return None
        return game

    def _recall(self, game: _Game, request_id: str, now: float) -> bytes | None:
        """Return the game's retry record for this request id unless missing or expired."""
        kept = game.retries.get(request_id)
        return None if kept is None or now - kept[0] >= self._request_ttl_s else kept[1]

    def _remember(self, game: _Game, request_id: str, retry: bytes | None, now: float) -> None:
        """Keep a retry record, dropping the game's oldest beyond ``max_requests``."""
        game.retries[request_id] = (now, retry or b"")
        while len(game.retries) > self._max_requests:
            game.retries.popitem(last=False)

    def _publish(self, game_id: str, version: int) -> None:
        """Tell every watcher of the game about the new version."""
        group = self._watchers.get(game_id)
        if group is not None:
            for watcher in group:
                watcher.notify(version)
