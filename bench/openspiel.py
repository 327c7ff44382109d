"""Four-player Spades against OpenSpiel's: this engine's random play and OpenSpiel's C++ ``spades``
driven at random through its Python API (PyPI ``open_spiel``, in requirements-bench.txt), measured
alternately in one run.

Each round plays ``SECONDS`` of each side in turn (the order reverses every other round), and a
figure is the median of ``ROUNDS`` rounds' rates, so a machine whose load drifts slows every side
alike; a ratio is the median of the rounds' ratios.

- This engine (``spades4_hands_per_s``): ``bench.engine_hands.play_hands``, the work ``make
  bench`` has always counted as a hand of ``spades4``: the dealer's DEAL (a shuffle, the fairness
  commitment, the deal), the bidding, 52 plays and the scoring with its hand record, every action
  drawn uniformly from ``engine.legal_actions`` and applied through ``engine.apply`` (which checks
  it). A game goes on to its next hand, and a new game starts after a game's end.
- OpenSpiel (``openspiel_spades_hands_per_s``): ``pyspiel.load_game("spades")`` at its default
  parameters, under which one episode is one hand (its state starts at the deal and is terminal
  once the 13th trick is taken; its parameters only set the win bonus and the mercy rule against
  a score that starts at 0). ``game.new_initial_state()``, then until ``state.is_terminal()``: at
  a chance node (52 of them, a card dealt each) one of ``state.chance_outcomes()``, else one of
  ``state.legal_actions()``, applied with ``state.apply_action``.

Both sides draw from Python's Mersenne Twister (``random.Random``), one ``random()`` a choice,
``int(random() * n)`` indexing the choices; OpenSpiel's deal outcomes are equally likely (checked
first), so its chance nodes are drawn the same way: the same random-number cost a choice on both
sides. This engine draws its deal inside DEAL (one ``getrandbits`` for the deck, one for the salt).
``openspiel_spades_choices_hands_per_s`` is OpenSpiel again with its chance nodes drawn by
``random.choices`` over the outcomes and their probabilities, a general sampler that costs its
side a few microseconds a card, and ``spades4_vs_openspiel_choices_ratio`` the ratio against it.

A turn is a move by a player: OpenSpiel's 4 bids and 52 plays (its chance nodes are not turns);
this engine's bids, looks (a seat that looks at its hand before bidding) and 52 plays (DEAL, its
chance, is not one), about 56.7 a hand. Printed: every side's rates per hand and per turn, and
``spades4_vs_openspiel_ratio`` (per hand) and ``spades4_vs_openspiel_turn_ratio`` against each
driver.

    .venv/bin/python -m bench.openspiel     # about 35 s (BENCH_OPENSPIEL_ROUNDS, _SECONDS)
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from bench.engine_hands import play_hands

ROUNDS = int(os.environ.get("BENCH_OPENSPIEL_ROUNDS", "7"))
SECONDS = float(os.environ.get("BENCH_OPENSPIEL_SECONDS", "1.5"))
BATCH = 100


def engine_round(seconds: float, seed: int) -> tuple[int, int, float]:
    """This engine's random hands for ``seconds``: (hands, turns, elapsed seconds)."""
    hands = turns = 0
    t0 = time.perf_counter()
    while True:
        taken = play_hands("spades", BATCH, seed=seed + hands)
        hands += BATCH
        turns += taken - BATCH          # one DEAL a hand
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            return hands, turns, elapsed


def openspiel_hands(game: Any, hands: int, rng: random.Random, chance: str = "uniform") -> int:
    """Play ``hands`` random episodes (hands) of OpenSpiel's ``game``; return the players' turns."""
    random_, choices = rng.random, rng.choices
    turns = 0
    for _ in range(hands):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                if chance == "uniform":
                    action = outcomes[int(random_() * len(outcomes))][0]
                else:
                    action = choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
            else:
                legal = state.legal_actions()
                action = legal[int(random_() * len(legal))]
                turns += 1
            state.apply_action(action)
    return turns


def openspiel_round(game: Any, seconds: float, seed: int, chance: str = "uniform") -> tuple[int, int, float]:
    """OpenSpiel's random hands for ``seconds``: (hands, turns, elapsed seconds)."""
    rng = random.Random(seed)
    hands = turns = 0
    t0 = time.perf_counter()
    while True:
        turns += openspiel_hands(game, BATCH, rng, chance)
        hands += BATCH
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            return hands, turns, elapsed


def check_uniform(game: Any) -> None:
    """Raise unless every chance node of one random OpenSpiel hand has equally likely outcomes
    (what the uniform draw assumes)."""
    rng = random.Random(0)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            probs = {p for _, p in state.chance_outcomes()}
            if max(probs) - min(probs) > 1e-12:
                raise RuntimeError("OpenSpiel's spades deals with unequal odds: its uniform draw would be unfair")
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))


def measure(rounds: int = ROUNDS, seconds: float = SECONDS) -> dict[str, float]:
    """Every side's medians over ``rounds`` alternating rounds, per hand and per turn, and the
    ratios of this engine's rates to each OpenSpiel driver's (each the median of the rounds'
    ratios: each round's sides ran back to back)."""
    pyspiel = importlib.import_module("pyspiel")
    game = pyspiel.load_game("spades")
    check_uniform(game)
    sides: dict[str, Callable[[float, int], tuple[int, int, float]]] = {
        "engine": engine_round,
        "uniform": lambda s, seed: openspiel_round(game, s, seed),
        "choices": lambda s, seed: openspiel_round(game, s, seed, "choices"),
    }
    for run in sides.values():         # warm up
        run(0.2, 10**6)
    rates: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
    order = list(sides)
    for r in range(rounds):
        for name in order if r % 2 == 0 else order[::-1]:
            hands, turns, elapsed = sides[name](seconds, r * 10**6)
            rates[name].append((hands / elapsed, turns / elapsed))
    ours, uniform, choices = rates["engine"], rates["uniform"], rates["choices"]
    return {
        "spades4_hands_per_s": _median(ours, 0),
        "spades4_turns_per_s": _median(ours, 1),
        "openspiel_spades_hands_per_s": _median(uniform, 0),
        "openspiel_spades_turns_per_s": _median(uniform, 1),
        "openspiel_spades_choices_hands_per_s": _median(choices, 0),
        "openspiel_spades_choices_turns_per_s": _median(choices, 1),
        "spades4_vs_openspiel_ratio": _median_ratio(ours, uniform, 0),
        "spades4_vs_openspiel_turn_ratio": _median_ratio(ours, uniform, 1),
        "spades4_vs_openspiel_choices_ratio": _median_ratio(ours, choices, 0),
        "spades4_vs_openspiel_choices_turn_ratio": _median_ratio(ours, choices, 1),
    }


def _median(rates: list[tuple[float, float]], i: int) -> float:
    return statistics.median(rate[i] for rate in rates)


def _median_ratio(ours: list[tuple[float, float]], theirs: list[tuple[float, float]], i: int) -> float:
    """The median of the rounds' ratios (each round's sides ran back to back)."""
    return statistics.median(a[i] / b[i] for a, b in zip(ours, theirs, strict=True))


def installed() -> bool:
    """Whether OpenSpiel's Python API (``pyspiel``) can be imported."""
    return importlib.util.find_spec("pyspiel") is not None


def main() -> None:
    """Print both sides' rates and the ratios (nothing but a note when open_spiel is missing)."""
    if not installed():
        print("# bench.openspiel: open_spiel is not installed (pip install -r requirements-bench.txt)", flush=True)
        return
    for name, value in measure().items():
        print(f"{name} {value:.2f}" if "ratio" in name else f"{name} {value:.0f}", flush=True)


if __name__ == "__main__":
    main()
