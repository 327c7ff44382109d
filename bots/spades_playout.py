"""The fast playout policy of every Spades game: the basic bot's decisions, read straight from a
(determinized) state.

A search improves on the policy it plays hands out with (a rollout algorithm), and it judges its
choices best when the playouts play as the table does; so every seat plays exactly as the basic
bot (``bots.spades``) would from its own view, which tests pin, but from the state's bit sets
instead of a view and a list of legal actions: a move costs a few microseconds. Nobody in a
playout looks at another seat's cards.

A hand is worth, to a side, its points in the hand less the bags it took at their eventual price
(``bag_penalty / bag_limit`` each), against the other side's (in Cutthroat Spades, against the
mean of the other two players'); winning or losing the game with it counts ``GAME_VALUE`` more.

Under the table settings every seat still plays as the basic bot: it bids within the bids the
settings allow (as the engine lists them), exchanges the cards the settings ask for, and at a
table with jokers plays as from its view (a joker is a spade there; ``bots.spades_play_jokers``).

The search deals the unseen cards as the seats' bids and exchanges say they lie
(``bots.spades_deals``), and searches the basic bot's own choice first among its candidates, so
a tie on the sampled deals goes to it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache
from typing import cast

from engine import Action, Hidden, Phase, TableState, View
from engine.core.actions import DEAL, kind_of, payload_of, play
from engine.core.cards import SPADES, card_list
from engine.core.hidden import public_cards
from engine.core.tricks import SPADES_RULES, TrumpRules
from engine.games.spades import exchange_choice
from engine.games.spades2 import Spades2State
from engine.games.spades2 import exchange_choice as exchange_choice_two
from engine.games.spades_bidding import bid_refusal, bids_allowed, trailing
from engine.games.spades_deck import Trumps, trumps_of
from engine.games.spades_scoring import DOUBLE_NIL_BID
from engine.games.spades_state import STANDARD, SUICIDE, SpadesState
from engine.games.spades_words import (
    DOUBLE_NIL,
    DRAW_DISCARD,
    DRAW_KEEP,
    REVEAL,
    SpadesCode,
    SpadesPhase,
    bid,
    exchange,
)

from . import spades as basic
from . import spades_deals
from .playout import equivalent_cards
from .registry import register_game
from .spades_deals import bid_for, plain_bidding
from .spades_play import play_card
from .spades_play_jokers import play_card_jokers

GAME_VALUE = 250       # points a game won (or lost) with this hand is worth beyond the hand's own
BID_WINDOW = 1         # bids searched: the basic bot's bid, this many either side, and Nil ...
NIL_SEARCH_BELOW = 4.5  # ... when the basic estimate is below this
NO_BID, NO_CARD = -1, -1
_PLAY_PHASE, _BID_PHASE, _DRAW_PHASE, _EXCHANGE_PHASE = (
    SpadesPhase.PLAY, SpadesPhase.BID, SpadesPhase.DRAW, SpadesPhase.EXCHANGE)


def bid_action(state: SpadesState, seat: int) -> Action:
    """The basic bot's bid, from the seat's cards in the state: Double Nil blind only where the
    basic bot bids it (far behind, at a table that allows it only then), else it looks and bids
    within what the table's settings allow."""
    partner_bid = state.bids[seat ^ 2] if state.n == 4 else NO_BID
    options = state.options
    if not plain_bidding(options):
        if state.n != 2:             # two players bid after the draw, Double Nil long since declared
            deficit = trailing(state.scores, seat % state.sides)
            if (basic.blind_nil_wanted(options, deficit, partner_bid)
                    and bid_refusal(state, seat, DOUBLE_NIL_BID) is None):
                return DOUBLE_NIL
            allowed = [payload_of(a) for a in bids_allowed(state, seat) if kind_of(a) == SpadesCode.BID]
        else:
            allowed = list(range(14))
        return bid(basic.choose_bid(card_list(state.hands[seat]), state.variant, options, partner_bid, allowed))
    return bid(bid_for(state.hands[seat], state.variant, partner_bid))


def draw_action(state: Spades2State, seat: int) -> Action:
    """Two-player draw: keep spades and high cards (the basic bot's rule); in the first draw turn,
    Double Nil where the basic bot declares it (far behind, at a table that allows it only then)."""
    options = state.options
    if (options.blind_nil_when_behind and options.double_nil_allowed and state.draw_turns[seat] == 0
            and state.bids[seat] != DOUBLE_NIL_BID
            and basic.blind_nil_wanted(options, state.scores[1 - seat] - state.scores[seat], NO_BID)):
        return DOUBLE_NIL
    card = state.offered
    keep = card >= 39 or card % 13 + 2 >= basic.KEEP_RANK
    return DRAW_KEEP if keep else DRAW_DISCARD


def exchange_action(state: SpadesState, seat: int) -> Action:
    """The exchange as the basic bot chooses: the Double Nil seat (or the Nil seat of an exchange
    for Nil) gives its most dangerous cards, its partner its lowest side cards; the two-player
    put-aside gives up to three high cards."""
    if state.n == 2:
        choice = exchange_choice_two(cast(Spades2State, state), seat)
    else:
        choice = exchange_choice(state, seat)
    if choice is None:
        return exchange(0)
    cards, fewest, most, _ = choice
    bids = state.bids
    high = bids[seat] == DOUBLE_NIL_BID or (state.n == 4 and bids[seat] == 0 and bids[seat ^ 2] != DOUBLE_NIL_BID)
    table = trumps_of(state.options)
    return exchange(sum(1 << c for c in basic.exchange_cards(card_list(cards), fewest, most, high, table)))


def card_of(state: SpadesState, seat: int) -> int:
    """The card the basic bot plays for ``seat`` (in turn in trick play), from the state's bit
    sets at any table (``bots.spades_play``; with jokers, ``bots.spades_play_jokers``)."""
    if state.options.trumps != STANDARD:
        return play_card_jokers(state, seat)
    return play_card(state, seat)


class SpadesPlayout:
    """The playout policy and hand value of both Spades variants."""

    card = staticmethod(card_of)
    likeliest = True   # a deal no draw keeps is the likeliest drawn: bids and exchanges say much

    def act(self, table: TableState, seat: int, rng: random.Random) -> Action:
        """The basic bot's action for ``seat``."""
        state = cast(SpadesState, table)
        phase = state.phase
        if phase == _PLAY_PHASE:
            return play(card_of(state, seat))
        if phase == _BID_PHASE:
            return bid_action(state, seat)
        if phase == _DRAW_PHASE:
            return draw_action(cast(Spades2State, state), seat)
        if phase == _EXCHANGE_PHASE:
            return exchange_action(state, seat)
        return DEAL

    def value(self, start: TableState, end: TableState, seat: int) -> float:
        """The side's points less its bags at their price, against the other side's (three
        players: the mean of the others'), and the game."""
        before, after = cast(SpadesState, start), cast(SpadesState, end)
        sides = after.sides
        side = seat % sides
        options = after.options
        price = options.bag_penalty / options.bag_limit
        gain = [after.scores[s] - before.scores[s] - price * (after.bags[s] - before.bags[s]) for s in range(sides)]
        if sides == 2:
            v = gain[side] - gain[1 - side]
        else:
            v = gain[side] - (sum(gain) - gain[side]) / (sides - 1)
        if after.winner:
            v += GAME_VALUE if after.winner == [side] else -GAME_VALUE
        return v

    def deal(self, view: View, hidden: Hidden, rng: random.Random) -> list[list[int]]:
        """A random deal the view allows, as the seats would have come to hold their cards
        (``bots.spades_deals.deal``: a partner's exchange, the two-player draw)."""
        return spades_deals.deal(view, hidden, rng)

    def likelihood(self, view: View, table: TableState, floor: float = 0.0) -> float:
        """How well the world's hands explain the bids and exchanges (``bots.spades_deals``)."""
        return spades_deals.likelihood(view, table, floor)

    def candidates(self, view: View, legal: Sequence[Action]) -> list[Action]:
        """Cards once per run of equal cards; bids near the basic bot's, and Nil on weak hands
        (never a blind Double Nil). The basic bot's own choice comes first, so that the search
        keeps to it unless another does better on the deals (a tie goes to the first)."""
        if view.phase == Phase.PLAY:
            hand = sum(1 << c for c in view.hand or [])
            gone = public_cards(view)
            rules = trick_rules(trumps_of(view.options))
            cards = [payload_of(a) for a in legal]
            kept = equivalent_cards(cards, hand, gone, rules)
            own = basic._play(view, cards)
            return [play(own)] + [play(c) for c in kept if len(equivalent_cards([c, own], hand, gone, rules)) > 1]
        if view.phase == SpadesPhase.BID:
            return _bid_candidates(view, legal)
        return [a for a in legal if a != DOUBLE_NIL and a != REVEAL]

    def shortcut(self, view: View, legal: Sequence[Action], rng: random.Random) -> Action | None:
        """Double Nil blind or look before bidding, as the basic bot does; choose exchange cards
        and two-player draws as the basic bot does (searching the draw, a whole hand played out for
        each choice, measured no better)."""
        if REVEAL in legal:                 # not looked yet: Double Nil blind, or look
            return basic.choose(view, legal, rng)
        if view.phase == SpadesPhase.EXCHANGE or view.phase == SpadesPhase.DRAW:
            return basic.choose(view, legal, rng)
        return None


def _bid_candidates(view: View, legal: Sequence[Action]) -> list[Action]:
    """The bids worth searching, the basic bot's first: those within ``BID_WINDOW`` of its
    estimate less the margin, and Nil on a hand estimated below ``NIL_SEARCH_BELOW``. In Suicide
    the first of a pair to bid takes Nil or a number as the basic bot does (Nil with the weaker
    hand of the pair: a search of that choice, over the partner's unseen hand, was measured worse)."""
    hand = view.hand or []
    est = basic.estimate(hand, view.variant, trumps_of(view.options))
    me = view.viewer
    assert me is not None
    partner = view.seats[me ^ 2] if view.variant == "spades" else None
    partner_nil = partner is not None and (partner.bid == 0 or partner.rules.double_nil)
    own = basic._bid(view, legal)
    if kind_of(own) != SpadesCode.BID:
        own = next(a for a in legal if kind_of(a) == SpadesCode.BID)
    centre = int(est - basic.BID_MARGIN[view.variant] + 0.5)
    wanted = {bid(t) for t in range(max(1, centre - BID_WINDOW), centre + BID_WINDOW + 1)}
    if not partner_nil and est < NIL_SEARCH_BELOW:
        wanted.add(bid(0))
    if partner is not None and partner.bid is None and not partner.rules.double_nil and suicide(view.options):
        if own == bid(0):
            return [own]
        wanted.discard(bid(0))
    return [own] + [a for a in legal if a in wanted and a != own]


def suicide(options) -> bool:
    """Whether a table bids Suicide (one partner of each pair Nil)."""
    return getattr(options, "bidding", STANDARD) == SUICIDE


@lru_cache(maxsize=8)
def trick_rules(table: Trumps) -> TrumpRules:
    """The trick rules of a table's deck, for telling equally good cards apart: spades (jokers
    included) trump, each card as strong as the table ranks it."""
    if table.name == STANDARD:
        return SPADES_RULES
    rules = TrumpRules(SPADES, bowers=False)
    rules.suit = list(table.suit)
    rules.power = list(table.power)
    rules.masks = list(table.masks)
    return rules


PLAYOUT = SpadesPlayout()
"""The policy of every Spades game (each reads its game from the state)."""

# The Spades games' bots entries: the basic heuristic, this policy and the default search budget.
# bench-bots plays 400 four-player games (its figures and variable say "spades4"), 800
# two-player ones (they are quick, and 200 would leave an interval twice as wide) and 400 of
# Cutthroat Spades.
register_game("spades", basic=basic.choose, playout=PLAYOUT)
register_game("spades2", basic=basic.choose, playout=PLAYOUT)
register_game("cutthroat_spades", basic=basic.choose, playout=PLAYOUT)
