"""Buck Euchre on the wire: the turn-up, trump and maker of its view, who dropped out, and the
whole hand in its score (trump, maker, the turn-up and whether it was turned down, the dealer's
discard, the kitty, a sweep, each player's requirement and penalty)."""

from __future__ import annotations

from functools import lru_cache

from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import score_pb2, view_pb2
from engine.core.cards import CARD_NAMES
from engine.games.buck_euchre import NO_TRUMP, BuckEuchreHandRecord, BuckEuchreRules, BuckEuchreSeat

from .base import SHARED_ACTION_KINDS, SHARED_PHASES, SUITS, WireAdapter


def view_rules(m: view_pb2.GameView, r: BuckEuchreRules) -> None:
    """The GameView ``buck_euchre`` case (the dealer's discard only as the engine shows it: to the
    dealer alone, once it discarded)."""
    sub = m.buck_euchre
    sub.SetInParent()
    if r.trump is not None:
        sub.trump = SUITS[r.trump]
    sub.no_trump = r.no_trump
    if r.turn_up is not None:
        sub.turn_up = CARD_NAMES[r.turn_up]
    sub.turn_up_turned_down = r.turn_up_turned_down
    if r.maker is not None:
        sub.maker = r.maker
    if r.dealer_discard is not None:
        sub.dealer_discard = CARD_NAMES[r.dealer_discard]


@lru_cache(maxsize=8)
def _seat_view(facts: BuckEuchreSeat) -> view_pb2.BuckEuchreSeatView:
    return view_pb2.BuckEuchreSeatView(dropped_out=facts.dropped_out)


def seat_rules(facts: BuckEuchreSeat) -> dict[str, view_pb2.BuckEuchreSeatView]:
    """The SeatView ``buck_euchre`` case of one seat (a cached message)."""
    return {"buck_euchre": _seat_view(facts)}


def hand_rules(m: score_pb2.HandScore, record: BuckEuchreHandRecord, viewer: int | None) -> None:
    """The Buck Euchre breakdown of a hand: each player's requirement (its side's contract), drop,
    maker mark and penalty, and the hand's trump, maker, turn-up, discard, kitty and sweep."""
    for e in record.seats:
        seat = m.seats[e.seat].buck_euchre
        seat.SetInParent()
        seat.dropped_out, seat.is_maker, seat.penalty = not e.active, e.is_maker, e.penalty
        m.sides[e.seat].contract = e.requirement
    hand = m.buck_euchre
    hand.SetInParent()
    if 0 <= record.trump < 4:
        hand.trump = SUITS[record.trump]
    hand.no_trump = record.trump == NO_TRUMP
    if record.maker >= 0:
        hand.maker = record.maker
    hand.turn_up = record.turn_up
    if record.swept_by >= 0:
        hand.swept_by = record.swept_by
    hand.turn_up_turned_down = record.turned_down
    hand.dealer_discard = record.dealer_discard
    hand.kitty.extend(record.kitty.split())
    hand.clubs_forced = record.clubs
    hand.contested = record.contested


PHASES = {**SHARED_PHASES, "order_up": enums.PHASE_ORDER_UP, "dealer_discard": enums.PHASE_DEALER_DISCARD,
          "name_trump": enums.PHASE_NAME_TRUMP, "drop_out": enums.PHASE_DROP_OUT}
ACTION_KINDS = {**SHARED_ACTION_KINDS, "exchange": enums.ACTION_KIND_EXCHANGE, "order-up": enums.ACTION_KIND_ORDER_UP,
                "pass": enums.ACTION_KIND_PASS, "name": enums.ACTION_KIND_NAME_SUIT, "stay": enums.ACTION_KIND_STAY_IN,
                "drop": enums.ACTION_KIND_DROP_OUT}

ADAPTER = WireAdapter(name="buck_euchre", options_case="buck_euchre", view_rules=view_rules,
                      seat_rules=seat_rules, hand_rules=hand_rules, phases=PHASES, action_kinds=ACTION_KINDS)
