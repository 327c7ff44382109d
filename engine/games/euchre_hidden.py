"""What a seat cannot see in a hand of the Euchre family (Buck Euchre, Euchre), and the states built
from its view for search bots (``engine.core.hidden``): the other hands, the kitty and the dealer's
discard, around the turn-up that every seat saw.

Each game says where its turn-up is when the viewer cannot see it (``turn_up``: ``"hand"``, in
the dealer's hand; ``"discard"``, the dealer's discard; ``""``, known or not taken) and whether
the dealer's discard is a hidden place; the places and the filling of a state are the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.cards import EUCHRE_DECK, Card
from ..core.hidden import Hidden, Place, filled, mask, public_cards, restore_table, shown_out
from ..core.table import Phase
from ..core.views import View

KITTY_SIZE = 3
"""The kitty's face-down cards: the 24-card deck less four hands of five and the turn-up."""

TURN_UP_IN_HAND, TURN_UP_DISCARDED = "hand", "discard"
"""Where a turn-up the viewer cannot see is: in the dealer's hand, or the dealer's discard."""


def between_hands(view: View) -> bool:
    """Whether the view is of no hand in play (before a deal, or the game over): nothing hidden."""
    return view.phase in (Phase.DEAL, Phase.GAME_OVER)


def hidden_places(view: View, masks: Sequence[int], turn_up: str, discard_hidden: bool) -> Hidden:
    """The cards ``view``'s seat cannot see and the places they may be in: each other seat's hand
    (its count less a turn-up it holds unseen, ``turn_up`` ``"hand"``; none of a suit it showed out
    of, by the trump's suit ``masks``), the kitty, and the dealer's discard when ``discard_hidden``.
    Known: the viewer's hand, the cards played, the turn-up, a discard the view shows."""
    if between_hands(view):
        return Hidden(0, ())
    rules = view.rules
    up = rules.turn_up
    assert up is not None    # every view of a hand in play shows the turn-up
    known = mask(view.hand) | public_cards(view) | 1 << up
    if rules.dealer_discard is not None:
        known |= 1 << rules.dealer_discard
    unknown = EUCHRE_DECK & ~known
    dealer_holds_it = turn_up == TURN_UP_IN_HAND
    places = []
    for info in view.seats:
        s = info.seat
        if s == view.viewer:
            continue
        count = info.card_count - (s == view.dealer and dealer_holds_it)
        places.append(Place("hand", s, count, unknown & ~shown_out(view, s, masks)))
    places.append(Place("kitty", -1, KITTY_SIZE, unknown))
    if discard_hidden:
        places.append(Place("discard", view.dealer, 1, unknown))
    return Hidden(unknown, tuple(p for p in places if p.size))


def fill_state(state: Any, view: View, places: Hidden, fills: Sequence[Sequence[Card]], turn_up: str) -> bool:
    """Set in ``state`` (a new state of the view's game, a Buck Euchre or Euchre state: both have
    the turn-up, kitty and discard fields set here) what every Euchre game shares: the table,
    the viewer's hand, and, in a hand in play, the other hands, the kitty, the turn-up (into the
    dealer's hand when ``turn_up`` is ``"hand"``, as its discard when ``"discard"``) and the
    dealer's discard, from ``places`` (the view's hidden places) holding ``fills``. False for a
    view between hands (then only the table and the viewer's hand are set): the game has nothing
    of its own to set either."""
    me = view.viewer
    assert me is not None
    restore_table(state, view)
    hands = state.hands
    hands[me] = mask(view.hand)
    state.looked = 15 if view.hand is not None else 0
    if between_hands(view):
        return False
    got = filled(places, fills)
    for s in range(4):
        if s != me:
            hands[s] = mask(got.get(("hand", s)))
    rules = view.rules
    up = rules.turn_up
    assert up is not None
    if turn_up == TURN_UP_IN_HAND:
        hands[view.dealer] |= 1 << up
    state.turnup = up
    state.kitty = mask(got.get(("kitty", -1)))
    state.turned_down = rules.turn_up_turned_down
    if rules.dealer_discard is not None:
        state.dealer_discard = rules.dealer_discard
    elif turn_up == TURN_UP_DISCARDED:
        state.dealer_discard = up
    elif ("discard", view.dealer) in got:
        state.dealer_discard = got[("discard", view.dealer)][0]
    return True
