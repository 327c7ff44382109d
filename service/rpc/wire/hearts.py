"""Hearts on the wire: its options, the pass, hearts broken and the J♦'s winner in its view, who
has passed, and in its hand scores the direction, the moon, the J♦'s winner and the passes (as far
as the caller may know them: all for the game's owner, a seat's own and the one it received for
that seat, none for a spectator). Every list runs over the game's own seats (three or four)."""

from __future__ import annotations

from functools import lru_cache

from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import hearts_pb2, score_pb2, view_pb2
from engine.games.hearts_state import HeartsHandRecord, HeartsRules, HeartsSeat

from .base import EVERY_SEAT, SHARED_ACTION_KINDS, SHARED_PHASES, WireAdapter, names


def view_rules(m: view_pb2.GameView, r: HeartsRules) -> None:
    """The GameView ``hearts`` case (a seat's pass only as the engine shows it to that seat)."""
    sub = m.hearts
    sub.SetInParent()
    sub.pass_direction = r.pass_direction
    sub.hearts_broken = r.hearts_broken
    sub.points_taken.extend(r.points_taken)
    sub.pass_given.extend(names(r.pass_given))
    sub.pass_received.extend(names(r.pass_received))
    if r.jack is not None:
        sub.jack_of_diamonds_by = r.jack


@lru_cache(maxsize=4)
def _seat_view(facts: HeartsSeat) -> hearts_pb2.HeartsSeatView:
    return hearts_pb2.HeartsSeatView(passed=facts.passed)


def seat_rules(facts: HeartsSeat) -> dict[str, hearts_pb2.HeartsSeatView]:
    """The SeatView ``hearts`` case of one seat (a cached message)."""
    return {"hearts": _seat_view(facts)}


def hand_rules(m: score_pb2.HandScore, record: HeartsHandRecord, viewer: int | None) -> None:
    """The Hearts breakdown of a hand: each seat's points taken in tricks, the direction, the moon,
    the J♦'s winner, and the passes ``viewer`` may know."""
    for seat, taken in enumerate(record.taken):
        m.seats[seat].hearts.points_taken = taken
    hand = m.hearts
    hand.SetInParent()
    hand.direction = record.direction
    if record.moon >= 0:
        hand.moon_by = record.moon
    if record.jack >= 0:
        hand.jack_of_diamonds_by = record.jack
    for passed in record.passes:
        if viewer == EVERY_SEAT or viewer is not None and viewer in (passed.seat, passed.to):
            hand.passes.add(seat=passed.seat, to=passed.to, cards=passed.gave.split())


PHASES = {**SHARED_PHASES, "pass": enums.PHASE_EXCHANGE}
ACTION_KINDS = {**SHARED_ACTION_KINDS, "pass": enums.ACTION_KIND_PASS}

ADAPTER = WireAdapter(name="hearts", options_case="hearts", view_rules=view_rules, seat_rules=seat_rules,
                      hand_rules=hand_rules, phases=PHASES, action_kinds=ACTION_KINDS)
