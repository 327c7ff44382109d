"""The words of Hearts: its phases and its actions.

>>> from ..core.vocabulary import Vocabulary
>>> from ..core.cards import parse_cards
>>> words = Vocabulary("hearts", WORDS, PHASES)
>>> words.name(pass_cards(parse_cards("4H 2C 3D"))), words.parse("pass 4H 2C 3D") == pass_cards(parse_cards("2C 3D 4H"))
('pass 2C 3D 4H', True)
>>> words.phase(HeartsPhase.PASS).title
'Pass cards'
"""

from __future__ import annotations

from enum import IntEnum

from ..core.actions import DEAL_WORD, PLAY_WORD, Action, cards_action, cards_action_of
from ..core.cards import Card, CardSet
from ..core.vocabulary import Shape, Word, phase_words


class HeartsPhase(IntEnum):
    """Where a Hearts hand stands."""

    DEAL = 1
    PASS = 4        # every seat chooses three cards to pass (no turn order)
    PLAY = 9
    GAME_OVER = 10


class HeartsCode(IntEnum):
    """The codes of Hearts' action words (the low byte of its actions)."""

    DEAL = DEAL_WORD.code
    PASS = 9        # pass these cards
    PLAY = PLAY_WORD.code


PHASES = phase_words(HeartsPhase, {"deal": "Deal", "pass": "Pass cards", "play": "Play", "game_over": "Game over"})
WORDS = (DEAL_WORD, Word(HeartsCode.PASS, "pass", Shape.CARDS, "Pass"), PLAY_WORD)


def pass_cards(cards: CardSet) -> Action:
    """Pass this set of cards."""
    return cards_action(HeartsCode.PASS, cards)


def pass_of(cards: list[Card]) -> Action:
    """The pass of the listed cards; a card listed twice makes it an invalid pass."""
    return cards_action_of(HeartsCode.PASS, cards)
