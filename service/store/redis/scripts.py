"""The Lua scripts of the Redis store, read once, at import, from ``lua/`` beside this module.

Each ``lua/<name>.lua`` is the script ``<name>``. Its leading ``--`` lines (up to the first line
that is not one) say what it takes in KEYS and ARGV and what it returns; they are documentation
and not sent. When the first of them reads ``-- include: <fragment> ...``, the text of each named
``lua/include/<fragment>.lua`` (read the same way, without its own leading comments) goes before
the script's, in the order named: the retry records (``retry``: ``remember``, ``recall`` and the
clock ``now``), the outbox (``outbox``: ``append_outbox``), the index (``unindex``), the commit
(``commit``: ``commit_change``, after ``retry`` and ``outbox``), the schedule (``schedule``:
``schedule_game``) and the event streams (``publish``: ``publish_events``). So a script that does
two scripts' work (``commit_due``, ``publish_outbox``) shares their code.
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable

INCLUDE = "-- include:"
LUA = files(__package__).joinpath("lua")


def _read(path: Traversable) -> tuple[list[str], str]:
    """Return a Lua file's leading comment lines and the text after them."""
    text = path.read_text(encoding="utf-8")
    header: list[str] = []
    while text.startswith("--"):
        line, _, text = text.partition("\n")
        header.append(line)
    return header, text


def _includes(header: list[str]) -> list[str]:
    """Return the fragments named by an include directive on the first comment line, if any."""
    return header[0][len(INCLUDE):].split() if header and header[0].startswith(INCLUDE) else []


def _script(path: Traversable) -> str:
    """Return the text of a script: its fragments', then its own."""
    header, body = _read(path)
    parts = []
    for name in _includes(header):
        fragment_header, fragment = _read(LUA.joinpath("include", f"{name}.lua"))
        if _includes(fragment_header):
            raise ValueError(f"the Lua fragment {name!r} includes others: only scripts include fragments")
        parts.append(fragment)
    return "".join(parts) + body


SCRIPTS: dict[str, str] = {entry.name.removesuffix(".lua"): _script(entry)
                           for entry in sorted(LUA.iterdir(), key=lambda entry: entry.name)
                           if entry.is_file() and entry.name.endswith(".lua")}


def sharded(source: str) -> str:
    """Return a script whose change notifications are SPUBLISHed (on a Redis Cluster) instead of PUBLISHed."""
    return source.replace("redis.call('PUBLISH', ", "redis.call('SPUBLISH', ")
