"""A stand-in for a gRPC call's context, as ``service.rpc.calls.handled`` uses it."""

from __future__ import annotations

import grpc


class CallContext:
    """What ``calls.handled`` asks of a call's context: its metadata, peer, and how it ends (the
    status it was aborted with, in ``status``)."""

    def __init__(self):
        self.status = None

    def invocation_metadata(self):
        return ()

    def peer(self):
        return "ipv4:127.0.0.1:40000"

    async def abort_with_status(self, status):
        self.status = status
        raise grpc.aio.AbortError()
