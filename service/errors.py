"""Service errors and their gRPC statuses (with google.rpc.ErrorInfo reasons, RetryInfo delays and
QuotaFailure details).

A status that says how long to wait (RetryInfo) also carries that wait as gRPC's retry pushback
(the ``grpc-retry-pushback-ms`` trailer), which a client's gRPC retry policy obeys. A negative
pushback tells such a policy not to retry: a RESOURCE_EXHAUSTED without RetryInfo carries one,
and so does a wait longer than ``MAX_PUSHBACK_S``, which is the caller's to decide on (it reads
the RetryInfo), not a channel's to sit out inside one call.
"""

from __future__ import annotations

import random

import grpc
from google.protobuf import duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

DOMAIN = "cardgame.v1"
PUSHBACK_KEY = "grpc-retry-pushback-ms"
RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED)
MAX_PUSHBACK_S = 2.0


class ServiceError(Exception):
    """An error with its gRPC status code, a clear message and an optional ErrorInfo reason."""

    code = grpc.StatusCode.INTERNAL

    def __init__(self, message: str, reason: str | None = None, retry_delay_s: float | None = None):
        super().__init__(message)
        self.message = message
        self.reason = reason
        self.retry_delay_s = retry_delay_s
        self.seat: int | None = None   # the caller's seat, when it was known before the refusal


class InvalidArgument(ServiceError):
    """Malformed input."""

    code = grpc.StatusCode.INVALID_ARGUMENT


class IllegalMove(ServiceError):
    """A well-formed move the rules do not allow now (reason = engine code)."""

    code = grpc.StatusCode.FAILED_PRECONDITION


class FailedPrecondition(ServiceError):
    """The request is well formed but the game or server is not in a state to answer it."""

    code = grpc.StatusCode.FAILED_PRECONDITION


class NotFound(ServiceError):
    """No such game."""

    code = grpc.StatusCode.NOT_FOUND


class Unauthenticated(ServiceError):
    """A credential is missing where one is required, or is not valid."""

    code = grpc.StatusCode.UNAUTHENTICATED


class PermissionDenied(ServiceError):
    """The caller may not do this (a spectator moving, a server option switched off)."""

    code = grpc.StatusCode.PERMISSION_DENIED


class Aborted(ServiceError):
    """A version conflict: the game changed since the caller's expected_version."""

    code = grpc.StatusCode.ABORTED


class ResourceExhausted(ServiceError):
    """A per-caller limit is reached; retry after freeing some of it (or after ``retry_delay_s``)."""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED


class QuotaExceeded(ResourceExhausted):
    """A quota of the caller is used up (RESOURCE_EXHAUSTED with a google.rpc.QuotaFailure naming
    it: ``subject``, e.g. the API key id, and ``description``, the limit); no retry delay where
    only freeing some of it (deleting games, closing streams) helps, one where the quota frees
    itself with time (a window of bytes)."""

    def __init__(self, message: str, reason: str, subject: str, description: str,
                 retry_delay_s: float | None = None):
        super().__init__(message, reason, retry_delay_s)
        self.subject = subject
        self.description = description


class Unavailable(ServiceError):
    """The store cannot be reached; retry later."""

    code = grpc.StatusCode.UNAVAILABLE


def jittered(seconds: float) -> float:
    """A retry delay of about ``seconds`` (x0.5 to x1.5), so that calls refused together (a burst
    over a cap) do not all come back at the same moment: a client obeys the delay exactly."""
    return seconds * (0.5 + random.random())


def pushback_ms(error: ServiceError) -> str | None:
    """The retry pushback of an error's status: for UNAVAILABLE and RESOURCE_EXHAUSTED its RetryInfo
    delay in milliseconds, "-1" (do not retry) for a delay above MAX_PUSHBACK_S or a
    RESOURCE_EXHAUSTED without one; None for any other code (and an UNAVAILABLE without a delay:
    the policy's own backoff)."""
    if error.code not in RETRYABLE:
        return None
    if error.retry_delay_s is None:
        return "-1" if error.code is grpc.StatusCode.RESOURCE_EXHAUSTED else None
    if error.retry_delay_s > MAX_PUSHBACK_S:
        return "-1"
    return str(max(1, round(error.retry_delay_s * 1000)))


def to_status(error: ServiceError) -> grpc.Status:
    """The gRPC status of an error, carrying ErrorInfo when it has a reason and RetryInfo (and the
    retry pushback, see :func:`pushback_ms`) when it says how long to wait."""
    status = status_pb2.Status(code=getattr(code_pb2, error.code.name), message=error.message)
    if error.reason:
        status.details.add().Pack(error_details_pb2.ErrorInfo(reason=error.reason, domain=DOMAIN))
    if error.retry_delay_s is not None:
        delay = duration_pb2.Duration()
        delay.FromNanoseconds(max(1, round(error.retry_delay_s * 1e9)))
        status.details.add().Pack(error_details_pb2.RetryInfo(retry_delay=delay))
    if isinstance(error, QuotaExceeded):
        violation = error_details_pb2.QuotaFailure.Violation(subject=error.subject, description=error.description)
        status.details.add().Pack(error_details_pb2.QuotaFailure(violations=[violation]))
    plain = rpc_status.to_status(status)
    pushback = pushback_ms(error)
    if pushback is None:
        return plain
    return plain._replace(trailing_metadata=(*plain.trailing_metadata, (PUSHBACK_KEY, pushback)))
