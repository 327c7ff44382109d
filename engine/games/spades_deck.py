"""The cards of a Spades table and how they play (the ``trumps`` setting, RULES.md §1.1): the plain
52 cards, or jokers in place of two deuces as the highest spades (and in ``jokers_deuces`` the 2♦
and 2♠ above the A♠). ``Trumps`` holds one option's deck, each card's suit for following and its
strength in a trick; ``trumps_of`` and ``cards_for`` give a table's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..core.cards import BIG_JOKER, CARD_COUNT, CLUBS, DIAMONDS, HEARTS, LITTLE_JOKER, SPADES, card_list, make_card
from .spades_state import STANDARD, SpadesOptions


@dataclass(frozen=True)
class Trumps:
    """The cards of one ``trumps`` option and how they play: each card's suit for following and
    its strength, the suits' masks, the deck, and the order a view lists a hand in.

    The deck is the game's deck for the option (``GAME.cards_for``): a deal's recorded chance, a
    prearranged deck, the hand's fairness commitment and its record all list the jokers
    themselves (``BJ``, ``LJ``), never the cards that left.
    """

    name: str
    deck: int                          # the cards dealt
    suit: tuple[int, ...]              # card -> the suit it follows as (a joker: spades)
    power: tuple[int, ...]             # card -> its strength in a trick (spades above every other suit)
    masks: tuple[int, int, int, int]   # suit -> the deck's cards that follow as it
    view_rank: tuple[int, ...]         # card -> its place in a view's hand (lowest first)

    @property
    def spades(self) -> int:
        """The cards that are spades (jokers, and the 2♦ in ``jokers_deuces``, included)."""
        return self.masks[SPADES]

    def winner(self, trick: Sequence[int]) -> int:
        """The index of the card that wins ``trick`` (in play order): the strongest spade, else
        the strongest card of the suit led."""
        suit, power = self.suit, self.power
        led = suit[trick[0]]
        best_i, best = 0, power[trick[0]]
        for i in range(1, len(trick)):
            c = trick[i]
            s = suit[c]
            if (s == led or s == SPADES) and power[c] > best:
                best_i, best = i, power[c]
        return best_i

    def in_view_order(self, cards: int) -> list[int]:
        """A hand as a view lists it: its spades from the highest (jokers first), then hearts,
        diamonds and clubs, each from the highest (the plain table: the canonical order)."""
        if self.name == STANDARD:
            return card_list(cards)
        return sorted(card_list(cards), key=self.view_rank.__getitem__)


def _trumps(name: str, removed: tuple[int, ...], high: tuple[int, ...]) -> Trumps:
    """The table of a ``trumps`` option: ``removed`` leave the deck for the Little and Big Jokers,
    ``high`` are the spades above the A♠, highest first."""
    deck = (1 << 52) - 1
    for c in removed:
        deck &= ~(1 << c)
    if removed:
        deck |= 1 << LITTLE_JOKER | 1 << BIG_JOKER
    suit = [c // 13 if c < 52 else SPADES for c in range(CARD_COUNT)]
    power = [c % 13 if c < 52 else 0 for c in range(CARD_COUNT)]
    for c in range(39, 52):
        power[c] += 100
    for i, c in enumerate(reversed(high)):
        suit[c] = SPADES
        power[c] = 113 + i
    masks = [0, 0, 0, 0]
    for c in range(CARD_COUNT):
        if deck >> c & 1:
            masks[suit[c]] |= 1 << c
    group = {SPADES: 0, HEARTS: 1, DIAMONDS: 2, CLUBS: 3}
    view_rank = tuple(group[suit[c]] * 1000 - power[c] for c in range(CARD_COUNT))
    return Trumps(name, deck, tuple(suit), tuple(power), (masks[0], masks[1], masks[2], masks[3]), view_rank)


_TWO = {letter: make_card(2, "CDHS".index(letter)) for letter in "CDHS"}
TRUMPS_TABLES = {
    STANDARD: _trumps(STANDARD, (), ()),
    "jokers": _trumps("jokers", (_TWO["C"], _TWO["D"]), (BIG_JOKER, LITTLE_JOKER)),
    "jokers_deuces": _trumps("jokers_deuces", (_TWO["C"], _TWO["H"]), (BIG_JOKER, LITTLE_JOKER, _TWO["D"], _TWO["S"])),
}
"""Each ``trumps`` option's cards and how they play."""


TRUMPS_CARDS = {name: tuple(card_list(table.deck)) for name, table in TRUMPS_TABLES.items()}
"""The cards dealt at a table of each ``trumps`` option (four-player Spades), lowest first."""


def trumps_of(options: Any) -> Trumps:
    """The cards of a table with these options (two-player and Cutthroat Spades: always the plain deck)."""
    return TRUMPS_TABLES[getattr(options, "trumps", STANDARD)]


def cards_for(options: SpadesOptions) -> tuple[int, ...]:
    """The cards of a four-player Spades game with these options: the 52, or with jokers in place
    of two deuces (``trumps``); a deal's chance and a prearranged deck list exactly these."""
    return TRUMPS_CARDS[options.trumps]
