"""Request checks shared by every RPC: bodies that decoded, ids, page tokens, request fingerprints.

Plain functions over request values that raise the service's errors, so the servicer stays a
short chain of guard clauses before the rules run.
"""

from __future__ import annotations

import base64
import hashlib
import re

from service.errors import InvalidArgument, Unauthenticated
from service.rpc.handlers import Undecodable
from service.store.port import validate_cursor, validate_request_id

BEARER = "bearer "


def check_decoded(request) -> None:
    """Reject a request body that did not decode (see service.rpc.handlers)."""
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


def event_id(value: str) -> str:
    """An event id to resume after ("" for the start): an ``Event.id`` as the server sent it, an
    opaque cursor of the store, checked here for its length and characters only (a store refuses
    one it cannot read: ``BadCursor``); InvalidArgument if malformed.

    >>> event_id("1733054400000-0")
    '1733054400000-0'
    """
    try:
        return validate_cursor(value)
    except ValueError:
        raise InvalidArgument(f"after_id must be empty or an Event.id the server sent, not {value[:40]!r}") from None


def page_token(game_id: str, start: int, method: str = "GetScore") -> str:
    """The opaque page token (AIP-158) of ``method``'s page of this game that starts at ``start``
    (GetScore: a hand index; GetHistory: the version the page's entries follow)."""
    return base64.urlsafe_b64encode(f"{game_id}:{_PAGED[method]}{start}".encode()).decode()


def page_start(token: str, game_id: str, method: str = "GetScore") -> int:
    """Where a page token of ``method`` continues from (0 for none); InvalidArgument for a token
    of another game or method."""
    if not token:
        return 0
    try:
        owner, _, rest = base64.urlsafe_b64decode(token.encode()).decode().partition(":")
        marker, start = rest[:len(_PAGED[method])], rest[len(_PAGED[method]):]
        if owner == game_id and marker == _PAGED[method] and start.isdigit() and len(start) <= 15:
            return int(start)
    except (ValueError, UnicodeError):
        pass
    raise InvalidArgument(f"page_token is not one that {method} returned for this game")


_PAGED = {"GetScore": "", "GetHistory": "h"}   # each paged method's tokens, told apart


def fingerprint(method: str, request) -> str:
    """What names a request for its request id: a hash of the method and the request's bytes."""
    digest = hashlib.sha256(method.encode() + b"\0" + request.SerializeToString(deterministic=True))
    return digest.hexdigest()[:16]


def bearer_token(metadata) -> str | None:
    """The token of an ``authorization: Bearer <token>`` header, None without one."""
    for key, value in metadata or ():
        if key == "authorization":
            if not isinstance(value, str) or not value.lower().startswith(BEARER) or len(value) > 512:
                raise Unauthenticated("authorization must be 'Bearer <seat token>'")
            token = value[len(BEARER):].strip()
            if not token:
                raise Unauthenticated("the bearer token is empty")
            return token
    return None
