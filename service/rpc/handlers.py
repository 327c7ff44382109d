"""The GameService's gRPC method handlers, built from the proto descriptor.

Like the generated ``add_GameServiceServicer_to_server``, with one difference: a request body
that does not decode (truncated fields, invalid UTF-8) becomes an :class:`Undecodable` value
instead of an exception inside grpcio, so the servicer answers INVALID_ARGUMENT with its usual
single log line rather than UNKNOWN with a traceback; and a stream may write bytes already
encoded, which go out as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
from google.protobuf import message as protobuf_message
from google.protobuf import message_factory

from cardgame.v1 import game_service_pb2

SERVICE = game_service_pb2.DESCRIPTOR.services_by_name["GameService"]


class Undecodable:
    """A request body that is not a valid message of the method's request type."""

    __slots__ = ("type_name",)

    def __init__(self, type_name: str):
        self.type_name = type_name


def _lenient(cls: Any) -> Callable[[bytes], Any]:
    def decode(data: bytes) -> Any:
        try:
            return cls.FromString(data)
        except protobuf_message.DecodeError:
            return Undecodable(cls.DESCRIPTOR.full_name)

    return decode


def _bytes_or(cls: Any) -> Callable[[Any], bytes]:
    """A stream's serializer: a message is encoded, bytes (a message encoded once and shared by
    many streams, see service.rpc.watching) go out as they are."""
    def serialize(message: Any) -> bytes:
        return message if isinstance(message, bytes) else cls.SerializeToString(message)

    return serialize


def game_service_handlers(servicer: Any) -> dict[str, grpc.RpcMethodHandler]:
    """Every GameService method of ``servicer``, by method name, with lenient request decoding."""
    handlers = {}
    for method in SERVICE.methods:
        request_cls = message_factory.GetMessageClass(method.input_type)
        response_cls = message_factory.GetMessageClass(method.output_type)
        make = grpc.unary_stream_rpc_method_handler if method.server_streaming else grpc.unary_unary_rpc_method_handler
        serialize = _bytes_or(response_cls) if method.server_streaming else response_cls.SerializeToString
        handlers[method.name] = make(getattr(servicer, method.name), request_deserializer=_lenient(request_cls),
                                     response_serializer=serialize)
    return handlers


def add_game_service(servicer: Any, server: grpc.aio.Server) -> None:
    """Serve ``servicer`` as cardgame.v1.GameService on ``server``."""
    handlers = game_service_handlers(servicer)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE.full_name, handlers),))
    server.add_registered_method_handlers(SERVICE.full_name, handlers)
