"""Trick play and scoring in every Spades game (four-player, two-player and Cutthroat Spades): the
cards a seat may play (``legal_play``), playing one (``apply_play``: following suit, spades
broken, the trick's winner, at tables with and without jokers), and at the end of a hand its
score, its record and the next deal or the end of the game (``end_hand``).

``legal_play`` and ``apply_play`` are the hot path of every simulation: they read the tables
and constants below as this module's globals.
"""

from __future__ import annotations

import random

from ..core.actions import CODE_BITS, CODE_MASK, PLAY_CODE, PLAYS_BY_SUIT, Action, play
from ..core.cards import BITS, CARD_COUNT, SPADES, SUIT_MASKS, card_list, card_name, cards_text
from ..core.dealing import Chance
from ..core.errors import Reason
from ..core.records import record_base
from ..core.rules import end_game_or_pass_deal, finish_trick, reject, require_turn, wrong_phase
from ..core.table import NO_CARD, Seat
from ..game import game_of
from .spades_deck import TRUMPS_TABLES
from .spades_scoring import DOUBLE_NIL_BID, spades_side, spades_winners
from .spades_state import STANDARD, ExchangeRecord, SpadesHandRecord, SpadesReason, SpadesState

SPADE_MASK = SUIT_MASKS[SPADES]
NON_SPADES = SUIT_MASKS[0] | SUIT_MASKS[1] | SUIT_MASKS[2]
_NOT_SPADES = ~SPADE_MASK
_LOWEST_SPADE = 13 * SPADES   # the plain deck's spades are the cards from here to 51
_CLUB_PLAYS, _DIAMOND_PLAYS, _HEART_PLAYS, _SPADE_PLAYS = PLAYS_BY_SUIT
_FOLLOW = tuple((13 * (c // 13), PLAYS_BY_SUIT[c // 13]) for c in range(52))
"""For each card led (the plain deck): where its suit's cards sit in a hand, and the PLAY actions
of every subset of them."""
_PLAY = PLAY_CODE
_BIT_OF = BITS.__getitem__
"""A card's bit, as a function (for ``map``)."""
_SUIT = tuple(c // 13 for c in range(52))
"""The suit of each card of the plain deck (a tuple look-up is cheaper than a division)."""


# ---- trick play (every Spades game) ----

def legal_play(state: SpadesState, seat: Seat) -> list[Action]:
    """PLAY actions open to a seat (the hot path of every simulation, so written out flat: a seat
    that follows suit takes its actions from one suit's table)."""
    if state.options.trumps != STANDARD:
        return _legal_play_jokers(state, seat)
    if seat != state.turn:
        return []
    hand = state.hands[seat]
    trick = state.trick_cards
    if trick:
        shift, plays = _FOLLOW[trick[0]]
        same = hand >> shift & 8191
        if same:
            return [*plays[same]]
        mask = hand
    elif state.broken:
        mask = hand
    else:
        mask = hand & NON_SPADES
        if mask:
            return [*_CLUB_PLAYS[mask & 8191], *_DIAMOND_PLAYS[mask >> 13 & 8191], *_HEART_PLAYS[mask >> 26]]
        mask = hand
    return [*_CLUB_PLAYS[mask & 8191], *_DIAMOND_PLAYS[mask >> 13 & 8191], *_HEART_PLAYS[mask >> 26 & 8191],
            *_SPADE_PLAYS[mask >> 39]]


def _legal_play_jokers(state: SpadesState, seat: Seat) -> list[Action]:
    """PLAY actions open to a seat at a table with jokers (their spades are more than one suit's cards)."""
    if seat != state.turn:
        return []
    table = TRUMPS_TABLES[state.options.trumps]
    hand = state.hands[seat]
    trick = state.trick_cards
    if trick:
        mask = hand & table.masks[table.suit[trick[0]]] or hand
    elif state.broken:
        mask = hand
    else:
        mask = hand & ~table.masks[SPADES] or hand
    return [play(c) for c in card_list(mask)]


def apply_play(state: SpadesState, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """Play one card, closing the trick and the hand when they are complete (the hot path of every
    simulation: the action is taken apart inline, as ``kind_of`` and ``payload_of`` would)."""
    if action & CODE_MASK != _PLAY:
        wrong_phase(state, action)
    if seat != state.turn:
        require_turn(state, seat)
    card = action >> CODE_BITS
    if state.options.trumps != STANDARD:
        _play_jokers(state, seat, card)
        return None
    hands = state.hands
    hand = hands[seat]
    if not hand >> card & 1:                        # (a plain deck's hand holds no card above 51)
        reject(Reason.CARD_NOT_IN_HAND, _not_held(state, seat, card))
    trick = state.trick_cards
    if trick:
        led = _SUIT[trick[0]]
        if _SUIT[card] != led:
            if hand & SUIT_MASKS[led]:
                reject(Reason.MUST_FOLLOW_SUIT,
                       f"{card_name(card)} does not follow {'CDHS'[led]} and seat {seat} holds one")
            state.voids |= 1 << (4 * seat + led)      # shown out of the led suit
            if card >= _LOWEST_SPADE:
                state.broken = True
    elif card >= _LOWEST_SPADE and not state.broken:
        if hand & _NOT_SPADES:
            reject(SpadesReason.SPADES_NOT_BROKEN, f"{card_name(card)} cannot be led before spades are broken")
        state.broken = True
        state.voids |= 7 << 4 * seat                   # leading an unbroken spade: it holds nothing else
    bit = BITS[card]
    hands[seat] = hand ^ bit
    state.played[seat] |= bit
    state.trick_seats.append(seat)
    trick.append(card)
    n = state.n
    if len(trick) < n:
        state.turn = (seat + 1) % n
        return None
    # the winner: the highest spade, else the highest card of the led suit (cards rank by number,
    # and the spades are the highest numbers): the highest card, unless it is off the led suit
    top = max(trick)
    if top < _LOWEST_SPADE and _SUIT[top] != _SUIT[trick[0]]:
        # no spade, and the highest card is a discard: the highest of the led suit, read from the
        # trick's cards as a set (their bits' sum), with no comprehension's call on the hot path
        top = (sum(map(_BIT_OF, trick)) & SUIT_MASKS[_SUIT[trick[0]]]).bit_length() - 1
    finish_trick(state, trick.index(top))
    if not any(hands):
        end_hand(state)
    return None


def _play_jokers(state: SpadesState, seat: Seat, card: int) -> None:
    """Play one card at a table with jokers: a joker (and in ``jokers_deuces`` the 2♦) is a spade
    for following, leading, breaking spades and showing out; the trick goes to the strongest."""
    table = TRUMPS_TABLES[state.options.trumps]
    hands = state.hands
    hand = hands[seat]
    if not 0 <= card < CARD_COUNT or not hand >> card & 1:
        reject(Reason.CARD_NOT_IN_HAND, _not_held(state, seat, card))
    suit = table.suit[card]
    trick = state.trick_cards
    if trick:
        led = table.suit[trick[0]]
        if suit != led:
            if hand & table.masks[led]:
                spade = " (a spade at this table)" if card < 52 and card // 13 != suit else ""
                reject(Reason.MUST_FOLLOW_SUIT,
                       f"{card_name(card)}{spade} does not follow {'CDHS'[led]} and seat {seat} holds one")
            state.voids |= 1 << (4 * seat + led)
            if suit == SPADES:
                state.broken = True
    elif suit == SPADES and not state.broken:
        if hand & ~table.masks[SPADES]:
            reject(SpadesReason.SPADES_NOT_BROKEN, f"{card_name(card)} cannot be led before spades are broken")
        state.broken = True
        state.voids |= 7 << 4 * seat
    bit = 1 << card
    hands[seat] = hand ^ bit
    state.played[seat] |= bit
    state.trick_seats.append(seat)
    trick.append(card)
    if len(trick) < state.n:
        state.turn = (seat + 1) % state.n
        return
    finish_trick(state, table.winner(trick))
    if not any(hands):
        end_hand(state)


def _not_held(state: SpadesState, seat: Seat, card: int) -> str:
    """Why a card is refused as not held: it is not held, or it is no card of this table."""
    if not 0 <= card < CARD_COUNT:
        return f"seat {seat} does not hold card #{card}"
    if not game_of(state.variant).deck_for(state.options) >> card & 1:
        return f"{card_name(card)} is not a card of this table's deck"
    return f"seat {seat} does not hold {card_name(card)}"


# ---- scoring and the next hand (every Spades game) ----

def end_hand(state: SpadesState) -> None:
    """Score the finished hand, record it, and either end the game or pass the deal."""
    options = state.options
    bids, tricks, scores, bags, n = state.bids, state.tricks, state.scores, state.bags, state.n
    rules = (options.bag_limit, options.bag_penalty, options.nil_value, options.double_nil_value,
             options.failed_nil_tricks_count)
    sides, points = [], []
    for side in range(state.sides):         # (no comprehensions: each would be a call of its own)
        seats = state.seats_of(side)
        if len(seats) == 2:                  # a partnership
            first, second = seats
            result = spades_side([bids[first], bids[second]], [tricks[first], tricks[second]], scores[side],
                                 bags[side], *rules, side=side, seats=seats)
        else:                                # a player on its own
            only = seats[0]
            result = spades_side([bids[only]], [tricks[only]], scores[side], bags[side], *rules, side=side,
                                 seats=seats)
        scores[side] = result.total_after
        bags[side] = result.bags_after
        sides.append(result)
        points.append(result.hand_points)
    xgiven = state.xgiven
    exchanges = [ExchangeRecord(s, _text(xgiven[s]), _text(state.xgot[s]),
                                n == 4 and DOUBLE_NIL_BID not in (bids[s], bids[s ^ 2]))
                 for s in range(n) if xgiven[s] != NO_CARD] if xgiven.count(NO_CARD) != n else []
    losing, forced = options.losing_score, state.forced
    state.records.append(SpadesHandRecord(
        **record_base(state), points=points, totals=scores[:], bids=bids[:], exchanges=exchanges, sides=sides,
        forced=[bool(forced >> s & 1) for s in range(n)] if forced else [False] * n,
        losing_sides=[side for side in range(state.sides) if scores[side] <= -losing] if losing else []))
    state.winner = spades_winners(state.scores, options.target_score, losing)
    end_game_or_pass_deal(state)


def _text(mask: int) -> str:
    return cards_text(mask) if mask >= 0 else ""
