"""The web table in Chromium, and the browser example of docs/clients.md, against a live server.

Starts a server with its HTTP port serving the built table (web/dist), and playing the test-only
Call Whist besides the built-in games (``--game-module tests.games.call_whist``: a game the table
has no renderer for, with a phase, words and settings of its own), and runs `npm test` in web/:
playwright-core drives Debian's Chromium (/usr/bin/chromium) through whole games on the page and
checks every state against the API (web/tests/), the lobby built from GetCatalog included.
`make test` installs Chromium when it is missing and builds the table first; without Chromium,
Node.js, web/node_modules or web/dist the test fails, saying what is missing. Screenshots go to test-artifacts/web/.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from testkit.launcher import ServerProcess
from tests.conftest import SERVER_TEST_FLAGS

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
ARTIFACTS = ROOT / "test-artifacts" / "web"
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
NPM_TIMEOUT_S = 240  # the run takes about a minute; a hang still shows npm's output (pytest's limit: 300 s)
GAME_MODULE = "tests.games.call_whist"
MIN_NODE_MAJOR = 20


def _missing(what: str) -> None:
    """Fail with the reason: the browser test must never pass unnoticed."""
    pytest.fail(what, pytrace=False)


def _text(output: str | bytes | None) -> str:
    return output.decode(errors="replace") if isinstance(output, bytes) else output or ""


def _check_toolchain() -> str:
    """The npm executable, once Chromium, Node.js, web/node_modules and web/dist are there."""
    if not os.access(CHROMIUM, os.X_OK):
        _missing(f"no Chromium at {CHROMIUM}: `make test` installs it (apt-get install chromium)")
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        _missing(f"Node.js {MIN_NODE_MAJOR}+ and npm are needed for the browser test")
    version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    major = int(version.lstrip("v").split(".")[0] or 0) if version.startswith("v") else 0
    if major < MIN_NODE_MAJOR:
        _missing(f"Node.js {MIN_NODE_MAJOR}+ is needed for the browser test, found {version!r}")
    if not (WEB / "node_modules" / "playwright-core").is_dir():
        _missing("web/ is not set up: run `make web` (npm ci)")
    if not (WEB / "dist" / "index.html").is_file():
        _missing("the web table is not built: run `make web`")
    return npm


def test_web_table_in_chromium(redis_url, redis_run_prefix):
    npm = _check_toolchain()
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    server = ServerProcess(*SERVER_TEST_FLAGS, "--http-port", "0", "--web-root", str(WEB / "dist"),
                           "--game-module", GAME_MODULE,
                           redis_url=redis_url, prefix=f"{redis_run_prefix}-web")
    server.start()
    try:
        env = {**os.environ, "CARDGAME_HTTP_SERVER": f"http://127.0.0.1:{server.http_port}",
               "CARDGAME_SERVER": f"http://{server.address}", "CARDGAME_ARTIFACTS": str(ARTIFACTS),
               "CHROMIUM": str(CHROMIUM), "NO_COLOR": "1", "CARDGAME_WEB_CUTTHROAT": "1"}
        started = time.monotonic()
        try:
            result = subprocess.run([npm, "test"], cwd=WEB, env=env, capture_output=True, text=True,
                                    timeout=NPM_TIMEOUT_S)
        except subprocess.TimeoutExpired as exc:
            pytest.fail(f"npm test did not finish in {NPM_TIMEOUT_S} s\n--- stdout ---\n{_text(exc.stdout)}\n"
                        f"--- stderr ---\n{_text(exc.stderr)}\n--- server log ---\n{server.log_text()[-5000:]}",
                        pytrace=False)
        elapsed = time.monotonic() - started
        if result.returncode != 0:
            pytest.fail(f"npm test exited with {result.returncode} after {elapsed:.1f} s\n"
                        f"--- stdout ---\n{result.stdout[-20000:]}\n--- stderr ---\n{result.stderr[-5000:]}\n"
                        f"--- server log ---\n{server.log_text()[-5000:]}", pytrace=False)
    finally:
        server.stop()
    assert "# fail 0" in result.stdout, result.stdout
    assert "# pass 0" not in result.stdout, result.stdout
    shots = sorted(p.name for p in ARTIFACTS.glob("*.png"))
    for expected in ("lobby.png", "buck-euchre-order-up.png", "buck-euchre-hand-1-score.png",
                     "buck-euchre-game-over.png", "spades-exchange-Ana.png", "spades-refused-card.png",
                     "spades-hand-1-score.png", "spades2-draw.png", "spades-strong-hand-1-score.png",
                     "readme-browser-example.png", "lobby-hearts-settings.png", "lobby-call-whist.png",
                     "call-whist-call.png"):
        assert expected in shots, f"no screenshot {expected} among {shots}"
    # Call Whist's first hand may end its game (a side can take its 3 points in one hand, on a random deal):
    # its score is then drawn as the game over
    assert {"call-whist-hand-1-score.png", "call-whist-game-over.png"} & set(shots), shots
