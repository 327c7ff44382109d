"""Complete hands per second of uniformly random legal play, single core, per game (and per table
of :data:`SETTINGS_TABLES`: a game at settings card rooms sell, measured in the same run)."""

from __future__ import annotations

import random
import time

import engine
from engine import NOBODY, Phase


def play_hands(variant: str, hands: int, seed: int = 1, settings: dict[str, str] | None = None) -> int:
    """Play ``hands`` complete hands (deal to score) of random legal play; return actions taken.

    Each action is drawn uniformly from the legal ones (``int(random() * n)``: unbiased to within
    2**-53 for the few hundred choices a seat ever has).
    """
    rng = random.Random(seed)
    legal_actions, apply, random_ = engine.legal_actions, engine.apply, rng.random
    options = engine.game_of(variant).options_type.from_settings(variant, settings or {})
    state = engine.new_game(variant, options, rng=rng)
    done = taken = 0
    while done < hands:
        if state.phase == Phase.GAME_OVER:
            state = engine.new_game(variant, options, rng=rng)
        start = state.hand_no
        while state.hand_no == start or state.phase not in (Phase.DEAL, Phase.GAME_OVER):
            seat = state.turn
            if seat == NOBODY:
                seat = rng.choice([s for s in range(state.n) if legal_actions(state, s)])
            legal = legal_actions(state, seat)
            apply(state, seat, legal[int(random_() * len(legal))], rng)
            taken += 1
        done += 1
    return taken


def hands_per_second(variant: str, seconds: float = 2.0, settings: dict[str, str] | None = None) -> float:
    """Best-of-three rate of complete random hands per second for ``variant`` (at ``settings``)."""
    batch = 200
    best = 0.0
    for _ in range(3):
        t0 = time.perf_counter()
        n = 0
        while time.perf_counter() - t0 < seconds / 3:
            play_hands(variant, batch, seed=n, settings=settings)
            n += batch
        best = max(best, n / (time.perf_counter() - t0))
    return best


FIGURE_NAMES = {"spades": "spades4_hands_per_s"}
"""A game's figure is ``<name>_hands_per_s`` but where named here (kept from earlier releases)."""

SETTINGS_TABLES = {
    "spades4_mixed_hands_per_s": ("spades", {"trumps": "jokers_deuces", "bidding": "suicide", "nil_exchange": "2",
                                             "losing_score": "200"}),
    "hearts3_hands_per_s": ("hearts", {"players": "3", "jack_of_diamonds": "true"}),
}
"""Figures of games at table settings, by figure name: (game, settings)."""


def main() -> None:
    """Print the hands-per-second figure of every registered game, then of the settings tables."""
    for variant in engine.GAMES:
        name = FIGURE_NAMES.get(variant, f"{variant}_hands_per_s")
        print(f"{name} {hands_per_second(variant):.0f}", flush=True)
    for name, (variant, settings) in SETTINGS_TABLES.items():
        if variant in engine.GAMES:
            print(f"{name} {hands_per_second(variant, settings=settings):.0f}", flush=True)


if __name__ == "__main__":
    main()
