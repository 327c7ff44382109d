"""Games stored by the previous release load in this one, unchanged in meaning.

``tests/table/fixtures/stored_games_v1.json`` holds, per built-in game, a game as the release before
the service's wings wrote it: the state blob, the log and six finished hands' score records
(Spades ones with bag penalties, then stored as positive numbers). This release reads the blob,
rebuilds the same state from the log, reads every hand with its bag penalty as a negative change
(as the wire always showed it), and answers GetScore's message from them.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import orjson
import pytest

from engine.games import BUILTIN
from service.rpc import convert
from service.table import gamelog
from service.table.record import GameRecord

STORED = json.loads((Path(__file__).parent / "fixtures" / "stored_games_v1.json").read_text())


def _stored(variant: str) -> tuple[bytes, list[bytes], list[bytes]]:
    game = STORED[variant]
    return (base64.b64decode(game["state"]), [base64.b64decode(e) for e in game["log"]],
            [base64.b64decode(h) for h in game["hands"]])


def test_the_stored_games_are_of_built_in_games():
    # every game the previous release had (a game added since has no stored game of it to read)
    assert {"spades", "spades2", "buck_euchre"} <= set(STORED) <= {game.name for game in BUILTIN}


@pytest.mark.parametrize("variant", sorted(STORED))
def test_a_stored_game_loads_and_its_log_rebuilds_the_same_state(variant):
    state, log, hands = _stored(variant)
    record = GameRecord.from_bytes(state)
    assert record.state.variant == variant and record.state.hand_no >= len(hands)
    rebuilt = gamelog.rebuild(log)
    rebuilt_hands = [hand.to_dict() for hand in rebuilt.records]
    assert {**rebuilt.to_dict(), "records": []} == record.state.to_dict()
    assert rebuilt_hands == [hand.to_dict() for hand in GameRecord.from_bytes(state).with_hands(hands).state.records]
    assert GameRecord.from_bytes(record.to_bytes()).to_bytes() == record.to_bytes()


@pytest.mark.parametrize("variant", sorted(STORED))
def test_stored_hand_records_read_with_one_sign_for_every_point_change(variant):
    state, _, hands = _stored(variant)
    record = GameRecord.from_bytes(state).with_hands(hands)
    stored_penalties = [side.get("bag_penalty", 0) for hand in hands for side in orjson.loads(hand).get("sides", [])]
    read = [side for hand in record.state.records for side in getattr(hand, "sides", [])]
    if variant.startswith("spades"):
        assert any(stored_penalties) and all(p >= 0 for p in stored_penalties)   # the old, positive form
        assert [side.bag_penalty for side in read] == [-p for p in stored_penalties]
        for side in read:
            assert side.hand_points == side.contract_points + side.bags_gained + side.nil_points + side.bag_penalty
        assert [side.total_after for side in read[-len(record.state.scores):]] == record.state.scores
    message = convert.score_message(record.state)
    assert len(message.hands) == len(hands)
    wire = [side.bag_penalty for hand in message.hands for side in hand.sides]
    assert all(p <= 0 for p in wire) and (not variant.startswith("spades") or any(wire))
