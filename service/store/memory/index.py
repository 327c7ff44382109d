"""The index of the in-process store: per owner, every game and one sorted set per term, and the
terms of each game; the sweep of expired games drops their entries too."""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence

from service.store.memory.base import MemoryBase
from service.store.memory.structures import OwnerIndex, SortedSet, leave_term, sweep_order, unindex
from service.store.port import BadCursor, index_scan_bound

_SWEEP_CURSOR = re.compile(r"[1-9a-f][0-9a-f]{0,14}")


class MemoryIndex(MemoryBase):
    """The index of each owner, and the set of owners."""

    async def index_game(self, owner: str, game_id: str, created_ms: int, terms: Sequence[str]) -> None:
        """Index the game for its owner at ``created_ms`` in ``all`` and each term's set; its recorded
        terms become exactly ``terms``."""
        unique = list(dict.fromkeys(terms))
        self._check_open()
        self._now()
        self._owners.add(owner)
        index = self._index.setdefault(owner, OwnerIndex())
        for term in index.game_terms.get(game_id, ()):
            if term not in unique:
                leave_term(index, term, game_id)
        index.all.add(game_id, created_ms)
        for term in unique:
            index.terms.setdefault(term, SortedSet()).add(game_id, created_ms)
        if unique:
            index.game_terms[game_id] = tuple(unique)
        else:
            index.game_terms.pop(game_id, None)

    async def list_index(
        self, owner: str, terms: Sequence[str], before: tuple[int, str] | None, count: int
    ) -> tuple[list[tuple[int, str]], tuple[int, str] | None]:
        """Page through the owner's games in every term's set, newest first, walking the smallest
        set (the first of equal ones) for at most ``index_scan_bound(count)`` members; the page and
        the cursor to go on from (None once the walk reached the end)."""
        self._check_open()
        index = self._index.get(owner)
        if index is None:
            return [], None
        sets = [index.terms.get(term) for term in dict.fromkeys(terms)] if terms else [index.all]
        present = [found for found in sets if found]
        if len(present) < len(sets):
            return [], None
        walk = min(range(len(present)), key=lambda i: len(present[i]))
        walked, others = present[walk], [found for i, found in enumerate(present) if i != walk]
        pos = len(walked.order) if before is None else bisect.bisect_left(walked.order, before)
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

    async def prune_index(
        self, owner: str, game_ids: Sequence[str], terms_of: Mapping[str, Sequence[str]] | None = None
    ) -> int:
        """Remove the games from the owner's index (``all``, recorded terms, any in ``terms_of``);
        return how many were in ``all``."""
        given = {game_id: (terms_of or {}).get(game_id, ()) for game_id in game_ids}
        self._check_open()
        return unindex(self._index, owner, given)

    async def sweep_index(self, owner: str, cursor: str, count: int) -> str:
        """Visit ``count`` members of the owner's ``all`` set from ``cursor`` (in an order that
        insertions and removals do not disturb: ``sweep_order``, the cursor the place to go on
        from in hex) and remove those whose game no longer exists from the whole index; return the
        next cursor ("": the pass is complete)."""
        if cursor and not _SWEEP_CURSOR.fullmatch(cursor):
            raise BadCursor(f"not an index sweep cursor of this store: {cursor!r:.40}")
        start = int(cursor, 16) if cursor else 0
        self._check_open()
        now = self._now()
        index = self._index.get(owner)
        if index is None:
            return ""
        ahead = sorted((place, game_id) for game_id in index.all.scores
                       if (place := sweep_order(game_id)) >= start)
        end = min(count, len(ahead))
        while 0 < end < len(ahead) and ahead[end][0] == ahead[end - 1][0]:
            end += 1  # games sharing a place are visited together
        gone = [game_id for _, game_id in ahead[:end] if self._live_game(game_id, now) is None]
        unindex(self._index, owner, {game_id: [] for game_id in gone})
        return "" if end == len(ahead) else f"{ahead[end - 1][0] + 1:x}"

    async def count_index(self, owner: str) -> int:
        """Return how many games the owner's ``all`` set holds (expired ones until swept)."""
        self._check_open()
        index = self._index.get(owner)
        return 0 if index is None else len(index.all.scores)

    async def owners(self) -> list[str]:
        """Return every owner that ever indexed a game, sorted."""
        self._check_open()
        return sorted(self._owners)
