"""Actions a seat can take, encoded as small ints: the encoding, and the words every game shares.

An action is ``code | payload << 8``: the low byte is the code of one of the game's action words
(``engine.core.vocabulary``: each game declares its own, with their notation and shape), the rest
its payload: the card (a CARD word), the number (NUMBER), the suit (SUIT) or the set of cards
(CARDS); a NONE word carries none. Ints are cheap to build, compare and hash, which matters when
bots and simulations play millions of hands.

This module is the one place that knows the encoding: everything else builds actions with
:func:`action_of` (or the shared :func:`play`, :data:`DEAL`) and takes them apart with
:func:`kind_of` and :func:`payload_of`. Only the two words every trick-taking game has live here,
``deal`` and ``play``, since the shared machinery (the deal, trick play) builds them.

>>> from .cards import parse_card
>>> kind_of(play(parse_card("AS"))) == PLAY_CODE, payload_of(play(parse_card("AS"))) == parse_card("AS")
(True, True)
>>> action_of(5, 4) == 5 | 4 << CODE_BITS
True
"""

from __future__ import annotations

from .cards import Card, CardSet, subsets_of_suit
from .vocabulary import CODE_BITS, CODE_MASK, DUPLICATE_FLAG, Shape, Word, card_set_of

__all__ = ["CODE_BITS", "CODE_MASK", "DEAL", "DEAL_WORD", "DUPLICATE_FLAG", "PLAY_CODE", "PLAY_WORD",
           "PLAYS_BY_SUIT", "Action", "action_of", "cards_action", "cards_action_of", "kind_of", "payload_of",
           "play", "play_actions"]

Action = int

DEAL_WORD = Word(1, "deal", Shape.NONE, "Deal")
"""The dealer (2-player Spades: the first drawer) starts the next hand."""
PLAY_WORD = Word(14, "play", Shape.CARD, "Play")
"""Play one card to the trick."""
DEAL: Action = DEAL_WORD.code
PLAY_CODE = PLAY_WORD.code


def kind_of(action: Action) -> int:
    """The code of an action's word (its low byte), to compare with a game's word codes.

    Any int is taken apart, as a client may send one: its code is returned even when the game
    has no such word, for the rules to reject.

    >>> kind_of(play(3)) == PLAY_CODE, kind_of(11)
    (True, 11)
    """
    return action & CODE_MASK


def payload_of(action: Action) -> int:
    """The card, number, suit or card set an action carries."""
    return action >> CODE_BITS


def action_of(code: int, payload: int = 0) -> Action:
    """The action of the word ``code`` carrying ``payload``: the inverse of :func:`kind_of` and
    :func:`payload_of`, for any code and payload (well formed or not; the rules judge that)."""
    return code | payload << CODE_BITS


def play(card: Card) -> Action:
    """Play this card."""
    return PLAY_CODE | card << CODE_BITS


def cards_action(code: int, cards: CardSet) -> Action:
    """The action of a CARDS word carrying this set of cards."""
    return code | cards << CODE_BITS


def cards_action_of(code: int, cards: list[Card]) -> Action:
    """The action of a CARDS word carrying the listed cards; a card listed twice makes it an
    action the rules refuse (its payload carries DUPLICATE_FLAG)."""
    return code | card_set_of(cards) << CODE_BITS


PLAYS_BY_SUIT = tuple(subsets_of_suit(s, play) for s in range(4))
"""For each suit, the PLAY actions of every subset of its 13 cards (indexed by the 13-bit mask)."""
_C, _D, _H, _S = PLAYS_BY_SUIT


def play_actions(cards: CardSet) -> list[Action]:
    """The PLAY action of every card in a set, lowest card first (table lookups per suit)."""
    return [*_C[cards & 8191], *_D[cards >> 13 & 8191], *_H[cards >> 26 & 8191], *_S[cards >> 39]]
