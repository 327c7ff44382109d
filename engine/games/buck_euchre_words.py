"""The words of Buck Euchre: its phases and its actions.

>>> from ..core.vocabulary import Vocabulary
>>> words = Vocabulary("buck_euchre", WORDS, PHASES)
>>> words.name(name_suit(2)), words.parse("order-up") == ORDER_UP, words.name(PASS), words.phase(5).title
('name H', True, 'pass', 'Order up or pass')
"""

from __future__ import annotations

from enum import IntEnum

from ..core.actions import DEAL_WORD, PLAY_WORD, Action, action_of, cards_action
from ..core.cards import CardSet, Suit
from ..core.vocabulary import Shape, Word, phase_words


class BuckPhase(IntEnum):
    """Where a Buck Euchre hand stands."""

    DEAL = 1
    ORDER_UP = 5         # first trump round: order the turn-up up, or pass
    DEALER_DISCARD = 6   # the dealer, having taken the turn-up, discards one card
    NAME_TRUMP = 7       # second trump round: name a suit, or pass
    DROP_OUT = 8         # each player but the maker stays in or drops out
    PLAY = 9
    GAME_OVER = 10


class BuckCode(IntEnum):
    """The codes of Buck Euchre's action words (the low byte of its actions)."""

    DEAL = DEAL_WORD.code
    DISCARD = 7          # the dealer's discard (notation "exchange", as for every card set given up)
    ORDER_UP = 8         # make the turn-up's suit trump
    PASS = 9             # pass in either trump round
    NAME_SUIT = 10       # name a suit trump in the second round
    STAY_IN = 12         # play this hand
    DROP_OUT = 13        # sit this hand out
    PLAY = PLAY_WORD.code


PHASES = phase_words(BuckPhase, {"deal": "Deal", "order_up": "Order up or pass",
                                 "dealer_discard": "Dealer's discard", "name_trump": "Name trump or pass",
                                 "drop_out": "Stay in or drop out", "play": "Play", "game_over": "Game over"})
WORDS = (
    DEAL_WORD,
    Word(BuckCode.DISCARD, "exchange", Shape.CARDS, "Discard"),
    Word(BuckCode.ORDER_UP, "order-up", Shape.NONE, "Order up"),
    Word(BuckCode.PASS, "pass", Shape.NONE, "Pass"),
    Word(BuckCode.NAME_SUIT, "name", Shape.SUIT, "Name trump"),
    Word(BuckCode.STAY_IN, "stay", Shape.NONE, "Stay in"),
    Word(BuckCode.DROP_OUT, "drop", Shape.NONE, "Drop out"),
    PLAY_WORD,
)

ORDER_UP: Action = BuckCode.ORDER_UP
PASS: Action = BuckCode.PASS
STAY_IN: Action = BuckCode.STAY_IN
DROP_OUT: Action = BuckCode.DROP_OUT


def name_suit(suit: Suit) -> Action:
    """Name this suit trump."""
    return action_of(BuckCode.NAME_SUIT, suit)


def discard(cards: CardSet) -> Action:
    """The dealer discards these cards (one)."""
    return cards_action(BuckCode.DISCARD, cards)
