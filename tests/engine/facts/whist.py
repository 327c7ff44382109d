"""Whist, the test game of the shared machinery alone (tests/games/whist.py): the core's phases."""

from __future__ import annotations

from . import GameFacts

FACTS = GameFacts("whist", phases=("deal", "play", "game_over"))
