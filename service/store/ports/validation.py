"""Checks of the Store port's arguments (each raises ValueError), and the small functions of the
port built on them (an event's seq, a stream id, a game's schedule shard, the index scan bound).

``service.store.checked`` runs these once, before a back-end sees a call; the back-ends take their
arguments as given. ``Commit`` runs its own when it is made.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from service.store.ports.limits import (
    INDEX_SCAN_MIN,
    MAX_BATCH,
    MAX_ID_LENGTH,
    MAX_MS,
    MAX_OWNER_LENGTH,
    MAX_SEQ,
    MAX_TERM_LENGTH,
    MAX_TERMS,
    SHARDS,
)

_EVENT_HEAD = re.compile(rb"(0|[1-9][0-9]{0,15}) ")
_STREAM_ID = re.compile(r"([0-9]{1,20})(?:-([0-9]{1,20}))?")


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
