"""Complete hands per second of uniformly random legal play, single core, per game (and per table
of :data:`SETTINGS_TABLES`: a game at settings card rooms sell, measured in the same run).

Figures: ``<game>_hands_per_s`` for every registered game (but :data:`FIGURE_NAMES`: four-player
Spades is ``spades4_hands_per_s``), then each settings table's name (``spades4_mixed_hands_per_s``,
``hearts3_hands_per_s``)."""

from __future__ import annotations

import random
import time

import engine
from engine import NOBODY, Phase


def play_hands(variant: str, hands: int, seed: int = 1, settings: dict[str, str] | None = None) -> int:
    """Play ``hands`` complete hands (deal to score) of random legal play; return actions taken.

    Each action is drawn uniformly from the legal ones (``int(random() * n)``: unbiased to within
    2**-53 for the few hundred choices a seat ever has). A hand is every action from its deal
    until the next deal is due or the game is over (a new game follows it).
    """
    rng = random.Random(seed)
    legal_actions, apply, random_ = engine.legal_actions, engine.apply, rng.random
    options = engine.game_of(variant).options_type.from_settings(variant, settings or {})
    state = engine.new_game(variant, options, rng=rng)
    game_over = Phase.GAME_OVER
    between = (Phase.DEAL, game_over)     # the enum's members read once, not at every action
    taken = 0
    for _ in range(hands):
        if state.phase == game_over:
            state = engine.new_game(variant, options, rng=rng)
        while True:                       # the deal, then every action until the hand is over
            seat = state.turn
            if seat == NOBODY:
                seat = rng.choice([s for s in range(state.n) if legal_actions(state, s)])
            legal = legal_actions(state, seat)
            apply(state, seat, legal[int(random_() * len(legal))], rng)
            taken += 1
            if state.phase in between:
                break
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
    """Print the hands-per-second figure of every registered game, then of the settings tables;
    where open_spiel is installed, four-player Spades's is left to ``bench.openspiel``, which
    measures it alternately with OpenSpiel's (``make bench`` runs it next)."""
    from bench import openspiel  # a lazy import: it imports this module

    for variant in engine.GAMES:
        name = FIGURE_NAMES.get(variant, f"{variant}_hands_per_s")
        if name == "spades4_hands_per_s" and openspiel.installed():
            print("# spades4_hands_per_s: bench.openspiel measures it, alternately with OpenSpiel's", flush=True)
            continue
        print(f"{name} {hands_per_second(variant):.0f}", flush=True)
    for name, (variant, settings) in SETTINGS_TABLES.items():
        if variant in engine.GAMES:
            print(f"{name} {hands_per_second(variant, settings=settings):.0f}", flush=True)


if __name__ == "__main__":
    main()
