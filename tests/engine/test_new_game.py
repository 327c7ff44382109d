"""A fourth game, defined only under tests/, played to the end through the engine's entry points."""

from __future__ import annotations

import dataclasses
import random

import pytest

import engine
from engine import Phase
from tests.games import whist


def test_registering_a_game_makes_it_playable_by_name_and_replayable():
    assert engine.register(whist.GAME) is whist.GAME and engine.game_of("whist") is whist.GAME
    rng = random.Random(7)
    state = engine.new_game("whist", whist.WhistOptions(target=2), rng, first_dealer=3)
    log = []
    while state.phase != Phase.GAME_OVER:
        movers = [s for s in range(4) if engine.legal_actions(state, s)]
        assert len(movers) == 1 and movers[0] == state.turn
        legal = engine.legal_actions(state, state.turn)
        view = engine.view(state, state.turn)
        assert view.legal_actions == list(legal) and view.rules is None
        action = legal[rng.randrange(len(legal))]
        log.append(engine.LogEntry(state.turn, action, engine.apply(state, state.turn, action, rng)))
        assert len(log) < 2000
    assert max(state.scores) >= 2 and state.winner == [state.scores.index(max(state.scores))]
    assert all(sum(r.tricks) == 13 for r in state.records)
    assert [sum(r.points[side] for r in state.records) for side in (0, 1)] == state.scores
    assert engine.replay("whist", whist.WhistOptions(target=2), 3, log).to_bytes() == state.to_bytes()
    again = engine.state_from_bytes(state.to_bytes())
    assert again == state and type(again) is whist.WhistState


def test_a_whist_move_off_the_list_is_refused_and_changes_nothing():
    state = engine.new_game("whist", first_dealer=0)
    engine.apply(state, 0, engine.DEAL, random.Random(1))
    before = state.to_bytes()
    with pytest.raises(engine.IllegalAction) as info:
        engine.apply(state, 2, engine.legal_actions(state, 1)[0])
    assert info.value.reason == engine.Reason.NOT_YOUR_TURN and state.to_bytes() == before


def test_unknown_games_fail_loudly():
    with pytest.raises(ValueError, match="unknown variant 'bridge'"):
        engine.new_game("bridge")
    with pytest.raises(ValueError, match="different game"):
        engine.register(dataclasses.replace(whist.GAME, seats=3))
