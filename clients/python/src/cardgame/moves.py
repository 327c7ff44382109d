"""Turn a LegalAction from a view into the Act request that takes it.

Act takes an action by the notation its LegalAction gives ("play AS", "bid 4", "pass", "deal");
an action that chooses cards (one listing ``cards`` to choose from, between ``min_cards`` and
``max_cards`` of them: an exchange, a discard, a pass of cards) is its notation followed by the
chosen cards ("exchange 2C 3D 4H").

>>> from cardgame.v1 import view_pb2, enums_pb2
>>> act_request(view_pb2.LegalAction(word="play", shape=enums_pb2.ACTION_SHAPE_CARD, card="AS", notation="play AS"),
...             "g1").action
'play AS'
>>> discard = view_pb2.LegalAction(word="exchange", shape=enums_pb2.ACTION_SHAPE_CARDS, notation="exchange",
...                                cards=["9C", "AH"], min_cards=1, max_cards=1)
>>> notation_for(discard, ["AH"]), notation_for(discard, rng=random.Random(1)) in ("exchange 9C", "exchange AH")
('exchange AH', True)
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import view_pb2


def random_cards(action: view_pb2.LegalAction, rng: random.Random | None = None) -> list[str]:
    """A random allowed choice of a card-choosing action's cards (between min_cards and max_cards of them)."""
    rng = rng or random.Random()
    return rng.sample(list(action.cards), rng.randint(action.min_cards, action.max_cards))


def notation_for(action: view_pb2.LegalAction, cards: Sequence[str] | None = None,
                 rng: random.Random | None = None) -> str:
    """The Act notation of ``action``; for one that chooses cards, its notation and ``cards`` (a
    random allowed choice if None)."""
    if action.max_cards:
        chosen = random_cards(action, rng) if cards is None else list(cards)
        return " ".join([action.notation, *chosen])
    if not action.notation:
        raise ValueError(f"the action has no notation (word {action.word!r}); take one of a view's legal_actions")
    return action.notation


def act_request(action: view_pb2.LegalAction, game_id: str, cards: Sequence[str] | None = None,
                rng: random.Random | None = None) -> pb.ActRequest:
    """The ActRequest that takes ``action`` in game ``game_id`` (``cards``: the cards it chooses, see notation_for)."""
    return pb.ActRequest(game_id=game_id, action=notation_for(action, cards, rng))
