"""Two-player Spades on the wire: its own view (the draw, the put-aside exchange); its seat facts,
hand breakdown and options are those of four-player Spades."""

from __future__ import annotations

from dataclasses import replace

from cardgame.v1 import view_pb2
from engine.core.cards import CARD_NAMES
from engine.games.spades2 import Spades2Rules

from . import spades
from .base import names


def view_rules(m: view_pb2.GameView, r: Spades2Rules) -> None:
    """The GameView ``spades_two_player`` case: spades broken, the draw and the caller's exchange."""
    sub = m.spades_two_player
    sub.SetInParent()
    sub.spades_broken = r.spades_broken
    if r.offered is not None:
        sub.offered_card = CARD_NAMES[r.offered]
    sub.seen_discards.extend(names(r.seen_discards))
    sub.stock_count = r.stock_count
    sub.exchange_given.extend(names(r.exchange_given))
    sub.exchange_received.extend(names(r.exchange_received))


ADAPTER = replace(spades.ADAPTER, name="spades2", view_rules=view_rules)
