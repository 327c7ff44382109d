"""Service errors and their gRPC statuses (with google.rpc.ErrorInfo for illegal moves)."""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

DOMAIN = "cardgame.v1"


class ServiceError(Exception):
    """An error with its gRPC status code, a clear message and an optional ErrorInfo reason."""

    code = grpc.StatusCode.INTERNAL

    def __init__(self, message: str, reason: str | None = None):
        super().__init__(message)
        self.message = message
        self.reason = reason


class InvalidArgument(ServiceError):
    """Malformed input."""

    code = grpc.StatusCode.INVALID_ARGUMENT


class IllegalMove(ServiceError):
    """A well-formed move the rules do not allow now (reason = engine code)."""

    code = grpc.StatusCode.FAILED_PRECONDITION


class NotFound(ServiceError):
    """No such game."""

    code = grpc.StatusCode.NOT_FOUND


class Unauthenticated(ServiceError):
    """A credential was sent but it is not valid for this game."""

    code = grpc.StatusCode.UNAUTHENTICATED


class PermissionDenied(ServiceError):
    """The caller may not do this (a spectator moving, a server option switched off)."""

    code = grpc.StatusCode.PERMISSION_DENIED


class Aborted(ServiceError):
    """A version conflict: the game changed since the caller's expected_version."""

    code = grpc.StatusCode.ABORTED


class ResourceExhausted(ServiceError):
    """A per-caller limit is reached; retry after freeing some of it."""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED


class Unavailable(ServiceError):
    """The store cannot be reached; retry later."""

    code = grpc.StatusCode.UNAVAILABLE


def to_status(error: ServiceError) -> grpc.Status:
    """The gRPC status of an error, carrying ErrorInfo when it has a reason."""
    status = status_pb2.Status(code=getattr(code_pb2, error.code.name), message=error.message)
    if error.reason:
        detail = any_pb2.Any()
        detail.Pack(error_details_pb2.ErrorInfo(reason=error.reason, domain=DOMAIN))
        status.details.append(detail)
    return rpc_status.to_status(status)
