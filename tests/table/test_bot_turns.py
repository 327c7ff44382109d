"""The strong bot's think time: from ``--strong-bot-ms`` to the worker processes that run its turns."""

from __future__ import annotations

import asyncio
import dataclasses
import random

import pytest

import bots
import engine
from bots.search import Budget, SearchBot
from service.ops import config
from service.table import bot_turns
from tests.engine.engine_helpers import GAMES


def own_budgets() -> dict[str, Budget]:
    """The budgets the games under test registered (those without one have none here)."""
    return {variant: budget for variant in GAMES if (budget := bots.game_bots(variant).budget) is not None}


def worker_clocks() -> tuple[float | None, list[float | None]]:
    """In a worker: the strong bot's clock for games without a budget of their own, and for those with one."""
    bot = bots.BOTS["strong"]
    assert isinstance(bot, SearchBot)
    return bot.budget.seconds, [bot.budget_of(variant).seconds for variant in sorted(own_budgets())]


@pytest.fixture
def clock_restored():
    yield
    bot_turns.configure(Budget().seconds)
    bot_turns.shutdown()


def test_a_clocked_bot_keeps_every_budget_but_its_clock():
    bot = SearchBot()
    assert own_budgets()                            # a game with a budget of its own (Buck Euchre)
    for seconds in (None, 0.05):
        clocked = bot.clocked(seconds)
        assert clocked.budget == Budget(seconds=seconds)
        for variant in GAMES:
            budget = bot.budget_of(variant)
            assert clocked.budget_of(variant) == dataclasses.replace(budget, seconds=seconds)
            assert clocked.clocked(0.3).budget_of(variant) == dataclasses.replace(budget, seconds=0.3)
    assert bot.budget.seconds == Budget().seconds   # the original is left as it was
    assert bot.budget_of("buck_euchre").seconds == Budget().seconds


def test_the_configured_clock_reaches_the_worker_processes(clock_restored):
    for seconds in (None, 0.05):
        bot_turns.configure(seconds)
        assert bot_turns.pool().submit(worker_clocks).result(timeout=120) == (seconds, [seconds] * len(own_budgets()))


def test_a_clock_free_strong_turn_in_the_pool_is_the_one_chosen_here(clock_restored):
    """Without a clock the search is a function of the state, seat and random stream: the pool's
    choice and the rng state it hands back are those of the same search in this process."""
    bot_turns.configure(None)
    state = engine.new_game("buck_euchre", rng=random.Random(4), first_dealer=0)
    engine.apply(state, state.turn, engine.DEAL, random.Random(4))
    seat = state.turn
    here, there = random.Random(9), random.Random(9)
    local = SearchBot().clocked(None).choose(engine.view(state, seat), engine.legal_actions(state, seat), here)
    remote = asyncio.run(bot_turns.choose_action("strong", state, seat, there))
    assert remote == local and there.getstate() == here.getstate()


@pytest.mark.parametrize("value", ["-1", "10001", "soon"])
def test_a_think_time_out_of_range_is_refused_at_start(value, capsys):
    with pytest.raises(SystemExit):
        config.parse(["--strong-bot-ms", value])
    assert "--strong-bot-ms" in capsys.readouterr().err


def test_the_think_time_comes_from_the_flag_or_the_environment(monkeypatch):
    assert config.parse([]).strong_bot_ms == round(1000 * (Budget().seconds or 0))
    monkeypatch.setenv("STRONG_BOT_MS", "0")
    assert config.parse([]).strong_bot_ms == 0
    assert config.parse(["--strong-bot-ms", "750"]).strong_bot_ms == 750
