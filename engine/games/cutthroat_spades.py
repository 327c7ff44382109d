"""Cutthroat Spades (RULES.md §5): three players, each for themselves.

The 2♣ leaves the deck (51 cards, 17 each); bids are 0..17, Nil and Double Nil score as in
four-player Spades but nobody exchanges (there is no partner); each player scores alone, as in
two-player Spades. Hands are withheld until looked at and Double Nil is bid in turn by a seat
that has not looked, as in four-player Spades (a seat that may not declare it sees its hand from
the deal). The deal, the looking and bidding, the play, the scoring, the views and the search
bot's hooks are four-player Spades' own code (``engine.games.spades``, ``engine.games.spades_play``,
``engine.games.spades_determinize``) run for three seats, each a side of its own: this module says
only what differs, in its state class and its ``Game``.

Its settings are the Spades settings declared for every Spades game: the target, the bag limit
and penalty, the Nil and Double Nil values, Double Nil allowed, ``blind_nil_when_behind`` (the
player trails the highest of the other two by at least that many points) and ``losing_score``;
any other (the exchange size, jokers, the partnership bidding rules) is refused.

>>> import random, engine
>>> state = engine.new_game(NAME, rng=random.Random(1), first_dealer=2)
>>> chance = engine.apply(state, 2, engine.DEAL, random.Random(1))
>>> len(chance.cards), [hand.bit_count() for hand in state.hands], state.turn
(51, [17, 17, 17], 0)
>>> engine.notation(NAME, engine.legal_actions(state, 0)[-2]), engine.notation(NAME, engine.legal_actions(state, 0)[-1])
('bid 17', 'double-nil')
"""

from __future__ import annotations

from typing import ClassVar

from ..core.actions import Action
from ..core.cards import CLUBS, make_card
from ..core.table import Seat
from ..game import ApplyStep, Game, LegalStep
from .spades import apply_bid, apply_deal, legal_bid, legal_deal, view
from .spades_determinize import determinize, hidden
from .spades_play import apply_play, legal_play
from .spades_state import SpadesHandRecord, SpadesOptions, SpadesReason, SpadesState
from .spades_words import PHASES_CUTTHROAT, WORDS_CUTTHROAT, bid
from .spades_words import SpadesPhase as Phase

NAME = "cutthroat_spades"
TITLE = "Cutthroat Spades"
TWO_OF_CLUBS = make_card(2, CLUBS)
DECK = tuple(c for c in range(52) if c != TWO_OF_CLUBS)
"""The 51 cards: the 52 without the 2♣."""
SEATS = 3
HAND_SIZE = len(DECK) // SEATS


class CutthroatState(SpadesState):
    """A Cutthroat Spades game: the Spades state for three seats, each a side of its own, dealt
    17 cards of the 51 and bidding up to 17."""

    __slots__ = ()
    CARDS: ClassVar[tuple[int, ...]] = DECK
    MOST_BID: ClassVar[int] = HAND_SIZE
    BIDS: ClassVar[tuple[Action, ...]] = tuple(bid(n) for n in range(HAND_SIZE + 1))

    def seats_of(self, side: int) -> list[Seat]:
        """Each player is a side of its own."""
        return [side]


def new_state(options: SpadesOptions, first_dealer: Seat) -> CutthroatState:
    """A Cutthroat Spades game before its first deal; ValueError for a setting it does not take."""
    options.validate_for(NAME, TITLE, "three players each alone: no partner to exchange with, no jokers, no "
                                      "partnership bidding rules")
    return CutthroatState(NAME, options, SEATS, SEATS, first_dealer)


APPLY: dict[int, ApplyStep] = {Phase.DEAL: apply_deal, Phase.BID: apply_bid, Phase.PLAY: apply_play}
LEGAL: dict[int, LegalStep] = {Phase.DEAL: legal_deal, Phase.BID: legal_bid, Phase.PLAY: legal_play}

GAME = Game(name=NAME, seats=SEATS, cards=DECK, options_type=SpadesOptions, state_type=CutthroatState,
            record_type=SpadesHandRecord, new_state=new_state, legal=LEGAL, apply=APPLY, view=view,
            bags=lambda state: state.bags[:], hidden=hidden, determinize=determinize, title=TITLE,
            aliases=("cutthroat", "spades_three_player"), reasons=SpadesReason, words=WORDS_CUTTHROAT,
            phases=PHASES_CUTTHROAT)
