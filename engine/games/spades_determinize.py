"""Determinizing four-player, two-player and Cutthroat Spades: the cards a seat's view hides from
it (``hidden``: the other hands, and during an exchange the cards chosen but not yet swapped),
and a whole state built from a view with those cards filled in (``determinize``,
``restore_spades``), as the search bot samples them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from ..core.hidden import Hidden, Place, filled, mask, public_cards, restore_table, shown_out
from ..core.table import NO_BID, Seat
from ..core.views import View
from ..game import game_of
from .spades_bidding import exchange_size
from .spades_deck import trumps_of
from .spades_scoring import DOUBLE_NIL_BID
from .spades_state import SpadesRules, SpadesState
from .spades_words import SpadesPhase as Phase

_EXCHANGE_PHASE = Phase.EXCHANGE
_BETWEEN_HANDS = (Phase.DEAL, Phase.GAME_OVER)
"""Read once: an enum's member costs an attribute look-up on its class each time it is named."""

FULL_DECK = (1 << 52) - 1


def view_bids(view: View) -> list[int]:
    """Each seat's bid as the state keeps it (Double Nil and no bid included), from a view."""
    return [info.bid if info.bid is not None else DOUBLE_NIL_BID if info.rules.double_nil else NO_BID
            for info in view.seats]


def exchanging(view: View) -> int:
    """Bit per seat: the seat takes part in this hand's exchange (four-player Spades; once every
    seat has bid; none without partners)."""
    if len(view.seats) != 4:
        return 0
    bids = view_bids(view)
    return sum(15 & (5 << a) for a in (0, 1) if exchange_size(view.options, bids[a], bids[a + 2]) > 0)


def hidden(view: View) -> Hidden:
    """The cards the viewer cannot see: the other hands (its own until it looks), and during the
    exchange the cards a seat has chosen to give but not yet swapped."""
    me = view.viewer
    assert me is not None
    rules: SpadesRules = view.rules
    hand = mask(view.hand)
    known = hand | public_cards(view)
    given, received = mask(rules.exchange_given), mask(rules.exchange_received)
    partner_holds = given & ~known if received else 0   # what I gave is in my partner's hand now
    table = trumps_of(view.options)
    deck = game_of(view.variant).deck_for(view.options)
    unknown = deck & ~known & ~partner_holds if view.phase not in _BETWEEN_HANDS else 0
    places = []
    bids = view_bids(view)
    for info in view.seats:
        s = info.seat
        count = info.card_count
        if s == me:
            if view.hand is None and count:
                places.append(Place("hand", s, count, unknown))
            continue
        allowed = unknown & ~shown_out(view, s, table.masks)
        if s == me ^ 2:
            count -= partner_holds.bit_count()
        if _gift_pending(view, s):
            k = exchange_size(view.options, bids[s], bids[s ^ 2])
            places.append(Place("gift", s, k, allowed))
            count -= k
        if count:
            places.append(Place("hand", s, count, allowed))
    return Hidden(unknown, tuple(places))


def _gift_pending(view: View, s: Seat) -> bool:
    """Whether ``s`` has chosen its exchange cards and is waiting for its partner to choose."""
    seats = view.seats
    return view.phase == _EXCHANGE_PHASE and seats[s].rules.exchange_done and not seats[s ^ 2].rules.exchange_done


S = TypeVar("S", bound=SpadesState)


def restore_spades(state: S, view: View) -> S:
    """Set the Spades fields both variants share (bids, spades broken, bags, looking) from a view."""
    restore_table(state, view)
    state.bids = view_bids(view)
    state.broken = view.rules.spades_broken
    state.bags = [side.bags for side in view.sides]
    state.looked = sum(1 << info.seat for info in view.seats if info.rules.has_looked)
    state.forced = sum(1 << info.seat for info in view.seats if info.rules.bid_forced)
    return state


def determinize(view: View, places: Hidden, fills: Sequence[Sequence[int]]) -> SpadesState:
    """The four-player (or Cutthroat) Spades state of ``view`` with the places of ``places`` (its
    ``hidden``) holding ``fills``."""
    me = view.viewer
    assert me is not None
    fresh = game_of(view.variant).new_state(view.options, view.dealer)
    assert isinstance(fresh, SpadesState)
    state = restore_spades(fresh, view)
    got = filled(places, fills)
    rules: SpadesRules = view.rules
    given, received = mask(rules.exchange_given), mask(rules.exchange_received)
    hand = mask(view.hand)
    known = public_cards(view) | hand
    n = state.n
    seen = view.hand is not None
    for s in range(n):
        state.hands[s] = hand if s == me and seen else mask(got.get(("hand", s))) | mask(got.get(("gift", s)))
    if received:
        state.hands[me ^ 2] |= given & ~known
    exchange = exchanging(view)
    for info in view.seats:
        s = info.seat
        if not info.rules.exchange_done:
            continue
        if s == me:
            state.xgiven[s], state.xgot[s] = given, received
        elif _gift_pending(view, s):
            state.xgiven[s] = mask(got[("gift", s)])
        elif s == me ^ 2:
            state.xgiven[s], state.xgot[s] = received, given
        else:
            state.xgiven[s] = 0        # swapped between the other two: which cards is never shown
    if view.phase == _EXCHANGE_PHASE:
        state.xneed = sum(1 << s for s in range(n) if exchange >> s & 1 and not view.seats[s].rules.exchange_done)
    return state
