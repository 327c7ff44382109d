"""The HTTP adapter in process: ASGI calls into the app, a servicer of the test's own, no sockets."""

from __future__ import annotations

import json

import pytest
from connectrpc.code import Code
from connectrpc.errors import ConnectError

from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from service.errors import IllegalMove, to_status
from service.http.adapter import CallGate
from service.http.app import build_app


class OneMethod(pb_grpc.GameServiceServicer):
    """Implements GetGame only: it echoes the call's metadata and peer, or aborts as asked."""

    async def GetGame(self, request, context):
        if request.game_id == "abort":
            await context.abort_with_status(to_status(IllegalMove("not now", "WRONG_PHASE")))
        seen = {"metadata": [list(kv) for kv in context.invocation_metadata()], "peer": context.peer(),
                "time_remaining": context.time_remaining()}
        return pb.GetGameResponse(view={"game_id": json.dumps(seen)})


async def _post(app, path: str, body: bytes, headers: list[tuple[bytes, bytes]]) -> tuple[int, bytes]:
    """One HTTP request through the ASGI app; returns the status and the body."""
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
             "headers": headers, "client": ("127.0.0.1", 40000), "server": ("127.0.0.1", 8080)}
    sent = [{"type": "http.request", "body": body, "more_body": False}]
    out: list[dict] = []

    async def receive():
        return sent.pop(0) if sent else {"type": "http.disconnect"}

    async def send(message):
        out.append(message)

    await app(scope, receive, send)
    status = next(m["status"] for m in out if m["type"] == "http.response.start")
    return status, b"".join(m.get("body", b"") for m in out if m["type"] == "http.response.body")


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


def test_the_call_gate_refuses_beyond_its_cap():
    gate = CallGate(1)
    with gate.enter():
        with pytest.raises(ConnectError) as refused, gate.enter():
            pass
        assert refused.value.code is Code.RESOURCE_EXHAUSTED
    with gate.enter():
        assert gate.active == 1
    assert gate.active == 0


async def test_grpc_itself_is_sent_to_the_grpc_port():
    status, body = await _post(build_app(OneMethod()), "/cardgame.v1.GameService/GetGame", b"",
                               [(b"content-type", b"application/grpc")])
    assert status == 415 and b"gRPC port" in body
