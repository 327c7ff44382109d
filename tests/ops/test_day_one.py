"""An operator's first `make run`: before the server's JSON log lines begin, one plain line says
where to go next (the web table's URL on the HTTP port, or the terminal game).

The run recipe is run for real with its prerequisites left alone (``-o``: nothing is installed
or built) and ``PY=true``, so its ``exec`` ends at once instead of serving.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEV_SECRET = ".venv/dev-token-secret"   # the Makefile's DEV_SECRET


def make_run(**env: str) -> str:
    """What `make run`'s recipe prints with ``env`` (HTTP_PORT unset unless given)."""
    environment = {k: v for k, v in os.environ.items() if k not in ("HTTP_PORT", "MAKEFLAGS", "MFLAGS")}
    environment.update(CARDGAME_TOKEN_SECRET="x" * 32, **env)
    done = subprocess.run(["make", "-s", "-o", "install", "-o", "web", "-o", DEV_SECRET, "run", "PY=true"],
                          cwd=ROOT, env=environment, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize(("env", "url"), [({}, "http://localhost:8080/"),
                                          ({"HTTP_PORT": "9123"}, "http://localhost:9123/")])
def test_make_run_names_the_web_table_and_the_terminal_game(env: dict[str, str], url: str) -> None:
    (hint,) = [line for line in make_run(**env).splitlines() if "cardgame play spades" in line]
    assert url in hint and hint.startswith("make run: ")


def test_make_run_without_the_http_port_names_only_the_terminal_game() -> None:
    (hint,) = [line for line in make_run(HTTP_PORT="").splitlines() if "cardgame play spades" in line]
    assert "http://" not in hint
