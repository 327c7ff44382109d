"""Drive games through the API alone: seat tokens, legal actions, random choices.

Moves go through Act, by notation; ``legacy_request`` gives the older per-kind RPC of an action,
which one contract test (test_moves_and_errors) holds to Act's answers.
"""

from __future__ import annotations

import random
import uuid

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

import engine
from cardgame.moves import notation_for
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb

_BID_KINDS = {
    enums.ACTION_KIND_DOUBLE_NIL: pb.BID_KIND_DOUBLE_NIL, enums.ACTION_KIND_ORDER_UP: pb.BID_KIND_ORDER_UP,
    enums.ACTION_KIND_PASS: pb.BID_KIND_PASS, enums.ACTION_KIND_STAY_IN: pb.BID_KIND_STAY_IN,
    enums.ACTION_KIND_DROP_OUT: pb.BID_KIND_DROP_OUT,
}


def auth(token: str | None) -> list[tuple[str, str]]:
    """Call metadata carrying a seat token (none for a spectator)."""
    return [("authorization", f"Bearer {token}")] if token else []


def create(stub, variant: str, kinds: list[int] | None = None, **fields) -> pb.CreateGameResponse:
    """Create a game of any registered game by its name; all seats human unless ``kinds`` says otherwise."""
    kinds = kinds or [enums.PLAYER_KIND_HUMAN] * engine.game_of(variant).seats
    seats = [pb.SeatConfig(name=f"P{i}", kind=k) for i, k in enumerate(kinds)]
    return stub.CreateGame(pb.CreateGameRequest(variant_name=variant, seats=seats, **fields))


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


def legacy_request(action, game_id: str, cards: list[str]) -> tuple[str, object] | None:
    """The older per-kind RPC (Deal, Draw, RevealHand, Bid, Exchange, Play) and request that take
    ``action``; None for an action none of them can send (a game's own card choice, such as a
    Hearts pass, or a word of a later game, which has no ActionKind: only Act takes those)."""
    kind = action.kind
    if (action.max_cards and kind != enums.ACTION_KIND_EXCHANGE) or kind == enums.ACTION_KIND_UNSPECIFIED:
        return None
    if kind == enums.ACTION_KIND_PLAY:
        return "Play", pb.PlayRequest(game_id=game_id, card=action.card)
    if kind == enums.ACTION_KIND_BID:
        return "Bid", pb.BidRequest(game_id=game_id, kind=pb.BID_KIND_TRICKS, tricks=action.tricks)
    if kind == enums.ACTION_KIND_NAME_SUIT:
        return "Bid", pb.BidRequest(game_id=game_id, kind=pb.BID_KIND_NAME_SUIT, suit=action.suit)
    if kind in _BID_KINDS:
        return "Bid", pb.BidRequest(game_id=game_id, kind=_BID_KINDS[kind])
    if kind == enums.ACTION_KIND_DEAL:
        return "Deal", pb.DealRequest(game_id=game_id)
    if kind == enums.ACTION_KIND_REVEAL:
        return "RevealHand", pb.RevealHandRequest(game_id=game_id)
    if kind in (enums.ACTION_KIND_DRAW_KEEP, enums.ACTION_KIND_DRAW_DISCARD):
        choice = pb.DRAW_CHOICE_KEEP if kind == enums.ACTION_KIND_DRAW_KEEP else pb.DRAW_CHOICE_DISCARD
        return "Draw", pb.DrawRequest(game_id=game_id, choice=choice)
    if kind == enums.ACTION_KIND_EXCHANGE:
        return "Exchange", pb.ExchangeRequest(game_id=game_id, cards=cards)
    raise ValueError(f"unknown action kind {kind}")


def request_for(action, game_id: str, rng: random.Random, legacy: bool) -> tuple[str, object, str]:
    """The RPC, request and notation of ``action``: Act, or the older per-kind RPC when ``legacy``
    (and one of them can send it)."""
    notation = notation_for(action, rng=rng)
    older = legacy_request(action, game_id, notation.split()[1:]) if legacy else None
    if older is not None:
        return (*older, notation)
    return "Act", pb.ActRequest(game_id=game_id, action=notation), notation


def play_to_end(stub, game_id: str, tokens: dict[int, str], rng: random.Random, max_moves: int = 20000,
                on_response=None) -> list[tuple[int, str]]:
    """Play random legal moves for the human seats until the game is over; returns (seat, notation)s."""
    moves = []
    for _ in range(max_moves):
        seat, view = acting_seat(stub, game_id, tokens)
        if seat is None:
            return moves
        method, request, notation = request_for(choose(view, rng), game_id, rng, legacy=False)
        response = send(stub, method, request, tokens[seat])
        if on_response:
            on_response(seat, response.view)
        moves.append((seat, notation))
    raise AssertionError("the game did not end")


def code_of(call, *args, **kwargs) -> grpc.StatusCode:
    """The status code an RPC ends with (OK when it succeeds)."""
    try:
        call(*args, **kwargs)
    except grpc.RpcError as exc:
        return exc.code()
    return grpc.StatusCode.OK


def reason_of(error: grpc.RpcError) -> str:
    """The ErrorInfo reason of a refused call ("" without one)."""
    status = rpc_status.from_call(error)
    for detail in status.details if status else ():
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info.reason
    return ""


def act(stub, game_id: str, token: str, action: str):
    """The seat's view after its action (by notation, through Act)."""
    return send(stub, "Act", pb.ActRequest(game_id=game_id, action=action), token).view


def refused(stub, game_id: str, token: str, action: str) -> tuple[grpc.StatusCode, str]:
    """The status code and reason an action refused through Act ends with."""
    with pytest.raises(grpc.RpcError) as info:
        act(stub, game_id, token, action)
    return info.value.code(), reason_of(info.value)


def view_of(stub, game_id: str, token: str | None):
    """The view of a seat (None: a spectator)."""
    return stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=auth(token)).view
