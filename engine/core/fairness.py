"""Provably fair deals: a SHA-256 commitment to each hand's deck, revealed with its salt later."""

from __future__ import annotations

import hashlib

from .cards import Card, deck_text


def commitment(salt: str, deck: list[Card]) -> str:
    """The hex SHA-256 of ``"<salt>:<deck as card names, top first>"``.

    Anyone holding the revealed salt and deck recomputes it to check that the deck shown at
    the end of a hand is the one committed to when it was dealt.

    >>> commitment("00", [0, 1])[:16]
    '465fa4699f927173'
    """
    return hashlib.sha256(f"{salt}:{deck_text(deck)}".encode()).hexdigest()
