"""A lazy, indexable list of the actions of one CARDS word: every way to choose k of some cards.

Hundreds of exchanges can be legal at once (286 ways to give 3 cards of 13); this sequence
has their count, indexing (so ``random.choice`` is O(k)), membership and iteration without
building them all.

>>> from .cards import parse_cards, cards_text
>>> choices = ExchangeChoices(parse_cards("2C 3C 4C AS"), 1, 2, code=7)
>>> len(choices), cards_text(payload_of(choices[0])), cards_text(payload_of(choices[-1]))
(10, '2C', '4C AS')
>>> choices[5] in choices, list(choices) == [choices[i] for i in range(10)]
(True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

from .actions import cards_action, kind_of, payload_of
from .cards import CardSet, card_list


class ExchangeChoices(Sequence):
    """Every action of the CARDS word ``code`` carrying ``low``..``high`` cards taken from
    ``cards``, in a fixed order."""

    __slots__ = ("cards", "low", "high", "code", "_sizes")

    def __init__(self, cards: CardSet, low: int, high: int, code: int):
        self.cards = card_list(cards)
        self.low, self.high, self.code = low, high, code
        n = len(self.cards)
        self._sizes = [(k, comb(n, k)) for k in range(low, min(high, n) + 1)]

    def __len__(self) -> int:
        return sum(size for _, size in self._sizes)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        for k, size in self._sizes:
            if 0 <= index < size:
                return cards_action(self.code, self._unrank(index, k))
            index -= size
        raise IndexError("exchange choice index out of range")

    def _unrank(self, index: int, k: int) -> CardSet:
        """The ``index``-th k-subset in lexicographic order of positions."""
        cards, n = self.cards, len(self.cards)
        mask, start = 0, 0
        for remaining in range(k, 0, -1):
            for i in range(start, n):
                block = comb(n - i - 1, remaining - 1)
                if index < block:
                    mask |= 1 << cards[i]
                    start = i + 1
                    break
                index -= block
        return mask

    def __contains__(self, action: object) -> bool:
        if not isinstance(action, int) or kind_of(action) != self.code:
            return False
        mask = payload_of(action)
        held = 0
        for c in self.cards:
            held |= 1 << c
        return mask & ~held == 0 and self.low <= mask.bit_count() <= self.high

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, Sequence) else NotImplemented

    def __repr__(self) -> str:
        return f"ExchangeChoices({len(self)} ways to give {self.low}..{self.high} cards)"

