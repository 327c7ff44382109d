"""The test servers' ports cannot be taken by another test between being picked and bound: a
server process binds port 0 and says which port it got; a private redis-server whose picked port
another process took moves to a fresh one, and is known by its process id, not by its port."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import time
import urllib.request
from collections.abc import Iterator

import grpc
import psutil
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from testkit import redis_server
from testkit.launcher import ServerProcess, closed_port
from testkit.redis_server import PrivateRedis, PrivateRedisCluster, served_by


def _serving(server: ServerProcess) -> bool:
    with server.channel() as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
    return reply.status == health_pb2.HealthCheckResponse.SERVING


def test_a_server_binds_the_ports_the_kernel_gives_it_and_keeps_them_when_restarted():
    server = ServerProcess("--http-port", "0", "--metrics-port", "0")
    assert server.port == 0   # nothing is picked before the process binds
    server.start()
    try:
        ports = (server.port, server.http_port, server.metrics_port)
        assert all(port and port > 0 for port in ports) and len(set(ports)) == 3
        assert server.address == f"127.0.0.1:{server.port}" and _serving(server)
        with urllib.request.urlopen(f"http://127.0.0.1:{server.metrics_port}/metrics", timeout=5) as response:
            assert b"cardgame_build_info" in response.read()
        with urllib.request.urlopen(f"http://127.0.0.1:{server.http_port}/", timeout=5) as response:
            assert response.status == 200
        server.stop()
        with pytest.raises(grpc.RpcError):
            _serving(server)
        server.start()   # again: on the same ports, which its clients know
        assert (server.port, server.http_port, server.metrics_port) == ports and _serving(server)
    finally:
        server.stop()


def test_several_workers_serve_the_one_port_their_supervisor_reserved(redis_url, redis_prefix):
    server = ServerProcess("--workers", "2", "--http-port", "0", redis_url=redis_url, prefix=redis_prefix,
                           env={"LOG_LEVEL": "INFO"})
    server.start()
    try:
        def announced(what: str, port: int) -> int:
            return sum(1 for line in server.log_text().splitlines()
                       if what in line and f'"port": {port}' in line)

        _wait_for(lambda: announced("cardgame server listening", server.port) == 2, server)
        assert announced("cardgame HTTP", server.http_port) == 2   # both workers, one port each kind
        for _ in range(12):   # new connections, which the kernel spreads over the listening workers
            assert _serving(server)
        workers = [child.pid for child in psutil.Process(server.proc.pid).children()
                   if "spawn_main" in " ".join(child.cmdline())]   # multiprocessing's spawned workers
        assert len(workers) == 2
        os.kill(workers[0], signal.SIGKILL)   # its restart binds the port the supervisor still holds
        _wait_for(lambda: announced("cardgame server listening", server.port) == 3, server)
        assert _serving(server)
    finally:
        assert server.stop() == 0


def _wait_for(condition, server: ServerProcess, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, server.log_text()[-3000:]
        time.sleep(0.05)


def test_a_closed_port_refuses_connections_and_cannot_be_served_meanwhile():
    with closed_port() as port:
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
        with socket.socket() as other, pytest.raises(OSError):
            other.bind(("127.0.0.1", port))


@contextlib.contextmanager
def _taken_first(monkeypatch, picker: str) -> Iterator[int]:
    """A port another process listens on, which ``redis_server.<picker>`` picks first."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        picks, real = iter([taken]), getattr(redis_server, picker)
        monkeypatch.setattr(redis_server, picker, lambda: next(picks, None) or real())
        yield taken


def test_a_private_redis_whose_picked_port_was_taken_moves_to_another(monkeypatch):
    with _taken_first(monkeypatch, "free_port") as taken:
        server = PrivateRedis()
        assert server.port == taken
        server.start()
        try:
            assert server.port != taken and served_by(server.url, server._process.pid)
            port = server.port
            server.stop()
            server.start()   # a restart keeps its port
            assert server.port == port
        finally:
            server.stop()


def test_a_redis_is_known_by_its_process_not_its_port(private_redis):
    assert served_by(private_redis.url, private_redis._process.pid)
    assert not served_by(private_redis.url, private_redis._process.pid + 1)
    with closed_port() as port:
        assert not served_by(f"redis://127.0.0.1:{port}/0", private_redis._process.pid)


def test_a_private_cluster_whose_picked_port_was_taken_starts_on_fresh_ones(monkeypatch):
    with _taken_first(monkeypatch, "_cluster_port") as taken:
        with PrivateRedisCluster(nodes=3) as cluster:
            assert taken not in cluster.ports and len(set(cluster.ports)) == 3
            assert all(served_by(f"redis://127.0.0.1:{port}/0", cluster._by_port[port].pid) for port in cluster.ports)
