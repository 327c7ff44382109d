"""Spades for four players in two partnerships (seats 0+2 and 1+3), and the Spades rules
that two-player Spades shares: options, bidding values, trick play, spades broken, scoring."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

from ..core.actions import DEAL, PLAY_CODE, PLAYS_BY_SUIT, Action, kind_of, payload_of
from ..core.cards import BITS, SPADES, SUIT_MASKS, card_list, card_name, cards_text
from ..core.choices import ExchangeChoices
from ..core.dealing import Chance, deal_round_robin, open_hand
from ..core.errors import Reason
from ..core.hidden import Hidden, Place, filled, mask, public_cards, restore_table, shown_out
from ..core.options import GameOptions, Setting
from ..core.records import HandRecord, Record, record_base
from ..core.rules import check_cards, end_game_or_pass_deal, finish_trick, reject, require_turn, wrong_phase
from ..core.table import NO_BID, NO_CARD, NOBODY, Seat, TableState
from ..core.views import View, table_view
from ..game import ApplyStep, Game, LegalStep
from .spades_scoring import DOUBLE_NIL_BID, SideScore, spades_side, spades_winners
from .spades_words import DOUBLE_NIL, PHASES, REVEAL, WORDS, SpadesCode, bid
from .spades_words import SpadesPhase as Phase

NAME = "spades"
DECK = list(range(52))
BIDS = [bid(n) for n in range(14)]
SPADE_MASK = SUIT_MASKS[SPADES]
NON_SPADES = SUIT_MASKS[0] | SUIT_MASKS[1] | SUIT_MASKS[2]
_CLUB_PLAYS, _DIAMOND_PLAYS, _HEART_PLAYS, _SPADE_PLAYS = PLAYS_BY_SUIT
_PLAY, _BID = PLAY_CODE, int(SpadesCode.BID)


class SpadesReason(StrEnum):
    """The reason codes of both Spades games beyond the core's (RULES.md)."""

    SPADES_NOT_BROKEN = "SPADES_NOT_BROKEN"
    BLIND_NIL_AFTER_LOOKING = "BLIND_NIL_AFTER_LOOKING"


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
            "this many put aside (two players).", low=0, high=4),
)
"""Every Spades setting, with the range real tables use (and, with the hands cap ``MAX_HANDS``,
small enough that no score can leave a 32-bit integer)."""
SPADES_RANGES = {s.name: (s.low, s.high) for s in SPADES_SETTINGS if s.kind == "integer"}
"""The accepted range of each numeric Spades option."""


@dataclass(frozen=True)
class SpadesOptions(GameOptions):
    """Options of both Spades variants (two-player Spades applies them per player)."""

    SETTINGS = SPADES_SETTINGS

    target_score: int = 500
    bag_limit: int = 10
    bag_penalty: int = 100
    nil_value: int = 100
    double_nil_value: int = 200
    double_nil_allowed: bool = True
    exchange_size: int = 3


class SpadesState(TableState):
    """A four-player Spades game (two-player Spades extends it with the draw)."""

    __slots__ = ("bids", "broken", "bags", "xneed", "xgiven", "xgot")
    options: SpadesOptions

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

    def seats_of(self, side: int) -> list[Seat]:
        """The seats of a partnership."""
        return [side, side + 2]


@dataclass
class ExchangeRecord(Record):
    """One seat's Double Nil exchange: the cards it gave (or put aside) and got."""

    seat: int
    gave: str
    got: str


@dataclass
class SpadesHandRecord(HandRecord):
    """A finished Spades hand (either variant): bids, exchanges and each side's breakdown."""

    bids: list[int]
    exchanges: list[ExchangeRecord]
    sides: list[SideScore]


@dataclass
class SpadesRules:
    """What a Spades view shows beyond the common part (two-player Spades extends it)."""

    spades_broken: bool
    exchange_given: list[int]
    exchange_received: list[int]


@dataclass(frozen=True)
class SpadesSeat:
    """A seat's Spades facts: Double Nil bid, cards seen, exchange chosen."""

    double_nil: bool
    has_looked: bool
    exchange_done: bool


# ---- trick play (both Spades variants) ----

def legal_play(state: SpadesState, seat: Seat) -> list[Action]:
    """PLAY actions open to a seat (the hot path of every simulation, so written out flat)."""
    if seat != state.turn:
        return []
    hand = state.hands[seat]
    trick = state.trick_cards
    if trick:
        mask = hand & SUIT_MASKS[trick[0] // 13] or hand
    elif state.broken:
        mask = hand
    else:
        mask = hand & NON_SPADES or hand
    return [*_CLUB_PLAYS[mask & 8191], *_DIAMOND_PLAYS[mask >> 13 & 8191], *_HEART_PLAYS[mask >> 26 & 8191],
            *_SPADE_PLAYS[mask >> 39]]


def apply_play(state: SpadesState, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """Play one card, closing the trick and the hand when they are complete."""
    if kind_of(action) != _PLAY:
        wrong_phase(state, action)
    if seat != state.turn:
        require_turn(state, seat)
    card = payload_of(action)
    hands = state.hands
    hand = hands[seat]
    if card > 51 or not hand >> card & 1:
        reject(Reason.CARD_NOT_IN_HAND, f"seat {seat} does not hold {_name(card)}")
    suit = card // 13
    trick = state.trick_cards
    if trick:
        led = trick[0] // 13
        if suit != led:
            if hand & SUIT_MASKS[led]:
                reject(Reason.MUST_FOLLOW_SUIT,
                       f"{card_name(card)} does not follow {'CDHS'[led]} and seat {seat} holds one")
            state.voids |= 1 << (4 * seat + led)      # shown out of the led suit
            if suit == SPADES:
                state.broken = True
    elif suit == SPADES and not state.broken:
        if hand & ~SPADE_MASK:
            reject(SpadesReason.SPADES_NOT_BROKEN, f"{card_name(card)} cannot be led before spades are broken")
        state.broken = True
        state.voids |= 7 << 4 * seat                   # leading an unbroken spade: it holds nothing else
    bit = 1 << card
    hands[seat] = hand ^ bit
    state.played[seat] |= bit
    state.trick_seats.append(seat)
    trick.append(card)
    n = state.n
    if len(trick) < n:
        state.turn = (seat + 1) % n
        return None
    # the winner: the highest spade, else the highest card of the led suit (cards rank by number)
    if n == 4:
        a, b, c, d = trick
        cards = BITS[a] | BITS[b] | BITS[c] | BITS[d]
    else:
        a, b = trick
        cards = BITS[a] | BITS[b]
    high = cards & SPADE_MASK or cards & SUIT_MASKS[a // 13]
    finish_trick(state, trick.index(high.bit_length() - 1))
    if not any(hands):
        end_hand(state)
    return None


def _name(card: int) -> str:
    return card_name(card) if 0 <= card < 52 else f"card #{card}"


# ---- scoring and the next hand (both Spades variants) ----

def end_hand(state: SpadesState) -> None:
    """Score the finished hand, record it, and either end the game or pass the deal."""
    options = state.options
    sides = []
    for side in range(state.sides):
        seats = state.seats_of(side)
        result = spades_side([state.bids[s] for s in seats], [state.tricks[s] for s in seats],
                             state.scores[side], state.bags[side], options.bag_limit, options.bag_penalty,
                             options.nil_value, options.double_nil_value)
        for nil, s in zip(result.nils, seats, strict=True):
            nil.seat = s
        result.side, result.seats = side, seats
        state.scores[side] = result.total_after
        state.bags[side] = result.bags_after
        sides.append(result)
    exchanges = [ExchangeRecord(s, _text(state.xgiven[s]), _text(state.xgot[s]))
                 for s in range(state.n) if state.xgiven[s] != NO_CARD]
    state.records.append(SpadesHandRecord(
        **record_base(state), points=[r.hand_points for r in sides], totals=state.scores[:],
        bids=state.bids[:], exchanges=exchanges, sides=sides))
    state.winner = spades_winners(state.scores, options.target_score)
    end_game_or_pass_deal(state)


def _text(mask: int) -> str:
    return cards_text(mask) if mask >= 0 else ""


# ---- four-player flow ----

def legal_bid(state: SpadesState, seat: Seat) -> list[Action]:
    """Looking (any seat that has not bid) and bidding (the seat in turn)."""
    out = []
    looked = state.looked >> seat & 1
    if not looked and state.bids[seat] == NO_BID:
        out.append(REVEAL)
    if seat == state.turn:
        out.extend(BIDS)
        if state.options.double_nil_allowed and not looked:
            out.append(DOUBLE_NIL)
    return out


def legal_deal(state: SpadesState, seat: Seat) -> list[Action]:
    """DEAL for the dealer."""
    return [DEAL] if seat == state.turn else []


def exchange_choice(state: SpadesState, seat: Seat) -> tuple[int, int, int, int] | None:
    """(eligible cards, fewest, most, the exchange's code) this seat may give in the exchange, or None."""
    if state.phase != Phase.EXCHANGE or not state.xneed >> seat & 1:
        return None
    k = state.options.exchange_size
    return state.hands[seat], k, k, SpadesCode.EXCHANGE


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
    """The dealer shuffles and deals 13 cards to each player; bidding starts left of the dealer."""
    deck, chance = open_hand(state, seat, action, DECK, rng, chance)
    deal_round_robin(state, deck, 52)
    state.phase = Phase.BID
    state.turn = (state.dealer + 1) % 4
    return chance


def apply_bid(state: SpadesState, seat: Seat, action: Action, rng: random.Random,
              chance: Chance | None = None) -> Chance | None:
    """Look at one's hand, or bid in turn (a number, Nil, or Double Nil before looking)."""
    kind = kind_of(action)
    if action == REVEAL:
        reveal(state, seat)
        return None
    if kind != _BID and action != DOUBLE_NIL:
        wrong_phase(state, action)
    require_turn(state, seat)
    if kind == _BID:
        tricks = payload_of(action)
        if not 0 <= tricks <= 13:
            reject(Reason.INVALID_BID, f"a bid is 0 (Nil) to 13 tricks, not {tricks}")
        state.bids[seat] = tricks
        state.looked |= 1 << seat
    else:
        check_double_nil(state, seat)
        state.bids[seat] = DOUBLE_NIL_BID
    state.calls[seat] = action
    state.turn = (seat + 1) % 4
    if state.turn == (state.dealer + 1) % 4:
        end_bidding(state)
    return None


def reveal(state: SpadesState, seat: Seat) -> None:
    """Show a seat its hand during the bidding (it can no longer bid Double Nil)."""
    if not 0 <= seat < state.n:
        reject(Reason.NOT_YOUR_TURN, f"there is no seat {seat}")
    if state.looked >> seat & 1 or state.bids[seat] != NO_BID:
        reject(Reason.WRONG_PHASE, f"seat {seat} already sees its hand")
    state.looked |= 1 << seat


def check_double_nil(state: SpadesState, seat: Seat) -> None:
    """Reject Double Nil when the options forbid it or the seat has seen its cards."""
    if not state.options.double_nil_allowed:
        reject(Reason.INVALID_BID, "Double Nil is switched off in this game")
    if state.bids[seat] == DOUBLE_NIL_BID:
        reject(Reason.INVALID_BID, f"seat {seat} has already declared Double Nil")
    if state.looked >> seat & 1:
        reject(SpadesReason.BLIND_NIL_AFTER_LOOKING, f"seat {seat} has seen its cards")


def end_bidding(state: SpadesState) -> None:
    """Show every hand, then open the Double Nil exchanges or start play."""
    state.looked = 15
    state.turn = NOBODY
    bids = state.bids
    if state.options.exchange_size > 0:
        for a in (0, 1):
            if (bids[a] == DOUBLE_NIL_BID) != (bids[a + 2] == DOUBLE_NIL_BID):
                state.xneed |= 1 << a | 1 << (a + 2)
    if state.xneed:
        state.phase = Phase.EXCHANGE
    else:
        start_play(state, (state.dealer + 1) % 4)


def apply_exchange(state: SpadesState, seat: Seat, action: Action, rng: random.Random,
                   chance: Chance | None = None) -> Chance | None:
    """Choose the cards to give one's partner; the swap happens once both have chosen."""
    if kind_of(action) != SpadesCode.EXCHANGE:
        wrong_phase(state, action)
    if not state.xneed >> seat & 1:
        if state.xgiven[seat] != NO_CARD:
            reject(Reason.NOT_YOUR_TURN, f"seat {seat} has already chosen its cards")
        reject(Reason.NOT_YOUR_TURN, f"seat {seat} takes no part in this exchange")
    k = state.options.exchange_size
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
    state.phase = Phase.PLAY
    state.turn = leader


def spades_seat(state: SpadesState, s: Seat) -> SpadesSeat:
    """The Spades facts about seat ``s`` that every viewer may see."""
    return SpadesSeat(state.bids[s] == DOUBLE_NIL_BID, bool(state.looked >> s & 1), state.xgiven[s] != NO_CARD)


def spades_view(state: SpadesState, seat: Seat | None, legal: Sequence[Action],
                exchange: tuple[int, int, int, int] | None) -> View:
    """The common view with the Spades per-seat facts, before the variant's own part."""
    v = table_view(state, seat, legal, exchange, state.bids, state.bags)
    for info in v.seats:
        info.rules = spades_seat(state, info.seat)
    return v


def exchanged(state: SpadesState, seat: Seat | None) -> tuple[list[int], list[int]]:
    """The cards ``seat`` gave and got in this hand's exchange (nothing for a spectator)."""
    if seat is None or state.xgiven[seat] == NO_CARD:
        return [], []
    return card_list(state.xgiven[seat]), card_list(state.xgot[seat])


def view(state: SpadesState, seat: Seat | None) -> View:
    """What ``seat`` (None: a spectator) may know of a four-player Spades game."""
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
    """Bit per seat: the seat takes part in this hand's Double Nil exchange (four-player Spades)."""
    if view.options.exchange_size <= 0:
        return 0
    dn = [info.rules.double_nil for info in view.seats]
    return sum(15 & (5 << a) for a in (0, 1) if dn[a] != dn[a + 2])


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
    unknown = FULL_DECK & ~known & ~partner_holds if view.phase not in (Phase.DEAL, Phase.GAME_OVER) else 0
    places = []
    k = view.options.exchange_size
    for info in view.seats:
        s = info.seat
        count = info.card_count
        if s == me:
            if view.hand is None and count:
                places.append(Place("hand", s, count, unknown))
            continue
        allowed = unknown & ~shown_out(view, s, SUIT_MASKS)
        if s == me ^ 2:
            count -= partner_holds.bit_count()
        if _gift_pending(view, s):
            places.append(Place("gift", s, k, allowed))
            count -= k
        if count:
            places.append(Place("hand", s, count, allowed))
    return Hidden(unknown, tuple(places))


def _gift_pending(view: View, s: Seat) -> bool:
    """Whether ``s`` has chosen its exchange cards and is waiting for its partner to choose."""
    seats = view.seats
    return view.phase == Phase.EXCHANGE and seats[s].rules.exchange_done and not seats[s ^ 2].rules.exchange_done


S = TypeVar("S", bound=SpadesState)


def restore_spades(state: S, view: View) -> S:
    """Set the Spades fields both variants share (bids, spades broken, bags, looking) from a view."""
    restore_table(state, view)
    state.bids = view_bids(view)
    state.broken = view.rules.spades_broken
    state.bags = [side.bags for side in view.sides]
    state.looked = sum(1 << info.seat for info in view.seats if info.rules.has_looked)
    return state


def determinize(view: View, places: Hidden, fills: Sequence[Sequence[int]]) -> SpadesState:
    """The four-player Spades state of ``view`` with the places of ``places`` (its ``hidden``) holding ``fills``."""
    me = view.viewer
    assert me is not None
    state = restore_spades(new_state(view.options, view.dealer), view)
    got = filled(places, fills)
    rules: SpadesRules = view.rules
    given, received = mask(rules.exchange_given), mask(rules.exchange_received)
    known = public_cards(view) | mask(view.hand)
    for s in range(4):
        cards = mask(got.get(("hand", s))) | mask(got.get(("gift", s)))
        state.hands[s] = mask(view.hand) if s == me and view.hand is not None else cards
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
    if view.phase == Phase.EXCHANGE:
        state.xneed = sum(1 << s for s in range(4) if exchange >> s & 1 and not view.seats[s].rules.exchange_done)
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
            reasons=SpadesReason, words=WORDS, phases=PHASES)
