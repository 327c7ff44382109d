"""The trick-taking core shared by every game: effective suits, following suit, trick winners.

A :class:`TrumpRules` answers, for one trump choice, which suit a card belongs to for following
(the Euchre left bower belongs to trump) and how strong it is. Tables are built once per trump.

>>> from .cards import parse_card, parse_cards, HEARTS, DIAMONDS
>>> euchre = euchre_rules(HEARTS)
>>> euchre.suit[parse_card("JD")] == HEARTS   # the left bower is a heart
True
>>> cards_text(euchre.follow(parse_cards("JD 9D AC"), DIAMONDS))   # JD is a heart now
'9D'
>>> card_name(euchre.winner([parse_card("AH"), parse_card("JD"), parse_card("JH")])[1])
'JH'
"""

from __future__ import annotations

from .cards import ACE, SPADES, SUITS, Card, CardSet, Suit, card_name, cards_text, make_card, rank_of, suit_of  # noqa: F401

_TRUMP_BONUS = 100


class TrumpRules:
    """Effective suit, suit masks and strength of every card under one trump (or none)."""

    __slots__ = ("trump", "suit", "masks", "power")

    def __init__(self, trump: Suit | None, bowers: bool):
        self.trump = trump
        self.suit = [suit_of(c) for c in range(52)]
        self.power = [rank_of(c) for c in range(52)]
        if trump is not None:
            for c in range(52):
                if suit_of(c) == trump:
                    self.power[c] += _TRUMP_BONUS
            if bowers:
                right, left = make_card(11, trump), make_card(11, trump ^ 3)
                self.suit[left] = trump
                self.power[left] = _TRUMP_BONUS + ACE + 1
                self.power[right] = _TRUMP_BONUS + ACE + 2
        self.masks = [0, 0, 0, 0]
        for c in range(52):
            self.masks[self.suit[c]] |= 1 << c

    def follow(self, hand: CardSet, led: Suit) -> CardSet:
        """The cards of ``hand`` that may be played to a trick led in suit ``led``."""
        same = hand & self.masks[led]
        return same or hand

    def winner(self, cards: list[Card]) -> tuple[int, Card]:
        """The index in ``cards`` (in play order) of the card that wins the trick, and that card."""
        suit, power = self.suit, self.power
        led = suit[cards[0]]
        trump = self.trump
        best_i, best_p = 0, power[cards[0]]
        for i in range(1, len(cards)):
            c = cards[i]
            s = suit[c]
            if s == led or s == trump:
                p = power[c]
                if p > best_p:
                    best_i, best_p = i, p
        return best_i, cards[best_i]


SPADES_RULES = TrumpRules(SPADES, bowers=False)
_EUCHRE: dict[Suit | None, TrumpRules] = {t: TrumpRules(t, bowers=True) for t in SUITS}
_NO_TRUMP = TrumpRules(None, bowers=False)


def euchre_rules(trump: Suit | None) -> TrumpRules:
    """The rules of a Buck Euchre hand with this trump (``None`` or 4: no trump)."""
    return _EUCHRE.get(trump, _NO_TRUMP)

