"""Spades scoring of one hand, as pure functions of bids, tricks and the running totals."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.records import Record
from ..core.rules import best_side

DOUBLE_NIL_BID = -2
NIL_NONE, NIL_MADE, NIL_FAILED = "none", "made", "failed"


@dataclass
class NilScore(Record):
    """One member's Nil outcome: whether it was Double Nil, none/made/failed, and its points;
    ``for_partner``, the tricks of a failed Nil that counted toward its partner's contract
    (``failed_nil_tricks_count``)."""

    double: bool
    result: str
    points: int
    seat: int = -1
    for_partner: int = 0


@dataclass
class SideScore(Record):
    """One Spades side's hand: contract, tricks counted, points by source, the new total and bags.

    Every point field is a signed change added to the score, so ``hand_points`` is
    ``contract_points + bags_gained + nil_points + bag_penalty``: a bag penalty is negative
    (e.g. -100) or 0.
    """

    contract: int
    tricks: int
    contract_points: int
    bags_gained: int
    nils: list[NilScore]
    nil_points: int
    bag_penalty: int
    hand_points: int
    total_after: int
    bags_after: int
    side: int = -1
    seats: list[int] | None = None

    @classmethod
    def from_dict(cls, data: dict) -> SideScore:
        """The record from its stored form; a positive ``bag_penalty`` (stored before penalties
        were negative) is read as the same penalty, negative."""
        record = super().from_dict(data)
        record.bag_penalty = -abs(record.bag_penalty)
        return record


def spades_side(bids: list[int], tricks: list[int], score: int, bags: int, bag_limit: int, bag_penalty: int,
                nil_value: int, double_nil_value: int, failed_nil_count: bool = False, *, side: int = -1,
                seats: list[int] | None = None) -> SideScore:
    """Score one Spades side (a partnership's members, or one player) for a hand.

    ``bids`` and ``tricks`` are per member; a bid is 0 (Nil), ``DOUBLE_NIL_BID`` or 1..13. The
    tricks of a failed Nil are bags, unless ``failed_nil_count`` and a member has a contract:
    then they count toward it (and past it as bags, short of it as nothing). ``side`` and
    ``seats`` (the members' seats, in the order of ``bids``) go into the record as they are.

    >>> r = spades_side([5], [7], 0, 0, 10, 100, 100, 200)
    >>> r.contract_points, r.bags_gained, r.hand_points
    (50, 2, 52)
    >>> r = spades_side([5], [7], 0, 9, 10, 100, 100, 200)
    >>> r.bag_penalty, r.bags_after, r.hand_points
    (-100, 1, -48)
    >>> r = spades_side([0, 4], [2, 3], 0, 0, 10, 100, 100, 200, failed_nil_count=True)
    >>> r.tricks, r.contract_points, r.bags_gained, r.nils[0].for_partner, r.hand_points
    (5, 40, 1, 2, -59)
    """
    contract = counted = nil_points = failed_nil_tricks = 0
    nils = []
    if len(tricks) != len(bids):
        raise ValueError(f"{len(bids)} bids for {len(tricks)} members' tricks")
    for i, b in enumerate(bids):
        t = tricks[i]
        seat = seats[i] if seats is not None else -1
        if b > 0:
            contract += b
            counted += t
            nils.append(NilScore(False, NIL_NONE, 0, seat))
        elif b == 0 or b == DOUBLE_NIL_BID:
            value = nil_value if b == 0 else double_nil_value
            made = t == 0
            nil_points += value if made else -value
            failed_nil_tricks += t
            nils.append(NilScore(b == DOUBLE_NIL_BID, NIL_MADE if made else NIL_FAILED, value if made else -value,
                                 seat))
        else:
            nils.append(NilScore(False, NIL_NONE, 0, seat))
    if failed_nil_count and contract > 0 and failed_nil_tricks:
        counted += failed_nil_tricks
        for nil, t in zip(nils, tricks, strict=True):
            if nil.result == NIL_FAILED:
                nil.for_partner = t
        failed_nil_tricks = 0
    if contract == 0:
        contract_points, overtricks = 0, counted
    elif counted >= contract:
        contract_points, overtricks = 10 * contract, counted - contract
    else:
        contract_points, overtricks = -10 * contract, 0
    bags_gained = overtricks + failed_nil_tricks
    bags_after = bags + bags_gained
    penalties = 0
    while bags_after >= bag_limit:
        bags_after -= bag_limit
        penalties += 1
    penalty = -penalties * bag_penalty
    hand_points = contract_points + bags_gained + nil_points + penalty
    return SideScore(contract, counted, contract_points, bags_gained, nils, nil_points, penalty, hand_points,
                     score + hand_points, bags_after, side, seats)


def spades_winners(scores: list[int], target: int, losing: int = 0) -> list[int]:
    """The winning side after a hand (as a one-item list), or [] when play goes on.

    The game ends when a side reaches ``target`` or, with a losing score (``losing`` > 0), falls
    to ``-losing`` or below; then the side with the highest total wins, and equal highest totals
    play on.

    >>> spades_winners([510, 530], 500), spades_winners([520, 520], 500), spades_winners([499, 0], 500)
    ([1], [], [])
    >>> spades_winners([-260, -300], 500, 300), spades_winners([-300, -300], 500, 300)
    ([0], [])
    >>> spades_winners([-299, 0], 500, 300), spades_winners([-299, 0], 500)
    ([], [])
    """
    if max(scores) >= target or losing and min(scores) <= -losing:
        return best_side(scores, list(range(len(scores))), high=True)
    return []
