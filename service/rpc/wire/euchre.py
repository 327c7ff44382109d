"""Euchre on the wire, in the messages it shares with Buck Euchre (no message of its own).

A view's ``buck_euchre`` case carries the turn-up (for the whole hand: everyone saw it), whether it
was turned down, trump, the maker and the dealer's discard (the dealer's view alone); a seat's
``buck_euchre`` case says whether it sits the hand out (``dropped_out``). Going alone needs no
field of its own: the maker's last call says it (``order-alone``, ``name-alone H``), as a lone
defender's does (``defend-alone``), and the partner of each sits out. A hand's score carries trump,
the maker, the turn-up, the discard and the kitty, the makers' contract (3 tricks) and, per seat,
the maker and who sat out; a thrown-in hand has neither trump nor maker and is not contested.
Euchre's settings travel by name (``RuleOptions.settings``).
"""

from __future__ import annotations

from functools import lru_cache

from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import score_pb2, view_pb2
from engine.core.cards import CARD_NAMES
from engine.games.euchre import MAKERS_NEED, EuchreHandRecord, EuchreRules, EuchreSeat

from .base import SHARED_ACTION_KINDS, SHARED_PHASES, SUITS, WireAdapter


def view_rules(m: view_pb2.GameView, r: EuchreRules) -> None:
    """The GameView ``buck_euchre`` case (the dealer's discard only as the engine shows it: to the
    dealer alone, once it discarded)."""
    sub = m.buck_euchre
    sub.SetInParent()
    if r.trump is not None:
        sub.trump = SUITS[r.trump]
    if r.turn_up is not None:
        sub.turn_up = CARD_NAMES[r.turn_up]
    sub.turn_up_turned_down = r.turn_up_turned_down
    if r.maker is not None:
        sub.maker = r.maker
    if r.dealer_discard is not None:
        sub.dealer_discard = CARD_NAMES[r.dealer_discard]


@lru_cache(maxsize=4)
def _seat_view(facts: EuchreSeat) -> view_pb2.BuckEuchreSeatView:
    return view_pb2.BuckEuchreSeatView(dropped_out=facts.sitting_out)


def seat_rules(facts: EuchreSeat) -> dict[str, view_pb2.BuckEuchreSeatView]:
    """The SeatView ``buck_euchre`` case of one seat: whether it sits out (a cached message)."""
    return {"buck_euchre": _seat_view(facts)}


def hand_rules(m: score_pb2.HandScore, record: EuchreHandRecord, viewer: int | None) -> None:
    """The Euchre breakdown of a hand: per seat whether it sat out and whether it made trump, the
    makers' contract, and the hand's trump, maker, turn-up, discard and kitty."""
    for seat in range(4):
        facts = m.seats[seat].buck_euchre
        facts.SetInParent()
        facts.dropped_out, facts.is_maker = seat in record.sitting_out, seat == record.maker
    if record.maker >= 0:
        m.sides[record.maker % 2].contract = MAKERS_NEED
    hand = m.buck_euchre
    hand.SetInParent()
    if record.trump >= 0:
        hand.trump = SUITS[record.trump]
    if record.maker >= 0:
        hand.maker = record.maker
    hand.turn_up = record.turn_up
    hand.turn_up_turned_down = record.turned_down
    hand.dealer_discard = record.dealer_discard
    hand.kitty.extend(record.kitty.split())
    hand.contested = not record.thrown_in


PHASES = {**SHARED_PHASES, "order_up": enums.PHASE_ORDER_UP, "dealer_discard": enums.PHASE_DEALER_DISCARD,
          "name_trump": enums.PHASE_NAME_TRUMP}
"""The older Phase values of the phases Euchre shares with Buck Euchre (its defend-alone round has none)."""
ACTION_KINDS = {**SHARED_ACTION_KINDS, "exchange": enums.ACTION_KIND_EXCHANGE, "order": enums.ACTION_KIND_ORDER_UP,
                "pass": enums.ACTION_KIND_PASS, "name": enums.ACTION_KIND_NAME_SUIT}
"""The older ActionKind values of the words Euchre shares with Buck Euchre (going alone has none)."""

ADAPTER = WireAdapter(name="euchre", options_case="euchre", view_rules=view_rules, seat_rules=seat_rules,
                      hand_rules=hand_rules, phases=PHASES, action_kinds=ACTION_KINDS)
