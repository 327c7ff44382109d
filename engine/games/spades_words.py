"""The words of the Spades games (four-player, two-player and Cutthroat Spades): their phases and actions.

>>> from ..core.vocabulary import Vocabulary
>>> words = Vocabulary("spades2", WORDS_TWO_PLAYER, PHASES_TWO_PLAYER)
>>> words.name(bid(4)), words.parse("bid nil") == bid(0), words.name(DRAW_KEEP), words.name(DOUBLE_NIL)
('bid 4', True, 'keep', 'double-nil')
>>> from ..core.cards import parse_cards
>>> words.name(exchange(parse_cards("2C 3D 4H"))), words.phase(SpadesPhase.DRAW).title
('exchange 2C 3D 4H', 'Draw')
>>> four = Vocabulary("spades", WORDS, PHASES)
>>> four.name(four.parse("play bj")), four.name(four.parse("exchange LJ 2d AS"))
('play BJ', 'exchange 2D AS LJ')
>>> words.parse("play BJ")
Traceback (most recent call last):
...
ValueError: not a card: 'bj' (write rank then suit, e.g. AS, 10H, 9D)
>>> three = Vocabulary("cutthroat_spades", WORDS_CUTTHROAT, PHASES_CUTTHROAT)
>>> three.name(three.parse("bid 17")), [p.name for p in three.phases], "exchange" in three.by_word
('bid 17', ['deal', 'bid', 'play', 'game_over'], False)
"""

from __future__ import annotations

from dataclasses import replace
from enum import IntEnum

from ..core.actions import DEAL_WORD, PLAY_WORD, Action, action_of, cards_action, cards_action_of
from ..core.cards import Card, CardSet
from ..core.vocabulary import Shape, Word, phase_words


class SpadesPhase(IntEnum):
    """Where a Spades hand stands (four-player Spades never draws)."""

    DEAL = 1        # waiting for the dealer (two players: the first drawer) to start
    DRAW = 2        # two players: the draw
    BID = 3         # bidding tricks, Nil or Double Nil
    EXCHANGE = 4    # the Double Nil card exchange
    PLAY = 9        # trick play
    GAME_OVER = 10


class SpadesCode(IntEnum):
    """The codes of Spades' action words (the low byte of its actions)."""

    DEAL = DEAL_WORD.code
    REVEAL = 2          # look at one's cards (gives up Double Nil)
    DRAW_KEEP = 3       # two players: keep the offered card
    DRAW_DISCARD = 4    # two players: discard the offered card, take the next one
    BID = 5             # bid 0..13 tricks (0 = Nil)
    DOUBLE_NIL = 6      # bid Double Nil (Blind Nil) without having looked
    EXCHANGE = 7        # give (two players: put aside) cards in the exchange (Double Nil; Nil with nil_exchange)
    PLAY = PLAY_WORD.code


_TITLES = {"deal": "Deal", "draw": "Draw", "bid": "Bidding", "exchange": "Double Nil exchange", "play": "Play",
           "game_over": "Game over"}
PHASES = tuple(p for p in phase_words(SpadesPhase, _TITLES) if p.code != SpadesPhase.DRAW)
PHASES_TWO_PLAYER = phase_words(SpadesPhase, _TITLES)
PHASES_CUTTHROAT = tuple(p for p in PHASES if p.code != SpadesPhase.EXCHANGE)
"""Cutthroat Spades' phases: four-player Spades' but the exchange (nobody has a partner)."""

_EXCHANGE_WORD = Word(SpadesCode.EXCHANGE, "exchange", Shape.CARDS, "Exchange")
WORDS = (
    DEAL_WORD,
    Word(SpadesCode.REVEAL, "reveal", Shape.NONE, "Look at your cards", optional=True),
    Word(SpadesCode.BID, "bid", Shape.NUMBER, "Bid", numbers={"nil": 0}),
    Word(SpadesCode.DOUBLE_NIL, "double-nil", Shape.NONE, "Double Nil (blind)"),
    replace(_EXCHANGE_WORD, jokers=True),
    replace(PLAY_WORD, jokers=True),
)
"""Four-player Spades' words; its cards may be jokers (the ``trumps`` setting), so ``play`` and
``exchange`` read ``BJ`` and ``LJ``."""
WORDS_TWO_PLAYER = (Word(DEAL_WORD.code, "deal", Shape.NONE, "Start the draw"),   # a drawer sees its cards as it draws
                    *(word for word in WORDS[1:4] if word.code != SpadesCode.REVEAL),
                    _EXCHANGE_WORD,
                    PLAY_WORD,
                    Word(SpadesCode.DRAW_KEEP, "keep", Shape.NONE, "Keep the offered card"),
                    Word(SpadesCode.DRAW_DISCARD, "discard", Shape.NONE, "Discard it and take the next card"))
"""Two-player Spades' words: it is always played without jokers, so no word reads their names."""
WORDS_CUTTHROAT = (*(word for word in WORDS[:4]), PLAY_WORD)
"""Cutthroat Spades' words: four-player Spades' (looking, bidding, Double Nil) but the exchange; it
is played without jokers, so ``play`` reads no joker's name."""

REVEAL: Action = SpadesCode.REVEAL
DOUBLE_NIL: Action = SpadesCode.DOUBLE_NIL
DRAW_KEEP: Action = SpadesCode.DRAW_KEEP
DRAW_DISCARD: Action = SpadesCode.DRAW_DISCARD
_BID = int(SpadesCode.BID)


def bid(tricks: int) -> Action:
    """Bid this many tricks (0 is Nil)."""
    return action_of(_BID, tricks)


def exchange(cards: CardSet) -> Action:
    """Give (two players: put aside) these cards in the exchange (Double Nil, or Nil with ``nil_exchange``)."""
    return cards_action(SpadesCode.EXCHANGE, cards)


def exchange_of(cards: list[Card]) -> Action:
    """The exchange of the listed cards; a card listed twice makes it an invalid exchange."""
    return cards_action_of(SpadesCode.EXCHANGE, cards)
