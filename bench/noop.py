"""The benchmark's baseline RPC: a move that changes nothing, through every layer a move's call
goes through but the rules.

Served by the bench-only server, ``python -m testkit.bench_server``. ``/cardgame.bench.v1.Bench/Noop``
takes an ``ActRequest`` (only its ``game_id`` is read; the load generator sends it with a seat's
``authorization`` header, as a move's call carries one, and leaves it unchecked) and, like
``Act``, is admitted under the cap on calls in progress, counted in the metrics and logged
(``service.rpc.calls.handled``); it reads the game and rewrites its state unchanged at the next
version with a log entry that records no action, and answers an ``ActResponse`` without a view.
So `make bench` sets each move's cost beside the bare cost of the stack it runs on: what is
left between them is the rules, the seat's token check, the view and their conversion to and
from messages.
"""

from __future__ import annotations

import grpc

from cardgame.v1 import game_service_pb2 as pb
from service.errors import NotFound
from service.rpc import calls
from service.store.port import Commit, Store
from service.table.gamelog import NO_ACTION

METHOD = "/cardgame.bench.v1.Bench/Noop"
EMPTY = pb.ActResponse()


def handlers(store: Store, cap: calls.CallCap) -> grpc.GenericRpcHandler:
    """A generic handler serving the no-op method over ``store``, under the server's cap on calls
    in progress (``cap``)."""

    async def noop(request: pb.ActRequest, context) -> pb.ActResponse:
        call = calls.Call(request.request_id)
        async with calls.handled("Noop", call, context, cap):
            call.game_id = game_id = request.game_id
            loaded = await store.load(game_id)
            if loaded is None:
                raise NotFound(f"no game {game_id!r}")
            await store.commit(Commit(game_id, loaded.version, loaded.state, [NO_ACTION]))
            return EMPTY
        return EMPTY   # an error was answered (handled aborts the call)

    handler = grpc.unary_unary_rpc_method_handler(noop, request_deserializer=pb.ActRequest.FromString,
                                                   response_serializer=pb.ActResponse.SerializeToString)
    return grpc.method_handlers_generic_handler("cardgame.bench.v1.Bench", {"Noop": handler})
