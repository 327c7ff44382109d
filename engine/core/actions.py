"""Actions a seat can take, encoded as small ints, with a readable notation.

An action is ``kind | payload << 4``: the payload is the card (PLAY), the number of tricks
(BID), the suit (NAME_SUIT) or the set of cards (EXCHANGE, and a Hearts PASS; Buck Euchre's
plain PASS carries none). Ints are cheap to build, compare and hash, which matters when bots and
simulations play millions of hands.

This module is the one place that knows the encoding: everything else builds actions with the
constructors (:func:`play`, :func:`bid`, :func:`name_suit`, :func:`exchange`, :func:`pass_cards`,
or :func:`action_of` for any kind and payload) and takes them apart with :func:`kind_of` and
:func:`payload_of`.

>>> action_name(play(parse_card("AS")))
'play AS'
>>> parse_action("bid 4") == bid(4)
True
>>> action_name(exchange(parse_cards("2C 3D 4H")))
'exchange 2C 3D 4H'
>>> action_name(parse_action("pass 4H 2C 3D")), action_name(PASS)
('pass 2C 3D 4H', 'pass')
"""

from __future__ import annotations

from enum import IntEnum

from .cards import (
    SUIT_LETTERS,
    Card,
    CardSet,
    Suit,
    card_name,
    cards_text,
    parse_card,
    parse_cards,
    parse_suit,
    subsets_of_suit,
)

Action = int


class Kind(IntEnum):
    """What an action does; the low four bits of an action."""

    DEAL = 1          # the dealer (2-player Spades: the first drawer) starts the next hand
    REVEAL = 2        # look at one's hand (gives up Double Nil)
    DRAW_KEEP = 3     # 2-player Spades: keep the offered card
    DRAW_DISCARD = 4  # 2-player Spades: discard the offered card, take the next one
    BID = 5           # Spades: bid 0..13 tricks (0 = Nil)
    DOUBLE_NIL = 6    # Spades: bid Double Nil (Blind Nil) without having looked
    EXCHANGE = 7      # Double Nil card exchange, or the Buck Euchre dealer's discard
    ORDER_UP = 8      # Buck Euchre: make the turn-up's suit trump
    PASS = 9          # Buck Euchre: pass in either trump round (no payload); Hearts: pass these cards
    NAME_SUIT = 10    # Buck Euchre: name a trump suit in the second round
    STAY_IN = 12      # Buck Euchre: play this hand
    DROP_OUT = 13     # Buck Euchre: sit this hand out
    PLAY = 14         # play one card to the trick


_KIND_MASK = 15
# Plain ints, read once: the constructors run in bots' and simulations' innermost loops.
_BID, _EXCHANGE, _NAME_SUIT, _PLAY = int(Kind.BID), int(Kind.EXCHANGE), int(Kind.NAME_SUIT), int(Kind.PLAY)
_PASS = int(Kind.PASS)

DEAL: Action = Kind.DEAL
REVEAL: Action = Kind.REVEAL
DRAW_KEEP: Action = Kind.DRAW_KEEP
DRAW_DISCARD: Action = Kind.DRAW_DISCARD
DOUBLE_NIL: Action = Kind.DOUBLE_NIL
ORDER_UP: Action = Kind.ORDER_UP
PASS: Action = Kind.PASS
STAY_IN: Action = Kind.STAY_IN
DROP_OUT: Action = Kind.DROP_OUT

_WORDS: dict[int, str] = {
    Kind.DEAL: "deal", Kind.REVEAL: "reveal", Kind.DRAW_KEEP: "keep",
    Kind.DRAW_DISCARD: "discard", Kind.DOUBLE_NIL: "double-nil", Kind.ORDER_UP: "order-up",
    Kind.PASS: "pass", Kind.STAY_IN: "stay", Kind.DROP_OUT: "drop",
}
_BY_WORD = {word: kind for kind, word in _WORDS.items()}


def kind_of(action: Action) -> int:
    """The kind of an action, to compare with :class:`Kind`'s members.

    Any int is taken apart, as a client may send one: its kind is returned as a plain int even
    when it is none of :class:`Kind`'s (0, 11, 15), for the rules to reject.

    >>> kind_of(bid(4)) == Kind.BID, kind_of(11)
    (True, 11)
    """
    return action & _KIND_MASK


def payload_of(action: Action) -> int:
    """The card, number, suit or card set an action carries."""
    return action >> 4


def action_of(kind: int, payload: int = 0) -> Action:
    """The action of ``kind`` carrying ``payload``: the inverse of :func:`kind_of` and
    :func:`payload_of`, for any kind and payload (well formed or not; the rules judge that).

    >>> action_of(Kind.BID, 4) == bid(4), action_of(Kind.PASS) == PASS
    (True, True)
    """
    return kind | payload << 4


def play(card: Card) -> Action:
    """Play this card."""
    return _PLAY | card << 4


def bid(tricks: int) -> Action:
    """Bid this many tricks (0 is Nil)."""
    return _BID | tricks << 4


def name_suit(suit: Suit) -> Action:
    """Buck Euchre: name this suit trump."""
    return _NAME_SUIT | suit << 4


def exchange(cards: CardSet) -> Action:
    """Give these cards in the Double Nil exchange (or discard them, Buck Euchre dealer)."""
    return _EXCHANGE | cards << 4


def pass_cards(cards: CardSet) -> Action:
    """Hearts: pass these cards (a set; the plain :data:`PASS` is the empty set, Buck Euchre's pass).

    >>> kind_of(pass_cards(0b111)) == Kind.PASS, payload_of(pass_cards(0b111)), pass_cards(0) == PASS
    (True, 7, True)
    """
    return _PASS | cards << 4


PLAYS_BY_SUIT = tuple(subsets_of_suit(s, play) for s in range(4))
"""For each suit, the PLAY actions of every subset of its 13 cards (indexed by the 13-bit mask)."""
_C, _D, _H, _S = PLAYS_BY_SUIT


def play_actions(cards: CardSet) -> list[Action]:
    """The PLAY action of every card in a set, lowest card first (table lookups per suit)."""
    return [*_C[cards & 8191], *_D[cards >> 13 & 8191], *_H[cards >> 26 & 8191], *_S[cards >> 39]]


DUPLICATE_FLAG = 1 << 60
"""Set in an exchange's card set when the caller listed a card twice (never held, so rejected)."""


def exchange_of(cards: list[Card]) -> Action:
    """The exchange of the listed cards; a card listed twice makes it an invalid exchange."""
    mask = 0
    for c in cards:
        mask |= DUPLICATE_FLAG if mask >> c & 1 else 1 << c
    return exchange(mask)


def pass_of(cards: list[Card]) -> Action:
    """Hearts: the pass of the listed cards; a card listed twice makes it an invalid pass.

    >>> pass_of([parse_card("3D"), parse_card("2C")]) == pass_cards(parse_cards("2C 3D"))
    True
    """
    return pass_cards(payload_of(exchange_of(cards)))


def _cards_name(word: str, payload: int) -> str:
    cards = payload & ((1 << 52) - 1)
    extra = " and unknown cards" if payload & ~cards & ~DUPLICATE_FLAG else ""
    return (word + " " + cards_text(cards)).rstrip() + extra


def action_name(action: Action) -> str:
    """The readable form of an action: ``play AS``, ``bid 4``, ``name H``, ``exchange 2C 3D``,
    ``pass 2C 3D 4H`` (a Hearts pass; ``pass`` alone carries no cards)."""
    kind, payload = kind_of(action), payload_of(action)
    if kind == Kind.PLAY:
        return "play " + (card_name(payload) if 0 <= payload < 52 else f"card #{payload}")
    if kind == Kind.BID:
        return f"bid {payload}"
    if kind == Kind.NAME_SUIT:
        return "name " + (SUIT_LETTERS[payload] if 0 <= payload < 4 else f"suit #{payload}")
    if kind == Kind.EXCHANGE:
        return _cards_name("exchange", payload)
    if kind == Kind.PASS and payload & ((1 << 52) - 1):
        return _cards_name("pass", payload)
    if kind in _WORDS and not payload:
        return _WORDS[kind]
    return f"action #{action}"


def parse_action(text: str) -> Action:
    """The action written as by :func:`action_name`; ValueError if it is not one.

    A Hearts pass takes its cards in any order; a card listed twice gives a pass the rules
    refuse (INVALID_PASS), not a ValueError: only a word that is no card is malformed.
    """
    word, _, rest = text.strip().lower().partition(" ")
    rest = rest.strip()
    if word == "play":
        return play(parse_card(rest))
    if word == "bid":
        if rest == "nil":
            return bid(0)
        if not rest.isdigit():
            raise ValueError(f"not a bid: {rest!r}")
        return bid(int(rest))
    if word == "name":
        return name_suit(parse_suit(rest))
    if word == "exchange":
        return exchange(parse_cards(rest))
    if word == "pass" and rest:
        return pass_of([parse_card(w) for w in rest.replace(",", " ").split()])
    if word in _BY_WORD and not rest:
        return _BY_WORD[word]
    raise ValueError(f"not an action: {text!r}")
