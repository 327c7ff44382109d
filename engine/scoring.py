"""Scoring of one hand, as pure functions of bids, tricks and the running totals."""

from __future__ import annotations

from .options import BuckEuchreOptions, SpadesOptions
from .state import DOUBLE_NIL_BID

NIL_NONE, NIL_MADE, NIL_FAILED = "none", "made", "failed"


def spades_side(bids: list[int], tricks: list[int], score: int, bags: int,
                options: SpadesOptions) -> dict:
    """Score one Spades side (a partnership's members, or one player) for a hand.

    ``bids`` and ``tricks`` are per member; a bid is 0 (Nil), ``DOUBLE_NIL_BID`` or 1..13.
    Returns the breakdown with the new total and bag count.

    >>> r = spades_side([5], [7], 0, 0, SpadesOptions())
    >>> r["contract_points"], r["bags_gained"], r["hand_points"]
    (50, 2, 52)
    """
    contract = sum(b for b in bids if b > 0)
    counted = sum(t for b, t in zip(bids, tricks) if b > 0)
    nils = []
    nil_points = 0
    failed_nil_tricks = 0
    for b, t in zip(bids, tricks):
        if b == 0 or b == DOUBLE_NIL_BID:
            value = options.nil_value if b == 0 else options.double_nil_value
            made = t == 0
            nil_points += value if made else -value
            failed_nil_tricks += t
            nils.append({"double": b == DOUBLE_NIL_BID, "result": NIL_MADE if made else NIL_FAILED,
                         "points": value if made else -value})
        else:
            nils.append({"double": False, "result": NIL_NONE, "points": 0})
    if contract == 0:
        contract_points, overtricks = 0, counted
    elif counted >= contract:
        contract_points, overtricks = 10 * contract, counted - contract
    else:
        contract_points, overtricks = -10 * contract, 0
    bags_gained = overtricks + failed_nil_tricks
    bags_after = bags + bags_gained
    penalties = 0
    while bags_after >= options.bag_limit:
        bags_after -= options.bag_limit
        penalties += 1
    bag_penalty = penalties * options.bag_penalty
    hand_points = contract_points + bags_gained + nil_points - bag_penalty
    return {
        "contract": contract, "tricks": counted, "contract_points": contract_points,
        "bags_gained": bags_gained, "nils": nils, "nil_points": nil_points,
        "bag_penalty": bag_penalty, "hand_points": hand_points,
        "total_after": score + hand_points, "bags_after": bags_after,
    }


def spades_winners(scores: list[int], target: int) -> list[int]:
    """The winning side after a hand (as a one-item list), or [] when play goes on.

    >>> spades_winners([510, 530], 500), spades_winners([520, 520], 500), spades_winners([499, 0], 500)
    ([1], [], [])
    """
    return _best(scores, [s for s in range(len(scores)) if scores[s] >= target], high=True)


def buck_euchre_seat(tricks: int, active: bool, is_maker: bool, options: BuckEuchreOptions) -> dict:
    """The change of one Buck Euchre player's score in a hand (points go down).

    >>> buck_euchre_seat(2, True, True, BuckEuchreOptions())["change"]
    3
    """
    if not active:
        return {"requirement": 0, "penalty": 0, "change": 0}
    requirement = options.maker_requirement if is_maker else 1
    penalty = options.penalty if tricks < requirement else 0
    return {"requirement": requirement, "penalty": penalty, "change": -tricks + penalty}


def buck_euchre_winners(scores: list[int]) -> list[int]:
    """The winning seat (as a one-item list) when someone is at 0 or below, lowest first; [] on ties.

    >>> buck_euchre_winners([3, -1, 0, 7]), buck_euchre_winners([0, 0, 4, 5])
    ([1], [])
    """
    return _best(scores, [s for s in range(len(scores)) if scores[s] <= 0], high=False)


def _best(scores: list[int], qualified: list[int], high: bool) -> list[int]:
    if not qualified:
        return []
    pick = max if high else min
    best = pick(scores[s] for s in qualified)
    leaders = [s for s in qualified if scores[s] == best]
    return leaders if len(leaders) == 1 else []
