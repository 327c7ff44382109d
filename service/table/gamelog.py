"""The stored log of a game: its genesis, then one entry per action, chance outcomes included.

A game is a pure fold of its log (``engine.replay``), so the store keeps entries instead of
state snapshots, and any version of a game can be rebuilt from them. Entries are short text:

- the genesis (version 1): ``G`` and the JSON of the variant, options, first dealer and any
  prearranged decks, as ``engine.new_game`` takes them;
- an action: ``<seat> <code>.<payload>`` (the action's word code in its game and its payload,
  ``engine.core.actions``), then ``<salt>:<cards as 2-hex-digit numbers>`` for an action that drew
  a chance outcome (a deal's deck, a draw's cards). An entry written before the games had words of
  their own holds the action as one int, ``<kind> | <payload> << 4``, and is read as that;
- ``-``: a version without an action (written only by the benchmark's no-op);
- ``-<note> <seat>``: a version that is no seat's action but a change around the game:
  ``timeout`` (the seat's turn passed its deadline; its bot's move follows as an action entry),
  ``away``, ``back``, ``leave``, ``reissue`` (a new seat token) and ``abandon`` (the seat left
  and the game ended, which is the one note that changes the engine state: it is over).

>>> import random, engine
>>> state = engine.new_game("spades", rng=random.Random(1), first_dealer=0)
>>> log = [genesis(state)]
>>> log.append(entry(0, engine.DEAL, engine.apply(state, 0, engine.DEAL, random.Random(1))))
>>> rebuild(log).to_bytes() == state.to_bytes(), len(log[1]), log[1][:6]
(True, 143, b'0 1.0 ')
>>> parse(b"2 830") == parse(b"2 14.51") == LogEntry(2, engine.play(51))
True
"""

from __future__ import annotations

from collections.abc import Iterable

import orjson

import engine
from engine import Chance, LogEntry, Phase, TableState
from engine.core.actions import CODE_BITS, CODE_MASK

NO_ACTION = b"-"
"""The first byte of an entry that is no seat's action: a note (``-timeout 2``), or ``-`` alone for a
version that changed nothing a replay needs."""
_GENESIS = b"G"
NOTES = ("timeout", "away", "back", "leave", "reissue", "abandon")


def note(kind: str, seat: int) -> bytes:
    """The log entry of a change around the game that is no seat's action."""
    if kind not in NOTES:
        raise ValueError(f"unknown log note {kind!r}")
    return b"-%s %d" % (kind.encode(), seat)


def note_of(raw: bytes) -> tuple[str, int] | None:
    """(note, seat) of a note entry, None for any other entry."""
    if not raw.startswith(NO_ACTION) or raw == NO_ACTION:
        return None
    kind, _, seat = raw[1:].decode().partition(" ")
    return kind, int(seat)


def genesis(state: TableState) -> bytes:
    """The first entry of a new game's log (call before any action is applied)."""
    return _GENESIS + orjson.dumps({"variant": state.variant, "options": vars(state.options),
                                    "dealer": state.dealer, "decks": state.decks})


def entry(seat: int, action: int, chance: Chance | None) -> bytes:
    """The log entry of one applied action and the chance outcome it drew."""
    head = b"%d %d.%d" % (seat, action & CODE_MASK, action >> CODE_BITS)
    if chance is None:
        return head
    return b"%s %s:%s" % (head, chance.salt.encode(), bytes(chance.cards).hex().encode())


def parse(raw: bytes) -> LogEntry | None:
    """The action of an entry, or None for a version without one; ValueError if malformed."""
    if raw.startswith(NO_ACTION):
        return None
    parts = raw.split(b" ")
    if len(parts) not in (2, 3) or raw.startswith(_GENESIS):
        raise ValueError(f"not an action log entry: {raw[:40]!r}")
    chance = None
    if len(parts) == 3:
        salt, _, cards = parts[2].partition(b":")
        chance = Chance(tuple(bytes.fromhex(cards.decode())), salt.decode())
    code, dot, payload = parts[1].partition(b".")
    if dot:
        action = int(code) | int(payload) << CODE_BITS
    else:   # the single int of an entry written before the games had words of their own
        old = int(code)
        action = old & 15 | old >> 4 << CODE_BITS
    return LogEntry(int(parts[0]), action, chance)


def start(raw: bytes) -> TableState:
    """The new game a genesis entry describes; ValueError if it is not one."""
    if not raw.startswith(_GENESIS):
        raise ValueError("the log does not start with a genesis entry")
    data = orjson.loads(raw[1:])
    game = engine.game_of(data["variant"])
    return engine.new_game(game.name, game.options_type.from_dict(data["options"]), None, data["dealer"],
                           data["decks"])


def apply(state: TableState, raw: bytes) -> None:
    """Apply one log entry (after the genesis) to ``state`` in place."""
    step = parse(raw)
    if step is not None:
        engine.fold(state, step)
    elif raw.startswith(b"-abandon "):
        state.phase = Phase.GAME_OVER


def fold(state: TableState, raw: Iterable[bytes]) -> TableState:
    """Apply log entries (after the genesis) to ``state`` in place; returns it."""
    for item in raw:
        apply(state, item)
    return state


def rebuild(raw: list[bytes]) -> TableState:
    """The state a whole log (genesis first) leads to."""
    return fold(start(raw[0]), raw[1:])
