"""The cards of the Euchre family (Buck Euchre, Euchre): the 24-card deck, five-card hands, the
trump and bower ranking, and following suit and playing to a trick under it.

In the trump suit the right bower (the trump jack) ranks highest, then the left bower (the other
jack of the same colour), A, K, Q, 10, 9; the left bower belongs to the trump suit for every
purpose, following suit included; plain suits rank A high to 9 low. The ranking tables are the
trick-taking core's (``engine.core.tricks.TrumpRules`` with bowers, built once per trump);
every Euchre game reads them, and plays its cards, through this module alone.

>>> from ..core.cards import HEARTS, DIAMONDS, parse_card, parse_cards, card_name, cards_text
>>> card_name(left_bower(HEARTS)), card_name(right_bower(HEARTS)), effective_suit(parse_card("JD"), HEARTS) == HEARTS
('JD', 'JH', True)
>>> cards_text(playable(parse_cards("JD 9D AC"), [parse_card("KD")], HEARTS))   # JD is a heart now
'9D'
>>> [card_name(c) for c in sorted(card_list(trump_cards(HEARTS)), key=lambda c: -trump_rank(c, HEARTS))]
['JH', 'JD', 'AH', 'KH', 'QH', '10H', '9H']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.cards import EUCHRE_DECK, JACK, SUIT_LETTERS, Card, CardSet, Suit, card_list, card_name, make_card
from ..core.errors import Reason
from ..core.rules import finish_trick, has, reject
from ..core.table import NOBODY, Seat, TableState
from ..core.tricks import TrumpRules, euchre_rules

DECK = card_list(EUCHRE_DECK)
"""The 24 cards, 9 to A of each suit, lowest first."""
HAND_SIZE = 5
"""Cards dealt to each player, and tricks in a hand."""
DEALT = 20
"""Cards dealt to the four hands; the next one of the deck is turned up, the rest are the kitty."""
TRUMP_BONUS = 100
"""What a trump's strength (``TrumpRules.power``) holds above a plain card's."""


def rules(trump: int | None) -> TrumpRules:
    """The follow-suit and ranking tables of a hand with this trump (None, or any number but a
    suit's: no trump, every suit plain)."""
    return euchre_rules(trump)


def right_bower(trump: Suit) -> Card:
    """The jack of the trump suit: the highest trump."""
    return make_card(JACK, trump)


def left_bower(trump: Suit) -> Card:
    """The jack of the other suit of the trump's colour: the second highest trump."""
    return make_card(JACK, trump ^ 3)


def effective_suit(card: Card, trump: int | None) -> Suit:
    """The suit a card belongs to under this trump (the left bower's is trump)."""
    return euchre_rules(trump).suit[card]


def trump_cards(trump: Suit) -> CardSet:
    """The seven trumps: the trump suit's six cards and the left bower."""
    return euchre_rules(trump).masks[trump] & EUCHRE_DECK


def trump_rank(card: Card, trump: Suit) -> int:
    """A card's rank among trumps, 9 (the 9) up to 16 (the right bower; the left bower 15); its
    printed rank for a card that is no trump."""
    power = euchre_rules(trump).power[card]
    return power - TRUMP_BONUS if power > TRUMP_BONUS else power


def playable(hand: CardSet, trick: list[Card], trump: int | None) -> CardSet:
    """The cards of ``hand`` that may be played to ``trick`` (any when leading; else the led
    suit's, the left bower counting as trump, when it holds one)."""
    if not trick:
        return hand
    table = euchre_rules(trump)
    return table.follow(hand, table.suit[trick[0]])


def play_card(state: TableState, seat: Seat, card: int, trump: int | None) -> TrumpRules:
    """Play ``card`` from ``seat``'s hand to the trick, after checking that the seat holds it
    (CARD_NOT_IN_HAND) and follows the led suit when it can (MUST_FOLLOW_SUIT; the left bower is
    trump), and record a suit the seat showed it holds none of. Returns the hand's tables (for
    the trick's winner). Nothing changes when the card is refused."""
    hand = state.hands[seat]
    if not has(hand, card):
        reject(Reason.CARD_NOT_IN_HAND, f"seat {seat} does not hold {card_name(card) if 0 <= card < 52 else card}")
    table = euchre_rules(trump)
    trick = state.trick_cards
    if trick:
        led = table.suit[trick[0]]
        if table.suit[card] != led:
            if hand & table.masks[led]:
                reject(Reason.MUST_FOLLOW_SUIT,
                       f"{card_name(card)} does not follow {SUIT_LETTERS[led]} and seat {seat} holds one")
            state.voids |= 1 << (4 * seat + led)      # shown out of the led suit (left bower: trump)
    bit = 1 << card
    state.hands[seat] = hand ^ bit
    state.played[seat] |= bit
    state.trick_seats.append(seat)
    trick.append(card)
    return table


def next_active(state: Any, seat: Seat) -> Seat:
    """The next seat after ``seat``, clockwise, that plays the hand (``state.active``, a bit per
    seat, of a Buck Euchre or Euchre state); NOBODY when none does."""
    for i in range(1, 5):
        s = (seat + i) % 4
        if state.active >> s & 1:
            return s
    return NOBODY


def play_to_trick(state: Any, seat: Seat, card: int, end_hand: Callable[[Any], None]) -> None:
    """``seat`` plays ``card`` (:func:`play_card`, under the hand's trump); then the next seat
    playing the hand is to play, or, once each has played, the trick goes to its winner, and after
    the last trick ``end_hand(state)`` scores the hand."""
    table = play_card(state, seat, card, state.trump)
    trick = state.trick_cards
    if len(trick) < state.active.bit_count():
        state.turn = next_active(state, seat)
        return
    finish_trick(state, table.winner(trick)[0])
    if sum(state.tricks) == HAND_SIZE:
        end_hand(state)
