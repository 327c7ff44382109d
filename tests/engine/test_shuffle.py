"""The deck shuffle: a permutation of the cards, every ordering equally likely."""

from __future__ import annotations

import random
from collections import Counter
from itertools import permutations

from engine.core.dealing import shuffled


def test_shuffle_returns_every_card_once_and_leaves_the_input_alone():
    cards = list(range(52))
    deck = shuffled(cards, random.Random(1))
    assert sorted(deck) == cards and deck != cards
    assert cards == list(range(52))


def test_every_ordering_is_equally_likely():
    rng = random.Random(2024)  # fixed seed: the counts below are deterministic
    draws = 48_000
    counts = Counter(tuple(shuffled([0, 1, 2, 3], rng)) for _ in range(draws))
    assert set(counts) == set(permutations(range(4)))
    expected = draws / 24
    chi_square = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi_square < 49.7  # the 0.1% critical value for 23 degrees of freedom


def test_the_same_seed_gives_the_same_deck():
    assert shuffled(list(range(24)), random.Random(7)) == shuffled(list(range(24)), random.Random(7))
