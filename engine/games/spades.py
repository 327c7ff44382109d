"""Spades for four players in two partnerships (seats 0+2 and 1+3), and the Spades rules
that two-player and Cutthroat Spades share: options, bidding values, trick play, spades broken,
scoring. The deal, the bidding with its looking step and the play are written for any number of
seats, each side a partnership of two (four players) or one player (Cutthroat Spades, three
players: ``engine.games.cutthroat_spades``); the size of a hand, the bids it allows and the
cards dealt come from the state's class (:class:`SpadesState`).

The table settings (RULES.md §1.1) are rule options like the others: jokers in the deck
(``trumps``), a minimum team bid, Suicide, Mirror and Whiz bidding, an exchange for Nil, failed
Nil tricks counting for the partner, Double Nil only when behind and a losing score. At their
defaults the game plays as the rule sheet says.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, TypeVar

from ..core.actions import CODE_BITS, CODE_MASK, DEAL, PLAY_CODE, PLAYS_BY_SUIT, Action, play
from ..core.cards import (
    BIG_JOKER,
    BITS,
    CARD_COUNT,
    CLUBS,
    DIAMONDS,
    HEARTS,
    LITTLE_JOKER,
    SPADES,
    SUIT_MASKS,
    card_list,
    card_name,
    cards_text,
    make_card,
)
from ..core.choices import ExchangeChoices
from ..core.dealing import Chance, deal_round_robin, open_hand
from ..core.errors import Reason
from ..core.hidden import Hidden, Place, filled, mask, public_cards, restore_table, shown_out
from ..core.options import GameOptions, Setting
from ..core.records import HandRecord, Record, record_base
from ..core.rules import check_cards, end_game_or_pass_deal, finish_trick, reject, require_turn, wrong_phase
from ..core.table import NO_BID, NO_CARD, NOBODY, Seat, TableState
from ..core.views import View, table_view
from ..game import ApplyStep, Game, LegalStep, game_of
from .spades_scoring import DOUBLE_NIL_BID, SideScore, spades_side, spades_winners
from .spades_words import DOUBLE_NIL, PHASES, REVEAL, WORDS, SpadesCode, bid
from .spades_words import SpadesPhase as Phase

NAME = "spades"
DECK = list(range(52))
BIDS = [bid(n) for n in range(14)]
SPADE_MASK = SUIT_MASKS[SPADES]
NON_SPADES = SUIT_MASKS[0] | SUIT_MASKS[1] | SUIT_MASKS[2]
_NOT_SPADES = ~SPADE_MASK
_LOWEST_SPADE = 13 * SPADES   # the plain deck's spades are the cards from here to 51
_CLUB_PLAYS, _DIAMOND_PLAYS, _HEART_PLAYS, _SPADE_PLAYS = PLAYS_BY_SUIT
_FOLLOW = tuple((13 * (c // 13), PLAYS_BY_SUIT[c // 13]) for c in range(52))
"""For each card led (the plain deck): where its suit's cards sit in a hand, and the PLAY actions
of every subset of them."""
_PLAY, _BID = PLAY_CODE, int(SpadesCode.BID)
_BID_PHASE, _EXCHANGE_PHASE, _PLAY_PHASE, _EXCHANGE_CODE = Phase.BID, Phase.EXCHANGE, Phase.PLAY, SpadesCode.EXCHANGE
_BETWEEN_HANDS = (Phase.DEAL, Phase.GAME_OVER)
"""Read once: an enum's member costs an attribute look-up on its class each time it is named."""

STANDARD = "standard"
TRUMPS = (STANDARD, "jokers", "jokers_deuces")
"""The values of the ``trumps`` option: the plain deck, or jokers in place of two deuces."""
SUICIDE, MIRROR, WHIZ = "suicide", "mirror", "whiz"
BIDDING = (STANDARD, SUICIDE, MIRROR, WHIZ)
"""The values of the ``bidding`` option."""
_TITLES = {SUICIDE: "Suicide", MIRROR: "Mirror", WHIZ: "Whiz"}
_COUNTED = {"jokers": " (the jokers count)", "jokers_deuces": " (the jokers and the 2D count)"}
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


# ---- the deck: trumps and jokers ----

@dataclass(frozen=True)
class Trumps:
    """The cards of one ``trumps`` option and how they play: each card's suit for following and
    its strength, the suits' masks, the deck, and the order a view lists a hand in.

    The deck is the game's deck for the option (``GAME.cards_for``): a deal's recorded chance, a
    prearranged deck, the hand's fairness commitment and its record all list the jokers
    themselves (``BJ``, ``LJ``), never the cards that left.
    """

    name: str
    deck: int                          # the cards dealt
    suit: tuple[int, ...]              # card -> the suit it follows as (a joker: spades)
    power: tuple[int, ...]             # card -> its strength in a trick (spades above every other suit)
    masks: tuple[int, int, int, int]   # suit -> the deck's cards that follow as it
    view_rank: tuple[int, ...]         # card -> its place in a view's hand (lowest first)

    @property
    def spades(self) -> int:
        """The cards that are spades (jokers, and the 2♦ in ``jokers_deuces``, included)."""
        return self.masks[SPADES]

    def winner(self, trick: Sequence[int]) -> int:
        """The index of the card that wins ``trick`` (in play order): the strongest spade, else
        the strongest card of the suit led."""
        suit, power = self.suit, self.power
        led = suit[trick[0]]
        best_i, best = 0, power[trick[0]]
        for i in range(1, len(trick)):
            c = trick[i]
            s = suit[c]
            if (s == led or s == SPADES) and power[c] > best:
                best_i, best = i, power[c]
        return best_i

    def in_view_order(self, cards: int) -> list[int]:
        """A hand as a view lists it: its spades from the highest (jokers first), then hearts,
        diamonds and clubs, each from the highest (the plain table: the canonical order)."""
        if self.name == STANDARD:
            return card_list(cards)
        return sorted(card_list(cards), key=self.view_rank.__getitem__)


def _trumps(name: str, removed: tuple[int, ...], high: tuple[int, ...]) -> Trumps:
    """The table of a ``trumps`` option: ``removed`` leave the deck for the Little and Big Jokers,
    ``high`` are the spades above the A♠, highest first."""
    deck = (1 << 52) - 1
    for c in removed:
        deck &= ~(1 << c)
    if removed:
        deck |= 1 << LITTLE_JOKER | 1 << BIG_JOKER
    suit = [c // 13 if c < 52 else SPADES for c in range(CARD_COUNT)]
    power = [c % 13 if c < 52 else 0 for c in range(CARD_COUNT)]
    for c in range(39, 52):
        power[c] += 100
    for i, c in enumerate(reversed(high)):
        suit[c] = SPADES
        power[c] = 113 + i
    masks = [0, 0, 0, 0]
    for c in range(CARD_COUNT):
        if deck >> c & 1:
            masks[suit[c]] |= 1 << c
    group = {SPADES: 0, HEARTS: 1, DIAMONDS: 2, CLUBS: 3}
    view_rank = tuple(group[suit[c]] * 1000 - power[c] for c in range(CARD_COUNT))
    return Trumps(name, deck, tuple(suit), tuple(power), (masks[0], masks[1], masks[2], masks[3]), view_rank)


_TWO = {letter: make_card(2, "CDHS".index(letter)) for letter in "CDHS"}
TRUMPS_TABLES = {
    STANDARD: _trumps(STANDARD, (), ()),
    "jokers": _trumps("jokers", (_TWO["C"], _TWO["D"]), (BIG_JOKER, LITTLE_JOKER)),
    "jokers_deuces": _trumps("jokers_deuces", (_TWO["C"], _TWO["H"]), (BIG_JOKER, LITTLE_JOKER, _TWO["D"], _TWO["S"])),
}
"""Each ``trumps`` option's cards and how they play."""


TRUMPS_CARDS = {name: tuple(card_list(table.deck)) for name, table in TRUMPS_TABLES.items()}
"""The cards dealt at a table of each ``trumps`` option (four-player Spades), lowest first."""


def trumps_of(options: Any) -> Trumps:
    """The cards of a table with these options (two-player and Cutthroat Spades: always the plain deck)."""
    return TRUMPS_TABLES[getattr(options, "trumps", STANDARD)]


def cards_for(options: SpadesOptions) -> tuple[int, ...]:
    """The cards of a four-player Spades game with these options: the 52, or with jokers in place
    of two deuces (``trumps``); a deal's chance and a prearranged deck list exactly these."""
    return TRUMPS_CARDS[options.trumps]


class SpadesState(TableState):
    """A four-player Spades game (two-player Spades extends it with the draw; Cutthroat Spades
    seats three, each a side of its own, and deals them 17 cards: the class says so)."""

    __slots__ = ("bids", "broken", "bags", "xneed", "xgiven", "xgot", "forced")
    options: SpadesOptions
    CARDS: ClassVar[tuple[int, ...]] = tuple(DECK)
    """The cards dealt at a table without jokers (with jokers: ``TRUMPS_CARDS``)."""
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


# ---- trick play (every Spades game) ----

def legal_play(state: SpadesState, seat: Seat) -> list[Action]:
    """PLAY actions open to a seat (the hot path of every simulation, so written out flat: a seat
    that follows suit takes its actions from one suit's table)."""
    if state.options.trumps != STANDARD:
        return _legal_play_jokers(state, seat)
    if seat != state.turn:
        return []
    hand = state.hands[seat]
    trick = state.trick_cards
    if trick:
        shift, plays = _FOLLOW[trick[0]]
        same = hand >> shift & 8191
        if same:
            return list(plays[same])
        mask = hand
    elif state.broken:
        mask = hand
    else:
        mask = hand & NON_SPADES
        if mask:
            return [*_CLUB_PLAYS[mask & 8191], *_DIAMOND_PLAYS[mask >> 13 & 8191], *_HEART_PLAYS[mask >> 26]]
        mask = hand
    return [*_CLUB_PLAYS[mask & 8191], *_DIAMOND_PLAYS[mask >> 13 & 8191], *_HEART_PLAYS[mask >> 26 & 8191],
            *_SPADE_PLAYS[mask >> 39]]


def _legal_play_jokers(state: SpadesState, seat: Seat) -> list[Action]:
    """PLAY actions open to a seat at a table with jokers (their spades are more than one suit's cards)."""
    if seat != state.turn:
        return []
    table = TRUMPS_TABLES[state.options.trumps]
    hand = state.hands[seat]
    trick = state.trick_cards
    if trick:
        mask = hand & table.masks[table.suit[trick[0]]] or hand
    elif state.broken:
        mask = hand
    else:
        mask = hand & ~table.masks[SPADES] or hand
    return [play(c) for c in card_list(mask)]


def apply_play(state: SpadesState, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """Play one card, closing the trick and the hand when they are complete (the hot path of every
    simulation: the action is taken apart inline, as ``kind_of`` and ``payload_of`` would)."""
    if action & CODE_MASK != _PLAY:
        wrong_phase(state, action)
    if seat != state.turn:
        require_turn(state, seat)
    card = action >> CODE_BITS
    if state.options.trumps != STANDARD:
        _play_jokers(state, seat, card)
        return None
    hands = state.hands
    hand = hands[seat]
    if card > 51 or not hand >> card & 1:
        reject(Reason.CARD_NOT_IN_HAND, _not_held(state, seat, card))
    trick = state.trick_cards
    if trick:
        led = trick[0] // 13
        if card // 13 != led:
            if hand & SUIT_MASKS[led]:
                reject(Reason.MUST_FOLLOW_SUIT,
                       f"{card_name(card)} does not follow {'CDHS'[led]} and seat {seat} holds one")
            state.voids |= 1 << (4 * seat + led)      # shown out of the led suit
            if card >= _LOWEST_SPADE:
                state.broken = True
    elif card >= _LOWEST_SPADE and not state.broken:
        if hand & _NOT_SPADES:
            reject(SpadesReason.SPADES_NOT_BROKEN, f"{card_name(card)} cannot be led before spades are broken")
        state.broken = True
        state.voids |= 7 << 4 * seat                   # leading an unbroken spade: it holds nothing else
    bit = BITS[card]
    hands[seat] = hand ^ bit
    state.played[seat] |= bit
    state.trick_seats.append(seat)
    trick.append(card)
    n = state.n
    if len(trick) < n:
        state.turn = (seat + 1) % n
        return None
    # the winner: the highest spade, else the highest card of the led suit (cards rank by number,
    # and the spades are the highest numbers): the highest card, unless it is off the led suit
    top = max(trick)
    if top < _LOWEST_SPADE and top // 13 != trick[0] // 13:
        led = trick[0] // 13
        top = max([c for c in trick if c // 13 == led])
    finish_trick(state, trick.index(top))
    if not any(hands):
        end_hand(state)
    return None


def _play_jokers(state: SpadesState, seat: Seat, card: int) -> None:
    """Play one card at a table with jokers: a joker (and in ``jokers_deuces`` the 2♦) is a spade
    for following, leading, breaking spades and showing out; the trick goes to the strongest."""
    table = TRUMPS_TABLES[state.options.trumps]
    hands = state.hands
    hand = hands[seat]
    if not 0 <= card < CARD_COUNT or not hand >> card & 1:
        reject(Reason.CARD_NOT_IN_HAND, _not_held(state, seat, card))
    suit = table.suit[card]
    trick = state.trick_cards
    if trick:
        led = table.suit[trick[0]]
        if suit != led:
            if hand & table.masks[led]:
                spade = " (a spade at this table)" if card < 52 and card // 13 != suit else ""
                reject(Reason.MUST_FOLLOW_SUIT,
                       f"{card_name(card)}{spade} does not follow {'CDHS'[led]} and seat {seat} holds one")
            state.voids |= 1 << (4 * seat + led)
            if suit == SPADES:
                state.broken = True
    elif suit == SPADES and not state.broken:
        if hand & ~table.masks[SPADES]:
            reject(SpadesReason.SPADES_NOT_BROKEN, f"{card_name(card)} cannot be led before spades are broken")
        state.broken = True
        state.voids |= 7 << 4 * seat
    bit = 1 << card
    hands[seat] = hand ^ bit
    state.played[seat] |= bit
    state.trick_seats.append(seat)
    trick.append(card)
    if len(trick) < state.n:
        state.turn = (seat + 1) % state.n
        return
    finish_trick(state, table.winner(trick))
    if not any(hands):
        end_hand(state)


def _not_held(state: SpadesState, seat: Seat, card: int) -> str:
    """Why a card is refused as not held: it is not held, or it is no card of this table."""
    if not 0 <= card < CARD_COUNT:
        return f"seat {seat} does not hold card #{card}"
    if not game_of(state.variant).deck_for(state.options) >> card & 1:
        return f"{card_name(card)} is not a card of this table's deck"
    return f"seat {seat} does not hold {card_name(card)}"


# ---- scoring and the next hand (every Spades game) ----

def end_hand(state: SpadesState) -> None:
    """Score the finished hand, record it, and either end the game or pass the deal."""
    options = state.options
    sides = []
    for side in range(state.sides):
        seats = state.seats_of(side)
        result = spades_side([state.bids[s] for s in seats], [state.tricks[s] for s in seats],
                             state.scores[side], state.bags[side], options.bag_limit, options.bag_penalty,
                             options.nil_value, options.double_nil_value, options.failed_nil_tricks_count)
        for nil, s in zip(result.nils, seats, strict=True):
            nil.seat = s
        result.side, result.seats = side, seats
        state.scores[side] = result.total_after
        state.bags[side] = result.bags_after
        sides.append(result)
    bids = state.bids
    exchanges = [ExchangeRecord(s, _text(state.xgiven[s]), _text(state.xgot[s]),
                                state.n == 4 and DOUBLE_NIL_BID not in (bids[s], bids[s ^ 2]))
                 for s in range(state.n) if state.xgiven[s] != NO_CARD]
    losing, forced = options.losing_score, state.forced
    state.records.append(SpadesHandRecord(
        **record_base(state), points=[r.hand_points for r in sides], totals=state.scores[:],
        bids=bids[:], exchanges=exchanges, sides=sides,
        forced=[bool(forced >> s & 1) for s in range(state.n)] if forced else [False] * state.n,
        losing_sides=[side for side in range(state.sides) if state.scores[side] <= -losing] if losing else []))
    state.winner = spades_winners(state.scores, options.target_score, losing)
    end_game_or_pass_deal(state)


def _text(mask: int) -> str:
    return cards_text(mask) if mask >= 0 else ""


# ---- Double Nil and the bids the table's settings allow (every Spades game) ----

def side_of(state: SpadesState, seat: Seat) -> int:
    """The scoring side of a seat (four players: its partnership; two or three players: itself)."""
    return seat % state.sides


def trailing(scores: Sequence[int], side: int) -> int:
    """How many points ``side`` trails the highest of the other sides by (negative: it leads them all).

    >>> trailing([100, 250], 0), trailing([100, 250, 40], 2), trailing([300, 250, 40], 0)
    (150, 210, -50)
    """
    return max(score for other, score in enumerate(scores) if other != side) - scores[side]


def deficit(state: SpadesState, seat: Seat) -> int:
    """How many points the seat's side trails the other side (of three players: the highest of the
    other two) by, negative when it leads; the totals do not change during a hand, so this is the
    deficit at the start of the hand."""
    return trailing(state.scores, side_of(state, seat))


def behind_enough(state: SpadesState, seat: Seat) -> bool:
    """Whether the seat's side trails by at least ``blind_nil_when_behind`` (0: always true)."""
    need = state.options.blind_nil_when_behind
    return need == 0 or deficit(state, seat) >= need


def blind_nil_possible(state: SpadesState, seat: Seat) -> bool:
    """Whether nothing known at the deal keeps the seat from Double Nil in this hand (it is on,
    the bidding rule has it, its side is far enough behind); a seat for which it is not possible
    sees its hand from the deal."""
    options = state.options
    return options.double_nil_allowed and options.bidding not in (MIRROR, WHIZ) and behind_enough(state, seat)


def not_behind_message(state: SpadesState, seat: Seat) -> str:
    """Why a side not far enough behind may not bid Double Nil, in a player's words (of three
    players, its gap is to the highest of the other two)."""
    need, gap = state.options.blind_nil_when_behind, deficit(state, seat)
    if state.n == 4:
        who = "a partnership trailing"
        where = f"yours trails by {gap}" if gap > 0 else f"yours leads by {-gap}" if gap < 0 else "yours is level"
    else:
        who = "a player trailing" if state.sides == 2 else "a player trailing the highest of the others"
        where = f"you trail by {gap}" if gap > 0 else f"you lead by {-gap}" if gap < 0 else "you are level"
    return f"Double Nil is allowed only to {who} by at least {need} points at the start of the hand: {where}"


def spades_in_hand(state: SpadesState, seat: Seat) -> int:
    """How many spades the seat holds (jokers, and the 2♦ in ``jokers_deuces``, included); before
    the bidding ends no card has changed hands, so this is its hand as dealt."""
    return (state.hands[seat] & TRUMPS_TABLES[state.options.trumps].spades).bit_count()


def _bid_word(tricks: int) -> str:
    return "Nil" if tricks == 0 else "Double Nil" if tricks == DOUBLE_NIL_BID else str(tricks)


def rule_refusal(options: SpadesOptions, tricks: int, partner: int, spades: int) -> str | None:
    """Why the bidding rule (Suicide, Mirror, Whiz) refuses a bid of ``tricks`` (0: Nil,
    ``DOUBLE_NIL_BID``: Double Nil) by a seat whose partner bid ``partner`` (``NO_BID``: not yet)
    and who holds ``spades`` spades; None when it allows it (as the standard rule always does)."""
    rule = options.bidding
    if rule == SUICIDE and partner != NO_BID:
        if partner > 0 and tricks > 0:
            return f"in Suicide one partner bids Nil: your partner bid {partner}, so you must bid Nil or Double Nil"
        if partner <= 0 and tricks <= 0:
            return (f"in Suicide only one partner bids Nil: your partner bid {_bid_word(partner)}, so you must bid "
                    "a number from 1 to 13")
    elif rule == MIRROR or rule == WHIZ:
        title = _TITLES[rule]
        if tricks == DOUBLE_NIL_BID:
            return f"there is no Double Nil in {title}"
        if tricks != spades and (rule == MIRROR or tricks != 0):
            held = f"you hold {spades} spade{'s' if spades != 1 else ''}" + _COUNTED.get(options.trumps, "")
            if rule == MIRROR:
                return f"in Mirror you bid the spades in your hand: {held}, so bid {_bid_word(spades)}"
            return f"in Whiz you bid Nil or the spades in your hand: {held}, so bid " + (
                "Nil" if spades == 0 else f"Nil or {spades}")
    return None


def minimum_refusal(options: SpadesOptions, tricks: int, partner: int) -> str | None:
    """Why ``min_team_bid`` refuses a bid of ``tricks`` by a seat whose partner bid ``partner``
    (it binds only the partnership's second bidder; Nil and Double Nil count 0); None when it
    does not."""
    minimum = options.min_team_bid
    if not minimum or partner == NO_BID:
        return None
    theirs = max(partner, 0)
    if theirs + max(tricks, 0) >= minimum:
        return None
    return (f"your partnership must bid at least {minimum} in all: your partner bid {_bid_word(partner)}, so bid at "
            f"least {minimum - theirs}")


def allowed_numbers(options: SpadesOptions, partner: int, spades: int, most: int = 13) -> list[int]:
    """The numbers (0: Nil) up to ``most`` a seat may bid, its partner having bid ``partner``
    (``NO_BID``: not yet, or no partner) and it holding ``spades`` spades.

    >>> allowed_numbers(SpadesOptions(bidding="whiz"), NO_BID, 4), allowed_numbers(SpadesOptions(min_team_bid=4), 1, 0)
    ([0, 4], [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13])
    """
    return [t for t in range(most + 1) if rule_refusal(options, t, partner, spades) is None
            and minimum_refusal(options, t, partner) is None]


def partner_bid(state: SpadesState, seat: Seat) -> int:
    """The bid of the seat's partner as the state keeps it (``NO_BID``: not yet, or no partner)."""
    return state.bids[seat ^ 2] if state.n == 4 else NO_BID


def bid_refusal(state: SpadesState, seat: Seat, tricks: int) -> tuple[StrEnum, str] | None:
    """Why the seat in turn may not bid ``tricks`` (0: Nil, ``DOUBLE_NIL_BID``: Double Nil) in
    four-player or Cutthroat Spades, as (reason, message); None when it may. Of several reasons the
    first of INVALID_BID, BID_NOT_ALLOWED, BLIND_NIL_NOT_BEHIND, BLIND_NIL_AFTER_LOOKING,
    BID_BELOW_MINIMUM."""
    options = state.options
    double = tricks == DOUBLE_NIL_BID
    if double:
        if not options.double_nil_allowed:
            return Reason.INVALID_BID, "Double Nil is switched off in this game"
        if state.bids[seat] == DOUBLE_NIL_BID:
            return Reason.INVALID_BID, f"seat {seat} has already declared Double Nil"
    elif not 0 <= tricks <= state.MOST_BID:
        return Reason.INVALID_BID, f"a bid is 0 (Nil) to {state.MOST_BID} tricks, not {tricks}"
    partner = partner_bid(state, seat)
    if options.bidding != STANDARD:
        refused = rule_refusal(options, tricks, partner, spades_in_hand(state, seat))
        if refused is not None:
            return SpadesReason.BID_NOT_ALLOWED, refused
    if double:
        if not behind_enough(state, seat):
            return SpadesReason.BLIND_NIL_NOT_BEHIND, not_behind_message(state, seat)
        if state.looked >> seat & 1:
            return SpadesReason.BLIND_NIL_AFTER_LOOKING, f"seat {seat} has seen its cards"
    refused = minimum_refusal(options, tricks, partner)
    if refused is not None:
        return SpadesReason.BID_BELOW_MINIMUM, refused
    return None


def _plain_bidding(options: SpadesOptions) -> bool:
    """Whether the bids are the rule sheet's: any number, Double Nil as the sheet has it."""
    return options.bidding == STANDARD and not options.min_team_bid and not options.blind_nil_when_behind


def bids_allowed(state: SpadesState, seat: Seat) -> list[Action]:
    """The bids (numbers, then Double Nil) the seat in turn may make (four-player and Cutthroat Spades)."""
    bids = state.BIDS
    if _plain_bidding(state.options):
        out = list(bids)
        if state.options.double_nil_allowed and not state.looked >> seat & 1:
            out.append(DOUBLE_NIL)
        return out
    out = [bids[t] for t in range(state.MOST_BID + 1) if bid_refusal(state, seat, t) is None]
    if bid_refusal(state, seat, DOUBLE_NIL_BID) is None:
        out.append(DOUBLE_NIL)
    return out


# ---- the flow of four-player (and Cutthroat) Spades: deal, look and bid, exchange, play ----

def legal_bid(state: SpadesState, seat: Seat) -> list[Action]:
    """Looking (any seat that has not bid) and bidding (the seat in turn)."""
    looked = state.looked >> seat & 1
    may_look = not looked and state.bids[seat] == NO_BID
    if seat != state.turn:
        return [REVEAL] if may_look else []
    options = state.options
    if options.bidding == STANDARD and not options.min_team_bid and not options.blind_nil_when_behind:
        bids = state.BIDS                              # the sheet's bidding (as bids_allowed gives it)
        if options.double_nil_allowed and not looked:
            return [REVEAL, *bids, DOUBLE_NIL] if may_look else [*bids, DOUBLE_NIL]
        return [REVEAL, *bids] if may_look else list(bids)
    out = [REVEAL] if may_look else []
    out.extend(bids_allowed(state, seat))
    return out


def legal_deal(state: SpadesState, seat: Seat) -> list[Action]:
    """DEAL for the dealer."""
    return [DEAL] if seat == state.turn else []


def exchange_size(options: SpadesOptions, mine: int, partners: int) -> int:
    """How many cards a partnership with these bids exchanges after the bidding: ``exchange_size``
    when exactly one partner bid Double Nil, else ``nil_exchange`` when exactly one bid Nil, else
    none (both bid Nil or Double Nil, or neither did).

    >>> options = SpadesOptions(nil_exchange=2)
    >>> [exchange_size(options, *bids) for bids in ((DOUBLE_NIL_BID, 4), (DOUBLE_NIL_BID, 0), (0, 4), (0, 0), (5, 4))]
    [3, 3, 2, 0, 0]
    """
    double = (mine == DOUBLE_NIL_BID) + (partners == DOUBLE_NIL_BID)
    if double == 1:
        return options.exchange_size
    if double == 0 and (mine == 0) != (partners == 0):
        return options.nil_exchange
    return 0


def exchange_choice(state: SpadesState, seat: Seat) -> tuple[int, int, int, int] | None:
    """(eligible cards, fewest, most, the exchange's code) this seat may give in the exchange, or None."""
    if state.phase != _EXCHANGE_PHASE or not state.xneed >> seat & 1:
        return None
    k = exchange_size(state.options, state.bids[seat], state.bids[seat ^ 2])
    return state.hands[seat], k, k, _EXCHANGE_CODE


def exchange_actions(state: SpadesState, seat: Seat) -> Sequence[Action]:
    """Every EXCHANGE action open to a seat, one per choice of cards."""
    return exchange_actions_for(exchange_choice(state, seat))


def exchange_actions_for(choice: tuple[int, int, int, int] | None) -> Sequence[Action]:
    """The EXCHANGE actions allowed by an (eligible, fewest, most, code) rule, as a lazy sequence."""
    if choice is None:
        return []
    return ExchangeChoices(*choice)


def apply_deal(state: SpadesState, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """The dealer shuffles and deals the whole deck (13 cards each; Cutthroat Spades: 17 each),
    jokers included at a table with them; bidding starts left of the dealer. A seat that may not
    bid Double Nil this hand sees its cards at once."""
    options = state.options
    cards = state.CARDS if options.trumps == STANDARD else TRUMPS_CARDS[options.trumps]
    deck, chance = open_hand(state, seat, action, cards, rng, chance)
    deal_round_robin(state, deck, len(deck))
    n = state.n
    state.phase = _BID_PHASE
    state.turn = (state.dealer + 1) % n
    if not options.double_nil_allowed or options.bidding != STANDARD or options.blind_nil_when_behind:
        state.looked = sum(1 << s for s in range(n) if not blind_nil_possible(state, s))
    return chance


def apply_bid(state: SpadesState, seat: Seat, action: Action, rng: random.Random,
              chance: Chance | None = None) -> Chance | None:
    """Look at one's hand, or bid in turn (a number, Nil, or Double Nil before looking), as the
    table's settings allow."""
    if action == REVEAL:
        reveal(state, seat)
        return None
    kind = action & CODE_MASK
    if kind != _BID and action != DOUBLE_NIL:
        wrong_phase(state, action)
    if seat != state.turn:
        require_turn(state, seat)
    tricks = action >> CODE_BITS if kind == _BID else DOUBLE_NIL_BID
    options = state.options
    plain = options.bidding == STANDARD and not options.min_team_bid and not options.blind_nil_when_behind
    if not (plain and kind == _BID and 0 <= tricks <= state.MOST_BID):   # the sheet's bidding takes any number
        refusal = bid_refusal(state, seat, tricks)
        if refusal is not None:
            reject(*refusal)
        if not plain and len(bids_allowed(state, seat)) == 1:
            state.forced |= 1 << seat
    state.bids[seat] = tricks
    if kind == _BID:
        state.looked |= 1 << seat
    state.calls[seat] = action
    n = state.n
    state.turn = (seat + 1) % n
    if state.turn == (state.dealer + 1) % n:
        end_bidding(state)
    return None


def reveal(state: SpadesState, seat: Seat) -> None:
    """Show a seat its hand during the bidding (it can no longer bid Double Nil)."""
    if not 0 <= seat < state.n:
        reject(Reason.NOT_YOUR_TURN, f"there is no seat {seat}")
    if state.looked >> seat & 1 or state.bids[seat] != NO_BID:
        reject(Reason.WRONG_PHASE, f"seat {seat} already sees its hand")
    state.looked |= 1 << seat


def end_bidding(state: SpadesState) -> None:
    """Show every hand, then open the partners' exchanges (Double Nil, and Nil with
    ``nil_exchange``) or start play (Cutthroat Spades has no partners: it always starts play)."""
    n = state.n
    state.looked = (1 << n) - 1
    state.turn = NOBODY
    bids, options = state.bids, state.options
    if n == 4:
        for a in (0, 1):
            mine, partners = bids[a], bids[a + 2]
            if (mine <= 0 or partners <= 0) and exchange_size(options, mine, partners) > 0:   # a Nil or Double Nil
                state.xneed |= 1 << a | 1 << (a + 2)
    if state.xneed:
        state.phase = _EXCHANGE_PHASE
    else:
        start_play(state, (state.dealer + 1) % n)


def apply_exchange(state: SpadesState, seat: Seat, action: Action, rng: random.Random,
                   chance: Chance | None = None) -> Chance | None:
    """Choose the cards to give one's partner; the swap happens once both have chosen."""
    if action & CODE_MASK != _EXCHANGE_CODE:
        wrong_phase(state, action)
    if not state.xneed >> seat & 1:
        if state.xgiven[seat] != NO_CARD:
            reject(Reason.NOT_YOUR_TURN, f"seat {seat} has already chosen its cards")
        reject(Reason.NOT_YOUR_TURN, f"seat {seat} takes no part in this exchange")
    k = exchange_size(state.options, state.bids[seat], state.bids[seat ^ 2])
    mask = check_cards(state, seat, action, k, k)
    state.xgiven[seat] = mask
    state.xneed &= ~(1 << seat)
    partner = seat ^ 2
    if state.xgiven[partner] != NO_CARD:
        theirs = state.xgiven[partner]
        state.hands[seat] = state.hands[seat] & ~mask | theirs
        state.hands[partner] = state.hands[partner] & ~theirs | mask
        state.xgot[seat], state.xgot[partner] = theirs, mask
    if not state.xneed:
        start_play(state, (state.dealer + 1) % 4)
    return None


def start_play(state: SpadesState, leader: Seat) -> None:
    """Open trick play with ``leader`` to lead."""
    state.phase = _PLAY_PHASE
    state.turn = leader


def spades_seat(state: SpadesState, s: Seat) -> SpadesSeat:
    """The Spades facts about seat ``s`` that every viewer may see."""
    return SpadesSeat(state.bids[s] == DOUBLE_NIL_BID, bool(state.looked >> s & 1), state.xgiven[s] != NO_CARD,
                      bool(state.forced >> s & 1))


def spades_view(state: SpadesState, seat: Seat | None, legal: Sequence[Action],
                exchange: tuple[int, int, int, int] | None) -> View:
    """The common view with the Spades per-seat facts, before the variant's own part; at a table
    with jokers the viewer's hand is listed spades first, each suit from its highest card."""
    v = table_view(state, seat, legal, exchange, state.bids, state.bags)
    for info in v.seats:
        info.rules = spades_seat(state, info.seat)
    if v.hand and state.options.trumps != STANDARD:
        v.hand = TRUMPS_TABLES[state.options.trumps].in_view_order(mask(v.hand))
    return v


def exchanged(state: SpadesState, seat: Seat | None) -> tuple[list[int], list[int]]:
    """The cards ``seat`` gave and got in this hand's exchange (nothing for a spectator)."""
    if seat is None or state.xgiven[seat] == NO_CARD:
        return [], []
    return card_list(state.xgiven[seat]), card_list(state.xgot[seat])


def view(state: SpadesState, seat: Seat | None) -> View:
    """What ``seat`` (None: a spectator) may know of a four-player (or Cutthroat) Spades game."""
    if seat is None:
        v = spades_view(state, None, [], None)
    else:
        step = LEGAL.get(state.phase)
        v = spades_view(state, seat, step(state, seat) if step else [], exchange_choice(state, seat))
    v.rules = SpadesRules(state.broken, *exchanged(state, seat))
    return v


# ---- determinizing: the hidden cards of a seat's view, and states built from a view ----

FULL_DECK = (1 << 52) - 1


def view_bids(view: View) -> list[int]:
    """Each seat's bid as the state keeps it (Double Nil and no bid included), from a view."""
    return [info.bid if info.bid is not None else DOUBLE_NIL_BID if info.rules.double_nil else NO_BID
            for info in view.seats]


def exchanging(view: View) -> int:
    """Bit per seat: the seat takes part in this hand's exchange (four-player Spades; once every
    seat has bid; none without partners)."""
    if len(view.seats) != 4:
        return 0
    bids = view_bids(view)
    return sum(15 & (5 << a) for a in (0, 1) if exchange_size(view.options, bids[a], bids[a + 2]) > 0)


def hidden(view: View) -> Hidden:
    """The cards the viewer cannot see: the other hands (its own until it looks), and during the
    exchange the cards a seat has chosen to give but not yet swapped."""
    me = view.viewer
    assert me is not None
    rules: SpadesRules = view.rules
    hand = mask(view.hand)
    known = hand | public_cards(view)
    given, received = mask(rules.exchange_given), mask(rules.exchange_received)
    partner_holds = given & ~known if received else 0   # what I gave is in my partner's hand now
    table = trumps_of(view.options)
    deck = game_of(view.variant).deck_for(view.options)
    unknown = deck & ~known & ~partner_holds if view.phase not in _BETWEEN_HANDS else 0
    places = []
    bids = view_bids(view)
    for info in view.seats:
        s = info.seat
        count = info.card_count
        if s == me:
            if view.hand is None and count:
                places.append(Place("hand", s, count, unknown))
            continue
        allowed = unknown & ~shown_out(view, s, table.masks)
        if s == me ^ 2:
            count -= partner_holds.bit_count()
        if _gift_pending(view, s):
            k = exchange_size(view.options, bids[s], bids[s ^ 2])
            places.append(Place("gift", s, k, allowed))
            count -= k
        if count:
            places.append(Place("hand", s, count, allowed))
    return Hidden(unknown, tuple(places))


def _gift_pending(view: View, s: Seat) -> bool:
    """Whether ``s`` has chosen its exchange cards and is waiting for its partner to choose."""
    seats = view.seats
    return view.phase == _EXCHANGE_PHASE and seats[s].rules.exchange_done and not seats[s ^ 2].rules.exchange_done


S = TypeVar("S", bound=SpadesState)


def restore_spades(state: S, view: View) -> S:
    """Set the Spades fields both variants share (bids, spades broken, bags, looking) from a view."""
    restore_table(state, view)
    state.bids = view_bids(view)
    state.broken = view.rules.spades_broken
    state.bags = [side.bags for side in view.sides]
    state.looked = sum(1 << info.seat for info in view.seats if info.rules.has_looked)
    state.forced = sum(1 << info.seat for info in view.seats if info.rules.bid_forced)
    return state


def determinize(view: View, places: Hidden, fills: Sequence[Sequence[int]]) -> SpadesState:
    """The four-player (or Cutthroat) Spades state of ``view`` with the places of ``places`` (its
    ``hidden``) holding ``fills``."""
    me = view.viewer
    assert me is not None
    fresh = game_of(view.variant).new_state(view.options, view.dealer)
    assert isinstance(fresh, SpadesState)
    state = restore_spades(fresh, view)
    got = filled(places, fills)
    rules: SpadesRules = view.rules
    given, received = mask(rules.exchange_given), mask(rules.exchange_received)
    hand = mask(view.hand)
    known = public_cards(view) | hand
    n = state.n
    seen = view.hand is not None
    for s in range(n):
        state.hands[s] = hand if s == me and seen else mask(got.get(("hand", s))) | mask(got.get(("gift", s)))
    if received:
        state.hands[me ^ 2] |= given & ~known
    exchange = exchanging(view)
    for info in view.seats:
        s = info.seat
        if not info.rules.exchange_done:
            continue
        if s == me:
            state.xgiven[s], state.xgot[s] = given, received
        elif _gift_pending(view, s):
            state.xgiven[s] = mask(got[("gift", s)])
        elif s == me ^ 2:
            state.xgiven[s], state.xgot[s] = received, given
        else:
            state.xgiven[s] = 0        # swapped between the other two: which cards is never shown
    if view.phase == _EXCHANGE_PHASE:
        state.xneed = sum(1 << s for s in range(n) if exchange >> s & 1 and not view.seats[s].rules.exchange_done)
    return state


APPLY: dict[int, ApplyStep] = {Phase.DEAL: apply_deal, Phase.BID: apply_bid, Phase.EXCHANGE: apply_exchange,
         Phase.PLAY: apply_play}
LEGAL: dict[int, LegalStep] = {Phase.DEAL: legal_deal, Phase.BID: legal_bid, Phase.EXCHANGE: exchange_actions,
         Phase.PLAY: legal_play}


def new_state(options: SpadesOptions, first_dealer: Seat) -> SpadesState:
    """A four-player Spades game before its first deal."""
    return SpadesState(NAME, options, 4, 2, first_dealer)


GAME = Game(name=NAME, seats=4, cards=tuple(DECK), options_type=SpadesOptions, state_type=SpadesState,
            record_type=SpadesHandRecord, new_state=new_state, legal=LEGAL, apply=APPLY, view=view,
            bags=lambda state: state.bags[:], hidden=hidden, determinize=determinize, title="Spades",
            reasons=SpadesReason, words=WORDS, phases=PHASES, cards_for=cards_for)
