"""The HTTP adapter in process: ASGI calls into the app, a servicer of the test's own, no sockets; and the
cap on calls in progress every call of a server is admitted under."""

from __future__ import annotations

import json
import struct

import grpc
import pytest
from connectrpc.code import Code
from connectrpc.errors import ConnectError

from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from service.errors import IllegalMove, to_status
from service.http.adapter import CallGate
from service.http.app import build_app
from service.rpc.calls import Call, CallCap, handled
from service.rpc.settings import Settings
from tests.support.calls import CallContext


class OneMethod(pb_grpc.GameServiceServicer):
    """Implements GetGame only: it echoes the call's metadata and peer, or aborts as asked."""

    calls = 0

    async def GetGame(self, request, context):
        OneMethod.calls += 1
        if request.game_id == "abort":
            await context.abort_with_status(to_status(IllegalMove("not now", "WRONG_PHASE")))
        seen = {"metadata": [list(kv) for kv in context.invocation_metadata()], "peer": context.peer(),
                "time_remaining": context.time_remaining()}
        return pb.GetGameResponse(view={"game_id": json.dumps(seen)})


async def _request(app, method: str, path: str, body: bytes,
                   headers: list[tuple[bytes, bytes]]) -> tuple[int, dict[bytes, bytes], bytes]:
    """One HTTP request through the ASGI app; returns the status, the response headers and the body."""
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
             "headers": headers, "client": ("127.0.0.1", 40000), "server": ("127.0.0.1", 8080)}
    sent = [{"type": "http.request", "body": body, "more_body": False}]
    out: list[dict] = []

    async def receive():
        return sent.pop(0) if sent else {"type": "http.disconnect"}

    async def send(message):
        out.append(message)

    await app(scope, receive, send)
    start = next(m for m in out if m["type"] == "http.response.start")
    return (start["status"], dict(start.get("headers", ())),
            b"".join(m.get("body", b"") for m in out if m["type"] == "http.response.body"))


async def _post(app, path: str, body: bytes, headers: list[tuple[bytes, bytes]]) -> tuple[int, bytes]:
    """One POST through the ASGI app; returns the status and the body."""
    status, _, answer = await _request(app, "POST", path, body, headers)
    return status, answer


JSON = [(b"content-type", b"application/json"), (b"connect-protocol-version", b"1")]


async def test_headers_reach_the_servicer_as_lowercased_metadata():
    app = build_app(OneMethod())
    status, body = await _post(app, "/cardgame.v1.GameService/GetGame", b'{"gameId": "x"}',
                               JSON + [(b"authorization", b"Bearer abc"), (b"x-api-key", b"k.1"),
                                       (b"connect-timeout-ms", b"5000")])
    assert status == 200, body
    seen = json.loads(json.loads(body)["view"]["gameId"])
    metadata = dict(seen["metadata"])
    assert metadata["authorization"] == "Bearer abc" and metadata["x-api-key"] == "k.1"
    assert all(key == key.lower() for key in metadata)
    assert seen["peer"] == "http:127.0.0.1:40000"
    assert 0 < seen["time_remaining"] <= 5


async def test_an_abort_is_the_connect_error_of_the_same_status():
    status, body = await _post(build_app(OneMethod()), "/cardgame.v1.GameService/GetGame", b'{"gameId": "abort"}',
                               JSON)
    error = json.loads(body)
    assert status == 400  # Connect's HTTP status for FAILED_PRECONDITION
    assert (error["code"], error["message"]) == ("failed_precondition", "not now")
    assert [d["type"] for d in error["details"]] == ["google.rpc.ErrorInfo"]


async def test_a_method_the_servicer_lacks_is_unimplemented_as_on_grpc():
    for method, content_type in (("Deal", b"application/json"), ("WatchGame", b"application/connect+json")):
        body = b'{}' if content_type == b"application/json" else b"\x00\x00\x00\x00\x02{}"
        status, answer = await _post(build_app(OneMethod()), f"/cardgame.v1.GameService/{method}", body,
                                     [(b"content-type", content_type), (b"connect-protocol-version", b"1")])
        assert b"unimplemented" in answer and b"Method not implemented!" in answer, (method, status, answer)


async def test_the_call_gate_without_a_wait_refuses_beyond_its_cap_at_once():
    gate = CallGate(1)
    async with gate.admit():
        with pytest.raises(ConnectError) as refused:
            async with gate.admit():
                pytest.fail("admitted beyond the cap")
        assert refused.value.code is Code.RESOURCE_EXHAUSTED
        assert "at most 1 calls at once over HTTP;" in refused.value.message
    async with gate.admit():
        assert gate.active == 1
    assert gate.active == 0


async def test_grpc_itself_is_sent_to_the_grpc_port():
    status, body = await _post(build_app(OneMethod()), "/cardgame.v1.GameService/GetGame", b"",
                               [(b"content-type", b"application/grpc")])
    assert status == 415 and b"gRPC port" in body


BAD_HEADERS = ((b"authorization", b"Bearer \xff"), (b"x-api-key", b"\xfe"), (b"x-odd", b"caf\xe9"),
               (b"x-\xff", b"v"), (b"cookie", b"a=\xc3\x28"))


async def test_header_bytes_that_are_not_utf8_are_refused_before_the_servicer(tmp_path):
    (tmp_path / "index.html").write_text("<title>table</title>")
    app = build_app(OneMethod(), web_root=str(tmp_path))
    envelope = struct.pack(">BI", 0, 2) + b"{}"
    OneMethod.calls = 0
    for name, value in BAD_HEADERS:
        # Connect unary: the Connect error of INVALID_ARGUMENT (HTTP 400), naming the header.
        status, headers, body = await _request(app, "POST", "/cardgame.v1.GameService/GetGame", b'{"gameId": "x"}',
                                               JSON + [(name, value)])
        error = json.loads(body)
        assert (status, error["code"]) == (400, "invalid_argument"), (name, status, body)
        assert "not valid UTF-8" in error["message"] and headers[b"content-type"] == b"application/json"
        # A Connect server stream (WatchGame): HTTP 200 and an end-of-stream message with the error.
        status, _, body = await _request(app, "POST", "/cardgame.v1.GameService/WatchGame", envelope,
                                         [(b"content-type", b"application/connect+json"),
                                          (b"connect-protocol-version", b"1"), (name, value)])
        flags, size = struct.unpack(">BI", body[:5])
        assert (status, flags) == (200, 0x02) and len(body) == 5 + size, (name, status, body)
        assert json.loads(body[5:])["error"]["code"] == "invalid_argument"
        # gRPC-Web: HTTP 200 and status 3 (INVALID_ARGUMENT) in the trailer frame, the only one.
        status, _, body = await _request(app, "POST", "/cardgame.v1.GameService/GetGame", struct.pack(">BI", 0, 0),
                                         [(b"content-type", b"application/grpc-web+proto"), (b"x-grpc-web", b"1"),
                                          (name, value)])
        flags, size = struct.unpack(">BI", body[:5])
        assert (status, flags) == (200, 0x80) and len(body) == 5 + size, (name, status, body)
        trailers = dict(line.split(": ", 1) for line in body[5:].decode().split("\r\n") if line)
        assert trailers["grpc-status"] == "3" and "not%20valid%20UTF-8" in trailers["grpc-message"], trailers
        # The web table's files: a plain 400.
        status, headers, body = await _request(app, "GET", "/", b"", [(name, value)])
        assert status == 400 and b"UTF-8" in body and headers[b"content-type"].startswith(b"text/plain"), name
    assert OneMethod.calls == 0
    # The same requests with well-formed headers (UTF-8 beyond ASCII included) are served.
    status, _, _ = await _request(app, "GET", "/", b"", [(b"x-odd", "café".encode())])
    assert status == 200
    status, _ = await _post(app, "/cardgame.v1.GameService/GetGame", b'{"gameId": "x"}',
                            JSON + [(b"x-odd", "café".encode())])
    assert status == 200 and OneMethod.calls == 1


async def test_each_server_caps_its_own_calls():
    """Two servers in one process: the one at its cap refuses with RESOURCE_EXHAUSTED and RetryInfo,
    the other still admits, and a call that ends frees its place."""
    full, other = Settings(call_cap=CallCap(1)), Settings(call_cap=CallCap(1))
    assert Settings().call_cap is not Settings().call_cap and Settings().call_cap.limit is None
    async with handled("GetGame", Call(), CallContext(), full.call_cap):
        refused = CallContext()
        with pytest.raises(grpc.aio.AbortError):
            async with handled("GetGame", Call(), refused, full.call_cap):
                pytest.fail("admitted beyond the cap")
        assert refused.status.code == grpc.StatusCode.RESOURCE_EXHAUSTED and "at most 1 calls" in refused.status.details
        assert any(key == "grpc-status-details-bin" for key, _ in refused.status.trailing_metadata)
        async with handled("GetGame", Call(), CallContext(), other.call_cap):
            assert (full.call_cap.active, other.call_cap.active) == (1, 1)
    assert (full.call_cap.active, other.call_cap.active) == (0, 0)
    async with handled("GetGame", Call(), CallContext(), full.call_cap):
        assert full.call_cap.active == 1


def test_the_http_ports_gzip_is_the_same_bytes_whenever_it_is_sent():
    """A retried request's answer is the first answer byte for byte: gzip writes no time."""
    import time

    from service.http.app import StableGzip

    body = b"the same view" * 50
    first = StableGzip().compress(body)
    time.sleep(1.1)   # gzip's default header carries the current second
    assert StableGzip().compress(body) == first and first[4:8] == b"\0\0\0\0"
    assert StableGzip().decompress(first) == body
