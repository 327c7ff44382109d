"""Seat tokens: random secrets handed to human seats, stored only as keyed hashes."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from service.errors import Unauthenticated

TOKEN_BYTES = 24  # 192 random bits
_BEARER = "bearer "


def new_salt() -> str:
    """A fresh random salt (hex) for deriving a game's tokens."""
    return secrets.token_hex(16)


def issue_token(salt: str, request_id: str | None, game_id: str, seat: int) -> str:
    """The token of one seat: random, or derived from the game's secret salt and the request id.

    Tokens derived from a stored salt let a retried CreateGame return the same tokens without
    the service ever storing them; without a request id they are fresh random bytes.
    """
    if not request_id:
        return secrets.token_urlsafe(TOKEN_BYTES)
    digest = hmac.new(bytes.fromhex(salt), f"{request_id}\0{game_id}\0{seat}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:TOKEN_BYTES]).decode().rstrip("=")


def token_hash(game_id: str, token: str) -> str:
    """The stored form of a token: HMAC-SHA256 keyed by the game id, so it is useless elsewhere."""
    return hmac.new(game_id.encode(), token.encode(), hashlib.sha256).hexdigest()


def bearer_token(metadata) -> str | None:
    """The token of an ``authorization: Bearer <token>`` header, None without one."""
    for key, value in metadata or ():
        if key == "authorization":
            if not isinstance(value, str) or not value.lower().startswith(_BEARER) or len(value) > 512:
                raise Unauthenticated("authorization must be 'Bearer <seat token>'")
            token = value[len(_BEARER):].strip()
            if not token:
                raise Unauthenticated("the bearer token is empty")
            return token
    return None


def seat_of(game_id: str, token: str | None, hashes: list[str]) -> int | None:
    """The seat a token belongs to (None for no token); Unauthenticated when it matches no seat."""
    if token is None:
        return None
    candidate = token_hash(game_id, token)
    found = None
    for seat, stored in enumerate(hashes):
        if stored and hmac.compare_digest(candidate, stored):
            found = seat
    if found is None:
        raise Unauthenticated("this token is not a seat token of this game")
    return found
