"""The owners' event streams: a small port of its own, beside the games.

``publish_outbox`` copies a game's outbox events (``service.store.ports.games``) to its owner's
event stream exactly once each (a per-owner record of the last seq published per game, kept
``event_seq_ttl_s`` after the owner's last publish) and drops them from the outbox; ``publish``
appends given events the same way. ``read_events`` reads that stream, waiting for new entries if
asked. ``forget`` drops a game's publish record.

Every entry of a stream has a **cursor**: an opaque string made by the store, which a reader
hands back to read what comes after it (a WatchEvents client keeps it as ``Event.id``). The port
promises only that a stream's cursors increase in the store's own order and are 1 to
``MAX_CURSOR_LENGTH`` printable ASCII characters without spaces (``validate_cursor``); "" is the
start of every stream. Nothing outside the back-end that made a cursor parses or compares it;
a cursor of that form which the store cannot read raises ``BadCursor`` (the caller's mistake).
The Redis back-end's cursors are Redis Stream ids (``<ms>-<n>``), the in-memory store's a
counter of its own form.

Atomicity: a ``publish`` is one atomic step over the owner's stream and publish record, so
racing publishers of one game append each event once, in seq order. ``publish_outbox`` reads the
outbox, publishes what it read in such a step and then drops from the outbox the events up to the
last it read; a store may do all three in one step (one Redis does), and racing callers still
append each event once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable


@runtime_checkable
class EventStreams(Protocol):
    """The event stream of each owner."""

    async def publish(self, owner: str, game_id: str, events: Sequence[bytes], max_len: int) -> int:
        """Append to the owner's event stream, in order, each event whose seq is above the last one
        published for the game, and record that seq; the stream keeps about ``max_len`` entries
        (at least that many). Returns how many were appended: racing publishers append each once."""
        ...

    async def publish_outbox(self, owner: str, game_id: str, max_len: int) -> int:
        """Publish the game's outbox events to the owner's event stream as ``publish`` does, then
        drop them from the outbox (events that joined it meanwhile stay); return how many were
        appended (0 for an empty outbox or no such game)."""
        ...

    async def read_events(self, owner: str, after: str, count: int, block_ms: int) -> list[tuple[str, str, bytes]]:
        """Return up to ``count`` (cursor, game id, event) entries of the owner's stream after the
        cursor ``after`` ("": from the start), oldest first, waiting up to ``block_ms`` for one
        when there is none (0: do not wait). BadCursor for a cursor this store cannot read."""
        ...

    async def stream_end(self, owner: str) -> str:
        """Return a cursor at the end of the owner's stream now (its newest entry's, "" while it has
        none): reading after it returns only entries published from now on."""
        ...

    async def forget(self, owner: str, game_id: str) -> None:
        """Drop the game's record of the last seq published to the owner's stream."""
        ...
