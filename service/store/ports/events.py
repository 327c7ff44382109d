"""The events of the Store port: each game's outbox, and the owners' event streams.

A create or commit may carry events (``b"<seq> <opaque>"``, the seq a per-game decimal number
chosen by the caller, ascending); they join the game's outbox (at most ``MAX_OUTBOX``, the
oldest dropped) in the same atomic step as the write. ``publish`` copies a game's events to its
owner's event stream exactly once each (a per-owner record of the last seq published per game,
kept ``event_seq_ttl_s`` after the owner's last publish), and ``read_events`` reads that stream,
waiting for new entries if asked. ``forget`` drops a game's publish record.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable


@runtime_checkable
class EventStore(Protocol):
    """The outbox of each game and the event stream of each owner."""

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
