"""Helpers to find a Redis for tests, or run a private non-persistent redis-server.

``PrivateRedis`` starts ``redis-server`` on a free loopback port in a temp dir (no RDB, no
AOF), can be stopped (crash-like SIGKILL by default) and started again on the same port, or
paused (SIGSTOP: a hung server) and resumed, so tests can take Redis away in the middle of a
game and bring it back.
"""

from __future__ import annotations

import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

import redis

from testkit.processes import stop_process

DEFAULT_URL = "redis://127.0.0.1:6379/0"


def redis_answers(url: str, timeout_s: float = 0.5) -> bool:
    """Return True if the Redis at url answers PING within timeout_s."""
    client = redis.Redis.from_url(url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s)
    try:
        return bool(client.ping())
    except (redis.RedisError, OSError):
        return False
    finally:
        client.close()


def served_by(url: str, pid: int, timeout_s: float = 0.5) -> bool:
    """Return True if the Redis at url answers and is the process ``pid`` (INFO's process_id), not
    another test's server that holds the port."""
    client = redis.Redis.from_url(url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s)
    try:
        return int(client.info("server")["process_id"]) == pid
    except (redis.RedisError, OSError, KeyError, ValueError):
        return False
    finally:
        client.close()


PORT_ATTEMPTS = 5


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def find_redis_server() -> str | None:
    """Return the path of redis-server on PATH, or None."""
    return shutil.which("redis-server")


def delete_keys(url: str, prefix: str) -> int:
    """Delete every key starting with prefix (SCAN MATCH, never FLUSH); return how many."""
    client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=2)
    try:
        deleted = 0
        batch: list[bytes] = []
        for key in client.scan_iter(match=f"{prefix}*", count=1000):
            batch.append(key)
            if len(batch) >= 500:
                deleted += client.unlink(*batch)
                batch.clear()
        if batch:
            deleted += client.unlink(*batch)
        return deleted
    finally:
        client.close()


class PrivateRedis:
    """A redis-server child process on a fixed loopback port that can be stopped and restarted."""

    def __init__(self, port: int | None = None, executable: str | None = None, persistent: bool = False) -> None:
        """Pick the port (a free one by default) and the redis-server binary (PATH by default).

        A persistent server writes every change to an append-only file, so its data survives
        a stop (even a SIGKILL) and restart; otherwise it keeps nothing on disk.
        """
        self.persistent = persistent
        found = executable or find_redis_server()
        if found is None:
            raise RuntimeError("redis-server not found on PATH (apt-get install redis-server)")
        self.executable = found
        self.port = port or free_port()
        self._chosen_port = not port   # picked here: picked again if another process takes it before the first start
        self._dir = Path(tempfile.mkdtemp(prefix="private-redis-"))
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """Return the redis:// URL of this server."""
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def running(self) -> bool:
        """Return True while the server process is alive."""
        return self._process is not None and self._process.poll() is None

    def start(self, timeout_s: float = 10.0) -> None:
        """Start the server on self.port (again, after stop) and wait until it answers PING; a port
        picked here that another process took meanwhile is replaced by a fresh one (a few times)."""
        if self.running:
            return
        for _ in range(PORT_ATTEMPTS):
            log = self._dir / "redis.log"
            written = log.stat().st_size if log.exists() else 0
            if self._start(timeout_s):
                self._chosen_port = False   # a restart keeps the port its clients know
                return
            taken = "Address already in use" in log.read_bytes()[written:].decode(errors="replace")
            if not (self._chosen_port and taken):
                break
            self.port = free_port()
        raise RuntimeError(f"redis-server on port {self.port} did not start:\n{self.log_tail()}")

    def _start(self, timeout_s: float) -> bool:
        log = (self._dir / "redis.log").open("ab")
        self._process = process = subprocess.Popen(
            [self.executable, "--port", str(self.port), "--bind", "127.0.0.1",
             "--save", "", "--dir", str(self._dir),
             *(("--appendonly", "yes", "--appendfsync", "always") if self.persistent else ("--appendonly", "no")),
             "--daemonize", "no", "--protected-mode", "no"],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )
        log.close()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if process.poll() is not None:
                break
            if served_by(self.url, process.pid, timeout_s=0.2):
                return True
            time.sleep(0.02)
        self.stop()
        return False

    def stop(self, graceful: bool = False) -> None:
        """Stop the server: SIGKILL (like a crash) by default, SIGTERM when graceful."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGCONT)  # a paused server must be able to die
        stop_process(process, signal.SIGTERM if graceful else signal.SIGKILL, timeout_s=5)

    def pause(self) -> None:
        """Freeze the server (SIGSTOP): connections stay open but nothing is answered."""
        if self._process is not None:
            self._process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        """Unfreeze a paused server (SIGCONT)."""
        if self._process is not None:
            self._process.send_signal(signal.SIGCONT)

    def close(self) -> None:
        """Stop the server and remove its temp dir."""
        self.stop()
        shutil.rmtree(self._dir, ignore_errors=True)

    def log_tail(self, lines: int = 20) -> str:
        """Return the last lines of the server's log."""
        path = self._dir / "redis.log"
        if not path.exists():
            return "(no log)"
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])

    def __enter__(self) -> PrivateRedis:
        """Start the server and return self."""
        self.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        """Stop the server and remove its temp dir."""
        self.close()


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _cluster_port() -> int:
    """A free port whose cluster bus port (+10000) is free too, as cluster nodes need both."""
    while True:
        port = random.randrange(20000, 45000)
        if _port_free(port) and _port_free(port + 10000):
            return port


def _node_port(address: str) -> int:
    """The port of a CLUSTER NODES address ("127.0.0.1:7000@17000")."""
    return int(address.split(":")[1].split("@")[0])


def _in_range(slot: int, spec: str) -> bool:
    """Whether ``slot`` is in a CLUSTER NODES slot spec ("5461-10922" or "42"; not "[…]" migrations)."""
    if spec.startswith("["):
        return False
    first, _, last = spec.partition("-")
    return int(first) <= slot <= int(last or first)


class PortTaken(RuntimeError):
    """A node could not bind its port: another process took it after it was picked."""


class PrivateRedisCluster:
    """A Redis Cluster of child redis-server processes on free loopback ports: three masters by
    default, each with ``replicas`` replicas that take over (after ``node_timeout_ms``) when their
    master dies."""

    def __init__(self, nodes: int = 3, replicas: int = 0, node_timeout_ms: int = 15000) -> None:
        """Pick the ports and a temp dir; nothing runs until start()."""
        executable = find_redis_server()
        cli = shutil.which("redis-cli")
        if executable is None or cli is None:
            raise RuntimeError("redis-server and redis-cli are needed (apt-get install redis-server)")
        self.executable, self.cli = executable, cli
        self.replicas = replicas
        self.node_timeout_ms = node_timeout_ms
        self.ports = [_cluster_port() for _ in range(nodes * (1 + replicas))]
        self._dir = Path(tempfile.mkdtemp(prefix="private-redis-cluster-"))
        self._processes: list[subprocess.Popen[bytes]] = []
        self._by_port: dict[int, subprocess.Popen[bytes]] = {}

    @property
    def url(self) -> str:
        """The URL of the first node (any node serves as a cluster entry point)."""
        return f"redis://127.0.0.1:{self.ports[0]}/0"

    def start(self, timeout_s: float = 20.0) -> None:
        """Start every node, join them into a cluster and wait until all slots are served; when
        another process took one of the picked ports first, start again on fresh ones (a few times)."""
        for attempt in range(PORT_ATTEMPTS):
            try:
                self._start(timeout_s)
                return
            except PortTaken:
                self.close()
                if attempt + 1 == PORT_ATTEMPTS:
                    raise
                self.ports = [_cluster_port() for _ in self.ports]
                self._dir = Path(tempfile.mkdtemp(prefix="private-redis-cluster-"))
            except BaseException:
                self.close()
                raise

    def _start(self, timeout_s: float) -> None:
        for port in self.ports:
            node_dir = self._dir / str(port)
            node_dir.mkdir()
            log = (node_dir / "redis.log").open("ab")
            self._processes.append(subprocess.Popen(
                [self.executable, "--port", str(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
                 "--cluster-config-file", str(node_dir / "nodes.conf"), "--save", "", "--appendonly", "no",
                 "--cluster-node-timeout", str(self.node_timeout_ms),
                 "--dir", str(node_dir), "--protected-mode", "no"],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL))
            self._by_port[port] = self._processes[-1]
            log.close()
        deadline = time.monotonic() + timeout_s
        for port in self.ports:
            process = self._by_port[port]
            while not served_by(f"redis://127.0.0.1:{port}/0", process.pid, timeout_s=0.2):
                if time.monotonic() > deadline or process.poll() is not None:
                    log = (self._dir / str(port) / "redis.log").read_text(errors="replace")[-2000:]
                    failure = PortTaken if "Address already in use" in log else RuntimeError
                    raise failure(f"cluster node on port {port} did not start:\n{log}")
                time.sleep(0.02)
        subprocess.run([self.cli, "--cluster", "create", *(f"127.0.0.1:{p}" for p in self.ports),
                        "--cluster-replicas", str(self.replicas), "--cluster-yes"],
                       check=True, capture_output=True, timeout=timeout_s)
        self.wait_ok(deadline - time.monotonic())
        if self.replicas:
            while len(self.replicas_in_sync()) < len(self.ports) - len(self.ports) // (1 + self.replicas):
                if time.monotonic() > deadline:
                    raise RuntimeError("the replicas did not finish their first sync")
                time.sleep(0.1)

    def cli_call(self, port: int, *args: str) -> str:
        """Run one redis-cli command against a node; its output."""
        return subprocess.run([self.cli, "-p", str(port), *args], capture_output=True, text=True, timeout=5).stdout

    def wait_ok(self, timeout_s: float = 20.0) -> None:
        """Wait until every live node reports cluster_state:ok (every slot served) and none still
        gives a slot to a dead master: after a failover, a client that asks any node for the
        slots' owners then learns the new ones (a node that has not heard of the failover yet
        would send it back to the dead one)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            live = self.live_ports()
            if live and all(self._agrees(port, live) for port in live):
                return
            time.sleep(0.1)
        raise RuntimeError("the live nodes did not all reach cluster_state:ok with the slots on live masters")

    def _agrees(self, port: int, live: list[int]) -> bool:
        """Whether the node on ``port`` reports cluster_state:ok and every master it gives slots
        to is live."""
        if "cluster_state:ok" not in self.cli_call(port, "cluster", "info"):
            return False
        for line in self.cli_call(port, "cluster", "nodes").splitlines():
            fields = line.split()
            if len(fields) > 8 and "master" in fields[2] and _node_port(fields[1]) not in live:
                return False
        return True

    def live_ports(self) -> list[int]:
        """The ports of the nodes still running."""
        return [port for port, process in self._by_port.items() if process.poll() is None]

    def master_of(self, key: str) -> int:
        """The port of the master now serving ``key``'s slot (asked of a live node)."""
        for port in self.live_ports():
            slot = int(self.cli_call(port, "cluster", "keyslot", key).strip() or -1)
            for line in self.cli_call(port, "cluster", "nodes").splitlines():
                fields = line.split()
                if "master" in fields[2] and "fail" not in fields[2] and any(
                        _in_range(slot, r) for r in fields[8:]):
                    return _node_port(fields[1])
        raise RuntimeError(f"no live master serves {key!r}")

    def replicas_in_sync(self) -> list[int]:
        """The replica nodes whose link to their master is up."""
        return [port for port in self.live_ports()
                if "master_link_status:up" in self.cli_call(port, "info", "replication")]

    def kill(self, port: int) -> None:
        """SIGKILL one node (a crash); its replica takes over after the node timeout."""
        process = self._by_port[port]
        process.kill()
        process.wait(timeout=5)

    def close(self) -> None:
        """Stop every node and remove the temp dir."""
        for process in self._processes:
            process.kill()
            process.wait(timeout=5)
        self._processes = []
        self._by_port = {}
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> PrivateRedisCluster:
        """Start the cluster and return self."""
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        """Stop the cluster."""
        self.close()
