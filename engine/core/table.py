"""What every trick-taking game's state has: seats, phase, turn, hands, the trick, scores.

A game's own state class subclasses :class:`TableState` and adds its fields in ``__slots__``;
copying, (de)serialisation and equality work over the slots of the whole class chain.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from enum import IntEnum
from typing import Any, ClassVar

Seat = int
NOBODY: Seat = -1
NO_CARD = -1
NO_BID = -1
SCHEMA_VERSION = 3
ADDED_FIELDS: dict[str, Callable[[dict], Any]] = {"played": lambda data: [0] * data["n"], "voids": lambda data: 0}
"""Fields added within schema version 2, and their value in a state stored before them (a hand
in progress then shows no cards played and no revealed voids; the next hand has both)."""


class Phase(IntEnum):
    """The phases the shared machinery moves a game through; a game declares these and its own
    (an IntEnum of its module, with their words: ``engine.core.vocabulary``), and has legal/apply
    steps for each. ``state.phase`` holds the code as a plain int (or a game's enum member).
    """

    DEAL = 1            # waiting for the dealer to start the next hand
    PLAY = 9            # trick play
    GAME_OVER = 10      # the game has a winner, or ended drawn


def _migrate_v2(data: dict) -> dict:
    """A state stored at schema version 2 in version 3's form: an action's code took the low four
    bits then, the low byte now (the seats' last calls are the only actions a state holds)."""
    data = dict(data)
    data["calls"] = [call & 15 | call >> 4 << 8 for call in data["calls"]]
    data["schema_version"] = SCHEMA_VERSION
    return data


class TableState:
    """The fields every game shares; a game's state subclasses it and adds its own slots.

    Everything about one game, hidden cards included, lives here; only ``engine.view`` shows
    it to a seat. ``records`` holds the finished hands' score records (typed, per game).
    """

    __slots__ = (
        "variant", "options", "n", "phase", "dealer", "hand_no", "turn", "hands", "deck", "salt",
        "commitment", "looked", "calls", "tricks", "trick_seats", "trick_cards", "last_trick", "scores",
        "winner", "decks", "records", "played", "voids",
    )
    _fields: ClassVar[tuple[str, ...]]
    _copier: ClassVar[Callable[[Any], Any]]   # set per class: the generated copy function
    _reader: ClassVar[Callable[[dict], Any]]  # set per class: the generated from_dict field reader
    _writer: ClassVar[Callable[[Any], dict]]  # set per class: the generated to_dict field writer

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        names: list[str] = []
        for klass in reversed(cls.__mro__):
            names.extend(klass.__dict__.get("__slots__", ()))
        cls._fields = tuple(names)
        cls._copier = _copier(cls)
        cls._reader = _reader(cls)
        cls._writer = _writer(cls)

    def __init__(self, variant: str, options: Any, n: int, sides: int, first_dealer: Seat, start_score: int = 0):
        self.variant = variant
        self.options = options
        self.n = n
        self.phase: int = Phase.DEAL
        self.dealer = first_dealer
        self.hand_no = 0
        self.turn = first_dealer
        self.scores = [start_score] * sides
        self.records: list[Any] = []
        self.winner: list[int] = []   # winning sides; empty while playing
        self.decks: list[list[int]] = []  # prearranged decks still to be dealt
        self.deck: list[int] = []
        self.salt = ""
        self.commitment = ""          # SHA-256 of the salt and this hand's deck, fixed at the deal
        self.reset_hand()

    def reset_hand(self) -> None:
        """Clear what belongs to one hand; a game's state extends this for its own fields."""
        n = self.n
        self.hands = [0] * n
        self.looked = 0               # bit per seat: the seat sees its cards
        self.calls = [0] * n          # last bidding/trump/drop action of each seat (0 = none)
        self.tricks = [0] * n
        self.trick_seats: list[int] = []
        self.trick_cards: list[int] = []
        self.last_trick: list | None = None   # [seats, cards, winner]
        self.played = [0] * n         # the cards each seat played this hand, the trick on the table included
        self.voids = 0                # bit 4 * seat + suit: the seat showed it holds none of that suit

    @property
    def sides(self) -> int:
        """How many scoring sides."""
        return len(self.scores)

    def seats_of(self, side: int) -> list[Seat]:
        """The seats of a scoring side (one seat per side unless a game says otherwise)."""
        return [side]

    def copy(self) -> TableState:
        """An independent copy (lists copied one level deep; records shared, never changed)."""
        return type(self)._copier(self)

    def to_dict(self, records: bool = True) -> dict:
        """The state as plain JSON-ready data, with its schema version (``records``: with the
        hand records; without, an empty list stands in for them)."""
        data = type(self)._writer(self)
        data["options"] = dict(vars(self.options))
        data["phase"] = int(self.phase)
        data["records"] = [record.to_dict() for record in self.records] if records else []
        data["schema_version"] = SCHEMA_VERSION
        return data

    @classmethod
    def from_dict(cls, data: dict, options: Any, record_type: Any) -> TableState:
        """The state stored by :meth:`to_dict` (by this release, or by one at schema version 2);
        ValueError for another schema version."""
        version = data.get("schema_version")
        if version == 2:
            data = _migrate_v2(data)
        elif version != SCHEMA_VERSION:
            raise ValueError(f"unsupported game state schema version {version!r} (this release reads {SCHEMA_VERSION})")
        state = cls._reader(data)
        state.options = options
        state.phase = data["phase"]
        state.records = [record_type.from_dict(r) for r in data["records"]] if data["records"] else []
        return state

    def to_bytes(self) -> bytes:
        """The compact stored form: UTF-8 JSON with a schema version (``engine.state_from_bytes`` reads it)."""
        return json.dumps(self.to_dict(), separators=(",", ":")).encode()

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable


def _copier(cls: type[TableState]) -> Callable[[Any], Any]:
    """A function copying a ``cls`` state field by field, lists one level deep.

    Written out as straight-line code (as ``dataclasses`` writes its methods): copies are the
    inner loop of every search, and this is three times faster than a loop over the fields.
    """
    lines = ["def copy(self):", "    other = new(cls)"]
    for name in cls._fields:
        lines.append(f"    v = self.{name}")
        lines.append(f"    other.{name} = v[:] if v.__class__ is list else v")
    lines.append("    return other")
    namespace: dict[str, Any] = {"new": object.__new__, "cls": cls}
    exec("\n".join(lines), namespace)   # the source is built from the class's own slot names only
    return namespace["copy"]


def _writer(cls: type[TableState]) -> Callable[[Any], dict]:
    """A function giving a ``cls`` state's fields as a dict (the lists themselves, not copies):
    one dict display in straight-line code, like ``_copier``'s; every move writes its state."""
    items = ", ".join(f"{name!r}: self.{name}" for name in cls._fields)
    namespace: dict[str, Any] = {}
    exec(f"def write(self):\n    return {{{items}}}", namespace)   # built from the class's own slot names only
    return namespace["write"]


def _reader(cls: type[TableState]) -> Callable[[dict], Any]:
    """A function making a ``cls`` state from stored data, field by field (KeyError for a field
    that is missing and not in ADDED_FIELDS, whose defaults fill in for older states).

    Straight-line code like ``_copier``'s: every move reads the state it changes.
    """
    lines = ["def read(data):", "    state = new(cls)"]
    for name in cls._fields:
        if name in ADDED_FIELDS:
            lines.append(f"    state.{name} = data[{name!r}] if {name!r} in data else added[{name!r}](data)")
        else:
            lines.append(f"    state.{name} = data[{name!r}]")
    lines.append("    return state")
    namespace: dict[str, Any] = {"new": object.__new__, "cls": cls, "added": ADDED_FIELDS}
    exec("\n".join(lines), namespace)   # the source is built from the class's own slot names only
    return namespace["read"]


TableState._fields = TableState.__slots__
TableState._copier = _copier(TableState)
TableState._reader = _reader(TableState)
TableState._writer = _writer(TableState)
