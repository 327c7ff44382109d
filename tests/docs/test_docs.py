"""The documentation holds true: every code block of README.md and docs/*.md runs against a
live server, the configuration table lists every flag, every engine reason code is documented,
and every relative link leads to a file (and heading) of the repository.

How blocks are found and run (docs/testing.md, "The documentation's blocks", says the same):

- A fenced block's language decides: ``sh``, ``bash``, ``shell`` and ``console`` run in bash
  (``console``: only the ``$ `` lines), ``python``/``py`` with this Python, ``ts``/``typescript``
  under tsx inside clients/typescript (so ``@cardgame/client`` resolves). ``json``, ``text``,
  ``proto``, ``yaml``, ``toml``, ``http`` and unlabelled blocks are not code. Any other
  language fails the test, so a new block is never skipped silently.
- An HTML comment on the line before the fence (blank lines between are allowed) changes that:
  ``<!-- not run: REASON -->`` skips the block and must say why; ``<!-- run elsewhere: PATH
  REASON -->`` names the test file that runs the block, which must exist and name the page;
  ``<!-- run: DIRECTIVES -->`` with ``;``-separated directives: ``script NAME`` (the page's
  blocks of one script name run as one program, in order), ``until "TEXT"`` (a long-running
  command: it passes once its output shows TEXT, then its process group is stopped),
  ``expect "TEXT"`` (the output must contain TEXT; repeatable), ``timeout SECONDS``.
- Every block runs from the repository root (on PYTHONPATH) against one live server of this
  module (in-memory store, as ``make run``, with HTTP and metrics ports): ``:50051``, ``:8080``
  and ``:9464`` in a block become that server's gRPC, HTTP and metrics ports, which ``PORT``,
  ``HTTP_PORT``, ``METRICS_PORT`` and ``CARDGAME_SERVER`` also name. A block run ``until`` gets
  ports of its own. Shell blocks run with ``set -eo pipefail``, ``.venv/bin`` first on PATH and,
  where no ``grpcurl`` is installed, tests/docs/grpcurl_py.py as ``grpcurl``.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import engine
from service.ops import config
from testkit.launcher import ServerProcess, free_port

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "clients" / "typescript"
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "clients/python/README.md",
         ROOT / "clients/typescript/README.md", ROOT / "clients/kotlin/README.md", ROOT / "clients/go/README.md"]
README_MAX_LINES = 250
CONFIG_PAGE = ROOT / "docs" / "operations.md"
CONFIG_SECTION = "Configuration"
API_PAGE = ROOT / "docs" / "api.md"

SHELL = {"sh", "bash", "shell", "console"}
PYTHON = {"python", "py"}
TYPESCRIPT = {"ts", "typescript"}
GO = {"go"}  # never run here: each go block is marked "run elsewhere" (tests/clients/test_go_client.py) or "not run"
KOTLIN = {"kotlin", "kt"}  # never run here either: tests/clients/test_kotlin_client.py runs the compiled examples
NOT_CODE = {"", "json", "text", "proto", "yaml", "toml", "http"}
DEFAULT_TIMEOUT_S = 180.0
STOP_TIMEOUT_S = 15.0
MIN_REASON = 10
MARKER = re.compile(r"<!--\s*(not run|run elsewhere|run):(.*?)-->\s*$", re.S)
FENCE = re.compile(r"^```([A-Za-z0-9_+-]*)\s*$")


@dataclass
class Block:
    """One fenced block of a page, with the marker before it (if any)."""

    page: Path
    line: int
    language: str
    text: str
    marker: str = ""         # "not run", "run elsewhere", "run" or ""
    argument: str = ""       # the marker's text after its colon

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


@dataclass
class Run:
    """A program made of one block, or of the blocks of one script: how to run and check it."""

    blocks: list[Block]
    until: str | None = None
    expects: list[str] = field(default_factory=list)
    timeout_s: float = DEFAULT_TIMEOUT_S

    @property
    def language(self) -> str:
        kind = self.blocks[0].language
        return "shell" if kind in SHELL else "python" if kind in PYTHON else "typescript"

    @property
    def where(self) -> str:
        return "+".join(block.where for block in self.blocks)


def page_blocks(page: Path) -> list[Block]:
    """Every fenced block of a page, in order."""
    lines = page.read_text().splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), None)
        assert end is not None, f"{page.relative_to(ROOT)}:{i + 1}: a code block is never closed"
        block = Block(page, i + 1, match.group(1).lower(), "\n".join(lines[i + 1:end]) + "\n")
        before = i - 1
        while before >= 0 and not lines[before].strip():
            before -= 1
        if before >= 0 and lines[before].rstrip().endswith("-->"):
            start = before
            while start > 0 and "<!--" not in lines[start]:
                start -= 1
            comment = MARKER.search("\n".join(lines[start:before + 1]))
            if comment:
                block.marker, block.argument = comment.group(1), " ".join(comment.group(2).split())
        blocks.append(block)
        i = end + 1
    return blocks


ALL_BLOCKS = [block for page in PAGES for block in page_blocks(page)]


def directives(block: Block) -> list[tuple[str, str]]:
    """A ``run:`` marker's directives as (name, argument), quotes removed."""
    found = []
    for part in filter(None, (p.strip() for p in block.argument.split(";"))):
        name, _, argument = part.partition(" ")
        argument = argument.strip()
        if len(argument) >= 2 and argument[0] == argument[-1] == '"':
            argument = argument[1:-1]
        found.append((name, argument))
    return found


def marker_problem(block: Block) -> str | None:
    """What is wrong with a block's language or marker, or None."""
    code = block.language in SHELL | PYTHON | TYPESCRIPT | GO | KOTLIN
    if block.language in GO | KOTLIN and block.marker not in {"not run", "run elsewhere"}:
        return f"a {block.language} block is not run here: mark it 'run elsewhere' (the test that runs it) or 'not run'"
    if not code and block.language not in NOT_CODE:
        return f"fence language {block.language!r} is neither code this test runs nor a known non-code one"
    if block.marker and not code:
        return "a marker before a block that is not code"
    if block.marker == "not run" and len(block.argument) < MIN_REASON:
        return "'not run' must say why"
    if block.marker == "run elsewhere":
        target, _, reason = block.argument.partition(" ")
        path = ROOT / target
        if not path.is_file():
            return f"'run elsewhere' names {target!r}, which is no file"
        if str(block.page.relative_to(ROOT)) not in path.read_text():
            return f"{target} does not name {block.page.relative_to(ROOT)}"
        if len(reason) < MIN_REASON:
            return "'run elsewhere' must say why not here"
    if block.marker == "run":
        for name, argument in directives(block):
            if name not in {"script", "until", "expect", "timeout"} or not argument:
                return f"unknown or empty directive {name!r} (script NAME, until \"TEXT\", expect \"TEXT\", timeout S)"
            if name == "timeout" and not argument.replace(".", "", 1).isdigit():
                return f"timeout {argument!r} is not a number of seconds"
    return None


def runs() -> list[Run]:
    """The programs to run: single blocks, and each page's scripts joined in order."""
    found: list[Run] = []
    scripts: dict[tuple[Path, str], Run] = {}
    for block in ALL_BLOCKS:
        if block.language not in SHELL | PYTHON | TYPESCRIPT or block.marker in {"not run", "run elsewhere"}:
            continue
        if marker_problem(block):
            continue  # test_every_block_is_runnable_or_says_why reports it
        steps = directives(block) if block.marker == "run" else []
        script = next((argument for name, argument in steps if name == "script"), None)
        if script is not None and (block.page, script) in scripts:
            run = scripts[(block.page, script)]
            run.blocks.append(block)
        else:
            run = Run([block])
            found.append(run)
            if script is not None:
                scripts[(block.page, script)] = run
        for name, argument in steps:
            if name == "until":
                run.until = argument
            elif name == "expect":
                run.expects.append(argument)
            elif name == "timeout":
                run.timeout_s = float(argument)
    return found


RUNS = runs()


@pytest.fixture(scope="module")
def live():
    """One server for every block: in-memory store as ``make run``, gRPC and HTTP ports."""
    with ServerProcess("--http-port", "0", "--metrics-port", "0") as server:
        server.ports = {50051: server.port, 8080: server.http_port, 9464: server.metrics_port}
        yield server


@pytest.fixture(scope="module")
def tool_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    """PATH for the blocks: .venv/bin first, and tests/docs/grpcurl_py.py as grpcurl where none is installed."""
    parts = [str(Path(sys.executable).parent)]
    if shutil.which("grpcurl") is None:
        bin_dir = tmp_path_factory.mktemp("bin")
        script = bin_dir / "grpcurl"
        script.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{ROOT / "tests" / "docs" / "grpcurl_py.py"}" "$@"\n')
        script.chmod(0o755)
        parts.append(str(bin_dir))
    return os.pathsep.join([*parts, os.environ["PATH"]])


def program_text(run: Run) -> str:
    """The blocks as one program (a console block: its ``$`` lines)."""
    texts = []
    for block in run.blocks:
        if block.language == "console":
            texts.append("\n".join(line[2:] for line in block.text.splitlines() if line.startswith("$ ")) + "\n")
        else:
            texts.append(block.text)
    return "\n".join(texts)


def with_ports(text: str, ports: dict[int, int]) -> str:
    """The text with each documented port (``:50051``) replaced by the one it stands for."""
    for documented, actual in ports.items():
        text = re.sub(rf":{documented}\b", f":{actual}", text)
    return text


def command(run: Run, work: Path, text: str) -> tuple[list[str], Path]:
    """The command line that runs ``text``, and the directory it runs in."""
    if run.language == "shell":
        (work / "block.sh").write_text("set -eo pipefail\n" + text)
        return ["bash", str(work / "block.sh")], ROOT
    if run.language == "python":
        (work / "block.py").write_text(text)
        return [sys.executable, str(work / "block.py")], ROOT
    node = shutil.which("node")
    if node is None or not (TS / "dist" / "index.js").is_file():
        pytest.fail("Node.js and a built clients/typescript are needed: run `make clients`", pytrace=False)
    (work / "block.mts").write_text(text)
    return [node, "--import", "tsx", str(work / "block.mts")], TS


def stop_group(proc: subprocess.Popen) -> None:
    """SIGTERM the process group of ``proc``, then SIGKILL if it lingers."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    except ProcessLookupError:
        proc.wait()


def run_until(args: list[str], cwd: Path, env: dict, output: Path, text: str, timeout_s: float) -> tuple[bool, str]:
    """Start a long-running command; (whether its output showed ``text`` in time, its output)."""
    with output.open("wb") as sink:
        proc = subprocess.Popen(args, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=sink,
                                stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout_s
        try:
            while time.monotonic() < deadline:
                if text in output.read_text(errors="replace"):
                    return True, output.read_text(errors="replace")
                if proc.poll() is not None:
                    break
                time.sleep(0.2)
        finally:
            stop_group(proc)
    return text in output.read_text(errors="replace"), output.read_text(errors="replace")


@pytest.mark.parametrize("run", [pytest.param(run, marks=pytest.mark.timeout(run.timeout_s + STOP_TIMEOUT_S + 30))
                                 for run in RUNS], ids=[run.where for run in RUNS])
def test_block_runs(run: Run, live: ServerProcess, tool_path: str, tmp_path: Path, redis_url: str) -> None:
    ports = dict(live.ports)
    if run.until is not None:  # a server of its own
        ports = {documented: free_port() for documented in ports}
    server = f"127.0.0.1:{ports[50051]}"
    env = {**os.environ, "PATH": tool_path, "PYTHONUNBUFFERED": "1", "NO_COLOR": "1", "PORT": str(ports[50051]),
           "HTTP_PORT": str(ports[8080]), "METRICS_PORT": str(ports[9464]),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "CARDGAME_SERVER": f"http://{server}" if run.language == "typescript" else server}
    text = with_ports(program_text(run), ports)
    if "REDIS_URL" in text:   # a block about the Redis store reads the tests' Redis (none need run on 6379)
        env["REDIS_URL"] = redis_url
    if run.language == "typescript":
        work = Path(tempfile.mkdtemp(prefix="docs-block-", dir=TS))  # "@cardgame/client" resolves here
    else:
        work = tmp_path
    try:
        args, cwd = command(run, work, text)
        if run.until is not None:
            seen, output = run_until(args, cwd, env, tmp_path / "output", run.until, run.timeout_s)
            assert seen, f"{run.where}: no {run.until!r} within {run.timeout_s} s:\n{output[-4000:]}"
            code = 0
        else:
            result = subprocess.run(args, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                                    text=True, timeout=run.timeout_s)
            output, code = result.stdout + result.stderr, result.returncode
    finally:
        if work != tmp_path:
            shutil.rmtree(work)
    report = (f"{run.where} ({run.language}) exited {code}:\n{output[-4000:]}\n"
              f"--- server log ---\n{live.log_text()[-3000:]}")
    assert code == 0, report
    for expected in run.expects:
        assert expected in output, f"{run.where}: its output lacks {expected!r}\n{report}"


def test_every_block_is_runnable_or_says_why() -> None:
    problems = [f"{block.where}: {problem}" for block in ALL_BLOCKS if (problem := marker_problem(block))]
    assert not problems, "\n".join(problems)
    assert RUNS, "no block of the documentation runs"


def test_a_script_is_of_one_language() -> None:
    for run in RUNS:
        kinds = {("shell" if b.language in SHELL else "python" if b.language in PYTHON else "typescript")
                 for b in run.blocks}
        assert len(kinds) == 1, f"the script {run.where} mixes languages {sorted(kinds)}"


def test_readme_stays_short() -> None:
    lines = len((ROOT / "README.md").read_text().splitlines())
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; the details belong on docs/ pages"


# --- the harness itself ---

def test_markers_are_read_and_checked(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text('<!-- run: script walk; expect "a b"; timeout 5 -->\n\n```sh\necho a b\n```\n'
                    "<!--\n  not run: it needs a\n  cluster of its own -->\n```python\nprint()\n```\n"
                    "```\nplain text\n```\n")
    walk, skipped, plain = page_blocks(page)
    assert (walk.language, walk.marker, walk.text) == ("sh", "run", "echo a b\n")
    assert directives(walk) == [("script", "walk"), ("expect", "a b"), ("timeout", "5")]
    assert (skipped.marker, skipped.argument) == ("not run", "it needs a cluster of its own")
    assert (plain.language, plain.marker) == ("", "")
    console = Block(page, 1, "console", "$ echo hi\nhi\n$ true\n")
    assert program_text(Run([console])) == "echo hi\ntrue\n"
    def problem(language: str, marker: str = "", argument: str = "") -> str:
        return marker_problem(Block(ROOT / "README.md", 1, language, "true\n", marker, argument)) or ""

    assert problem("sh") == "" and problem("json") == ""
    assert "neither code" in problem("rust")
    assert "say why" in problem("sh", "not run", "no")
    assert "no file" in problem("sh", "run elsewhere", "tests/none.py runs it there")
    assert "does not name" in problem("sh", "run elsewhere", "tests/conftest.py runs it there")
    assert "say why not here" in problem("sh", "run elsewhere", "tests/docs/test_docs.py")
    assert "unknown or empty" in problem("sh", "run", "retry 3")
    assert "not a number" in problem("sh", "run", "timeout soon")
    assert "not code" in problem("json", "not run", "it is only an example answer")


def test_documented_ports_become_the_live_ones() -> None:
    text = "grpcurl localhost:50051 list; curl http://127.0.0.1:8080/ :80801 :9464"
    assert with_ports(text, {50051: 1111, 8080: 2222, 9464: 3333}) == \
        "grpcurl localhost:1111 list; curl http://127.0.0.1:2222/ :80801 :3333"


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


def section(page: Path, title: str) -> str:
    """A page's text under the heading ``title``, to the next heading of its level or above
    (lines inside code blocks are no headings)."""
    lines = page.read_text().splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if re.fullmatch(rf"#+ {re.escape(title)}\n", line)), None)
    assert start is not None, f"{page.relative_to(ROOT)} has no section {title!r}"
    level = lines[start].index(" ")
    fenced = False
    for end in range(start + 1, len(lines)):
        fenced ^= lines[end].startswith("```")
        if not fenced and re.match(rf"#{{1,{level}}} ", lines[end]):
            return "".join(lines[start + 1:end])
    return "".join(lines[start + 1:])


def config_rows() -> list[tuple[list[str], list[str]]]:
    """(flags, environment variables) of each row of the configuration table."""
    rows = []
    for line in section(CONFIG_PAGE, CONFIG_SECTION).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0].startswith("`--"):
            rows.append((re.findall(r"`(--[a-z0-9-]+)`", cells[0]), re.findall(r"`([A-Z0-9_]+)`", cells[1])))
    return rows


def test_config_table_lists_every_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    parser = server_parser(monkeypatch)
    flags = {o for action in parser._actions for o in action.option_strings
             if o.startswith("--") and o not in ("--help", "--version")}
    listed = [flag for row_flags, _ in config_rows() for flag in row_flags]
    assert len(listed) == len(set(listed)), "a flag has two rows"
    missing, unknown = sorted(flags - set(listed)), sorted(set(listed) - flags)
    assert not missing, f"the configuration table of docs/operations.md has no row for {missing}"
    assert not unknown, f"the configuration table of docs/operations.md lists flags python -m service lacks: {unknown}"


def test_config_table_names_each_flags_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    helps = {o: action.help or "" for action in server_parser(monkeypatch)._actions for o in action.option_strings}
    for row_flags, row_env in config_rows():
        assert row_env, f"the row of {row_flags} names no environment variable"
        text = " ".join(helps[f] for f in row_flags if f in helps)
        for name in row_env:
            assert name in text, f"{name} (row of {row_flags}) is not what --help says those flags read"


# --- reason codes ---

def test_every_engine_reason_code_is_documented() -> None:
    codes = {reason.value for reason in engine.Reason}
    for game in engine.GAMES.values():
        codes |= {reason.value for reason in (game.reasons or ())}
    documented = set(re.findall(r"`([A-Z][A-Z_]+)`", API_PAGE.read_text()))
    missing = sorted(codes - documented)
    assert not missing, f"docs/api.md does not name the reason codes {missing}"


# --- links ---

def anchor(title: str) -> str:
    """GitHub's anchor of a heading."""
    text = re.sub(r"[`*_]|\[([^]]*)\]\([^)]*\)", lambda m: m.group(1) or "", title.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found, fenced = set(), False
    for line in page.read_text().splitlines():
        fenced ^= line.startswith("```")
        if not fenced and (match := re.match(r"#+ (.*)", line)):
            found.add(anchor(match.group(1)))
    return found


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_relative_links_lead_into_the_repository(page: Path) -> None:
    text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M)
    for target, fragment in re.findall(r"\]\(([^)#\s]*)(?:#([^)\s]*))?\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        path = (page.parent / target).resolve() if target else page
        assert path.is_relative_to(ROOT), f"{page.relative_to(ROOT)} links outside the repository: {target}"
        assert path.exists(), f"{page.relative_to(ROOT)} links to a missing file: {target}"
        if fragment and path.suffix == ".md":
            assert fragment in anchors(path), \
                f"{page.relative_to(ROOT)} links to a missing heading: {target}#{fragment}"


# --- names of modules and files ---

DOTTED_NAME = re.compile(r"(?<![\w./-])((?:engine|bots|service|bench|testkit)(?:\.[A-Za-z_]\w*)+)")
"""A module of the project named with dots (``service.rpc.convert``), maybe with an attribute."""
FILE_NAME = re.compile(r"(?<![\w./-])((?:engine|bots|service|bench|testkit|tests|web|clients|proto|deploy|docs)"
                       r"/[\w./-]*\w)")
"""A file or folder of the repository named by its path (``service/rpc/convert.py``)."""
NOT_IN_A_CHECKOUT = re.compile(r"/dist/|/\.?bin/|/\.bin$|node_modules|^proto/releases/v\d|^clients/go/v([\dX]|$)"
                               r"|first\.mts$")
"""Paths the docs name that a build, a release or an example makes (not in a fresh checkout)."""
CODE = [path for top in ("engine", "bots", "service", "bench", "testkit", "clients/python/src/cardgame")
        for path in sorted((ROOT / top).rglob("*.py")) if "v1" not in path.relative_to(ROOT).parts]


def _module_file(parts: list[str]) -> Path | None:
    base = ROOT.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _dotted_exists(name: str) -> bool:
    """Whether a dotted name is a module of the project, or a module and a name it defines."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        found = _module_file(parts[:cut])
        if found is not None:
            rest = parts[cut:]
            return not rest or rest[0].startswith("__") or re.search(rf"\b{re.escape(rest[0])}\b",
                                                                     found.read_text()) is not None
    return False


def _path_exists(text: str) -> bool:
    """Whether a path names a file or folder of the checkout (a prefix of one's name, as in
    ``tests/engine/test_`` or ``package{,-lock}.json``; ``file.py.Name`` for a name in a file)."""
    if NOT_IN_A_CHECKOUT.search(text) or (ROOT / text).exists():
        return True
    path = ROOT / text
    if path.parent.is_dir() and any(child.name.startswith(path.name) for child in path.parent.iterdir()):
        return True
    module, _, _ = text.rpartition(".")
    return module != "" and (ROOT / f"{module}.py").is_file()


def _prose(path: Path) -> str:
    """What a reader reads in a file: a page whole, a module's strings and comments."""
    text = path.read_text()
    if path.suffix != ".py":
        return text
    kinds = (tokenize.STRING, tokenize.COMMENT)
    return "\n".join(token.string for token in tokenize.generate_tokens(io.StringIO(text).readline)
                     if token.type in kinds)


@pytest.mark.parametrize("path", PAGES + CODE, ids=[str(p.relative_to(ROOT)) for p in PAGES + CODE])
def test_every_module_and_file_named_exists(path: Path) -> None:
    """A page, docstring or comment that names a module or file of the project names one that exists."""
    text = _prose(path)
    missing = sorted({m for m in DOTTED_NAME.findall(text) if not _dotted_exists(m)}
                     | {m for m in FILE_NAME.findall(text) if not _path_exists(m)})
    assert not missing, f"{path.relative_to(ROOT)} names what does not exist: {missing}"
