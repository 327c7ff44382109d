"""A game store that checks every argument once, before the store it wraps sees the call.

The back-ends (``MemoryStore``, ``RedisStore``) take their arguments as given; ``checked`` puts
the port's checks (``service.store.ports.validation``) in front of one: a bad argument (a game id
with a brace, a count out of range, a malformed event, ...) raises ValueError and the back-end is
not called. Checked arguments are handed on in the form the checks return them (sequences as
lists, terms without repeats). A ``Commit`` checks itself when it is made. ``open_store`` returns
a checked store; ``metered`` may wrap it in turn.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Mapping, Sequence

from service.store.port import (
    MAX_COUNT,
    MAX_OWNER_LENGTH,
    MAX_SEQ,
    SHARDS,
    Commit,
    Committed,
    Loaded,
    ScheduleWatch,
    ShardLeases,
    Store,
    parse_stream_id,
    validate_bucket,
    validate_cursor,
    validate_entries,
    validate_events,
    validate_game_id,
    validate_game_ids,
    validate_int,
    validate_owner,
    validate_request_id,
    validate_terms,
)


class CheckedStore:
    """Wraps a Store (``inner``): every call checks its arguments (ValueError), then delegates."""

    def __init__(self, inner: Store) -> None:
        """Check the calls to ``inner``."""
        self.inner = inner

    # --- games

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
        """Store a new game with its first log entries and outbox events; GameExists if taken."""
        validate_game_id(game_id)
        validate_request_id(request_id)
        validate_entries(state, entries)
        checked_events = validate_events(events)
        await self.inner.create(game_id, state, list(entries), request_id, retry, events=checked_events)

    async def load(self, game_id: str) -> Loaded | None:
        """Return the game's version and state, or None when there is no such game."""
        return await self.inner.load(validate_game_id(game_id))

    async def loads(self, game_ids: Sequence[str]) -> list[Loaded | None]:
        """Return each game as ``load`` has it, None for a missing one, in order."""
        return await self.inner.loads(validate_game_ids(game_ids))

    async def commit(self, change: Commit) -> Committed:
        """Compare-and-set the game (a Commit has checked itself when it was made)."""
        if not isinstance(change, Commit):
            raise ValueError(f"commit takes a Commit, got {type(change).__name__}")
        return await self.inner.commit(change)

    async def hands(self, game_id: str, start: int = 0, count: int | None = None) -> list[bytes]:
        """Return the hand records from index ``start`` (``count`` of them, or all the rest)."""
        return await self.inner.hands(validate_game_id(game_id), start, count)

    async def get_retry(self, game_id: str, request_id: str) -> bytes | None:
        """Return the retry record kept for this request id, or None."""
        validate_game_id(game_id)
        validate_request_id(request_id)
        return await self.inner.get_retry(game_id, request_id)

    async def log_after(self, game_id: str, version: int, until: int | None = None) -> list[tuple[int, bytes]]:
        """Return (version, entry) pairs with versions above ``version`` (and at most ``until``), ascending."""
        return await self.inner.log_after(validate_game_id(game_id), version, until)

    async def watch(self, game_id: str) -> AsyncGenerator[int, None]:
        """Yield the game's current version once subscribed, then every newer version (the id is
        checked on the first step, as a back-end's watch would)."""
        validate_game_id(game_id)
        async with contextlib.aclosing(self.inner.watch(game_id)) as versions:
            async for version in versions:
                yield version

    async def version(self, game_id: str) -> int:
        """Return the game's current version, 0 when there is no such game."""
        return await self.inner.version(validate_game_id(game_id))

    async def delete(self, game_id: str) -> bool:
        """Remove the game's own keys; True if it existed."""
        return await self.inner.delete(validate_game_id(game_id))

    # --- events

    async def outbox(self, game_id: str) -> list[bytes]:
        """Return the game's outbox events, oldest first."""
        return await self.inner.outbox(validate_game_id(game_id))

    async def trim_outbox(self, game_id: str, upto_seq: int) -> int:
        """Drop the outbox's leading events whose seq is at most ``upto_seq``; return how many."""
        validate_game_id(game_id)
        validate_int("upto_seq", upto_seq, 0, MAX_SEQ)
        return await self.inner.trim_outbox(game_id, upto_seq)

    async def publish(self, owner: str, game_id: str, events: Sequence[bytes], max_len: int) -> int:
        """Append the game's events not yet published to the owner's stream; return how many."""
        validate_owner(owner)
        validate_game_id(game_id)
        checked_events = validate_events(events)
        validate_int("max_len", max_len, 1, MAX_SEQ)
        return await self.inner.publish(owner, game_id, checked_events, max_len)

    async def read_events(self, owner: str, after: str, count: int, block_ms: int) -> list[tuple[str, str, bytes]]:
        """Return up to ``count`` entries of the owner's stream after ``after``, waiting up to ``block_ms``."""
        validate_owner(owner)
        parse_stream_id(after)
        validate_int("count", count, 1, MAX_COUNT)
        validate_int("block_ms", block_ms)
        return await self.inner.read_events(owner, after, count, block_ms)

    async def forget(self, owner: str, game_id: str) -> None:
        """Drop the game's record of the last seq published to the owner's stream."""
        validate_owner(owner)
        validate_game_id(game_id)
        await self.inner.forget(owner, game_id)

    # --- schedule

    async def schedule(self, game_id: str, at_ms: int) -> int | None:
        """Make the game due at ``at_ms`` unless it is already due earlier; its time before, if any."""
        validate_game_id(game_id)
        validate_int("at_ms", at_ms)
        return await self.inner.schedule(game_id, at_ms)

    async def claim_due(self, shard: int, now_ms: int, lease_ms: int, count: int) -> list[tuple[str, int]]:
        """Lease up to ``count`` games of the shard due at ``now_ms`` until ``now_ms + lease_ms``."""
        validate_int("shard", shard, 0, SHARDS - 1)
        validate_int("now_ms", now_ms)
        validate_int("lease_ms", lease_ms)
        validate_int("count", count, 1, MAX_COUNT)
        validate_int("now_ms + lease_ms", now_ms + lease_ms)
        return await self.inner.claim_due(shard, now_ms, lease_ms, count)

    async def settle(self, game_id: str, claim: int, next_ms: int | None) -> bool:
        """If the game is still due at ``claim``, make it due at ``next_ms`` (None: unschedule it)."""
        validate_game_id(game_id)
        validate_int("claim", claim)
        if next_ms is not None:
            validate_int("next_ms", next_ms)
        return await self.inner.settle(game_id, claim, next_ms)

    async def next_due(self, shard: int) -> int | None:
        """Return the shard's earliest time, None when it is empty."""
        validate_int("shard", shard, 0, SHARDS - 1)
        return await self.inner.next_due(shard)

    async def lease_shards(self, sweeper: str, now_ms: int, ttl_ms: int) -> ShardLeases:
        """Renew the sweeper's membership until ``now_ms + ttl_ms`` (1 ms .. 1 day); its shards."""
        validate_int("now_ms", now_ms)
        validate_int("ttl_ms", ttl_ms, 1, 86_400_000)
        validate_int("now_ms + ttl_ms", now_ms + ttl_ms)
        return await self.inner.lease_shards(_sweeper(sweeper), now_ms, ttl_ms)

    async def sweepers_present(self, sweepers: Sequence[str]) -> bool | None:
        """Whether every named sweeper's watch is still open (at most SHARDS names)."""
        if isinstance(sweepers, str) or len(sweepers) > SHARDS:
            raise ValueError(f"sweepers_present takes a sequence of at most {SHARDS} names")
        return await self.inner.sweepers_present([_sweeper(who) for who in sweepers])

    async def release_shards(self, sweeper: str) -> None:
        """End the sweeper's membership and free its shards."""
        await self.inner.release_shards(_sweeper(sweeper))

    async def sweep_watch(self, sweeper: str) -> ScheduleWatch:
        """Open the sweeper's watch: its presence and its wake-ups."""
        return await self.inner.sweep_watch(_sweeper(sweeper))

    # --- index

    async def index_game(self, owner: str, game_id: str, created_ms: int, terms: Sequence[str]) -> None:
        """Index the game for its owner at ``created_ms`` under exactly these terms."""
        validate_owner(owner)
        validate_game_id(game_id)
        validate_int("created_ms", created_ms)
        await self.inner.index_game(owner, game_id, created_ms, validate_terms(terms))

    async def unindex_game(self, owner: str, game_id: str, terms: Sequence[str] = ()) -> None:
        """Remove the game from the owner's index: ``all``, the given terms and its recorded terms."""
        validate_owner(owner)
        validate_game_id(game_id)
        await self.inner.unindex_game(owner, game_id, validate_terms(terms))

    async def list_index(
        self, owner: str, terms: Sequence[str], before: tuple[int, str] | None, count: int
    ) -> tuple[list[tuple[int, str]], tuple[int, str] | None]:
        """Page through the owner's games in every term's set, newest first, after ``before``."""
        validate_owner(owner)
        unique = validate_terms(terms)
        cursor = validate_cursor(before)
        validate_int("count", count, 1, MAX_COUNT)
        return await self.inner.list_index(owner, unique, cursor, count)

    async def prune_index(
        self, owner: str, game_ids: Sequence[str], terms_of: Mapping[str, Sequence[str]] | None = None
    ) -> int:
        """Remove the games from the owner's index; return how many were in ``all``."""
        validate_owner(owner)
        ids = validate_game_ids(game_ids)
        given = {game_id: validate_terms((terms_of or {}).get(game_id, ())) for game_id in ids}
        return await self.inner.prune_index(owner, ids, given)

    async def sweep_index(self, owner: str, cursor: int, count: int) -> int:
        """Remove the games gone of about ``count`` members of the owner's index; return the next cursor."""
        validate_owner(owner)
        validate_int("cursor", cursor, 0, 2**64 - 1)
        validate_int("count", count, 1, MAX_COUNT)
        return await self.inner.sweep_index(owner, cursor, count)

    async def count_index(self, owner: str) -> int:
        """Return how many games the owner's ``all`` set holds."""
        validate_owner(owner)
        return await self.inner.count_index(owner)

    async def owners(self) -> list[str]:
        """Return every owner that ever indexed a game, sorted."""
        return await self.inner.owners()

    # --- rate limits, health, end

    async def take_token(self, bucket: str, rate_per_s: float, burst: int) -> float:
        """Take one token from a rate-limit bucket; 0.0 when taken, else the seconds to wait."""
        validate_bucket(bucket, rate_per_s, burst)
        return await self.inner.take_token(bucket, rate_per_s, burst)

    async def ping(self) -> None:
        """Raise StoreUnavailable unless the store answers."""
        await self.inner.ping()

    async def eviction_policy(self) -> str | None:
        """The store's key-eviction policy, None when it has none or hides it."""
        return await self.inner.eviction_policy()

    async def close(self) -> None:
        """Release connections and end all watches."""
        await self.inner.close()


def checked(store: Store) -> Store:
    """``store``, with every argument of its calls checked first (once, however often wrapped)."""
    return store if isinstance(store, CheckedStore) else CheckedStore(store)


def _sweeper(name: str) -> str:
    """Return a sweeper's name if usable in keys and channels (1..MAX_OWNER_LENGTH characters, no
    braces or whitespace); else ValueError."""
    if not isinstance(name, str) or not name or len(name) > MAX_OWNER_LENGTH:
        raise ValueError(f"a sweeper's name has 1 to {MAX_OWNER_LENGTH} characters, got {name!r:.40}")
    if "{" in name or "}" in name or any(c.isspace() for c in name):
        raise ValueError(f"a sweeper's name has no braces or spaces: {name!r}")
    return name
