"""Locust load on a running deployment: each simulated user plays scripted four-player Spades
games move after move through the gRPC API, and every call is a Locust request event.

For a server (or a load balancer) started with ``--allow-seeded-shuffle``, from any machine:

    .venv/bin/locust -f bench/locustfile.py --headless --users 64 --spawn-rate 64 \\
        --run-time 30s --host 127.0.0.1:50051

Locust's users are gevent greenlets, so the blocking gRPC stub runs under gevent
(``grpc.experimental.gevent``). A user's games are ``bench.service_moves.Script`` games: the
moves are worked out before they are sent, as in ``make bench`` and ``make bench-scale``.
"""

from __future__ import annotations

import itertools
import time
import uuid

import grpc
import grpc.experimental.gevent as grpc_gevent
from locust import User, task

from bench.service_moves import script
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc

grpc_gevent.init_gevent()
_GAMES = itertools.count()


class GameUser(User):
    """Plays one scripted game after another (the same script again once it ends)."""

    def on_start(self) -> None:
        self.channel = grpc.insecure_channel(self.host)
        self.stub = pb_grpc.GameServiceStub(self.channel)
        self.script = script(next(_GAMES))
        self.next = len(self.script.moves)

    def on_stop(self) -> None:
        self.channel.close()

    def _call(self, name: str, method, request, metadata=()):
        """One gRPC call, reported to Locust as a request event (an RpcError as its exception)."""
        start = time.perf_counter()
        response, error = None, None
        try:
            response = method(request, metadata=metadata, timeout=10)
        except grpc.RpcError as exc:
            error = exc
        self.environment.events.request.fire(
            request_type="grpc", name=name, response_time=(time.perf_counter() - start) * 1000,
            response_length=response.ByteSize() if response is not None else 0, exception=error, context={})
        return response

    @task
    def move(self) -> None:
        """The script's next move, creating the game first when the script starts (again)."""
        if self.next == len(self.script.moves):
            created = self._call("CreateGame", self.stub.CreateGame, pb.CreateGameRequest(
                variant=enums.VARIANT_SPADES, first_dealer=0, shuffle_seed=self.script.seed,
                seats=[pb.SeatConfig(name=f"P{i}") for i in range(4)]))
            if created is None:
                return
            self.game_id = created.game_id
            self.tokens = {t.seat: (("authorization", f"Bearer {t.token}"),) for t in created.seat_tokens}
            self.next = 0
        seat, action = self.script.moves[self.next]
        self.next += 1
        answer = self._call("Act", self.stub.Act, pb.ActRequest(game_id=self.game_id, action=action,
                                                                request_id=uuid.uuid4().hex), self.tokens[seat])
        if answer is None:
            self.next = len(self.script.moves)   # out of step with the game: start a new one
