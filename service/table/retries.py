"""Retry records: what a request id keeps so that a retry gets the first answer again.

A record is ``<fingerprint> <seat> <version>`` and, for a change of an existing game, the JSON of
what the answer showed beyond the game's log (the turn deadline, each seat's presence and
timeouts, the leaver) as the game stood then; the game at that version is rebuilt from its log.
"""

from __future__ import annotations

import orjson

from service.errors import InvalidArgument


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
