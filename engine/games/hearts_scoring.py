"""Hearts scoring of one hand, as pure functions of the points each seat took (RULES.md §4, §4.1):
a heart 1, the Q♠ 13, the J♦ −10 where it counts, and shooting the moon."""

from __future__ import annotations

from ..core.rules import best_side
from ..core.table import NOBODY, Seat
from .hearts_state import HEART_MASK, JACK_POINTS, MOON, QUEEN_OF_SPADES


def hand_points(cards: int) -> int:
    """The points of a set of cards: 1 a heart, 13 the Q♠.

    >>> from engine.core.cards import parse_cards
    >>> hand_points(parse_cards("2H AH QS KS 2C"))
    15
    """
    return (cards & HEART_MASK).bit_count() + (13 if cards >> QUEEN_OF_SPADES & 1 else 0)


def moon_points(taken: list[int], moon: str) -> tuple[list[int], Seat]:
    """Each seat's points for a hand from the points it took, and the seat that shot the moon.

    >>> moon_points([26, 0, 0, 0], "others_add"), moon_points([0, 26, 0, 0], "shooter_subtracts")
    (([0, 26, 26, 26], 0), ([0, -26, 0, 0], 1))
    >>> moon_points([13, 5, 8, 0], "others_add")
    ([13, 5, 8, 0], -1)
    """
    if MOON not in taken:
        return taken[:], NOBODY
    shooter = taken.index(MOON)
    if moon == "shooter_subtracts":
        return [-MOON if s == shooter else 0 for s in range(len(taken))], shooter
    return [0 if s == shooter else MOON for s in range(len(taken))], shooter


def hand_score(taken: list[int], jack: Seat, moon: str) -> tuple[list[int], Seat]:
    """Each seat's points for a hand from the points it took (the J♦'s −10 included, won by
    ``jack``; NOBODY: it does not count), and the seat that shot the moon: the moon is taking
    every heart and the Q♠, the J♦ aside, whose −10 its winner keeps in a moon hand too.

    >>> hand_score([16, 0, 0, 0], 0, "others_add"), hand_score([16, 0, 0, 0], 0, "shooter_subtracts")
    (([-10, 26, 26, 26], 0), ([-36, 0, 0, 0], 0))
    >>> hand_score([26, -10, 0], 1, "others_add"), hand_score([6, -5, 15], 1, "others_add")
    (([0, 16, 26], 0), ([6, -5, 15], -1))
    """
    if jack == NOBODY:
        return moon_points(taken, moon)
    base = taken[:]
    base[jack] -= JACK_POINTS
    points, shooter = moon_points(base, moon)
    points[jack] += JACK_POINTS
    return points, shooter


def hearts_winners(scores: list[int], target: int) -> list[int]:
    """The winning seat (a one-item list) once a score reached the target: the lowest; [] on a tie.

    >>> hearts_winners([100, 40, 62, 80], 100), hearts_winners([104, 40, 40, 80], 100)
    ([1], [])
    >>> hearts_winners([9, 9, 9, 8], 100)
    []
    """
    if max(scores) < target:
        return []
    return best_side(scores, list(range(len(scores))), high=False)
