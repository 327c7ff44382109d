"""Turn a LegalAction from a view into the request that performs it.

>>> from cardgame.v1 import view_pb2, enums_pb2
>>> method, request = request_for(view_pb2.LegalAction(kind=enums_pb2.ACTION_KIND_PLAY, card="AS"), "g1")
>>> method, request.card
('Play', 'AS')
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import view_pb2

_BID_KINDS = {
    enums.ACTION_KIND_DOUBLE_NIL: pb.BID_KIND_DOUBLE_NIL,
    enums.ACTION_KIND_ORDER_UP: pb.BID_KIND_ORDER_UP,
    enums.ACTION_KIND_PASS: pb.BID_KIND_PASS,
    enums.ACTION_KIND_STAY_IN: pb.BID_KIND_STAY_IN,
    enums.ACTION_KIND_DROP_OUT: pb.BID_KIND_DROP_OUT,
}


def request_for(action: view_pb2.LegalAction, game_id: str, cards: Sequence[str] | None = None,
                rng: random.Random | None = None) -> tuple[str, object]:
    """The RPC name and request message that take ``action`` in game ``game_id``.

    For an EXCHANGE, ``cards`` chooses the cards; without it a random allowed choice is made.
    """
    kind = action.kind
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
        if cards is None:
            rng = rng or random.Random()
            cards = rng.sample(list(action.cards), rng.randint(action.min_cards, action.max_cards))
        return "Exchange", pb.ExchangeRequest(game_id=game_id, cards=list(cards))
    raise ValueError(f"unknown action kind {kind}")
