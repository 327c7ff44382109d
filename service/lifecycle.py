"""The life around a game, as plain functions over a GameRecord: its status, turn deadlines,
labels and the index terms they give, and the events a change emits.

Events are stored as ``<sequence> <JSON>`` (the sequence numbers a game's events from 1 without
gaps) in the game's outbox by the same commit as the change, then published to the owner's
event stream; :func:`event_message` turns one into the API's Event.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import cast

import orjson
from google.protobuf import timestamp_pb2

import bots
import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import lifecycle_pb2 as lc
from cardgame.v1 import view_pb2
from engine import Phase
from engine.core.actions import REVEAL, Kind, action_name
from engine.core.cards import card_name
from engine.core.views import in_hand
from service import convert, gamelog
from service.errors import InvalidArgument
from service.games import AWAY, PLAYING, GameRecord, Lifecycle

OPEN_OWNER = "_open"  # the owner of every game on a server without API keys
MAX_LABELS = 16
MAX_LABEL_VALUE = 256
MAX_EXTERNAL_ID = 128
MIN_TURN_TIMEOUT_MS = 1000
MAX_TURN_TIMEOUT_MS = 86_400_000
DEFAULT_TIMEOUTS_BEFORE_AWAY = 3
MAX_TIMEOUTS_BEFORE_AWAY = 100
_LABEL_KEY = re.compile(r"[a-z0-9][a-z0-9._-]{0,62}")

HAND_END, GAME_OVER, TIMEOUT, LEAVE, DELETE = "hand_end", "game_over", "timeout", "leave", "delete"
EVENT_KINDS = {HAND_END: lc.EVENT_KIND_HAND_END, GAME_OVER: lc.EVENT_KIND_GAME_OVER, TIMEOUT: lc.EVENT_KIND_TIMEOUT,
               LEAVE: lc.EVENT_KIND_LEAVE, DELETE: lc.EVENT_KIND_DELETE}


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


def lifecycle_of(message: lc.LifecycleOptions) -> Lifecycle:
    """The lifecycle options of a CreateGame request, checked."""
    timeout = message.turn_timeout_ms
    if timeout and not MIN_TURN_TIMEOUT_MS <= timeout <= MAX_TURN_TIMEOUT_MS:
        raise InvalidArgument(f"lifecycle.turn_timeout_ms must be 0 (none) or {MIN_TURN_TIMEOUT_MS} to "
                              f"{MAX_TURN_TIMEOUT_MS}, not {timeout}")
    away = message.timeouts_before_away or DEFAULT_TIMEOUTS_BEFORE_AWAY
    if not 1 <= away <= MAX_TIMEOUTS_BEFORE_AWAY:
        raise InvalidArgument(f"lifecycle.timeouts_before_away must be 0 (3) or 1 to {MAX_TIMEOUTS_BEFORE_AWAY}")
    if message.leave_policy not in lc.LeavePolicy.values():
        raise InvalidArgument("lifecycle.leave_policy is not a known policy")
    return Lifecycle(timeout, away, message.leave_policy == lc.LEAVE_POLICY_ABANDON)


def status(record: GameRecord) -> enums.GameStatus:
    """The game's GameStatus."""
    state = record.state
    if state.phase == Phase.GAME_OVER:
        return enums.GAME_STATUS_FINISHED
    if state.hand_no == 0 and state.phase == Phase.DEAL:
        return enums.GAME_STATUS_WAITING
    return enums.GAME_STATUS_IN_PLAY


def terms(record: GameRecord) -> list[str]:
    """The index terms ListGames can filter this game by: each label and each player id."""
    found = [f"l:{key}={value}" for key, value in sorted(record.labels.items())]
    found += sorted({f"p:{seat.external_id}" for seat in record.seats if seat.external_id})
    return found


def label_terms(labels: Mapping[str, str]) -> list[str]:
    """The index terms of a ListGames label filter."""
    return [f"l:{key}={value}" for key, value in sorted(labels.items())]


def seats_on_the_clock(record: GameRecord) -> list[int]:
    """The human seats whose turn it is (present players with something to do but REVEAL)."""
    state = record.state
    if state.phase == Phase.GAME_OVER or record.abandoned:
        return []
    humans = [i for i, seat in enumerate(record.seats) if not seat.bot and seat.presence == PLAYING]
    if state.turn >= 0:
        candidates = [state.turn] if state.turn in humans else []
    else:
        candidates = humans
    return [s for s in candidates if any(a != REVEAL for a in engine.legal_actions(state, s))]


def bots_due(record: GameRecord) -> bool:
    """Whether a bot (or the bot of a player away or gone) has a turn to play now: after a commit
    that played as many bot turns as one may, the sweeper plays on."""
    return bots.bot_seat_to_act(record.state, set(record.bots)) is not None


def set_deadline(record: GameRecord, now_ms: int) -> None:
    """After a change: the turn now due runs until ``now_ms`` plus the game's turn timeout (no
    deadline when the game has none or no human seat is on the clock); bot turns still due are
    due at ``now_ms``, for the sweeper to play on."""
    timeout = record.lifecycle.turn_timeout_ms
    if bots_due(record):
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
    sides = [state.seats_of(side) for side in range(state.sides)]
    found = [event(record, HAND_END, version, now_ms, hand=hand.to_dict(), variant=state.variant, sides=sides)
             for hand in state.records]
    if record.state.phase == Phase.GAME_OVER:
        found.append(event(record, GAME_OVER, version, now_ms, standings=_standings(record)))
    return found


def sequence_of(raw: bytes) -> int:
    """The sequence number of a stored event."""
    return int(raw.split(b" ", 1)[0])


def timestamp(ms: int) -> timestamp_pb2.Timestamp:
    """A protobuf Timestamp of epoch milliseconds."""
    stamp = timestamp_pb2.Timestamp()
    stamp.FromMilliseconds(ms)
    return stamp


def event_message(stream_id: str, raw: bytes) -> lc.Event:
    """The API's Event for a stored event and its stream id."""
    sequence, _, body = raw.partition(b" ")
    data = orjson.loads(body)
    message = lc.Event(id=stream_id, game_id=data["g"], kind=EVENT_KINDS[data["k"]], version=data["v"],
                       time=timestamp(data["t"]), sequence=int(sequence), labels=data.get("labels") or {})
    if "seat" in data:
        message.seat = data["seat"]
    if "hand" in data:
        variant = data["variant"]
        hand = engine.game_of(variant).record_type.from_dict(data["hand"])
        message.hand.CopyFrom(convert.hand_score(hand, data["sides"], variant))
    if "standings" in data:
        standings = data["standings"]
        for side, seats, score, bags in standings["totals"]:
            message.standings.totals.add(side=side, seats=seats, score=score, bags=bags)
        if standings["winner"] is not None:
            message.standings.winner_side = standings["winner"]
            message.standings.winner_seats.extend(standings["totals"][standings["winner"]][1])
        if standings["left"] is not None:
            message.standings.abandoned = True
            message.standings.left_seat = standings["left"]
    if "deadline" in data:
        message.deadline.CopyFrom(timestamp(data["deadline"]))
    message.action = data.get("action", "")
    return message


def decorate(message: view_pb2.GameView, record: GameRecord, viewer: int | None) -> view_pb2.GameView:
    """Add what the service knows beyond the rules to a view: each seat's player id, presence and
    timeouts, the turn deadline, the status and labels, an abandoned game's winner, and "back"
    for a seat marked away."""
    for seat, held in zip(message.seats, record.seats, strict=True):
        seat.external_player_id, seat.timeouts = held.external_id, held.timeouts
        seat.presence = cast(enums.Presence, held.presence)
    if record.deadline_ms and not bots_due(record):   # a player's turn, not bots still to play on
        message.turn_deadline.CopyFrom(timestamp(record.deadline_ms))
    message.status = status(record)
    message.labels.update(record.labels)
    if record.abandoned:
        message.abandoned = True
        message.ClearField("winner_side")
        del message.winner_seats[:]
        winner = winner_side(record)
        if winner is not None:
            message.winner_side = winner
            message.winner_seats.extend(record.state.seats_of(winner))
    if viewer is not None and record.seats[viewer].presence == AWAY:
        message.legal_actions.add(kind=enums.ACTION_KIND_BACK, notation="back")
    return message


def summary(record: GameRecord, version: int) -> lc.GameSummary:
    """A game as ListGames shows it."""
    message = lc.GameSummary(game_id=record.game_id, variant_name=record.state.variant, status=status(record),
                             version=version, create_time=timestamp(record.created_ms), labels=record.labels)
    for held in record.seats:
        message.seats.add(name=held.name, external_player_id=held.external_id, presence=held.presence)
    winner = winner_side(record)
    if winner is not None:
        message.winner_side = winner
    return message


def history(record: GameRecord, raw: list[bytes], version: int, after: int = 0) -> pb.GetHistoryResponse:
    """A page of a game's log as GetHistory answers it at ``version``: the entries of ``raw`` (the
    log from its genesis, version 1, up to the page's last entry, at most ``version``) with
    versions above ``after``. Chance outcomes (decks, drawn cards) and exchanged cards are shown
    once their hand is over, and all of them after the game.

    The open hand is the one ``record`` (the game at ``version``) is playing, so a page shows every
    entry exactly as the whole log at ``version`` would. The entries' hand numbers come from
    counting the deals in ``raw`` from the genesis (each deal starts the next hand, as
    ``engine.core.dealing.start_hand`` counts them); only the page's entries are rendered.
    """
    genesis = orjson.loads(raw[0][1:])
    open_hand = record.state.hand_no if in_hand(record.state) else None  # never after the game
    response = pb.GetHistoryResponse(variant_name=genesis["variant"], first_dealer=genesis["dealer"], version=version,
                                     options_json=orjson.dumps(genesis["options"]).decode())
    hand = 0
    for number, entry in enumerate(raw[1:], 2):
        noted = gamelog.note_of(entry)
        step = None if noted is not None else gamelog.parse(entry)
        kind = step.action & 15 if step is not None else None
        hand += kind == Kind.DEAL
        if number <= after:
            continue
        shown = hand != open_hand
        item = response.entries.add(version=number)
        if noted is not None:
            item.note, item.seat = noted
            continue
        if step is None:
            continue
        item.seat = step.seat
        item.action = action_name(step.action) if shown or kind != Kind.EXCHANGE else "exchange"
        if step.chance is not None and shown:
            item.deck.extend(card_name(c) for c in step.chance.cards)
            item.salt = step.chance.salt
    return response
