"""Cards, suits and hands: a card is an int, a hand is a bit set of cards.

A card is ``suit * 13 + (rank - 2)`` with ranks 2..14 (J=11, Q=12, K=13, A=14) and suits
clubs, diamonds, hearts, spades = 0, 1, 2, 3. A set of cards is an int whose bit ``c`` is set
when card ``c`` is in it, so membership, removal and "cards of one suit" are single operations.

Two more cards exist for games played with jokers: the Little Joker (``LJ``, card 52) and the Big
Joker (``BJ``, card 53). They belong to no printed suit (a game that uses them says what they
are); their names are read only where a game asks for them (``jokers=True``), so elsewhere a text
naming one is not a card.

>>> card_name(parse_card("10H"))
'10H'
>>> cards_text(parse_cards("AS 2C 10H"))
'2C 10H AS'
>>> cards_text(parse_cards("BJ AS LJ", jokers=True)), parse_card("bj", jokers=True) == BIG_JOKER
('AS LJ BJ', True)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from operator import itemgetter

Card = int
Suit = int
CardSet = int

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUITS = (CLUBS, DIAMONDS, HEARTS, SPADES)
SUIT_LETTERS = "CDHS"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANK_NAMES = {2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "10",
              11: "J", 12: "Q", 13: "K", 14: "A"}
_RANK_BY_NAME = {name: rank for rank, name in RANK_NAMES.items()}
JACK, ACE = 11, 14

LITTLE_JOKER, BIG_JOKER = 52, 53
"""The two jokers' cards, above every card of the four suits."""
JOKER_NAMES = {"LJ": LITTLE_JOKER, "BJ": BIG_JOKER}
JOKERS: CardSet = 1 << LITTLE_JOKER | 1 << BIG_JOKER
CARD_COUNT = 54
"""How many cards exist: the 52 of the four suits and the two jokers."""

BITS = tuple(1 << c for c in range(CARD_COUNT))
SUIT_MASKS = tuple(((1 << 13) - 1) << (13 * s) for s in SUITS)
FULL_DECK: CardSet = (1 << 52) - 1


def make_card(rank: int, suit: Suit) -> Card:
    """The card of this rank (2..14) and suit."""
    return suit * 13 + rank - 2


def suit_of(card: Card) -> Suit:
    """The printed suit of a card."""
    return card // 13


def rank_of(card: Card) -> int:
    """The printed rank of a card, 2..14."""
    return card % 13 + 2


CARD_NAMES = (*(RANK_NAMES[c % 13 + 2] + SUIT_LETTERS[c // 13] for c in range(52)), "LJ", "BJ")


def card_name(card: Card) -> str:
    """The short name of a card: ``AS``, ``10H``, ``9D``, ``BJ``."""
    return CARD_NAMES[card]


def parse_card(text: str, jokers: bool = False) -> Card:
    """The card named by ``text`` (``AS``, ``10h``, ``T♥`` is not accepted; ``BJ`` and ``LJ`` only
    with ``jokers``); ValueError if none."""
    t = text.strip().upper()
    if jokers and t in JOKER_NAMES:
        return JOKER_NAMES[t]
    if len(t) < 2 or t[-1] not in SUIT_LETTERS or t[:-1] not in _RANK_BY_NAME:
        raise ValueError(f"not a card: {text!r} (write rank then suit, e.g. AS, 10H, 9D)")
    return make_card(_RANK_BY_NAME[t[:-1]], SUIT_LETTERS.index(t[-1]))


def parse_suit(text: str) -> Suit:
    """The suit named by a letter or word (``H``, ``hearts``); ValueError if none."""
    t = text.strip().lower()
    for s in SUITS:
        if t in (SUIT_LETTERS[s].lower(), SUIT_NAMES[s], SUIT_NAMES[s][:-1]):
            return s
    raise ValueError(f"not a suit: {text!r} (C, D, H or S)")


def cards_of(mask: CardSet) -> Iterator[Card]:
    """The cards of a set, lowest first (clubs 2 up to the ace of spades, then the jokers)."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def subsets_of_suit(suit: Suit, item=lambda card: card) -> tuple[tuple, ...]:
    """For every 13-bit rank mask of ``suit``, the ``item`` of each card in it, lowest first.

    Built incrementally (a mask's tuple is its lowest card's item before the rest's tuple), so
    the 8,192 entries cost one small tuple each.
    """
    items = [item(suit * 13 + r) for r in range(13)]
    table: list[tuple] = [()] * (1 << 13)
    for m in range(1, 1 << 13):
        low = (m & -m).bit_length() - 1
        table[m] = (items[low], *table[m & (m - 1)])
    return tuple(table)


_BY_SUIT = tuple(subsets_of_suit(s) for s in SUITS)
_C, _D, _H, _S = _BY_SUIT
_J = ((), (LITTLE_JOKER,), (BIG_JOKER,), (LITTLE_JOKER, BIG_JOKER))


def card_list(mask: CardSet) -> list[Card]:
    """The cards of a set as a list, lowest first (one table lookup per suit)."""
    if mask >> 52:
        if mask >> CARD_COUNT:
            return list(cards_of(mask))
        return [*_C[mask & 8191], *_D[mask >> 13 & 8191], *_H[mask >> 26 & 8191], *_S[mask >> 39 & 8191],
                *_J[mask >> 52]]
    return [*_C[mask & 8191], *_D[mask >> 13 & 8191], *_H[mask >> 26 & 8191], *_S[mask >> 39]]


def to_set(cards: Iterable[Card]) -> CardSet:
    """The set of the given cards."""
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


def cards_text(mask: CardSet) -> str:
    """A set written as card names separated by spaces, lowest first."""
    return " ".join(card_name(c) for c in cards_of(mask))


def parse_cards(text: str, jokers: bool = False) -> CardSet:
    """The set written as card names separated by spaces or commas (jokers' names only with
    ``jokers``); ValueError on duplicates."""
    mask = 0
    for word in text.replace(",", " ").split():
        c = parse_card(word, jokers)
        if mask >> c & 1:
            raise ValueError(f"card listed twice: {card_name(c)}")
        mask |= 1 << c
    return mask


def parse_deck(text: str, jokers: bool = False) -> list[Card]:
    """An ordered deck written as card names, top first (jokers' names only with ``jokers``);
    ValueError on duplicates."""
    deck = [parse_card(w, jokers) for w in text.replace(",", " ").split()]
    if len(set(deck)) != len(deck):
        raise ValueError("a card appears twice in the deck")
    return deck


_last_text: tuple[list[Card], str] = ([], "")


def deck_text(deck: Iterable[Card]) -> str:
    """An ordered deck written as card names, top first.

    A hand's deck is written twice, for its fairness commitment at the deal and in its record at
    its end: the last list of cards written is remembered with its text (one pair, replaced
    whole, so threads never see a list with another's text).
    """
    global _last_text
    if type(deck) is not list:
        return " ".join([CARD_NAMES[c] for c in deck])
    last = _last_text
    if deck == last[0]:
        return last[1]
    text = " ".join(itemgetter(*deck)(CARD_NAMES)) if len(deck) > 1 else " ".join([CARD_NAMES[c] for c in deck])
    _last_text = (deck[:], text)
    return text


EUCHRE_DECK: CardSet = to_set(make_card(r, s) for s in SUITS for r in range(9, 15))
