"""Who may watch a game, the caps on open streams, streams that end with their token, game ids
nobody can compute, and retries answered byte for byte after the game moved on."""

from __future__ import annotations

import hashlib
import queue
import random
import threading
import uuid

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from cardgame.v1 import lifecycle_pb2 as lc
from service.rpc import apikeys
from testkit.launcher import ServerProcess
from tests.conftest import SERVER_TEST_FLAGS
from tests.rpc.conftest import instances
from tests.support.players import acting_seat, auth, choose, create, request_for, send, tokens_of

KEY, ENTRY = apikeys.new_key("watching-backend")
OTHER_KEY, OTHER_ENTRY = apikeys.new_key("another-backend")


def _code(call) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as refused:
        result = call()
        if not isinstance(result, pb.GetGameResponse | pb.GetScoreResponse | pb.GetHistoryResponse):
            next(iter(result))   # a stream: its first message or its status
    return refused.value.code()


def _reads(stub, game_id: str, metadata):
    """The four ways to look at a game, each a call that raises on refusal."""
    return [
        lambda: stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=metadata, timeout=10),
        lambda: stub.GetScore(pb.GetScoreRequest(game_id=game_id), metadata=metadata, timeout=10),
        lambda: stub.GetHistory(pb.GetHistoryRequest(game_id=game_id), metadata=metadata, timeout=10),
        lambda: stub.WatchGame(pb.WatchGameRequest(game_id=game_id), metadata=metadata, timeout=10),
    ]


def _first(result):
    return result if not hasattr(result, "__next__") else next(result)


@pytest.fixture(scope="module")
def keyed(redis_url: str, module_prefix: str):
    proc = ServerProcess(*SERVER_TEST_FLAGS, redis_url=redis_url, prefix=f"{module_prefix}-keyed",
                         env={"CARDGAME_API_KEYS": f"{ENTRY} {OTHER_ENTRY}"})
    proc.start()
    try:
        with grpc.insecure_channel(proc.address) as channel:
            yield pb_grpc.GameServiceStub(channel)
    finally:
        proc.stop()


def test_each_spectator_policy_is_applied_to_every_read(keyed):
    owner = [("x-api-key", KEY)]
    seats = [pb.SeatConfig(name=f"P{i}") for i in range(4)]
    games = {policy: keyed.CreateGame(pb.CreateGameRequest(variant_name="buck_euchre", seats=seats,
                                                           spectators=policy), metadata=owner, timeout=10)
             for policy in (pb.SPECTATOR_POLICY_UNSPECIFIED, pb.SPECTATOR_POLICY_ANYONE,
                            pb.SPECTATOR_POLICY_TOKEN, pb.SPECTATOR_POLICY_NONE)}
    for policy, created in games.items():
        game_id, seat_token = created.game_id, created.seat_tokens[0].token
        open_to_all = policy in (pb.SPECTATOR_POLICY_UNSPECIFIED, pb.SPECTATOR_POLICY_ANYONE)
        assert bool(created.spectator_token) == (policy == pb.SPECTATOR_POLICY_TOKEN)
        for read in _reads(keyed, game_id, []):   # no credential at all
            if open_to_all:
                assert _first(read()) is not None
            else:
                assert _code(read) == grpc.StatusCode.PERMISSION_DENIED
        for metadata in (owner, auth(seat_token)):  # the creating key and the seats always may
            for read in _reads(keyed, game_id, metadata):
                assert _first(read()) is not None
        for read in _reads(keyed, game_id, [("x-api-key", OTHER_KEY)]):  # another backend's key is nobody
            if not open_to_all:
                assert _code(read) == grpc.StatusCode.PERMISSION_DENIED
        for read in _reads(keyed, game_id, auth("not-a-token-of-this-game")):
            assert _code(read) == grpc.StatusCode.UNAUTHENTICATED
    token_game = games[pb.SPECTATOR_POLICY_TOKEN]
    spectator = auth(token_game.spectator_token)
    for read in _reads(keyed, token_game.game_id, spectator):
        view = _first(read())
        assert not hasattr(view, "view") or not view.view.HasField("viewer_seat")
    # The spectator token shows the table and makes no move; another game does not take it.
    with pytest.raises(grpc.RpcError) as moving:
        keyed.Act(pb.ActRequest(game_id=token_game.game_id, action="deal", request_id="m1"), metadata=spectator)
    assert moving.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert _code(_reads(keyed, games[pb.SPECTATOR_POLICY_NONE].game_id, spectator)[0]) == \
        grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.RpcError) as unknown:
        keyed.CreateGame(pb.CreateGameRequest(variant_name="buck_euchre", seats=seats, spectators=9),
                         metadata=owner)
    assert unknown.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_a_create_retry_returns_the_same_spectator_token_and_rematch_keeps_the_policy(keyed):
    owner = [("x-api-key", KEY)]
    request = pb.CreateGameRequest(variant_name="spades2", seats=[pb.SeatConfig(name="A"), pb.SeatConfig(name="B")],
                                   spectators=pb.SPECTATOR_POLICY_TOKEN, request_id=uuid.uuid4().hex)
    first = keyed.CreateGame(request, metadata=owner, timeout=10)
    again = keyed.CreateGame(request, metadata=owner, timeout=10)
    assert again.SerializeToString() == first.SerializeToString() and first.spectator_token
    rematch = keyed.Rematch(pb.RematchRequest(game_id=first.game_id, request_id=uuid.uuid4().hex), metadata=owner)
    assert rematch.spectator_token and rematch.spectator_token != first.spectator_token
    assert keyed.GetGame(pb.GetGameRequest(game_id=rematch.game_id), metadata=auth(rematch.spectator_token)).view
    assert _code(_reads(keyed, rematch.game_id, [])[0]) == grpc.StatusCode.PERMISSION_DENIED


def test_game_ids_of_request_ids_cannot_be_computed_and_retries_still_find_them(stub):
    request_id = "order-1"
    first = create(stub, "spades2", request_id=request_id)
    assert first.game_id == create(stub, "spades2", request_id=request_id).game_id
    for caller in ("", "_open"):
        guessed = hashlib.sha256(f"creategame\0{caller}\0{request_id}".encode()).hexdigest()[:24]
        assert first.game_id != guessed


def _watch_into(stub, game_id: str, token: str, into: queue.Queue) -> threading.Thread:
    def run() -> None:
        try:
            for message in stub.WatchGame(pb.WatchGameRequest(game_id=game_id), metadata=auth(token), timeout=30):
                into.put(message.view)
            into.put("ended")
        except grpc.RpcError as exc:
            into.put(exc.code())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _drain_until_status(into: queue.Queue) -> tuple[list, object]:
    views = []
    while True:
        item = into.get(timeout=20)
        if isinstance(item, grpc.StatusCode) or item == "ended":
            return views, item
        views.append(item)


@pytest.mark.parametrize("change", ["reissue", "leave"])
def test_a_watch_stream_ends_unauthenticated_once_its_token_is_void(stub, change):
    created = create(stub, "buck_euchre", first_dealer=0)
    game_id, tokens = created.game_id, tokens_of(created)
    into: queue.Queue = queue.Queue()
    thread = _watch_into(stub, game_id, tokens[1], into)
    assert into.get(timeout=20).viewer_seat == 1   # the stream is open
    if change == "reissue":
        new = stub.ReissueSeatToken(pb.ReissueSeatTokenRequest(game_id=game_id, seat=1, request_id="r1")).seat_token
        at = stub.GetGame(pb.GetGameRequest(game_id=game_id)).view.version
        send(stub, "Act", pb.ActRequest(game_id=game_id, action="deal"), tokens[0])  # the new holder's hand
    else:
        left = stub.LeaveGame(pb.LeaveGameRequest(game_id=game_id, request_id="l1"), metadata=auth(tokens[1]))
        at = left.view.version
        send(stub, "Act", pb.ActRequest(game_id=game_id, action="deal"), tokens[0])  # the fallback bot's hand
    views, status = _drain_until_status(into)
    thread.join(10)
    assert status == grpc.StatusCode.UNAUTHENTICATED
    assert all(view.version < at for view in views)   # nothing of the seat after its token went
    if change == "reissue":   # the new token watches on
        assert stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=auth(new.token)).view.viewer_seat == 1


def test_streams_have_caps_below_the_rpc_cap_and_health_and_moves_are_answered(redis_url: str, module_prefix: str):
    flags = ("--max-concurrent-rpcs", "24", "--max-streams", "500", "--max-watches-per-connection", "4",
             "--max-watchers-per-game", "6")
    with instances(1, *flags, redis_url=redis_url, prefix=f"{module_prefix}-caps") as (server,):
        # a subchannel pool of its own for each channel: five connections, not one shared
        channels = [grpc.insecure_channel(server.address, options=[("grpc.use_local_subchannel_pool", 1)])
                    for _ in range(5)]
        try:
            stubs = [pb_grpc.GameServiceStub(c) for c in channels]
            games = [create(stubs[0], "spades2", first_dealer=0) for _ in range(3)]
            streams, refused = [], []

            def watch(stub, game_id):
                call = stub.WatchGame(pb.WatchGameRequest(game_id=game_id), timeout=30)
                try:
                    next(call)
                    streams.append(call)
                except grpc.RpcError as exc:
                    refused.append((exc.code(), exc.details()))

            a, b, c = (g.game_id for g in games)
            for stub, game_id, count in ((stubs[0], a, 5), (stubs[1], a, 3), (stubs[1], b, 2), (stubs[2], b, 4)):
                for _ in range(count):
                    watch(stub, game_id)
            assert len(streams) == 12   # 4 + 2 + 2 + 4: each connection holds 4, each game 6
            assert [code for code, _ in refused] == [grpc.StatusCode.RESOURCE_EXHAUSTED] * 2
            assert "per connection" in refused[0][1] and "per game" in refused[1][1]
            watch(stubs[3], c)   # 24 / 2 = 12 streams per process at most
            assert refused[-1][0] == grpc.StatusCode.RESOURCE_EXHAUSTED and "this server holds" in refused[-1][1]
            # Health, reads and moves still answered with every stream place taken.
            health = health_pb2_grpc.HealthStub(channels[4])
            assert health.Check(health_pb2.HealthCheckRequest(), timeout=5).status == \
                health_pb2.HealthCheckResponse.SERVING
            tokens = tokens_of(games[0])
            moved = send(stubs[4], "Act", pb.ActRequest(game_id=games[0].game_id, action="deal"), tokens[0])
            assert moved.view.version > 1
            for call in streams:
                call.cancel()
        finally:
            for channel in channels:
                channel.close()


def test_a_retry_is_answered_byte_for_byte_after_the_game_moved_on(stub):
    life = lc.LifecycleOptions(turn_timeout_ms=60_000)
    created = create(stub, "spades", first_dealer=0, lifecycle=life)
    game_id, tokens = created.game_id, tokens_of(created)
    rng = random.Random(7)
    answers = []
    for _ in range(12):
        seat, view = acting_seat(stub, game_id, tokens)
        method, request = request_for(choose(view, rng), game_id, rng, legacy=False)[:2]
        request.request_id = uuid.uuid4().hex
        answers.append((method, request, seat, send(stub, method, request, tokens[seat]).SerializeToString()))
    # The game moves on: a seat leaves (presence), deadlines change, and the game ends abandoned.
    stub.LeaveGame(pb.LeaveGameRequest(game_id=game_id, request_id="leave-1"), metadata=auth(tokens[3]))
    ended = create(stub, "spades2", first_dealer=0, lifecycle=lc.LifecycleOptions(leave_policy=lc.LEAVE_POLICY_ABANDON))
    for method, request, seat, first in answers:
        if seat == 3:
            continue   # the leaver's token is void: its retries are refused
        assert send(stub, method, request, tokens[seat]).SerializeToString() == first
    # and a retry after the game is over
    end_tokens = tokens_of(ended)
    seat, view = acting_seat(stub, ended.game_id, end_tokens)
    method, request = request_for(choose(view, rng), ended.game_id, rng, legacy=False)[:2]
    request.request_id = uuid.uuid4().hex
    first = send(stub, method, request, end_tokens[seat]).SerializeToString()
    stub.LeaveGame(pb.LeaveGameRequest(game_id=ended.game_id, request_id="leave-2"),
                   metadata=auth(end_tokens[1 - seat]))
    assert stub.GetGame(pb.GetGameRequest(game_id=ended.game_id)).view.phase == enums.PHASE_GAME_OVER
    assert send(stub, method, request, end_tokens[seat]).SerializeToString() == first
