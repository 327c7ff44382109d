"""Checks of the Store port's arguments (each returns the value checked, in the form handed on,
or raises ValueError), and the small functions of the port built on them (an event's seq, a
game's schedule shard, the index scan bound).

``service.store.checked`` runs these once, before a back-end sees a call, picking each by the
parameter's name (its ``CHECKS`` table); the back-ends take their arguments as given. ``Commit``
runs its own when it is made. An opaque cursor (``validate_cursor``) is checked for its length and
characters only: what it means is the back-end's business.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping, Sequence

from service.store.ports.limits import (
    INDEX_SCAN_MIN,
    MAX_BATCH,
    MAX_CURSOR_LENGTH,
    MAX_ID_LENGTH,
    MAX_MS,
    MAX_OWNER_LENGTH,
    MAX_SEQ,
    MAX_TERM_LENGTH,
    MAX_TERMS,
    SHARDS,
)

_EVENT_HEAD = re.compile(rb"(0|[1-9][0-9]{0,15}) ")
_CURSOR = re.compile(f"[!-~]{{1,{MAX_CURSOR_LENGTH}}}")   # printable ASCII, no space


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


def shard_of(game_id: str) -> int:
    """Return the schedule shard (0..SHARDS-1) of a game."""
    return int(hashlib.sha1(validate_game_id(game_id).encode()).hexdigest(), 16) % SHARDS


def index_scan_bound(count: int) -> int:
    """Return how many members one list_index call scans at most for a page of ``count``."""
    return max(10 * count, INDEX_SCAN_MIN)


def validate_cursor(cursor: str) -> str:
    """Return an opaque cursor ("" for the start) if it has at most MAX_CURSOR_LENGTH printable
    ASCII characters and no space; else ValueError. Only the store that made a cursor reads it.

    >>> validate_cursor("1733054400000-3"), validate_cursor("")
    ('1733054400000-3', '')
    """
    if not isinstance(cursor, str):
        raise ValueError("a cursor is a string")
    if cursor and not _CURSOR.fullmatch(cursor):
        raise ValueError(f"a cursor is 1..{MAX_CURSOR_LENGTH} printable ASCII characters without spaces, "
                         f"or empty: {cursor!r:.40}")
    return cursor


def validate_before(before: tuple[int, str] | None) -> tuple[int, str] | None:
    """Return a list_index position if None or (created_ms, game id); else ValueError."""
    if before is None:
        return None
    if not isinstance(before, tuple) or len(before) != 2:
        raise ValueError("a list_index position is (created_ms, game id) or None")
    return (validate_int("before created_ms", before[0]), validate_game_id(before[1]))


def validate_bucket(bucket: str) -> str:
    """Return a rate-limit bucket's name if 1..MAX_ID_LENGTH characters without braces; else ValueError."""
    if not isinstance(bucket, str) or not bucket or len(bucket) > MAX_ID_LENGTH or "{" in bucket or "}" in bucket:
        raise ValueError(f"bucket must be 1..{MAX_ID_LENGTH} characters without braces")
    return bucket


def validate_rate(rate_per_s: float) -> float:
    """Return a rate (per second) if a finite number above 0; else ValueError."""
    if isinstance(rate_per_s, bool) or not isinstance(rate_per_s, (int, float)) \
            or not math.isfinite(rate_per_s) or not rate_per_s > 0:
        raise ValueError(f"a rate limit needs a positive rate, got {rate_per_s!r}")
    return rate_per_s


def validate_bytes(name: str, value: bytes) -> bytes:
    """Return value if bytes; else ValueError."""
    if not isinstance(value, bytes):
        raise ValueError(f"{name} must be bytes, got {type(value).__name__}")
    return value


def validate_entries(entries: Sequence[bytes]) -> list[bytes]:
    """Return a write's log entries as a list if there is at least one and each is bytes; else ValueError."""
    if isinstance(entries, (str, bytes)):
        raise ValueError("entries must be a sequence of bytes, not one bytes")
    listed = list(entries)
    if not listed:
        raise ValueError("a write needs at least one log entry (each entry is one version)")
    if not all(isinstance(entry, bytes) for entry in listed):
        raise ValueError("log entries must be bytes")
    return listed


def validate_terms_of(terms_of: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Return game id -> terms as a dict if every key is a game id and every value valid terms; else ValueError."""
    if not isinstance(terms_of, Mapping):
        raise ValueError("terms_of maps game ids to their terms")
    return {validate_game_id(game_id): validate_terms(terms) for game_id, terms in terms_of.items()}


def validate_sweeper(name: str) -> str:
    """Return a sweeper's name if usable in keys and channels (1..MAX_OWNER_LENGTH characters, no
    braces or whitespace); else ValueError."""
    if not isinstance(name, str) or not name or len(name) > MAX_OWNER_LENGTH:
        raise ValueError(f"a sweeper's name has 1 to {MAX_OWNER_LENGTH} characters, got {name!r:.40}")
    if "{" in name or "}" in name or any(c.isspace() for c in name):
        raise ValueError(f"a sweeper's name has no braces or spaces: {name!r}")
    return name


def validate_sweepers(sweepers: Sequence[str]) -> list[str]:
    """Return sweepers' names as a list if at most SHARDS of them, each valid; else ValueError."""
    if isinstance(sweepers, (str, bytes)) or not isinstance(sweepers, Sequence) or len(sweepers) > SHARDS:
        raise ValueError(f"sweepers is a sequence of at most {SHARDS} names")
    return [validate_sweeper(name) for name in sweepers]


def validate_commit(expected_version: int, state: bytes, entries: Sequence[bytes]) -> None:
    """Raise ValueError unless the commit arguments are well formed."""
    if isinstance(expected_version, bool) or not isinstance(expected_version, int):
        raise ValueError("expected_version must be an int")
    if expected_version < 1:
        raise ValueError("expected_version must be >= 1 (games start at version 1)")
    validate_bytes("state", state)
    validate_entries(entries)


def validate_limits(idle_ttl_s: float, finished_ttl_s: float, request_ttl_s: float, max_requests: int) -> None:
    """Raise ValueError unless every TTL is positive and max_requests >= 1."""
    for name, value in (("idle_ttl_s", idle_ttl_s), ("finished_ttl_s", finished_ttl_s),
                        ("request_ttl_s", request_ttl_s)):
        if not value > 0:
            raise ValueError(f"{name} must be positive, got {value!r}")
    if isinstance(max_requests, bool) or not isinstance(max_requests, int) or max_requests < 1:
        raise ValueError(f"max_requests must be an int >= 1, got {max_requests!r}")
