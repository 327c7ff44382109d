"""The games an API key may hold at once (--max-games-per-key), through real channels against real
Redis: CreateGame and Rematch beyond the cap are refused with RESOURCE_EXHAUSTED, reason GAME_QUOTA
and a QuotaFailure naming the key; deleting a game frees a place, expired games free theirs, another
key is not affected, and the index of a key whose games all expired leaves no key behind."""

from __future__ import annotations

import time

import grpc
import pytest
import redis
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from cardgame.v1 import game_service_pb2 as pb
from service.rpc import apikeys
from tests.rpc.conftest import instances, stubs_of

CAP = 3
KEYS = {name: apikeys.new_key(f"quota-{name}") for name in ("full", "other", "rematch", "expiring")}
ENV = {"CARDGAME_API_KEYS": ",".join(entry for _, entry in KEYS.values()), "MAX_GAMES_PER_KEY": str(CAP)}
TTL_S = 1   # the idle and finished TTL of the expiring server's games


def key(name: str) -> list[tuple[str, str]]:
    return [("x-api-key", KEYS[name][0])]


@pytest.fixture(scope="module")
def stub(redis_url: str, module_prefix: str):
    with instances(1, redis_url=redis_url, prefix=module_prefix, env=ENV) as servers, stubs_of(servers) as stubs:
        yield stubs[0]


@pytest.fixture(scope="module")
def expiring(redis_url: str, module_prefix: str):
    """A server whose games expire a second after their last change, and its prefix."""
    prefix = f"{module_prefix}-expiring"
    with instances(1, "--idle-ttl", str(TTL_S), "--finished-ttl", str(TTL_S), redis_url=redis_url, prefix=prefix,
                   env=ENV) as servers, stubs_of(servers) as stubs:
        yield stubs[0], prefix


def new_game(stub, name: str) -> pb.CreateGameResponse:
    seats = [pb.SeatConfig(name=f"P{i}") for i in range(4)]
    return stub.CreateGame(pb.CreateGameRequest(variant_name="hearts", seats=seats), metadata=key(name), timeout=10)


def assert_quota_refusal(error: grpc.RpcError, name: str) -> None:
    """The refusal of a game beyond the cap: its code, ErrorInfo reason and QuotaFailure."""
    assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED, error
    status = rpc_status.from_call(error)
    assert status is not None
    infos, failures = error_details_pb2.ErrorInfo(), error_details_pb2.QuotaFailure()
    kinds = {detail.type_url.rsplit("/", 1)[-1] for detail in status.details}
    assert "google.rpc.RetryInfo" not in kinds   # waiting does not help: deleting games does
    for detail in status.details:
        if detail.Is(infos.DESCRIPTOR):
            detail.Unpack(infos)
        elif detail.Is(failures.DESCRIPTOR):
            detail.Unpack(failures)
    assert infos.reason == "GAME_QUOTA"
    assert [(v.subject, v.description) for v in failures.violations] == \
        [(f"quota-{name}", f"at most {CAP} games held at once per API key")]
    assert dict(error.trailing_metadata() or ()).get("grpc-retry-pushback-ms") == "-1"


def listed(stub, name: str) -> set[str]:
    page = stub.ListGames(pb.ListGamesRequest(page_size=100), metadata=key(name), timeout=10)
    return {game.game_id for game in page.games}


def test_games_beyond_the_cap_are_refused_until_one_is_deleted(stub) -> None:
    made = [new_game(stub, "full").game_id for _ in range(CAP)]
    with pytest.raises(grpc.RpcError) as refused:
        new_game(stub, "full")
    assert_quota_refusal(refused.value, "full")
    assert listed(stub, "full") == set(made)
    assert {new_game(stub, "other").game_id for _ in range(CAP)} == listed(stub, "other")  # another key: its own cap
    stub.DeleteGame(pb.DeleteGameRequest(game_id=made[0]), metadata=key("full"), timeout=10)
    again = new_game(stub, "full").game_id   # the deleted game's place is free
    assert listed(stub, "full") == {*made[1:], again}
    with pytest.raises(grpc.RpcError) as refused:
        new_game(stub, "full")
    assert_quota_refusal(refused.value, "full")


def test_a_rematch_beyond_the_cap_is_refused(stub) -> None:
    made = [new_game(stub, "rematch").game_id for _ in range(CAP)]
    with pytest.raises(grpc.RpcError) as refused:
        stub.Rematch(pb.RematchRequest(game_id=made[0]), metadata=key("rematch"), timeout=10)
    assert_quota_refusal(refused.value, "rematch")
    stub.DeleteGame(pb.DeleteGameRequest(game_id=made[0]), metadata=key("rematch"), timeout=10)
    rematch = stub.Rematch(pb.RematchRequest(game_id=made[1]), metadata=key("rematch"), timeout=10)
    assert listed(stub, "rematch") == {*made[1:], rematch.game_id}


def owner_keys(redis_url: str, prefix: str, owner: str) -> dict[str, int]:
    """Every key of the prefix under the owner's hash tag, with its TTL in ms (-1: none)."""
    client = redis.Redis.from_url(redis_url)
    try:
        found = [k.decode() for k in client.scan_iter(match=f"{prefix}:*", count=1000)]
        return {k: client.pttl(k) for k in found if f"{{{owner}}}" in k or k.endswith(f":{owner}")}
    finally:
        client.close()


def test_expired_games_free_their_places_and_leave_no_index(expiring, redis_url: str) -> None:
    stub, prefix = expiring
    owner = "quota-expiring"
    for _ in range(CAP):
        new_game(stub, "expiring")
    assert any(":idx:" in k for k in owner_keys(redis_url, prefix, owner))
    time.sleep(TTL_S + 0.5)
    fresh = new_game(stub, "expiring").game_id   # at the cap: the index is swept of the expired games
    assert listed(stub, "expiring") == {fresh}
    time.sleep(TTL_S + 0.5)
    assert listed(stub, "expiring") == set()   # the listing prunes the expired game's entry
    left = owner_keys(redis_url, prefix, owner)
    assert not [k for k in left if ":idx:" in k], left
    assert not [k for k, ttl in left.items() if ttl < 0], left   # whatever else is left expires
