"""Act, the compact log and what it rebuilds, through real channels against real Redis:
any listed action by its notation, retries answered from the log, every version watched,
an older release's stored game refused, and a game registered beyond the three built in."""

from __future__ import annotations

import uuid

import grpc
import pytest
import redis

from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from testkit.launcher import ServerProcess
from tests.conftest import SERVER_TEST_FLAGS
from tests.rpc.test_moves_and_errors import reason_of
from tests.support.players import auth, create, tokens_of

BASIC = enums.PLAYER_KIND_BOT_BASIC


def act(stub, game_id: str, token: str, action: str, request_id: str | None = None, **fields):
    """Send Act with ``action`` (a notation) and a fresh request id unless one is given."""
    request = pb.ActRequest(game_id=game_id, action=action, request_id=request_id or uuid.uuid4().hex, **fields)
    return stub.Act(request, metadata=auth(token))


def failure(call, *args, **kwargs) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        call(*args, **kwargs)
    return info.value


def test_act_plays_a_whole_game_by_notation_alone(stub):
    created = create(stub, "buck_euchre", [enums.PLAYER_KIND_HUMAN, BASIC, BASIC, BASIC], first_dealer=0)
    game_id, token = created.game_id, tokens_of(created)[0]
    view = stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=auth(token)).view
    for _ in range(2000):
        if view.phase == enums.PHASE_GAME_OVER:
            break
        assert view.legal_actions, "the human seat always has a move when the bots are done"
        choice = view.legal_actions[-1]
        action = choice.notation if choice.kind != enums.ACTION_KIND_EXCHANGE else f"exchange {choice.cards[0]}"
        view = act(stub, game_id, token, action).view
        assert view.variant_name == "buck_euchre" and view.WhichOneof("rules") == "buck_euchre"
    assert view.phase == enums.PHASE_GAME_OVER and view.HasField("winner_side")


def test_act_refuses_what_is_not_a_notation_and_what_the_rules_forbid(stub):
    created = create(stub, "buck_euchre", first_dealer=0)
    game_id, tokens = created.game_id, tokens_of(created)
    for bad in ("", "fly away", "play ZZ", "bid many", "exchange 2C 2C 2C " * 8):
        assert failure(act, stub, game_id, tokens[0], bad).code() == grpc.StatusCode.INVALID_ARGUMENT, bad
    error = failure(act, stub, game_id, tokens[1], "deal")
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION and reason_of(error) == "NOT_YOUR_TURN"
    assert stub.GetGame(pb.GetGameRequest(game_id=game_id)).view.version == 1   # nothing changed


def test_act_takes_an_exchange_as_exchange_and_the_chosen_cards(stub):
    cards = [f"{rank}{suit}" for suit in "CDHS" for rank in ("9", "10", "J", "Q", "K", "A")]
    cards.remove("9H")
    deck = cards[:20] + ["9H"] + cards[20:]          # a heart turned up: the first round is open
    created = create(stub, "buck_euchre", first_dealer=0, decks=[pb.Deck(cards=deck)])
    game_id, tokens = created.game_id, tokens_of(created)
    act(stub, game_id, tokens[0], "deal")
    assert act(stub, game_id, tokens[1], "order-up").view.phase == enums.PHASE_DEALER_DISCARD
    dealer = stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=auth(tokens[0])).view
    (entry,) = [a for a in dealer.legal_actions if a.kind == enums.ACTION_KIND_EXCHANGE]
    assert entry.notation == "exchange" and len(entry.cards) == 6 and entry.min_cards == entry.max_cards == 1
    after = act(stub, game_id, tokens[0], f"exchange {entry.cards[2]}").view
    assert len(after.hand) == 5 and entry.cards[2] not in after.hand


def test_a_retry_is_answered_from_the_log_as_the_first_time(stub):
    created = create(stub, "buck_euchre", [enums.PLAYER_KIND_HUMAN, BASIC, BASIC, BASIC], first_dealer=0)
    game_id, token = created.game_id, tokens_of(created)[0]
    first = act(stub, game_id, token, "deal", request_id="deal-once")
    again = act(stub, game_id, token, "deal", request_id="deal-once")
    assert again.SerializeToString() == first.SerializeToString()
    view = first.view
    for _ in range(3):   # the game moves on
        if view.phase == enums.PHASE_GAME_OVER or not view.legal_actions:
            break
        view = act(stub, game_id, token, view.legal_actions[0].notation if view.legal_actions[0].notation != "exchange"
                   else f"exchange {view.legal_actions[0].cards[0]}").view
    late = act(stub, game_id, token, "deal", request_id="deal-once")
    assert late.SerializeToString() == first.SerializeToString()   # rebuilt at its version, byte for byte
    error = failure(act, stub, game_id, token, "pass", request_id="deal-once")
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_watching_from_a_version_shows_every_later_version(stub):
    created = create(stub, "spades", [enums.PLAYER_KIND_HUMAN, BASIC, BASIC, BASIC], first_dealer=0)
    game_id, token = created.game_id, tokens_of(created)[0]
    latest = act(stub, game_id, token, "deal").view     # the bots bid before seat 0's turn
    stream = stub.WatchGame(pb.WatchGameRequest(game_id=game_id, from_version=1), metadata=auth(token),
                            timeout=10)
    seen = []
    for response in stream:
        seen.append(response.view)
        if response.view.version == latest.version:
            stream.cancel()
            break
    assert [v.version for v in seen] == list(range(2, latest.version + 1))
    assert seen[-1] == latest
    assert seen[0].phase == enums.PHASE_BID and all(v.seats[0].card_count == 13 for v in seen)


def test_the_store_keeps_a_log_entry_per_version_and_no_snapshots(stub, server, redis_url, module_prefix):
    created = create(stub, "spades", [enums.PLAYER_KIND_HUMAN, BASIC, BASIC, BASIC], first_dealer=0)
    game_id, token = created.game_id, tokens_of(created)[0]
    version = act(stub, game_id, token, "deal").view.version
    client = redis.Redis.from_url(redis_url)
    tag = f"{module_prefix}:{{{game_id}}}"
    assert sorted(k.decode() for k in client.keys(f"{tag}:*")) == [f"{tag}:log", f"{tag}:req", f"{tag}:state"]
    log = client.lrange(f"{tag}:log", 0, -1)
    assert len(log) == version and log[0].startswith(b"G{")
    assert max(len(entry) for entry in log[1:]) < 200          # an entry is an action, not a snapshot
    assert client.llen(f"{tag}:req") == 2                      # one retry record: request id and record
    act(stub, game_id, token, "reveal")
    assert client.llen(f"{tag}:req") == 4 and client.llen(f"{tag}:log") == version + 1


def test_a_game_stored_by_an_older_release_is_refused_clearly(stub, redis_url, module_prefix):
    game_id = uuid.uuid4().hex[:24]
    client = redis.Redis.from_url(redis_url)
    client.hset(f"{module_prefix}:{{{game_id}}}:state", mapping={"v": "3", "s": b'{"r":1,"id":"x","game":{}}'})
    error = failure(stub.GetGame, pb.GetGameRequest(game_id=game_id))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert reason_of(error) == "UNSUPPORTED_GAME_FORMAT" and "does not read" in error.details()


@pytest.fixture(scope="module")
def whist_stub(redis_url: str, module_prefix: str):
    """A server that loads the test-only Whist module, and a stub on it."""
    with ServerProcess(*SERVER_TEST_FLAGS, "--game-module", "tests.games.whist", redis_url=redis_url,
                       prefix=f"{module_prefix}-whist") as proc:
        with grpc.insecure_channel(proc.address) as channel:
            yield pb_grpc.GameServiceStub(channel)


def test_a_game_registered_by_a_module_plays_through_act_and_the_common_view(whist_stub):
    stub = whist_stub
    seats = [pb.SeatConfig(name="Ann")] + [pb.SeatConfig(kind=enums.PLAYER_KIND_BOT_RANDOM) for _ in range(3)]
    error = failure(stub.CreateGame, pb.CreateGameRequest(variant_name="whist", seats=[
        pb.SeatConfig(name="Ann"), *[pb.SeatConfig(kind=BASIC) for _ in range(3)]]))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and "does not play whist" in error.details()
    created = stub.CreateGame(pb.CreateGameRequest(variant_name="whist", seats=seats, first_dealer=0))
    game_id, token = created.game_id, tokens_of(created)[0]
    view = created.view
    assert view.variant == enums.VARIANT_UNSPECIFIED and view.variant_name == "whist"
    assert view.WhichOneof("rules") is None and view.phase == enums.PHASE_DEAL
    view = act(stub, game_id, token, "deal").view
    for _ in range(500):
        if view.phase == enums.PHASE_GAME_OVER:
            break
        assert view.phase == enums.PHASE_PLAY and len(view.hand) == view.seats[0].card_count
        assert len(view.current_trick.plays) < 4 and view.legal_actions
        view = act(stub, game_id, token, view.legal_actions[0].notation).view
        if view.phase == enums.PHASE_DEAL and view.legal_actions:
            view = act(stub, game_id, token, "deal").view
    assert view.phase == enums.PHASE_GAME_OVER and view.HasField("winner_side")
    score = stub.GetScore(pb.GetScoreRequest(game_id=game_id))
    assert [t.score for t in score.totals] == [s.score for s in view.scores]
    assert all(sum(s.tricks_won for s in hand.seats) == 13 for hand in score.hands)
    assert [sum(h.sides[side].hand_points for h in score.hands) for side in (0, 1)] == [t.score for t in score.totals]


def test_an_unknown_variant_name_is_refused(stub):
    error = failure(stub.CreateGame, pb.CreateGameRequest(variant_name="whist", seats=[pb.SeatConfig()] * 4))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and "unknown variant_name 'whist'" in error.details()
    error = failure(stub.CreateGame, pb.CreateGameRequest(variant=enums.VARIANT_SPADES, variant_name="buck_euchre",
                                                          seats=[pb.SeatConfig()] * 4))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT


