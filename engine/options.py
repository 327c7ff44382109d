"""Rule options of each game, as named fields with the rule sheets' defaults."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class SpadesOptions:
    """Options of both Spades variants (two-player Spades ignores nothing but uses them per player)."""

    target_score: int = 500
    bag_limit: int = 10
    bag_penalty: int = 100
    nil_value: int = 100
    double_nil_value: int = 200
    double_nil_allowed: bool = True
    exchange_size: int = 3

    def validate(self) -> None:
        """Raise ValueError when an option is out of its sensible range."""
        _check_range("target_score", self.target_score, 1, 100_000)
        _check_range("bag_limit", self.bag_limit, 1, 1_000)
        _check_range("bag_penalty", self.bag_penalty, 0, 100_000)
        _check_range("nil_value", self.nil_value, 0, 100_000)
        _check_range("double_nil_value", self.double_nil_value, 0, 100_000)
        _check_range("exchange_size", self.exchange_size, 0, 13)


@dataclass(frozen=True)
class BuckEuchreOptions:
    """Options of Buck Euchre."""

    starting_score: int = 25
    maker_requirement: int = 3
    penalty: int = 5
    club_turn_up_forces_clubs: bool = True
    turned_down_suit_may_be_named: bool = False

    def validate(self) -> None:
        """Raise ValueError when an option is out of its sensible range."""
        _check_range("starting_score", self.starting_score, 1, 100_000)
        _check_range("maker_requirement", self.maker_requirement, 0, 5)
        _check_range("penalty", self.penalty, 0, 100_000)


Options = SpadesOptions | BuckEuchreOptions


def _check_range(name: str, value: int, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"option {name} must be an integer from {low} to {high}, not {value!r}")


def options_to_dict(options: Options) -> dict:
    """The options as a plain dict (for storage)."""
    return dict(vars(options))


_FIELDS = {cls: frozenset(f.name for f in fields(cls)) for cls in (SpadesOptions, BuckEuchreOptions)}


def options_from_dict(cls: type, data: dict) -> Options:
    """Options of class ``cls`` from a dict, ignoring unknown keys written by newer versions."""
    known = _FIELDS[cls]
    return cls(**{k: v for k, v in data.items() if k in known})
