"""A Redis out of memory is not an outage: a write it refuses (``OOM command not allowed when used
memory > 'maxmemory'``, from a command or from inside a Lua script) is RESOURCE_EXHAUSTED
``STORE_FULL`` with RetryInfo, logged at WARNING once per refused call and counted in
``cardgame_store_full_total``; health stays SERVING (reads still work), and once memory is freed
the same request succeeds. Against a real server process on a private redis-server (``noeviction``)
whose ``maxmemory`` the test sets below the memory Redis uses, by a margin that Redis' own
housekeeping (idle clients' query buffers shrunk, expired keys deleted) cannot make up, and raises
again afterwards."""

from __future__ import annotations

import json
import time
import urllib.request

import grpc
import pytest
import redis
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status
from prometheus_client.parser import text_string_to_metric_families
from redis.exceptions import OutOfMemoryError, ResponseError

from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from service.store import StoreFull
from service.store.port import StoreUnavailable
from service.store.redis.connection import unavailable_on_error
from testkit.launcher import ServerProcess
from tests.conftest import SERVER_TEST_FLAGS
from tests.support.players import auth, tokens_of

PREFIX = "storefull"
SERVING = health_pb2.HealthCheckResponse.SERVING
NO_RETRIES = [("grpc.enable_retries", 0)]


def _details(error: grpc.RpcError) -> tuple[str, float | None]:
    """The ErrorInfo reason and the RetryInfo delay (s) of a refused call."""
    reason, delay = "", None
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    for detail in status.details if status else ():
        info, retry = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
        if detail.Unpack(info):
            reason = info.reason
        elif detail.Unpack(retry):
            delay = retry.retry_delay.ToNanoseconds() / 1e9
    return reason, delay


def _store_full_total(port: int) -> float:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        text = response.read().decode()
    samples = {s.name: s.value for family in text_string_to_metric_families(text) for s in family.samples}
    assert "cardgame_store_full_total" in samples, "the counter is not exported from the start"
    return samples["cardgame_store_full_total"]


def _health(address: str) -> int:
    with grpc.insecure_channel(address) as channel:
        return health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5).status


class Limit:
    """Holds Redis out of memory: its ``maxmemory`` below the memory it uses, and lifted again."""

    MARGIN = 512 * 1024

    def __init__(self, client: redis.Redis):
        self.client = client
        self.client.config_set("maxmemory-policy", "noeviction")

    def fill(self) -> None:
        used = int(self.client.info("memory")["used_memory"])
        self.client.config_set("maxmemory", max(1, used - self.MARGIN))
        try:
            self.client.set(f"{PREFIX}:probe", b"x")
        except OutOfMemoryError:
            return
        raise AssertionError("Redis accepted a write above its maxmemory")

    def free(self) -> None:
        self.client.config_set("maxmemory", 0)


def _refused(call, limit: Limit) -> grpc.RpcError:
    """The call's refusal by the full store."""
    limit.fill()
    try:
        call()
    except grpc.RpcError as exc:
        return exc
    raise AssertionError("the call never found the store full")


def test_oom_errors_become_store_full_and_other_errors_stay_store_unavailable():
    for error in (OutOfMemoryError("command not allowed when used memory > 'maxmemory'."),
                  ResponseError("Error running script (call to f_0123): @user_script:1: -OOM command not allowed "
                                "when used memory > 'maxmemory'.")):
        with pytest.raises(StoreFull), unavailable_on_error("commit"):
            raise error
    with pytest.raises(StoreUnavailable) as other, unavailable_on_error("commit"):
        raise ResponseError("WRONGTYPE Operation against a key holding the wrong kind of value")
    assert not isinstance(other.value, StoreFull)


def test_a_full_redis_is_resource_exhausted_store_full_counted_logged_and_health_stays_serving(private_redis):
    client = redis.Redis.from_url(private_redis.url)
    limit = Limit(client)
    flags = (*SERVER_TEST_FLAGS, "--metrics-port", "0")
    try:
        with ServerProcess(*flags, redis_url=private_redis.url, prefix=PREFIX) as server, \
                grpc.insecure_channel(server.address, options=NO_RETRIES) as channel:
            stub = pb_grpc.GameServiceStub(channel)
            assert _store_full_total(server.metrics_port) == 0
            seats = [pb.SeatConfig(name=f"P{i}") for i in range(4)]
            created = stub.CreateGame(pb.CreateGameRequest(variant_name="spades", seats=seats, first_dealer=0),
                                      timeout=10)
            game_id, dealer = created.game_id, tokens_of(created)[0]
            create = pb.CreateGameRequest(variant_name="spades", seats=seats, request_id="create-when-full")
            deal = pb.ActRequest(game_id=game_id, action="deal", request_id="deal-when-full")

            refusals = []
            for name, call in (("CreateGame", lambda: stub.CreateGame(create, timeout=10)),
                               ("Act", lambda: stub.Act(deal, metadata=auth(dealer), timeout=10))):
                error = _refused(call, limit)
                assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, (name, error)
                assert "out of memory" in (error.details() or ""), error.details()
                reason, delay = _details(error)
                assert reason == "STORE_FULL" and delay is not None and 1.0 <= delay <= 10.0, (reason, delay)
                assert dict(error.trailing_metadata() or ()).get("grpc-retry-pushback-ms") == "-1"
                refusals.append(name)

            # reads still work, and health stays SERVING past the health monitor's two pings
            assert stub.GetGame(pb.GetGameRequest(game_id=game_id), timeout=10).view.game_id == game_id
            time.sleep(2.5)
            assert _health(server.address) == SERVING
            assert _store_full_total(server.metrics_port) == len(refusals)
            warnings = [json.loads(line) for line in server.log_text().splitlines()
                        if "game store out of memory" in line]
            assert [w["level"] for w in warnings] == ["WARNING"] * len(refusals)
            assert all("redis://" not in json.dumps(w) for w in warnings)

            limit.free()
            again = stub.CreateGame(create, timeout=10)
            assert again.game_id
            dealt = stub.Act(deal, metadata=auth(dealer), timeout=10)
            assert dealt.view.version == 2
            assert _store_full_total(server.metrics_port) == len(refusals)
    finally:
        limit.free()
        client.close()
