"""A lost answer: what a gRPC client sees when its connection drops after the server acted."""

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
