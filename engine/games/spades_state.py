"""What every Spades game (four-player, two-player and Cutthroat Spades) is made of: the game's
name and deck, the values of the table settings and the settings themselves (``SpadesOptions``,
RULES.md §1.1), the reason codes beyond the core's, the state of a game (``SpadesState``), its
hand records and what a view shows of the Spades rules (``SpadesRules``, ``SpadesSeat``).

The rules that work on them live beside this module: the deck with jokers in
``engine.games.spades_deck``, the bids in ``engine.games.spades_bidding``, trick play and scoring
in ``engine.games.spades_play``, states built from a view in ``engine.games.spades_determinize``,
and the flow of four-player Spades with the game's registration in ``engine.games.spades``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

from ..core.actions import Action
from ..core.options import GameOptions, Setting
from ..core.records import HandRecord, Record
from ..core.table import NO_BID, NO_CARD, Seat, TableState
from .spades_scoring import SideScore
from .spades_words import bid

NAME = "spades"
DECK = list(range(52))
BIDS = [bid(n) for n in range(14)]

STANDARD = "standard"
TRUMPS = (STANDARD, "jokers", "jokers_deuces")
"""The values of the ``trumps`` option: the plain deck, or jokers in place of two deuces."""
SUICIDE, MIRROR, WHIZ = "suicide", "mirror", "whiz"
BIDDING = (STANDARD, SUICIDE, MIRROR, WHIZ)
"""The values of the ``bidding`` option."""
MAX_POINTS = (1 << 31) - 1
"""The largest points option (the wire's 32-bit integer)."""
FOUR_PLAYERS = (NAME,)
"""The games that take a setting of four-player Spades alone."""
EXCHANGING = (NAME, "spades2")
"""The games with an exchange after a Double Nil (Cutthroat Spades has none: no partner)."""


class SpadesReason(StrEnum):
    """The reason codes of both Spades games beyond the core's (RULES.md); where several apply to
    a bid, the first of INVALID_BID, BID_NOT_ALLOWED, BLIND_NIL_NOT_BEHIND,
    BLIND_NIL_AFTER_LOOKING, BID_BELOW_MINIMUM wins."""

    SPADES_NOT_BROKEN = "SPADES_NOT_BROKEN"
    BID_NOT_ALLOWED = "BID_NOT_ALLOWED"
    BLIND_NIL_NOT_BEHIND = "BLIND_NIL_NOT_BEHIND"
    BLIND_NIL_AFTER_LOOKING = "BLIND_NIL_AFTER_LOOKING"
    BID_BELOW_MINIMUM = "BID_BELOW_MINIMUM"


SPADES_SETTINGS = (
    Setting("target_score", 500, "Target score", "The score a side must reach to win the game.",
            low=100, high=5000),
    Setting("bag_limit", 10, "Bag limit", "Bags a side may collect before it loses the bag penalty.", low=5, high=50),
    Setting("bag_penalty", 100, "Bag penalty", "Points lost each time a side's bags reach the limit.", low=0, high=500),
    Setting("nil_value", 100, "Nil value", "Points won for a made Nil and lost for a failed one.", low=0, high=500),
    Setting("double_nil_value", 200, "Double Nil value", "Points won for a made Double Nil and lost for a failed one.",
            low=0, high=1000),
    Setting("double_nil_allowed", True, "Double Nil", "Whether Double Nil (bid blind) may be bid at all."),
    Setting("exchange_size", 3, "Exchange size",
            "Cards exchanged after a Double Nil bid: exactly this many between partners (four players), up to "
            "this many put aside (two players).", low=0, high=4, games=EXCHANGING),
    Setting("blind_nil_when_behind", 0, "Double Nil only when behind",
            "Double Nil may be declared only by a side that trails the other (of three players: the highest of "
            "the other two) by at least this many points at the start of the hand (0: whatever the score).",
            low=0, high=MAX_POINTS),
    Setting("trumps", STANDARD, "Trumps",
            "standard: the 52 cards; jokers: the 2♣ and 2♦ leave and the Big and Little Jokers (BJ, LJ) join as the "
            "two highest spades; jokers_deuces: the 2♣ and 2♥ leave, and BJ, LJ, 2♦, 2♠ are the four highest "
            "spades.", choices=TRUMPS, games=FOUR_PLAYERS),
    Setting("min_team_bid", 0, "Minimum team bid",
            "A partnership's bids must add up to at least this (Nil and Double Nil count 0): its second bidder may "
            "not bid less.", low=0, high=13, games=FOUR_PLAYERS),
    Setting("bidding", STANDARD, "Bidding",
            "standard; suicide: in each partnership exactly one partner bids Nil or Double Nil; mirror: each player "
            "bids the spades in their hand (none: Nil); whiz: each player bids Nil or the spades in their hand.",
            choices=BIDDING, games=FOUR_PLAYERS),
    Setting("nil_exchange", 0, "Nil exchange",
            "Cards a Nil bidder and their partner exchange after the bidding, as for Double Nil (0: none).",
            low=0, high=3, games=FOUR_PLAYERS),
    Setting("failed_nil_tricks_count", False, "Failed Nil tricks count",
            "Whether tricks won by a failed Nil or Double Nil bidder count toward the partner's contract instead of "
            "only as bags.", games=FOUR_PLAYERS),
    Setting("losing_score", 0, "Losing score",
            "The game also ends after a hand that leaves a side at or below minus this many points, and the "
            "highest total wins (0: off).", low=0, high=MAX_POINTS),
)
"""Every Spades setting, with the range real tables use (and, with the hands cap ``MAX_HANDS``,
small enough that no score can leave a 32-bit integer)."""
SPADES_RANGES = {s.name: (s.low, s.high) for s in SPADES_SETTINGS if s.kind == "integer"}
"""The accepted range of each numeric Spades option."""


@dataclass(frozen=True)
class SpadesOptions(GameOptions):
    """Options of every Spades game (two-player and Cutthroat Spades apply them per player, and
    take only the settings declared for them: ``Setting.takes``)."""

    SETTINGS = SPADES_SETTINGS

    target_score: int = 500
    bag_limit: int = 10
    bag_penalty: int = 100
    nil_value: int = 100
    double_nil_value: int = 200
    double_nil_allowed: bool = True
    exchange_size: int = 3
    blind_nil_when_behind: int = 0
    trumps: str = STANDARD
    min_team_bid: int = 0
    bidding: str = STANDARD
    nil_exchange: int = 0
    failed_nil_tricks_count: bool = False
    losing_score: int = 0

    def validate(self) -> None:
        """Raise ValueError naming the first option out of range, and ``min_team_bid`` when a
        bidding rule that fixes the bids (Suicide, Mirror, Whiz) comes with a minimum."""
        super().validate()
        if self.bidding != STANDARD and self.min_team_bid > 0:
            raise ValueError(f"option min_team_bid must be 0 with bidding {self.bidding} (its bids leave no room for "
                             f"a minimum), not {self.min_team_bid}")

    def validate_for(self, game: str, title: str, why: str) -> None:
        """Raise ValueError naming the first option set away from its default that the game of this
        name does not take (its ``title`` and ``why`` in the message).

        >>> SpadesOptions(exchange_size=2).validate_for("cutthroat_spades", "Cutthroat Spades", "no partner")
        Traceback (most recent call last):
        ...
        ValueError: option exchange_size is not a setting of Cutthroat Spades (no partner)
        """
        for setting in SPADES_SETTINGS:
            if not setting.takes(game) and getattr(self, setting.name) != setting.default:
                raise ValueError(f"option {setting.name} is not a setting of {title} ({why})")

    def validate_two_player(self) -> None:
        """Raise ValueError naming the first four-player option set away from its default (two-player
        Spades takes none of them)."""
        self.validate_for("spades2", "two-player Spades", "it plays without partners and jokers")


class SpadesState(TableState):
    """A four-player Spades game (two-player Spades extends it with the draw; Cutthroat Spades
    seats three, each a side of its own, and deals them 17 cards: the class says so)."""

    __slots__ = ("bids", "broken", "bags", "xneed", "xgiven", "xgot", "forced")
    options: SpadesOptions
    CARDS: ClassVar[tuple[int, ...]] = tuple(DECK)
    """The cards dealt at a table without jokers (with jokers: ``engine.games.spades_deck.TRUMPS_CARDS``)."""
    MOST_BID: ClassVar[int] = 13
    """The most tricks a seat may bid: the size of its hand."""
    BIDS: ClassVar[tuple[Action, ...]] = tuple(BIDS)
    """Every number bid, Nil (0) to ``MOST_BID``."""

    def __init__(self, variant: str, options: SpadesOptions, n: int, sides: int, first_dealer: Seat):
        super().__init__(variant, options, n, sides, first_dealer)
        self.bags = [0] * sides

    def reset_hand(self) -> None:
        """Clear everything that belongs to one hand (cards, bids, tricks, exchange)."""
        super().reset_hand()
        n = self.n
        self.bids = [NO_BID] * n
        self.broken = False
        self.xneed = 0                # bit per seat: still to choose its exchange cards
        self.xgiven = [NO_CARD] * n   # cards each seat gave (-1: not chosen / not exchanging)
        self.xgot = [0] * n
        self.forced = 0               # bit per seat: the table's settings left it one bid only

    def seats_of(self, side: int) -> list[Seat]:
        """The seats of a partnership."""
        return [side, side + 2]

    @classmethod
    def from_dict(cls, data: dict, options: Any, record_type: Any) -> TableState:
        """The state stored by ``to_dict``; one stored before the table settings had no forced
        bids."""
        if "forced" not in data:
            data = {**data, "forced": 0}
        return super().from_dict(data, options, record_type)


@dataclass
class ExchangeRecord(Record):
    """One seat's exchange: the cards it gave (or put aside) and got, and whether its
    partnership exchanged for an ordinary Nil (``nil_exchange``) rather than a Double Nil."""

    seat: int
    gave: str
    got: str
    nil: bool = False


@dataclass
class SpadesHandRecord(HandRecord):
    """A finished Spades hand (either variant): bids, exchanges and each side's breakdown;
    ``forced`` per seat, whether the table's settings left its bid the only one it could make
    (a Mirror bid, say); ``losing_sides`` the sides the hand left at or below the losing score."""

    bids: list[int]
    exchanges: list[ExchangeRecord]
    sides: list[SideScore]
    forced: list[bool] = field(default_factory=list)
    losing_sides: list[int] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: dict) -> SpadesHandRecord:
        """The record from its stored form; one stored before the table settings has no ``forced``
        and reads as the hand it was: no bid forced (as replaying its log records it)."""
        record = super().from_dict(data)
        if not record.forced:
            record.forced = [False] * len(record.bids)
        return record


@dataclass
class SpadesRules:
    """What a Spades view shows beyond the common part (two-player Spades extends it)."""

    spades_broken: bool
    exchange_given: list[int]
    exchange_received: list[int]


@dataclass(frozen=True)
class SpadesSeat:
    """A seat's Spades facts: Double Nil bid, cards seen, exchange chosen, a bid it was left no
    choice over."""

    double_nil: bool
    has_looked: bool
    exchange_done: bool
    bid_forced: bool = False
