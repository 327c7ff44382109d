"""GameService calls over Connect and gRPC-Web, answered by the servicer that answers gRPC.

connectrpc reads each HTTP request (Connect JSON or binary, unary or streaming; gRPC-Web) and
writes the answer in the caller's protocol. In between, the very same ``GameServicer`` method
runs, given a :class:`CallContext`: the part of ``grpc.aio.ServicerContext`` the servicer uses.

- ``invocation_metadata()``: the HTTP request headers, keys lowercased (``authorization``,
  ``x-api-key``, …), as gRPC metadata would carry them.
- ``peer()``: the client's address and port, i.e. its connection (per-connection limits).
- ``abort_with_status(status)`` / ``abort(code, message)``: raise :class:`CallAborted`, the
  ``ConnectError`` of that gRPC status (the same code, message and details: the ``ErrorInfo``
  with the reason), which connectrpc writes as a Connect error or as gRPC-Web trailers. It is
  also a ``grpc.aio.AbortError``, as what grpc.aio's abort raises, so the servicer lets it
  through as it lets gRPC's own.
- ``write(message)``: one message of a server stream (WatchGame).

Request bodies that do not decode become :class:`service.rpc.handlers.Undecodable`, exactly as on
the gRPC port, so the servicer answers INVALID_ARGUMENT with its usual message.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, NoReturn

import grpc
import orjson
from connectrpc.code import Code
from connectrpc.errors import ConnectError, ErrorDetail
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import RequestContext
from connectrpc.server import Endpoint
from google.protobuf import json_format, message_factory
from google.protobuf import message as protobuf_message
from google.rpc import status_pb2
from protobuf.wkt import Any as AnyDetail

from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from service.errors import ResourceExhausted, jittered, to_status
from service.rpc.handlers import SERVICE, Undecodable

STATUS_DETAILS_KEY = "grpc-status-details-bin"
GATE_RETRY_S = 0.25  # the RetryInfo delay (jittered) of a call refused for want of room
WAITERS_PER_SLOT = 8  # calls that may wait for room, per call the gate lets run; beyond, refused at once


def connect_code(code: grpc.StatusCode) -> Code:
    """The Connect code of a gRPC status code (the same name; CANCELLED is spelt CANCELED)."""
    return Code.CANCELED if code is grpc.StatusCode.CANCELLED else Code[code.name]


class CallAborted(grpc.aio.AbortError, ConnectError):
    """A call ended by the servicer with a status: a ConnectError to connectrpc, an AbortError to
    the servicer (as grpc.aio's abort raises one)."""


def connect_error(status: grpc.Status) -> CallAborted:
    """The error of a gRPC rich status: its code, message and google.rpc.Status details."""
    details: list[ErrorDetail] = []
    for key, value in status.trailing_metadata or ():
        if key == STATUS_DETAILS_KEY:
            rich = status_pb2.Status.FromString(value)
            details = [ErrorDetail(AnyDetail(type_url=d.type_url, value=d.value)) for d in rich.details]
    return CallAborted(connect_code(status.code), status.details or "", details)


class CallContext:
    """What GameServicer needs of a gRPC servicer context, for one call over HTTP."""

    __slots__ = ("_metadata", "_peer", "_request", "_writes")

    def __init__(self, request: RequestContext, writes: asyncio.Queue | None = None):
        self._request = request
        self._metadata = tuple((key.lower(), value) for key, value in request.request_headers.allitems())
        self._peer = f"http:{request.client_address or 'unknown'}"
        self._writes = writes

    def invocation_metadata(self) -> Sequence[tuple[str, str]]:
        """The request headers as (lowercased key, value) pairs."""
        return self._metadata

    def peer(self) -> str:
        """The client connection, e.g. ``http:127.0.0.1:53124``."""
        return self._peer

    def time_remaining(self) -> float | None:
        """Seconds left before the call's deadline (Connect-Timeout-Ms, grpc-timeout); None without one."""
        remaining_ms = self._request.timeout_ms
        return None if remaining_ms is None else max(remaining_ms / 1000, 0.0)

    async def abort(self, code: grpc.StatusCode, details: str = "") -> NoReturn:
        """End the call with ``code`` and the message ``details``."""
        raise CallAborted(connect_code(code), details)

    async def abort_with_status(self, status: grpc.Status) -> NoReturn:
        """End the call with a rich status (code, message, details)."""
        raise connect_error(status)

    async def write(self, message: Any) -> None:
        """Send one message of a server stream (waits while the previous one is still unsent)."""
        if self._writes is None:
            raise RuntimeError("write() is only available in server-streaming calls")
        await self._writes.put(message)


class CallGate:
    """A cap on the calls one process answers over HTTP at once, as the gRPC port has. A call
    beyond it waits up to ``wait_s`` for one to end (first come, first served), then fails with
    RESOURCE_EXHAUSTED and a RetryInfo delay, so the client retries after a pause."""

    def __init__(self, limit: int, wait_s: float = 0.0):
        self.limit = limit
        self.wait_s = wait_s
        self.active = 0
        self._waiters: collections.deque[asyncio.Future] = collections.deque()

    def refusal(self) -> ConnectError:
        """The error of a call that found no room: RESOURCE_EXHAUSTED with a RetryInfo delay, made
        as every refusal's status is (:func:`service.errors.to_status`)."""
        waited = f" and none came free within {self.wait_s:g} s" if self.wait_s > 0 else ""
        return connect_error(to_status(ResourceExhausted(
            f"this server answers at most {self.limit} calls at once over HTTP{waited}; retry shortly",
            None, jittered(GATE_RETRY_S))))

    @contextlib.asynccontextmanager
    async def admit(self) -> AsyncIterator[None]:
        """Count one call for as long as it runs, waiting up to ``wait_s`` for room."""
        await self._take()
        try:
            yield
        finally:
            self._release()

    async def _take(self) -> None:
        if self.active < self.limit and not self._waiters:
            self.active += 1
            return
        if self.wait_s <= 0 or len(self._waiters) >= WAITERS_PER_SLOT * self.limit:   # the queue is bounded too
            raise self.refusal()
        handed = asyncio.get_running_loop().create_future()
        self._waiters.append(handed)
        try:
            await asyncio.wait_for(asyncio.shield(handed), self.wait_s)
        except TimeoutError:
            if handed.done():  # a slot came just as the time ran out: it is ours
                return
            handed.cancel()
            raise self.refusal() from None
        except asyncio.CancelledError:
            if handed.done() and not handed.cancelled():
                self._release()  # handed a slot this call will not use: pass it on
            handed.cancel()
            raise
        finally:
            with contextlib.suppress(ValueError):
                self._waiters.remove(handed)

    def _release(self) -> None:
        """End one call: its slot passes to the longest waiting call, if any, else is freed."""
        while self._waiters:
            handed = self._waiters.popleft()
            if not handed.done():
                handed.set_result(None)
                return
        self.active -= 1


Unary = Callable[[Any, Any], Awaitable[Any]]


def _unary(handler: Unary, gate: CallGate) -> Callable[[Any, RequestContext], Awaitable[Any]]:
    async def call(request: Any, ctx: RequestContext) -> Any:
        async with gate.admit():
            return await handler(request, CallContext(ctx))

    return call


def _server_stream(handler: Unary, output: Any) -> Callable[[Any, RequestContext], AsyncIterator[Any]]:
    """The servicer's streaming method (which writes its messages) as the async iterator connectrpc
    sends from. When the client leaves or its deadline passes, connectrpc cancels the iteration,
    and with it the servicer's call. Messages the servicer wrote encoded (shared by many gRPC
    streams) are decoded for the call's own codec. The servicer caps streams as it does on the gRPC
    port (its cap on calls in progress, its stream limits), over both ports together."""

    def message(written: Any) -> Any:
        return output.FromString(written) if isinstance(written, bytes) else written

    async def call(request: Any, ctx: RequestContext) -> AsyncIterator[Any]:
        writes: asyncio.Queue = asyncio.Queue(maxsize=1)
        running = asyncio.ensure_future(handler(request, CallContext(ctx, writes)))
        get: asyncio.Future | None = None
        try:
            while True:
                get = asyncio.ensure_future(writes.get())
                done, _ = await asyncio.wait({get, running}, return_when=asyncio.FIRST_COMPLETED)
                if get in done:
                    yield message(get.result())
                    continue
                get.cancel()
                while not writes.empty():
                    yield message(writes.get_nowait())
                running.result()  # the servicer's abort, as the stream's final status
                return
        finally:
            if get is not None and not get.done():
                get.cancel()
            if not running.done():
                running.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await running

    return call


def _unimplemented(request: Any, ctx: RequestContext) -> Any:
    """A method the servicer does not implement: UNIMPLEMENTED, as gRPC answers it."""
    raise ConnectError(Code.UNIMPLEMENTED, "Method not implemented!")


async def _unimplemented_unary(request: Any, ctx: RequestContext) -> Any:
    _unimplemented(request, ctx)


async def _unimplemented_stream(request: Any, ctx: RequestContext) -> AsyncIterator[Any]:
    _unimplemented(request, ctx)
    yield  # an async generator, as connectrpc expects of a server stream


def game_service_endpoints(servicer: Any, max_unary_calls: int, wait_s: float = 0.0) -> dict[str, Any]:
    """Every GameService method of ``servicer`` as a connectrpc endpoint, by URL path (a method
    it leaves to the generated base class answers UNIMPLEMENTED, as on the gRPC port).

    Unary calls are capped at ``max_unary_calls``, each waiting up to ``wait_s`` for room, so that
    the HTTP port cannot take every store connection; streams by the servicer, as on the gRPC port."""
    unary_gate = CallGate(max_unary_calls, wait_s)
    endpoints: dict[str, Any] = {}
    for method in SERVICE.methods:
        info: MethodInfo = MethodInfo(name=method.name, service_name=SERVICE.full_name,
                                      input=message_factory.GetMessageClass(method.input_type),
                                      output=message_factory.GetMessageClass(method.output_type),
                                      idempotency_level=IdempotencyLevel.UNKNOWN,
                                      stream_type=StreamType.SERVER_STREAM if method.server_streaming
                                      else StreamType.UNARY)
        handler = getattr(servicer, method.name)
        implemented = getattr(type(servicer), method.name, None) is not getattr(pb_grpc.GameServiceServicer,
                                                                                 method.name, None)
        path = f"/{SERVICE.full_name}/{method.name}"
        if method.server_streaming:
            stream = _server_stream(handler, info.output) if implemented else _unimplemented_stream
            endpoints[path] = Endpoint.server_stream(method=info, function=stream)
        else:
            unary = _unary(handler, unary_gate) if implemented else _unimplemented_unary
            endpoints[path] = Endpoint.unary(method=info, function=unary)
    return endpoints


class BinaryCodec:
    """Protobuf binary (``application/proto``, ``+proto``); an undecodable body is Undecodable."""

    def name(self) -> str:
        return "proto"

    def encode(self, message: protobuf_message.Message) -> bytes:
        return message.SerializeToString()

    def decode(self, data: bytes | bytearray, message_class: Any) -> Any:
        try:
            return message_class.FromString(bytes(data))
        except protobuf_message.DecodeError:
            return Undecodable(message_class.DESCRIPTOR.full_name)


class JsonCodec:
    """Protobuf JSON (``application/json``, ``+json``), proto3's canonical mapping (camelCase
    names, enum names, 64-bit integers as strings); unknown fields are ignored, as in binary."""

    def name(self) -> str:
        return "json"

    def encode(self, message: protobuf_message.Message) -> bytes:
        return orjson.dumps(json_format.MessageToDict(message))

    def decode(self, data: bytes | bytearray, message_class: Any) -> Any:
        try:
            return json_format.Parse(bytes(data).decode(), message_class(), ignore_unknown_fields=True)
        except (json_format.ParseError, UnicodeDecodeError):
            return Undecodable(message_class.DESCRIPTOR.full_name)
