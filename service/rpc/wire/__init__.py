"""Per-game wire adapters: what each game's own facts look like on the wire, by game name.

``service.rpc.convert`` builds the common part of every message for any registered game, then asks
the game's :class:`WireAdapter` (``adapter_of(name)``) for the rest: its rule options message, its
case of the GameView and SeatView ``rules`` oneofs, and its HandScore / SeatScore ``rules`` cases.
Each game with a module here (every module of this package but ``base``) exposes ``ADAPTER``
and is registered when the package is imported, so a game's adapter plugs in by its file alone;
a game defined elsewhere may ``register`` one of its own, and without one it gets
:data:`GENERIC`: its default options, and views and hand scores of the common part alone.

The ``Variant`` enum, kept for compatibility, names the first built-in games; :data:`VARIANTS` maps
it as the schema declares (each game's ``variant`` in the ``cardgame.v1.games`` option of its
RuleOptions case, catalog.proto); a game without a value is VARIANT_UNSPECIFIED on the wire.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import cast

from cardgame.games import GAMES
from cardgame.v1 import enums_pb2 as enums

from .base import EVERY_SEAT, SUITS, WireAdapter, names

__all__ = ["ADAPTERS", "EVERY_SEAT", "GENERIC", "SUITS", "VARIANTS", "VARIANT_ENUM", "WireAdapter", "adapter_of",
           "names", "register", "unregister"]

ADAPTERS: dict[str, WireAdapter] = {}
"""Every registered wire adapter by its game's registry name."""

GENERIC = WireAdapter(name="")
"""The adapter of a game without one of its own: the common part of every message."""

VARIANTS: dict[enums.Variant, str] = {cast(enums.Variant, game.variant): game.name
                                      for game in GAMES if game.variant}
"""The game each ``Variant`` value names, as the schema declares (the enum is kept for compatibility)."""

VARIANT_ENUM: dict[str, enums.Variant] = {name: value for value, name in VARIANTS.items()}
"""The ``Variant`` value of each built-in game, by registry name."""


def register(adapter: WireAdapter) -> WireAdapter:
    """Add a game's wire adapter; ValueError if a different one is registered for the game."""
    if ADAPTERS.get(adapter.name, adapter) is not adapter:
        raise ValueError(f"a different wire adapter is already registered for {adapter.name!r}")
    if not adapter.name:
        raise ValueError("a wire adapter needs its game's registry name")
    ADAPTERS[adapter.name] = adapter
    return adapter


def unregister(name: str) -> None:
    """Remove a game's wire adapter (tests that register games of their own use it)."""
    ADAPTERS.pop(name, None)


def adapter_of(name: str) -> WireAdapter:
    """The wire adapter of the game of this registry name (GENERIC for a game without one)."""
    return ADAPTERS.get(name, GENERIC)


for _module in sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name != "base"):
    register(importlib.import_module(f"{__name__}.{_module}").ADAPTER)
