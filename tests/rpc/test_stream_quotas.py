"""The quotas of an API key's WatchEvents streams in one server process, through real channels
against real Redis: the streams a key holds open at once (--max-event-streams-per-key; past it
RESOURCE_EXHAUSTED, reason STREAM_QUOTA, with a QuotaFailure naming the key, and closing a stream
frees its place, another key not affected) and the bytes of events its streams are sent a minute
(--max-event-bytes-per-key-per-minute; past it the stream ends RESOURCE_EXHAUSTED, reason
EVENT_BYTES_QUOTA, with a QuotaFailure and a RetryInfo until the minute is over)."""

from __future__ import annotations

import time

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from cardgame.v1 import game_service_pb2 as pb
from service.errors import QuotaExceeded
from service.rpc import apikeys
from service.rpc.stream_gate import KeyBytes
from tests.rpc.conftest import instances, stubs_of

CAP = 2
KEYS = {name: apikeys.new_key(f"streams-{name}") for name in ("full", "other", "bytes")}
ENV = {"CARDGAME_API_KEYS": ",".join(entry for _, entry in KEYS.values())}
BYTES = 1   # so small that the first event uses it up


def key(name: str) -> list[tuple[str, str]]:
    return [("x-api-key", KEYS[name][0])]


@pytest.fixture(scope="module")
def stub(redis_url: str, module_prefix: str):
    with instances(1, "--max-event-streams-per-key", str(CAP), redis_url=redis_url, prefix=module_prefix,
                   env=ENV) as servers, stubs_of(servers) as stubs:
        yield stubs[0]


@pytest.fixture(scope="module")
def metered(redis_url: str, module_prefix: str):
    with instances(1, "--max-event-bytes-per-key-per-minute", str(BYTES), redis_url=redis_url,
                   prefix=f"{module_prefix}-bytes", env=ENV) as servers, stubs_of(servers) as stubs:
        yield stubs[0]


def new_event(stub, name: str) -> str:
    """A game of the key created and deleted: one event (DELETE) in the key's stream."""
    seats = [pb.SeatConfig(name=f"P{i}") for i in range(4)]
    game_id = stub.CreateGame(pb.CreateGameRequest(variant_name="hearts", seats=seats), metadata=key(name),
                              timeout=10).game_id
    stub.DeleteGame(pb.DeleteGameRequest(game_id=game_id), metadata=key(name), timeout=10)
    return game_id


def opened(stub, name: str):
    """A WatchEvents stream of the key, once the server admitted it (its first event is in)."""
    call = stub.WatchEvents(pb.WatchEventsRequest(), metadata=key(name), timeout=30)
    next(call)
    return call


def details(error: grpc.RpcError) -> tuple[str, list[tuple[str, str]], float | None]:
    """The refusal's ErrorInfo reason, QuotaFailure violations and RetryInfo delay (None: none)."""
    assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED, error
    status = rpc_status.from_call(error)
    assert status is not None
    info, failure, retry = error_details_pb2.ErrorInfo(), error_details_pb2.QuotaFailure(), None
    for detail in status.details:
        if detail.Is(info.DESCRIPTOR):
            detail.Unpack(info)
        elif detail.Is(failure.DESCRIPTOR):
            detail.Unpack(failure)
        elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            unpacked = error_details_pb2.RetryInfo()
            detail.Unpack(unpacked)
            retry = unpacked.retry_delay.ToNanoseconds() / 1e9
    return info.reason, [(v.subject, v.description) for v in failure.violations], retry


def refused(stub, name: str) -> grpc.RpcError:
    call = stub.WatchEvents(pb.WatchEventsRequest(), metadata=key(name), timeout=30)
    with pytest.raises(grpc.RpcError) as caught:
        next(call)
    return caught.value


def test_streams_beyond_the_cap_are_refused_until_one_closes(stub) -> None:
    new_event(stub, "full")
    new_event(stub, "other")
    streams = [opened(stub, "full") for _ in range(CAP)]
    try:
        error = refused(stub, "full")
        assert details(error) == ("STREAM_QUOTA", [("streams-full", f"at most {CAP} open WatchEvents streams per "
                                                                    "API key and server process")], None)
        assert dict(error.trailing_metadata() or ()).get("grpc-retry-pushback-ms") == "-1"
        others = [opened(stub, "other") for _ in range(CAP)]   # another key: its own cap
        others.append(stub.WatchEvents(pb.WatchEventsRequest(), metadata=key("other"), timeout=30))
        with pytest.raises(grpc.RpcError):
            next(others[-1])
        for call in others:
            call.cancel()
        streams.pop().cancel()
        deadline = time.monotonic() + 10
        while True:   # the server lets the cancelled stream's place go as soon as it hears of it
            try:
                streams.append(opened(stub, "full"))
                break
            except grpc.RpcError as exc:
                assert details(exc)[0] == "STREAM_QUOTA" and time.monotonic() < deadline, exc
                time.sleep(0.05)
        assert details(refused(stub, "full"))[0] == "STREAM_QUOTA"
    finally:
        for call in streams:
            call.cancel()


def test_a_stream_past_the_bytes_a_minute_ends_with_a_retry_delay(metered) -> None:
    made = [new_event(metered, "bytes") for _ in range(2)]
    call = metered.WatchEvents(pb.WatchEventsRequest(), metadata=key("bytes"), timeout=30)
    first = next(call)   # the window's first message goes, whatever its size
    assert first.event.game_id == made[0]
    with pytest.raises(grpc.RpcError) as ended:
        next(call)
    description = f"at most {BYTES} bytes of WatchEvents a minute per API key and server process"
    reason, violations, retry = details(ended.value)
    assert (reason, violations) == ("EVENT_BYTES_QUOTA", [("streams-bytes", description)])
    assert retry is not None and 0 < retry <= 60
    reason, violations, again = details(refused(metered, "bytes"))   # a new stream before the minute is over
    assert (reason, violations) == ("EVENT_BYTES_QUOTA", [("streams-bytes", description)])
    assert again is not None and 0 < again <= retry
    assert dict(ended.value.trailing_metadata() or ()).get("grpc-retry-pushback-ms") == "-1"   # a wait > 2 s
    new_event(metered, "other")
    opened(metered, "other").cancel()   # another key has bytes of its own


def test_the_bytes_window_frees_with_time_and_forgets_idle_keys() -> None:
    now = [0.0]
    meter = KeyBytes(100, window_s=60, clock=lambda: now[0])
    meter.charge("a", 60)
    meter.charge("a", 60)   # crosses the limit: still sent
    now[0] = 45.0
    with pytest.raises(QuotaExceeded) as refused:
        meter.charge("a", 1)
    assert refused.value.reason == "EVENT_BYTES_QUOTA" and refused.value.retry_delay_s == pytest.approx(15)
    meter.charge("b", 1)   # another key: a window of its own
    now[0] = 60.0
    meter.charge("a", 99)   # a's window is over: a new one
    now[0] = 150.0
    meter.charge("c", 1)   # the sweep drops the keys whose window is over (a at 120, b at 105)
    assert len(meter) == 1
    assert KeyBytes(0).charge("a", 10**12) is None   # 0: no cap
