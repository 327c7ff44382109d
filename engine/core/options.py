"""Rule options ("settings"): each game declares each of its settings once, as data.

A game's options are a frozen dataclass of named fields with the rule sheet's defaults, and its
``SETTINGS`` declare every field: name, type (a whole number in a range, true or false, one of a
few choices, or text of a pattern), default, a short title and a help line, and which of the games
sharing the options take it. Validation, the wire's generic settings, the catalog a lobby is built
from, the terminal's ``--option name=value`` and the docs' table all follow from the declaration.

>>> target = Setting("target", 100, "Target", "The score that ends the game.", low=1, high=1000)
>>> target.kind, target.parse("250"), target.allowed
('integer', 250, 'an integer from 1 to 1000')
>>> target.check(0)
Traceback (most recent call last):
...
ValueError: option target must be an integer from 1 to 1000, not 0
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any, ClassVar, Self

Value = int | bool | str
SHOWN_CHARS = 40   # of a refused value a message repeats: a caller's text is never echoed whole


def shown(value: Any) -> str:
    """A caller's value as a refusal repeats it: its repr, cut to ``SHOWN_CHARS`` characters.

    >>> len(shown("x" * 100)), shown("x" * 100)[-6:], shown(5)
    (43, 'xxx...', '5')
    """
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."


@dataclass(frozen=True)
class Setting:
    """One rule option of a game, declared once.

    ``default`` gives its type: a bool (true or false), an int (a whole number from ``low`` to
    ``high``) or a str (one of ``choices``, or text matching ``pattern``, which ``allowed_text``
    describes); ``games`` names the games that take it among those sharing the options (empty:
    all of them).
    """

    name: str
    default: Value
    title: str
    help: str
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()
    pattern: str = ""
    allowed_text: str = ""
    games: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.default, bool):
            return
        if isinstance(self.default, int) and (self.low is None or self.high is None):
            raise ValueError(f"setting {self.name}: an integer setting needs its range (low, high)")
        if isinstance(self.default, str) and not (self.choices or self.pattern):
            raise ValueError(f"setting {self.name}: a text setting needs its choices or its pattern")
        self.check(self.default)

    @property
    def kind(self) -> str:
        """``boolean``, ``integer``, ``choice`` or ``text``."""
        if isinstance(self.default, bool):
            return "boolean"
        if isinstance(self.default, int):
            return "integer"
        return "choice" if self.choices else "text"

    @property
    def allowed(self) -> str:
        """The values it takes, in words: "an integer from 1 to 1000", "one of jokers, none"."""
        kind = self.kind
        if kind == "boolean":
            return "true or false"
        if kind == "integer":
            return f"an integer from {self.low} to {self.high}"
        if kind == "choice":
            return "one of " + ", ".join(self.choices)
        return self.allowed_text or f"text matching {self.pattern}"

    def takes(self, game: str) -> bool:
        """Whether the game of this name takes the setting."""
        return not self.games or game in self.games

    def check(self, value: Any) -> Value:
        """``value`` if the setting takes it; ValueError naming the setting and what it takes."""
        kind = self.kind
        if kind == "boolean":
            ok = isinstance(value, bool)
        elif kind == "integer":
            ok = not isinstance(value, bool) and isinstance(value, int) and self.low <= value <= self.high  # type: ignore[operator]
        elif kind == "choice":
            ok = isinstance(value, str) and value in self.choices
        else:
            ok = isinstance(value, str) and re.fullmatch(self.pattern, value) is not None
        if not ok:
            raise ValueError(f"option {self.name} must be {self.allowed}, not {shown(value)}")
        return value

    def parse(self, text: str) -> Value:
        """The value written as ``text`` ("250", "true", "jokers"), checked; ValueError if none."""
        kind = self.kind
        if kind == "boolean":
            folded = text.strip().lower()
            if folded not in ("true", "false", "yes", "no", "on", "off", "1", "0"):
                raise ValueError(f"option {self.name} must be true or false, not {shown(text)}")
            return self.check(folded in ("true", "yes", "on", "1"))
        if kind == "integer":
            try:
                number = int(text.strip())
            except ValueError:
                raise ValueError(f"option {self.name} must be {self.allowed}, not {shown(text)}") from None
            return self.check(number)
        return self.check(text.strip())

    def text(self, value: Value) -> str:
        """A value written as :meth:`parse` reads it."""
        return ("true" if value else "false") if isinstance(value, bool) else str(value)


@dataclass(frozen=True)
class GameOptions:
    """The base of every game's options: validation from the declared settings, and the stored form."""

    SETTINGS: ClassVar[tuple[Setting, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        names = [s.name for s in cls.SETTINGS]
        if len(set(names)) != len(names):
            raise TypeError(f"{cls.__name__} declares a setting twice")

    def validate(self) -> None:
        """Raise ValueError naming the first option its setting does not take (a game's options
        may check more, calling this first)."""
        for setting in type(self).SETTINGS:
            setting.check(getattr(self, setting.name))

    @classmethod
    def settings_for(cls, game: str) -> tuple[Setting, ...]:
        """The settings the game of this name takes."""
        return tuple(s for s in cls.SETTINGS if s.takes(game))

    @classmethod
    def from_settings(cls, game: str, given: dict[str, str]) -> Self:
        """Options from settings written as text (``name -> "value"``), the others at their
        defaults, validated; ValueError for a setting the game does not take or a bad value."""
        declared = {s.name: s for s in cls.settings_for(game)}
        unknown = sorted(set(given) - set(declared))
        if unknown:
            raise ValueError(f"{game} has no setting {shown(unknown[0])} (its settings: {', '.join(declared)})")
        options = cls(**{name: declared[name].parse(text) for name, text in given.items()})
        options.validate()
        return options

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Options from a dict, ignoring unknown keys written by newer versions (one object per value)."""
        klass: type = cls  # plain ``type``: mypy wrongly finds ``type[Self]`` unhashable for the cache
        return _from_items(klass, tuple(data.items()))


def check_settings(options_type: type[GameOptions]) -> None:
    """Raise TypeError unless the options' dataclass fields are exactly its declared settings,
    each with the setting's default (a game is registered only with options declared in full)."""
    declared = {s.name: s for s in options_type.SETTINGS}
    found = {f.name: f.default for f in fields(options_type)}
    if set(declared) != set(found):
        raise TypeError(f"{options_type.__name__}: its fields {sorted(found)} are not its settings {sorted(declared)}")
    for name, setting in declared.items():
        if found[name] != setting.default or type(found[name]) is not type(setting.default):
            raise TypeError(f"{options_type.__name__}.{name}: default {found[name]!r}, its setting says "
                            f"{setting.default!r}")


@lru_cache(maxsize=1024)
def _from_items(cls: type, items: tuple[tuple[str, Any], ...]) -> Any:
    known = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in items if k in known})


def check_range(name: str, value: int, low: int, high: int) -> None:
    """Raise ValueError unless ``value`` is an int (not a bool) from ``low`` to ``high``."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"option {name} must be an integer from {low} to {high}, not {value!r}")


def check_flag(name: str, value: bool) -> None:
    """Raise ValueError unless ``value`` is a bool."""
    if not isinstance(value, bool):
        raise ValueError(f"option {name} must be true or false, not {value!r}")
