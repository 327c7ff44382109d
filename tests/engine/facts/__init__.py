"""What the cross-game suites need to know of each game beyond its ``Game``, one module per game.

The suites that run over every game under test (the property tests, the vocabulary's round
trips, the search bot's samples) check the engine's common invariants for any game. A game whose
rules keep cards in places of their own, seat fewer players in some hands, or score by rules of
its own says so in a module of this package that defines ``FACTS`` (a :class:`GameFacts`, or a
tuple of them); every module here is imported, so a game's facts plug in by their file alone. A
game without facts gets the common checks only.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from engine import TableState


@dataclass(frozen=True)
class GameFacts:
    """One game's facts for the cross-game suites (every part optional).

    - ``max_actions_per_hand``: the most actions a hand may take (default: a deal, then at most
      three actions a card);
    - ``extra_places(state, places)``: where the game keeps dealt cards besides the hands and the
      cards played (a kitty, a discard, a stock), given the places found so far;
    - ``playing_seats(state)``: the seats that play this hand's tricks, as a bit mask, in a game
      where some may sit a hand out;
    - ``score_check(state, start)``: the game's own score rules, checked after the common ones;
    - ``options``: the hypothesis strategy of the options its whole random games are played with
      (default: its defaults), and ``examples`` how many (default 40);
    - ``pass_action``: an action to prefer three times in four when legal (a pass in rounds of
      making trump, so that random games reach the later rounds and thrown-in hands);
    - ``phases``: its phase names in order, pinned;
    - ``every_word``: settings under which it offers every word it declares;
    - ``left_bower``: whether its voids count the left bower as trump, with a turn-up every seat saw.
    """

    name: str
    max_actions_per_hand: int | None = None
    extra_places: Callable[[TableState, list[int]], list[int]] | None = None
    playing_seats: Callable[[TableState], int] | None = None
    score_check: Callable[[TableState, list[int]], None] | None = None
    options: st.SearchStrategy[Any] | None = None
    examples: int = 40
    pass_action: int | None = None
    phases: tuple[str, ...] = ()
    every_word: Mapping[str, Any] = field(default_factory=dict)
    left_bower: bool = False


def _load() -> dict[str, GameFacts]:
    facts: dict[str, GameFacts] = {}
    for module in pkgutil.iter_modules(__path__):
        declared = importlib.import_module(f"{__name__}.{module.name}").FACTS
        for entry in declared if isinstance(declared, tuple) else (declared,):
            if entry.name in facts:
                raise ValueError(f"two modules give facts of {entry.name}")
            facts[entry.name] = entry
    return facts


FACTS: dict[str, GameFacts] = _load()
"""Every game's facts by its name."""


def facts_of(variant: str) -> GameFacts:
    """The facts of the game ``variant`` (empty ones for a game that declares none)."""
    return FACTS.get(variant) or GameFacts(variant)
