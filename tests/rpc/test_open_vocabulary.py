"""The open vocabulary, proved by a game no part of the service knows: Call Whist
(tests/games/call_whist.py) brings a phase ("call"), action words ("call" a suit, "no-trump") and
a setting (``no_trump_allowed``) of its own, declared in its file alone, and is created, set up and
played to the end through the engine, Act over gRPC and over Connect, the Python client, and the
terminal game."""

from __future__ import annotations

import json
import random
import urllib.request

import grpc
import pytest

import engine
from cardgame import cli, render
from cardgame.client import GameClient
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from testkit.launcher import ServerProcess
from tests.clients.test_cli import run_cli
from tests.conftest import SERVER_TEST_FLAGS
from tests.games import call_whist
from tests.support.players import tokens_of

RANDOM = enums.PLAYER_KIND_BOT_RANDOM
MAX_MOVES = 2000


@pytest.fixture(scope="module")
def server(redis_url: str, module_prefix: str):
    """A server that loads Call Whist from its module, with its HTTP (Connect) port."""
    with ServerProcess(*SERVER_TEST_FLAGS, "--http-port", "0", "--game-module", "tests.games.call_whist",
                       redis_url=redis_url, prefix=f"{module_prefix}-call-whist") as proc:
        yield proc


@pytest.fixture(scope="module")
def stub(server):
    with grpc.insecure_channel(server.address) as channel:
        yield pb_grpc.GameServiceStub(channel)


def test_the_engine_plays_and_replays_it_in_its_own_words():
    rng = random.Random(7)
    options = call_whist.CallWhistOptions(target=2, no_trump_allowed=False)
    state = engine.new_game("call_whist", options, rng, first_dealer=0)
    log, calls = [], set()
    while state.phase != engine.Phase.GAME_OVER and len(log) < MAX_MOVES:
        seat = next(s for s in range(4) if engine.legal_actions(state, s))
        action = rng.choice(list(engine.legal_actions(state, seat)))
        if engine.phase_of(state).name == "call":
            calls.add(engine.notation("call_whist", action).split()[0])
        log.append(engine.LogEntry(seat, action, engine.apply(state, seat, action, rng)))
    assert state.phase == engine.Phase.GAME_OVER and calls == {"call"}   # no trump is switched off
    assert engine.replay("call_whist", options, 0, log) == state
    words = engine.game_of("call_whist").vocabulary
    assert words.parse("call h") == engine.action_of(call_whist.CallCode.CALL, 2) and words.name(41) == "no-trump"
    assert {p.name for p in words.phases} - {p.name for game in engine.GAMES.values() if game.name != "call_whist"
                                             for p in game.vocabulary.phases} == {"call"}


def test_the_catalog_describes_it(stub):
    game = next(g for g in stub.GetCatalog(pb.GetCatalogRequest()).games if g.name == "call_whist")
    assert game.seats == 4 and [list(side.seats) for side in game.sides] == [[0, 2], [1, 3]]
    assert [p.name for p in game.phases] == ["deal", "call", "play", "game_over"]
    assert {w.word: w.shape for w in game.words} == {
        "deal": enums.ACTION_SHAPE_NONE, "call": enums.ACTION_SHAPE_SUIT, "no-trump": enums.ACTION_SHAPE_NONE,
        "play": enums.ACTION_SHAPE_CARD}
    settings = {s.name: s for s in game.settings}
    assert settings["no_trump_allowed"].type == enums.SETTING_TYPE_BOOLEAN
    assert settings["no_trump_allowed"].default_value == "true"
    assert (settings["target"].min, settings["target"].max, game.target_setting) == (1, 20, "target")
    assert list(game.bots) == [enums.PLAYER_KIND_BOT_RANDOM]   # no basic or strong bot plays it


def test_a_bad_setting_is_refused_naming_it_and_what_it_takes(stub):
    seats = [pb.SeatConfig(name="Ann"), *[pb.SeatConfig(kind=RANDOM) for _ in range(3)]]
    for settings, words in [({"no_trump_allowed": "maybe"}, "option no_trump_allowed must be true or false"),
                            ({"target": "99"}, "option target must be an integer from 1 to 20"),
                            ({"trumps": "jokers"}, "call_whist has no setting 'trumps'")]:
        with pytest.raises(grpc.RpcError) as refused:
            stub.CreateGame(pb.CreateGameRequest(variant_name="call_whist", seats=seats,
                                                 options={"settings": settings}))
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and words in refused.value.details()


def test_act_over_grpc_plays_it_to_the_end_in_its_words(stub):
    seats = [pb.SeatConfig(name="Ann"), *[pb.SeatConfig(kind=RANDOM) for _ in range(3)]]
    created = stub.CreateGame(pb.CreateGameRequest(variant_name="call_whist", seats=seats, first_dealer=3,
                                                   options={"settings": {"no_trump_allowed": "false",
                                                                         "target": "1"}}))
    token = tokens_of(created)[0]
    metadata = (("authorization", f"Bearer {token}"),)
    view = created.view
    assert dict(view.options.settings) == {"target": "1", "no_trump_allowed": "false"}
    assert view.phase_name == "call" and view.phase == enums.PHASE_UNSPECIFIED   # the bot dealer dealt
    view = stub.GetGame(pb.GetGameRequest(game_id=created.game_id), metadata=metadata).view
    seen_call = False
    for _ in range(MAX_MOVES):
        if view.phase_name == "game_over" or not view.legal_actions:
            break
        if view.phase_name == "call":
            seen_call = True
            assert view.phase_title == "Calling trump" and view.phase == enums.PHASE_UNSPECIFIED
            assert {a.word for a in view.legal_actions} == {"call"}   # no "no-trump": the setting is off
            assert all(a.shape == enums.ACTION_SHAPE_SUIT and a.kind == enums.ACTION_KIND_UNSPECIFIED
                       for a in view.legal_actions)
        view = stub.Act(pb.ActRequest(game_id=created.game_id, action=view.legal_actions[0].notation),
                        metadata=metadata).view
    assert seen_call and view.phase_name == "game_over" and view.HasField("winner_side")
    with pytest.raises(grpc.RpcError) as refused:   # no game's word: malformed
        stub.Act(pb.ActRequest(game_id=created.game_id, action="fold"), metadata=metadata)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "not an action of call_whist" in refused.value.details() and "call, deal, no-trump, play" in \
        refused.value.details()
    with pytest.raises(grpc.RpcError) as refused:   # another game's word: no move of this one
        stub.Act(pb.ActRequest(game_id=created.game_id, action="order-up"), metadata=metadata)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION


def _connect(server, method: str, body: dict, token: str = "") -> dict:
    """One Connect unary call with JSON over the HTTP port."""
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    request = urllib.request.Request(f"http://127.0.0.1:{server.http_port}/cardgame.v1.GameService/{method}",
                                     data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_act_over_connect_plays_it_to_the_end(server):
    created = _connect(server, "CreateGame", {
        "variantName": "call_whist", "firstDealer": 0, "options": {"settings": {"target": "1"}},
        "seats": [{"name": "Ann"}, *[{"kind": "PLAYER_KIND_BOT_RANDOM"} for _ in range(3)]]})
    token, game_id = created["seatTokens"][0]["token"], created["gameId"]
    view = _connect(server, "GetGame", {"gameId": game_id}, token)["view"]
    for _ in range(MAX_MOVES):
        if view.get("phaseName") == "game_over" or not view.get("legalActions"):
            break
        if view["phaseName"] == "call":
            assert {a["word"] for a in view["legalActions"]} == {"call", "no-trump"}
        view = _connect(server, "Act", {"gameId": game_id, "action": view["legalActions"][0]["notation"]},
                        token)["view"]
    assert view["phaseName"] == "game_over" and "winnerSide" in view


def test_the_python_client_and_the_terminal_renderer_read_its_words(server):
    with GameClient(server.address) as client:
        assert "call_whist" in [game.name for game in client.catalog()]
        created = client.create_game("call_whist", ["Ann", ("B", "random"), ("C", "random"), ("D", "random")],
                                     options={"target": 1, "no_trump_allowed": True}, first_dealer=3)
        seat = client.with_token(created.tokens[0])
        view = seat.get_game(created.game_id)
        drawn = []
        for _ in range(MAX_MOVES):
            if view.phase_name == "game_over" or not view.legal_actions:
                break
            if view.phase_name == "call":
                drawn.append(render.view_panel(view))
                menu = cli.build_menu(view)
                assert [c.label.plain for c in menu] == [
                    "Call trump: ♣ clubs", "Call trump: ♦ diamonds", "Call trump: ♥ hearts", "Call trump: ♠ spades",
                    "No trump"]
                assert cli.typed_notation("hearts", view) == "call H" and cli.typed_notation("no trump", view) == \
                    "no-trump"
            view = seat.act(view, view.legal_actions[-1])
        assert view.phase_name == "game_over" and drawn
    from rich.console import Console

    console = Console(width=100, record=True, color_system=None)
    console.print(drawn[0])
    assert "Calling trump" in console.export_text()


def test_the_terminal_game_plays_it_with_its_settings(server):
    done = run_cli("play", "call-whist", "--server", server.address, "--seed", "5", "--bots", "random",
                   "--first-dealer", "3",   # the player on the dealer's left, seat 0, calls trump
                   "--option", "target=1", "--option", "no_trump_allowed=false", stdin="1\n" * 400)
    assert done.returncode == 0, done.stderr[-2000:] + done.stdout[-2000:]
    assert "Call Whist" in done.stdout and "Calling trump" in done.stdout and "Call trump:" in done.stdout
    assert "No trump" not in done.stdout and "Winner: " in done.stdout
    refused = run_cli("play", "call-whist", "--server", server.address, "--bots", "random",
                      "--option", "no_trump_allowed=perhaps",
                      stdin="")
    assert refused.returncode == 2 and "option no_trump_allowed must be true or false" in refused.stdout
