"""Seat tokens: secrets handed to human seats, stored only as keyed hashes.

A token is either 192 fresh random bits, or (for a CreateGame with a request id, so that a
retry can be answered with the same tokens) 192 bits of an HMAC of the game id and seat under
the server's token secret. The secret is configured on every instance and never written to
the store, so nothing in Redis lets anyone derive a token.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Sequence

from service.errors import PermissionDenied, Unauthenticated
from service.table.record import SPECTATORS_ANYONE, SPECTATORS_TOKEN

TOKEN_BYTES = 24  # 192 bits
MIN_SECRET_BYTES = 32


def check_secret(secret: bytes) -> bytes:
    """The token secret if it is long enough to key HMAC-SHA256 safely; ValueError otherwise."""
    if len(secret) < MIN_SECRET_BYTES:
        raise ValueError(f"the token secret must be at least {MIN_SECRET_BYTES} bytes, not {len(secret)}")
    return secret


def random_token() -> str:
    """A fresh token of 192 random bits (32 URL-safe characters)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def derived_token(secret: bytes, game_id: str, seat: int, purpose: str = "") -> str:
    """The token of one seat of a game created (or given a new token, ``purpose`` naming that
    request) with a request id: 192 bits of an HMAC keyed by the server's token secret
    (32 URL-safe characters), the same each time it is asked for."""
    message = f"seat-token\0{game_id}\0{seat}" + (f"\0{purpose}" if purpose else "")
    digest = hmac.new(secret, message.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:TOKEN_BYTES]).decode()


def recovered_token(secrets_: Sequence[bytes], game_id: str, seat: int, stored_hash: str,
                    purpose: str = "") -> str | None:
    """The derived token (as ``derived_token``) whose hash is ``stored_hash`` under the first of
    ``secrets_`` that gives it (the current token secret, then earlier ones), None if none does."""
    for secret in secrets_:
        token = derived_token(secret, game_id, seat, purpose)
        if hmac.compare_digest(token_hash(game_id, token), stored_hash):
            return token
    return None


def token_hash(game_id: str, token: str) -> str:
    """The stored form of a token: HMAC-SHA256 keyed by the game id, so it is useless elsewhere."""
    return hmac.new(game_id.encode(), token.encode(), hashlib.sha256).hexdigest()


SPECTATOR_SEAT = -1            # the "seat" a spectator token is derived for
SPECTATOR_PURPOSE = "spectator"


def spectator_token(secret: bytes, game_id: str, derived: bool) -> str:
    """A game's spectator token: derived from the token secret (a CreateGame with a request id,
    whose retry returns it again) or random."""
    return derived_token(secret, game_id, SPECTATOR_SEAT, SPECTATOR_PURPOSE) if derived else random_token()


def viewer(game_id: str, token: str | None, hashes: list[str], policy: int, spectator_hash: str,
           owner_calls: bool) -> int | None:
    """Who a caller is to a game: its seat for a seat token, None for a spectator the game's
    spectator policy admits (its spectator token under SPECTATOR_POLICY_TOKEN, anyone under
    SPECTATOR_POLICY_ANYONE, the creating API key always); Unauthenticated for a token that is
    neither, PermissionDenied for a spectator the game does not admit."""
    if token is not None:
        candidate = token_hash(game_id, token)
        for seat, stored in enumerate(hashes):
            if stored and hmac.compare_digest(candidate, stored):
                return seat
        if policy == SPECTATORS_TOKEN and spectator_hash and hmac.compare_digest(candidate, spectator_hash):
            return None
        raise Unauthenticated("this token is neither a seat token nor the spectator token of this game")
    if owner_calls or policy == SPECTATORS_ANYONE:
        return None
    if policy == SPECTATORS_TOKEN:
        raise PermissionDenied("this game shows its spectator view only with its spectator token "
                               "(CreateGameResponse.spectator_token) or to the API key that created it")
    raise PermissionDenied("this game admits no spectators: send a seat token, or the API key that created it")


def mover(game_id: str, token: str | None, hashes: list[str], spectator_hash: str) -> int:
    """The seat a move's token belongs to; PermissionDenied for a spectator (no token, or the
    spectator token), Unauthenticated for a token that is not this game's."""
    if token is not None:
        candidate = token_hash(game_id, token)
        for seat, stored in enumerate(hashes):
            if stored and hmac.compare_digest(candidate, stored):
                return seat
        if not spectator_hash or not hmac.compare_digest(candidate, spectator_hash):
            raise Unauthenticated("this token is not a seat token of this game")
    raise PermissionDenied("spectators cannot make moves; send a seat token")
