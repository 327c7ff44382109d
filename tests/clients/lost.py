"""Failures a gRPC client meets, made up for tests: a lost answer (the connection dropped after the
server acted) and a refusal (the server was too busy to run the call)."""

from __future__ import annotations

import grpc


class LostAnswer(grpc.RpcError):
    """UNAVAILABLE with no trailers (hence no ErrorInfo), as for a dropped connection."""

    def code(self):
        """UNAVAILABLE, as for a dropped connection."""
        return grpc.StatusCode.UNAVAILABLE

    def details(self):
        """The status message."""
        return "connection lost (test)"

    def trailing_metadata(self):
        """No trailers, hence no ErrorInfo."""
        return ()


class Refused(grpc.RpcError):
    """RESOURCE_EXHAUSTED with a 10 ms RetryInfo delay: a call the server never ran."""

    def code(self):
        """RESOURCE_EXHAUSTED, as the server's cap answers."""
        return grpc.StatusCode.RESOURCE_EXHAUSTED

    def details(self):
        """The status message."""
        return "busy (test)"

    def trailing_metadata(self):
        """The status with its RetryInfo, as the server sends it."""
        from google.protobuf import duration_pb2
        from google.rpc import code_pb2, error_details_pb2, status_pb2

        status = status_pb2.Status(code=code_pb2.RESOURCE_EXHAUSTED, message="busy (test)")
        status.details.add().Pack(error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(nanos=10_000_000)))
        return (("grpc-status-details-bin", status.SerializeToString()),)
