"""The typed error raised for every rejected action, with its stable reason code."""

from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    """Stable reason codes (RULES.md); where several apply the earliest listed wins."""

    WRONG_PHASE = "WRONG_PHASE"
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    CARD_NOT_IN_HAND = "CARD_NOT_IN_HAND"
    MUST_FOLLOW_SUIT = "MUST_FOLLOW_SUIT"
    SPADES_NOT_BROKEN = "SPADES_NOT_BROKEN"
    INVALID_BID = "INVALID_BID"
    BLIND_NIL_AFTER_LOOKING = "BLIND_NIL_AFTER_LOOKING"
    INVALID_EXCHANGE = "INVALID_EXCHANGE"
    SUIT_TURNED_DOWN = "SUIT_TURNED_DOWN"
    MAKER_CANNOT_DROP = "MAKER_CANNOT_DROP"
    CANNOT_DROP_ON_CLUBS = "CANNOT_DROP_ON_CLUBS"


class IllegalAction(Exception):
    """An action the rules do not allow now; the state it was tried on is unchanged."""

    def __init__(self, reason: Reason, message: str):
        super().__init__(f"{reason.value}: {message}")
        self.reason = reason
        self.message = message
