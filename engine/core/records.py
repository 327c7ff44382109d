"""Typed hand records: what every finished hand records, and the loader for their stored form.

Each game's record subclasses :class:`HandRecord` (a dataclass) and adds its own breakdown;
nested dataclasses and lists of them round-trip through ``to_dict`` / ``from_dict`` (a record
class may override ``from_dict`` to read an older stored form: nested records load through it).
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeVar

from .cards import deck_text
from .table import TableState

R = TypeVar("R")


class Record:
    """A dataclass that converts to and from plain JSON-ready data."""

    def to_dict(self) -> dict:
        """The record as plain data (nested records included)."""
        cls: type = type(self)  # plain ``type``: mypy wrongly finds ``type[Record]`` unhashable for ``@cache``
        return {name: _plain(getattr(self, name)) for name in _nested(cls)}

    @classmethod
    def from_dict(cls: type[R], data: dict) -> R:
        """The record from :meth:`to_dict`'s output (unknown keys ignored, nested records rebuilt)."""
        return _load(cls, data)


@cache
def _nested(cls: type) -> dict[str, tuple[type[Record] | None, bool]]:
    """For each field of a record class: (record class it holds, whether it is a list of them)."""
    hints = typing.get_type_hints(cls)
    out: dict[str, tuple[type[Record] | None, bool]] = {}
    for f in dataclasses.fields(cls):
        hint = hints[f.name]
        args = typing.get_args(hint)
        if isinstance(hint, type) and issubclass(hint, Record):
            out[f.name] = (hint, False)
        elif typing.get_origin(hint) is list and args and isinstance(args[0], type) and issubclass(args[0], Record):
            out[f.name] = (args[0], True)
        else:
            out[f.name] = (None, False)
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, Record):
        return value.to_dict()
    if type(value) is list:
        return [_plain(v) for v in value]
    return value


def _load(cls: Any, data: dict) -> Any:
    values = {}
    for name, (inner, many) in _nested(cls).items():
        if name not in data:
            continue
        value = data[name]
        if inner is not None:
            value = [inner.from_dict(v) for v in value] if many else inner.from_dict(value)
        values[name] = value
    return cls(**values)


@dataclass
class HandRecord(Record):
    """What every game records about a finished hand, the deck and its salt revealed.

    ``points`` and ``totals`` are per scoring side: the hand's points and the total after it.
    """

    hand: int
    dealer: int
    tricks: list[int]
    deck: str
    salt: str
    commitment: str
    points: list[int]
    totals: list[int]


def record_base(state: TableState) -> dict[str, Any]:
    """The common fields of the current hand's record (points and totals are the game's)."""
    return {"hand": state.hand_no, "dealer": state.dealer, "tricks": state.tricks[:],
            "deck": deck_text(state.deck), "salt": state.salt, "commitment": state.commitment}
