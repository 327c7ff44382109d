"""The strong bot's budget for one decision: how many deals it samples and how long it thinks.

A game's bots entry (``bots.registry``) may carry a budget of its own; the search
(``bots.search``) plays under it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Budget:
    """How much one decision may cost: at most ``samples`` deals for the candidates still in the
    running (``call_samples`` for bids and calls, fewer and weightier than card play), and at most
    ``seconds`` of thinking once the first round is done (None: no clock, fully deterministic).
    After every ``round`` deals the worse half of the candidates is dropped, and after ``least``
    deals the search may stop as soon as it is ``sure``: a game whose values hang on rare large
    outcomes needs many deals before a lead means anything."""

    samples: int = 32
    seconds: float | None = 0.2
    round: int = 8
    sure: float = 3.0   # stop once the best leads every other by this many standard errors
    least: int = 8      # of the paired difference over at least this many deals
    tries: int = 8      # deals drawn at most for each one kept (kept with the playout's likelihood)
    call_samples: int = 32
