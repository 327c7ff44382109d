"""The HTTP port's edge, on a real server over loopback: header bytes that are not UTF-8, and
connections that send nothing, or their headers a byte at a time, or stay open between requests.

The server runs with 2 s header and idle timeouts, set through the environment
(HTTP_HEADER_TIMEOUT_S, HTTP_IDLE_TIMEOUT_S), so the tests are quick; every loop is bounded.
"""

from __future__ import annotations

import http.client
import json
import random
import select
import socket
import struct
import time
import uuid

import pytest
from google.protobuf import json_format

from cardgame.moves import notation_for
from cardgame.v1 import view_pb2
from testkit.launcher import ServerProcess
from tests.conftest import SERVER_TEST_FLAGS

SERVICE = "/cardgame.v1.GameService"
TIMEOUT_S = 2.0  # the server's header and idle timeouts here
CALL_TIMEOUT_S = 10.0
ATTACKERS = 20  # silent connections, and as many slowloris ones
ATTACK_BOUND_S = 30.0
INDEX_HTML = "<!doctype html><title>table</title>"
JSON_HEADERS = {"content-type": "application/json", "connect-protocol-version": "1"}
NO_GAME = "0" * 24


@pytest.fixture(scope="module")
def edge_server(tmp_path_factory):
    """A server (in-memory store) with its HTTP port, a web root, and 2 s HTTP timeouts."""
    root = tmp_path_factory.mktemp("web-root")
    (root / "index.html").write_text(INDEX_HTML)
    server = ServerProcess(*SERVER_TEST_FLAGS, "--http-port", "0", "--web-root", str(root),
                           env={"LOG_LEVEL": "INFO", "HTTP_HEADER_TIMEOUT_S": str(TIMEOUT_S),
                                "HTTP_IDLE_TIMEOUT_S": str(TIMEOUT_S)})
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _log_problems(server) -> list[str]:
    """Server log lines at ERROR or above, and any traceback."""
    problems = []
    for line in server.log_text().splitlines():
        record = json.loads(line) if line.startswith("{") else {"level": "RAW", "message": line}
        if record["level"] in ("ERROR", "CRITICAL", "RAW") or "exception" in record \
                or "Exception in ASGI application" in record["message"] or "Traceback" in line:
            problems.append(line[:2000])
    return problems


def _connection(server) -> http.client.HTTPConnection:
    return http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=CALL_TIMEOUT_S)


def _call(server, method: str, body: dict, headers: dict | None = None) -> tuple[int, dict]:
    """One Connect JSON unary call on a connection of its own: (HTTP status, JSON answer)."""
    connection = _connection(server)
    try:
        connection.request("POST", f"{SERVICE}/{method}", body=json.dumps(body).encode(),
                           headers={**JSON_HEADERS, **(headers or {})})
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def _raw(server, request: bytes) -> bytes:
    """Send ``request`` as it is (it asks for ``connection: close``) and read until the server closes."""
    with socket.create_connection(("127.0.0.1", server.http_port), timeout=CALL_TIMEOUT_S) as sock:
        sock.sendall(request)
        answer = b""
        for _ in range(1000):
            data = sock.recv(65536)
            if not data:
                break
            answer += data
        return answer


def _frames(data: bytes) -> list[tuple[int, bytes]]:
    """The (flags, payload) envelopes of a streamed body."""
    frames = []
    while len(data) >= 5:
        flags, size = struct.unpack(">BI", data[:5])
        frames.append((flags, data[5:5 + size]))
        data = data[5 + size:]
    return frames


BAD_VALUES = ((b"authorization", b"Bearer \xff"), (b"x-api-key", b"\xfe"), (b"x-odd", b"caf\xe9 \x80\x80"))


def test_header_bytes_that_are_not_utf8_are_refused_on_every_route(edge_server):
    """Connect unary, a Connect server stream (WatchGame), gRPC-Web and the web table's files: each
    refuses such a header with a 4xx its client understands, and the server logs no error."""
    for name, value in BAD_VALUES:
        connection = _connection(edge_server)
        try:
            # Connect unary: HTTP 400 and the Connect error invalid_argument (one kept-alive connection).
            for method, body in (("GetGame", b'{"gameId": "%s"}' % NO_GAME.encode()),
                                 ("CreateGame", b'{"variant": "VARIANT_SPADES"}')):
                connection.putrequest("POST", f"{SERVICE}/{method}")
                for key, text in JSON_HEADERS.items():
                    connection.putheader(key, text)
                connection.putheader(name.decode(), value)
                connection.putheader("content-length", str(len(body)))
                connection.endheaders(body)
                response = connection.getresponse()
                error = json.loads(response.read())
                assert (response.status, error["code"]) == (400, "invalid_argument"), (name, method, error)
                assert "not valid UTF-8" in error["message"]
        finally:
            connection.close()
        # A Connect server stream: HTTP 200, then only the end-of-stream message with the error.
        envelope = struct.pack(">BI", 0, 2) + b"{}"
        answer = _raw(edge_server, b"POST " + SERVICE.encode() + b"/WatchGame HTTP/1.1\r\nhost: t\r\n"
                      b"content-type: application/connect+json\r\nconnect-protocol-version: 1\r\n" + name + b": " +
                      value + b"\r\ncontent-length: %d\r\nconnection: close\r\n\r\n" % len(envelope) + envelope)
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200 "), answer
        body = _dechunked(body) if b"transfer-encoding: chunked" in head.lower() else body
        ((flags, payload),) = _frames(body)
        assert flags == 0x02 and json.loads(payload)["error"]["code"] == "invalid_argument", answer
        # gRPC-Web: HTTP 200 and grpc-status 3 in the trailer frame.
        envelope = struct.pack(">BI", 0, 0)
        answer = _raw(edge_server, b"POST " + SERVICE.encode() + b"/GetGame HTTP/1.1\r\nhost: t\r\n"
                      b"content-type: application/grpc-web+proto\r\nx-grpc-web: 1\r\n" + name + b": " + value +
                      b"\r\ncontent-length: %d\r\nconnection: close\r\n\r\n" % len(envelope) + envelope)
        head, _, body = answer.partition(b"\r\n\r\n")
        body = _dechunked(body) if b"transfer-encoding: chunked" in head.lower() else body
        ((flags, payload),) = _frames(body)
        assert head.startswith(b"HTTP/1.1 200 ") and flags == 0x80 and b"grpc-status: 3\r\n" in payload, answer
        # The web table's files: a plain 400.
        answer = _raw(edge_server, b"GET / HTTP/1.1\r\nhost: t\r\n" + name + b": " + value +
                      b"\r\nconnection: close\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 400 ") and b"not valid UTF-8" in answer, answer
    # A header name with such a byte is not HTTP at all: h11 answers 400 before any application.
    answer = _raw(edge_server, b"GET / HTTP/1.1\r\nhost: t\r\nx-\xff: 1\r\nconnection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 400 "), answer
    # Well-formed headers, UTF-8 beyond ASCII included, are served as before.
    assert _call(edge_server, "GetGame", {"gameId": NO_GAME}, {"x-odd": "café".encode()})[1]["code"] == "not_found"
    assert INDEX_HTML.encode() in _raw(edge_server, b"GET / HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n")
    problems = _log_problems(edge_server)
    assert not problems, problems


def _dechunked(body: bytes) -> bytes:
    out = b""
    while body:
        size_line, _, rest = body.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out, body = out + rest[:size], rest[size + 2:]
    return out


def _closed(sock: socket.socket) -> bool:
    """Whether the server closed ``sock`` (reads whatever it sent before: a 408, say)."""
    try:
        for _ in range(100):
            if not sock.recv(65536):
                return True
            if not select.select([sock], [], [], 0)[0]:
                return False
    except OSError:  # reset
        return True
    return False


def test_silent_and_slowloris_connections_are_closed_while_calls_are_answered(edge_server):
    port = edge_server.http_port
    start = time.monotonic()
    silent = [socket.create_connection(("127.0.0.1", port), timeout=CALL_TIMEOUT_S) for _ in range(ATTACKERS)]
    slow = [socket.create_connection(("127.0.0.1", port), timeout=CALL_TIMEOUT_S) for _ in range(ATTACKERS)]
    for sock in slow:
        sock.sendall(f"POST {SERVICE}/GetGame HTTP/1.1\r\nhost: t\r\nx-slow: ".encode())
    still_open = set(silent + slow)
    closed_after: list[float] = []
    answered = 0
    try:
        while still_open and time.monotonic() - start < ATTACK_BOUND_S:
            for sock in slow:  # one more header byte on every slowloris connection
                if sock in still_open:
                    try:
                        sock.send(b"x")
                    except OSError:
                        pass
            # The port keeps answering ordinary calls during the attack.
            status, answer = _call(edge_server, "GetGame", {"gameId": NO_GAME})
            assert (status, answer["code"]) == (404, "not_found"), answer
            status, answer = _call(edge_server, "CreateGame", {"variant": "VARIANT_SPADES", "seats": [
                {"name": "Ana"}] + [{"name": f"Bot {i}", "kind": "PLAYER_KIND_BOT_RANDOM"} for i in (1, 2, 3)]})
            assert status == 200 and answer["gameId"], answer
            answered += 2
            readable, _, _ = select.select(list(still_open), [], [], 0.5)
            for sock in readable:
                if _closed(sock):
                    still_open.discard(sock)
                    closed_after.append(time.monotonic() - start)
        assert not still_open, (f"{len(still_open)} of {2 * ATTACKERS} connections still open after "
                                f"{time.monotonic() - start:.1f} s")
    finally:
        for sock in silent + slow:
            sock.close()
    # Closed at the header timeout (all were opened within the first moments), not much later.
    assert max(closed_after) < TIMEOUT_S + 8, closed_after
    assert answered >= 4
    problems = _log_problems(edge_server)
    assert not problems, problems


def test_kept_alive_connections_are_closed_when_idle_or_slow(edge_server):
    connection = _connection(edge_server)
    try:
        for n in range(3):  # requests within the idle timeout reuse the connection
            time.sleep(TIMEOUT_S / 2 if n else 0)
            connection.request("POST", f"{SERVICE}/GetGame", body=b'{"gameId": "%s"}' % NO_GAME.encode(),
                               headers=JSON_HEADERS)
            response = connection.getresponse()
            assert response.status == 404 and not response.will_close
            response.read()
            start = time.monotonic()
        sock = connection.sock
        readable, _, _ = select.select([sock], [], [], TIMEOUT_S + 8)
        assert readable and _closed(sock), "an idle kept-alive connection stayed open"
        assert TIMEOUT_S - 0.5 < time.monotonic() - start < TIMEOUT_S + 8
    finally:
        connection.close()
    # After a response, the next request's headers too must arrive within the header timeout.
    with socket.create_connection(("127.0.0.1", edge_server.http_port), timeout=CALL_TIMEOUT_S) as sock:
        body = b'{"gameId": "%s"}' % NO_GAME.encode()
        sock.sendall(b"POST " + SERVICE.encode() + b"/GetGame HTTP/1.1\r\nhost: t\r\ncontent-type: application/json"
                     b"\r\ncontent-length: %d\r\n\r\n" % len(body) + body)
        first = b""
        for _ in range(100):  # the whole first answer (chunked: it ends with an empty chunk)
            first += sock.recv(65536)
            if first.endswith(b"\r\n0\r\n\r\n"):
                break
        assert first.startswith(b"HTTP/1.1 404 "), first
        sock.sendall(b"GET / HTTP/1.1\r\nhost: t\r\n")
        start = time.monotonic()
        answer, closed = b"", False
        while time.monotonic() - start < TIMEOUT_S + 8 and not closed:
            try:
                sock.send(b"x")
                if select.select([sock], [], [], 0.5)[0]:
                    data = sock.recv(65536)
                    answer, closed = answer + data, not data
            except OSError:
                closed = True
        assert closed, "a slow second request kept its connection open"
        assert answer.startswith(b"HTTP/1.1 408 "), answer


def _stream_views(response: http.client.HTTPResponse):
    """The views of a Connect JSON server stream, as they come."""
    for _ in range(200):
        head = response.read(5)
        if len(head) < 5:
            return
        flags, size = struct.unpack(">BI", head)
        payload = json.loads(response.read(size))
        if flags & 0x02:
            raise AssertionError(f"the stream ended: {payload}")
        yield payload["view"]


def test_a_watch_stream_outlives_both_timeouts(edge_server):
    status, created = _call(edge_server, "CreateGame", {"variant": "VARIANT_BUCK_EUCHRE", "firstDealer": 0, "seats": [
        {"name": "Ana"}] + [{"name": f"Bot {i}", "kind": "PLAYER_KIND_BOT_BASIC"} for i in (1, 2, 3)]})
    assert status == 200, created
    game_id, token = created["gameId"], created["seatTokens"][0]["token"]
    bearer = {"authorization": f"Bearer {token}"}
    watch = _connection(edge_server)
    try:
        request = json.dumps({"gameId": game_id}).encode()
        watch.request("POST", f"{SERVICE}/WatchGame", body=struct.pack(">BI", 0, len(request)) + request, headers={
            "content-type": "application/connect+json", "connect-protocol-version": "1", **bearer})
        response = watch.getresponse()
        assert response.status == 200
        views = _stream_views(response)
        seen = int(next(views)["version"])
        start = time.monotonic()
        for _ in range(3):  # each pause longer than both timeouts; the stream sends nothing meanwhile
            time.sleep(TIMEOUT_S + 0.5)
            status, view = _call(edge_server, "GetGame", {"gameId": game_id}, bearer)
            action = notation_for(json_format.ParseDict(view["view"]["legalActions"][0], view_pb2.LegalAction()),
                                  rng=random.Random(7))
            status, moved = _call(edge_server, "Act", {"gameId": game_id, "requestId": uuid.uuid4().hex,
                                                       "action": action}, bearer)
            assert status == 200, moved
            target = int(moved["view"]["version"])
            while seen < target:  # the stream brings the move (and the bots' turns after it)
                seen = int(next(views)["version"])
        assert time.monotonic() - start > 3 * TIMEOUT_S
    finally:
        watch.close()
