"""The fast playout policy of Buck Euchre: the basic bot's decisions, read straight from a
(determinized) state.

As in ``bots.spades_playout``: every seat plays exactly as the basic bot (``bots.buck_euchre``)
would from its own view (pinned by tests), from the state's bit sets, looking at nobody else's
cards.

Points go down in Buck Euchre: a hand is worth to a seat the points it lost, less a fifth of the
average the other players lost, and the game won (or lost to another player) with it counts
``GAME_VALUE`` more: a player who takes all five tricks of a contested hand wins at once, and
that ends nine games in ten between basic bots, so the search weighs sweeps made and stopped
far above points.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import cast

from engine import Action, Hidden, Phase, TableState, View
from engine.core.actions import DEAL, payload_of, play
from engine.core.cards import SUITS, card_list
from engine.core.hidden import public_cards
from engine.core.tricks import euchre_rules
from engine.games.buck_euchre import BuckEuchreState
from engine.games.buck_euchre_words import DROP_OUT, ORDER_UP, PASS, STAY_IN, BuckPhase, discard, name_suit

from . import buck_euchre as basic
from .budget import Budget
from .playout import equivalent_cards
from .registry import register_game
from .sampling import sample_fills

GAME_VALUE = 200   # most games end when a player takes all five tricks: winning is what counts
OTHERS = 0.2       # the weight of the other players' points against one's own
MISS = 0.15     # the likelihood of a call the basic bot would not have made with the hand
_PLAY_PHASE = Phase.PLAY


def _trump(state: BuckEuchreState) -> int | None:
    return state.trump if 0 <= state.trump < 4 else None


def play_card(state: BuckEuchreState, seat: int) -> int:
    """The card the basic bot plays for ``seat`` (the seat in turn in trick play)."""
    rules = euchre_rules(state.trump)
    suit, power, masks, trump = rules.suit, rules.power, rules.masks, rules.trump
    hand = state.hands[seat]
    trick = state.trick_cards
    legal = (hand & masks[suit[trick[0]]] or hand) if trick else hand
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    cards = card_list(legal)
    if trick:
        _, best = rules.winner(trick)
        follow, top = suit[best], power[best]
        winners = [c for c in cards if (suit[c] == follow or suit[c] == trump) and power[c] > top]
        if winners:
            return min(winners, key=power.__getitem__)
        return min(cards, key=lambda c: (suit[c] == trump, power[c]))
    trumps = sorted((c for c in cards if suit[c] == trump), key=power.__getitem__)
    if trumps and (power[trumps[-1]] == 116 or (state.maker == seat and len(trumps) >= 2)):
        return trumps[-1]
    for c in cards:
        if suit[c] != trump and c % 13 == 12:
            return c
    side = [c for c in cards if suit[c] != trump]
    return min(side or cards, key=power.__getitem__)


def orders(hand: list[int], turn_up: int, dealer: bool) -> bool:
    """Whether the basic bot orders the turn-up with ``hand`` (the dealer: after its discard)."""
    trump = turn_up // 13
    if dealer:
        mine = hand + [turn_up]
        mine.remove(basic._discard(mine, trump))
        return basic._makes(*basic.strength(mine, trump))
    return basic._makes(*basic.strength(hand, trump), basic.ORDER_PENALTY)


def names(hand: list[int], turned_down: int, may_name_it: bool) -> int | None:
    """The suit the basic bot names in the second round with ``hand``, or None (it passes)."""
    suits = [s for s in SUITS if s != turned_down or may_name_it]
    best = max(suits, key=lambda s: basic.strength(hand, s)[1])
    return best if basic._makes(*basic.strength(hand, best)) else None


class BuckEuchrePlayout:
    """The playout policy and hand value of Buck Euchre."""

    card = staticmethod(play_card)

    def act(self, table: TableState, seat: int, rng: random.Random) -> Action:
        """The policy's action for ``seat``."""
        state = cast(BuckEuchreState, table)
        phase = state.phase
        if phase == Phase.PLAY:
            return play(play_card(state, seat))
        hand = card_list(state.hands[seat])
        if phase == BuckPhase.ORDER_UP:
            return ORDER_UP if orders(hand, state.turnup, seat == state.dealer) else PASS
        if phase == BuckPhase.DEALER_DISCARD:
            return discard(1 << basic._discard(hand, _trump(state)))
        if phase == BuckPhase.NAME_TRUMP:
            suit = names(hand, state.turnup // 13, state.options.turned_down_suit_may_be_named)
            return PASS if suit is None else name_suit(suit)
        if phase == BuckPhase.DROP_OUT:
            return STAY_IN if basic.stays_in(hand, _trump(state), 4 - state.active.bit_count()) else DROP_OUT
        return DEAL

    def value(self, before: TableState, after: TableState, seat: int) -> float:
        """Points lost by the seat, less a share of the others' average, and the game."""
        change = [after.scores[s] - before.scores[s] for s in range(4)]
        v = -change[seat] + OTHERS * sum(change[s] for s in range(4) if s != seat) / 3
        if after.winner:
            v += GAME_VALUE if after.winner == [seat] else -GAME_VALUE
        return v

    def deal(self, view: View, hidden: Hidden, rng: random.Random) -> list[list[int]]:
        """A uniformly random deal the view allows (Buck Euchre deals at random)."""
        return sample_fills(hidden, rng)

    def likelihood(self, view: View, table: TableState, floor: float = 0.0) -> float:
        """How well the world's hands explain the calls: each pass, order, suit named and stay or
        drop of the other seats against the basic bot's for its hand (``MISS`` for a call it
        would not have made)."""
        phase = view.phase
        if phase in (Phase.DEAL, Phase.GAME_OVER):
            return 1.0
        world = cast(BuckEuchreState, table)
        me, dealer, up = view.viewer, world.dealer, world.turnup
        taken = phase in (BuckPhase.DEALER_DISCARD, BuckPhase.DROP_OUT, Phase.PLAY) and not world.turned_down
        order = [(dealer + i) % 4 for i in (1, 2, 3, 4)]
        held = [card_list(world.hands[s] | world.played[s]) for s in range(4)]
        dealt = held[:]
        if taken:
            discard = 1 << world.dealer_discard if world.dealer_discard >= 0 else 0
            dealt[dealer] = card_list((world.hands[dealer] | world.played[dealer] | discard) & ~(1 << up))
        calls: list[tuple[int, bool]] = []          # (seat, whether the basic bot makes that call)
        if not world.clubs:
            if phase == BuckPhase.ORDER_UP:
                passed = order[:order.index(world.turn)]
            elif world.turned_down:
                passed = order
            else:
                passed = order[:order.index(world.maker)]
                calls.append((world.maker, orders(dealt[world.maker], up, world.maker == dealer)))
            calls += [(s, not orders(dealt[s], up, s == dealer)) for s in passed]
        if world.turned_down:
            may = world.options.turned_down_suit_may_be_named
            if phase == BuckPhase.NAME_TRUMP:
                passed = order[:order.index(world.turn)]
            elif world.maker >= 0:
                passed = order[:order.index(world.maker)]
                calls.append((world.maker, names(dealt[world.maker], up // 13, may) == world.trump))
            else:
                passed = order
            calls += [(s, names(dealt[s], up // 13, may) is None) for s in passed]
        weight = 1.0
        for s, made in calls:
            if s != me and not made:
                weight *= MISS
                if weight < floor:
                    return weight
        dropped = 0
        for s in order:
            call = world.calls[s]
            if s == world.maker or call not in (STAY_IN, DROP_OUT):
                continue
            if s != me and basic.stays_in(held[s], _trump(world), dropped) != (call == STAY_IN):
                weight *= MISS
            dropped += call == DROP_OUT
        return weight

    def candidates(self, view: View, legal: Sequence[Action]) -> list[Action]:
        """Cards once per run of equal cards; every other choice as it is."""
        if view.phase == Phase.PLAY:
            hand = sum(1 << c for c in view.hand or [])
            gone = public_cards(view)
            rules = euchre_rules(view.rules.trump)
            return [play(c) for c in equivalent_cards([payload_of(a) for a in legal], hand, gone, rules)]
        return list(legal)

    def shortcut(self, view: View, legal: Sequence[Action], rng: random.Random) -> Action | None:
        """Never: every choice is searched."""
        return None


BUDGET = Budget(samples=48, call_samples=192, least=64)
"""The search's budget a decision. The calls (order up, name trump, stay in) decide who sweeps,
and more deals there measured better (more deals for Spades bids measured no better). A hand's
value hangs on a sweep, a few hands in a hundred, so a lead over a first few deals that hold
none says little: the search is sure of one only over 64 deals or more (card play, 48 deals,
then plays all its deals but for the clock). Over 960 games against three basic bots, that took
the strong bot's win share from 0.33 (sure after 8 deals) to 0.40."""

# bench-bots plays 960 games, for an interval of about ±0.03.
register_game("buck_euchre", basic=basic.choose, playout=BuckEuchrePlayout(), budget=BUDGET)
