"""Computer players for any seat: each decides from its seat's view and legal actions alone.

A :class:`Bot` never sees the game state, only ``engine.view(state, seat)`` and the seat's legal
actions, so it cannot use a hidden card. ``BOTS`` registers them by name: ``random`` picks
uniformly among the legal actions of any game; ``basic`` plays the card-player heuristic its game
brings and refuses a game without one; ``strong`` searches any game the engine can build states
from a view for (``bots.search``), with its game's playout policy and budget where it has them.

What a game brings to the bots is its entry in ``bots.registry`` (``register_game``), beside its
bot code: importing this package imports every ``bots/<game>_playout.py`` module, each of which
registers its game's entry, so a game's bots plug in by their files alone.

>>> import random, engine
>>> state = engine.new_game("buck_euchre", rng=random.Random(3), first_dealer=0)
>>> bot_seat_to_act(state, {0, 1}), bot_seat_to_act(state, {2})
(0, None)
>>> choose_action("basic", state, 0, random.Random(0)) == engine.DEAL
True
"""

from __future__ import annotations

import importlib
import pkgutil
import random
from collections.abc import Collection, Mapping, Sequence
from typing import Protocol

import engine
from engine import NOBODY, Action, Phase, TableState, View

from .registry import GAME_BOTS, GameBots, Heuristic, game_bots, register_game, unregister_game
from .search import SearchBot

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.endswith("_playout")):
    importlib.import_module(f"{__name__}.{_module}")   # each registers its game's entry


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


class BasicBot:
    """Hand-written card-player heuristics: the one each game registers (``GameBots.basic``)."""

    name = "basic"

    def __init__(self, heuristics: Mapping[str, Heuristic] | None = None):
        """``heuristics`` by game instead of the registered ones (None: the registered ones)."""
        self.heuristics = heuristics

    def heuristic(self, variant: str) -> Heuristic | None:
        """The heuristic of the game ``variant``, or None when it has none."""
        return game_bots(variant).basic if self.heuristics is None else self.heuristics.get(variant)

    def plays(self, variant: str) -> bool:
        """Only the games it has a heuristic for."""
        return self.heuristic(variant) is not None

    def choose(self, view: View, legal: Sequence[Action], rng: random.Random) -> Action:
        """The heuristic's choice, or a random legal action when it names none of them."""
        if len(legal) == 1:
            return legal[0]
        heuristic = self.heuristic(view.variant)
        if heuristic is None:
            raise ValueError(f"the basic bot does not play {view.variant}")
        action = heuristic(view, legal, rng)
        return action if action in legal else legal[rng.randrange(len(legal))]


__all__ = [
    "BOTS", "GAME_BOTS", "BasicBot", "Bot", "GameBots", "Heuristic", "RandomBot", "SearchBot", "bot_of",
    "bot_seat_to_act", "bot_turn", "choose_action", "game_bots", "register_game", "unregister_game",
]

BOTS: dict[str, Bot] = {
    "random": RandomBot(),
    "basic": BasicBot(),
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


def choose_action(strategy: str, state: TableState, seat: int, rng: random.Random,
                  legal: Sequence[Action] | None = None) -> Action:
    """An action from ``engine.legal_actions(state, seat)`` (``legal``, when the caller has them
    already) chosen by ``strategy``; ValueError if none."""
    bot = bot_of(strategy, state.variant)
    if legal is None:
        legal = engine.legal_actions(state, seat)
    if not len(legal):
        raise ValueError(f"seat {seat} has no legal action")
    return bot.choose(engine.view(state, seat), legal, rng)


def bot_turn(state: TableState, bot_seats: Collection[int]) -> tuple[int, Sequence[Action]] | None:
    """The bot seat that should act now (the seat in turn, or any bot in a simultaneous step) and
    its legal actions, or None."""
    if state.phase == Phase.GAME_OVER:
        return None
    if state.turn != NOBODY:
        if state.turn not in bot_seats:
            return None
        legal = engine.legal_actions(state, state.turn)
        return (state.turn, legal) if len(legal) else None
    optional = engine.game_of(state.variant).vocabulary.is_optional
    for seat in sorted(bot_seats):
        legal = engine.legal_actions(state, seat)
        if any(not optional(a) for a in legal):
            return seat, legal
    return None


def bot_seat_to_act(state: TableState, bot_seats: Collection[int]) -> int | None:
    """The bot seat that should act now (the seat in turn, or any bot in a simultaneous step), or None."""
    turn = bot_turn(state, bot_seats)
    return None if turn is None else turn[0]
