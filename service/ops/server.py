"""Start the gRPC server: GameService, health, reflection, graceful shutdown, worker processes;
JSON logs, metrics, tracing and TLS as configured."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import importlib
import logging
import secrets
import signal
import sys
import time
from collections.abc import Iterator
from types import ModuleType
from typing import TYPE_CHECKING, Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer

from cardgame.v1 import game_service_pb2
from service.ops.config import Config
from service.ops.cpus import available_cpus
from service.ops.credentials import warn_about_secret_flags
from service.ops.tls import server_tls
from service.ops.workers import check_port_free, reserve_port, stop_with_parent, supervise
from service.rpc import reflection
from service.rpc.apikeys import ApiKeys
from service.rpc.calls import CallCap
from service.rpc.handlers import add_game_service
from service.rpc.health import follow_store
from service.rpc.servicer import GameServicer
from service.rpc.settings import Settings
from service.rpc.stream_gate import StreamLimits
from service.store import Store, StoreUnavailable
from service.store.backends import open_store
from service.store.metered import metered
from service.table import bot_turns
from service.table.lifecycle import MIN_TURN_TIMEOUT_MS, SHORT_TURN_TIMEOUT_MS
from service.table.sweeper import Sweeper
from service.telemetry import logs, metrics, tracing
from service.version import release

if TYPE_CHECKING:
    from service.http.server import HttpServer

log = logging.getLogger("cardgame.server")
SERVICE_NAME = game_service_pb2.DESCRIPTOR.services_by_name["GameService"].full_name
HEALTH_NAMES = ("", SERVICE_NAME)
MAX_MESSAGE_BYTES = 1 << 20
# Young-generation collections come at a pace the calls set, whatever the threshold: grpc.aio
# leaves a few objects of cyclic garbage behind every call (its handler look-up's closure and
# call details), which only the collector frees. The threshold sets how long each collection
# stops the process: measured under `make bench`'s load, at 50,000 objects a collection took
# 50-105 ms (a call's whole latency budget many times over) and 311 ms in all; at 2,000, at most
# about 1 ms and 60 ms in all (cardgame_gc_pause_seconds shows it in production).
GC_GEN0_THRESHOLD = 2000
# Calls gRPC has received but this process has not yet taken up. Past grpc's own bound (1000,
# at most 3000) it cancels them at random, and the client sees a bare CANCELLED; here the bound
# is far above what the per-connection stream limit lets a client pile up, so every call is
# taken up and answered (beyond --max-concurrent-rpcs with RESOURCE_EXHAUSTED).
MAX_PENDING_CALLS = 100_000
# gRPC's own limiter counts a call from its arrival until its status is sent, refusals included,
# and answers a bare "Concurrent RPC limit exceeded!". The API's cap (service.rpc.calls) is the
# one meant to answer, with a reason and RetryInfo: gRPC's stays far above it (twice the cap plus
# RPC_HEADROOM), a last resort against a flood that also leaves room for health checks.
RPC_HEADROOM = 1000


def rpc_backstop(config: Config) -> int:
    """gRPC's own cap on calls in progress, well above the API's (see RPC_HEADROOM)."""
    return 2 * config.max_concurrent_rpcs + RPC_HEADROOM


def grpc_options(config: Config) -> list[tuple[str, Any]]:
    """The gRPC server's channel options: message size, keepalive, the per-connection stream
    limit, the bound on a connection's reset streams and the queue of calls not yet taken up."""
    limit = config.max_streams_per_connection
    return [
        ("grpc.so_reuseport", 1),
        ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
        # ping idle connections so that streams to dead peers end instead of lingering
        ("grpc.keepalive_time_ms", 30_000),
        ("grpc.keepalive_timeout_ms", 10_000),
        # SETTINGS_MAX_CONCURRENT_STREAMS: a client queues its calls beyond it on its side.
        ("grpc.max_concurrent_streams", limit),
        # HTTP/2 rapid reset (CVE-2023-44487): a stream its client resets at once stops counting
        # against that limit, but its call lives on until this process has taken it up and let
        # it go. With gRPC's "overload protection" off, one connection opening and resetting
        # streams in a loop piled calls up without bound (50,000 resets: +350-500 MB, not given
        # back; an honest GetGame waited seconds). On, gRPC counts the calls still allocated and
        # refuses a new stream past the limit plus max_deallocating_streams (RST_STREAM
        # REFUSED_STREAM, before any call exists). Without that headroom (grpc's default is 0)
        # a client keeping the limit's worth of calls going had its next ones refused
        # (UNAVAILABLE) while its finished streams were still being let go, which is why
        # protection was off; with the limit again as headroom an honest client, which never
        # has more than the limit open, is not refused, and an abuser holds at most twice the
        # limit of calls (+10-20 MB at 200).
        ("grpc.http.overload_protection", 1),
        ("grpc.http2.max_deallocating_streams", limit),
        # grpc 1.85 has no count of reset streams that ends a connection: nothing sends GOAWAY
        # for resets as such. It can answer every RST_STREAM with a PING (rate-limited: at most
        # one unanswered) and end a connection whose PING goes unanswered: an abuser that never
        # answers is sent GOAWAY (ENHANCE_YOUR_CALM, "ping_timeout") and cut off 10 s after its
        # first reset, as keepalive would cut a dead peer; every gRPC client answers PINGs in its
        # transport. An abuser that answers them keeps its connection, held to the refusals
        # above, and still keeps up to twice the limit of cancelled calls queued ahead of other
        # clients' calls (150-500 ms for an honest call at 200: tests/ops/test_rapid_reset.py).
        ("grpc.http2.ping_on_rst_stream_percent", 100),
        ("grpc.http2.ping_timeout_ms", 10_000),
        ("grpc.server.max_pending_requests", MAX_PENDING_CALLS),
        ("grpc.server.max_pending_requests_hard_limit", MAX_PENDING_CALLS),
    ]


def configure_logging(level: str) -> None:
    """Every log record of this process as one JSON line on stderr (service.logs)."""
    logs.configure(level)


@contextlib.contextmanager
def _exit_logged() -> Iterator[None]:
    """End this process on a log line: a fatal error's message (SystemExit with text) or an
    uncaught exception's traceback is logged as JSON, and the process exits with status 1."""
    try:
        yield
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            raise
        log.critical("%s", exc.code)
        raise SystemExit(1) from None
    except Exception:
        log.exception("the server failed")
        raise SystemExit(1) from None


async def serve(config: Config, stop: asyncio.Event | None = None) -> None:
    """Serve until SIGTERM/SIGINT (or ``stop`` is set), then drain in-flight calls and exit."""
    tracer = tracing.start(config.otel)
    store = open_store(config.redis_url or None, **_store_options(config))
    if config.metrics_port is not None:
        store = metered(store)
    tls = server_tls(config.tls_cert, config.tls_key, config.tls_client_ca)
    server = grpc.aio.server(interceptors=[tracer.interceptor()] if tracer else None,
                             maximum_concurrent_rpcs=rpc_backstop(config), options=grpc_options(config))
    bot_turns.configure(config.strong_bot_ms / 1000 if config.strong_bot_ms else None, available_cpus())
    servicer = GameServicer(store, _settings(config))
    add_game_service(servicer, server)
    health = HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    for more in config.more_handlers:
        server.add_generic_rpc_handlers((more(store, servicer.settings.call_cap),))
    reflection.enable((SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name), server)
    address = f"{config.host}:{config.port}"
    port = server.add_secure_port(address, tls.credentials()) if tls else server.add_insecure_port(address)
    ready = await _check_store(store, config)
    await server.start()
    http = await serve_http(servicer, config)  # Connect and gRPC-Web; None without --http-port
    for name in HEALTH_NAMES:
        await health.set(name, health_pb2.HealthCheckResponse.SERVING if ready else
                         health_pb2.HealthCheckResponse.NOT_SERVING)
    sweeper = asyncio.get_running_loop().create_task(Sweeper(servicer.table).run(), name="sweeper")
    monitor = asyncio.get_running_loop().create_task(follow_store(store, health, HEALTH_NAMES, ready),
                                                   name="store-health")
    store_name = "redis" if config.redis_url else "memory"
    security = "mutual" if tls and tls.client_ca else "on" if tls else "off"
    metrics.build_info(release())
    logs.announce(log, "cardgame server listening on %s:%d (store: %s, TLS: %s, version %s)", config.host, port,
                  store_name, security, release(), host=config.host, port=port, store=store_name, tls=security,
                  tracing=tracer is not None, version=release())

    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("shutting down: health NOT_SERVING for %.1f s, then open streams ended and up to %.1f s for "
             "in-flight calls", config.drain_s, config.grace_s)
    monitor.cancel()
    sweeper.cancel()
    await health.enter_graceful_shutdown()
    await asyncio.sleep(config.drain_s)  # let load balancers see NOT_SERVING and move traffic away
    # Streams never finish by themselves: end them now (both ports), UNAVAILABLE, so that their
    # clients resume at once on another instance. New calls are refused UNAVAILABLE from here on
    # (clients send them again; stopping the gRPC server at once would answer CANCELLED to those
    # it had received and not begun) while the calls in flight finish, within the grace; then
    # both servers stop, with what is left of the grace for any call begun in between.
    ended = servicer.streams.close()
    calls = servicer.settings.call_cap
    calls.close()
    stopped = time.monotonic()
    await calls.settled(config.grace_s)
    left = max(0.0, config.grace_s - (time.monotonic() - stopped))
    await asyncio.gather(server.stop(left), *([http.stop()] if http else []))
    log.info("stopped: %d open streams ended, in-flight calls finished in %.2f s", ended,
             time.monotonic() - stopped, extra={"streams_ended": ended})
    await servicer.lifecycle.event_feed.close()
    await store.close()
    if tracer:
        tracer.shutdown()


def _settings(config: Config) -> Settings:
    """What requests may do on this server, with its credentials."""
    secret = config.token_secret
    if not secret:  # only for the in-memory store, whose games end with this process anyway
        secret = secrets.token_bytes(32)
        log.warning("no token secret configured: using a random one that lives as long as this process")
    keys = ApiKeys(config.api_keys)
    if keys.required:
        log.info("CreateGame needs one of %d API keys; each may create %g games a second (burst %d) and "
                 "hold %s at once", len(keys), config.create_rate, config.create_burst,
                 config.max_games_per_key or "any number of games")
        log.info("each API key may hold %s WatchEvents streams open in this process, sent %s bytes of events a "
                 "minute", config.max_event_streams_per_key or "any number of",
                 config.max_event_bytes_per_key_per_minute or "any number of")
    else:
        log.warning("no API keys configured: any caller may create games (configure CARDGAME_API_KEYS)")
    return Settings(allow_prearranged_decks=config.allow_prearranged_decks,
                    allow_seeded_shuffle=config.allow_seeded_shuffle, stream_limits=stream_limits(config),
                    min_turn_timeout_ms=SHORT_TURN_TIMEOUT_MS if config.allow_short_deadlines else MIN_TURN_TIMEOUT_MS,
                    token_secret=secret, api_keys=keys, create_rate=config.create_rate,
                    create_burst=config.create_burst, max_games_per_key=config.max_games_per_key,
                    events_max_len=config.events_max_len,
                    previous_token_secrets=config.previous_token_secrets,
                    call_cap=CallCap(config.max_concurrent_rpcs))


def stream_limits(config: Config) -> StreamLimits:
    """The caps on open streams: at most half the RPC cap for all of them together, so health
    checks and moves always find room; and each API key's quotas of WatchEvents streams and bytes."""
    return StreamLimits(per_process=max(1, min(config.max_streams, config.max_concurrent_rpcs // 2)),
                        per_connection=config.max_watches_per_connection,
                        per_address=config.max_streams_per_address, per_game=config.max_watchers_per_game,
                        per_key=config.max_event_streams_per_key,
                        key_bytes_per_minute=config.max_event_bytes_per_key_per_minute)


def check_token_secret(config: Config) -> None:
    """Exit with a clear message when a shared store has no token secret to derive seat tokens from."""
    if config.redis_url and not config.token_secret:
        sys.exit("a Redis store needs a token secret shared by every instance: set CARDGAME_TOKEN_SECRET "
                 "(or --token-secret / --token-secret-file) to at least 32 random bytes, "
                 "e.g. from `python -c 'import secrets; print(secrets.token_urlsafe(32))'`")


async def _check_store(store: Store, config: Config) -> bool:
    """Warm the store's connections up (a cluster client learns its slots) and hear what the store
    finds wrong with its configuration (``configuration_warnings``: a Redis maxmemory-policy other
    than noeviction, which loses games under memory pressure); returns whether it answered. The
    server warns of each, or with ``--require-noeviction`` refuses to start on one."""
    try:
        await store.ping()
    except StoreUnavailable as exc:
        log.warning("game store unreachable at start (%s): health NOT_SERVING until it answers", exc)
        return False
    warnings = await store.configuration_warnings()
    if warnings and config.require_noeviction:
        raise SystemExit("; ".join(warnings))
    for message in warnings:
        log.warning(message)
    return True


def _store_options(config: Config) -> dict[str, Any]:
    options: dict[str, Any] = {"idle_ttl_s": config.idle_ttl_s, "finished_ttl_s": config.finished_ttl_s,
               "request_ttl_s": config.request_ttl_s, "max_requests": config.max_requests}
    if config.redis_url:
        options["prefix"] = config.key_prefix
        options["cluster"] = config.redis_cluster
        options["max_connections"] = config.redis_max_connections
        options["pool_wait_s"] = config.redis_pool_wait_s
    return options


async def serve_http(servicer: GameServicer, config: Config) -> HttpServer | None:
    """Start serving ``servicer`` over HTTP on ``config.http_port`` (Connect, gRPC-Web, the web
    table); None when no HTTP port is set. The HTTP modules load only then."""
    if config.http_port is None:
        return None
    from service.http.app import build_app
    from service.http.server import HttpServer

    app = build_app(servicer, cors_origins=config.cors_origins, web_root=config.web_root,
                    max_unary_calls=config.http_max_calls, call_wait_s=config.http_call_wait_s)
    tls = server_tls(config.tls_cert, config.tls_key, config.tls_client_ca)
    server = HttpServer(app, config.host, config.http_port, config.grace_s, tls,
                        header_timeout_s=config.http_header_timeout_s, idle_timeout_s=config.http_idle_timeout_s)
    await server.start()
    return server


def load_module(name: str, what: str) -> ModuleType:
    """Import a module named in the configuration; exit with a clear message if it fails."""
    try:
        return importlib.import_module(name)
    except Exception as exc:
        sys.exit(f"cannot load {what} module {name!r}: {type(exc).__name__}: {exc}")


def load_game_modules(names: tuple[str, ...]) -> None:
    """Import each module that registers games of its own; exit with a clear message if one fails."""
    for name in names:
        load_module(name, "game")


def run_worker(config: Config, parent_pid: int) -> None:
    """Run one worker process of ``run`` (its metrics go to the supervisor), stopping when the parent is gone."""
    configure_logging(config.log_level)
    stop_with_parent(parent_pid)
    with _exit_logged():
        _run_process(config)


def run_one(config: Config) -> None:
    """Run one server process to completion, serving its own metrics when asked."""
    configure_logging(config.log_level)
    with _exit_logged(), metrics.exporting(config.host, config.metrics_port, workers=False) as exporter:
        _announce_metrics(exporter)
        _run_process(config)


def _announce_metrics(exporter: metrics.Exporter | None) -> None:
    if exporter is not None:
        logs.announce(log, "cardgame metrics on http://%s:%d/metrics", exporter.host, exporter.port,
                      host=exporter.host, metrics_port=exporter.port, metrics_dir=exporter.directory or None)


def _run_process(config: Config) -> None:
    """Serve in this process until it is told to stop."""
    load_game_modules(config.game_modules)
    # Keep the long-lived start-up objects out of every collection, and collect the young
    # generation often enough that no collection is long (GC_GEN0_THRESHOLD); time each.
    gc.freeze()
    gc.set_threshold(GC_GEN0_THRESHOLD, 20, 20)
    metrics.time_gc()
    if config.uvloop:
        try:
            import uvloop
        except ImportError:
            pass
        else:
            uvloop.run(serve(config))
            return
    asyncio.run(serve(config))


def run(config: Config) -> None:
    """Run ``config.workers`` server processes on one port (SO_REUSEPORT), or one in this process.

    With several workers this process supervises them and serves their metrics' sum."""
    configure_logging(config.log_level)
    warn_about_secret_flags(config.secret_flags)
    with _exit_logged():
        check_token_secret(config)
        check_port_free(config.host, config.port)
        if config.http_port:
            check_port_free(config.host, config.http_port)
    if config.workers <= 1:
        run_one(config)
        return
    with _exit_logged(), contextlib.ExitStack() as reserved:
        # Port 0 for several workers: the kernel picks one port here, which they all serve.
        if config.port == 0:
            config = dataclasses.replace(config, port=_reserved(reserved, config.host))
        if config.http_port == 0:
            config = dataclasses.replace(config, http_port=_reserved(reserved, config.host))
        with metrics.exporting(config.host, config.metrics_port, workers=True) as exporter:
            load_game_modules(config.game_modules)  # fail before starting any worker
            _announce_metrics(exporter)
            supervise(config.workers, run_worker, (config,), lambda pid: metrics.worker_exited(exporter, pid))


def _reserved(held: contextlib.ExitStack, host: str) -> int:
    """A port for every worker to serve, held by this process until ``held`` closes."""
    return held.enter_context(reserve_port(host)).getsockname()[1]
