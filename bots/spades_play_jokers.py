"""The card play of the Spades playout policy at a table with jokers: the basic bot's choice
(``bots.spades._play``, which reads a seat's view) read straight from a (determinized) state's
bit sets, so a playout at such a table builds no view for a card. A joker, and in
``jokers_deuces`` the 2♦, is a spade there, each card as strong as the table ranks it; the
choices, ties included, are the basic bot's, which tests pin.
"""

from __future__ import annotations

from functools import lru_cache

from engine.core.cards import SPADES, card_list
from engine.games.spades_deck import Trumps, trumps_of
from engine.games.spades_state import SpadesState

from .spades_hand import ranks_of
from .spades_play import COVER, DUCK, WIN, _mode, is_nil


@lru_cache(maxsize=8)
def _danger(table: Trumps) -> tuple[int, ...]:
    """Each card's danger as the basic bot weighs it: its rank, a spade's 3 more."""
    rank = ranks_of(table)
    return tuple(rank[c] + (3 if table.suit[c] == SPADES else 0) for c in range(len(rank)))


def play_card_jokers(state: SpadesState, seat: int) -> int:
    """The card the basic bot plays for ``seat`` (in turn in trick play) at a table with jokers."""
    table = trumps_of(state.options)
    masks, suit = table.masks, table.suit
    hand = state.hands[seat]
    trick = state.trick_cards
    if trick:
        legal = hand & masks[suit[trick[0]]] or hand
    elif state.broken:
        legal = hand
    else:
        legal = hand & ~masks[SPADES] or hand
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    cards = card_list(legal)
    lengths = [(hand & masks[s]).bit_count() for s in range(4)]
    mode = _mode(state, seat)
    if trick:
        return _follow(state, seat, cards, lengths, mode, table)
    return _lead(cards, hand, lengths, mode, table)


def _first_max(cards: list[int], key) -> int:
    """The first of ``cards`` with the greatest ``key`` (as ``max`` picks)."""
    best, top = cards[0], key(cards[0])
    for c in cards[1:]:
        k = key(c)
        if k > top:
            best, top = c, k
    return best


def _first_min(cards: list[int], key) -> int:
    """The first of ``cards`` with the least ``key`` (as ``min`` picks)."""
    best, low = cards[0], key(cards[0])
    for c in cards[1:]:
        k = key(c)
        if k < low:
            best, low = c, k
    return best


def _lowest(cards: list[int], lengths: list[int], table: Trumps) -> int:
    """The cheapest card to throw: a low non-spade, from a short suit first."""
    rank, suit = ranks_of(table), table.suit
    return _first_min(cards, lambda c: (suit[c] == SPADES, rank[c], lengths[suit[c]]))


def _need(state: SpadesState, seats: tuple[int, ...]) -> int:
    bids, tricks = state.bids, state.tricks
    return sum(bids[s] - tricks[s] for s in seats if bids[s] > 0)


def _follow(state: SpadesState, seat: int, cards: list[int], lengths: list[int], mode: int, table: Trumps) -> int:
    suit, power = table.suit, table.power
    rank, danger = ranks_of(table), _danger(table)
    trick, seats = state.trick_cards, state.trick_seats
    winning = table.winner(trick)
    best, top = trick[winning], seats[winning]
    last = len(trick) == state.n - 1
    best_suit, best_power = suit[best], power[best]
    winners: list[int] = []
    losers: list[int] = []
    for c in cards:
        beats = (suit[c] == best_suit and power[c] > best_power) or (suit[c] == SPADES and best_suit != SPADES)
        (winners if beats else losers).append(c)
    partner = seat ^ 2 if state.n == 4 else -1
    if mode == COVER:
        if partner in seats:
            if top != partner:
                mode = WIN if _need(state, (seat, partner)) > 0 else DUCK
            elif winners:
                return _first_min(winners, power.__getitem__) if last else _first_max(winners, danger.__getitem__)
            else:
                return _lowest(cards, lengths, table)
        else:
            return _first_max(winners, danger.__getitem__) if winners else _lowest(cards, lengths, table)
    if top != partner and is_nil(state.bids[top]) and state.tricks[top] == 0:   # leave the trick to a Nil
        return _lowest(losers, lengths, table) if losers else min(cards)
    if mode == DUCK:
        if losers:
            return _first_max(losers, danger.__getitem__)
        return _first_max(cards, danger.__getitem__) if last else _first_min(cards, danger.__getitem__)
    if top == partner and (last or best_suit == SPADES or rank[best] >= 12):
        return _lowest(losers or cards, lengths, table)
    if not winners:
        return _lowest(cards, lengths, table)
    if last or suit[winners[0]] != best_suit or best_suit != suit[trick[0]]:
        return _first_min(winners, danger.__getitem__)
    return _first_max(winners, danger.__getitem__)


def _lead(cards: list[int], hand: int, lengths: list[int], mode: int, table: Trumps) -> int:
    rank, suit = ranks_of(table), table.suit
    if mode == DUCK:
        return _first_min(cards, lambda c: (rank[c], suit[c] == SPADES, lengths[suit[c]]))
    if mode == COVER:
        return _first_max(cards, lambda c: (rank[c], suit[c] != SPADES))
    side = [c for c in cards if suit[c] != SPADES]
    aces = [c for c in side if rank[c] == 14]
    if aces:
        return _first_max(aces, lambda c: (bool(hand >> (c - 1) & 1), -lengths[suit[c]]))
    spades = [c for c in cards if suit[c] == SPADES]
    if spades:
        highest = _first_max(spades, table.power.__getitem__)
        if (rank[highest] == 14 and lengths[SPADES] >= 3) or not side:
            return highest
    if side:
        if lengths[SPADES]:
            singles = [c for c in side if lengths[suit[c]] == 1 and rank[c] < 13]
            if singles:
                return min(singles)
        present = {suit[c] for c in side}
        longest = _first_max([0, 1, 2], lambda s: lengths[s] if s in present else -1)
        return min(c for c in side if suit[c] == longest)
    return min(cards)
