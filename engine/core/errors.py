"""The typed error raised for every rejected action, with its stable reason code."""

from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    """The reason codes every trick-taking game may give (RULES.md); where several apply the
    earliest listed wins.

    A game's own codes (Spades' SPADES_NOT_BROKEN, Buck Euchre's SUIT_TURNED_DOWN, ...) are a
    StrEnum of its module, declared as its ``Game.reasons``: the wire carries a reason as its
    string, so a new game brings new codes without touching the core or the proto.
    """

    WRONG_PHASE = "WRONG_PHASE"
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    CARD_NOT_IN_HAND = "CARD_NOT_IN_HAND"
    MUST_FOLLOW_SUIT = "MUST_FOLLOW_SUIT"
    INVALID_BID = "INVALID_BID"
    INVALID_EXCHANGE = "INVALID_EXCHANGE"


class IllegalAction(Exception):
    """An action the rules do not allow now; the state it was tried on is unchanged."""

    def __init__(self, reason: StrEnum, message: str):
        super().__init__(f"{reason.value}: {message}")
        self.reason = reason
        self.message = message
