"""The engine's entry points: start a game, list and apply actions, view and score it."""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence

from . import buck_euchre, spades, spades2
from .actions import Action
from .cards import EUCHRE_DECK, FULL_DECK, Card, card_name
from .errors import IllegalAction, Reason
from .options import Options
from .state import OPTIONS_CLASS, SEATS, GameState, Phase, Seat, Variant
from .views import View, view as _view

_RULES = {Variant.SPADES: spades, Variant.SPADES2: spades2, Variant.BUCK_EUCHRE: buck_euchre}
_DECKS = {Variant.SPADES: FULL_DECK, Variant.SPADES2: FULL_DECK, Variant.BUCK_EUCHRE: EUCHRE_DECK}
_SYSTEM_RANDOM = secrets.SystemRandom()
_GAME_OVER = int(Phase.GAME_OVER)


def new_game(variant: str, options: Options | None = None, rng: random.Random | None = None,
             first_dealer: Seat | None = None, decks: list[list[Card]] | None = None) -> GameState:
    """A new game waiting for its first deal; ValueError on a bad variant, option, dealer or deck.

    ``decks`` are prearranged decks (top first), used one per hand before shuffling resumes.
    """
    if variant not in _RULES:
        raise ValueError(f"unknown variant {variant!r} (one of {', '.join(Variant.ALL)})")
    cls = OPTIONS_CLASS[variant]
    options = options if options is not None else cls()
    if not isinstance(options, cls):
        raise ValueError(f"{variant} takes {cls.__name__}, not {type(options).__name__}")
    options.validate()
    rng = rng or _SYSTEM_RANDOM
    n = SEATS[variant]
    if first_dealer is None:
        first_dealer = rng.randrange(n)
    if not 0 <= first_dealer < n:
        raise ValueError(f"first dealer must be a seat from 0 to {n - 1}, not {first_dealer}")
    state = GameState(variant, options, first_dealer)
    for i, deck in enumerate(decks or []):
        check_deck(variant, deck, i)
        state.decks.append(list(deck))
    return state


def check_deck(variant: str, deck: list[Card], index: int = 0) -> None:
    """Raise ValueError unless ``deck`` holds every card of the variant exactly once."""
    want = _DECKS[variant]
    mask = 0
    for c in deck:
        if not 0 <= c < 52 or not want >> c & 1:
            raise ValueError(f"deck {index + 1}: {card_name(c) if 0 <= c < 52 else c} is not a card of {variant}")
        if mask >> c & 1:
            raise ValueError(f"deck {index + 1}: {card_name(c)} appears twice")
        mask |= 1 << c
    if mask != want:
        raise ValueError(f"deck {index + 1}: {want.bit_count() - mask.bit_count()} cards are missing")


_LEGAL = {variant: rules.LEGAL for variant, rules in _RULES.items()}
_STEPS = {variant: rules.APPLY for variant, rules in _RULES.items()}


def legal_actions(state: GameState, seat: Seat) -> Sequence[Action]:
    """Every action ``seat`` may take now (empty when it has none); exchanges come as a lazy sequence."""
    step = _LEGAL[state.variant].get(state.phase)
    if step is None or not 0 <= seat < state.n:
        return []
    return step(state, seat)


def apply(state: GameState, seat: Seat, action: Action, rng: random.Random | None = None) -> GameState:
    """Apply one action of ``seat`` in place and return the state; IllegalAction leaves it unchanged."""
    step = _STEPS[state.variant].get(state.phase)
    if step is None or not 0 <= seat < state.n:
        if state.phase == _GAME_OVER:
            raise IllegalAction(Reason.WRONG_PHASE, "the game is over")
        if step is None:
            raise IllegalAction(Reason.WRONG_PHASE, f"nothing can be done in the {state.phase.name} phase")
        raise IllegalAction(Reason.NOT_YOUR_TURN, f"there is no seat {seat}")
    step(state, seat, action, rng or _SYSTEM_RANDOM)
    return state


def view(state: GameState, seat: Seat | None) -> View:
    """What ``seat`` may know now (``None``: a spectator), with its legal actions."""
    if seat is None or not 0 <= seat < state.n:
        return _view(state, None, [], None)
    rules = _RULES[state.variant]
    choice = rules.exchange_choice(state, seat)
    return _view(state, seat, legal_actions(state, seat), choice)


def score(state: GameState) -> dict:
    """Every hand's score record, the running totals and bags per side, and the winners."""
    return {
        "hands": state.records,
        "totals": state.scores[:],
        "bags": state.bags[:],
        "sides": [state.seats_of(side) for side in range(state.sides)],
        "winner_sides": state.winner[:],
    }
