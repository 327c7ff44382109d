"""Drive games through the API alone: seat tokens, legal actions, random choices."""

from __future__ import annotations

import random
import uuid

import grpc

from cardgame.moves import request_for
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb

VARIANTS = {"spades": enums.VARIANT_SPADES, "spades2": enums.VARIANT_SPADES_TWO_PLAYER,
            "buck_euchre": enums.VARIANT_BUCK_EUCHRE}
SEATS = {"spades": 4, "spades2": 2, "buck_euchre": 4}


def auth(token: str | None) -> list[tuple[str, str]]:
    """Call metadata carrying a seat token (none for a spectator)."""
    return [("authorization", f"Bearer {token}")] if token else []


def create(stub, variant: str, kinds: list[int] | None = None, **fields) -> pb.CreateGameResponse:
    """Create a game; all seats human unless ``kinds`` says otherwise."""
    kinds = kinds or [enums.PLAYER_KIND_HUMAN] * SEATS[variant]
    seats = [pb.SeatConfig(name=f"P{i}", kind=k) for i, k in enumerate(kinds)]
    return stub.CreateGame(pb.CreateGameRequest(variant=VARIANTS[variant], seats=seats, **fields))


def tokens_of(created: pb.CreateGameResponse) -> dict[int, str]:
    """Seat -> token from a CreateGame response."""
    return {t.seat: t.token for t in created.seat_tokens}


def send(stub, method: str, request, token: str, **kwargs):
    """Send a move with a fresh request id; returns the response."""
    if not request.request_id:
        request.request_id = uuid.uuid4().hex
    return getattr(stub, method)(request, metadata=auth(token), **kwargs)


def choose(view, rng: random.Random):
    """A random legal action of a view, preferring low bids so Spades games end."""
    actions = [a for a in view.legal_actions if a.kind != enums.ACTION_KIND_DOUBLE_NIL]
    bids = [a for a in actions if a.kind == enums.ACTION_KIND_BID]
    if bids:
        return rng.choice([a for a in bids if 1 <= a.tricks <= 3])
    plain = [a for a in actions if a.kind != enums.ACTION_KIND_REVEAL]
    return rng.choice(plain or actions)


def acting_seat(stub, game_id: str, tokens: dict[int, str]):
    """(seat, view) of a human seat that has something to do, or (None, spectator view)."""
    spectator = stub.GetGame(pb.GetGameRequest(game_id=game_id))
    if spectator.view.phase == enums.PHASE_GAME_OVER:
        return None, spectator.view
    order = [spectator.view.turn] if spectator.view.HasField("turn") else sorted(tokens)
    for seat in order:
        if seat in tokens:
            view = stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=auth(tokens[seat])).view
            if any(a.kind != enums.ACTION_KIND_REVEAL for a in view.legal_actions):
                return seat, view
    raise AssertionError(f"no human seat can act in phase {spectator.view.phase}")


def play_to_end(stub, game_id: str, tokens: dict[int, str], rng: random.Random, max_moves: int = 20000,
                on_response=None) -> list[tuple[int, str, object]]:
    """Play random legal moves for the human seats until the game is over; returns the moves."""
    moves = []
    for _ in range(max_moves):
        seat, view = acting_seat(stub, game_id, tokens)
        if seat is None:
            return moves
        method, request = request_for(choose(view, rng), game_id, rng=rng)
        response = send(stub, method, request, tokens[seat])
        if on_response:
            on_response(seat, response.view)
        moves.append((seat, method, request))
    raise AssertionError("the game did not end")


def code_of(call, *args, **kwargs) -> grpc.StatusCode:
    """The status code an RPC ends with (OK when it succeeds)."""
    try:
        call(*args, **kwargs)
    except grpc.RpcError as exc:
        return exc.code()
    return grpc.StatusCode.OK
