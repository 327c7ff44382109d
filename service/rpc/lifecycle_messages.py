"""The life around a game on the wire: its status, the lifecycle options of a CreateGame, the
stored events as the API's Event, a view decorated with what the service knows beyond the rules,
a ListGames summary, and GetHistory's pages of the log."""

from __future__ import annotations

from typing import Any

import orjson
from google.protobuf import timestamp_pb2

import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import lifecycle_pb2 as lc
from cardgame.v1 import view_pb2
from engine import Phase
from engine.core.cards import card_name
from engine.core.views import in_hand
from service.errors import InvalidArgument
from service.rpc import convert, wire
from service.table import gamelog
from service.table.lifecycle import (
    DELETE,
    GAME_OVER,
    HAND_END,
    LEAVE,
    MIN_TURN_TIMEOUT_MS,
    TIMEOUT,
    bots_due,
    winner_side,
)
from service.table.record import AWAY, GameRecord, Lifecycle

MAX_TURN_TIMEOUT_MS = 86_400_000
DEFAULT_TIMEOUTS_BEFORE_AWAY = 3
MAX_TIMEOUTS_BEFORE_AWAY = 100
EVENT_KINDS = {HAND_END: lc.EVENT_KIND_HAND_END, GAME_OVER: lc.EVENT_KIND_GAME_OVER, TIMEOUT: lc.EVENT_KIND_TIMEOUT,
               LEAVE: lc.EVENT_KIND_LEAVE, DELETE: lc.EVENT_KIND_DELETE}


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
        message.hand.CopyFrom(convert.hand_score(hand, data["sides"], variant, wire.EVERY_SEAT))
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


def lifecycle_of(message: lc.LifecycleOptions, min_timeout_ms: int = MIN_TURN_TIMEOUT_MS) -> Lifecycle:
    """The lifecycle options of a CreateGame request, checked (a turn deadline of at least
    ``min_timeout_ms``: :data:`MIN_TURN_TIMEOUT_MS`, or less in a server's test mode)."""
    timeout = message.turn_timeout_ms
    if timeout and not min_timeout_ms <= timeout <= MAX_TURN_TIMEOUT_MS:
        raise InvalidArgument(f"lifecycle.turn_timeout_ms must be 0 (none) or {min_timeout_ms} to "
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


def players(record: GameRecord) -> list[dict[str, Any]]:
    """What the service knows of each seat's player, as SeatView fields: its name and kind, the
    backend's player id, its presence and its turns timed out in a row."""
    return [{"name": held.name, "kind": held.kind, "external_player_id": held.external_id,
             "timeouts": held.timeouts, "presence": held.presence} for held in record.seats]


def decorate(message: view_pb2.GameView, record: GameRecord, viewer: int | None) -> view_pb2.GameView:
    """Add what the service knows beyond the rules to a view whose seats have their players'
    facts (:func:`players`): the turn deadline, the status and labels, an abandoned game's
    winner, and "back" for a seat marked away."""
    if record.deadline_ms and not bots_due(record):   # a player's turn, not bots still to play on
        message.turn_deadline.CopyFrom(timestamp(record.deadline_ms))
    message.status = status(record)
    if record.labels:
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
        message.legal_actions.add(kind=enums.ACTION_KIND_BACK, notation="back", word="back",
                                   shape=enums.ACTION_SHAPE_NONE, title="Back to the table")
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
    hand, game = 0, engine.game_of(genesis["variant"])
    for number, entry in enumerate(raw[1:], 2):
        noted = gamelog.note_of(entry)
        step = None if noted is not None else gamelog.parse(entry)
        hand += step is not None and step.action == engine.DEAL
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
        item.action = game.vocabulary.name(step.action) if shown else game.redacted(step.action)
        if step.chance is not None and shown:
            item.deck.extend(card_name(c) for c in step.chance.cards)
            item.salt = step.chance.salt
    return response
