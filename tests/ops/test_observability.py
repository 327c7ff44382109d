"""Operations: JSON log lines from every process, Prometheus metrics (one process and the sum of
two workers), OpenTelemetry spans exported over OTLP, and reflection under v1 and v1alpha."""

from __future__ import annotations

import json
import os
import random
import signal
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from concurrent import futures
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import grpc
import pytest
from google.protobuf import descriptor_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from prometheus_client.parser import text_string_to_metric_families

from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from service.rpc.servicer import MOVE_RESPONSES
from service.telemetry import metrics
from testkit.launcher import ServerProcess
from tests.support.players import auth, code_of, create, play_to_end, send, tokens_of

GAME_SERVICE = "cardgame.v1.GameService"
WAIT_S = 20.0
RACES = 100   # games at most whose four seats reveal at once, until one of their commits conflicts


def _wait(condition, what: str, within_s: float = WAIT_S):
    """Poll ``condition`` until it returns something true (returned); fail after ``within_s``."""
    deadline = time.monotonic() + within_s
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def json_lines(text: str) -> list[dict]:
    """Every line of a server's stderr, each of which must be one JSON object of a log record."""
    records = []
    for line in text.splitlines():
        record = json.loads(line)  # a line that is not one whole JSON object fails here
        assert isinstance(record, dict), line
        assert {"timestamp", "level", "logger", "message", "pid"} <= set(record), line
        stamp = datetime.fromisoformat(record["timestamp"].replace("Z", "+00:00"))
        assert record["timestamp"].endswith("Z") and stamp.utcoffset() is not None and not stamp.utcoffset()
        records.append(record)
    return records


def _workers_of(pid: int) -> list[int]:
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(c) for c in children if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes()]


# --- logs ---

def test_two_workers_and_their_supervisor_write_only_json_lines(redis_url, redis_prefix):
    server = ServerProcess("--workers", "2", redis_url=redis_url, prefix=redis_prefix, env={"LOG_LEVEL": "INFO"})
    server.start()
    try:
        listening = lambda: [r for r in json_lines(server.log_text())  # noqa: E731
                             if r["message"].startswith("cardgame server listening on")]
        _wait(lambda: len(listening()) == 2, "both workers did not say they listen")
        request_id = uuid.uuid4().hex
        answered = lambda: {r["pid"] for r in json_lines(server.log_text())  # noqa: E731
                            if r["logger"] == "cardgame.requests"}
        connections = 0
        # new connections, spread over both workers by the kernel: at least 6, more (bounded)
        # until both workers have answered one
        while connections < 6 or (len(answered()) < 2 and connections < 60):
            connections += 1
            with grpc.insecure_channel(server.address) as channel:
                stub = pb_grpc.GameServiceStub(channel)
                created = create(stub, "spades", first_dealer=0)
                send(stub, "Deal", pb.DealRequest(game_id=created.game_id, request_id=request_id),
                     tokens_of(created)[0])
        victim = _workers_of(server.proc.pid)[0]
        os.kill(victim, signal.SIGKILL)
        _wait(lambda: len(listening()) == 3, "the restarted worker did not say it listens")
    finally:
        assert server.stop() == 0
    records = json_lines(server.log_text())
    starts = [r for r in records if r["message"].startswith("cardgame server listening on")]
    assert len(starts) == 3 and len({r["pid"] for r in starts}) == 3  # once per worker process
    assert all(r["logger"] == "cardgame.server" and r["port"] == server.port and r["store"] == "redis"
               and r["tls"] == "off" for r in starts)
    supervisor = [r for r in records if r["pid"] == server.proc.pid]
    assert any(r["logger"] == "cardgame.workers" and r["level"] == "WARNING" and "starting it again" in r["message"]
               for r in supervisor)
    requests = [r for r in records if r["logger"] == "cardgame.requests"]
    deals = [r for r in requests if r["method"] == "Deal"]
    assert len(deals) == connections and {r["request_id"] for r in deals} == {request_id}
    assert all(r["seat"] == 0 and r["status"] == "OK" and r["latency_ms"] >= 0 and len(r["game_id"]) == 24
               and r["peer"].startswith(("ipv4:127.0.0.1:", "ipv6:")) for r in deals)
    assert all("trace_id" not in r for r in requests)  # tracing is off
    creates = [r for r in requests if r["method"] == "CreateGame"]
    assert len(creates) == connections and all(r["request_id"] is None for r in creates)
    assert len({r["pid"] for r in requests}) == 2  # both workers answered


# --- metrics ---

def scrape(port: int) -> dict[tuple[str, frozenset], float]:
    """Every sample of the metrics endpoint: (name, labels) -> value."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        text = response.read().decode()
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def value(samples: dict, name: str, **labels: str) -> float:
    """One sample's value (0 when the series does not exist yet)."""
    return samples.get((name, frozenset(labels.items())), 0.0)


def handled(samples: dict, method: str, code: str) -> float:
    return value(samples, "cardgame_rpc_handled_total", method=method, code=code)


def test_a_fresh_server_lists_the_charted_series_at_zero(redis_url, redis_prefix):
    """Before any call, /metrics already holds every series the dashboard charts whose labels are
    known in advance, at 0: a series born at its first count (the first commit conflict) would
    lose that count to rate() and leave its panel with no data."""
    with ServerProcess("--metrics-port", "0", redis_url=redis_url, prefix=redis_prefix) as server:
        samples = scrape(server.metrics_port)
    zero = [("cardgame_games_created_total", {}), ("cardgame_games_finished_total", {}),
            ("cardgame_turn_timeouts_total", {}), ("cardgame_watch_streams", {})]
    for method in ("Act", "Play", "RevealHand", "LeaveGame", "ReissueSeatToken", "Timeout"):
        zero += [("cardgame_commit_conflicts_total", {"method": method}),
                 ("cardgame_commit_retries_total", {"method": method})]
    for method in ("CreateGame", "GetGame", "Act", "WatchGame"):
        zero.append(("cardgame_rpc_handled_total", {"method": method, "code": "OK"}))
    for method in ("CreateGame", "Act", "Play"):
        zero += [("cardgame_rpc_duration_seconds_count", {"method": method}),
                 ("cardgame_rpc_duration_seconds_bucket", {"method": method, "le": "+Inf"})]
    for strategy in ("random", "basic", "strong"):
        zero.append(("cardgame_bot_think_seconds_count", {"strategy": strategy}))
    for name, labels in zero:
        assert samples.get((name, frozenset(labels.items()))) == 0, f"{name}{labels} is not listed at 0"


def test_every_entry_point_that_commits_has_its_conflict_series():
    assert set(MOVE_RESPONSES) | {"LeaveGame", "ReissueSeatToken", "Timeout"} <= set(metrics.COMMIT_METHODS)
    assert {m for m in metrics.COMMIT_METHODS if m != "Timeout"} <= set(metrics.METHODS)


def test_metrics_count_calls_store_operations_bots_games_and_streams(redis_url, redis_prefix):
    with ServerProcess("--metrics-port", "0", redis_url=redis_url, prefix=redis_prefix) as server, \
            grpc.insecure_channel(server.address) as channel:
        metrics_port = server.metrics_port
        stub = pb_grpc.GameServiceStub(channel)
        humans = create(stub, "spades", first_dealer=0)
        send(stub, "Deal", pb.DealRequest(game_id=humans.game_id), tokens_of(humans)[0])
        play = pb.PlayRequest(game_id=humans.game_id, card="AS")
        assert code_of(send, stub, "Play", play, tokens_of(humans)[0]) == grpc.StatusCode.FAILED_PRECONDITION
        assert code_of(stub.GetGame, pb.GetGameRequest(game_id="0" * 24)) == grpc.StatusCode.NOT_FOUND

        def last_call_counted():   # a call is counted as its answer leaves: the count may land just after it
            samples = scrape(metrics_port)
            return samples if handled(samples, "GetGame", "NOT_FOUND") else None

        samples = _wait(last_call_counted, "the last call was not counted")
        assert handled(samples, "CreateGame", "OK") == 1
        assert handled(samples, "Deal", "OK") == 1
        assert handled(samples, "Play", "FAILED_PRECONDITION") == 1
        assert handled(samples, "GetGame", "NOT_FOUND") == 1
        assert value(samples, "cardgame_rpc_duration_seconds_count", method="Play") == 1
        assert value(samples, "cardgame_rpc_duration_seconds_sum", method="Play") > 0
        buckets = sorted((float(dict(labels)["le"]), v) for (name, labels), v in samples.items()
                         if name == "cardgame_rpc_duration_seconds_bucket" and dict(labels)["method"] == "Play")
        assert len(buckets) > 10 and buckets[-1] == (float("inf"), 1)
        assert [v for _, v in buckets] == sorted(v for _, v in buckets)
        assert value(samples, "cardgame_games_created_total") == 1
        assert value(samples, "cardgame_games_finished_total") == 0
        assert value(samples, "cardgame_store_duration_seconds_count", operation="create") == 1
        assert value(samples, "cardgame_store_duration_seconds_count", operation="commit") == 1  # the Deal
        assert value(samples, "cardgame_store_errors_total", operation="commit") == 0

        kinds = [enums.PLAYER_KIND_HUMAN] + [enums.PLAYER_KIND_BOT_RANDOM] * 3
        bots = create(stub, "buck_euchre", kinds, first_dealer=0)
        moves = play_to_end(stub, bots.game_id, tokens_of(bots), random.Random(7))
        samples = scrape(metrics_port)
        assert handled(samples, "CreateGame", "OK") == 2
        assert value(samples, "cardgame_rpc_duration_seconds_count", method="CreateGame") == 2
        assert value(samples, "cardgame_games_created_total") == 2
        assert value(samples, "cardgame_games_finished_total") == 1
        # every accepted move is one commit: the first game's Deal, then the human's moves here
        assert value(samples, "cardgame_store_duration_seconds_count", operation="commit") == 1 + len(moves)
        assert value(samples, "cardgame_store_duration_seconds_count", operation="load") >= 3 + len(moves)
        for method in ("Act", "Deal", "Play", "GetGame"):  # every unary call is timed once
            assert value(samples, "cardgame_rpc_duration_seconds_count", method=method) == sum(
                v for (name, labels), v in samples.items()
                if name == "cardgame_rpc_handled_total" and dict(labels)["method"] == method)
        thought = value(samples, "cardgame_bot_think_seconds_count", strategy="random")
        history = stub.GetHistory(pb.GetHistoryRequest(game_id=bots.game_id),
                                  metadata=[("authorization", f"Bearer {tokens_of(bots)[0]}")])
        bot_actions = [e for e in history.entries if e.HasField("seat") and e.seat != 0 and e.action]
        assert bot_actions and thought == len(bot_actions)  # every bot action is one timed decision
        assert value(samples, "cardgame_commit_conflicts_total", method="Play") == 0
        assert {dict(labels)["generation"] for name, labels in samples if name == "cardgame_gc_pause_seconds_count"} \
            == {"0", "1", "2"}   # the server times its garbage collections

        stream = stub.WatchGame(pb.WatchGameRequest(game_id=humans.game_id), timeout=30)
        assert next(stream).view.version >= 2
        assert value(scrape(metrics_port), "cardgame_watch_streams") == 1
        stream.cancel()
        _wait(lambda: value(scrape(metrics_port), "cardgame_watch_streams") == 0, "the stream was not closed")
        samples = scrape(metrics_port)
        assert handled(samples, "WatchGame", "CANCELLED") == 1
        assert ("cardgame_rpc_duration_seconds_count", frozenset({("method", "WatchGame")})) not in samples

        # Seats revealing their hands at the same moment race for the same version: the losers'
        # commits conflict and are retried against the fresh state (no expected_version).
        def race() -> int:
            game = create(stub, "spades", first_dealer=0)
            tokens = tokens_of(game)
            send(stub, "Deal", pb.DealRequest(game_id=game.game_id), tokens[0])
            barrier = threading.Barrier(4)

            def reveal(seat: int) -> grpc.StatusCode:
                barrier.wait(10)
                return code_of(send, stub, "RevealHand", pb.RevealHandRequest(game_id=game.game_id), tokens[seat])

            with futures.ThreadPoolExecutor(4) as pool:
                assert set(pool.map(reveal, range(4))) == {grpc.StatusCode.OK}
            return int(value(scrape(metrics_port), "cardgame_commit_conflicts_total", method="RevealHand"))

        conflicts = next((n for n in (race() for _ in range(RACES)) if n), 0)
        assert conflicts > 0, f"{RACES} races of four concurrent reveals never conflicted"
        samples = scrape(metrics_port)
        assert value(samples, "cardgame_commit_retries_total", method="RevealHand") == \
            value(samples, "cardgame_commit_conflicts_total", method="RevealHand")
        assert handled(samples, "RevealHand", "OK") == value(samples, "cardgame_rpc_duration_seconds_count",
                                                             method="RevealHand")
    log = server.log_text()
    assert f"cardgame metrics on http://127.0.0.1:{metrics_port}/metrics" in log


def test_two_workers_are_summed_on_one_metrics_port(redis_url, redis_prefix):
    server = ServerProcess("--workers", "2", "--metrics-port", "0", redis_url=redis_url, prefix=redis_prefix)
    server.start()
    metrics_port = server.metrics_port
    try:
        announced = _wait(lambda: [r for r in json_lines(server.log_text()) if "metrics_port" in r],
                          "the supervisor did not announce the metrics port")
        assert announced[0]["pid"] == server.proc.pid
        directory = Path(announced[0]["metrics_dir"])  # the run's PROMETHEUS_MULTIPROC_DIR
        _wait(lambda: len(_workers_of(server.proc.pid)) == 2, "two workers did not start")
        _wait(lambda: server.log_text().count("cardgame server listening on") == 2, "both workers did not listen")
        calls = 12
        for _ in range(calls):  # new connections, spread over both workers by the kernel
            with grpc.insecure_channel(server.address) as channel:
                assert code_of(pb_grpc.GameServiceStub(channel).GetGame,
                               pb.GetGameRequest(game_id="0" * 24)) == grpc.StatusCode.NOT_FOUND
        # a call is counted as its answer leaves, so the last count may land just after the answer
        _wait(lambda: handled(scrape(metrics_port), "GetGame", "NOT_FOUND") == calls,
              f"the two workers' counts do not sum to the {calls} calls")
        workers = set(_workers_of(server.proc.pid))
        assert {int(p.stem.rsplit("_", 1)[1]) for p in directory.glob("counter_*.db")} == workers  # both answered
        # A worker that dies and is started again keeps its counts in the sum.
        os.kill(_workers_of(server.proc.pid)[0], signal.SIGKILL)
        _wait(lambda: server.log_text().count("cardgame server listening on") == 3, "no worker was restarted")
        assert handled(scrape(metrics_port), "GetGame", "NOT_FOUND") == calls
    finally:
        assert server.stop() == 0
    assert not directory.exists()  # removed on exit
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=2)


# --- tracing ---

class _Collector:
    """An OTLP trace receiver on 127.0.0.1, over gRPC or HTTP (protobuf): keeps every span it gets."""

    def __init__(self, protocol: str):
        self.protocol = protocol
        self.requests: list[trace_service_pb2.ExportTraceServiceRequest] = []
        self.paths: list[str] = []  # of the HTTP requests
        if protocol == "grpc":
            collector = self

            class Receiver(trace_service_pb2_grpc.TraceServiceServicer):
                def Export(self, request, context):
                    collector.requests.append(request)
                    return trace_service_pb2.ExportTraceServiceResponse()

            self._grpc = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
            trace_service_pb2_grpc.add_TraceServiceServicer_to_server(Receiver(), self._grpc)
            self.port = self._grpc.add_insecure_port("127.0.0.1:0")   # the kernel's choice: no race
            self._grpc.start()
        else:
            received, paths = self.requests, self.paths

            class Handler(BaseHTTPRequestHandler):
                def do_POST(self) -> None:
                    body = self.rfile.read(int(self.headers["content-length"]))
                    paths.append(self.path)
                    received.append(trace_service_pb2.ExportTraceServiceRequest.FromString(body))
                    answer = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
                    self.send_response(200)
                    self.send_header("content-type", "application/x-protobuf")
                    self.send_header("content-length", str(len(answer)))
                    self.end_headers()
                    self.wfile.write(answer)

                def log_message(self, *args) -> None:
                    pass

            self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
            self.port = self._http.server_address[1]
            threading.Thread(target=self._http.serve_forever, daemon=True).start()

    def env(self) -> dict[str, str]:
        return {"OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{self.port}",
                "OTEL_EXPORTER_OTLP_PROTOCOL": self.protocol, "OTEL_EXPORTER_OTLP_INSECURE": "true",
                "OTEL_BSP_SCHEDULE_DELAY": "100", "LOG_LEVEL": "INFO"}

    def spans(self) -> list[tuple[dict, object]]:
        """(resource attributes, span) of every span received."""
        found = []
        for request in list(self.requests):
            for resource_spans in request.resource_spans:
                resource = {a.key: a.value.string_value for a in resource_spans.resource.attributes}
                for scope in resource_spans.scope_spans:
                    found += [(resource, span) for span in scope.spans]
        return found

    def close(self) -> None:
        if self.protocol == "grpc":
            self._grpc.stop(None)
        else:
            self._http.shutdown()


@pytest.fixture(params=["grpc", "http/protobuf"])
def collector(request) -> Iterator[_Collector]:
    receiver = _Collector(request.param)
    yield receiver
    receiver.close()


def test_each_grpc_call_is_a_span_whose_trace_id_is_in_its_log_line(collector):
    parent_trace, parent_span = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    with ServerProcess(env=collector.env()) as server, grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        created = stub.CreateGame(pb.CreateGameRequest(
            variant=enums.VARIANT_SPADES, seats=[pb.SeatConfig(name=f"P{i}") for i in range(4)],
            request_id="traced-create"), metadata=[("traceparent", f"00-{parent_trace}-{parent_span}-01")])
        assert code_of(send, stub, "Play", pb.PlayRequest(game_id=created.game_id, card="AS"),
                       tokens_of(created)[0]) == grpc.StatusCode.FAILED_PRECONDITION
        stub.GetGame(pb.GetGameRequest(game_id=created.game_id), metadata=auth(tokens_of(created)[1]))
        stream = stub.WatchGame(pb.WatchGameRequest(game_id=created.game_id), timeout=30)
        assert next(stream).view.version == 1
        stream.cancel()
        health = health_pb2_grpc.HealthStub(channel)
        assert health.Check(health_pb2.HealthCheckRequest()).status == health_pb2.HealthCheckResponse.SERVING
        names = {f"/{GAME_SERVICE}/{m}" for m in ("CreateGame", "Play", "GetGame", "WatchGame")}
        _wait(lambda: names <= {span.name for _, span in collector.spans()}, "not every call's span arrived")
        _wait(lambda: "WatchGame CANCELLED" in server.log_text(), "the stream's log line did not come")
    spans = {span.name: (resource, span) for resource, span in collector.spans()}
    assert set(spans) == names, "one span per GameService call, and none for health checks"
    assert set(collector.paths) <= {"/v1/traces"}
    assert len(collector.spans()) == len(names)
    for resource, span in spans.values():
        assert resource["service.name"] == "cardgame"
        assert span.kind == span.SPAN_KIND_SERVER
    attributes = {name: {a.key: a.value for a in span.attributes} for name, (_, span) in spans.items()}
    assert attributes[f"/{GAME_SERVICE}/Play"]["rpc.grpc.status_code"].int_value == \
        grpc.StatusCode.FAILED_PRECONDITION.value[0]
    assert attributes[f"/{GAME_SERVICE}/CreateGame"]["rpc.method"].string_value == "CreateGame"
    create_span = spans[f"/{GAME_SERVICE}/CreateGame"][1]
    assert create_span.trace_id.hex() == parent_trace and create_span.parent_span_id.hex() == parent_span
    lines = {r["method"]: r for r in json_lines(server.log_text()) if r["logger"] == "cardgame.requests"}
    assert set(lines) == {"CreateGame", "Play", "GetGame", "WatchGame"}
    for method, line in lines.items():
        assert line["trace_id"] == spans[f"/{GAME_SERVICE}/{method}"][1].trace_id.hex()
    assert lines["CreateGame"]["request_id"] == "traced-create"


# --- reflection ---

def test_reflection_lists_services_through_v1_and_v1alpha():
    with ServerProcess() as server, grpc.insecure_channel(server.address) as channel:
        expected = {GAME_SERVICE, "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection",
                    "grpc.reflection.v1alpha.ServerReflection"}
        assert set(ProtoReflectionDescriptorDatabase(channel).get_services()) == expected  # v1alpha
        # v1's messages are v1alpha's under another package name: the same bytes on the wire
        v1 = channel.stream_stream("/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
                                   request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
                                   response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)
        listed, described = v1(iter([
            reflection_pb2.ServerReflectionRequest(list_services=""),
            reflection_pb2.ServerReflectionRequest(file_containing_symbol="grpc.reflection.v1.ServerReflection"),
        ]), timeout=10)
        assert {s.name for s in listed.list_services_response.service} == expected
        file = descriptor_pb2.FileDescriptorProto.FromString(
            described.file_descriptor_response.file_descriptor_proto[0])
        assert file.package == "grpc.reflection.v1" and file.name == "grpc/reflection/v1/reflection.proto"
        (method,) = file.service[0].method
        assert method.input_type == ".grpc.reflection.v1.ServerReflectionRequest"
        game = next(iter(v1(iter([reflection_pb2.ServerReflectionRequest(file_containing_symbol=GAME_SERVICE)]),
                            timeout=10)))
        assert game.file_descriptor_response.file_descriptor_proto
