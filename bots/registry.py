"""The bots' registry of games: what each game brings to the computer players, by its name.

A game's entry lives beside its bot code (``bots.spades_playout`` registers both Spades
variants, ``bots.buck_euchre_playout`` Buck Euchre; a game module of a server's own may call
``bots.register_game`` too) and holds:

- ``basic``: the basic bot's heuristic, ``(view, legal, rng) -> action``; without one the basic
  bot does not play the game (a server seats the random bot instead);
- ``playout``: the strong bot's fast policy and hand value (``bots.playout.Playout``); without
  one the search plays hands out at random (``RandomPlayout``);
- ``budget``: the strong bot's budget a decision where the default ``Budget()`` does not suit.

A game with no entry at all is a game of the random bot alone, unless it has the engine's
determinize hook, which is all the strong bot needs (random playouts, the default budget).

>>> from bots.registry import GAME_BOTS, game_bots
>>> game_bots("buck_euchre").budget.least, game_bots("spades").budget is None
(64, True)
>>> game_bots("whist") == GameBots("whist"), "whist" in GAME_BOTS
(True, False)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine import Action, View

from .budget import Budget
from .playout import Playout

Heuristic = Callable[[View, Sequence[Action], random.Random], Action]
"""A basic bot's choice for the viewer of a view, from its legal actions (never empty)."""

@dataclass(frozen=True)
class GameBots:
    """What one game brings to the bots (every part optional)."""

    name: str
    basic: Heuristic | None = None
    playout: Playout | None = None
    budget: Budget | None = None


GAME_BOTS: dict[str, GameBots] = {}
"""Every game's registered entry by the game's name (``state.variant``), in registration order."""


def register_game(name: str, *, basic: Heuristic | None = None, playout: Playout | None = None,
                  budget: Budget | None = None) -> GameBots:
    """Register the bots' entry of the game ``name`` and return it; registering the same entry
    again changes nothing, and ValueError if the game already has a different one."""
    entry = GameBots(name, basic, playout, budget)
    registered = GAME_BOTS.setdefault(name, entry)
    if registered != entry:
        raise ValueError(f"the game {name!r} already has a different bots entry")
    return registered


def unregister_game(name: str) -> None:
    """Remove a game's entry (tests that register entries of their own use it)."""
    GAME_BOTS.pop(name, None)


def game_bots(name: str) -> GameBots:
    """The entry of the game ``name``; an empty one (random playouts, default budget, no basic
    heuristic) for a game without one."""
    entry = GAME_BOTS.get(name)
    return entry if entry is not None else GameBots(name)
