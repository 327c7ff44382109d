"""Errors of the GameService as Python exceptions, one class per ErrorInfo reason and per status.

Every class derives from :class:`GameError`, which carries the gRPC status ``code``, the
``ErrorInfo`` ``reason`` (for illegal moves and the other refusals that have one) and the
server's ``message``. FAILED_PRECONDITION refusals derive from :class:`FailedPrecondition`:
moves the rules or the seat's state forbid are :class:`IllegalMove`, the rest (a token that
cannot be given, a game stored in an old format) are not.

>>> error = error_for(grpc.StatusCode.FAILED_PRECONDITION, "it is seat 2's turn", "NOT_YOUR_TURN")
>>> type(error).__name__, error.reason, isinstance(error, IllegalMove)
('NotYourTurn', 'NOT_YOUR_TURN', True)
>>> str(error)
"it is seat 2's turn (NOT_YOUR_TURN)"
>>> type(error_for(grpc.StatusCode.NOT_FOUND, "no such game")).__name__
'NotFound'
>>> limited = error_for(grpc.StatusCode.RESOURCE_EXHAUSTED, "slow down", "RATE_LIMITED")
>>> type(limited).__name__, isinstance(limited, ResourceExhausted)
('RateLimited', True)
>>> left = error_for(grpc.StatusCode.FAILED_PRECONDITION, "the player left", "SEAT_LEFT")
>>> type(left).__name__, isinstance(left, FailedPrecondition), isinstance(left, IllegalMove)
('SeatLeft', True, False)
"""

from __future__ import annotations

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

DOMAIN = "cardgame.v1"


class GameError(Exception):
    """A failed GameService call: ``code`` (grpc.StatusCode), ``reason`` (or None), ``message``."""

    code: grpc.StatusCode = grpc.StatusCode.UNKNOWN
    reason: str | None = None
    hint: str = "the server refused the request"
    rpc_error: grpc.RpcError | None = None
    retry_delay: float | None = None  # seconds the server asked to wait before a retry (RetryInfo)
    attempts: int = 1  # how many times GameClient sent the call before giving up with this error
    may_have_run: bool = False  # whether an earlier attempt's answer was lost (it may have run on the server)

    def __init__(self, message: str = "", *, code: grpc.StatusCode | None = None, reason: str | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if reason is not None:
            self.reason = reason

    def __str__(self) -> str:
        text = self.message or self.hint
        return f"{text} ({self.reason})" if self.reason else text

    def describe(self) -> str:
        """A sentence for people: the reason's plain meaning and the server's message."""
        if self.message and self.message != self.hint:
            return f"{self.hint[:1].upper()}{self.hint[1:]}: {self.message}"
        return f"{self.hint[:1].upper()}{self.hint[1:]}."


# ---- one class per status code ----

class InvalidArgument(GameError):
    """Malformed input (INVALID_ARGUMENT): an unknown card name, a wrong number of seats, ..."""

    code = grpc.StatusCode.INVALID_ARGUMENT
    hint = "the request is malformed"


class FailedPrecondition(GameError):
    """The game is not in a state that allows the request (FAILED_PRECONDITION); ``reason`` says why."""

    code = grpc.StatusCode.FAILED_PRECONDITION
    hint = "the game does not allow that now"


class IllegalMove(FailedPrecondition):
    """A move the rules do not allow now (FAILED_PRECONDITION); ``reason`` says why."""

    hint = "that move is not allowed now"


class NotFound(GameError):
    """No such game (NOT_FOUND)."""

    code = grpc.StatusCode.NOT_FOUND
    hint = "there is no such game"


class PermissionDenied(GameError):
    """A spectator tried to act, or the server does not allow a feature (PERMISSION_DENIED)."""

    code = grpc.StatusCode.PERMISSION_DENIED
    hint = "not allowed"


class Unauthenticated(GameError):
    """The seat token is malformed or belongs to no seat of the game (UNAUTHENTICATED)."""

    code = grpc.StatusCode.UNAUTHENTICATED
    hint = "the seat token is not valid for this game"


class Aborted(GameError):
    """``expected_version`` is stale (ABORTED): fetch the view and try again."""

    code = grpc.StatusCode.ABORTED
    hint = "the game changed meanwhile"


class Unavailable(GameError):
    """The server or its store cannot be reached (UNAVAILABLE), even after retries."""

    code = grpc.StatusCode.UNAVAILABLE
    hint = "the game server is unavailable"


class ResourceExhausted(GameError):
    """A limit was reached (RESOURCE_EXHAUSTED): the server is at capacity, or this API key created
    games faster than its rate (:class:`RateLimited`; ``retry_delay`` says how long to wait)."""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED
    hint = "a limit of the game server was reached"


class DeadlineExceeded(GameError):
    """The call took longer than its deadline (DEADLINE_EXCEEDED), even after retries."""

    code = grpc.StatusCode.DEADLINE_EXCEEDED
    hint = "the game server did not answer in time"


# ---- one class per ErrorInfo reason: illegal moves ----

class WrongPhase(IllegalMove):
    """WRONG_PHASE: not an action of this phase or variant, or the game is over."""

    reason = "WRONG_PHASE"
    hint = "that is not something you can do at this point of the game"


class NotYourTurn(IllegalMove):
    """NOT_YOUR_TURN: another seat is expected to act."""

    reason = "NOT_YOUR_TURN"
    hint = "it is not your turn"


class CardNotInHand(IllegalMove):
    """CARD_NOT_IN_HAND: the card is not in the caller's hand."""

    reason = "CARD_NOT_IN_HAND"
    hint = "you do not hold that card"


class MustFollowSuit(IllegalMove):
    """MUST_FOLLOW_SUIT: the caller holds a card of the led suit and must play one."""

    reason = "MUST_FOLLOW_SUIT"
    hint = "you must follow the suit that was led"


class SpadesNotBroken(IllegalMove):
    """SPADES_NOT_BROKEN: spades may not be led before they are broken."""

    reason = "SPADES_NOT_BROKEN"
    hint = "spades may not be led until they are broken"


class InvalidBid(IllegalMove):
    """INVALID_BID: out of range, or Double Nil switched off or already declared."""

    reason = "INVALID_BID"
    hint = "that bid is not allowed"


class BlindNilAfterLooking(IllegalMove):
    """BLIND_NIL_AFTER_LOOKING: Double Nil needs a seat that has not looked at its cards."""

    reason = "BLIND_NIL_AFTER_LOOKING"
    hint = "Double Nil must be bid before looking at your cards"


class InvalidExchange(IllegalMove):
    """INVALID_EXCHANGE: wrong number of cards, a duplicate, or a card not held."""

    reason = "INVALID_EXCHANGE"
    hint = "that exchange is not allowed"


class SuitTurnedDown(IllegalMove):
    """SUIT_TURNED_DOWN: the turned-down suit may not be named trump."""

    reason = "SUIT_TURNED_DOWN"
    hint = "the turned-down suit may not be named trump"


class MakerCannotDrop(IllegalMove):
    """MAKER_CANNOT_DROP: the player who made trump must play the hand."""

    reason = "MAKER_CANNOT_DROP"
    hint = "the maker may not drop out"


class CannotDropOnClubs(IllegalMove):
    """CANNOT_DROP_ON_CLUBS: nobody may drop out when a club was turned up."""

    reason = "CANNOT_DROP_ON_CLUBS"
    hint = "nobody may drop out when clubs were turned up"


class GameOver(IllegalMove):
    """GAME_OVER: the game has ended, so the seat can no longer leave it or come back."""

    reason = "GAME_OVER"
    hint = "the game is over"


class NotAway(IllegalMove):
    """NOT_AWAY: "back" was sent for a seat that is not marked away."""

    reason = "NOT_AWAY"
    hint = "the seat is not marked away"


# ---- one class per ErrorInfo reason: other refusals ----

class SeatLeft(FailedPrecondition):
    """SEAT_LEFT: the seat's player left the game, so the seat gets no new token."""

    reason = "SEAT_LEFT"
    hint = "the seat's player left the game"


class TokenReissued(FailedPrecondition):
    """TOKEN_REISSUED: a CreateGame or ReissueSeatToken retry cannot return a token that a later
    ReissueSeatToken replaced."""

    reason = "TOKEN_REISSUED"
    hint = "the seat was given a newer token since"


class TokenSecretChanged(FailedPrecondition):
    """TOKEN_SECRET_CHANGED: a CreateGame or ReissueSeatToken retry on a server that no longer has
    the token secret the first call derived its tokens from."""

    reason = "TOKEN_SECRET_CHANGED"
    hint = "the server's token secret changed since the tokens were made (see --token-secret-previous)"


class UnsupportedGameFormat(FailedPrecondition):
    """UNSUPPORTED_GAME_FORMAT: the game was stored by an older release in a format this one refuses."""

    reason = "UNSUPPORTED_GAME_FORMAT"
    hint = "the game was stored by an older release of the server"


class RateLimited(ResourceExhausted):
    """RATE_LIMITED: this API key creates games faster than the server allows; ``retry_delay`` says
    how long to wait."""

    reason = "RATE_LIMITED"
    hint = "games are being created too fast for this API key"


REASON_CLASSES: tuple[type[GameError], ...] = (
    WrongPhase, NotYourTurn, CardNotInHand, MustFollowSuit, SpadesNotBroken, InvalidBid, BlindNilAfterLooking,
    InvalidExchange, SuitTurnedDown, MakerCannotDrop, CannotDropOnClubs, GameOver, NotAway,
    SeatLeft, TokenReissued, TokenSecretChanged, UnsupportedGameFormat, RateLimited)
BY_REASON: dict[tuple[grpc.StatusCode, str], type[GameError]] = {
    (cls.code, cls.reason or ""): cls for cls in REASON_CLASSES}
BY_CODE: dict[grpc.StatusCode, type[GameError]] = {cls.code: cls for cls in (
    InvalidArgument, IllegalMove, NotFound, PermissionDenied, Unauthenticated, Aborted, Unavailable,
    DeadlineExceeded, ResourceExhausted)}


def error_for(code: grpc.StatusCode, message: str = "", reason: str | None = None) -> GameError:
    """The most specific GameError for a status code and an optional ErrorInfo reason."""
    cls = BY_REASON.get((code, reason or "")) or BY_CODE.get(code, GameError)
    return cls(message, code=code, reason=reason)


def _detail(error: grpc.RpcError, cls):
    """The first status detail of type ``cls`` a failed call carries, or None."""
    try:
        status = rpc_status.from_call(error)
    except (AttributeError, TypeError, ValueError):
        return None
    for detail in status.details if status else ():
        if detail.Is(cls.DESCRIPTOR):
            found = cls()
            detail.Unpack(found)
            return found
    return None


def reason_of(error: grpc.RpcError) -> str | None:
    """The ErrorInfo reason carried by a failed call's status details, or None."""
    info = _detail(error, error_details_pb2.ErrorInfo)
    return (info.reason or None) if info is not None else None


def retry_delay_of(error: grpc.RpcError) -> float | None:
    """The seconds a failed call's RetryInfo asks the caller to wait, or None."""
    info = _detail(error, error_details_pb2.RetryInfo)
    return info.retry_delay.ToTimedelta().total_seconds() if info is not None else None


def from_rpc_error(error: grpc.RpcError) -> GameError:
    """The GameError for a failed gRPC call (its code, details and ErrorInfo reason); ``.rpc_error`` keeps the call."""
    code = error.code() if callable(getattr(error, "code", None)) else grpc.StatusCode.UNKNOWN
    details = error.details() if callable(getattr(error, "details", None)) else ""
    result = error_for(code, details or "", reason_of(error))
    result.rpc_error = error
    result.retry_delay = retry_delay_of(error)
    return result
