"""Scripted Cutthroat Spades hands for the engine's and the bots' tests: three hands and the 17
tricks in which each player wins exactly the tricks asked."""

from __future__ import annotations

from collections.abc import Sequence

import engine
from engine.games.cutthroat_spades import HAND_SIZE

RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def script(counts: Sequence[int]) -> tuple[list[list[int]], list[dict[int, int]]]:
    """Three hands and a 17-trick script in which seat ``s`` wins exactly ``counts[s]`` tricks.

    Tricks 1-16 take three cards of one suit each (clubs, diamonds, hearts, spades; ranks 3..A in
    threes), everyone following, the winner holding the highest. The seat W with the most tricks
    wins trick 12 and then holds only spades, so it leads the first spade trick (spades not yet
    broken); the last trick is the 2♦, 2♥ and 2♠, which W's 2♠ takes whoever leads. Returns the
    hands (seat by seat) and the tricks, each mapping a seat to the card it plays.
    """
    assert sum(counts) == HAND_SIZE and len(counts) == 3
    w = max(range(3), key=lambda s: (counts[s], -s))
    assert counts[w] >= 2
    rest = [s for s in range(3) for _ in range(counts[s] - (2 if s == w else 0))]
    winners = rest[:11] + [w] + rest[11:] + [w]
    tricks: list[dict[int, int]] = []
    for t in range(16):
        suit, group = t // 4, t % 4
        cards = [engine.parse_card(f"{rank}{'CDHS'[suit]}") for rank in RANKS[3 * group:3 * group + 3]]
        others = [s for s in range(3) if s != winners[t]]
        tricks.append({winners[t]: cards[2], others[0]: cards[0], others[1]: cards[1]})
    last = dict(zip([s for s in range(3) if s != w], (engine.parse_card("2D"), engine.parse_card("2H")), strict=True))
    last[w] = engine.parse_card("2S")
    tricks.append(last)
    return [[t[s] for t in tricks] for s in range(3)], tricks
