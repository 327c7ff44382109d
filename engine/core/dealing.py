"""Chance: shuffling, dealing, and the recorded outcome of every random event.

A game draws randomness only through a :class:`Chance`: the deck a deal dealt (with the salt of
its fairness commitment) or the cards a draw took. ``engine.apply`` returns the outcome it drew,
and given that outcome back it draws nothing, so a game is a pure fold of its log.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter

from .actions import DEAL, Action
from .cards import BITS, Card
from .fairness import commitment
from .rules import require_turn, wrong_phase
from .table import Seat, TableState


@dataclass(frozen=True, slots=True)
class Chance:
    """The outcome of one random event: cards in the order drawn, and a salt (deals only)."""

    cards: tuple[Card, ...]
    salt: str = ""


_ORDERINGS = {n: math.factorial(n) for n in (24, 52)}


def shuffled(cards: Sequence[Card], rng: random.Random) -> list[Card]:
    """The cards in a uniformly random order, drawn from a single random integer.

    An integer uniform in ``[0, n!)`` (rejection-sampled from ``getrandbits``) is read as a
    Lehmer code, which maps it one-to-one onto the orderings of ``n`` cards. One draw instead
    of one per card is faster, and far faster with ``secrets.SystemRandom``.
    """
    n = len(cards)
    orderings = _ORDERINGS.get(n) or math.factorial(n)
    bits = orderings.bit_length()
    code = rng.getrandbits(bits)
    while code >= orderings:
        code = rng.getrandbits(bits)
    rest = list(cards)
    deck = []
    for remaining in range(n, 0, -1):
        code, index = divmod(code, remaining)
        deck.append(rest.pop(index))
    return deck


def deal_chance(state: TableState, cards: Sequence[Card], rng: random.Random) -> Chance:
    """The deck of the next hand (the next prearranged one, else shuffled) and a fresh salt."""
    deck = state.decks[0] if state.decks else shuffled(cards, rng)
    return Chance(tuple(deck), f"{rng.getrandbits(128):032x}")


def start_hand(state: TableState, chance: Chance) -> list[Card]:
    """Reset the per-hand fields, take the hand's deck from ``chance`` and return it."""
    deck = list(chance.cards)
    if state.decks:
        state.decks.pop(0)
    state.reset_hand()
    state.hand_no += 1
    state.deck = deck
    state.salt = chance.salt
    state.commitment = commitment(chance.salt, deck)
    return deck


def open_hand(state: TableState, seat: Seat, action: Action, cards: Sequence[Card], rng: random.Random,
              chance: Chance | None) -> tuple[list[Card], Chance]:
    """Check a DEAL by the seat in turn, then start the next hand from ``chance`` (drawn if None).

    Returns the hand's deck (top first) and the chance outcome it came from.
    """
    if action != DEAL:
        wrong_phase(state, action)
    require_turn(state, seat)
    chance = chance or deal_chance(state, cards, rng)
    return start_hand(state, chance), chance


def deal_round_robin(state: TableState, deck: list[Card], count: int) -> None:
    """Deal the first ``count`` cards one at a time clockwise, starting left of the dealer."""
    n, first = state.n, state.dealer + 1
    hands = state.hands
    if count < 2:
        for k, c in enumerate(deck[:count]):
            hands[(first + k) % n] |= BITS[c]
        return
    bits = itemgetter(*deck[:count])(BITS)   # each card's bit, in one call
    for k in range(n):
        # seat first+k gets deck[k], deck[k+n], …; distinct bits, so their sum is their union
        hands[(first + k) % n] |= sum(bits[k::n])
