"""A stored game: the engine state plus what the service keeps around it (seats with their
names, bots, token hashes and presence; the owner, labels and lifecycle options; the current
turn deadline and the count of events emitted)."""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass

import orjson

import engine
from engine import TableState

RECORD_VERSION = 2
_SYSTEM_RANDOM = secrets.SystemRandom()


class _Seeded(random.Random):
    """A ``random.Random(seed)`` seeded at its first draw: most changes draw nothing (a play, a
    bid), and seeding from a string hashes it and fills the whole generator state."""

    def __init__(self, seed: str):   # random.Random's own __init__ seeds at once
        self._pending = seed

    def __getattribute__(self, name: str):
        # the first look-up seeds the generator and makes it a plain random.Random from then on
        pending = object.__getattribute__(self, "__dict__").pop("_pending")
        object.__setattr__(self, "__class__", random.Random)
        random.Random.__init__(self, pending)
        return object.__getattribute__(self, name)


class UnsupportedRecord(ValueError):
    """A stored game written in a format this release does not read (an older release's)."""


PLAYING, AWAY, LEFT = 1, 2, 3  # proto Presence values
SPECTATORS_NONE, SPECTATORS_TOKEN, SPECTATORS_ANYONE = 1, 2, 3  # proto SpectatorPolicy values


@dataclass
class Seat:
    """One seat: its display name, player kind (proto PlayerKind), stored token hash, and for a
    human seat the backend's player id, the bot that stands in for it and whether it is there."""

    name: str
    kind: int
    bot: str | None       # bot strategy, None for a human seat
    token_hash: str       # "" for bots and for a seat whose player left
    external_id: str = ""
    fallback: str = "basic"
    presence: int = PLAYING
    timeouts: int = 0     # turns in a row that passed their deadline
    reissues: int = 0     # tokens given to the seat after the first

    def to_list(self) -> list:
        return [self.name, self.kind, self.bot, self.token_hash, self.external_id, self.fallback, self.presence,
                self.timeouts, self.reissues]

    def fresh(self) -> Seat:
        """The same player in a new game: no token yet, at the table."""
        return Seat(self.name, self.kind, self.bot, "", self.external_id, self.fallback)

    @property
    def strategy(self) -> str | None:
        """The bot that plays this seat now: its own, or its fallback while away or after leaving."""
        return self.bot or (self.fallback if self.presence != PLAYING else None)


@dataclass
class Lifecycle:
    """A game's lifecycle options (proto LifecycleOptions), defaults filled in."""

    turn_timeout_ms: int = 0
    timeouts_before_away: int = 3
    abandon_on_leave: bool = False


class GameRecord:
    """Everything the service stores about one game in its state blob.

    Finished hands' score records are not part of it: the store keeps them in a list of their
    own, appended when a hand ends, so the blob read and written on every move stays small.
    ``state.records`` therefore holds only the hands finished since the record was loaded.
    """

    __slots__ = ("game_id", "state", "seats", "seed", "owner", "labels", "created_ms", "lifecycle", "deadline_ms",
                 "events", "left_seat", "spectators", "spectator_hash")

    def __init__(self, game_id: str, state: TableState, seats: list[Seat], seed: int | None, *, owner: str = "",
                 labels: dict[str, str] | None = None, created_ms: int = 0, lifecycle: Lifecycle | None = None,
                 deadline_ms: int = 0, events: int = 0, left_seat: int | None = None,
                 spectators: int = SPECTATORS_TOKEN, spectator_hash: str = ""):
        self.game_id = game_id
        self.state = state
        self.seats = seats
        self.seed = seed
        self.owner = owner                      # the API key id that created it ("" on an open server)
        self.labels = labels or {}
        self.created_ms = created_ms
        self.lifecycle = lifecycle or Lifecycle()
        self.deadline_ms = deadline_ms          # when the current turn passes, 0 for none
        self.events = events                    # events emitted so far (the last one's sequence)
        self.left_seat = left_seat              # the leaver of an abandoned game
        self.spectators = spectators            # who may watch without a seat (proto SpectatorPolicy)
        self.spectator_hash = spectator_hash    # the spectator token's hash, under SPECTATORS_TOKEN

    @property
    def bots(self) -> dict[int, str]:
        """The strategy of every seat a bot plays now (bot seats, and humans away or gone)."""
        return {i: s.strategy for i, s in enumerate(self.seats) if s.strategy}

    @property
    def abandoned(self) -> bool:
        """Whether the game ended because a player left it."""
        return self.left_seat is not None

    def rng(self, version: int | str) -> random.Random:
        """The randomness for the change made at ``version`` (or a named step, such as the bot
        moves made while the game is created): seeded in replay mode, else system."""
        if self.seed is None:
            return _SYSTEM_RANDOM
        return _Seeded(f"{self.seed}:{version}")

    def to_bytes(self) -> bytes:
        """The stored form (JSON with a record version), hand records left out."""
        game = self.state.to_dict(records=False)
        life = self.lifecycle
        return orjson.dumps({
            "r": RECORD_VERSION, "id": self.game_id, "seed": self.seed,
            "seats": [s.to_list() for s in self.seats],
            "game": game, "owner": self.owner, "labels": self.labels, "created": self.created_ms,
            "life": [life.turn_timeout_ms, life.timeouts_before_away, life.abandon_on_leave],
            "deadline": self.deadline_ms, "events": self.events, "left": self.left_seat,
            "spect": [self.spectators, self.spectator_hash],
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
        # Games stored before spectator policies were created open to anyone with their id.
        spectators, spectator_hash = data.get("spect") or (SPECTATORS_ANYONE, "")
        return cls(data["id"], engine.state_from_dict(data["game"]), seats, data["seed"],
                   owner=data.get("owner", ""), labels=data.get("labels") or {}, created_ms=data.get("created", 0),
                   lifecycle=Lifecycle(*data["life"]) if "life" in data else None,
                   deadline_ms=data.get("deadline", 0), events=data.get("events", 0), left_seat=data.get("left"),
                   spectators=spectators, spectator_hash=spectator_hash)
