"""docs/benchmarks.md has a section for every figure `make bench` prints, and names no figure it no
longer prints.

No benchmark runs here (they take minutes and servers). The figures' names are read from the code
of each module ``bench/__main__.py`` runs (its ``<module>.main()`` calls), with ``ast``:

- a key of a dict display (``{"service_moves_per_s": rate}``) or of an item assignment
  (``figures["redis_idle_commands_per_s_per_process_1"] = ...``) whose value is not a string (a
  figure is a number: settings and labels, ``{"nil_exchange": "2"}``, are not figures); an
  f-string key is evaluated with the module's own names (``f"redis_bytes_per_game_{HANDS}_hands"``),
  and one that names what the module does not define fails the test, since its figures cannot be
  told;
- the name a ``print(f"<name> {value}")`` line starts with;

each of the figures' form (lower-case words joined by ``_``). ``bench.engine_hands`` names a
figure per registered game at run time, so its ``main`` also runs here with the timing replaced
(no hand is played), and what it prints counts too.

On the page, a section is a ``###`` heading under ``## make bench``; its ``Figures:`` paragraph
names its figures in code spans, a ``Command:`` paragraph the module that prints them, and a
``Last measured:`` paragraph their range.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "benchmarks.md"
FIGURE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
"""A figure's name as the benchmarks print it: ``service_moves_per_s``."""


def make_bench_modules() -> list[str]:
    """The modules ``bench/__main__.py`` runs, in its order."""
    tree = ast.parse((ROOT / "bench" / "__main__.py").read_text())
    return [node.func.value.id for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "main"
            and isinstance(node.func.value, ast.Name)]


def _is_text(node: ast.expr) -> bool:
    return isinstance(node, ast.JoinedStr) or isinstance(node, ast.Constant) and isinstance(node.value, str)


def _figure_keys(tree: ast.AST) -> list[ast.expr]:
    """The expressions that may name a figure: dict keys, item-assignment keys, a print's head."""
    found: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            found += [key for key, value in zip(node.keys, node.values, strict=True)
                      if key is not None and not _is_text(value)]
        elif isinstance(node, ast.Assign) and not _is_text(node.value):
            found += [target.slice for target in node.targets if isinstance(target, ast.Subscript)]
        elif isinstance(node, ast.AugAssign | ast.AnnAssign) and isinstance(node.target, ast.Subscript):
            found.append(node.target.slice)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"
              and node.args and isinstance(node.args[0], ast.JoinedStr) and node.args[0].values
              and isinstance(head := node.args[0].values[0], ast.Constant) and " " in head.value):
            found.append(ast.Constant(head.value.split(" ")[0]))
    return found


def figures_in_code(module: ModuleType) -> set[str]:
    """The figure names ``module``'s code spells out (the module docstring's rules)."""
    names = set()
    for key in _figure_keys(ast.parse(Path(module.__file__ or "").read_text())):
        if isinstance(key, ast.JoinedStr):
            try:
                key = ast.Constant(eval(compile(ast.Expression(key), module.__name__, "eval"), vars(module)))
            except NameError as error:
                pytest.fail(f"{module.__name__}: cannot tell the figure named by {ast.unparse(key)} ({error}): "
                            f"name it from module-level values, or teach this test how")
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and FIGURE.fullmatch(key.value):
            names.add(key.value)
    return names


def engine_hands_printed(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> set[str]:
    """What ``bench.engine_hands`` prints, every game's figure included, without playing a hand."""
    import engine
    from bench import engine_hands
    from engine.games import BUILTIN

    monkeypatch.setattr(engine_hands, "hands_per_second", lambda *args, **kwargs: 0.0)
    # the games `python -m bench` knows: a test game another test registered in this process is none
    monkeypatch.setattr(engine, "GAMES", {game.name: game for game in BUILTIN})
    capsys.readouterr()
    engine_hands.main()
    return {line.split()[0] for line in capsys.readouterr().out.splitlines() if line and not line.startswith("#")}


@pytest.fixture
def printed(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    """Every figure `make bench` prints, by name: the module that prints it."""
    by_figure: dict[str, str] = {}
    for name in make_bench_modules():
        module = importlib.import_module(f"bench.{name}")
        names = figures_in_code(module)
        if name == "engine_hands":
            names |= engine_hands_printed(monkeypatch, capsys)
        assert names, f"no figure found in bench.{name}: the test no longer reads its figures' names"
        by_figure.update(dict.fromkeys(names, name))
    return by_figure


def sections(text: str) -> dict[str, str]:
    """The ``###`` sections of the page's ``## make bench`` part, by heading: their text."""
    part = text.split("\n## make bench\n", 1)[1].split("\n## ", 1)[0]
    found = {}
    for chunk in part.split("\n### ")[1:]:
        heading, _, body = chunk.partition("\n")
        found[heading] = body
    return found


def paragraph(body: str, label: str) -> str:
    """The paragraph of a section that starts with ``label``, or ""."""
    return next((p for p in (p.strip() for p in body.split("\n\n")) if p.startswith(label)), "")


def documented(text: str) -> dict[str, tuple[str, str]]:
    """Every figure the ``make bench`` sections list, by name: (the section's heading, its body)."""
    listed = {}
    for heading, body in sections(text).items():
        for name in re.findall(r"`([^`]+)`", paragraph(body, "Figures:")):
            listed[name] = (heading, body)
    return listed


def test_every_figure_make_bench_prints_has_its_section(printed: dict[str, str]) -> None:
    listed = documented(PAGE.read_text())
    missing = sorted(set(printed) - set(listed))
    assert not missing, f"docs/benchmarks.md has no section (a Figures: line under ## make bench) for {missing}"
    stale = sorted(set(listed) - set(printed))
    assert not stale, f"docs/benchmarks.md lists figures make bench no longer prints: {stale}"


def test_each_section_says_its_command_and_last_range(printed: dict[str, str]) -> None:
    for name, (heading, body) in documented(PAGE.read_text()).items():
        command = paragraph(body, "Command:")
        assert f"bench.{printed.get(name)}`" in command, \
            f"the section {heading!r} does not give the command that prints {name}: bench.{printed.get(name)}"
        assert paragraph(body, "Last measured:"), f"the section {heading!r} has no 'Last measured:' range"


def test_the_figure_names_are_read_from_the_code(printed: dict[str, str]) -> None:
    """The reading finds figures of each kind: literal keys, f-string keys, print heads, per game."""
    import engine

    assert printed["service_moves_per_s"] == "service_moves"
    assert printed["redis_bytes_per_game_10_hands"] == "redis_bytes"
    assert printed["redis_idle_commands_per_s_watch_500"] == "idle"
    assert printed["view_play_us"] == "views"
    assert "hearts_hands_per_s" in printed and "spades4_hands_per_s" in printed
    assert all(f"{game}_hands_per_s" in printed for game in engine.GAMES if game != "spades")
    assert not {"nil_exchange", "losing_score", "jack_of_diamonds", "room"} & set(printed)


def test_a_missing_section_fails() -> None:
    """Without a section, its figures are reported missing."""
    text = PAGE.read_text()
    heading = next(h for h in sections(text) if "view_exchange_us" in h)
    body = sections(text)[heading]
    without = text.replace(f"\n### {heading}\n{body}", "\n")
    assert "view_exchange_us" in documented(text) and "view_exchange_us" not in documented(without)
