"""Four-player Spades on the wire, and the parts two-player Spades shares: the seat facts and the
hand's breakdown (bids, Nil results, exchanges, each side's points by source, and what the table
settings did: forced bids, Nil exchanges, failed Nil tricks counted for the partner, the losing
score reached)."""

from __future__ import annotations

from functools import lru_cache

from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import score_pb2, view_pb2
from engine.games.spades_scoring import DOUBLE_NIL_BID, NilScore
from engine.games.spades_state import SpadesHandRecord, SpadesRules, SpadesSeat

from .base import SHARED_ACTION_KINDS, SHARED_PHASES, WireAdapter, names

NIL_RESULTS = {"none": score_pb2.NIL_RESULT_NONE, "made": score_pb2.NIL_RESULT_MADE,
               "failed": score_pb2.NIL_RESULT_FAILED}
"""The proto NilResult of each engine Nil outcome."""


def view_rules(m: view_pb2.GameView, r: SpadesRules) -> None:
    """The GameView ``spades`` case: spades broken and the caller's side of the exchange."""
    m.spades.SetInParent()
    m.spades.spades_broken = r.spades_broken
    m.spades.exchange_given.extend(names(r.exchange_given))
    m.spades.exchange_received.extend(names(r.exchange_received))


@lru_cache(maxsize=64)
def _seat_view(facts: SpadesSeat) -> view_pb2.SpadesSeatView:
    return view_pb2.SpadesSeatView(double_nil=facts.double_nil, has_looked=facts.has_looked,
                                   exchange_done=facts.exchange_done, bid_forced=facts.bid_forced)


def seat_rules(facts: SpadesSeat) -> dict[str, view_pb2.SpadesSeatView]:
    """The SeatView ``spades`` case of one seat (a cached message: sixteen combinations)."""
    return {"spades": _seat_view(facts)}


def hand_rules(m: score_pb2.HandScore, record: SpadesHandRecord, viewer: int | None) -> None:
    """The Spades breakdown of a hand (either Spades game): each side's contract and points by
    source, each seat's bid (and whether the table's settings forced it) and Nil result (and the
    tricks a failed Nil counted for its partner), who exchanged which cards and why, and the
    sides the hand left at or below the losing score."""
    nil_by_seat: dict[int, NilScore] = {}
    for side in record.sides:
        out = m.sides[side.side]
        out.contract, out.tricks, out.contract_points = side.contract, side.tricks, side.contract_points
        out.bags_gained, out.nil_points, out.bag_penalty = side.bags_gained, side.nil_points, side.bag_penalty
        out.bags_after = side.bags_after
        for nil in side.nils:
            nil_by_seat[nil.seat] = nil
    for seat, s in enumerate(m.seats):
        bid = record.bids[seat]
        if bid >= 0:
            s.bid_tricks = bid
        part = s.spades
        part.SetInParent()
        part.double_nil = bid == DOUBLE_NIL_BID
        found = nil_by_seat.get(seat)
        part.nil_result = NIL_RESULTS[found.result] if found is not None else score_pb2.NIL_RESULT_NONE
        part.nil_points = found.points if found is not None else 0
        part.tricks_for_partner = found.for_partner if found is not None else 0
        part.bid_forced = seat < len(record.forced) and record.forced[seat]
    m.spades.SetInParent()
    for exchange in record.exchanges:
        given = exchange.gave.split()
        m.spades.exchanges.add(seat=exchange.seat, given=given, received=exchange.got.split(), card_count=len(given),
                               nil=exchange.nil)
    m.spades.losing_sides.extend(record.losing_sides)


PHASES = {**SHARED_PHASES, "draw": enums.PHASE_DRAW, "bid": enums.PHASE_BID, "exchange": enums.PHASE_EXCHANGE}
ACTION_KINDS = {**SHARED_ACTION_KINDS, "reveal": enums.ACTION_KIND_REVEAL, "keep": enums.ACTION_KIND_DRAW_KEEP,
                "discard": enums.ACTION_KIND_DRAW_DISCARD, "bid": enums.ACTION_KIND_BID,
                "double-nil": enums.ACTION_KIND_DOUBLE_NIL, "exchange": enums.ACTION_KIND_EXCHANGE}

ADAPTER = WireAdapter(name="spades", options_case="spades", view_rules=view_rules, seat_rules=seat_rules,
                      hand_rules=hand_rules, phases=PHASES, action_kinds=ACTION_KINDS)
