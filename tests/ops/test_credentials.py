"""Credentials through real channels and real Redis: API keys, the CreateGame rate limit, and
seat tokens that nothing in Redis lets anyone derive."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import grpc
import pytest
import redis
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from service.rpc import apikeys
from testkit.launcher import TEST_TOKEN_SECRET, ServerProcess
from tests.conftest import SERVER_TEST_FLAGS
from tests.support.players import auth, create, tokens_of

ROOT = Path(__file__).resolve().parents[2]
KEY_A, ENTRY_A = apikeys.new_key("backend-a")
KEY_A2, ENTRY_A2 = apikeys.new_key("backend-a")  # the same caller's next key, during a rotation
KEY_B, ENTRY_B = apikeys.new_key("backend-b")


def key(value: str) -> list[tuple[str, str]]:
    return [("x-api-key", value)]


def details(error: grpc.RpcError) -> list:
    """The google.rpc details of a failed call, unpacked."""
    found = []
    for detail in rpc_status.from_call(error).details:
        for cls in (error_details_pb2.ErrorInfo, error_details_pb2.RetryInfo):
            if detail.Is(cls.DESCRIPTOR):
                message = cls()
                detail.Unpack(message)
                found.append(message)
    return found


@pytest.fixture(scope="module")
def keyed_server(redis_url: str, module_prefix: str):
    """A server that requires API keys and lets each key create 2 games at once, then 1 a second."""
    proc = ServerProcess(*SERVER_TEST_FLAGS, "--create-rate", "1", "--create-burst", "2", redis_url=redis_url,
                         prefix=module_prefix, env={"CARDGAME_API_KEYS": f"{ENTRY_A},{ENTRY_A2} {ENTRY_B}"})
    proc.start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def keyed_stub(keyed_server):
    with grpc.insecure_channel(keyed_server.address) as channel:
        yield pb_grpc.GameServiceStub(channel)


def _request(request_id: str = "") -> pb.CreateGameRequest:
    return pb.CreateGameRequest(variant_name="buck_euchre", first_dealer=0, request_id=request_id,
                                seats=[pb.SeatConfig(name=f"P{i}") for i in range(4)])


def _create_within_limit(stub, api_key: str, request: pb.CreateGameRequest) -> pb.CreateGameResponse:
    """CreateGame, waiting out the rate limit as its RetryInfo says (bounded)."""
    for _ in range(10):
        try:
            return stub.CreateGame(request, metadata=key(api_key), timeout=10)
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                raise
            time.sleep(next(d for d in details(exc) if isinstance(d, error_details_pb2.RetryInfo))
                       .retry_delay.ToTimedelta().total_seconds())
    raise AssertionError("the rate limit never let the call through")


def test_create_game_needs_a_valid_api_key_and_moves_need_only_seat_tokens(keyed_stub):
    for metadata, message in (([], "needs an API key"), (key("backend-a.wrong"), "not valid"),
                              (key(KEY_A + "x"), "not valid"), (auth("some-seat-token"), "needs an API key")):
        with pytest.raises(grpc.RpcError) as refused:
            keyed_stub.CreateGame(_request(), metadata=metadata, timeout=10)
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED and message in refused.value.details()
    created = _create_within_limit(keyed_stub, KEY_A2, _request())  # either key of a rotation works
    dealt = keyed_stub.Act(pb.ActRequest(game_id=created.game_id, action="deal"),
                           metadata=auth(tokens_of(created)[0]), timeout=10)
    assert dealt.view.version == 2
    seen = keyed_stub.GetGame(pb.GetGameRequest(game_id=created.game_id), timeout=10)
    assert seen.view.version == 2  # spectators and seats need no API key


def test_each_key_is_rate_limited_on_its_own_with_the_delay_in_retry_info(keyed_stub):
    time.sleep(2.1)  # both keys' buckets full again after the other tests
    for _ in range(2):
        keyed_stub.CreateGame(_request(), metadata=key(KEY_A), timeout=10)
    with pytest.raises(grpc.RpcError) as limited:
        keyed_stub.CreateGame(_request(), metadata=key(KEY_A2), timeout=10)  # the same caller's bucket
    assert limited.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    info, retry = details(limited.value)
    assert info.reason == "RATE_LIMITED" and 0 < retry.retry_delay.ToTimedelta().total_seconds() <= 1.0
    keyed_stub.CreateGame(_request(), metadata=key(KEY_B), timeout=10)  # another caller is not held up
    time.sleep(retry.retry_delay.ToTimedelta().total_seconds())
    keyed_stub.CreateGame(_request(), metadata=key(KEY_A), timeout=10)


def test_a_request_id_names_a_game_of_its_caller_only(keyed_stub):
    time.sleep(2.1)
    request = _request("1")
    first = _create_within_limit(keyed_stub, KEY_A, request)
    again = _create_within_limit(keyed_stub, KEY_A2, request)  # the same caller retries with its new key
    assert again.game_id == first.game_id and tokens_of(again) == tokens_of(first)
    other = _create_within_limit(keyed_stub, KEY_B, request)  # another backend happens to use "1" too
    assert other.game_id != first.game_id and set(tokens_of(other).values()).isdisjoint(tokens_of(first).values())
    for _ in range(4):  # retries are answered from the record, not charged to the rate limit
        assert keyed_stub.CreateGame(request, metadata=key(KEY_A), timeout=10).game_id == first.game_id


def test_nothing_in_redis_derives_a_seat_token(server, stub, redis_url: str, module_prefix: str):
    request_id = uuid.uuid4().hex
    created = create(stub, "spades", first_dealer=0, request_id=request_id)
    tokens = tokens_of(created)
    assert all(len(t) == 32 for t in tokens.values())  # 192 bits, URL-safe base64
    client = redis.Redis.from_url(redis_url)
    try:
        game_keys = list(client.scan_iter(match=f"{module_prefix}:{{{created.game_id}}}:*"))
        stored = b"".join(b"".join(client.lrange(name, 0, -1)) if client.type(name) == b"list"
                          else b"".join(client.hgetall(name).values()) for name in game_keys)
        retry = client.lrange(f"{module_prefix}:{{{created.game_id}}}:req", 0, -1)
    finally:
        client.close()
    assert stored and not any(t.encode() in stored for t in tokens.values())
    assert retry[0] == f"r{request_id}".encode()
    # d<ms> <fingerprint> <seat> <version> <deadline, presence, leaver>: no key material
    assert len(retry[1].split(b" ")) == 5
    # A server with another token secret on the same Redis cannot even find the game: the id of a
    # game made with a request id is an HMAC under the secret, so it makes another game.
    other = ServerProcess(*SERVER_TEST_FLAGS, redis_url=redis_url, prefix=module_prefix,
                          env={"CARDGAME_TOKEN_SECRET": "another-secret-of-at-least-thirty-two-bytes"})
    other.start()
    try:
        with grpc.insecure_channel(other.address) as channel:
            elsewhere = create(pb_grpc.GameServiceStub(channel), "spades", first_dealer=0, request_id=request_id)
    finally:
        other.stop()
    assert elsewhere.game_id != created.game_id
    assert not set(tokens_of(elsewhere).values()) & set(tokens.values())
    again = create(stub, "spades", first_dealer=0, request_id=request_id)
    assert tokens_of(again) == tokens  # the right secret still answers the retry


def test_a_redis_store_without_a_token_secret_refuses_to_start(redis_url: str):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARDGAME_TOKEN_SECRET")}
    started = subprocess.run([sys.executable, "-m", "service", "--host", "127.0.0.1", "--port", "0",
                              "--redis-url", redis_url], capture_output=True, text=True, timeout=30, cwd=ROOT, env=env)
    assert started.returncode != 0 and "needs a token secret" in started.stderr
    short = subprocess.run([sys.executable, "-m", "service", "--token-secret", "short", "--port", "0"],
                           capture_output=True, text=True, timeout=30, cwd=ROOT, env=env)
    assert short.returncode == 2 and "at least 32 bytes" in short.stderr


def test_the_python_client_sends_its_api_key_and_waits_as_retry_info_says(keyed_server):
    from cardgame import errors
    from cardgame.client import GameClient

    time.sleep(2.1)
    with GameClient(keyed_server.address, api_key=KEY_B) as client:
        started = time.monotonic()
        games = [client.create_game("buck-euchre", ["A", "B", "C", "D"]) for _ in range(3)]
        assert len({g.game_id for g in games}) == 3 and time.monotonic() - started >= 0.5  # the third one waited
    with GameClient(keyed_server.address) as anonymous, pytest.raises(errors.Unauthenticated):
        anonymous.create_game("buck-euchre", ["A", "B", "C", "D"])


def _reissue(stub, game_id: str, seat: int, request_id: str) -> str:
    return stub.ReissueSeatToken(pb.ReissueSeatTokenRequest(game_id=game_id, seat=seat, request_id=request_id),
                                 timeout=10).seat_token.token


def test_a_rotated_token_secret_still_answers_retries_made_under_the_previous_one(
        server, stub, redis_url: str, module_prefix: str):
    created_id, reissued_id, reissue_id = (uuid.uuid4().hex for _ in range(3))
    first = create(stub, "spades", first_dealer=0, request_id=created_id)
    other = create(stub, "spades", first_dealer=0, request_id=reissued_id)
    token = _reissue(stub, other.game_id, 1, reissue_id)
    rotated = ServerProcess(*SERVER_TEST_FLAGS, redis_url=redis_url, prefix=module_prefix,
                            env={"CARDGAME_TOKEN_SECRET": "the-new-token-secret-of-at-least-thirty-two-bytes",
                                 "CARDGAME_TOKEN_SECRET_PREVIOUS": TEST_TOKEN_SECRET})
    rotated.start()
    try:
        with grpc.insecure_channel(rotated.address) as channel:
            new = pb_grpc.GameServiceStub(channel)
            # Retries of what the previous secret derived get the same tokens from the new server...
            again = create(new, "spades", first_dealer=0, request_id=created_id)
            assert tokens_of(again) == tokens_of(first)
            assert _reissue(new, other.game_id, 1, reissue_id) == token
            # ... while what it derives now comes from the new secret, which the old server lacks.
            made_id = uuid.uuid4().hex
            made = create(new, "spades", first_dealer=0, request_id=made_id)
            later_id = uuid.uuid4().hex
            later = _reissue(new, first.game_id, 2, later_id)
            assert _reissue(new, first.game_id, 2, later_id) == later
            with pytest.raises(grpc.RpcError) as refused:
                _reissue(stub, first.game_id, 2, later_id)
            assert details(refused.value)[0].reason == "TOKEN_SECRET_CHANGED"
            # A reissue retried after a newer reissue of the seat cannot give its token back.
            _reissue(new, other.game_id, 1, uuid.uuid4().hex)
            with pytest.raises(grpc.RpcError) as replaced:
                _reissue(new, other.game_id, 1, reissue_id)
            assert details(replaced.value)[0].reason == "TOKEN_REISSUED"
    finally:
        rotated.stop()
    # The old server, without the new secret, neither finds nor can compute the new server's game.
    made_again = create(stub, "spades", first_dealer=0, request_id=made_id)
    assert made_again.game_id != made.game_id
