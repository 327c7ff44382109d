"""What the basic Spades bot reads in a hand: its features, the tricks it is expected to take
(weights fitted by least squares on self-play, one table per game), and whether it is weak
enough for Nil. At a table with jokers a joker (and in ``jokers_deuces`` the 2♦) is a spade,
ranked by its strength: the hand is valued as the plain hand whose spades are as strong.
"""

from __future__ import annotations

from functools import lru_cache

from engine.core.cards import CARD_COUNT, SPADES, Card
from engine.core.views import View
from engine.games.spades_deck import Trumps, trumps_of

# Weights of the hand features (fitted by least squares on self-play of this bot,
# tricks actually won when every seat tries to win), one table per variant.
WEIGHTS = {
    "spades": (0.94, 0.87, 0.44, 0.54, 0.09, 0.3, 0.27, 0.96, 0.7, 0.19, 0.5, 0.16, 0.35,
                     0.34, 0.47, 0.5, 0.17, -0.39, 0.24, 0.09, 0.43),
    "spades2": (0.81, 0.93, 0.35, 0.47, 0.09, 0.28, 0.15, 0.84, 0.89, 0.4, 0.67, 0.17, 0.49,
                      0.08, 0.13, 0.05, 0.03, -0.37, 0.15, 0.12, 0.73),
    "cutthroat_spades": (0.93, 0.98, 0.74, 0.73, 0.04, 0.52, 0.58, 0.97, 0.69, 0.18, 0.43, 0.18, 0.32,
                         0.27, 0.44, 0.54, 0.28, -0.45, 0.41, 0.27, 0.62),
}


PLAIN = trumps_of(None)
"""The plain deck's table (two-player Spades, and four-player Spades by default)."""


@lru_cache(maxsize=8)
def ranks_of(table: Trumps) -> tuple[int, ...]:
    """Each card's rank as the bot weighs it, 2..14: a side card's printed rank; a spade's rank is
    that of the plain spade as strong (the highest 14, the next 13, ...; never below 2)."""
    ranks = [c % 13 + 2 for c in range(CARD_COUNT)]
    spades = sorted((c for c in range(CARD_COUNT) if table.spades >> c & 1), key=table.power.__getitem__, reverse=True)
    for above, c in enumerate(spades):
        ranks[c] = max(2, 14 - above)
    return tuple(ranks)


def table_of(v: View) -> Trumps:
    """The deck of the view's table."""
    return trumps_of(v.options)


def _suits(hand: list[Card], table: Trumps = PLAIN) -> list[list[int]]:
    """The ranks held in each suit (a joker among the spades), highest first."""
    out: list[list[int]] = [[], [], [], []]
    suit, rank = table.suit, ranks_of(table)
    for c in hand:
        out[suit[c]].append(rank[c])
    for ranks in out:
        ranks.sort(reverse=True)
    return out


def features(hand: list[Card], table: Trumps = PLAIN) -> list[float]:
    """The hand-strength features that the bid estimate weighs (a constant last)."""
    suits = _suits(hand, table)
    f = [0.0] * 21
    for ranks in suits[:3]:
        n, has = len(ranks), set(ranks)
        f[18] += 12 in has and not (3 <= n <= 4 and (14 in has or 13 in has))
        f[19] += 11 in has
        if 14 in has:
            f[0 if n <= 5 else 1] += 1
        if 13 in has:
            if n == 1:
                f[4] += 1
            elif n >= 6:
                f[5] += 1
            else:
                f[2 if 14 in has else 3] += 1
        if 12 in has and 3 <= n <= 4 and (14 in has or 13 in has):
            f[6] += 1
    sp = suits[SPADES]
    ns, has = len(sp), set(sp)
    honours = 0
    if 14 in has:
        f[7] += 1
        honours += 1
    if 13 in has:
        f[8 if ns >= 2 else 9] += 1
        honours += ns >= 2
    if 12 in has:
        f[10 if ns >= 3 else 11] += 1
        honours += ns >= 3
    if 11 in has and ns >= 4:
        f[12] += 1
        honours += 1
    extra = max(0, ns - 4)
    f[13] = extra
    spare = max(0, ns - honours - extra)
    for length in sorted(len(r) for r in suits[:3]):
        if length > 2 or not spare:
            break
        use = min(spare, 2 if length == 0 else 1)
        f[14 + length] += use
        spare -= use
    f[17] = 1.0
    f[20] = ns
    return f


def estimate(hand: list[Card], variant: str, table: Trumps = PLAIN) -> float:
    """The number of tricks this hand is expected to take."""
    return sum(w * x for w, x in zip(WEIGHTS[variant], features(hand, table), strict=True))


def nil_ok(hand: list[Card], table: Trumps = PLAIN) -> bool:
    """Whether a hand is weak enough to bid Nil: no aces, few low spades, high cards guarded."""
    suits = _suits(hand, table)
    sp = suits[SPADES]
    if len(sp) > 3 or (sp and sp[0] > (10 if len(sp) < 3 else 9)):
        return False
    for ranks in suits[:3]:
        if ranks and ranks[0] == 14:
            return False
        low = sum(r <= 7 for r in ranks)
        need = sum(2 if r >= 12 else 1 for r in ranks if r >= 11)
        if need > low:
            return False
    return True
