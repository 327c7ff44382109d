"""What the in-process store keeps: a game, a sorted set like Redis', one owner's index, one
owner's event stream; and the removal of games from an index, shared by the index calls and the
store's sweep of expired games."""

from __future__ import annotations

import bisect
import hashlib
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass
class Game:
    """One stored game: version, state, log, hand records, retry records, outbox and expiry time."""

    version: int
    state: bytes
    log: list[bytes]
    expires_at: float
    hands: list[bytes] = field(default_factory=list)
    retries: OrderedDict[str, tuple[float, bytes]] = field(default_factory=OrderedDict)
    outbox: list[bytes] = field(default_factory=list)


class SortedSet:
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

    def first_score(self) -> int | None:
        """Return the lowest score, None when the set is empty."""
        return self.order[0][0] if self.order else None

    def remove(self, member: str) -> bool:
        """Remove the member; return whether it was there."""
        old = self.scores.pop(member, None)
        if old is None:
            return False
        del self.order[bisect.bisect_left(self.order, (old, member))]
        return True


@dataclass
class OwnerIndex:
    """One owner's index: every game, one set per term, and the terms of each game."""

    all: SortedSet = field(default_factory=SortedSet)
    terms: dict[str, SortedSet] = field(default_factory=dict)
    game_terms: dict[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass
class Stream:
    """One owner's event stream (at most the ``max_len`` of the last publish), each entry numbered
    from 1 up (its cursor is ``cursor_of(number)``), and its publish record."""

    entries: list[tuple[int, str, bytes]] = field(default_factory=list)
    last: int = 0
    seq: dict[str, int] = field(default_factory=dict)
    seq_expires_at: float = 0.0


def sweep_order(game_id: str) -> int:
    """Return a game's place in a sweep_index pass (1..2**56, stable while the index changes)."""
    return int.from_bytes(hashlib.sha1(game_id.encode()).digest()[:7], "big") + 1


def unindex(indexes: dict[str, OwnerIndex], owner: str, terms_of: Mapping[str, Sequence[str]]) -> int:
    """Remove each game from the owner's ``all``, its given and its recorded terms; return how
    many were in ``all``. An index left empty is dropped."""
    index = indexes.get(owner)
    if index is None:
        return 0
    removed = 0
    for game_id, given in terms_of.items():
        removed += index.all.remove(game_id)
        for term in (*given, *index.game_terms.pop(game_id, ())):
            leave_term(index, term, game_id)
    if not index.all and not index.terms:
        del indexes[owner]
    return removed


def leave_term(index: OwnerIndex, term: str, game_id: str) -> None:
    """Remove the game from one term's set, dropping the set once empty."""
    found = index.terms.get(term)
    if found is not None and found.remove(game_id) and not found:
        del index.terms[term]
