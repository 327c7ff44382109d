"""Server configuration from command-line flags, falling back to environment variables."""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import grpc

from service.ops import tls
from service.ops.cpus import available_cpus
from service.ops.credentials import SecretFlag, read_secrets
from service.rpc.calls import CallCap
from service.store import Store
from service.table.creating import DEFAULT_MAX_GAMES
from service.table.lifecycle import MIN_TURN_TIMEOUT_MS, SHORT_TURN_TIMEOUT_MS
from service.version import release

MAX_STRONG_BOT_MS = 10_000   # a bot turn holds its game's commit: seconds at most
MAX_HTTP_TIMEOUT_S = 86_400.0
MAX_WAIT_S = 60.0            # the longest a call may be told to wait for a connection or an HTTP slot

log = logging.getLogger("cardgame.config")


@dataclass
class Config:
    """Everything the server can be told at start."""

    host: str = "0.0.0.0"
    port: int = 50051
    redis_url: str = ""
    redis_cluster: bool = False
    key_prefix: str = "cardgame"
    workers: int = 1
    idle_ttl_s: int = 7 * 86400
    finished_ttl_s: int = 86400
    request_ttl_s: int = 86400
    max_requests: int = 64
    log_level: str = "INFO"
    grace_s: float = 10.0
    drain_s: float = 1.0
    allow_prearranged_decks: bool = False
    allow_seeded_shuffle: bool = False
    allow_short_deadlines: bool = False
    more_handlers: tuple[Callable[[Store, CallCap], grpc.GenericRpcHandler], ...] = ()
    """More gRPC methods to serve beside GameService, for a program that embeds the server (no flag
    sets them): each is called as ``more(store, cap)`` (``cap``: the server's cap on calls in
    progress) and its handler served on the gRPC port; module-level functions, so that workers get them."""
    uvloop: bool = True
    game_modules: tuple[str, ...] = ()
    require_noeviction: bool = False
    http_port: int | None = None
    cors_origins: tuple[str, ...] = ()
    web_root: str = ""
    max_concurrent_rpcs: int = 2000
    max_watches_per_connection: int = 100
    max_streams: int = 1000
    max_streams_per_address: int = 200
    max_watchers_per_game: int = 500
    redis_max_connections: int = 64
    redis_pool_wait_s: float = 0.5
    max_streams_per_connection: int = 200
    http_max_calls: int = 0   # 0: automatic, resolved from the store and the other caps by parse()
    http_call_wait_s: float = 0.5
    token_secret: bytes = b""
    previous_token_secrets: tuple[bytes, ...] = ()
    api_keys: tuple[str, ...] = ()
    create_rate: float = 5.0
    create_burst: int = 100
    max_games_per_key: int = DEFAULT_MAX_GAMES   # 0: no cap
    max_event_streams_per_key: int = 20   # 0: no cap
    max_event_bytes_per_key_per_minute: int = 50_000_000   # 0: no cap
    events_max_len: int = 100_000
    strong_bot_ms: int = 200
    metrics_port: int | None = None
    otel: bool = False
    tls_cert: str = ""
    tls_key: str = ""
    tls_client_ca: str = ""
    http_header_timeout_s: float = 10.0
    http_idle_timeout_s: float = 30.0
    secret_flags: tuple[str, ...] = ()  # the secret-carrying flags given on the command line


def _env_bool(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` shows every flag's default (its environment variable's value when set), but
    never the value of a flag that carries a secret (a :class:`SecretFlag`)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if isinstance(action, SecretFlag):
            return action.help
        return super()._get_help_string(action)


def _http(p: argparse.ArgumentParser, a: argparse.Namespace) -> dict:
    """The HTTP port's options (see service.http), checked."""
    if a.http_port is not None and not 0 <= a.http_port <= 65535:
        p.error("--http-port must be a port number (0 = any free port)")
    for name in ("http_header_timeout", "http_idle_timeout"):
        if not 0 < getattr(a, name) <= MAX_HTTP_TIMEOUT_S:
            p.error(f"--{name.replace('_', '-')} must be above 0 and at most {MAX_HTTP_TIMEOUT_S:g} seconds")
    return {"http_port": a.http_port, "cors_origins": tuple(o.strip() for o in a.cors_origins if o.strip()),
            "web_root": a.web_root, "http_header_timeout_s": a.http_header_timeout,
            "http_idle_timeout_s": a.http_idle_timeout}


def _overload(p: argparse.ArgumentParser, a: argparse.Namespace) -> dict:
    """The limits that shape the answers under overload (per-connection streams, the Redis pool's
    wait, the HTTP port's calls), checked against each other."""
    if a.max_streams_per_connection <= a.max_watches_per_connection:
        p.error(f"--max-streams-per-connection ({a.max_streams_per_connection}) must be above "
                f"--max-watches-per-connection ({a.max_watches_per_connection}), so that a connection holding "
                "all the watches it may still has room for other calls")
    for name in ("redis_pool_wait", "http_call_wait"):
        if not 0 < getattr(a, name) <= MAX_WAIT_S:
            p.error(f"--{name.replace('_', '-')} must be above 0 and at most {MAX_WAIT_S:g} seconds")
    http_max_calls = a.http_max_calls
    if http_max_calls < 0:
        p.error("--http-max-calls must be 0 (automatic) or more")
    if a.redis_url:
        if a.redis_max_connections < 2:
            p.error("--redis-max-connections must be at least 2 with a Redis store")
        http_max_calls = http_max_calls or max(1, a.redis_max_connections * 3 // 4)
        if http_max_calls >= a.redis_max_connections:
            p.error(f"--http-max-calls ({http_max_calls}) must be below --redis-max-connections "
                    f"({a.redis_max_connections}), so that the HTTP port alone cannot take every Redis connection "
                    "and gRPC calls keep some")
    http_max_calls = min(http_max_calls or a.max_concurrent_rpcs, a.max_concurrent_rpcs)
    return {"redis_pool_wait_s": a.redis_pool_wait, "max_streams_per_connection": a.max_streams_per_connection,
            "http_max_calls": http_max_calls, "http_call_wait_s": a.http_call_wait}


def _key_quotas(p: argparse.ArgumentParser, a: argparse.Namespace) -> dict:
    """The caps on each API key's WatchEvents streams, checked."""
    for name in ("max_event_streams_per_key", "max_event_bytes_per_key_per_minute"):
        if getattr(a, name) < 0:
            p.error(f"--{name.replace('_', '-')} must be 0 (no cap) or more")
    return {"max_event_streams_per_key": a.max_event_streams_per_key,
            "max_event_bytes_per_key_per_minute": a.max_event_bytes_per_key_per_minute}


def _operations(p: argparse.ArgumentParser, a: argparse.Namespace) -> dict:
    """The metrics, tracing and TLS options, checked (see service.telemetry.metrics,
    service.telemetry.tracing, service.ops.tls)."""
    if a.metrics_port is not None and not 0 <= a.metrics_port <= 65535:
        p.error("--metrics-port must be a port number (0 = any free port)")
    try:
        tls.server_tls(a.tls_cert, a.tls_key, a.tls_client_ca)
    except ValueError as exc:
        p.error(str(exc))
    return {"metrics_port": a.metrics_port, "otel": a.otel, "tls_cert": a.tls_cert, "tls_key": a.tls_key,
            "tls_client_ca": a.tls_client_ca}


def is_loopback(host: str) -> bool:
    """Whether a listening address is reachable from this machine only."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def parse(argv: list[str] | None = None) -> Config:
    """The configuration from ``argv`` and the environment (flags win)."""
    env = os.environ.get
    p = argparse.ArgumentParser(prog="python -m service", description="Card game rules engine gRPC server",
                                formatter_class=HelpFormatter)
    p.add_argument("--version", action="version", version=f"cardgame server {release()}")
    p.add_argument("--host", default=env("HOST", "0.0.0.0"), help="address to listen on (HOST)")
    p.add_argument("--port", type=int, default=int(env("PORT", "50051")),
                   help="port (PORT), 0 = any free port (every worker serves the same one)")
    p.add_argument("--redis-url", default=env("REDIS_URL", ""),
                   help="Redis URL (REDIS_URL); without it games live in this process's memory")
    p.add_argument("--redis-cluster", action="store_true", default=_env_bool("REDIS_CLUSTER"),
                   help="REDIS_URL names a node of a Redis Cluster (REDIS_CLUSTER)")
    p.add_argument("--key-prefix", default=env("KEY_PREFIX", "cardgame"), help="Redis key prefix (KEY_PREFIX)")
    p.add_argument("--workers", type=int, default=int(env("WORKERS", "0")),
                   help="server processes sharing the port (WORKERS); 0 = one per CPU this process may use "
                        "(its CPU affinity, at most its cgroup CPU quota)")
    p.add_argument("--idle-ttl", type=int, default=int(env("IDLE_TTL_S", str(Config.idle_ttl_s))),
                   help="seconds an idle unfinished game is kept (IDLE_TTL_S)")
    p.add_argument("--finished-ttl", type=int, default=int(env("FINISHED_TTL_S", str(Config.finished_ttl_s))),
                   help="seconds a finished game is kept (FINISHED_TTL_S)")
    p.add_argument("--request-ttl", type=int, default=int(env("REQUEST_TTL_S", str(Config.request_ttl_s))),
                   help="seconds a request id is remembered for retries (REQUEST_TTL_S)")
    p.add_argument("--max-requests", type=int, default=int(env("MAX_REQUESTS", str(Config.max_requests))),
                   help="request ids per game whose retries are recognised (MAX_REQUESTS)")
    p.add_argument("--log-level", default=env("LOG_LEVEL", "INFO"), help="DEBUG, INFO, WARNING… (LOG_LEVEL)")
    p.add_argument("--grace", type=float, default=float(env("GRACE_S", "10")),
                   help="seconds in-flight calls get to finish on SIGTERM (GRACE_S)")
    p.add_argument("--drain", type=float, default=float(env("DRAIN_S", "1")),
                   help="seconds health says NOT_SERVING before the server stops taking calls (DRAIN_S)")
    p.add_argument("--allow-prearranged-decks", action="store_true", default=_env_bool("ALLOW_PREARRANGED_DECKS"),
                   help="accept CreateGame.decks (tests, duplicate tournaments) (ALLOW_PREARRANGED_DECKS)")
    p.add_argument("--allow-short-deadlines", action="store_true", default=_env_bool("ALLOW_SHORT_DEADLINES"),
                   help=f"test mode: turn deadlines (lifecycle.turn_timeout_ms) from {SHORT_TURN_TIMEOUT_MS} ms "
                        f"instead of {MIN_TURN_TIMEOUT_MS}, so tests of timeouts wait milliseconds; refused unless "
                        "--host is a loopback address (ALLOW_SHORT_DEADLINES)")
    p.add_argument("--allow-seeded-shuffle", action="store_true", default=_env_bool("ALLOW_SEEDED_SHUFFLE"),
                   help="accept CreateGame.shuffle_seed for reproducible runs (ALLOW_SEEDED_SHUFFLE)")
    p.add_argument("--no-uvloop", action="store_true", default=_env_bool("NO_UVLOOP"),
                   help="use the standard asyncio loop even when uvloop is installed (NO_UVLOOP)")
    p.add_argument("--max-concurrent-rpcs", type=int,
                   default=int(env("MAX_CONCURRENT_RPCS", str(Config.max_concurrent_rpcs))),
                   help="calls of the API (open WatchGame streams included, gRPC and HTTP together) one server "
                        "process handles at once; beyond it calls are refused with RESOURCE_EXHAUSTED, reason "
                        "CONCURRENCY_LIMIT, and a RetryInfo delay; health checks keep room above it "
                        "(MAX_CONCURRENT_RPCS)")
    p.add_argument("--max-watches-per-connection", type=int,
                   default=int(env("MAX_WATCHES_PER_CONNECTION", str(Config.max_watches_per_connection))),
                   help="WatchGame and WatchEvents streams one client connection may hold open at once "
                        "(MAX_WATCHES_PER_CONNECTION)")
    p.add_argument("--max-streams", type=int, default=int(env("MAX_STREAMS", str(Config.max_streams))),
                   help="open streams one server process holds at most, and never more than half of "
                        "--max-concurrent-rpcs, so health checks and moves always find room (MAX_STREAMS)")
    p.add_argument("--max-streams-per-address", type=int,
                   default=int(env("MAX_STREAMS_PER_ADDRESS", str(Config.max_streams_per_address))),
                   help="open streams of one client address, all its connections together "
                        "(MAX_STREAMS_PER_ADDRESS)")
    p.add_argument("--max-watchers-per-game", type=int,
                   default=int(env("MAX_WATCHERS_PER_GAME", str(Config.max_watchers_per_game))),
                   help="open WatchGame streams of one game in one server process (MAX_WATCHERS_PER_GAME)")
    p.add_argument("--redis-max-connections", type=int,
                   default=int(env("REDIS_MAX_CONNECTIONS", str(Config.redis_max_connections))),
                   help="Redis connections per server process (per node in a cluster) that calls share; the "
                        "health check's ping has one more of its own (REDIS_MAX_CONNECTIONS)")
    p.add_argument("--redis-pool-wait", type=float,
                   default=float(env("REDIS_POOL_WAIT_S", str(Config.redis_pool_wait_s))),
                   help="seconds a call waits for a free Redis connection when all --redis-max-connections are in "
                        "use; then it is refused with RESOURCE_EXHAUSTED and a retry delay, which tells an "
                        "overloaded process apart from a store that is down (REDIS_POOL_WAIT_S)")
    p.add_argument("--max-streams-per-connection", type=int,
                   default=int(env("MAX_STREAMS_PER_CONNECTION", str(Config.max_streams_per_connection))),
                   help="HTTP/2 streams (calls in flight) one client connection may have open on the gRPC port "
                        "(SETTINGS_MAX_CONCURRENT_STREAMS); a client queues its further calls until one ends; "
                        "above --max-watches-per-connection (MAX_STREAMS_PER_CONNECTION)")
    p.add_argument("--http-max-calls", type=int, default=int(env("HTTP_MAX_CALLS", str(Config.http_max_calls))),
                   help="unary calls the HTTP port answers at once in one process (streams are capped by "
                        "--max-streams); 0 = three quarters of --redis-max-connections with a Redis store, so "
                        "the HTTP port alone cannot take every Redis connection, else --max-concurrent-rpcs "
                        "(HTTP_MAX_CALLS)")
    p.add_argument("--http-call-wait", type=float,
                   default=float(env("HTTP_CALL_WAIT_S", str(Config.http_call_wait_s))),
                   help="seconds an HTTP call waits for one of --http-max-calls to come free; then it is refused "
                        "with RESOURCE_EXHAUSTED and a retry delay (HTTP_CALL_WAIT_S)")
    p.add_argument("--require-noeviction", action="store_true", default=_env_bool("REQUIRE_NOEVICTION"),
                   help="refuse to start unless Redis runs with maxmemory-policy noeviction (REQUIRE_NOEVICTION)")
    p.add_argument("--http-port", type=int, default=int(env("HTTP_PORT", "")) if env("HTTP_PORT") else None,
                   help="also serve the API over HTTP on this port: Connect (JSON and binary), gRPC-Web and "
                        "the web table (HTTP_PORT); off by default, 0 = any free port (every worker serves the "
                        "same one)")
    p.add_argument("--cors-origin", action="append", dest="cors_origins",
                   default=[o for o in env("CORS_ORIGINS", "").split(",") if o.strip()],
                   help="an origin whose pages may call the HTTP port, e.g. http://localhost:5173, or * "
                        "(repeatable; CORS_ORIGINS, comma-separated); none = only the port's own pages")
    p.add_argument("--web-root", default=env("WEB_ROOT", str(Path(__file__).resolve().parents[2] / "web" / "dist")),
                   help="directory of the web table's static files, served by the HTTP port (WEB_ROOT)")
    p.add_argument("--http-header-timeout", type=float,
                   default=float(env("HTTP_HEADER_TIMEOUT_S", str(Config.http_header_timeout_s))),
                   help="seconds an HTTP port client has to send a request's headers, counted from the "
                        "connection's start or from the first byte of a later request; then the connection is "
                        "closed (HTTP_HEADER_TIMEOUT_S)")
    p.add_argument("--http-idle-timeout", type=float,
                   default=float(env("HTTP_IDLE_TIMEOUT_S", str(Config.http_idle_timeout_s))),
                   help="seconds an HTTP port connection may stay silent with no request in progress (keep-alive "
                        "between requests) before it is closed (HTTP_IDLE_TIMEOUT_S)")
    p.add_argument("--metrics-port", type=int,
                   default=int(env("METRICS_PORT", "")) if env("METRICS_PORT") else None,
                   help="serve Prometheus metrics over HTTP on this port, at /metrics (METRICS_PORT); off by "
                        "default, 0 = any free port; with several workers the supervisor serves their sum")
    p.add_argument("--otel", action="store_true", default=_env_bool("OTEL_ENABLED"),
                   help="trace every gRPC call with OpenTelemetry, exported over OTLP (OTEL_ENABLED); also on "
                        "when OTEL_EXPORTER_OTLP_ENDPOINT is set, configured by the standard OTEL_* variables")
    p.add_argument("--tls-cert", default=env("TLS_CERT", ""),
                   help="PEM certificate (chain) of the server: with --tls-key, the gRPC and HTTP ports speak "
                        "TLS only (TLS_CERT)")
    p.add_argument("--tls-key", default=env("TLS_KEY", ""), help="PEM private key of --tls-cert (TLS_KEY)")
    p.add_argument("--tls-client-ca", default=env("TLS_CLIENT_CA", ""),
                   help="PEM CA certificate(s): require every client to present a certificate they signed, "
                        "mutual TLS (TLS_CLIENT_CA)")
    p.add_argument("--game-module", action="append", dest="game_modules",
                   default=[m for m in env("GAME_MODULES", "").split(",") if m.strip()],
                   help="a Python module to import at start-up that registers more games with "
                        "engine.register (repeatable; GAME_MODULES, comma-separated)")
    p.add_argument("--token-secret", default=env("CARDGAME_TOKEN_SECRET", ""), action=SecretFlag,
                   help="secret (at least 32 bytes) from which seat tokens of games created with a request id "
                        "are derived; the same on every instance, never stored in Redis (CARDGAME_TOKEN_SECRET); "
                        "required with a Redis store")
    p.add_argument("--token-secret-file", default=env("CARDGAME_TOKEN_SECRET_FILE", ""),
                   help="read the token secret from this file instead (CARDGAME_TOKEN_SECRET_FILE)")
    p.add_argument("--token-secret-previous", default=env("CARDGAME_TOKEN_SECRET_PREVIOUS", ""),
                   action=SecretFlag,
                   help="earlier token secrets, comma-separated, kept after a rotation so that retries of "
                        "CreateGame and ReissueSeatToken made under them still return their tokens; new tokens "
                        "always come from --token-secret (CARDGAME_TOKEN_SECRET_PREVIOUS)")
    p.add_argument("--api-keys", default=env("CARDGAME_API_KEYS", ""), action=SecretFlag,
                   help="accepted API keys as '<key id>:<sha256 hex>' entries, comma-separated; with any, "
                        "CreateGame needs an x-api-key header (CARDGAME_API_KEYS)")
    p.add_argument("--api-keys-file", default=env("CARDGAME_API_KEYS_FILE", ""),
                   help="read API key entries from this file too, one per line (CARDGAME_API_KEYS_FILE)")
    p.add_argument("--create-rate", type=float, default=float(env("CREATE_RATE", str(Config.create_rate))),
                   help="games per second each API key may create, sustained (CREATE_RATE)")
    p.add_argument("--create-burst", type=int, default=int(env("CREATE_BURST", str(Config.create_burst))),
                   help="games each API key may create at once above that rate (CREATE_BURST)")
    p.add_argument("--max-games-per-key", type=int,
                   default=int(env("MAX_GAMES_PER_KEY", str(Config.max_games_per_key))),
                   help="games each API key may hold at once (created, not yet deleted or expired); CreateGame "
                        "and Rematch beyond it are refused with RESOURCE_EXHAUSTED, reason GAME_QUOTA; 0 = no cap "
                        "(MAX_GAMES_PER_KEY)")
    p.add_argument("--max-event-streams-per-key", type=int,
                   default=int(env("MAX_EVENT_STREAMS_PER_KEY", str(Config.max_event_streams_per_key))),
                   help="WatchEvents streams each API key may hold open at once in one server process (with N "
                        "processes, N times as many); beyond it they are refused with RESOURCE_EXHAUSTED, reason "
                        "STREAM_QUOTA; 0 = no cap (MAX_EVENT_STREAMS_PER_KEY)")
    p.add_argument("--max-event-bytes-per-key-per-minute", type=int,
                   default=int(env("MAX_EVENT_BYTES_PER_KEY_PER_MINUTE",
                                   str(Config.max_event_bytes_per_key_per_minute))),
                   help="bytes of events each API key's WatchEvents streams are sent per minute by one server "
                        "process; past it the streams end with RESOURCE_EXHAUSTED, reason EVENT_BYTES_QUOTA, "
                        "and a RetryInfo delay until the minute is over; 0 = no cap "
                        "(MAX_EVENT_BYTES_PER_KEY_PER_MINUTE)")
    p.add_argument("--events-max-len", type=int, default=int(env("EVENTS_MAX_LEN", str(Config.events_max_len))),
                   help="events kept in each API key's event stream; older ones are trimmed (EVENTS_MAX_LEN)")
    p.add_argument("--strong-bot-ms", type=int, default=int(env("STRONG_BOT_MS", str(Config.strong_bot_ms))),
                   help="milliseconds the strong bot thinks a decision at most, checked after each round of "
                        "sampled deals (STRONG_BOT_MS); 0 = no clock: every decision plays its whole sample "
                        "budget, the same under a seed however busy the machine is")
    p.set_defaults(secret_flags=[])
    a = p.parse_args(argv)
    if not 0 <= a.strong_bot_ms <= MAX_STRONG_BOT_MS:
        p.error(f"--strong-bot-ms must be between 0 and {MAX_STRONG_BOT_MS}")
    if a.workers < 0:
        p.error("--workers must be 0 (one per CPU) or more")
    if a.workers > 1 and not a.redis_url:
        p.error(f"--workers {a.workers} needs a shared store: without REDIS_URL games live in one process's "
                "memory, which other worker processes cannot see; set REDIS_URL (or --redis-url) to run "
                "several workers, or use --workers 1")
    workers = (a.workers or available_cpus()) if a.redis_url else 1  # the in-memory store is one process
    for name in ("idle_ttl", "finished_ttl", "request_ttl", "max_requests", "max_concurrent_rpcs",
                 "max_watches_per_connection", "max_streams", "max_streams_per_address", "max_watchers_per_game",
                 "redis_max_connections", "create_burst", "events_max_len", "max_streams_per_connection"):
        if getattr(a, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if a.max_games_per_key < 0:
        p.error("--max-games-per-key must be 0 (no cap) or more")
    if not a.create_rate > 0:
        p.error("--create-rate must be above 0")
    if a.allow_short_deadlines and not is_loopback(a.host):
        p.error(f"--allow-short-deadlines is a test mode: it needs --host on a loopback address "
                f"(127.0.0.1, ::1, localhost), not {a.host!r}")
    secret, api_keys, previous = read_secrets(p, a)
    return Config(**_http(p, a), **_operations(p, a), **_overload(p, a), **_key_quotas(p, a), host=a.host, port=a.port,
                  redis_url=a.redis_url, redis_cluster=a.redis_cluster, key_prefix=a.key_prefix, workers=workers,
                  idle_ttl_s=a.idle_ttl, finished_ttl_s=a.finished_ttl, request_ttl_s=a.request_ttl,
                  max_requests=a.max_requests, log_level=a.log_level.upper(), grace_s=a.grace, drain_s=a.drain,
                  allow_prearranged_decks=a.allow_prearranged_decks, allow_seeded_shuffle=a.allow_seeded_shuffle,
                  allow_short_deadlines=a.allow_short_deadlines,
                  uvloop=not a.no_uvloop,
                  game_modules=tuple(m.strip() for m in a.game_modules), require_noeviction=a.require_noeviction,
                  max_concurrent_rpcs=a.max_concurrent_rpcs, max_watches_per_connection=a.max_watches_per_connection,
                  max_streams=a.max_streams, max_streams_per_address=a.max_streams_per_address,
                  max_watchers_per_game=a.max_watchers_per_game,
                  redis_max_connections=a.redis_max_connections, token_secret=secret, api_keys=api_keys,
                  previous_token_secrets=previous,
                  create_rate=a.create_rate, create_burst=a.create_burst,
                  max_games_per_key=a.max_games_per_key, events_max_len=a.events_max_len,
                  strong_bot_ms=a.strong_bot_ms, secret_flags=tuple(dict.fromkeys(a.secret_flags)))
