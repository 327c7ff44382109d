"""A stored game: the engine state plus the seats (names, bots, token hashes) around it."""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass

import orjson

import engine
from engine import GameState

RECORD_VERSION = 2
_SYSTEM_RANDOM = secrets.SystemRandom()


class UnsupportedRecord(ValueError):
    """A stored game written in a format this release does not read (an older release's)."""


@dataclass
class Seat:
    """One seat: its display name, player kind (proto PlayerKind) and stored token hash."""

    name: str
    kind: int
    bot: str | None       # bot strategy, None for a human seat
    token_hash: str       # "" for bots


class GameRecord:
    """Everything the service stores about one game in its state blob.

    Finished hands' score records are not part of it: the store keeps them in a list of their
    own, appended when a hand ends, so the blob read and written on every move stays small.
    ``state.records`` therefore holds only the hands finished since the record was loaded.
    """

    __slots__ = ("game_id", "state", "seats", "seed")

    def __init__(self, game_id: str, state: GameState, seats: list[Seat], seed: int | None):
        self.game_id = game_id
        self.state = state
        self.seats = seats
        self.seed = seed

    @property
    def bots(self) -> dict[int, str]:
        """Bot strategy by seat."""
        return {i: s.bot for i, s in enumerate(self.seats) if s.bot}

    def rng(self, version: int | str) -> random.Random:
        """The randomness for the change made at ``version`` (or a named step, such as the bot
        moves made while the game is created): seeded in replay mode, else system."""
        if self.seed is None:
            return _SYSTEM_RANDOM
        return random.Random(f"{self.seed}:{version}")

    def to_bytes(self) -> bytes:
        """The stored form (JSON with a record version), hand records left out."""
        game = self.state.to_dict()
        game["records"] = []
        return orjson.dumps({
            "r": RECORD_VERSION, "id": self.game_id, "seed": self.seed,
            "seats": [[s.name, s.kind, s.bot, s.token_hash] for s in self.seats],
            "game": game,
        })

    def new_hands(self) -> list[bytes]:
        """The score records of the hands finished since the record was loaded, serialised."""
        return [orjson.dumps(hand.to_dict()) for hand in self.state.records]

    def with_hands(self, hands: list[bytes]) -> GameRecord:
        """Put every stored hand record back into the state (for scores); returns self."""
        record_type = engine.game_of(self.state.variant).record_type
        self.state.records = [record_type.from_dict(orjson.loads(hand)) for hand in hands]
        return self

    @classmethod
    def from_bytes(cls, raw: bytes) -> GameRecord:
        """The record from its stored form."""
        data = orjson.loads(raw)
        if data.get("r") != RECORD_VERSION:
            raise UnsupportedRecord(f"this game was stored in format {data.get('r')!r}, which this release "
                                    f"(format {RECORD_VERSION}) does not read; start a new game")
        seats = [Seat(*fields) for fields in data["seats"]]
        return cls(data["id"], engine.state_from_dict(data["game"]), seats, data["seed"])
