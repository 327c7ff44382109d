"""The card play of the Spades playout policy (every Spades game): the basic bot's choice of card
(win, duck or cover; lead), read straight from a (determinized) state's bit sets
(``bots.spades_playout``); at a table with jokers, the basic bot's own choice from the seat's view.
"""

from __future__ import annotations

from collections.abc import Sequence

import engine
from engine.core.cards import SPADES, SUIT_MASKS, card_list
from engine.games.spades_scoring import DOUBLE_NIL_BID
from engine.games.spades_state import STANDARD, SpadesState

from . import spades as basic

SPADE_MASK = SUIT_MASKS[SPADES]
NON_SPADES = SUIT_MASKS[0] | SUIT_MASKS[1] | SUIT_MASKS[2]
WIN, DUCK, COVER = 0, 1, 2
NO_BID = -1


def is_nil(bid: int) -> bool:
    return bid == 0 or bid == DOUBLE_NIL_BID


def _lowest(cards: list[int], hand: int) -> int:
    """The cheapest card to throw: a low non-spade, from a short suit first (first such in order)."""
    best, key = -1, (2, 99, 99)
    for c in cards:
        k = (c >= 39, c % 13, (hand & SUIT_MASKS[c // 13]).bit_count())
        if k < key:
            best, key = c, k
    return best


def _most_dangerous(cards: list[int]) -> int:
    best, key = -1, -1
    for c in cards:
        k = c % 13 + (5 if c >= 39 else 2)
        if k > key:
            best, key = c, k
    return best


def _least_dangerous(cards: list[int]) -> int:
    best, key = -1, 99
    for c in cards:
        k = c % 13 + (5 if c >= 39 else 2)
        if k < key:
            best, key = c, k
    return best


def _need(bids: list[int], tricks: list[int], seats: Sequence[int]) -> int:
    return sum(bids[s] - tricks[s] for s in seats if bids[s] > 0)


def _mode(state: SpadesState, seat: int) -> int:
    bids, tricks = state.bids, state.tricks
    mine = bids[seat]
    if mine == 0 or mine == DOUBLE_NIL_BID:
        return DUCK
    four = state.n == 4
    if four:
        p = seat ^ 2
        theirs = bids[p]
        if (theirs == 0 or theirs == DOUBLE_NIL_BID) and tricks[p] == 0:
            return COVER
        need = (mine - tricks[seat] if mine > 0 else 0) + (theirs - tricks[p] if theirs > 0 else 0)
    else:
        need = mine - tricks[seat] if mine > 0 else 0
    if need > 0:
        return WIN
    n = state.n
    left = state.hands[seat].bit_count()
    o = (seat + 1) % n
    opp_need = _need(bids, tricks, (o, o ^ 2) if four else (o,))
    if opp_need > 0 and left - opp_need <= basic.SET_SLACK:
        return WIN
    if n == 3:                     # Cutthroat Spades: the other opponent may be set too
        o = (seat + 2) % 3
        opp_need = bids[o] - tricks[o] if bids[o] > 0 else 0
        if opp_need > 0 and left - opp_need <= basic.SET_SLACK:
            return WIN
    return DUCK


def play_card(state: SpadesState, seat: int) -> int:
    """The card the basic bot plays for ``seat`` (the seat in turn in trick play)."""
    if state.options.trumps != STANDARD:
        return _play_with_jokers(state, seat)
    hand = state.hands[seat]
    trick = state.trick_cards
    if trick:
        legal = hand & SUIT_MASKS[trick[0] // 13] or hand
    else:
        legal = hand if state.broken else (hand & NON_SPADES or hand)
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    cards = card_list(legal)
    mode = _mode(state, seat)
    if trick:
        return _follow(state, seat, cards, hand, mode)
    return _lead(state, seat, cards, hand, mode)


def _play_with_jokers(state: SpadesState, seat: int) -> int:
    """The basic bot's card at a table with jokers, chosen from the seat's view (a joker, and in
    ``jokers_deuces`` the 2♦, is a spade there: the plain deck's shortcuts do not hold)."""
    legal = engine.legal_actions(state, seat)
    if len(legal) == 1:
        return engine.payload_of(legal[0])
    return basic._play(engine.view(state, seat), [engine.payload_of(a) for a in legal])


def _beats(c: int, best: int) -> bool:
    return (c // 13 == best // 13 and c > best) or (c >= 39 and best < 39)


def _follow(state: SpadesState, seat: int, cards: list[int], hand: int, mode: int) -> int:
    trick, seats, n = state.trick_cards, state.trick_seats, state.n
    best, top = trick[0], seats[0]
    for i in range(1, len(trick)):
        c = trick[i]
        if (c // 13 == best // 13 and c > best) or (c >= 39 and best < 39):
            best, top = c, seats[i]
    last = len(trick) == n - 1
    winners = [c for c in cards if (c // 13 == best // 13 and c > best) or (c >= 39 and best < 39)]
    partner = seat ^ 2 if n == 4 else -1
    if mode == COVER:
        if partner in seats:
            if top != partner:
                mode = WIN if _need(state.bids, state.tricks, (seat, partner)) > 0 else DUCK
            elif winners:
                return winners[0] if last else _most_dangerous(winners)
            else:
                return _lowest(cards, hand)
        else:
            return _most_dangerous(winners) if winners else _lowest(cards, hand)
    if top != partner and is_nil(state.bids[top]) and state.tricks[top] == 0:
        losers = [c for c in cards if not _beats(c, best)]
        return _lowest(losers, hand) if losers else cards[0]
    if mode == DUCK:
        losers = [c for c in cards if not _beats(c, best)]
        if losers:
            return _most_dangerous(losers)
        return _most_dangerous(cards) if last else _least_dangerous(cards)
    if top == partner and (last or best >= 39 or best % 13 >= 10):
        losers = [c for c in cards if not _beats(c, best)]
        return _lowest(losers or cards, hand)
    if not winners:
        return _lowest(cards, hand)
    led = trick[0] // 13
    if last or winners[0] // 13 != best // 13 or best // 13 != led:
        return _least_dangerous(winners)
    return _most_dangerous(winners)


def _lead(state: SpadesState, seat: int, cards: list[int], hand: int, mode: int) -> int:
    lengths = [(hand & SUIT_MASKS[s]).bit_count() for s in range(4)]
    if mode == DUCK:
        best, key = -1, (99, 2, 99)
        for c in cards:
            s = c // 13
            k = (c % 13, s == SPADES, lengths[s])
            if k < key:
                best, key = c, k
        return best
    if mode == COVER:
        best, rkey = -1, (-1, False)
        for c in cards:
            k2 = (c % 13, c < 39)
            if k2 > rkey:
                best, rkey = c, k2
        return best
    side = [c for c in cards if c < 39]
    aces = [c for c in side if c % 13 == 12]
    if aces:
        best, akey = -1, (False, 99)
        for c in aces:
            k3 = (bool(hand >> (c - 1) & 1), -lengths[c // 13])
            if best < 0 or k3 > akey:
                best, akey = c, k3
        return best
    spades = [c for c in cards if c >= 39]
    if spades and ((spades[-1] == 51 and lengths[SPADES] >= 3) or not side):
        return spades[-1]
    if side:
        if lengths[SPADES]:
            singles = [c for c in side if lengths[c // 13] == 1 and c % 13 < 11]
            if singles:
                return singles[0]
        present = {c // 13 for c in side}
        longest = max(range(3), key=lambda s: lengths[s] if s in present else -1)
        return next(c for c in side if c // 13 == longest)
    return cards[0]
