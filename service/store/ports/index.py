"""The owner index: each owner's games, newest first, searchable by terms (a small port of its own).

Per owner, the games newest first (``all``) and one set per search term, each scored by the
game's creation time; ``list_index`` pages through the games in every given term, scanning a
bounded number of members per call. The terms of each indexed game are recorded, so removing a
game from the index (``prune_index``, ``sweep_index``) reaches every term set it
is in without scanning them.

Atomicity: each of ``index_game`` and ``prune_index`` is one atomic step over the
owner's index. The index is a hint: whoever lists a game reads it first (``loads``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable


@runtime_checkable
class GameIndex(Protocol):
    """The games of each owner, by creation time and by search term."""

    async def index_game(self, owner: str, game_id: str, created_ms: int, terms: Sequence[str]) -> None:
        """Index the game for its owner at ``created_ms``: in the owner's ``all`` set and in each
        term's set; the game's recorded terms become exactly ``terms`` (it leaves the term sets
        of an earlier call that are not among them). Index a game after creating it."""
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

    async def prune_index(
        self, owner: str, game_ids: Sequence[str], terms_of: Mapping[str, Sequence[str]] | None = None
    ) -> int:
        """Remove the games from the owner's index (``all``, their recorded terms and any given in
        ``terms_of``); return how many were in ``all``."""
        ...

    async def sweep_index(self, owner: str, cursor: str, count: int) -> str:
        """Visit about ``count`` members of the owner's ``all`` set from ``cursor`` and remove those
        whose game no longer exists from the whole index; return the next cursor ("": done).
        Start at ""; every game indexed throughout a full pass is visited at least once. The
        cursor is opaque, as ``read_events``' are (``validate_cursor``; BadCursor for one this
        store cannot read)."""
        ...

    async def count_index(self, owner: str) -> int:
        """Return how many games the owner's ``all`` set holds: the games indexed and not yet
        removed (by ``prune_index`` or ``sweep_index``), so a game that expired
        counts until a prune or sweep removes it. One cheap read (the owner's game quota)."""
        ...

    async def owners(self) -> list[str]:
        """Return every owner that ever indexed a game, sorted."""
        ...
