"""The game state: plain data, updated in place by the rules, serialised to a versioned form."""

from __future__ import annotations

import json
from enum import IntEnum

from .options import BuckEuchreOptions, Options, SpadesOptions, options_from_dict, options_to_dict

SCHEMA_VERSION = 1

Seat = int
NOBODY: Seat = -1


class Variant:
    """The three games, by their stable names."""

    SPADES = "spades"
    SPADES2 = "spades2"
    BUCK_EUCHRE = "buck_euchre"
    ALL = (SPADES, SPADES2, BUCK_EUCHRE)


SEATS = {Variant.SPADES: 4, Variant.SPADES2: 2, Variant.BUCK_EUCHRE: 4}
OPTIONS_CLASS = {Variant.SPADES: SpadesOptions, Variant.SPADES2: SpadesOptions,
                 Variant.BUCK_EUCHRE: BuckEuchreOptions}


class Phase(IntEnum):
    """Where a hand stands; each phase has its own legal actions."""

    DEAL = 1            # waiting for the dealer (2-player Spades: the first drawer) to start
    DRAW = 2            # 2-player Spades: the draw
    BID = 3             # Spades bidding
    EXCHANGE = 4        # Double Nil card exchange
    ORDER_UP = 5        # Buck Euchre: first trump round (order up or pass)
    DEALER_DISCARD = 6  # Buck Euchre: the dealer discards after taking the turn-up
    NAME_TRUMP = 7      # Buck Euchre: second trump round (name a suit or pass)
    DROP_OUT = 8        # Buck Euchre: stay in or drop out
    PLAY = 9            # trick play
    GAME_OVER = 10


NO_BID = -1
DOUBLE_NIL_BID = -2
NO_TRUMP = 4  # Buck Euchre: trump settled as "no trump"
NO_CARD = -1


class GameState:
    """Everything about one game, hidden cards included; only ``engine.view`` shows it to a seat."""

    __slots__ = (
        "variant", "options", "n", "phase", "dealer", "hand_no", "turn", "hands", "deck", "salt", "commitment",
        "looked", "bids", "calls", "tricks", "trick_seats", "trick_cards", "last_trick",
        "broken", "scores", "bags", "records", "winner", "decks",
        # Double Nil exchange
        "xneed", "xgiven", "xgot",
        # two-player draw
        "pos", "offered", "discards", "seen", "discarded", "draw_turns",
        # Buck Euchre
        "turnup", "trump", "maker", "active", "kitty", "turned_down", "dealer_discard", "clubs",
        "swept",
    )

    def __init__(self, variant: str, options: Options, first_dealer: Seat):
        n = SEATS[variant]
        sides = 2 if variant == Variant.SPADES else n
        self.variant = variant
        self.options = options
        self.n = n
        self.phase = Phase.DEAL
        self.dealer = first_dealer
        self.hand_no = 0
        self.turn = first_dealer
        start = options.starting_score if variant == Variant.BUCK_EUCHRE else 0
        self.scores = [start] * sides
        self.bags = [0] * sides
        self.records: list[dict] = []
        self.winner: list[int] = []   # winning sides (partnerships or seats); empty while playing
        self.decks: list[list[int]] = []  # prearranged decks still to be dealt
        self.deck: list[int] = []
        self.salt = ""
        self.commitment = ""          # SHA-256 of the salt and this hand's deck, fixed at the deal
        self.reset_hand()

    def reset_hand(self) -> None:
        """Clear everything that belongs to one hand (cards, bids, tricks, exchange, draw, trump)."""
        n = self.n
        self.hands = [0] * n
        self.looked = 0
        self.bids = [NO_BID] * n
        self.calls = [0] * n          # last bidding/trump/drop action of each seat (0 = none)
        self.tricks = [0] * n
        self.trick_seats: list[int] = []
        self.trick_cards: list[int] = []
        self.last_trick: list | None = None   # [seats, cards, winner]
        self.broken = False
        self.xneed = 0
        self.xgiven = [NO_CARD] * n   # cards each seat gave (-1: not chosen / not exchanging)
        self.xgot = [0] * n
        self.pos = 0
        self.offered = NO_CARD
        self.discards = 0
        self.seen = [0] * n           # 2-player draw: every card that passed through each seat's hands
        self.discarded = [0] * n      # 2-player draw: the cards each seat discarded or put aside
        self.draw_turns = [0] * n
        self.turnup = NO_CARD
        self.trump = NO_CARD
        self.maker = NOBODY
        self.active = (1 << n) - 1
        self.kitty = 0
        self.turned_down = False
        self.dealer_discard = NO_CARD
        self.clubs = False
        self.swept = NOBODY

    @property
    def sides(self) -> int:
        """How many scoring sides: partnerships in four-player Spades, else players."""
        return len(self.scores)

    def seats_of(self, side: int) -> list[Seat]:
        """The seats of a scoring side."""
        return [side, side + 2] if self.variant == Variant.SPADES else [side]

    def copy(self) -> "GameState":
        """An independent copy (lists copied; records shared, as they are never changed)."""
        other = GameState.__new__(GameState)
        for name in GameState.__slots__:
            value = getattr(self, name)
            setattr(other, name, value[:] if type(value) is list else value)
        return other

    def to_dict(self) -> dict:
        """The state as plain JSON-ready data, with its schema version."""
        data = {name: getattr(self, name) for name in GameState.__slots__}
        data["options"] = options_to_dict(self.options)
        data["phase"] = int(self.phase)
        data["schema_version"] = SCHEMA_VERSION
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "GameState":
        """The state stored by :meth:`to_dict` (any schema version up to the current one)."""
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            raise ValueError(f"unsupported game state schema version {version!r}")
        state = cls.__new__(cls)
        for name in cls.__slots__:
            setattr(state, name, data[name])
        state.options = options_from_dict(OPTIONS_CLASS[data["variant"]], data["options"])
        state.phase = Phase(data["phase"])
        return state

    def to_bytes(self) -> bytes:
        """The compact stored form: UTF-8 JSON with a schema version."""
        return json.dumps(self.to_dict(), separators=(",", ":")).encode()

    @classmethod
    def from_bytes(cls, raw: bytes) -> "GameState":
        """The state from its stored form."""
        return cls.from_dict(json.loads(raw))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self.to_dict() == other.to_dict()

    __hash__ = None  # mutable
