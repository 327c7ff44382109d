"""The TypeScript client (clients/typescript) against live servers: `npm test` plays whole games,
over the gRPC port and over the HTTP port (Connect JSON and binary, gRPC-Web), and calls every
lifecycle RPC on a second server that requires API keys (with a create rate limit small enough
to reach, and RetryInfo to wait as it says), and retries bursts against a third whose HTTP port
answers one call at a time.

`make test` runs `make clients` first (npm ci + code generation), so node_modules and src/gen
exist. Without Node.js, npm or those the test fails, saying what is missing: the TypeScript
client is part of what `make test` proves.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from service.rpc import apikeys
from testkit.launcher import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "clients" / "typescript"
NPM_TIMEOUT_S = 270  # below pytest-timeout's 300 s, so a hang still shows npm's output
MIN_NODE_MAJOR = 20
CREATE_BURST = 20  # games each API key of the keyed server may create at once (then 1 a second)
KEYS = {name: apikeys.new_key(f"ts-{name}") for name in ("backend", "other", "rate", "rate-http")}


def _unavailable(reason: str) -> None:
    """Fail with the reason: a missing toolchain must never pass unnoticed."""
    pytest.fail(reason, pytrace=False)


def _text(output: str | bytes | None) -> str:
    """Captured output of a timed-out process (bytes there even with text=True)."""
    return output.decode(errors="replace") if isinstance(output, bytes) else output or ""


def _check_toolchain() -> str:
    """The npm executable, once Node.js, npm, node_modules and the generated code are there."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        _unavailable(f"Node.js {MIN_NODE_MAJOR}+ and npm are needed for the TypeScript client test")
    version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    major = int(version.lstrip("v").split(".")[0] or 0) if version.startswith("v") else 0
    if major < MIN_NODE_MAJOR:
        _unavailable(f"Node.js {MIN_NODE_MAJOR}+ is needed for the TypeScript client test, found {version!r}")
    if not (TS / "node_modules" / ".bin").is_dir() or not (TS / "src" / "gen").is_dir():
        _unavailable("clients/typescript is not set up: run `make clients` (npm ci + generate)")
    return npm


def _logs(*servers: ServerProcess) -> str:
    """The tail of each server's log."""
    return "".join(f"--- server log {s.address} ---\n{s.log_text()[-5000:]}\n" for s in servers)


def test_typescript_client_plays_whole_games(redis_url, redis_run_prefix):
    npm = _check_toolchain()
    server = ServerProcess("--http-port", "0", redis_url=redis_url, prefix=f"{redis_run_prefix}-typescript")
    keyed = ServerProcess("--http-port", "0", "--create-rate", "1",
                          "--create-burst", str(CREATE_BURST), redis_url=redis_url,
                          prefix=f"{redis_run_prefix}-typescript-keyed",
                          env={"CARDGAME_API_KEYS": ",".join(entry for _, entry in KEYS.values())})
    busy = ServerProcess("--http-port", "0", "--http-max-calls", "1", "--http-call-wait", "0.001",
                         redis_url=redis_url, prefix=f"{redis_run_prefix}-typescript-busy")
    try:
        server.start()
        keyed.start()
        busy.start()
        env = {**os.environ, "CARDGAME_SERVER": f"http://{server.address}",
               "CARDGAME_HTTP_SERVER": f"http://127.0.0.1:{server.http_port}", "NO_COLOR": "1",
               "CARDGAME_KEYED_SERVER": f"http://{keyed.address}",
               "CARDGAME_KEYED_HTTP_SERVER": f"http://127.0.0.1:{keyed.http_port}",
               "CARDGAME_API_KEY": KEYS["backend"][0], "CARDGAME_OTHER_API_KEY": KEYS["other"][0],
               "CARDGAME_RATE_API_KEY": KEYS["rate"][0], "CARDGAME_RATE_HTTP_API_KEY": KEYS["rate-http"][0],
               "CARDGAME_CREATE_BURST": str(CREATE_BURST),
               "CARDGAME_BUSY_HTTP_SERVER": f"http://127.0.0.1:{busy.http_port}"}
        started = time.monotonic()
        try:
            result = subprocess.run([npm, "test"], cwd=TS, env=env, capture_output=True, text=True,
                                    timeout=NPM_TIMEOUT_S)
        except subprocess.TimeoutExpired as exc:
            pytest.fail(f"npm test did not finish in {NPM_TIMEOUT_S} s\n--- stdout ---\n{_text(exc.stdout)}\n"
                        f"--- stderr ---\n{_text(exc.stderr)}\n{_logs(server, keyed, busy)}", pytrace=False)
        elapsed = time.monotonic() - started
        if result.returncode != 0:
            pytest.fail(f"npm test exited with {result.returncode} after {elapsed:.1f} s\n"
                        f"--- stdout ---\n{result.stdout}\n--- stderr ---\n{result.stderr}\n"
                        f"{_logs(server, keyed, busy)}", pytrace=False)
    finally:
        busy.stop()
        keyed.stop()
        server.stop()
    assert "# fail 0" in result.stdout and "# SKIP" not in result.stdout, result.stdout
    for name in ("lifecycle RPCs", "rate-limited createGame", "followEvents", "answered in full with them"):
        assert name in result.stdout, f"no test of {name} ran"
