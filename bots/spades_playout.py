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
table with jokers plays from its view (a joker is a spade there).
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
from engine.games.spades import (
    STANDARD,
    SpadesState,
    Trumps,
    allowed_numbers,
    bid_refusal,
    bids_allowed,
    exchange_choice,
    trailing,
    trumps_of,
)
from engine.games.spades2 import Spades2State
from engine.games.spades2 import exchange_choice as exchange_choice_two
from engine.games.spades_scoring import DOUBLE_NIL_BID
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
from .playout import equivalent_cards
from .registry import register_game
from .sampling import sample_fills
from .spades_play import is_nil, play_card

GAME_VALUE = 250       # points a game won (or lost) with this hand is worth beyond the hand's own
BID_WINDOW = 2         # bids searched: the basic bot's bid, this many either side, and Nil ...
NIL_SEARCH_BELOW = 4.5  # ... when the basic estimate is below this
BID_LIKELIHOOD = (1.0, 0.45, 0.12, 0.03)   # of a bid 0, 1, 2, 3+ tricks from the basic bot's for the hand
REDRAW_TRIES = 4
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


def plain_bidding(options) -> bool:
    """Whether the basic bot's bid is the plain one (the sheet's bidding, the plain deck): the one
    ``bid_for`` remembers."""
    return (options.trumps == STANDARD and options.bidding == STANDARD and not options.min_team_bid
            and not options.blind_nil_when_behind)


@lru_cache(maxsize=1 << 16)
def bid_for(cards: int, variant: str, partner_bid: int) -> int:
    """The tricks the basic bot bids with the hand ``cards`` (0: Nil), its partner having bid
    ``partner_bid`` (remembered: the same hands come up again and again in a search)."""
    hand = card_list(cards)
    est = basic.estimate(hand, variant)
    if not is_nil(partner_bid) and est < basic.NIL_BELOW[variant] and basic.nil_ok(hand):
        return 0
    tricks = max(1, int(est - basic.BID_MARGIN[variant] + 0.5))
    most = basic.HAND_SIZE[variant]
    room = most - partner_bid if partner_bid > 0 else most
    return max(1, min(tricks, room))


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


class SpadesPlayout:
    """The playout policy and hand value of both Spades variants."""

    card = staticmethod(play_card)

    def act(self, table: TableState, seat: int, rng: random.Random) -> Action:
        """The basic bot's action for ``seat``."""
        state = cast(SpadesState, table)
        phase = state.phase
        if phase == _PLAY_PHASE:
            return play(play_card(state, seat))
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
        """A random deal the view allows; in two-player Spades, the other player's cards (those
        it holds, played and discarded) paired into the draw turns it took them in and split by
        the basic bot's keep-or-discard rule, so it holds the spades and high cards a drawer keeps."""
        fills = sample_fills(hidden, rng)
        if view.variant == "spades2":
            return redraw(view, hidden, fills, rng)
        return fills

    def likelihood(self, view: View, table: TableState, floor: float = 0.0) -> float:
        """How well the world's hands explain the bids: each other seat's bid against the basic
        bot's bid for its hand as dealt (``BID_LIKELIHOOD`` by how far apart they are)."""
        world = cast(SpadesState, table)
        me = view.viewer
        n = world.n
        first = (world.dealer + 1) % n if n != 2 else 1 - world.dealer
        order = [(first + i) % n for i in range(n)]
        weight = 1.0
        for info in view.seats:
            s = info.seat
            if s == me or info.bid is None or world.xgiven[s] != NO_CARD:
                continue
            dealt = world.hands[s] | world.played[s]
            partner = s ^ 2 if n == 4 and order.index(s ^ 2) < order.index(s) else -1
            partner_bid = world.bids[partner] if partner >= 0 else NO_BID
            options = world.options
            if plain_bidding(options):
                guess = bid_for(dealt, world.variant, partner_bid)
            else:
                spades = (dealt & trumps_of(options).spades).bit_count()
                allowed = allowed_numbers(options, partner_bid, spades, world.MOST_BID) if n != 2 else list(range(14))
                guess = basic.choose_bid(card_list(dealt), world.variant, options, partner_bid, allowed)
            weight *= BID_LIKELIHOOD[min(abs(guess - info.bid), len(BID_LIKELIHOOD) - 1)]
            if weight < floor:
                break
        return weight

    def candidates(self, view: View, legal: Sequence[Action]) -> list[Action]:
        """Cards once per run of equal cards; bids near the basic bot's, and Nil on weak hands
        (never a blind Double Nil)."""
        if view.phase == Phase.PLAY:
            hand = sum(1 << c for c in view.hand or [])
            gone = public_cards(view)
            rules = trick_rules(trumps_of(view.options))
            return [play(c) for c in equivalent_cards([payload_of(a) for a in legal], hand, gone, rules)]
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


def keeps(card: int) -> bool:
    """Whether the basic bot keeps ``card`` when it is offered first in the two-player draw."""
    return card >= 39 or card % 13 + 2 >= basic.KEEP_RANK


def redraw(view: View, hidden: Hidden, fills: list[list[int]], rng: random.Random,
           tries: int = REDRAW_TRIES) -> list[list[int]]:
    """Two-player Spades: re-split the other player's drawn cards (its hand's place and its
    discards' place in ``fills``) as the draw would have: each card it played is kept with a
    random discard beside it, the rest go in random pairs of which the first is kept if it is
    a spade or high, else the second. A split that breaks a void (or an exchange that may have
    drawn from the pile) leaves the uniform deal as it was."""
    me = view.viewer
    assert me is not None
    opp = 1 - me
    where = {(p.what, p.seat): i for i, p in enumerate(hidden.places)}
    if ("drawn", opp) in where or ("hand", opp) not in where:
        return fills
    hand_i = where[("hand", opp)]
    pile_i = where.get(("discards", opp), where.get(("pile", -1)))
    if pile_i is None:
        return fills
    allowed = hidden.places[hand_i].allowed
    pool = fills[hand_i] + fills[pile_i]
    kept_before = len(view.seats[opp].played)
    for _ in range(tries):
        cards = [pool[i] for i in sorted(range(len(pool)), key=lambda _: rng.random())]
        discards = cards[:kept_before]             # beside the cards it has played
        rest = cards[kept_before:]
        hand = []
        for k in range(0, len(rest) - 1, 2):
            first, second = rest[k], rest[k + 1]
            kept, gone = (first, second) if keeps(first) else (second, first)
            hand.append(kept)
            discards.append(gone)
        if len(hand) == hidden.places[hand_i].size and all(allowed >> c & 1 for c in hand):
            out = [list(f) for f in fills]
            out[hand_i], out[pile_i] = hand, discards
            return out
    return fills


def _bid_candidates(view: View, legal: Sequence[Action]) -> list[Action]:
    hand = view.hand or []
    est = basic.estimate(hand, view.variant, trumps_of(view.options))
    me = view.viewer
    assert me is not None
    partner = view.seats[me ^ 2] if view.variant == "spades" else None
    partner_nil = partner is not None and (partner.bid == 0 or partner.rules.double_nil)
    centre = int(est - basic.BID_MARGIN[view.variant] + 0.5)
    wanted = {bid(t) for t in range(max(1, centre - BID_WINDOW), centre + BID_WINDOW + 1)}
    if not partner_nil and est < NIL_SEARCH_BELOW:
        wanted.add(bid(0))
    out = [a for a in legal if a in wanted]
    return out or [a for a in legal if kind_of(a) == SpadesCode.BID][:1]


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
