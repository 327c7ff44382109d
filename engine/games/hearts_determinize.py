"""Hearts for search bots (``engine.core.hidden``): the cards a seat cannot see and the places they
may be in (the other hands, and during the pass the cards each seat chose to pass), and the states
built from its view with those places filled."""

from __future__ import annotations

from collections.abc import Sequence

from ..core.cards import BITS, SUIT_MASKS
from ..core.hidden import Hidden, Place, filled, mask, public_cards, restore_table, shown_out
from ..core.table import NOBODY
from ..core.views import View
from .hearts_state import (
    DIRECTION_LETTERS,
    PASS_SIZE,
    TWO_OF_CLUBS,
    HeartsRules,
    HeartsState,
    deck_mask,
    new_state,
    offset_of,
)
from .hearts_words import HeartsPhase as Phase


def _before_first_lead(view: View) -> bool:
    """Whether the first trick of the hand is still to be led (the seat in turn holds the 2♣)."""
    return view.phase == Phase.PLAY and not view.trick and not any(info.played for info in view.seats)


def hidden(view: View) -> Hidden:
    """The cards the viewer cannot see: the other hands, less the cards it passed (in its
    receiver's hand once delivered); during the pass, the three cards each seat that has passed
    chose (a "gift" place). Before the first lead the seat in turn holds the 2♣."""
    me = view.viewer
    assert me is not None
    if view.phase not in (Phase.PASS, Phase.PLAY):
        return Hidden(0, ())
    rules: HeartsRules = view.rules
    given, received = mask(rules.pass_given), mask(rules.pass_received)
    known = mask(view.hand) | public_cards(view)
    n = len(view.seats)
    to = (me + offset_of(DIRECTION_LETTERS[rules.pass_direction], n)) % n
    at_receiver = given & ~known if received else 0
    unknown = deck_mask(view.options) & ~known & ~at_receiver
    leader = view.turn if _before_first_lead(view) else None
    places = []
    for info in view.seats:
        s = info.seat
        if s == me:
            continue
        allowed = unknown & ~shown_out(view, s, SUIT_MASKS)
        if leader is not None and s != leader:
            allowed &= ~BITS[TWO_OF_CLUBS]
        count = info.card_count - (at_receiver.bit_count() if s == to else 0)
        if view.phase == Phase.PASS and info.rules.passed:
            places.append(Place("gift", s, PASS_SIZE, allowed))
            count -= PASS_SIZE
        if count:
            places.append(Place("hand", s, count, allowed))
    return Hidden(unknown, tuple(places))


def determinize(view: View, places: Hidden, fills: Sequence[Sequence[int]]) -> HeartsState:
    """The Hearts state of ``view`` with the places of ``places`` (its ``hidden``) holding ``fills``.

    Passes the viewer cannot know (between two other seats) are kept as passes of no cards."""
    me = view.viewer
    assert me is not None
    state = new_state(view.options, view.dealer)
    n = state.n
    restore_table(state, view)
    state.looked = (1 << n) - 1 if view.hand is not None else 0
    if view.phase not in (Phase.PASS, Phase.PLAY):
        return state
    got = filled(places, fills)
    rules: HeartsRules = view.rules
    given, received = mask(rules.pass_given), mask(rules.pass_received)
    offset = offset_of(DIRECTION_LETTERS[rules.pass_direction], n)
    to, giver = (me + offset) % n, (me - offset) % n
    for s in range(n):
        state.hands[s] = mask(got.get(("hand", s))) | mask(got.get(("gift", s)))
    state.hands[me] = mask(view.hand)
    if received:
        state.hands[to] |= given & ~(mask(view.hand) | public_cards(view))
    state.broken = rules.hearts_broken
    state.taken = list(rules.points_taken)
    state.jack = rules.jack if rules.jack is not None else NOBODY
    for info in view.seats:
        s = info.seat
        if not info.rules.passed:
            continue
        if s == me:
            state.xgiven[s] = given
        elif ("gift", s) in got:
            state.xgiven[s] = mask(got[("gift", s)])
        elif s == giver:
            state.xgiven[s] = received
        else:
            state.xgiven[s] = 0          # a pass between two other seats: which cards is never shown
    if received:
        state.xgot[me], state.xgot[to] = received, given
    return state
