"""`make bench-bots`: how often the strong (search) bot beats the basic bot, and how long it thinks.

It plays every game with a strong-bot entry (``bots.register_game`` with a playout policy, and
a basic heuristic to play against), in the engine's order of the games. Win rates are over
duplicate deals: a deal is a seed fixing the deck of every hand of a game, and each deal is
played with the strong bot on each side in turn (its partnership, or its seat where every
player is a side of one: the seats swapped in two-player Spades and four-player Spades' pairs,
one strong against three basic in each seat of Buck Euchre), so every side holds the same cards
and a rate measures play rather than luck. A deal's score is the strong side's share of its
games (a drawn game counts half); the 95% confidence interval is the normal one over the deals'
scores (clipped to 0..1). Games run in ``BENCH_BOTS_PROCESSES`` processes (2 by default).

Think time is measured apart, in this process alone: the wall time of every strong decision with
more than one legal action, over a few whole games of each game (``bots_think_ms_p50`` /
``_p99`` over all of them, ``bots_<label>_think_ms_p50`` / ``_p99`` per game). The rest of the
bench would otherwise share the cores and inflate it.

Figures, one ``name value`` per line: for each game ``bots_<label>_strong_win_rate`` (more than
two sides, as in Buck Euchre: ``_win_share``, where one over the sides is equal play) with
``_ci95_low`` / ``_ci95_high`` and ``_games``, ``<label>`` being the entry's (``spades4``,
``spades2``, ``buck_euchre``, ``hearts``); ``bots_think_ms_p50``, ``bots_think_ms_p99``,
``bots_think_moves`` and the same per game; ``bots_wall_s``, the bench's own wall time. Game
counts: ``BENCH_BOTS_<LABEL>``, by default the entry's ``bench_games`` (``BENCH_BOTS_SPADES4``
400, ``BENCH_BOTS_SPADES2`` 800, ``BENCH_BOTS_BUCK_EUCHRE`` 960, ``BENCH_BOTS_HEARTS`` 400); 0
leaves a game's win rate out; ``BENCH_BOTS_THINK_GAMES`` (2 per game).
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


def variants() -> list[str]:
    """The games with a strong-bot entry (a playout policy), that the strong and basic bots play."""
    return [variant for variant in engine.GAMES if bots.game_bots(variant).playout is not None
            and bots.BOTS["strong"].plays(variant) and bots.BOTS["basic"].plays(variant)]


def lineups(variant: str) -> list[tuple[list[str], int]]:
    """The seatings of one deal: (strategy per seat, the strong side), the strong bot holding
    every seat of one side and each side in turn."""
    state = engine.new_game(variant, None, first_dealer=0)
    return [([("strong" if seat in state.seats_of(side) else "basic") for seat in range(state.n)], side)
            for side in range(state.sides)]


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


def think_times(games: int) -> dict[str, list[float]]:
    """The strong bot's think time per decision over ``games`` whole games of each game, here,
    by game."""
    times: dict[str, list[float]] = {}
    for variant in variants():
        times[variant] = []
        for g in range(games):
            strategies, _ = lineups(variant)[g % len(lineups(variant))]
            play_game(variant, strategies, SEED + 10_000 + g, times[variant])
    return times


def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def figures() -> Iterator[tuple[str, float]]:
    """Every figure of the bench, as it is measured."""
    start = time.perf_counter()
    processes = int(os.environ.get("BENCH_BOTS_PROCESSES", "2"))
    entries = [bots.game_bots(variant) for variant in variants()]
    counts = {e.name: int(os.environ.get(f"BENCH_BOTS_{e.label.upper()}", str(e.bench_games))) for e in entries}
    by_game = think_times(int(os.environ.get("BENCH_BOTS_THINK_GAMES", "2")))
    every = [t for times in by_game.values() for t in times]
    for prefix, times in [("bots", every)] + [(f"bots_{e.label}", by_game[e.name]) for e in entries]:
        if times:
            yield f"{prefix}_think_ms_p50", 1000 * percentile(times, 50)
            yield f"{prefix}_think_ms_p99", 1000 * percentile(times, 99)
        yield f"{prefix}_think_moves", len(times)
    for entry in entries:
        if counts[entry.name] <= 0:
            continue
        mean, low, high, played = win_rate(entry.name, counts[entry.name], processes)
        name = f"bots_{entry.label}_strong_" + ("win_rate" if len(lineups(entry.name)) == 2 else "win_share")
        yield name, mean
        yield name + "_ci95_low", low
        yield name + "_ci95_high", high
        yield f"bots_{entry.label}_games", played
    yield "bots_wall_s", time.perf_counter() - start


def main() -> None:
    """Print every figure, one ``name value`` per line."""
    for name, value in figures():
        print(f"{name} {value:.3f}" if isinstance(value, float) else f"{name} {value}", flush=True)


if __name__ == "__main__":
    main()
