"""`make bench-bots`: how often the strong (search) bot beats the basic bot, and how long it thinks.

Win rates are over duplicate deals: a deal is a seed fixing the deck of every hand of a game, and
each deal is played with the bots' seats swapped (two-player Spades, and the partnerships of
four-player Spades) or with the strong bot in each of the four seats in turn (Buck Euchre, one
strong against three basic), so both sides hold the same cards and a rate measures play rather
than luck. A deal's score is the strong side's share of its games (a drawn game counts half);
the 95% confidence interval is the normal one over the deals' scores (clipped to 0..1). Games run in
``BENCH_BOTS_PROCESSES`` processes (2 by default).

Think time is measured apart, in this process alone: the wall time of every strong decision with
more than one legal action, over a few whole games of each variant (``bots_think_ms_p50`` /
``_p99``). The rest of the bench would otherwise share the cores and inflate it.

Figures, one ``name value`` per line: for each variant ``bots_<variant>_strong_win_rate``
(Buck Euchre: ``_win_share``, where 0.25 is equal play) with ``_ci95_low`` / ``_ci95_high`` and
``_games``; ``bots_think_ms_p50``, ``bots_think_ms_p99``, ``bots_think_moves``; ``bots_wall_s``,
the bench's own wall time. Game counts: ``BENCH_BOTS_SPADES4`` (400), ``BENCH_BOTS_SPADES2``
(800: its games are quick, and 200 would leave an interval twice as wide),
``BENCH_BOTS_BUCK_EUCHRE`` (960, for an interval of about ±0.03); ``BENCH_BOTS_THINK_GAMES`` (2
per variant).
"""

from __future__ import annotations

import math
import os
import random
import statistics
import time
from collections.abc import Iterator
from multiprocessing import Pool

import bots
import engine
from engine import Phase

MAX_HANDS = 120             # a bench game is cut off (and counted drawn) after this many hands
DECKS = 60                  # prearranged decks per deal; later hands are shuffled from the deal's seed
SEED = 2024                 # deal i uses seed SEED + i
VARIANTS = ("spades", "spades2", "buck_euchre")
NAMES = {"spades": "spades4", "spades2": "spades2", "buck_euchre": "buck_euchre"}


def lineups(variant: str) -> list[tuple[list[str], int]]:
    """The seatings of one deal: (strategy per seat, the strong side)."""
    if variant == "spades":
        return [(["strong", "basic"] * 2, 0), (["basic", "strong"] * 2, 1)]
    if variant == "spades2":
        return [(["strong", "basic"], 0), (["basic", "strong"], 1)]
    return [(["strong" if s == k else "basic" for s in range(4)], k) for k in range(4)]


def decks(variant: str, seed: int) -> list[list[int]]:
    """The deck of each hand of a deal (top first)."""
    rng = random.Random(seed)
    cards = list(engine.game_of(variant).cards)
    out = []
    for _ in range(DECKS):
        rng.shuffle(cards)
        out.append(cards[:])
    return out


def play_game(variant: str, strategies: list[str], seed: int,
              think: list[float] | None = None) -> engine.TableState:
    """One whole game of the deal ``seed`` (at most MAX_HANDS hands); ``think`` collects the wall
    time of each strong decision with a choice."""
    n = engine.game_of(variant).seats
    state = engine.new_game(variant, None, first_dealer=seed % n, decks=decks(variant, seed))
    chance = random.Random(seed)          # shuffles past the prearranged decks, salts: same for every seating
    rng = random.Random(seed * 7 + 1)     # the bots' own randomness
    seats = set(range(n))
    while state.phase != Phase.GAME_OVER and not (state.phase == Phase.DEAL and state.hand_no >= MAX_HANDS):
        seat = bots.bot_seat_to_act(state, seats)
        assert seat is not None
        legal = engine.legal_actions(state, seat)
        bot = bots.BOTS[strategies[seat]]
        view = engine.view(state, seat)
        start = time.perf_counter()
        action = bot.choose(view, legal, rng)
        if think is not None and strategies[seat] == "strong" and len(legal) > 1:
            think.append(time.perf_counter() - start)
        engine.apply(state, seat, action, chance)
    return state


def _score(job: tuple[str, int, int]) -> tuple[int, float]:
    """(deal, the strong side's score in one seating of it: 1 won, 0.5 drawn, 0 lost)."""
    variant, deal, seating = job
    strategies, side = lineups(variant)[seating]
    state = play_game(variant, strategies, SEED + deal)
    if not state.winner:
        return deal, 0.5
    return deal, 1.0 if state.winner == [side] else 0.0


def win_rate(variant: str, games: int, processes: int) -> tuple[float, float, float, int]:
    """The strong side's share of ``games`` games (whole deals), its 95% interval, and the games played."""
    seatings = len(lineups(variant))
    deals = max(2, math.ceil(games / seatings))
    jobs = [(variant, d, k) for d in range(deals) for k in range(seatings)]
    scores: dict[int, list[float]] = {}
    with Pool(processes) as pool:
        for deal, score in pool.imap_unordered(_score, jobs):
            scores.setdefault(deal, []).append(score)
    per_deal = [sum(s) / len(s) for s in scores.values()]
    mean = statistics.fmean(per_deal)
    half = 1.96 * statistics.stdev(per_deal) / math.sqrt(len(per_deal))
    return mean, max(0.0, mean - half), min(1.0, mean + half), len(jobs)


def think_times(games: int) -> list[float]:
    """The strong bot's think time per decision over ``games`` whole games of each variant, here."""
    times: list[float] = []
    for variant in VARIANTS:
        for g in range(games):
            strategies, _ = lineups(variant)[g % len(lineups(variant))]
            play_game(variant, strategies, SEED + 10_000 + g, times)
    return times


def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def figures() -> Iterator[tuple[str, float]]:
    """Every figure of the bench, as it is measured."""
    start = time.perf_counter()
    processes = int(os.environ.get("BENCH_BOTS_PROCESSES", "2"))
    counts = {"spades": int(os.environ.get("BENCH_BOTS_SPADES4", "400")),
              "spades2": int(os.environ.get("BENCH_BOTS_SPADES2", "800")),
              "buck_euchre": int(os.environ.get("BENCH_BOTS_BUCK_EUCHRE", "960"))}
    times = think_times(int(os.environ.get("BENCH_BOTS_THINK_GAMES", "2")))
    yield "bots_think_ms_p50", 1000 * percentile(times, 50)
    yield "bots_think_ms_p99", 1000 * percentile(times, 99)
    yield "bots_think_moves", len(times)
    for variant in VARIANTS:
        mean, low, high, played = win_rate(variant, counts[variant], processes)
        name = f"bots_{NAMES[variant]}_strong_" + ("win_share" if variant == "buck_euchre" else "win_rate")
        yield name, mean
        yield name + "_ci95_low", low
        yield name + "_ci95_high", high
        yield f"bots_{NAMES[variant]}_games", played
    yield "bots_wall_s", time.perf_counter() - start


def main() -> None:
    """Print every figure, one ``name value`` per line."""
    for name, value in figures():
        print(f"{name} {value:.3f}" if isinstance(value, float) else f"{name} {value}", flush=True)


if __name__ == "__main__":
    main()
