"""What one seat may know: the only door through which a game's state leaves the engine."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import actions as A
from .actions import Action, Kind
from .cards import Card, card_list
from .options import Options
from .state import DOUBLE_NIL_BID, NO_CARD, NO_TRUMP, NOBODY, GameState, Phase, Seat, Variant


@dataclass
class SeatInfo:
    """The public facts about one seat."""

    seat: Seat
    bid: int | None            # tricks bid (0 = Nil); None before bidding or for Double Nil
    double_nil: bool
    tricks_won: int
    card_count: int
    has_looked: bool
    dropped_out: bool
    exchange_done: bool
    last_call: str             # notation of its last bid / trump / drop action, "" if none


@dataclass
class SideInfo:
    """A scoring side (partnership or player): its seats, running score and bags."""

    side: int
    seats: list[Seat]
    score: int
    bags: int


@dataclass
class ExchangeRule:
    """How many of which cards the viewer must choose in an exchange or discard."""

    cards: list[Card]
    fewest: int
    most: int


@dataclass
class View:
    """A game as one seat (or a spectator, ``viewer is None``) may see it."""

    variant: str
    phase: Phase
    hand_number: int
    dealer: Seat
    turn: Seat | None
    viewer: Seat | None
    seats: list[SeatInfo]
    hand: list[Card] | None
    trick: list[tuple[Seat, Card]]
    trick_leader: Seat | None
    last_trick: list[tuple[Seat, Card]]
    last_trick_winner: Seat | None
    spades_broken: bool
    sides: list[SideInfo]
    winner_sides: list[int]
    winner_seats: list[Seat]
    options: Options
    deck_commitment: str = ""
    trump: int | None = None
    no_trump: bool = False
    turn_up: Card | None = None
    turn_up_turned_down: bool = False
    maker: Seat | None = None
    offered: Card | None = None
    seen_discards: list[Card] = field(default_factory=list)
    stock_count: int = 0
    exchange_given: list[Card] = field(default_factory=list)
    exchange_received: list[Card] = field(default_factory=list)
    legal_actions: list[Action] = field(default_factory=list)
    exchange: ExchangeRule | None = None


def view(state: GameState, seat: Seat | None, legal: list[Action], exchange: tuple | None) -> View:
    """The view of ``state`` for ``seat`` (None: spectator), given that seat's legal actions."""
    viewer = seat if seat is not None and 0 <= seat < state.n else None
    in_hand = state.phase not in (Phase.DEAL, Phase.GAME_OVER)
    seats = [
        SeatInfo(
            seat=s,
            bid=state.bids[s] if state.bids[s] >= 0 else None,
            double_nil=state.bids[s] == DOUBLE_NIL_BID,
            tricks_won=state.tricks[s],
            card_count=state.hands[s].bit_count(),
            has_looked=bool(state.looked >> s & 1),
            dropped_out=in_hand and not state.active >> s & 1,
            exchange_done=state.xgiven[s] != NO_CARD,
            last_call=A.action_name(state.calls[s]) if state.calls[s] else "",
        )
        for s in range(state.n)
    ]
    last = state.last_trick
    v = View(
        variant=state.variant, phase=state.phase, hand_number=state.hand_no, dealer=state.dealer,
        turn=state.turn if state.turn != NOBODY else None, viewer=viewer, seats=seats,
        hand=None, trick=list(zip(state.trick_seats, state.trick_cards)),
        trick_leader=state.trick_seats[0] if state.trick_seats else (
            state.turn if state.phase == Phase.PLAY else None),
        last_trick=list(zip(last[0], last[1])) if last else [],
        last_trick_winner=last[2] if last else None,
        spades_broken=state.broken,
        sides=[SideInfo(side, state.seats_of(side), state.scores[side], state.bags[side])
               for side in range(state.sides)],
        winner_sides=list(state.winner),
        winner_seats=[s for side in state.winner for s in state.seats_of(side)],
        options=state.options,
        deck_commitment=state.commitment if in_hand else "",
    )
    if state.variant == Variant.BUCK_EUCHRE and in_hand:
        v.trump = state.trump if 0 <= state.trump < 4 else None
        v.no_trump = state.trump == NO_TRUMP
        v.turn_up = state.turnup
        v.turn_up_turned_down = state.turned_down
        v.maker = state.maker if state.maker != NOBODY else None
    if state.phase == Phase.DRAW:
        v.stock_count = len(state.deck) - state.pos
    if viewer is None:
        return v
    if state.looked >> viewer & 1:
        v.hand = card_list(state.hands[viewer])
    if state.phase == Phase.DRAW and viewer == state.turn:
        v.offered = state.offered
    if state.variant == Variant.SPADES2:
        v.seen_discards = card_list(state.discarded[viewer])
    if state.xgiven[viewer] != NO_CARD:
        v.exchange_given = card_list(state.xgiven[viewer])
        v.exchange_received = card_list(state.xgot[viewer])
    if exchange is not None:
        v.exchange = ExchangeRule(card_list(exchange[0]), exchange[1], exchange[2])
        v.legal_actions = [a for a in legal if a & 15 != Kind.EXCHANGE]
    else:
        v.legal_actions = legal
    return v



