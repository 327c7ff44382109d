"""The HTTP port answers as the gRPC port does: one scenario through gRPC, Connect JSON, Connect
binary and gRPC-Web, compared call by call (status code, ErrorInfo reason, message, response).

The HTTP clients here frame requests and read answers by hand from the protocols' specifications
(connectrpc.com/docs/protocol, gRPC's PROTOCOL-WEB.md), independently of the server's library.
The API key (x-api-key) and seat tokens (authorization) travel as headers. Also: CORS preflights,
the web table's static files, gRPC refused on the HTTP port, and two worker processes sharing it.
"""

from __future__ import annotations

import base64
import http.client
import json
import re
import struct
import time
import urllib.parse
from dataclasses import dataclass, field

import grpc
import pytest
from google.protobuf import json_format
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2

from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from service.rpc.apikeys import key_hash
from testkit.launcher import ServerProcess
from tests.conftest import SERVER_TEST_FLAGS

SERVICE = "/cardgame.v1.GameService"
ALLOWED_ORIGIN = "http://table.example"
TIMEOUT_S = 10.0
MAX_FRAMES = 50
GAME_ID = re.compile(r"[0-9a-f]{24}")
INDEX_HTML = "<!doctype html><title>table</title>"
API_KEY = "http-transport-test.0123456789abcdefghijklmnopqrstuvwxyzABCDEFG"


@dataclass
class Outcome:
    """What a call came back with, in transport-neutral terms."""

    code: str  # "OK" or the status code's name, e.g. "FAILED_PRECONDITION"
    message: str = ""
    reason: str | None = None
    responses: list[Message] = field(default_factory=list)

    def normalized(self) -> tuple:
        """Comparable across games: game ids blanked out of messages and views."""
        views = []
        for response in self.responses:
            copy = type(response)()
            copy.CopyFrom(response)
            if copy.HasField("view"):
                copy.view.game_id = ""
            if isinstance(copy, pb.CreateGameResponse):
                copy.game_id = ""
                del copy.seat_tokens[:]
            views.append(copy.SerializeToString(deterministic=True))
        return self.code, GAME_ID.sub("<game>", self.message), self.reason, views


def _reason(status: status_pb2.Status) -> str | None:
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info.reason
    return None


class GrpcCaller:
    """The gRPC port, through the generated stub."""

    name = "grpc"

    def __init__(self, address: str):
        self.channel = grpc.insecure_channel(address)
        self.stub = pb_grpc.GameServiceStub(self.channel)

    def call(self, method: str, request: Message, headers: dict[str, str] | None = None,
             stream_count: int = 0) -> Outcome:
        metadata = list((headers or {}).items())
        try:
            if stream_count:
                call = getattr(self.stub, method)(request, metadata=metadata, timeout=TIMEOUT_S)
                received = []
                for response in call:
                    received.append(response)
                    if len(received) == stream_count:
                        call.cancel()
                        break
                return Outcome("OK", responses=received)
            return Outcome("OK", responses=[getattr(self.stub, method)(request, metadata=metadata, timeout=TIMEOUT_S)])
        except grpc.RpcError as exc:
            rich = status_pb2.Status()
            for key, value in exc.trailing_metadata() or ():
                if key == "grpc-status-details-bin":
                    rich.ParseFromString(value)
            return Outcome(exc.code().name, exc.details() or "", _reason(rich))

    def raw(self, method: str, body: bytes) -> Outcome:
        """Send ``body`` as the request's serialized bytes, whatever they are."""
        call = self.channel.unary_unary(f"{SERVICE}/{method}", request_serializer=None,
                                        response_deserializer=None)
        try:
            call(body, timeout=TIMEOUT_S)
            return Outcome("OK")
        except grpc.RpcError as exc:
            return Outcome(exc.code().name, exc.details() or "")

    def close(self) -> None:
        self.channel.close()


def _unpadded_b64decode(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4))


def _connect_error(error: dict) -> Outcome:
    code = error.get("code", "unknown").upper()
    rich = status_pb2.Status()
    for detail in error.get("details", ()):
        rich.details.add(type_url=f"type.googleapis.com/{detail['type']}", value=_unpadded_b64decode(detail["value"]))
    return Outcome("CANCELLED" if code == "CANCELED" else code, error.get("message", ""), _reason(rich))


def _envelope(flags: int, payload: bytes) -> bytes:
    return struct.pack(">BI", flags, len(payload)) + payload


def _frames(response: http.client.HTTPResponse, limit: int):
    """The (flags, payload) envelopes of a streaming body, at most ``limit`` of them."""
    for _ in range(limit):
        head = response.read(5)
        if len(head) < 5:
            return
        flags, size = struct.unpack(">BI", head)
        yield flags, response.read(size)


class HttpCaller:
    """The HTTP port in one of its protocols: Connect with JSON or binary, or gRPC-Web."""

    def __init__(self, port: int, protocol: str, codec: str):
        self.port, self.protocol, self.codec = port, protocol, codec
        self.name = f"{protocol}+{codec}"

    def _encode(self, request: Message) -> bytes:
        return json_format.MessageToJson(request).encode() if self.codec == "json" else request.SerializeToString()

    def _decode(self, data: bytes, cls: type[Message]) -> Message:
        if self.codec == "json":
            return json_format.Parse(data.decode(), cls())
        return cls.FromString(data)

    def _post(self, method: str, body: bytes, headers: dict[str, str]) -> tuple[http.client.HTTPConnection,
                                                                                 http.client.HTTPResponse]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT_S)
        connection.request("POST", f"{SERVICE}/{method}", body=body, headers=headers)
        return connection, connection.getresponse()

    def call(self, method: str, request: Message, headers: dict[str, str] | None = None,
             stream_count: int = 0) -> Outcome:
        cls = {"CreateGame": pb.CreateGameResponse, "GetGame": pb.GetGameResponse, "Deal": pb.DealResponse,
               "Play": pb.PlayResponse, "Act": pb.ActResponse, "WatchGame": pb.WatchGameResponse}[method]
        headers = dict(headers or {})
        if self.protocol == "grpc-web":
            return self._grpc_web(method, _envelope(0, self._encode(request)), cls, headers, stream_count)
        if stream_count:
            return self._connect_stream(method, request, cls, headers, stream_count)
        headers["content-type"] = f"application/{self.codec}"
        headers["connect-protocol-version"] = "1"
        connection, response = self._post(method, self._encode(request), headers)
        try:
            body = response.read()
            if response.status != 200:
                assert response.getheader("content-type") == "application/json", response.getheaders()
                return _connect_error(json.loads(body))
            return Outcome("OK", responses=[self._decode(body, cls)])
        finally:
            connection.close()

    def raw(self, method: str, body: bytes) -> Outcome:
        if self.protocol == "grpc-web":
            return self._grpc_web(method, _envelope(0, body), pb.GetGameResponse, {}, 0)
        headers = {"content-type": f"application/{self.codec}", "connect-protocol-version": "1"}
        connection, response = self._post(method, body, headers)
        try:
            data = response.read()
            return Outcome("OK") if response.status == 200 else _connect_error(json.loads(data))
        finally:
            connection.close()

    def _connect_stream(self, method: str, request: Message, cls: type[Message], headers: dict[str, str],
                        count: int) -> Outcome:
        headers["content-type"] = f"application/connect+{self.codec}"
        headers["connect-protocol-version"] = "1"
        connection, response = self._post(method, _envelope(0, self._encode(request)), headers)
        received: list[Message] = []
        try:
            assert response.status == 200, response.status
            for flags, payload in _frames(response, MAX_FRAMES):
                if flags & 0x02:  # end of stream: {"error": …, "metadata": …}
                    end = json.loads(payload or b"{}")
                    outcome = _connect_error(end["error"]) if "error" in end else Outcome("OK")
                    outcome.responses = received
                    return outcome
                received.append(self._decode(payload, cls))
                if len(received) == count:
                    return Outcome("OK", responses=received)
            raise AssertionError(f"the stream ended after {len(received)} messages without an end-stream message")
        finally:
            connection.close()

    def _grpc_web(self, method: str, body: bytes, cls: type[Message], headers: dict[str, str],
                  count: int) -> Outcome:
        headers["content-type"] = f"application/grpc-web+{self.codec}"
        headers["x-grpc-web"] = "1"
        connection, response = self._post(method, body, headers)
        received: list[Message] = []
        try:
            assert response.status == 200, response.status
            trailers = {k.lower(): v for k, v in response.getheaders()}  # a trailers-only answer
            if "grpc-status" not in trailers:
                for flags, payload in _frames(response, MAX_FRAMES):
                    if flags & 0x80:
                        lines = payload.decode().split("\r\n")
                        trailers = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines if x)}
                        break
                    received.append(self._decode(payload, cls))
                    if count and len(received) == count:
                        return Outcome("OK", responses=received)
            code = grpc.StatusCode.OK
            for status_code in grpc.StatusCode:
                if status_code.value[0] == int(trailers["grpc-status"]):
                    code = status_code
            if code is grpc.StatusCode.OK:
                return Outcome("OK", responses=received)
            rich = status_pb2.Status()
            if "grpc-status-details-bin" in trailers:
                rich.ParseFromString(_unpadded_b64decode(trailers["grpc-status-details-bin"]))
                assert rich.code == code.value[0] and rich.message == urllib.parse.unquote(trailers["grpc-message"])
            return Outcome(code.name, urllib.parse.unquote(trailers.get("grpc-message", "")), _reason(rich),
                           received)
        finally:
            connection.close()

    def close(self) -> None:
        pass


@pytest.fixture(scope="module")
def web_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("web-root")
    (root / "index.html").write_text(INDEX_HTML)
    (root / "assets").mkdir()
    (root / "assets" / "table.js").write_text("export const table = 1;\n")
    return root


@pytest.fixture(scope="module")
def http_server(redis_url, module_prefix, web_root):
    """A server with its HTTP port on, one CORS origin allowed, a web root of a test page, and an
    API key required for CreateGame."""
    server = ServerProcess(*SERVER_TEST_FLAGS, "--http-port", "0", "--cors-origin", ALLOWED_ORIGIN,
                           "--web-root", str(web_root), "--api-keys", f"http-transport-test:{key_hash(API_KEY)}",
                           redis_url=redis_url, prefix=module_prefix, env={"LOG_LEVEL": "INFO"})
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _callers(server) -> list:
    port = server.http_port
    return [GrpcCaller(server.address), HttpCaller(port, "connect", "json"), HttpCaller(port, "connect", "proto"),
            HttpCaller(port, "grpc-web", "proto")]


def _bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def _scenario(caller, run: int) -> list[tuple[str, tuple]]:
    """One game's calls through ``caller``: (step, normalized outcome) in order."""
    steps: list[tuple[str, tuple]] = []

    def step(name: str, outcome: Outcome, expect: str) -> Outcome:
        assert outcome.code == expect, f"{caller.name} {name}: {outcome}"
        steps.append((name, outcome.normalized()))
        return outcome

    seats = [pb.SeatConfig(name="Ana")] + [pb.SeatConfig(name=f"Bot {i}", kind=enums.PLAYER_KIND_BOT_BASIC)
                                          for i in (1, 2, 3)]
    create = pb.CreateGameRequest(variant=enums.VARIANT_BUCK_EUCHRE, seats=seats, first_dealer=0, shuffle_seed=7,
                                  request_id=f"http-transport-{run}-{caller.name}-{time.time_ns()}")
    step("create without the API key", caller.call("CreateGame", create), "UNAUTHENTICATED")
    step("create with a wrong API key", caller.call("CreateGame", create, {"x-api-key": API_KEY[:-1] + "!"}),
         "UNAUTHENTICATED")
    key = {"x-api-key": API_KEY}
    created = step("create", caller.call("CreateGame", create, key), "OK").responses[0]
    game_id, token = created.game_id, created.seat_tokens[0].token
    again = step("create again (same request id)", caller.call("CreateGame", create, key), "OK").responses[0]
    assert (again.game_id, again.seat_tokens[0].token) == (game_id, token), caller.name

    step("illegal move", caller.call("Play", pb.PlayRequest(game_id=game_id, request_id="p1", card="AS"),
                                     _bearer(token)), "FAILED_PRECONDITION")
    deal = pb.DealRequest(game_id=game_id, request_id=f"deal-{run}")
    dealt = step("legal move", caller.call("Deal", deal, _bearer(token)), "OK").responses[0]
    retried = step("retry (same request id)", caller.call("Deal", deal, _bearer(token)), "OK").responses[0]
    assert retried == dealt, caller.name
    step("retry as another seat", caller.call("Deal", deal), "PERMISSION_DENIED")
    step("unknown token", caller.call("GetGame", pb.GetGameRequest(game_id=game_id), _bearer("not-a-seat-token")),
         "UNAUTHENTICATED")
    step("malformed authorization", caller.call("GetGame", pb.GetGameRequest(game_id=game_id),
                                                {"authorization": "Basic abc"}), "UNAUTHENTICATED")
    step("bad game id", caller.call("GetGame", pb.GetGameRequest(game_id="nope")), "INVALID_ARGUMENT")
    step("no such game", caller.call("GetGame", pb.GetGameRequest(game_id="0" * 24)), "NOT_FOUND")
    step("undecodable body", caller.raw("GetGame", b"\x0a\xff"), "INVALID_ARGUMENT")
    view = step("seat view", caller.call("GetGame", pb.GetGameRequest(game_id=game_id), _bearer(token)),
                "OK").responses[0].view
    action = view.legal_actions[0].notation
    step("act", caller.call("Act", pb.ActRequest(game_id=game_id, request_id=f"act-{run}", action=action),
                            _bearer(token)), "OK")
    current = caller.call("GetGame", pb.GetGameRequest(game_id=game_id), _bearer(token)).responses[0].view.version
    # Every version after the first, from the seat's stream, then the stream is closed.
    step("watch", caller.call("WatchGame", pb.WatchGameRequest(game_id=game_id, from_version=1), _bearer(token),
                              stream_count=current - 1), "OK")
    step("watch ahead of the game", caller.call("WatchGame", pb.WatchGameRequest(game_id=game_id,
                                                                                 from_version=current + 5),
                                                stream_count=1), "INVALID_ARGUMENT")
    step("watch no such game", caller.call("WatchGame", pb.WatchGameRequest(game_id="0" * 24), stream_count=1),
         "NOT_FOUND")
    return steps


def test_every_transport_answers_the_same(http_server):
    callers = _callers(http_server)
    try:
        results = {caller.name: _scenario(caller, run) for run, caller in enumerate(callers)}
    finally:
        for caller in callers:
            caller.close()
    expected = results.pop("grpc")
    reasons = {name: outcome[2] for name, outcome in expected}
    assert reasons["illegal move"] == "WRONG_PHASE"
    assert "Bearer" in dict(expected)["malformed authorization"][1]
    watched = dict(expected)["watch"][3]
    assert len(watched) >= 2, "the watch saw fewer than two versions"
    for name, steps in results.items():
        assert [s for s, _ in steps] == [s for s, _ in expected]
        for (step, got), (_, want) in zip(steps, expected, strict=True):
            assert got == want, f"{name}, {step}: {got[:3]} != gRPC's {want[:3]}"


def test_a_stream_whose_client_leaves_ends_at_once(http_server):
    caller = HttpCaller(http_server.http_port, "connect", "json")
    seats = [pb.SeatConfig(name="Ana")] + [pb.SeatConfig(kind=enums.PLAYER_KIND_BOT_BASIC) for _ in range(3)]
    created = caller.call("CreateGame", pb.CreateGameRequest(variant=enums.VARIANT_BUCK_EUCHRE, seats=seats),
                          {"x-api-key": API_KEY}).responses[0]
    # One view, then the client goes while the stream waits for the next change (none comes).
    watched = caller.call("WatchGame", pb.WatchGameRequest(game_id=created.game_id), stream_count=1)
    assert watched.code == "OK" and len(watched.responses) == 1
    ended = f'"method": "WatchGame", "game_id": "{created.game_id}", "seat": null, "status": "CANCELLED"'
    deadline = time.monotonic() + 5
    while ended not in http_server.log_text():
        assert time.monotonic() < deadline, "the stream outlived its client"
        time.sleep(0.05)


def test_cors_preflight_and_headers(http_server):
    connection = http.client.HTTPConnection("127.0.0.1", http_server.http_port, timeout=TIMEOUT_S)
    try:
        connection.request("OPTIONS", f"{SERVICE}/GetGame", headers={
            "origin": ALLOWED_ORIGIN, "access-control-request-method": "POST",
            "access-control-request-headers": "authorization, x-api-key, content-type, connect-protocol-version"})
        preflight = connection.getresponse()
        preflight.read()
        assert preflight.status == 200
        assert preflight.getheader("access-control-allow-origin") == ALLOWED_ORIGIN
        allowed = {h.strip().lower() for h in preflight.getheader("access-control-allow-headers", "").split(",")}
        assert {"authorization", "x-api-key", "content-type", "connect-protocol-version", "x-grpc-web"} <= allowed

        connection.request("OPTIONS", f"{SERVICE}/GetGame", headers={
            "origin": "http://elsewhere.example", "access-control-request-method": "POST"})
        refused = connection.getresponse()
        refused.read()
        assert refused.status == 400
        assert refused.getheader("access-control-allow-origin") is None

        connection.request("POST", f"{SERVICE}/GetGame", body=b'{"gameId": "nope"}', headers={
            "origin": ALLOWED_ORIGIN, "content-type": "application/json"})
        answer = connection.getresponse()
        assert json.loads(answer.read())["code"] == "invalid_argument"
        assert answer.getheader("access-control-allow-origin") == ALLOWED_ORIGIN
        exposed = {h.strip().lower() for h in answer.getheader("access-control-expose-headers", "").split(",")}
        assert {"grpc-status", "grpc-message", "grpc-status-details-bin"} <= exposed
    finally:
        connection.close()


def test_web_table_files_and_grpc_refused(http_server):
    connection = http.client.HTTPConnection("127.0.0.1", http_server.http_port, timeout=TIMEOUT_S)
    try:
        for path, status, body in (("/", 200, INDEX_HTML), ("/assets/table.js", 200, "export const table = 1;\n"),
                                   ("/missing.js", 404, None), ("/../../etc/passwd", 404, None)):
            connection.request("GET", path)
            response = connection.getresponse()
            data = response.read().decode()
            assert response.status == status, path
            if body is not None:
                assert data == body
        connection.request("POST", f"{SERVICE}/GetGame", body=b"", headers={"content-type": "application/grpc"})
        refused = connection.getresponse()
        assert refused.status == 415 and "gRPC port" in refused.read().decode()
    finally:
        connection.close()


def test_workers_share_the_http_port(redis_url, module_prefix):
    server = ServerProcess(*SERVER_TEST_FLAGS, "--workers", "2", "--http-port", "0",
                           redis_url=redis_url, prefix=f"{module_prefix}-workers", env={"LOG_LEVEL": "INFO"})
    server.start()
    try:
        deadline = time.monotonic() + 20
        while server.log_text().count("HTTP (Connect, gRPC-Web, web table) listening") < 2:
            assert time.monotonic() < deadline, server.log_text()[-3000:]
            time.sleep(0.1)
        caller = HttpCaller(server.http_port, "connect", "json")
        for _ in range(10):  # new connections, spread over both workers by the kernel
            assert caller.call("GetGame", pb.GetGameRequest(game_id="0" * 24)).code == "NOT_FOUND"
        assert "exited" not in server.log_text()
    finally:
        assert server.stop() == 0
