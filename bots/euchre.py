"""The "basic" computer player of Euchre, deciding only from one seat's view.

It values a hand for a trump suit by its trumps (the bowers highest), its off aces and the
suits it can ruff; it orders up (counting the turn-up it gives the dealer, or its partner, or
takes itself as dealer) and names trump when the hand is worth about three tricks with its
partner's help, goes alone with nothing but high trumps and aces, discards as dealer its weakest
side card (making a void when it can), and defends alone only with three sure stoppers. In play
it wins as cheaply as it can, throws low when its partner is winning the trick, and leads the
top trump to draw the others when its side made trump, else an off ace, else low.

Every decision is a function of plain values (the hand, the trick, the cards gone) shared with
the fast playout policy (``bots.euchre_playout``), which reads them from a state instead of a
view and so plays exactly as this bot.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine import Phase
from engine.core.actions import Action, play
from engine.core.cards import ACE, Card, CardSet, card_list
from engine.core.hidden import mask, public_cards
from engine.core.views import View
from engine.games.euchre import EuchreRules, partner
from engine.games.euchre_cards import left_bower, playable, right_bower, rules, trump_cards, trump_rank
from engine.games.euchre_words import DEFEND_ALONE, ORDER, ORDER_ALONE, PASS, EuchrePhase, discard, name_suit

TRUMP_VALUE = {9: 0.35, 10: 0.4, 12: 0.45, 13: 0.55, 14: 0.7, 15: 0.85, 16: 1.0}
"""What a trump is worth by its rank among trumps: 9, 10, Q, K, A, left bower, right bower."""
OFF_ACE = 0.5
RUFF = 0.2           # a plain suit held none of, with two trumps or more to trump it
MAKE = 2.0           # a hand worth this much (its partner counted on for a trick) makes trump
TURN_UP_SHARE = 0.5  # the share of the turn-up's worth that ordering gives the dealer's side
STOPPERS_TO_DEFEND = 3   # high trumps (bowers, ace) and off aces a lone defender needs


def _is_ace(card: Card) -> bool:
    return card % 13 == ACE - 2


def strength(hand: CardSet, trump: int) -> float:
    """The hand's worth in tricks (roughly) were ``trump`` trump: its trumps by rank, its off aces,
    and a ruff for each plain suit it is void in when it holds two trumps or more."""
    table = rules(trump)
    trumps = hand & table.masks[trump]
    value = sum(TRUMP_VALUE[trump_rank(c, trump)] for c in card_list(trumps))
    value += OFF_ACE * sum(1 for c in card_list(hand & ~trumps) if _is_ace(c))
    if trumps.bit_count() >= 2:
        value += RUFF * sum(1 for s in range(4) if s != trump and not hand & table.masks[s])
    return value


def goes_alone(hand: CardSet, trump: int) -> bool:
    """Whether the hand is strong enough to play without its partner: the right bower, the left
    bower or the trump ace, three trumps or more, and nothing else but off aces."""
    table = rules(trump)
    trumps = hand & table.masks[trump]
    if not hand >> right_bower(trump) & 1 or trumps.bit_count() < 3:
        return False
    if not (hand >> left_bower(trump) & 1 or hand >> (trump * 13 + ACE - 2) & 1):
        return False
    return all(_is_ace(c) for c in card_list(hand & ~trumps))


def dealer_discard(hand: CardSet, turnup: Card, trump: int) -> Card:
    """The card the dealer discards from its six: a side card (a singleton first, to make a void;
    aces kept; the lowest), else the lowest trump; never the turn-up."""
    table = rules(trump)
    suit, power = table.suit, table.power
    cards = card_list(hand & ~(1 << turnup))
    side = [c for c in cards if suit[c] != trump]
    if not side:
        return min(cards, key=power.__getitem__)
    return min(side, key=lambda c: (_is_ace(c), (hand & table.masks[suit[c]]).bit_count(), power[c]))


def order_call(hand: CardSet, turnup: Card, seat: int, dealer: int) -> Action:
    """Round one: ORDER, ORDER_ALONE or PASS for ``seat`` holding ``hand``."""
    trump = turnup // 13
    if seat == dealer:
        mine = hand | 1 << turnup
        mine &= ~(1 << dealer_discard(mine, turnup, trump))
        value = strength(mine, trump)
    else:
        mine = hand
        share = TURN_UP_SHARE * TRUMP_VALUE[trump_rank(turnup, trump)]
        value = strength(hand, trump) + (share if seat == partner(dealer) else -share)
    if value < MAKE:
        return PASS
    return ORDER_ALONE if goes_alone(mine, trump) else ORDER


def name_call(hand: CardSet, turned_down: int, stuck: bool) -> Action:
    """Round two: name the best suit but the turned-down one when the hand is worth it (always when
    the dealer is stuck), alone with a lone hand; else PASS."""
    best = max((s for s in range(4) if s != turned_down), key=lambda s: strength(hand, s))
    if not stuck and strength(hand, best) < MAKE:
        return PASS
    return name_suit(best, goes_alone(hand, best))


def defend_call(hand: CardSet, trump: int) -> Action:
    """Against a lone maker: DEFEND_ALONE with three stoppers (bowers, the trump ace, off aces)."""
    table = rules(trump)
    trumps = hand & table.masks[trump]
    high = sum(1 for c in card_list(trumps) if trump_rank(c, trump) >= ACE)
    aces = sum(1 for c in card_list(hand & ~trumps) if _is_ace(c))
    return DEFEND_ALONE if high + aces >= STOPPERS_TO_DEFEND and high else PASS


def card_to_play(hand: CardSet, trick: Sequence[Card], trick_seats: Sequence[int], seat: int, trump: int,
                 maker: int, gone: CardSet) -> Card:
    """The card ``seat`` plays: following, the cheapest card that beats the trick, or its lowest
    when it cannot or its partner is winning; leading, the top trump when its side made trump and
    it holds the best one out (or it made trump with two or more), else an off ace, else its
    lowest side card."""
    legal = playable(hand, list(trick), trump)
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    table = rules(trump)
    suit, power = table.suit, table.power
    cards = card_list(legal)
    if trick:
        at, best = table.winner(list(trick))
        if trick_seats[at] != partner(seat):
            beaters = [c for c in cards if (suit[c] == suit[best] or suit[c] == trump) and power[c] > power[best]]
            if beaters:
                return min(beaters, key=power.__getitem__)
        return min(cards, key=lambda c: (suit[c] == trump, power[c]))
    trumps = sorted((c for c in cards if suit[c] == trump), key=power.__getitem__)
    if trumps and maker % 2 == seat % 2:
        out = trump_cards(trump) & ~gone & ~hand
        top_out = max((power[c] for c in card_list(out)), default=0)
        if (out and power[trumps[-1]] > top_out) or (seat == maker and len(trumps) >= 2):
            return trumps[-1]
    for c in cards:
        if suit[c] != trump and _is_ace(c):
            return c
    side = [c for c in cards if suit[c] != trump]
    return min(side or cards, key=power.__getitem__)


def choose(v: View, legal: Sequence[Action], rng: random.Random) -> Action:
    """The basic bot's action for the viewer of ``v`` (Euchre), from ``legal``."""
    me = v.viewer
    assert me is not None
    hand = mask(v.hand)
    facts: EuchreRules = v.rules
    phase = v.phase
    if phase == Phase.PLAY:
        assert facts.trump is not None and facts.maker is not None
        trick = [c for _, c in v.trick]
        seats = [s for s, _ in v.trick]
        return play(card_to_play(hand, trick, seats, me, facts.trump, facts.maker, public_cards(v)))
    if phase == EuchrePhase.ORDER_UP:
        assert facts.turn_up is not None
        return order_call(hand, facts.turn_up, me, v.dealer)
    if phase == EuchrePhase.DEALER_DISCARD:
        assert facts.turn_up is not None and facts.trump is not None
        return discard(1 << dealer_discard(hand, facts.turn_up, facts.trump))
    if phase == EuchrePhase.NAME_TRUMP:
        assert facts.turn_up is not None
        return name_call(hand, facts.turn_up // 13, PASS not in legal)
    if phase == EuchrePhase.DEFEND_ALONE:
        assert facts.trump is not None
        return defend_call(hand, facts.trump)
    return legal[0]
