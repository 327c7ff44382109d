"""The game store interface: load a game, compare-and-set it back, its log, retries, watch.

A store keeps, per game: the opaque state bytes and their version; the game's log, one opaque
entry per version (version 1 is the first entry); the list of finished hands' score records
(only ever appended to, and kept out of the state so the state read and written on every move
stays small); the retry records of the game's latest ``max_requests`` request ids (each kept
``request_ttl_s`` at most); and a change feed. Two implementations pass one contract suite
(tests/test_store_contract.py): ``RedisStore`` (service/store_redis.py, shared by many server
processes) and ``MemoryStore`` (service/store_memory.py, one process; the default of
``make run`` without ``REDIS_URL``).

A commit of ``n`` entries moves the version from ``v`` to ``v + n``; ``create`` stores the first
entries, so a game created with ``n`` entries is at version ``n``. Version 0 means "no such game".

Around the games, for their lifecycle:

- **Outbox and events.** A create or commit may carry events (``b"<seq> <opaque>"``, the seq a
  per-game decimal number chosen by the caller, ascending); they join the game's outbox (at
  most ``MAX_OUTBOX``, the oldest dropped) in the same atomic step as the write. ``publish``
  copies a game's events to its owner's event stream exactly once each (a per-owner record of
  the last seq published per game, kept ``event_seq_ttl_s`` after the owner's last publish),
  and ``read_events`` reads that stream, waiting for new entries if asked.
- **Schedule.** ``SHARDS`` sorted sets of game ids scored by epoch milliseconds (the caller's
  clock): ``schedule`` only ever moves a game's time earlier, ``claim_due`` leases due games
  (their score becomes the lease's end, which is the claim token) and ``settle`` reschedules
  or drops a game only if its score is still that token.
- **Index.** Per owner, the games newest first (``all``) and one set per search term, each
  scored by the game's creation time; ``list_index`` pages through the games in every given
  term, scanning a bounded number of members per call. The terms of each indexed game are
  recorded, so removing a game from the index (``unindex_game``, ``prune_index``,
  ``sweep_index``) reaches every term set it is in without scanning them.
- ``delete`` removes a game's own keys; ``forget`` its publish record.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import AsyncGenerator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

DEFAULT_IDLE_TTL_S = 7 * 86400
DEFAULT_FINISHED_TTL_S = 86400
DEFAULT_REQUEST_TTL_S = 86400
DEFAULT_MAX_REQUESTS = 64
MAX_ID_LENGTH = 256
MAX_OUTBOX = 1000  # events kept in a game's outbox (the oldest are dropped)
SHARDS = 16  # schedule shards: P:due:{0} .. P:due:{15}
MAX_OWNER_LENGTH = 128
MAX_TERM_LENGTH = 300
MAX_TERMS = 64  # terms per index_game / list_index call
MAX_BATCH = 1000  # game ids per loads / prune_index call, events per publish or write
MAX_COUNT = 10_000  # entries per read_events / claim_due / list_index / sweep_index call
MAX_MS = 2**53 - 1  # millisecond values stay exact as a Redis score (a double)
MAX_SEQ = 2**53 - 1
DEFAULT_EVENT_SEQ_TTL_S = 30 * 86400  # an owner's publish record outlives its last publish this long
INDEX_SCAN_MIN = 1000  # list_index scans at most max(10 * count, INDEX_SCAN_MIN) members a call

_EVENT_HEAD = re.compile(rb"(0|[1-9][0-9]{0,15}) ")
_STREAM_ID = re.compile(r"([0-9]{1,20})(?:-([0-9]{1,20}))?")


class StoreUnavailable(Exception):
    """The store cannot be reached or answered with an error; maps to gRPC UNAVAILABLE."""


class GameExists(Exception):
    """``create`` was called for a game id that is already taken."""


@dataclass(frozen=True)
class Loaded:
    """A game as read from the store: its version and opaque state."""

    version: int
    state: bytes


@dataclass(frozen=True)
class Commit:
    """One change of a game for ``Store.commit``, checked once, when it is made (ValueError).

    Its log ``entries`` replace the ``state`` if the game is still at ``expected_version``; with
    them go the finished ``hands``, the ``events`` for the outbox and the ``retry`` record of
    ``request_id``. ``finished``: the game is over (it expires after the finished TTL).
    """

    game_id: str
    expected_version: int
    state: bytes
    entries: Sequence[bytes]
    request_id: str | None = None
    retry: bytes | None = None
    finished: bool = False
    hands: Sequence[bytes] = ()
    events: Sequence[bytes] = ()

    def __post_init__(self) -> None:
        validate_game_id(self.game_id)
        validate_request_id(self.request_id)
        validate_commit(self.expected_version, self.state, self.entries)
        object.__setattr__(self, "events", validate_events(self.events))
        object.__setattr__(self, "hands", list(self.hands))


@dataclass(frozen=True)
class Committed:
    """Outcome of ``commit``: written, a version conflict, or a request id seen before (its retry record)."""

    ok: bool
    version: int
    replay: bytes | None = None


@runtime_checkable
class Store(Protocol):
    """What the servicer needs from a game store (all writes atomic, state opaque)."""

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
        ...

    async def load(self, game_id: str) -> Loaded | None:
        """Return the game's version and state, or None when there is no such game."""
        ...

    async def commit(self, change: Commit) -> Committed:
        """Replace the state and append log entries (and hand records, and outbox events) if the version
        is still ``change.expected_version``.

        A request id already recorded (and not yet expired) wins over everything else: nothing
        is written and its retry record comes back in ``Committed.replay``. Events join the
        outbox only with a successful commit; the outbox keeps the latest ``MAX_OUTBOX``.
        """
        ...

    async def hands(self, game_id: str, start: int = 0, count: int | None = None) -> list[bytes]:
        """Return the hand records appended by commits from index ``start`` (``count`` of them, or all
        the rest), oldest first ([] for no such game)."""
        ...

    async def get_retry(self, game_id: str, request_id: str) -> bytes | None:
        """Return the retry record kept for this request id, or None."""
        ...

    async def log_after(self, game_id: str, version: int, until: int | None = None) -> list[tuple[int, bytes]]:
        """Return (version, entry) pairs with versions above ``version`` (and at most ``until``), ascending."""
        ...

    def watch(self, game_id: str) -> AsyncGenerator[int, None]:
        """Yield the game's current version once subscribed, then every newer version."""
        ...

    async def ping(self) -> None:
        """Raise StoreUnavailable unless the store answers."""
        ...

    async def version(self, game_id: str) -> int:
        """Return the game's current version, 0 when there is no such game."""
        ...

    async def eviction_policy(self) -> str | None:
        """The store's key-eviction policy (Redis ``maxmemory-policy``), None when it has none or hides it."""
        ...

    async def take_token(self, bucket: str, rate_per_s: float, burst: int) -> float:
        """Take one token from a rate-limit bucket that refills ``rate_per_s`` tokens a second up
        to ``burst``; returns 0.0 when taken, else the seconds until a token will be there."""
        ...

    async def outbox(self, game_id: str) -> list[bytes]:
        """Return the game's outbox events, oldest first ([] for no such game)."""
        ...

    async def trim_outbox(self, game_id: str, upto_seq: int) -> int:
        """Drop the outbox's leading events whose seq is at most ``upto_seq``; return how many."""
        ...

    async def publish(self, owner: str, game_id: str, events: Sequence[bytes], max_len: int) -> int:
        """Append to the owner's event stream, in order, each event whose seq is above the last one
        published for the game, and record that seq; the stream keeps about ``max_len`` entries
        (at least that many). Returns how many were appended: racing publishers append each once."""
        ...

    async def read_events(self, owner: str, after: str, count: int, block_ms: int) -> list[tuple[str, str, bytes]]:
        """Return up to ``count`` (stream id, game id, event) entries of the owner's stream with ids
        after ``after`` ("" or "0": from the start), oldest first, waiting up to ``block_ms`` for
        one when there is none (0: do not wait). Ids read ``<ms>-<n>`` and increase."""
        ...

    async def forget(self, owner: str, game_id: str) -> None:
        """Drop the game's record of the last seq published to the owner's stream."""
        ...

    async def schedule(self, game_id: str, at_ms: int) -> None:
        """Make the game due at ``at_ms`` unless it is already due earlier (a score only goes down)."""
        ...

    async def claim_due(self, shard: int, now_ms: int, lease_ms: int, count: int) -> list[tuple[str, int]]:
        """Lease up to ``count`` games of the shard due at ``now_ms`` (earliest first): each becomes
        due again at ``now_ms + lease_ms``, which is returned with it as the claim token."""
        ...

    async def settle(self, game_id: str, claim: int, next_ms: int | None) -> bool:
        """If the game is still due at ``claim`` (nobody scheduled it earlier since), make it due at
        ``next_ms``, or unschedule it when None; return whether the claim still held."""
        ...

    async def index_game(self, owner: str, game_id: str, created_ms: int, terms: Sequence[str]) -> None:
        """Index the game for its owner at ``created_ms``: in the owner's ``all`` set and in each
        term's set; the game's recorded terms become exactly ``terms`` (it leaves the term sets
        of an earlier call that are not among them). Index a game after creating it."""
        ...

    async def unindex_game(self, owner: str, game_id: str, terms: Sequence[str] = ()) -> None:
        """Remove the game from the owner's index: ``all``, the given terms and its recorded terms."""
        ...

    async def list_index(
        self, owner: str, terms: Sequence[str], before: tuple[int, str] | None, count: int
    ) -> tuple[list[tuple[int, str]], tuple[int, str] | None]:
        """Page through the owner's games in every term's set (no terms: all of them), newest first.

        Returns up to ``count`` (created_ms, game id) pairs strictly after ``before`` in the order
        (created_ms descending, then game id descending), and the cursor to continue from, None
        once the walk reached the end. One call scans at most ``index_scan_bound(count)`` members
        of the smallest set, so a page may be short, even empty, with a cursor. Entries are
        candidates: a game may have expired since it was indexed (see ``loads``, ``prune_index``).
        """
        ...

    async def loads(self, game_ids: Sequence[str]) -> list[Loaded | None]:
        """Return each game as ``load`` has it (version and state), None for a missing one, in order."""
        ...

    async def prune_index(
        self, owner: str, game_ids: Sequence[str], terms_of: Mapping[str, Sequence[str]] | None = None
    ) -> int:
        """Remove the games from the owner's index (``all``, their recorded terms and any given in
        ``terms_of``); return how many were in ``all``."""
        ...

    async def sweep_index(self, owner: str, cursor: int, count: int) -> int:
        """Visit about ``count`` members of the owner's ``all`` set from ``cursor`` and remove those
        whose game no longer exists from the whole index; return the next cursor (0: done).
        Start at 0; every game indexed throughout a full pass is visited at least once."""
        ...

    async def owners(self) -> list[str]:
        """Return every owner that ever indexed a game, sorted."""
        ...

    async def delete(self, game_id: str) -> bool:
        """Remove the game (state, log, hands, retry records, outbox); True if it existed.

        Its index entries, publish record and schedule entry stay for their own calls."""
        ...

    async def close(self) -> None:
        """Release connections and end all watches."""
        ...


def validate_game_id(game_id: str) -> str:
    """Return game_id if usable as a key part (non-empty, short, no braces); else ValueError."""
    if not isinstance(game_id, str) or not game_id:
        raise ValueError("game_id must be a non-empty string")
    if len(game_id) > MAX_ID_LENGTH:
        raise ValueError(f"game_id longer than {MAX_ID_LENGTH} characters")
    if "{" in game_id or "}" in game_id:
        raise ValueError(f"game_id must not contain braces: {game_id!r}")
    return game_id


def validate_request_id(request_id: str | None) -> str | None:
    """Return request_id if None or a non-empty string of sane length; else ValueError."""
    if request_id is None:
        return None
    if not isinstance(request_id, str) or not request_id:
        raise ValueError("request_id must be None or a non-empty string")
    if len(request_id) > MAX_ID_LENGTH:
        raise ValueError(f"request_id longer than {MAX_ID_LENGTH} characters")
    return request_id


def validate_owner(owner: str) -> str:
    """Return owner if usable as a key part (1..MAX_OWNER_LENGTH characters, no braces); else ValueError."""
    if not isinstance(owner, str) or not owner:
        raise ValueError("owner must be a non-empty string")
    if len(owner) > MAX_OWNER_LENGTH:
        raise ValueError(f"owner longer than {MAX_OWNER_LENGTH} characters")
    if "{" in owner or "}" in owner:
        raise ValueError(f"owner must not contain braces: {owner!r}")
    return owner


def validate_int(name: str, value: int, low: int = 0, high: int = MAX_MS) -> int:
    """Return value if an int (not a bool) in low..high; else ValueError."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an int, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be in {low}..{high}, got {value}")
    return value


def validate_game_ids(game_ids: Sequence[str]) -> list[str]:
    """Return the game ids as a list if each is valid and there are at most MAX_BATCH; else ValueError."""
    if isinstance(game_ids, (str, bytes)):
        raise ValueError("game_ids must be a sequence of game ids, not one string")
    ids = list(game_ids)
    if len(ids) > MAX_BATCH:
        raise ValueError(f"at most {MAX_BATCH} game ids at once")
    for game_id in ids:
        validate_game_id(game_id)
    return ids


def validate_terms(terms: Sequence[str]) -> list[str]:
    """Return the distinct terms in their first order if each is 1..MAX_TERM_LENGTH characters
    without a newline, and there are at most MAX_TERMS; else ValueError."""
    if isinstance(terms, (str, bytes)):
        raise ValueError("terms must be a sequence of strings, not one string")
    for term in terms:
        if not isinstance(term, str) or not term or len(term) > MAX_TERM_LENGTH or "\n" in term:
            raise ValueError(f"a term is 1..{MAX_TERM_LENGTH} characters without a newline: {term!r:.40}")
    unique = list(dict.fromkeys(terms))
    if len(unique) > MAX_TERMS:
        raise ValueError(f"at most {MAX_TERMS} terms")
    return unique


def event_seq(event: bytes) -> int:
    """Return the seq an event starts with (``b"7 {...}"`` -> 7); ValueError if it has none.

    >>> event_seq(b"7 {}")
    7
    """
    match = _EVENT_HEAD.match(event) if isinstance(event, bytes) else None
    if match is None:
        raise ValueError(f"an event is bytes starting with its decimal seq and a space: {event!r:.40}")
    seq = int(match.group(1))
    if seq > MAX_SEQ:
        raise ValueError(f"event seq above {MAX_SEQ}")
    return seq


def validate_events(events: Sequence[bytes]) -> list[bytes]:
    """Return the events as a list if each starts with its seq, the seqs ascend strictly and there
    are at most MAX_BATCH; else ValueError."""
    if isinstance(events, (str, bytes)):
        raise ValueError("events must be a sequence of bytes, not one bytes")
    listed = list(events)
    if len(listed) > MAX_BATCH:
        raise ValueError(f"at most {MAX_BATCH} events at once")
    previous = -1
    for event in listed:
        seq = event_seq(event)
        if seq <= previous:
            raise ValueError(f"event seqs must ascend: {seq} after {previous}")
        previous = seq
    return listed


def parse_stream_id(after: str) -> tuple[int, int]:
    """Return a stream id as (ms, n): "" and "0" are (0, 0), "<ms>" is (ms, 0); else ValueError.

    >>> parse_stream_id("1733054400000-3"), parse_stream_id("")
    ((1733054400000, 3), (0, 0))
    """
    if not isinstance(after, str):
        raise ValueError("a stream id is a string")
    if after == "":
        return (0, 0)
    match = _STREAM_ID.fullmatch(after)
    if match is None or int(match.group(1)) >= 2**64 or int(match.group(2) or 0) >= 2**64:
        raise ValueError(f"a stream id reads <ms>-<n>: {after!r:.40}")
    return (int(match.group(1)), int(match.group(2) or 0))


def shard_of(game_id: str) -> int:
    """Return the schedule shard (0..SHARDS-1) of a game."""
    return int(hashlib.sha1(validate_game_id(game_id).encode()).hexdigest(), 16) % SHARDS


def index_scan_bound(count: int) -> int:
    """Return how many members one list_index call scans at most for a page of ``count``."""
    return max(10 * count, INDEX_SCAN_MIN)


def validate_cursor(before: tuple[int, str] | None) -> tuple[int, str] | None:
    """Return a list_index cursor if None or (created_ms, game id); else ValueError."""
    if before is None:
        return None
    if not isinstance(before, tuple) or len(before) != 2:
        raise ValueError("a cursor is (created_ms, game id) or None")
    return (validate_int("cursor created_ms", before[0]), validate_game_id(before[1]))


def validate_bucket(bucket: str, rate_per_s: float, burst: int) -> None:
    """Reject a rate-limit bucket name or limit that no caller should send."""
    if not bucket or len(bucket) > MAX_ID_LENGTH or "{" in bucket or "}" in bucket:
        raise ValueError(f"bucket must be 1..{MAX_ID_LENGTH} characters without braces")
    if not rate_per_s > 0 or burst < 1:
        raise ValueError("a rate limit needs a positive rate and a burst of at least 1")


def validate_entries(state: bytes, entries: Sequence[bytes]) -> None:
    """Raise ValueError unless the state and log entries of a write are well formed."""
    if not isinstance(state, bytes):
        raise ValueError("state must be bytes")
    if not entries:
        raise ValueError("a write needs at least one log entry (each entry is one version)")
    if not all(isinstance(entry, bytes) for entry in entries):
        raise ValueError("log entries must be bytes")


def validate_commit(expected_version: int, state: bytes, entries: Sequence[bytes]) -> None:
    """Raise ValueError unless the commit arguments are well formed."""
    if isinstance(expected_version, bool) or not isinstance(expected_version, int):
        raise ValueError("expected_version must be an int")
    if expected_version < 1:
        raise ValueError("expected_version must be >= 1 (games start at version 1)")
    validate_entries(state, entries)


def validate_limits(idle_ttl_s: float, finished_ttl_s: float, request_ttl_s: float, max_requests: int) -> None:
    """Raise ValueError unless every TTL is positive and max_requests >= 1."""
    for name, value in (("idle_ttl_s", idle_ttl_s), ("finished_ttl_s", finished_ttl_s),
                        ("request_ttl_s", request_ttl_s)):
        if not value > 0:
            raise ValueError(f"{name} must be positive, got {value!r}")
    if isinstance(max_requests, bool) or not isinstance(max_requests, int) or max_requests < 1:
        raise ValueError(f"max_requests must be an int >= 1, got {max_requests!r}")


class Watcher:
    """Mailbox of one watch: keeps only the newest unseen version (slow readers skip ahead)."""

    def __init__(self) -> None:
        """Start empty: nothing notified, nothing taken."""
        self._latest = -1
        self._taken = -1
        self._ended = False
        self._event = asyncio.Event()

    def notify(self, version: int) -> None:
        """Record that ``version`` exists; wake the reader if it is newer than anything seen."""
        if version > self._latest:
            self._latest = version
            self._event.set()

    def end(self) -> None:
        """Make ``next`` return None (the store is closing)."""
        self._ended = True
        self._event.set()

    async def next(self) -> int | None:
        """Wait for a version newer than the last one returned; None once ended."""
        while self._latest <= self._taken and not self._ended:
            self._event.clear()
            await self._event.wait()
        if self._ended:
            return None
        self._taken = self._latest
        return self._taken
