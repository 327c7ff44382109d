"""What one seat may know: the part of a view every trick-taking game shares.

A game's view function builds this common part with :func:`table_view` and adds what only it
has in ``View.rules`` and ``SeatInfo.rules`` (dataclasses of its own module).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .actions import Action, kind_of
from .cards import Card, card_list
from .choices import ExchangeChoices
from .table import NOBODY, Phase, Seat, TableState
from .vocabulary import notation


@dataclass
class SeatInfo:
    """The public facts about one seat."""

    seat: Seat
    bid: int | None            # tricks bid (0 = Nil); None before bidding, for Double Nil, or no bid
    tricks_won: int
    card_count: int
    last_call: str             # notation of its last bid / trump / drop action, "" if none
    rules: Any = None          # the game's own per-seat facts
    void_suits: tuple[int, ...] = ()   # suits it showed it holds none of this hand (did not follow)
    played: list[Card] = field(default_factory=list)   # the cards it played this hand (the trick's too)


@dataclass
class SideInfo:
    """A scoring side (partnership or player): its seats, running score and bags."""

    side: int
    seats: list[Seat]
    score: int
    bags: int


@dataclass
class ExchangeRule:
    """How many of which cards the viewer must choose in one action that carries a set of cards
    (a CARDS word of the game: a Double Nil exchange, a discard, a Hearts pass): ``kind`` is the
    word's code; its notation is the word followed by the chosen cards."""

    cards: list[Card]
    fewest: int
    most: int
    kind: int


@dataclass
class View:
    """A game as one seat (or a spectator, ``viewer is None``) may see it."""

    variant: str
    phase: int                 # the code of one of the game's phases
    hand_number: int
    dealer: Seat
    turn: Seat | None
    viewer: Seat | None
    seats: list[SeatInfo]
    hand: list[Card] | None    # the viewer's cards; None when it may not see them or holds none between hands
    trick: list[tuple[Seat, Card]]
    trick_leader: Seat | None
    last_trick: list[tuple[Seat, Card]]
    last_trick_winner: Seat | None
    sides: list[SideInfo]
    winner_sides: list[int]
    winner_seats: list[Seat]
    options: Any
    deck_commitment: str = ""
    legal_actions: list[Action] = field(default_factory=list)
    exchange: ExchangeRule | None = None
    rules: Any = None          # the game's own view facts


_SUITS_IN = tuple(tuple(suit for suit in range(4) if bits >> suit & 1) for bits in range(16))


@lru_cache(maxsize=1024)
def _call_name(variant: str, action: Action) -> str:
    return notation(variant, action)


def in_hand(state: TableState) -> bool:
    """Whether a hand is being played (dealt and not yet scored)."""
    return state.phase not in (Phase.DEAL, Phase.GAME_OVER)


def table_view(state: TableState, viewer: Seat | None, legal: Sequence[Action],
               exchange: tuple[int, int, int, int] | None, bids: Sequence[int] | None = None,
               bags: Sequence[int] | None = None) -> View:
    """The common part of ``viewer``'s view (None: spectator), given its legal actions.

    ``exchange`` is the viewer's (eligible cards, fewest, most, the CARDS word's code) choice,
    shown as one rule instead of every combination; ``bids`` the seats' trick bids (negative:
    none shown).
    """
    calls, tricks, hands, voids, played = state.calls, state.tricks, state.hands, state.voids, state.played
    variant = state.variant
    seats = [
        SeatInfo(s, bids[s] if bids is not None and bids[s] >= 0 else None, tricks[s], hands[s].bit_count(),
                 _call_name(variant, calls[s]) if calls[s] else "", None, _SUITS_IN[voids >> 4 * s & 15],
                 card_list(played[s]) if played[s] else [])
        for s in range(state.n)
    ]
    last = state.last_trick
    v = View(
        variant=state.variant, phase=state.phase, hand_number=state.hand_no, dealer=state.dealer,
        turn=state.turn if state.turn != NOBODY else None, viewer=viewer, seats=seats,
        hand=None, trick=list(zip(state.trick_seats, state.trick_cards, strict=True)),
        trick_leader=state.trick_seats[0] if state.trick_seats else (
            state.turn if state.phase == Phase.PLAY else None),
        last_trick=list(zip(last[0], last[1], strict=True)) if last else [],
        last_trick_winner=last[2] if last else None,
        sides=[SideInfo(side, state.seats_of(side), state.scores[side], bags[side] if bags else 0)
               for side in range(state.sides)],
        winner_sides=list(state.winner),
        winner_seats=[s for side in state.winner for s in state.seats_of(side)],
        options=state.options,
        deck_commitment=state.commitment if in_hand(state) else "",
    )
    if viewer is None:
        return v
    if state.looked >> viewer & 1 and (state.hands[viewer] or in_hand(state)):   # between hands: no hand to see
        v.hand = card_list(state.hands[viewer])
    if exchange is not None:
        code = exchange[3]
        v.exchange = ExchangeRule(card_list(exchange[0]), exchange[1], exchange[2], code)
        v.legal_actions = ([] if isinstance(legal, ExchangeChoices)
                           else [a for a in legal if kind_of(a) != code])
    else:
        v.legal_actions = list(legal)
    return v
