"""Many WatchEvents streams on one server against real Redis: they share one blocking read per
owner, so they never take the Redis connections the server's other calls need."""

from __future__ import annotations

import threading
import time

import grpc
import pytest

from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from cardgame.v1 import lifecycle_pb2 as lc
from service.rpc import apikeys
from testkit.launcher import ServerProcess
from tests.conftest import SERVER_TEST_FLAGS

KEY, ENTRY = apikeys.new_key("feed")
STREAMS = 48          # six times the server's Redis connections
CONNECTIONS = 8
HUMAN, BASIC = enums.PLAYER_KIND_HUMAN, enums.PLAYER_KIND_BOT_BASIC


@pytest.fixture(scope="module")
def stub(redis_url: str, module_prefix: str):
    server = ServerProcess(*SERVER_TEST_FLAGS, "--redis-max-connections", str(CONNECTIONS),
                           "--max-watches-per-connection", str(STREAMS), "--max-event-streams-per-key", str(STREAMS),
                           redis_url=redis_url, prefix=module_prefix, env={"CARDGAME_API_KEYS": ENTRY})
    server.start()
    channel = grpc.insecure_channel(server.address)
    yield pb_grpc.GameServiceStub(channel)
    channel.close()
    server.stop()


def _events(stub, seen: list[lc.Event], calls: list) -> threading.Thread:
    call = stub.WatchEvents(pb.WatchEventsRequest(), metadata=[("x-api-key", KEY)], timeout=60)
    calls.append(call)

    def run() -> None:
        try:
            for message in call:
                seen.append(message.event)
        except grpc.RpcError:
            pass
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_many_event_streams_leave_the_store_to_the_other_calls(stub):
    seen: list[list[lc.Event]] = [[] for _ in range(STREAMS)]
    calls: list = []
    threads = [_events(stub, seen[i], calls) for i in range(STREAMS)]
    time.sleep(2.5)   # every stream is past its first read and waiting for events
    try:
        made = []
        for _ in range(5):   # each call needs a Redis connection while 48 streams wait for events
            seats = [pb.SeatConfig(name=f"B{i}", kind=HUMAN if i == 0 else BASIC) for i in range(4)]
            made.append(stub.CreateGame(pb.CreateGameRequest(variant_name="buck_euchre", seats=seats),
                                        metadata=[("x-api-key", KEY)], timeout=5).game_id)
        for game_id in made:
            stub.DeleteGame(pb.DeleteGameRequest(game_id=game_id), metadata=[("x-api-key", KEY)], timeout=5)
        deadline = time.monotonic() + 10
        want = set(made)
        while time.monotonic() < deadline and not all(
                want <= {e.game_id for e in s if e.kind == lc.EVENT_KIND_DELETE} for s in seen):
            time.sleep(0.05)
        for i, s in enumerate(seen):   # every stream told every game's end, in order, once each
            ended = [e.game_id for e in s if e.game_id in want and e.kind == lc.EVENT_KIND_DELETE]
            assert ended == made, f"stream {i} saw {ended}"
    finally:
        for call in calls:
            call.cancel()
        for thread in threads:
            thread.join(5)
