"""Computer players for any seat of any variant: pure functions of the engine state, no I/O.

A bot decides only from what its seat may know (``engine.view``), never from hidden cards.
``random`` picks uniformly among the legal actions; ``basic`` plays simple card-player
heuristics (see ``service.bots_spades`` and ``service.bots_euchre``).

>>> import random, engine
>>> state = engine.new_game("buck_euchre", rng=random.Random(3), first_dealer=0)
>>> bot_seat_to_act(state, {0, 1}), bot_seat_to_act(state, {2})
(0, None)
>>> choose_action("basic", state, 0, random.Random(0)) == engine.DEAL
True
"""

from __future__ import annotations

import random

import engine
from engine.actions import REVEAL, Action
from engine.state import NOBODY, GameState, Phase, Variant

from service import bots_euchre, bots_spades

STRATEGIES = ("random", "basic")


def choose_action(strategy: str, state: GameState, seat: int, rng: random.Random) -> Action:
    """An action from ``engine.legal_actions(state, seat)`` chosen by ``strategy``; ValueError if none."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown bot strategy {strategy!r} (one of {', '.join(STRATEGIES)})")
    legal = engine.legal_actions(state, seat)
    if not len(legal):
        raise ValueError(f"seat {seat} has no legal action")
    if strategy == "random":
        return legal[rng.randrange(len(legal))]
    if len(legal) == 1:
        return legal[0]
    action = basic_action(state, seat, legal, rng)
    return action if action in legal else legal[rng.randrange(len(legal))]


def basic_action(state: GameState, seat: int, legal, rng: random.Random) -> Action:
    """The basic heuristic's choice for ``seat`` (from its view only), before any legality check."""
    v = engine.view(state, seat)
    if state.variant == Variant.BUCK_EUCHRE:
        return bots_euchre.choose(v, legal, rng)
    return bots_spades.choose(v, legal, rng)


def bot_seat_to_act(state: GameState, bot_seats: set[int]) -> int | None:
    """The bot seat that should act now (the seat in turn, or any bot in a simultaneous step), or None."""
    if state.phase == Phase.GAME_OVER:
        return None
    if state.turn != NOBODY:
        return state.turn if state.turn in bot_seats and len(engine.legal_actions(state, state.turn)) else None
    for seat in sorted(bot_seats):
        legal = engine.legal_actions(state, seat)
        if any(a != REVEAL for a in legal):
            return seat
    return None
