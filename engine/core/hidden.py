"""What one seat does not see, and whole states rebuilt from its view plus a guess of it.

A bot decides from its seat's view alone. To look ahead it deals the cards it cannot see in one
of the ways its view allows and builds the state that deal gives ("determinizes"): a game's
``hidden(view)`` names the unknown cards and the places they can be in (each other hand, a kitty,
a stock, ...: how many cards each holds and which cards it may hold, given the suits each seat
has shown out of), and its ``determinize(view, hidden, fills)`` builds the state in which place
``i`` of ``hidden`` holds the cards ``fills[i]``. Whatever the fill, the viewer's view of that state is the view it
was built from (pinned by tests), so nothing the real state hides can leak into it.

>>> from .cards import parse_card, parse_cards
>>> AS, KS, QH = parse_card("AS"), parse_card("KS"), parse_card("QH")
>>> hidden = Hidden(parse_cards("AS KS QH"), (Place("hand", 1, 2, parse_cards("AS KS QH")),
...                                          Place("hand", 2, 1, parse_cards("QH"))))
>>> hidden.check([[AS, KS], [QH]])
>>> hidden.check([[AS, QH], [KS]])
Traceback (most recent call last):
...
ValueError: hand of seat 2 may not hold KS
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter

from .cards import BITS, Card, CardSet, card_name
from .table import NOBODY, TableState
from .views import View
from .vocabulary import vocabulary_of


@dataclass(frozen=True, slots=True)
class Place:
    """A place unknown cards can be in: what it is (``hand``, ``kitty``, ...) and whose, how many
    cards it holds, and the cards it may hold."""

    what: str
    seat: int
    size: int
    allowed: CardSet

    def __str__(self) -> str:
        return f"{self.what} of seat {self.seat}" if self.seat >= 0 else self.what


@dataclass(frozen=True, slots=True)
class Hidden:
    """The cards a seat cannot place, and the places they are in (sizes sum to their number)."""

    cards: CardSet
    places: tuple[Place, ...]

    def check(self, fills: Sequence[Sequence[Card]]) -> None:
        """Raise ValueError unless ``fills`` put every unknown card in exactly one place that may
        hold it, each place getting its size."""
        if len(fills) != len(self.places):
            raise ValueError(f"{len(fills)} fills for {len(self.places)} places")
        union = 0
        for place, cards in zip(self.places, fills, strict=True):
            if len(cards) != place.size:
                raise ValueError(f"{place} holds {place.size} cards, not {len(cards)}")
            for c in cards:
                if not place.allowed >> c & 1:
                    raise ValueError(f"{place} may not hold {card_name(c)}")
                if union >> c & 1:
                    raise ValueError(f"{card_name(c)} is in two places")
                union |= 1 << c
        if union != self.cards:
            raise ValueError("the fills are not the unknown cards")


def shown_out(view: View, seat: int, masks: Sequence[CardSet]) -> CardSet:
    """The cards of the suits ``seat`` showed it holds none of (``masks``: each suit's cards)."""
    out = 0
    for suit in view.seats[seat].void_suits:
        out |= masks[suit]
    return out


def mask(cards: Sequence[Card] | None) -> CardSet:
    """The set of the listed cards (none for None): their bits taken in one call (``itemgetter``)
    and added up (a card listed twice counts twice, as in any sum of bits)."""
    if not cards:
        return 0
    if len(cards) == 1:
        return BITS[cards[0]]
    return sum(itemgetter(*cards)(BITS))


def public_cards(view: View) -> CardSet:
    """The cards every seat has seen leave a hand this hand: those played (the trick on the table's too)."""
    out = 0
    for info in view.seats:
        out |= mask(info.played)
    return out


@lru_cache(maxsize=512)
def _call(variant: str, text: str) -> int:
    """The action a view's call notation names (the few a view shows, parsed once)."""
    return vocabulary_of(variant).parse(text)


def restore_table(state: TableState, view: View) -> TableState:
    """Set the fields every game shares from ``view`` (hands, bids and the game's own fields are
    the game's to set); returns ``state``."""
    state.phase = view.phase
    state.hand_no = view.hand_number
    state.dealer = view.dealer
    state.turn = NOBODY if view.turn is None else view.turn
    state.tricks = [info.tricks_won for info in view.seats]
    state.calls = [_call(view.variant, info.last_call) if info.last_call else 0 for info in view.seats]
    state.trick_seats = [s for s, _ in view.trick]
    state.trick_cards = [c for _, c in view.trick]
    last = view.last_trick
    state.last_trick = [[s for s, _ in last], [c for _, c in last], view.last_trick_winner] if last else None
    state.scores = [side.score for side in view.sides]
    state.winner = list(view.winner_sides)
    state.commitment = view.deck_commitment
    state.played = [mask(info.played) for info in view.seats]
    state.voids = sum(1 << (4 * info.seat + suit) for info in view.seats for suit in info.void_suits)
    return state


def filled(hidden: Hidden, fills: Sequence[Sequence[Card]]) -> dict[tuple[str, int], list[Card]]:
    """The fill of each place by (what, seat)."""
    return {(p.what, p.seat): list(cards) for p, cards in zip(hidden.places, fills, strict=True)}
