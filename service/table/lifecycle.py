"""The life around a game, as plain functions over a GameRecord: its status, turn deadlines,
labels and the index terms they give, and the events a change emits.

Events are stored as ``<sequence> <JSON>`` (the sequence numbers a game's events from 1 without
gaps) in the game's outbox by the same commit as the change, then published to the owner's
event stream; ``service.rpc.lifecycle_messages`` turns them, and the rest of a game's life, into
the API's messages. Nothing here knows the wire.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import orjson

import bots
import engine
from engine import Phase
from service.errors import InvalidArgument
from service.table.record import PLAYING, GameRecord

OPEN_OWNER = "_open"  # the owner of every game on a server without API keys
MAX_LABELS = 16
MAX_LABEL_VALUE = 256
MAX_EXTERNAL_ID = 128
MIN_TURN_TIMEOUT_MS = 1000   # the shortest turn deadline a game may set
SHORT_TURN_TIMEOUT_MS = 10   # the least with --allow-short-deadlines, a test mode of loopback servers
_LABEL_KEY = re.compile(r"[a-z0-9][a-z0-9._-]{0,62}")

HAND_END, GAME_OVER, TIMEOUT, LEAVE, DELETE = "hand_end", "game_over", "timeout", "leave", "delete"


def owner_of(caller: str) -> str:
    """The owner name a caller's games are kept under ("" on an open server has one)."""
    return caller or OPEN_OWNER


def check_labels(labels: Mapping[str, str], what: str = "labels") -> dict[str, str]:
    """The labels if every key and value is within bounds; InvalidArgument names the first that is not."""
    if len(labels) > MAX_LABELS:
        raise InvalidArgument(f"at most {MAX_LABELS} {what}, not {len(labels)}")
    for key, value in labels.items():
        if not _LABEL_KEY.fullmatch(key):
            raise InvalidArgument(f"{what} key {key[:70]!r} is not 1 to 63 lowercase letters, digits, '.', '-' "
                                  "or '_' (starting with a letter or digit)")
        if len(value) > MAX_LABEL_VALUE or "\n" in value:
            raise InvalidArgument(f"{what} value of {key!r} is longer than {MAX_LABEL_VALUE} characters "
                                  "or holds a line break")
    return dict(sorted(labels.items()))


def check_external_id(value: str, what: str) -> str:
    """A backend player id within bounds."""
    if len(value) > MAX_EXTERNAL_ID or "\n" in value:
        raise InvalidArgument(f"{what} is longer than {MAX_EXTERNAL_ID} characters or holds a line break")
    return value


def terms(record: GameRecord) -> list[str]:
    """The index terms ListGames can filter this game by: each label and each player id."""
    found = [f"l:{key}={value}" for key, value in sorted(record.labels.items())]
    found += sorted({f"p:{seat.external_id}" for seat in record.seats if seat.external_id})
    return found


def label_terms(labels: Mapping[str, str]) -> list[str]:
    """The index terms of a ListGames label filter."""
    return [f"l:{key}={value}" for key, value in sorted(labels.items())]


def seats_on_the_clock(record: GameRecord) -> list[int]:
    """The human seats whose turn it is (present players with something to do beyond the optional
    actions of their game, such as looking at their cards)."""
    state = record.state
    if state.phase == Phase.GAME_OVER or record.abandoned:
        return []
    humans = [i for i, seat in enumerate(record.seats) if not seat.bot and seat.presence == PLAYING]
    if state.turn >= 0:
        candidates = [state.turn] if state.turn in humans else []
    else:
        candidates = humans
    optional = engine.game_of(state.variant).vocabulary.is_optional
    return [s for s in candidates if any(not optional(a) for a in engine.legal_actions(state, s))]


def bots_due(record: GameRecord) -> bool:
    """Whether a bot (or the bot of a player away or gone) has a turn to play now: after a commit
    that played as many bot turns as one may, the sweeper plays on."""
    return bots.bot_seat_to_act(record.state, set(record.bots)) is not None


def set_deadline(record: GameRecord, now_ms: int, bots_left: bool | None = None) -> None:
    """After a change: the turn now due runs until ``now_ms`` plus the game's turn timeout (no
    deadline when the game has none or no human seat is on the clock); bot turns still due are
    due at ``now_ms``, for the sweeper to play on (``bots_left``: whether any are, when the
    caller knows; asked of the rules otherwise)."""
    timeout = record.lifecycle.turn_timeout_ms
    if bots_due(record) if bots_left is None else bots_left:
        record.deadline_ms = now_ms
    else:
        record.deadline_ms = now_ms + timeout if timeout and seats_on_the_clock(record) else 0


def timed_out_seat(record: GameRecord) -> int | None:
    """The seat a passed deadline makes the fallback bot play for: the first on the clock."""
    on_clock = seats_on_the_clock(record)
    return on_clock[0] if on_clock else None


def _standings(record: GameRecord) -> dict:
    score = engine.score(record.state)
    return {"totals": [[side, seats, score.totals[side], score.bags[side]] for side, seats in enumerate(score.sides)],
            "winner": winner_side(record), "left": record.left_seat}


def winner_side(record: GameRecord) -> int | None:
    """The winning side of a finished game (None for a draw or while it goes on). In an
    abandoned game the leaver's side loses: the best of the other sides wins, ties a draw."""
    state = record.state
    if state.phase != Phase.GAME_OVER:
        return None
    if not record.abandoned:
        return state.winner[0] if len(state.winner) == 1 else None
    leaver = next(side for side in range(state.sides) if record.left_seat in state.seats_of(side))
    others = [side for side in range(state.sides) if side != leaver]
    best = max(state.scores[side] for side in others)
    top = [side for side in others if state.scores[side] == best]
    return top[0] if len(top) == 1 else None


def event(record: GameRecord, kind: str, version: int, now_ms: int, **fields) -> bytes:
    """A new event of the game, numbered after the last one."""
    record.events += 1
    body = {"k": kind, "g": record.game_id, "v": version, "t": now_ms, "labels": record.labels, **fields}
    return b"%d %s" % (record.events, orjson.dumps(body))


def change_events(record: GameRecord, version: int, now_ms: int) -> list[bytes]:
    """The events a change that led to ``record`` at ``version`` emits: one per hand it ended
    (with the score record), and game over once the game has ended."""
    state = record.state
    if not state.records and state.phase != Phase.GAME_OVER:   # most changes end nothing
        return []
    sides = [state.seats_of(side) for side in range(state.sides)]
    found = [event(record, HAND_END, version, now_ms, hand=hand.to_dict(), variant=state.variant, sides=sides)
             for hand in state.records]
    if record.state.phase == Phase.GAME_OVER:
        found.append(event(record, GAME_OVER, version, now_ms, standings=_standings(record)))
    return found
