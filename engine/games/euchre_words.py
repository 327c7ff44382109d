"""The words of Euchre: its phases and its actions, and the notation that reads them.

Going alone is said with the order or the naming: the notation writes it as one word
(``order-alone``, ``name-alone H``, ``defend-alone``) and reads the spoken forms too
(``order alone``, ``name hearts alone``, ``defend alone``).

>>> words = EuchreVocabulary("euchre", WORDS, PHASES)
>>> words.name(name_suit(2, alone=True)), words.parse("name hearts alone") == name_suit(2, alone=True)
('name-alone H', True)
>>> words.parse("Order Alone") == ORDER_ALONE, words.name(ORDER), words.parse("exchange 9c") == discard(1 << 7)
(True, 'order', True)
>>> words.phase(8).title
'Defend alone or pass'
"""

from __future__ import annotations

from enum import IntEnum

from ..core.actions import DEAL_WORD, PLAY_WORD, Action, action_of, cards_action
from ..core.cards import CardSet, Suit
from ..core.vocabulary import Shape, Vocabulary, Word, phase_words


class EuchrePhase(IntEnum):
    """Where a Euchre hand stands."""

    DEAL = 1
    ORDER_UP = 5         # first round of making trump: order the turn-up's suit (alone or not), or pass
    DEALER_DISCARD = 6   # the dealer, having taken the turn-up, discards one card
    NAME_TRUMP = 7       # second round: name a suit other than the turned-down one (alone or not), or pass
    DEFEND_ALONE = 8     # against a lone maker, each defender in turn may defend alone (rule option)
    PLAY = 9
    GAME_OVER = 10


class EuchreCode(IntEnum):
    """The codes of Euchre's action words (the low byte of its actions)."""

    DEAL = DEAL_WORD.code
    DISCARD = 7          # the dealer's discard (notation "exchange", as for every card set given up)
    ORDER = 8            # order the turn-up's suit trump (the dealer: pick it up)
    PASS = 9             # pass in either round of making trump, or in the defend-alone round
    NAME = 10            # name a suit trump in the second round
    ORDER_ALONE = 11     # order, and play the hand without one's partner
    NAME_ALONE = 12      # name a suit, and play the hand without one's partner
    DEFEND_ALONE = 13    # defend without one's partner against a lone maker
    PLAY = PLAY_WORD.code


PHASES = phase_words(EuchrePhase, {"deal": "Deal", "order_up": "Order up or pass",
                                   "dealer_discard": "Dealer's discard", "name_trump": "Name trump or pass",
                                   "defend_alone": "Defend alone or pass", "play": "Play",
                                   "game_over": "Game over"})
WORDS = (
    DEAL_WORD,
    Word(EuchreCode.DISCARD, "exchange", Shape.CARDS, "Discard"),
    Word(EuchreCode.ORDER, "order", Shape.NONE, "Order up"),
    Word(EuchreCode.ORDER_ALONE, "order-alone", Shape.NONE, "Order up alone"),
    Word(EuchreCode.PASS, "pass", Shape.NONE, "Pass"),
    Word(EuchreCode.NAME, "name", Shape.SUIT, "Name trump"),
    Word(EuchreCode.NAME_ALONE, "name-alone", Shape.SUIT, "Name trump alone"),
    Word(EuchreCode.DEFEND_ALONE, "defend-alone", Shape.NONE, "Defend alone"),
    PLAY_WORD,
)

ORDER: Action = EuchreCode.ORDER
ORDER_ALONE: Action = EuchreCode.ORDER_ALONE
PASS: Action = EuchreCode.PASS
DEFEND_ALONE: Action = EuchreCode.DEFEND_ALONE
ALONE_WORDS = {"order": "order-alone", "name": "name-alone", "defend": "defend-alone"}
"""The words going alone is said with, and the one word the notation writes for each."""


def name_suit(suit: Suit, alone: bool = False) -> Action:
    """Name this suit trump (going alone, or not)."""
    return action_of(EuchreCode.NAME_ALONE if alone else EuchreCode.NAME, suit)


def discard(cards: CardSet) -> Action:
    """The dealer discards these cards (one)."""
    return cards_action(EuchreCode.DISCARD, cards)


class EuchreVocabulary(Vocabulary):
    """Euchre's words, reading going alone as it is said as well as the one word it is written as."""

    def parse(self, text: str) -> int:
        """The action written as by :meth:`name`, or as said: ``order alone``, ``name hearts alone``
        (``name H alone``), ``defend alone``; ValueError if it is none of the game's."""
        said = text.split()
        if len(said) >= 2 and said[-1].lower() == "alone" and said[0].lower() in ALONE_WORDS:
            text = " ".join([ALONE_WORDS[said[0].lower()], *said[1:-1]])
        return super().parse(text)
