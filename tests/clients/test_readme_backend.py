"""The examples of docs/backend.md ("Integrating with your backend") run as written: its Python
blocks, one after the other as one script, and its TypeScript block under tsx, against a live server on
Redis that requires an API key (the example reads the key from CARDGAME_API_KEY and the event
stream from REDIS_URL and KEY_PREFIX)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from service.rpc import apikeys
from testkit.launcher import ServerProcess
from tests.conftest import SERVER_TEST_FLAGS
from tests.docs.test_docs import section as page_section

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "clients" / "typescript"
PAGE = ROOT / "docs" / "backend.md"
TITLE = "Integrating with your backend"
RUN_TIMEOUT_S = 120
KEY, ENTRY = apikeys.new_key("lobby")
TS_KEY, TS_ENTRY = apikeys.new_key("lobby-ts")  # its own key: its own games and events


def section(title: str) -> str:
    """The page's text from the heading ``title`` to the next heading of the same level or above."""
    return page_section(PAGE, title)


def blocks(language: str) -> list[str]:
    """The section's code blocks fenced as ``language``."""
    return re.findall(rf"^```{language}\n(.*?)^```$", section(TITLE), re.S | re.M)


@pytest.fixture(scope="module")
def keyed(redis_url: str, module_prefix: str):
    """A server that requires the example's API key."""
    proc = ServerProcess(*SERVER_TEST_FLAGS, "--create-rate", "100", "--create-burst", "100", redis_url=redis_url,
                         prefix=module_prefix, env={"CARDGAME_API_KEYS": f"{ENTRY},{TS_ENTRY}"})
    proc.start()
    yield proc
    proc.stop()


def _failed(what: str, result: subprocess.CompletedProcess, server: ServerProcess) -> str:
    return (f"{what} exited with {result.returncode}\n--- stdout ---\n{result.stdout}\n--- stderr ---\n"
            f"{result.stderr}\n--- server log ---\n{server.log_text()[-5000:]}")


def test_the_python_examples_run_as_one_script(keyed, redis_url, module_prefix, tmp_path):
    python = blocks("python")
    assert len(python) >= 8, "the section's Python examples are missing"
    script = tmp_path / "backend.py"
    script.write_text("\n\n".join(python))
    env = {**os.environ, "CARDGAME_SERVER": keyed.address, "CARDGAME_API_KEY": KEY, "REDIS_URL": redis_url,
           "KEY_PREFIX": module_prefix}
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=RUN_TIMEOUT_S)
    assert result.returncode == 0, _failed("the Python examples", result, keyed)
    lines = result.stdout.splitlines()
    assert re.fullmatch(r"[0-9a-f]{24} \[0, 1\]", lines[0]), lines
    assert lines[1] == "0" and lines[3] == "1" and lines[4] == "True", lines  # viewer seat, listing, leave
    assert re.fullmatch(r"[0-9a-f]{24} \['user-17', 'user-42', '', ''\]", lines[2]), lines
    assert any(re.fullmatch(r"game over, winner side [0-3] event \d+-\d+", line) for line in lines), lines
    game_id = lines[0].split()[0]
    streamed = [line.split() for line in lines if re.fullmatch(rf"{game_id} \d+ [a-z_]+", line)]
    assert [kind for _, _, kind in streamed][-1] == "game_over" and "leave" in [k for _, _, k in streamed]
    assert [int(seq) for _, seq, _ in streamed] == list(range(1, len(streamed) + 1))
    assert any(line.endswith("deals, all fair") for line in lines), lines
    assert re.fullmatch(r"[0-9a-f]{24} \[0, 1\]", lines[-1]), lines


def test_the_typescript_example_runs_under_tsx(keyed):
    node = shutil.which("node")
    if node is None or not (TS / "node_modules" / ".bin").is_dir() or not (TS / "dist" / "index.js").is_file():
        pytest.fail("Node.js and a built clients/typescript are needed: run `make clients`", pytrace=False)
    [example] = blocks("typescript")
    assert 'from "@cardgame/client";' in example
    work = Path(tempfile.mkdtemp(prefix="readme-", dir=TS))  # inside the package: "@cardgame/client" resolves
    try:
        (work / "backend.mts").write_text(example)
        env = {**os.environ, "CARDGAME_SERVER": f"http://{keyed.address}", "CARDGAME_API_KEY": TS_KEY}
        result = subprocess.run([node, "--import", "tsx", str(work / "backend.mts")], cwd=TS, env=env,
                                capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    finally:
        shutil.rmtree(work)
    assert result.returncode == 0, _failed("the TypeScript example", result, keyed)
    lines = result.stdout.splitlines()
    assert re.fullmatch(r"[0-9a-f]{24} \{ tournament: 'spring' \}", lines[0]), lines
    assert lines[1:] == ["LEAVE ", "GAME_OVER true", "the deal was the committed deck"], lines
