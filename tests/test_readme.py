"""The README holds true: its grpcurl walk-through runs, its configuration table lists every flag,
its links stay inside the repository.

The walk-through's steps (each complete shell command of the block under "A hand through
grpcurl") run one after the other in one bash against a live server (in-memory store, as
``make run``), with ``tests/grpcurl_py.py`` as ``grpcurl``: a work-alike through grpcio and
the server's reflection service, since grpcurl is not packaged for Debian.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from service.ops import config
from testkit.launcher import ServerProcess

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
WALKTHROUGH_RUNS = 2  # a different deal each time
RUN_TIMEOUT_S = 180


def section(title: str) -> str:
    """The README's text from the heading ``title`` to the next heading of the same level."""
    match = re.search(rf"^(#+) {re.escape(title)}\n", README, re.M)
    assert match, f"README has no section {title!r}"
    rest = README[match.end():]
    end = re.search(rf"^{match.group(1)} ", rest, re.M)
    return rest[:end.start()] if end else rest


def shell_steps(block: str) -> list[str]:
    """The block's complete shell commands, in order (comment lines dropped; a command ends
    where bash finds it complete, so quotes, loops and functions may span lines)."""
    steps: list[str] = []
    pending: list[str] = []
    for line in block.splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        pending.append(line)
        text = "\n".join(pending)
        if text.endswith("\\"):
            continue
        check = subprocess.run(["bash", "-n", "-c", text], capture_output=True, text=True, timeout=10)
        if check.returncode == 0:
            steps.append(text)
            pending = []
    assert not pending, f"incomplete shell command at the end: {pending}"
    return steps


def walkthrough() -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)```", section("A hand through grpcurl"), re.S)
    assert blocks, "no sh block in the walk-through"
    return shell_steps(blocks[0])


@pytest.fixture(scope="module")
def live():
    with ServerProcess() as server:
        yield server


@pytest.fixture(scope="module")
def grpcurl_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A PATH whose ``grpcurl`` is tests/grpcurl_py.py."""
    bin_dir = tmp_path_factory.mktemp("bin")
    script = bin_dir / "grpcurl"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{ROOT / "tests" / "grpcurl_py.py"}" "$@"\n')
    script.chmod(0o755)
    return f"{bin_dir}{os.pathsep}{os.environ['PATH']}"


def run_walkthrough(steps: list[str], address: str, path: str, work: Path) -> list[tuple[int, str, str]]:
    """Run the steps in one bash; returns (exit code, stdout, stderr) per step."""
    lines = []
    for i, step in enumerate(steps):
        lines.append(f'{{\n{step.replace("localhost:50051", address)}\n}} >"{work}/out.{i}" 2>"{work}/err.{i}"')
        lines.append(f'echo $? >"{work}/rc.{i}"')
    (work / "walkthrough.sh").write_text("\n".join(lines) + "\n")
    env = {**os.environ, "PATH": path}
    subprocess.run(["bash", str(work / "walkthrough.sh")], cwd=work, env=env, timeout=RUN_TIMEOUT_S, check=True)
    return [(int((work / f"rc.{i}").read_text()), (work / f"out.{i}").read_text(), (work / f"err.{i}").read_text())
            for i in range(len(steps))]


@pytest.mark.parametrize("run", range(WALKTHROUGH_RUNS))
def test_grpcurl_walkthrough_runs(live: ServerProcess, grpcurl_path: str, tmp_path: Path, run: int) -> None:
    steps = walkthrough()
    results = run_walkthrough(steps, live.address, grpcurl_path, tmp_path)
    refused = [i for i, step in enumerate(steps) if "GameService/Play" in step]
    watch = [i for i, step in enumerate(steps) if "GameService/WatchGame" in step]
    assert len(refused) == 1 and len(watch) == 1
    for i, (step, (code, out, err)) in enumerate(zip(steps, results, strict=True)):
        if i in refused:
            assert code == 73 and "Code: FailedPrecondition" in err and '"reason": "WRONG_PHASE"' in err, err
        elif i in watch:   # the stream runs until -max-time ends it, or ends itself with the game
            over = code == 0 and out.rstrip().endswith("}") and '"phase": "PHASE_GAME_OVER"' in out.split('"view"')[-1]
            assert over or (code == 68 and "Code: DeadlineExceeded" in err), (code, err, out[-400:])
            assert out.count('"view"') >= 2, out  # the stream's views, from version 1 on
        else:
            assert code == 0, f"step {i} exited {code}:\n{step}\n{err}"
    by_step = dict(zip(steps, results, strict=True))
    listed = next(out for step, (_, out, _) in by_step.items() if step.endswith(" list"))
    assert "cardgame.v1.GameService" in listed.split()
    moves = next(out for step, (_, out, _) in by_step.items() if step.startswith("for "))
    played = re.findall(r" -> phase (PHASE_\w+)", moves)
    # the game lasts longer than eight moves, unless a sweep ended it in the first hand
    assert len(played) >= 8 or (played and played[-1] == "PHASE_GAME_OVER"), moves
    view = json.loads(next(out for step, (_, out, _) in by_step.items() if "GameService/GetGame" in step))["view"]
    assert int(view["version"]) > 12 and view["viewerSeat"] == 0


# --- the configuration table ---

class _Parsed(Exception):
    """Carries the argument parser that config.parse built."""


def server_parser(monkeypatch: pytest.MonkeyPatch) -> argparse.ArgumentParser:
    """The argparse parser of ``python -m service``, taken from config.parse at its parse_args call."""
    def capture(self: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        raise _Parsed(self)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", capture)
    with pytest.raises(_Parsed) as parsed:
        config.parse([])
    return parsed.value.args[0]


def config_rows() -> list[tuple[list[str], list[str]]]:
    """(flags, environment variables) of each row of the README's configuration table."""
    rows = []
    for line in section("Running it").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0].startswith("`--"):
            rows.append((re.findall(r"`(--[a-z0-9-]+)`", cells[0]), re.findall(r"`([A-Z0-9_]+)`", cells[1])))
    return rows


def test_config_table_lists_every_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    parser = server_parser(monkeypatch)
    flags = {o for action in parser._actions for o in action.option_strings if o.startswith("--")
             and o not in ("--help", "--version")}
    listed = [flag for row_flags, _ in config_rows() for flag in row_flags]
    assert len(listed) == len(set(listed)), "a flag has two rows"
    missing, unknown = sorted(flags - set(listed)), sorted(set(listed) - flags)
    assert not missing, f"README's configuration table has no row for {missing}"
    assert not unknown, f"README's configuration table lists flags python -m service lacks: {unknown}"


def test_config_table_names_each_flags_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    helps = {o: action.help or "" for action in server_parser(monkeypatch)._actions for o in action.option_strings}
    for row_flags, row_env in config_rows():
        assert row_env, f"the row of {row_flags} names no environment variable"
        text = " ".join(helps[f] for f in row_flags if f in helps)
        for name in row_env:
            assert name in text, f"{name} (README row of {row_flags}) is not what --help says those flags read"


# --- links ---

def test_relative_links_point_into_the_repository() -> None:
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README):
        if re.match(r"[a-z]+:", target):
            continue
        path = (ROOT / target).resolve()
        assert path.is_relative_to(ROOT), f"README links outside the repository: {target}"
        assert path.exists(), f"README links to a missing file: {target}"
    assert "](docs/RULES.md)" in README
