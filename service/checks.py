"""Request checks shared by every RPC: bodies that decoded, ids, page tokens, retry records.

Plain functions over request values that raise the service's errors, so the servicer stays a
short chain of guard clauses before the rules run.
"""

from __future__ import annotations

import base64
import hashlib
import re

import orjson

from service.errors import InvalidArgument
from service.handlers import Undecodable
from service.store import validate_request_id


def check_decoded(request) -> None:
    """Reject a request body that did not decode (see service.handlers)."""
    if isinstance(request, Undecodable):
        raise InvalidArgument(f"the request body is not a valid {request.type_name} message")


_GAME_ID = re.compile(r"[0-9a-f]{24}")


def game_id(value: str) -> str:
    """The game id of a request: the 24 lowercase hex digits CreateGame hands out."""
    if not _GAME_ID.fullmatch(value):
        shown = f"{value[:40]!r}{'…' if len(value) > 40 else ''}"
        raise InvalidArgument(f"game_id must be the 24 lowercase hex digits CreateGame returned, not {shown}")
    return value


def request_id(value: str) -> str | None:
    try:
        return validate_request_id(value or None)
    except ValueError as exc:
        raise InvalidArgument(str(exc)) from None


_EVENT_ID = re.compile(r"([0-9]{1,20})-([0-9]{1,20})")
_MAX_EVENT_PART = 2**64 - 1  # each part of a Redis stream id is an unsigned 64-bit number


def event_id(value: str) -> str:
    """An event id to resume after ("0" for the start when empty); InvalidArgument if malformed
    or if a part is above 2^64 - 1 (no stream id can be).

    >>> event_id("1733054400000-0")
    '1733054400000-0'
    """
    if not value:
        return "0"
    match = _EVENT_ID.fullmatch(value)
    if not match:
        raise InvalidArgument(f"after_id must be an Event.id such as '1733054400000-0', not {value[:40]!r}")
    if any(int(part) > _MAX_EVENT_PART for part in match.groups()):
        raise InvalidArgument(f"after_id {value!r} has a part above 2^64 - 1, which no Event.id has")
    return value


def page_token(game_id: str, start: int) -> str:
    """The opaque page token of GetScore's page starting at hand index ``start`` of this game."""
    return base64.urlsafe_b64encode(f"{game_id}:{start}".encode()).decode()


def page_start(token: str, game_id: str) -> int:
    """The hand index a page token continues from (0 for none); InvalidArgument for a foreign one."""
    if not token:
        return 0
    try:
        owner, _, start = base64.urlsafe_b64decode(token.encode()).decode().partition(":")
        if owner == game_id and start.isdigit() and len(start) <= 9:
            return int(start)
    except (ValueError, UnicodeError):
        pass
    raise InvalidArgument("page_token is not one that GetScore returned for this game")


def fingerprint(method: str, request) -> str:
    """What names a request for its request id: a hash of the method and the request's bytes."""
    digest = hashlib.sha256(method.encode() + b"\0" + request.SerializeToString(deterministic=True))
    return digest.hexdigest()[:16]


def retry_record(fingerprint: str, seat: int | None, version: int, record=None) -> bytes:
    """What a retry of a request needs to rebuild its answer byte for byte: its fingerprint,
    seat, version, and what the answer showed beyond the game's log (``record``'s turn deadline,
    each seat's presence and timeouts, the leaver), as the game stood at ``version``."""
    head = f"{fingerprint} {-1 if seat is None else seat} {version}".encode()
    if record is None:
        return head
    snapshot = [record.deadline_ms, [[held.presence, held.timeouts] for held in record.seats], record.left_seat]
    return head + b" " + orjson.dumps(snapshot)


def restore_snapshot(raw: bytes, record) -> None:
    """Put back into ``record`` what a retry record kept of the game beyond its log (see
    ``retry_record``); records written without it leave ``record`` as it is."""
    parts = raw.split(b" ", 3)
    if len(parts) < 4:
        return
    deadline, seats, left = orjson.loads(parts[3])
    record.deadline_ms, record.left_seat = deadline, left
    for held, (presence, timeouts) in zip(record.seats, seats, strict=True):
        held.presence, held.timeouts = presence, timeouts


def check_retry(raw: bytes, fingerprint: str, seat: int | None) -> int:
    """The version a retry record answered at; InvalidArgument when another request (or seat) made it."""
    recorded_seat, version = retried_seat(raw, fingerprint)
    if recorded_seat != seat:
        raise InvalidArgument("request_id was already used for a different request")
    return version


def retried_seat(raw: bytes, fingerprint: str) -> tuple[int | None, int]:
    """(seat, version) of a retry record of the request with this fingerprint; InvalidArgument
    when another request made it."""
    recorded, recorded_seat, version = raw.decode().split(" ", 3)[:3]
    if recorded != fingerprint:
        raise InvalidArgument("request_id was already used for a different request")
    return (None if recorded_seat == "-1" else int(recorded_seat)), int(version)
