"""`make bench-bots`: how often the strong (search) bot beats the basic bot, and how long it thinks.

It plays tables: every game with a strong-bot entry (``bots.register_game`` with a playout
policy, and a basic heuristic to play against) at its default settings, in the engine's order of
the games, then the tables of :data:`SETTINGS_TABLES` (a game at settings a card room sells: a
mixed Spades table, three-player Hearts). Win rates are over duplicate deals: a deal is a seed
fixing the deck of every hand of a game, and each deal is played with the strong bot on each side
in turn (its partnership, or its seat where every player is a side of one: the seats swapped in
two-player Spades and four-player Spades' pairs, one strong against the basic bots in each seat
of Buck Euchre, Hearts or Cutthroat Spades), so every side holds the same cards and a rate
measures play rather than luck. A deal's score is the strong side's share of its games (a drawn
game counts half); the 95% confidence interval is the normal one over the deals' scores (clipped
to 0..1). Games run in ``BENCH_BOTS_PROCESSES`` processes (2 by default).

Think time is measured apart, in this process alone: the wall time of every strong decision with
more than one legal action, over a few whole games of each table (``bots_think_ms_p50`` /
``_p99`` over all of them, ``bots_<label>_think_ms_p50`` / ``_p99`` per table). The rest of the
bench would otherwise share the cores and inflate it.

Figures, one ``name value`` per line: for each table ``bots_<label>_strong_win_rate`` (more than
two sides, as in Buck Euchre: ``_win_share``, where one over the sides is equal play) with
``_ci95_low`` / ``_ci95_high`` after it, and ``bots_<label>_games``, ``<label>`` being the
table's (``spades4``, ``spades2``, ``buck_euchre``, ``hearts``, ``spades4_mixed``, ``hearts3``
...); at a table whose hands bid Nil, for each bot (``strong``, ``basic``)
``bots_<label>_<bot>_nil_bids`` (Nil and Double Nil bids), ``_nil_bid_rate`` (their share of its
bids) and ``_nil_made_rate`` (the share made); ``bots_think_ms_p50``, ``bots_think_ms_p99``,
``bots_think_moves`` and the same per table; ``bots_wall_s``, the bench's own wall time. Game
counts: ``BENCH_BOTS_<LABEL>``, by default the table's (400, but ``BENCH_BOTS_SPADES2`` 800,
``BENCH_BOTS_BUCK_EUCHRE`` 960, ``BENCH_BOTS_HEARTS3`` 300); 0 leaves a table's win rate out;
``BENCH_BOTS_THINK_GAMES`` (2 per table).
"""

from __future__ import annotations

import math
import os
import random
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing import Pool
from typing import Any

import bots
import engine
from engine import Phase
from engine.core.cards import card_list

MAX_HANDS = 120             # a bench game is cut off (and counted drawn) after this many hands
DECKS = 60                  # prearranged decks per deal; later hands are shuffled from the deal's seed
SEED = 2024                 # deal i uses seed SEED + i
BOT_NAMES = ("strong", "basic")


@dataclass(frozen=True)
class BenchTable:
    """A table the bench plays: a game at some settings (``settings``, as CreateGame takes them),
    its label in the figures and variables, and how many games it plays by default."""

    label: str
    variant: str
    settings: tuple[tuple[str, str], ...] = ()
    games: int = 400

    @property
    def options(self) -> Any:
        """The game's options at these settings."""
        return engine.game_of(self.variant).options_type.from_settings(self.variant, dict(self.settings))


SETTINGS_TABLES = (
    BenchTable("spades4_mixed", "spades", (("trumps", "jokers_deuces"), ("bidding", "suicide"),
                                           ("nil_exchange", "2"), ("losing_score", "200"))),
    BenchTable("hearts3", "hearts", (("players", "3"),), 300),
)
"""Tables at the settings card rooms sell, played besides every game's default table."""


def variants() -> list[str]:
    """The games with a strong-bot entry (a playout policy), that the strong and basic bots play."""
    return [variant for variant in engine.GAMES if bots.game_bots(variant).playout is not None
            and bots.BOTS["strong"].plays(variant) and bots.BOTS["basic"].plays(variant)]


GAME_TABLES = {"spades": BenchTable("spades4", "spades"), "spades2": BenchTable("spades2", "spades2", games=800),
               "buck_euchre": BenchTable("buck_euchre", "buck_euchre", games=960)}
"""The default table of a game whose label or game count is not its name and 400 (``spades4``:
four-player Spades, as its figures have always been named)."""


def tables() -> list[BenchTable]:
    """Every table the bench plays: each game's default table, then the settings tables of those games."""
    playable = variants()
    defaults = [GAME_TABLES.get(variant) or BenchTable(variant, variant) for variant in playable]
    return defaults + [table for table in SETTINGS_TABLES if table.variant in playable]


def lineups(table: BenchTable) -> list[tuple[list[str], int]]:
    """The seatings of one deal: (strategy per seat, the strong side), the strong bot holding
    every seat of one side and each side in turn."""
    state = engine.new_game(table.variant, table.options, first_dealer=0)
    return [([("strong" if seat in state.seats_of(side) else "basic") for seat in range(state.n)], side)
            for side in range(state.sides)]


def decks(table: BenchTable, seed: int) -> list[list[int]]:
    """The deck of each hand of a deal (top first)."""
    rng = random.Random(seed)
    cards = card_list(engine.game_of(table.variant).deck_for(table.options))
    out = []
    for _ in range(DECKS):
        rng.shuffle(cards)
        out.append(cards[:])
    return out


def play_game(table: BenchTable, strategies: list[str], seed: int,
              think: list[float] | None = None) -> engine.TableState:
    """One whole game of the deal ``seed`` (at most MAX_HANDS hands); ``think`` collects the wall
    time of each strong decision with a choice."""
    options = table.options
    n = engine.game_of(table.variant).seats_for(options)
    state = engine.new_game(table.variant, options, first_dealer=seed % n, decks=decks(table, seed))
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


Nils = dict[str, list[int]]
"""Per bot: [bids, Nil and Double Nil bids, Nils made]."""


def nils_of(state: engine.TableState, strategies: list[str]) -> Nils:
    """Each bot's bids, Nil bids and Nils made over a game's hands (none in a game without Nil)."""
    counts: Nils = {name: [0, 0, 0] for name in BOT_NAMES}
    for record in state.records:
        bids, sides = getattr(record, "bids", None), getattr(record, "sides", None)
        if bids is None or sides is None:
            continue
        for seat in range(len(bids)):
            counts[strategies[seat]][0] += 1
        for side in sides:
            for nil in getattr(side, "nils", ()):
                if nil.result == "none":   # a member who bid a number
                    continue
                bot = counts[strategies[nil.seat]]
                bot[1] += 1
                bot[2] += nil.result == "made"
    return counts


def _score(job: tuple[BenchTable, int, int]) -> tuple[int, float, Nils]:
    """(deal, the strong side's score in one seating of it: 1 won, 0.5 drawn, 0 lost, the bots' Nils)."""
    table, deal, seating = job
    strategies, side = lineups(table)[seating]
    state = play_game(table, strategies, SEED + deal)
    nils = nils_of(state, strategies)
    if not state.winner:
        return deal, 0.5, nils
    return deal, 1.0 if state.winner == [side] else 0.0, nils


def win_rate(table: BenchTable, games: int, processes: int) -> tuple[float, float, float, int, Nils]:
    """The strong side's share of ``games`` games (whole deals), its 95% interval, the games
    played, and the bots' Nils over them."""
    seatings = len(lineups(table))
    deals = max(2, math.ceil(games / seatings))
    jobs = [(table, d, k) for d in range(deals) for k in range(seatings)]
    scores: dict[int, list[float]] = {}
    nils: Nils = {name: [0, 0, 0] for name in BOT_NAMES}
    with Pool(processes) as pool:
        for deal, score, counts in pool.imap_unordered(_score, jobs):
            scores.setdefault(deal, []).append(score)
            for name, (bids, nil_bids, made) in counts.items():
                total = nils[name]
                total[0], total[1], total[2] = total[0] + bids, total[1] + nil_bids, total[2] + made
    per_deal = [sum(s) / len(s) for s in scores.values()]
    mean = statistics.fmean(per_deal)
    half = 1.96 * statistics.stdev(per_deal) / math.sqrt(len(per_deal))
    return mean, max(0.0, mean - half), min(1.0, mean + half), len(jobs), nils


def think_times(games: int) -> dict[str, list[float]]:
    """The strong bot's think time per decision over ``games`` whole games of each table, here,
    by table label."""
    times: dict[str, list[float]] = {}
    for table in tables():
        times[table.label] = []
        for g in range(games):
            strategies, _ = lineups(table)[g % len(lineups(table))]
            play_game(table, strategies, SEED + 10_000 + g, times[table.label])
    return times


def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def figures() -> Iterator[tuple[str, float]]:
    """Every figure of the bench, as it is measured."""
    start = time.perf_counter()
    processes = int(os.environ.get("BENCH_BOTS_PROCESSES", "2"))
    played = tables()
    counts = {t.label: int(os.environ.get(f"BENCH_BOTS_{t.label.upper()}", str(t.games))) for t in played}
    by_table = think_times(int(os.environ.get("BENCH_BOTS_THINK_GAMES", "2")))
    every = [t for times in by_table.values() for t in times]
    for prefix, times in [("bots", every)] + [(f"bots_{t.label}", by_table[t.label]) for t in played]:
        if times:
            yield f"{prefix}_think_ms_p50", 1000 * percentile(times, 50)
            yield f"{prefix}_think_ms_p99", 1000 * percentile(times, 99)
        yield f"{prefix}_think_moves", len(times)
    for table in played:
        if counts[table.label] <= 0:
            continue
        mean, low, high, games, nils = win_rate(table, counts[table.label], processes)
        name = f"bots_{table.label}_strong_" + ("win_rate" if len(lineups(table)) == 2 else "win_share")
        yield name, mean
        yield name + "_ci95_low", low
        yield name + "_ci95_high", high
        yield f"bots_{table.label}_games", games
        for bot, (bids, nil_bids, made) in nils.items():
            if bids and any(n[1] for n in nils.values()):
                yield f"bots_{table.label}_{bot}_nil_bids", nil_bids
                yield f"bots_{table.label}_{bot}_nil_bid_rate", nil_bids / bids
                if nil_bids:
                    yield f"bots_{table.label}_{bot}_nil_made_rate", made / nil_bids
    yield "bots_wall_s", time.perf_counter() - start


def main() -> None:
    """Print every figure, one ``name value`` per line."""
    for name, value in figures():
        print(f"{name} {value:.3f}" if isinstance(value, float) else f"{name} {value}", flush=True)


if __name__ == "__main__":
    main()
