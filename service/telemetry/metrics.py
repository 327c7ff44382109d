"""Prometheus metrics of the server and the ``--metrics-port`` endpoint that serves them.

The series (all prefixed ``cardgame_``):

- ``rpc_handled_total{method, code}``: finished calls by gRPC status (both transports);
- ``rpc_duration_seconds{method}``: latency of unary calls (a WatchGame stream lasts as long as
  its watcher, so it is counted, not timed);
- ``watch_streams``: WatchGame streams open now;
- ``commit_conflicts_total{method}``: commits that lost to a concurrent change of the game
  (the version moved on between load and compare-and-set), and ``commit_retries_total{method}``:
  those of them tried again against the fresh state (the caller gave no ``expected_version``);
- ``store_duration_seconds{operation}`` / ``store_errors_total{operation}``: every game store
  call, timed, and those that failed (``service.store.metered``);
- ``store_full_total``: calls refused because Redis was out of memory (STORE_FULL; 0 from start);
- ``bot_think_seconds{strategy}``: the time a bot takes to choose one action;
- ``turn_timeouts_total``: turns that passed their deadline, played by the seat's fallback bot;
- ``games_created_total`` / ``games_finished_total``: games stored, and games whose last hand
  was committed.
- ``gc_pause_seconds{generation}``: each collection of Python's cyclic garbage collector, timed
  (the whole process stops meanwhile: a tail-latency cause of its own);
- ``build_info{version}``: always 1, labelled with the release the server runs
  (``service.version``).

With one server process the endpoint serves that process's registry (with the standard
``process_*`` and ``python_*`` series). With several workers it is served by the supervisor and
sums the workers through prometheus_client's multiprocess mode: the supervisor makes a
directory for this run, hands it to the workers as ``PROMETHEUS_MULTIPROC_DIR`` (each writes its
series there in memory-mapped files), and removes it on exit. So one port per instance is
scraped however many workers it runs, and a worker that is restarted keeps its counts.

Every labelled counter and histogram whose label values are known in advance has those series
made at import, at 0 (:func:`_zero_series`), so a fresh server's ``/metrics`` already lists what
the dashboard charts: ``rate()`` of a series that appears only at its first count (the first
commit conflict, say) misses that count, and a panel shows "no data" instead of 0. Those are
every GameService method's ``rpc_handled_total{code="OK"}``, every unary method's
``rpc_duration_seconds``, the commit conflicts and retries of every entry point that commits
(:data:`COMMIT_METHODS`) and every bot's ``bot_think_seconds``. The store operations' series
are made as the metered store first wraps each operation (``service.store.metered``).
"""

from __future__ import annotations

import collections
import contextlib
import functools
import gc
import os
import shutil
import tempfile
import time
from collections.abc import Iterator

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, start_http_server
from prometheus_client import multiprocess as _multiprocess

from bots import BOTS
from cardgame.v1 import game_service_pb2

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
METHODS = tuple(m.name for m in game_service_pb2.DESCRIPTOR.services_by_name["GameService"].methods)
STREAMING = frozenset(m.name for m in game_service_pb2.DESCRIPTOR.services_by_name["GameService"].methods
                      if m.server_streaming)
# The ``method`` label of a commit that lost (``Table.transact``): the move RPCs (the six older
# ones and Act), the lifecycle RPCs that commit, and the sweeper's Timeout.
COMMIT_METHODS = ("Deal", "Draw", "RevealHand", "Bid", "Exchange", "Play", "Act", "ReissueSeatToken", "LeaveGame",
                  "Timeout")

_LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_STORE_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
_GC_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25)
_BOT_BUCKETS = (0.0001, 0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

RPC_HANDLED = Counter("cardgame_rpc_handled", "Calls finished, by method and gRPC status code", ["method", "code"])
RPC_DURATION = Histogram("cardgame_rpc_duration_seconds", "Latency of unary calls, by method", ["method"],
                         buckets=_LATENCY_BUCKETS)
WATCH_STREAMS = Gauge("cardgame_watch_streams", "WatchGame streams open now", multiprocess_mode="livesum")
COMMIT_CONFLICTS = Counter("cardgame_commit_conflicts",
                           "Commits that lost to a concurrent change of the game (stale version)", ["method"])
COMMIT_RETRIES = Counter("cardgame_commit_retries",
                         "Lost commits tried again against the fresh state (no expected_version given)", ["method"])
STORE_DURATION = Histogram("cardgame_store_duration_seconds", "Latency of game store calls, by operation",
                           ["operation"], buckets=_STORE_BUCKETS)
STORE_ERRORS = Counter("cardgame_store_errors", "Game store calls that failed, by operation", ["operation"])
STORE_FULL = Counter("cardgame_store_full", "Store writes Redis refused for lack of memory (OOM at maxmemory), "
                     "answered RESOURCE_EXHAUSTED STORE_FULL")
BOT_THINK = Histogram("cardgame_bot_think_seconds", "Time a bot takes to choose one action, by strategy",
                      ["strategy"], buckets=_BOT_BUCKETS)
TURN_TIMEOUTS = Counter("cardgame_turn_timeouts", "Turns that passed their deadline and were played by the seat's "
                        "fallback bot")
GAMES_CREATED = Counter("cardgame_games_created", "Games stored by CreateGame")
GAMES_FINISHED = Counter("cardgame_games_finished", "Games whose last hand was committed")
GC_PAUSE = Histogram("cardgame_gc_pause_seconds", "Collections of the cyclic garbage collector, by generation",
                     ["generation"], buckets=_GC_BUCKETS)
BUILD_INFO = Gauge("cardgame_build_info", "The release this server runs, as its version label (always 1)",
                   ["version"], multiprocess_mode="max")


def _zero_series() -> None:
    """Make, at 0, every series above whose labels are known before the first count."""
    for method in METHODS:
        RPC_HANDLED.labels(method, "OK")
        if method not in STREAMING:
            RPC_DURATION.labels(method)
    for method in COMMIT_METHODS:
        COMMIT_CONFLICTS.labels(method)
        COMMIT_RETRIES.labels(method)
    for strategy in BOTS:
        BOT_THINK.labels(strategy)


_zero_series()


def build_info(version: str) -> None:
    """Label this process's ``build_info`` series with the release it runs."""
    BUILD_INFO.labels(version).set(1)


def rpc_started(method: str) -> None:
    """Count a call that began (a WatchGame stream is open from now on)."""
    if method in STREAMING:
        WATCH_STREAMS.inc()


@functools.cache
def _handled(method: str, code: str) -> Counter:
    return RPC_HANDLED.labels(method, code)  # a series per method and code, looked up once


@functools.cache
def _duration(method: str) -> Histogram:
    return RPC_DURATION.labels(method)


def rpc_finished(method: str, code: str, seconds: float) -> None:
    """Count a call that ended with status ``code`` after ``seconds`` (and the garbage
    collections timed meanwhile)."""
    if _gc_pending:
        flush_gc()
    _handled(method, code).inc()
    if method in STREAMING:
        WATCH_STREAMS.dec()
    else:
        _duration(method).observe(seconds)


def store_full() -> None:
    """Count a call refused because the store was out of memory."""
    STORE_FULL.inc()


def commit_lost(method: str, retried: bool) -> None:
    """Count a commit that lost to a concurrent change, and whether it is tried again."""
    COMMIT_CONFLICTS.labels(method).inc()
    if retried:
        COMMIT_RETRIES.labels(method).inc()


def bot_thinking(strategy: str) -> contextlib.AbstractContextManager[object]:
    """A context that times one bot decision of ``strategy``."""
    return BOT_THINK.labels(strategy).time()


def time_gc() -> None:
    """Time every garbage collection of this process into ``gc_pause_seconds`` (once per process;
    its series, one per generation, exist from then on). The collector's callback only queues
    each pause; :func:`flush_gc` (at the end of every call) observes them. A collection can start
    in any allocation, such as one made while a metric's lock is held (with several workers one
    lock guards every series), and observing from the callback would take that lock again."""
    if _gc_pause in gc.callbacks:
        return
    _gc_series[:] = [GC_PAUSE.labels(str(generation)) for generation in range(3)]
    gc.callbacks.append(_gc_pause)


_gc_began = [0.0]
_gc_series: list[Histogram] = []
_gc_pending: collections.deque[tuple[int, float]] = collections.deque(maxlen=10_000)  # (generation, s)


def _gc_pause(phase: str, info: dict) -> None:
    if phase == "start":
        _gc_began[0] = time.perf_counter()
    else:
        _gc_pending.append((info["generation"], time.perf_counter() - _gc_began[0]))


def flush_gc() -> None:
    """Observe the garbage collections timed since the last flush."""
    while _gc_pending:
        try:
            generation, seconds = _gc_pending.popleft()
        except IndexError:   # another thread took the last one
            return
        _gc_series[generation].observe(seconds)


class Exporter:
    """The HTTP endpoint (``/metrics``, any path) serving a registry on ``host:port`` from a thread."""

    def __init__(self, host: str, port: int, registry: CollectorRegistry = REGISTRY, directory: str = ""):
        try:
            self._httpd, self._thread = start_http_server(port, host.strip("[]"), registry)
        except OSError as exc:
            raise SystemExit(f"cannot serve metrics on {host}:{port}: {exc.strerror or exc}") from None
        self.host = host
        self.port: int = self._httpd.server_address[1]
        self.directory = directory

    def close(self) -> None:
        """Stop serving (and remove the multiprocess directory, if this exporter made one)."""
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(5)
        if self.directory:
            shutil.rmtree(self.directory, ignore_errors=True)


def serve_process(host: str, port: int) -> Exporter:
    """Serve this process's metrics (a single-process server)."""
    return Exporter(host, port)


def serve_workers(host: str, port: int) -> Exporter:
    """In the supervisor, before any worker starts: make this run's multiprocess directory, hand it
    to the workers to come through the environment, and serve the sum of their metrics."""
    directory = tempfile.mkdtemp(prefix="cardgame-metrics-")
    os.environ[MULTIPROC_ENV] = directory
    registry = CollectorRegistry()
    _multiprocess.MultiProcessCollector(registry, path=directory)
    try:
        return Exporter(host, port, registry, directory)
    except SystemExit:
        shutil.rmtree(directory, ignore_errors=True)
        raise


def worker_exited(exporter: Exporter | None, pid: int) -> None:
    """In the supervisor: drop a dead worker's live gauges (its counters and histograms stay counted)."""
    if exporter is not None and exporter.directory:
        _multiprocess.mark_process_dead(pid, exporter.directory)


@contextlib.contextmanager
def exporting(host: str, port: int | None, workers: bool) -> Iterator[Exporter | None]:
    """Serve metrics on ``port`` (None: no endpoint) for the block's duration."""
    if port is None:
        yield None
        return
    exporter = serve_workers(host, port) if workers else serve_process(host, port)
    try:
        yield exporter
    finally:
        exporter.close()

