"""The benchmark's baseline RPC: only the store's read and compare-and-set, no rules.

Served by a server started with ``--handler-module bench.noop``. ``/cardgame.bench.v1.Bench/Noop`` takes a game id (raw
UTF-8 bytes) and rewrites that game's state unchanged at the next version, with a log entry
that records no action, so `make bench` can set each move's cost beside the bare cost of the
stack it runs on.
"""

from __future__ import annotations

import grpc

from service.store.port import Commit, Store
from service.table.gamelog import NOOP

METHOD = "/cardgame.bench.v1.Bench/Noop"


def handlers(store: Store) -> grpc.GenericRpcHandler:
    """A generic handler serving the no-op method over ``store``."""

    async def noop(request: bytes, context) -> bytes:
        game_id = request.decode()
        loaded = await store.load(game_id)
        if loaded is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, "no such game")
            return b""  # abort raises; never reached
        result = await store.commit(Commit(game_id, loaded.version, loaded.state, [NOOP]))
        return str(result.version).encode()

    handler = grpc.unary_unary_rpc_method_handler(noop)
    return grpc.method_handlers_generic_handler("cardgame.bench.v1.Bench", {"Noop": handler})
