"""Hearts: its phases (the pass has one of its own)."""

from __future__ import annotations

from . import GameFacts

FACTS = GameFacts("hearts", phases=("deal", "pass", "play", "game_over"))
