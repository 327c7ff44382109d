"""Computer players for any seat: each decides from its seat's view and legal actions alone.

A :class:`Bot` never sees the game state, only ``engine.view(state, seat)`` and the seat's legal
actions, so it cannot use a hidden card. ``BOTS`` registers them by name: ``random`` picks
uniformly among the legal actions of any game; ``basic`` plays simple card-player heuristics
for the games it knows (``bots.spades``, ``bots.buck_euchre``) and refuses any other.

>>> import random, engine
>>> state = engine.new_game("buck_euchre", rng=random.Random(3), first_dealer=0)
>>> bot_seat_to_act(state, {0, 1}), bot_seat_to_act(state, {2})
(0, None)
>>> choose_action("basic", state, 0, random.Random(0)) == engine.DEAL
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Sequence
from typing import Protocol

import engine
from engine import NOBODY, Action, Phase, TableState, View
from engine.core.actions import REVEAL

from . import buck_euchre, spades
from .search import SearchBot


class Bot(Protocol):
    """A computer player: chooses one of ``legal`` from what its seat's view shows."""

    name: str

    def plays(self, variant: str) -> bool:
        """Whether this bot can play the named game."""
        ...

    def choose(self, view: View, legal: Sequence[Action], rng: random.Random) -> Action:
        """One action of ``legal`` (never empty) for the seat ``view.viewer``."""
        ...


class RandomBot:
    """Uniform over the legal actions, in every game."""

    name = "random"

    def plays(self, variant: str) -> bool:
        """Every game."""
        return True

    def choose(self, view: View, legal: Sequence[Action], rng: random.Random) -> Action:
        """A uniformly random legal action."""
        return legal[rng.randrange(len(legal))]


Heuristic = Callable[[View, Sequence[Action], random.Random], Action]


class BasicBot:
    """Hand-written card-player heuristics, one per game it knows."""

    name = "basic"

    def __init__(self, heuristics: dict[str, Heuristic]):
        self.heuristics = heuristics

    def plays(self, variant: str) -> bool:
        """Only the games it has a heuristic for."""
        return variant in self.heuristics

    def choose(self, view: View, legal: Sequence[Action], rng: random.Random) -> Action:
        """The heuristic's choice, or a random legal action when it names none of them."""
        if len(legal) == 1:
            return legal[0]
        action = self.heuristics[view.variant](view, legal, rng)
        return action if action in legal else legal[rng.randrange(len(legal))]


BOTS: dict[str, Bot] = {
    "random": RandomBot(),
    "basic": BasicBot({"spades": spades.choose, "spades2": spades.choose, "buck_euchre": buck_euchre.choose}),
    "strong": SearchBot(),
}
"""Every bot by its name."""


def bot_of(name: str, variant: str) -> Bot:
    """The bot of this name that plays ``variant``; ValueError for an unknown bot or game."""
    bot = BOTS.get(name)
    if bot is None:
        raise ValueError(f"unknown bot strategy {name!r} (one of {', '.join(BOTS)})")
    if not bot.plays(variant):
        raise ValueError(f"the {name} bot does not play {variant}")
    return bot


def choose_action(strategy: str, state: TableState, seat: int, rng: random.Random) -> Action:
    """An action from ``engine.legal_actions(state, seat)`` chosen by ``strategy``; ValueError if none."""
    bot = bot_of(strategy, state.variant)
    legal = engine.legal_actions(state, seat)
    if not len(legal):
        raise ValueError(f"seat {seat} has no legal action")
    return bot.choose(engine.view(state, seat), legal, rng)


def bot_seat_to_act(state: TableState, bot_seats: Collection[int]) -> int | None:
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
