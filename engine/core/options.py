"""Rule options: each game's are a frozen dataclass of named fields with the rule sheet's defaults."""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any, Self


@dataclass(frozen=True)
class GameOptions:
    """The base of every game's options: validation and the stored form."""

    def validate(self) -> None:
        """Raise ValueError when an option is out of its range (a game's options override this)."""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Options from a dict, ignoring unknown keys written by newer versions (one object per value)."""
        klass: type = cls  # plain ``type``: mypy wrongly finds ``type[Self]`` unhashable for the cache
        return _from_items(klass, tuple(data.items()))


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
