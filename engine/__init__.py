"""Pure rules of Spades (four and two players) and Buck Euchre: no I/O, no protobuf, no Redis.

>>> import random
>>> state = new_game("spades", rng=random.Random(1), first_dealer=0)
>>> state = apply(state, 0, DEAL, random.Random(1))
>>> view(state, 1).turn, len(legal_actions(state, 1))
(1, 16)
"""

from .actions import (DEAL, DOUBLE_NIL, DRAW_DISCARD, DRAW_KEEP, DROP_OUT, ORDER_UP, PASS, REVEAL, STAY_IN,
                      Action, Kind, action_name, bid, exchange, exchange_of, kind_of, name_suit, parse_action,
                      payload_of, play)
from .cards import card_name, cards_text, parse_card, parse_cards, parse_deck
from .errors import IllegalAction, Reason
from .game import apply, check_deck, legal_actions, new_game, score, view
from .options import BuckEuchreOptions, SpadesOptions
from .state import GameState, Phase, Seat, Variant
from .views import View

__all__ = [
    "DEAL", "DOUBLE_NIL", "DRAW_DISCARD", "DRAW_KEEP", "DROP_OUT", "ORDER_UP", "PASS", "REVEAL", "STAY_IN",
    "Action", "Kind", "action_name", "bid", "exchange", "exchange_of", "kind_of", "name_suit", "parse_action",
    "payload_of", "play", "card_name", "cards_text", "parse_card", "parse_cards", "parse_deck",
    "IllegalAction", "Reason", "apply", "check_deck", "legal_actions", "new_game", "score", "view",
    "BuckEuchreOptions", "SpadesOptions", "GameState", "Phase", "Seat", "Variant", "View",
]
