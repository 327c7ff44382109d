"""Buck Euchre: four players each for themselves, 24 cards, a turn-up, two trump rounds,
staying in or dropping out, and scores counting down from 25 to 0."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import NoReturn

from ..core.actions import DEAL, PLAY_CODE, Action, kind_of, payload_of, play_actions
from ..core.cards import CLUBS, SUIT_LETTERS, SUITS, card_list, card_name, cards_text
from ..core.dealing import Chance, deal_round_robin, open_hand
from ..core.errors import Reason
from ..core.hidden import Hidden, public_cards
from ..core.options import GameOptions, Setting
from ..core.records import HandRecord, Record, record_base
from ..core.rules import (
    best_side,
    check_cards,
    end_game_or_pass_deal,
    reject,
    require_turn,
    wrong_phase,
)
from ..core.table import NO_CARD, NOBODY, Seat, TableState
from ..core.views import View, in_hand, table_view
from ..game import ApplyStep, Game, LegalStep
from .buck_euchre_words import DROP_OUT, ORDER_UP, PASS, PHASES, STAY_IN, WORDS, BuckCode, discard, name_suit
from .buck_euchre_words import BuckPhase as Phase
from .euchre_cards import DEALT, DECK, HAND_SIZE, effective_suit, next_active, play_to_trick, playable
from .euchre_cards import rules as euchre_rules
from .euchre_hidden import TURN_UP_DISCARDED, TURN_UP_IN_HAND, between_hands, fill_state, hidden_places

NAME = "buck_euchre"
NO_TRUMP = 4  # trump settled as "no trump"
_PLAY = PLAY_CODE
# Phases looked up once: reading an enum member costs more than the comparison in a legal step.
_DEAL, _ORDER_UP, _DEALER_DISCARD, _NAME_TRUMP, _DROP_OUT, _PLAYING = (
    Phase.DEAL, Phase.ORDER_UP, Phase.DEALER_DISCARD, Phase.NAME_TRUMP, Phase.DROP_OUT, Phase.PLAY)


BUCK_EUCHRE_SETTINGS = (
    Setting("starting_score", 25, "Starting points", "Points every player starts with; the first to reach 0 or "
            "below wins.", low=1, high=100),
    Setting("maker_requirement", 3, "Maker's tricks", "Tricks the maker must win to avoid the penalty.", low=0, high=5),
    Setting("penalty", 5, "Penalty", "Points added to a player who fails their requirement.", low=0, high=25),
    Setting("club_turn_up_forces_clubs", True, "Club turn-up forces clubs",
            "Whether a club turn-up makes clubs trump with no ordering and no dropping out."),
    Setting("turned_down_suit_may_be_named", False, "Turned-down suit may be named",
            "Whether the turned-down suit may be named in the second trump round."),
)
BUCK_EUCHRE_RANGES = {s.name: (s.low, s.high) for s in BUCK_EUCHRE_SETTINGS if s.kind == "integer"}
"""The accepted range of each numeric Buck Euchre option."""


class BuckEuchreReason(StrEnum):
    """Buck Euchre's reason codes beyond the core's (RULES.md)."""

    SUIT_TURNED_DOWN = "SUIT_TURNED_DOWN"
    MAKER_CANNOT_DROP = "MAKER_CANNOT_DROP"
    CANNOT_DROP_ON_CLUBS = "CANNOT_DROP_ON_CLUBS"


@dataclass(frozen=True)
class BuckEuchreOptions(GameOptions):
    """Options of Buck Euchre."""

    SETTINGS = BUCK_EUCHRE_SETTINGS

    starting_score: int = 25
    maker_requirement: int = 3
    penalty: int = 5
    club_turn_up_forces_clubs: bool = True
    turned_down_suit_may_be_named: bool = False


class BuckEuchreState(TableState):
    """A Buck Euchre game: the table plus the turn-up, trump, maker and who plays the hand."""

    __slots__ = ("turnup", "trump", "maker", "active", "kitty", "turned_down", "dealer_discard", "clubs", "swept")
    options: BuckEuchreOptions

    def reset_hand(self) -> None:
        """Clear everything that belongs to one hand (cards, calls, tricks, trump)."""
        super().reset_hand()
        self.turnup = NO_CARD
        self.trump = NO_CARD
        self.maker = NOBODY
        self.active = (1 << self.n) - 1   # bit per seat: plays this hand
        self.kitty = 0
        self.turned_down = False
        self.dealer_discard = NO_CARD
        self.clubs = False
        self.swept = NOBODY


@dataclass
class EuchreSeatScore(Record):
    """One player's hand: tricks needed, penalty, and the change of its (falling) score."""

    requirement: int
    penalty: int
    change: int
    seat: int = -1
    tricks: int = 0
    active: bool = True
    is_maker: bool = False
    total_after: int = 0


@dataclass
class BuckEuchreHandRecord(HandRecord):
    """A finished Buck Euchre hand: turn-up, trump, maker, the kitty, and each seat's result.

    ``clubs``: a club turn-up made clubs trump at once; ``contested``: at least two players
    played the hand; ``dealer_discard``: the card the dealer discarded after taking the turn-up
    ("" when it was turned down); ``kitty``: the three cards nobody was dealt.
    """

    turn_up: str
    trump: int
    maker: int
    clubs: bool
    contested: bool
    dealer_discard: str
    kitty: str
    seats: list[EuchreSeatScore]
    swept_by: int

    @property
    def turned_down(self) -> bool:
        """Whether all four passed the turn-up in the first round: the dealer takes it (and then
        discards) exactly when it is not turned down."""
        return not self.dealer_discard


@dataclass
class BuckEuchreRules:
    """What a Buck Euchre view shows beyond the common part."""

    trump: int | None
    no_trump: bool
    turn_up: int | None
    turn_up_turned_down: bool
    maker: int | None
    dealer_discard: int | None = None   # shown to the dealer only, once it has discarded


@dataclass(frozen=True)
class BuckEuchreSeat:
    """A seat's Buck Euchre facts."""

    dropped_out: bool


def buck_euchre_seat(tricks: int, active: bool, is_maker: bool, maker_requirement: int,
                     penalty: int) -> EuchreSeatScore:
    """The change of one Buck Euchre player's score in a hand (points go down).

    >>> buck_euchre_seat(2, True, True, 3, 5).change
    3
    """
    if not active:
        return EuchreSeatScore(0, 0, 0)
    requirement = maker_requirement if is_maker else 1
    owed = penalty if tricks < requirement else 0
    return EuchreSeatScore(requirement, owed, -tricks + owed)


def buck_euchre_winners(scores: list[int]) -> list[int]:
    """The winning seat (as a one-item list) when someone is at 0 or below, lowest first; [] on ties.

    >>> buck_euchre_winners([3, -1, 0, 7]), buck_euchre_winners([0, 0, 4, 5])
    ([1], [])
    """
    return best_side(scores, [s for s in range(len(scores)) if scores[s] <= 0], high=False)


def legal(state: BuckEuchreState, seat: Seat) -> list[Action]:
    """Every action open to ``seat`` now in Buck Euchre."""
    if seat != state.turn:
        return []
    phase = state.phase
    if phase == _PLAYING:
        return play_actions(playable(state.hands[seat], state.trick_cards, state.trump))
    if phase == _DEAL:
        return [DEAL]
    if phase == _ORDER_UP:
        return [ORDER_UP, PASS]
    if phase == _DEALER_DISCARD:
        return [discard(1 << c) for c in card_list(state.hands[seat])]
    if phase == _NAME_TRUMP:
        return [PASS] + [name_suit(s) for s in SUITS if _may_name(state, s)]
    if phase == _DROP_OUT:
        return [STAY_IN, DROP_OUT]
    return []


def exchange_choice(state: BuckEuchreState, seat: Seat) -> tuple[int, int, int, int] | None:
    """(eligible cards, fewest, most, the discard's code) for the dealer's discard, or None."""
    if state.phase != Phase.DEALER_DISCARD or seat != state.turn:
        return None
    return state.hands[seat], 1, 1, BuckCode.DISCARD


def _may_name(state: BuckEuchreState, suit: int) -> bool:
    return suit != state.turnup // 13 or state.options.turned_down_suit_may_be_named


def apply_deal(state: BuckEuchreState, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """Deal five cards each and turn up the 21st; a club turn-up makes clubs trump at once."""
    deck, chance = open_hand(state, seat, action, DECK, rng, chance)
    deal_round_robin(state, deck, DEALT)
    state.looked = 15
    state.turnup = deck[DEALT]
    state.kitty = sum(1 << c for c in deck[DEALT + 1:])
    if state.turnup // 13 == CLUBS and state.options.club_turn_up_forces_clubs:
        state.clubs = True
        _take_turnup(state, CLUBS)
    else:
        state.phase = Phase.ORDER_UP
        state.turn = (state.dealer + 1) % 4
    return chance


def _take_turnup(state: BuckEuchreState, trump: int) -> None:
    state.trump = trump
    state.hands[state.dealer] |= 1 << state.turnup
    state.phase = Phase.DEALER_DISCARD
    state.turn = state.dealer


def _wrong_phase(state: BuckEuchreState, action: Action) -> NoReturn:
    """Reject an action foreign to this phase, naming the club rule when it forbids dropping out."""
    if action == DROP_OUT and state.clubs and state.phase != Phase.DEAL:
        reject(BuckEuchreReason.CANNOT_DROP_ON_CLUBS, "nobody may drop out when the turn-up is a club")
    wrong_phase(state, action)


def apply_order_up(state: BuckEuchreState, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """First round: order the turn-up's suit as trump, or pass."""
    if action != ORDER_UP and action != PASS:
        wrong_phase(state, action)
    require_turn(state, seat)
    state.calls[seat] = action
    if action == ORDER_UP:
        state.maker = seat
        _take_turnup(state, state.turnup // 13)
    elif seat == state.dealer:
        state.turned_down = True
        state.phase = Phase.NAME_TRUMP
        state.turn = (seat + 1) % 4
    else:
        state.turn = (seat + 1) % 4
    return None


def apply_dealer_discard(state: BuckEuchreState, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """The dealer, holding six cards, discards one face down."""
    if kind_of(action) != BuckCode.DISCARD:
        _wrong_phase(state, action)
    require_turn(state, seat)
    mask = check_cards(state, seat, action, 1, 1)
    state.hands[seat] &= ~mask
    state.dealer_discard = mask.bit_length() - 1
    if state.clubs:
        _start_play(state)
    else:
        _start_drop_round(state)
    return None


def apply_name_trump(state: BuckEuchreState, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """Second round: name a suit other than the turned-down one, or pass."""
    kind = kind_of(action)
    if kind != BuckCode.NAME_SUIT and action != PASS:
        wrong_phase(state, action)
    require_turn(state, seat)
    if kind == BuckCode.NAME_SUIT:
        suit = payload_of(action)
        if suit not in SUITS:
            reject(Reason.INVALID_BID, f"there is no suit #{suit}")
        if not _may_name(state, suit):
            reject(BuckEuchreReason.SUIT_TURNED_DOWN, f"{SUIT_LETTERS[suit]} was turned down and cannot be named")
        state.calls[seat] = action
        state.trump = suit
        state.maker = seat
        _start_drop_round(state)
        return None
    state.calls[seat] = action
    if seat == state.dealer:
        state.trump = NO_TRUMP
        _start_drop_round(state)
    else:
        state.turn = (seat + 1) % 4
    return None


def _drop_order(state: BuckEuchreState) -> list[Seat]:
    return [s for s in ((state.dealer + i) % 4 for i in range(1, 5)) if s != state.maker]


def _start_drop_round(state: BuckEuchreState) -> None:
    state.phase = Phase.DROP_OUT
    state.turn = _drop_order(state)[0]


def apply_drop_round(state: BuckEuchreState, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """Each player but the maker, in turn, stays in or drops out of the hand."""
    if action != STAY_IN and action != DROP_OUT:
        wrong_phase(state, action)
    if action == DROP_OUT and seat == state.maker:
        reject(BuckEuchreReason.MAKER_CANNOT_DROP, f"seat {seat} made trump and must play")
    require_turn(state, seat)
    state.calls[seat] = action
    if action == DROP_OUT:
        state.active &= ~(1 << seat)
    order = _drop_order(state)
    i = order.index(seat)
    if i + 1 < len(order):
        state.turn = order[i + 1]
        return None
    players = state.active.bit_count()
    if players >= 2:
        _start_play(state)
    else:
        if players == 1:
            state.tricks[state.active.bit_length() - 1] = HAND_SIZE
        _end_hand(state)
    return None


def _start_play(state: BuckEuchreState) -> None:
    state.phase = Phase.PLAY
    state.turn = next_active(state, state.dealer)


def apply_play(state: BuckEuchreState, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """Play a card; follow the led suit (the left bower counts as trump) when possible."""
    if kind_of(action) != _PLAY:
        _wrong_phase(state, action)
    if seat != state.turn:
        require_turn(state, seat)
    play_to_trick(state, seat, payload_of(action), _end_hand)
    return None


def _end_hand(state: BuckEuchreState) -> None:
    contested = state.active.bit_count() >= 2
    options = state.options
    seats = []
    for s in range(4):
        active = bool(state.active >> s & 1)
        result = buck_euchre_seat(state.tricks[s], active, s == state.maker, options.maker_requirement,
                                  options.penalty)
        state.scores[s] += result.change
        result.seat, result.tricks, result.active = s, state.tricks[s], active
        result.is_maker, result.total_after = s == state.maker, state.scores[s]
        seats.append(result)
    if contested and HAND_SIZE in state.tricks:
        state.swept = state.tricks.index(HAND_SIZE)
    state.records.append(BuckEuchreHandRecord(
        **record_base(state), points=[r.change for r in seats], totals=state.scores[:],
        turn_up=card_name(state.turnup), trump=state.trump, maker=state.maker, clubs=state.clubs,
        contested=contested,
        dealer_discard=card_name(state.dealer_discard) if state.dealer_discard != NO_CARD else "",
        kitty=cards_text(state.kitty), seats=seats, swept_by=state.swept))
    state.winner = [state.swept] if state.swept != NOBODY else buck_euchre_winners(state.scores)
    state.hands = [0] * 4
    end_game_or_pass_deal(state, high_wins=False)


def view(state: BuckEuchreState, seat: Seat | None) -> View:
    """What ``seat`` (None: a spectator) may know of a Buck Euchre game."""
    if seat is None:
        v = table_view(state, None, [], None)
    else:
        v = table_view(state, seat, legal(state, seat), exchange_choice(state, seat))
    playing = in_hand(state)
    for info in v.seats:
        info.rules = BuckEuchreSeat(playing and not state.active >> info.seat & 1)
    if playing:
        v.rules = BuckEuchreRules(
            trump=state.trump if 0 <= state.trump < 4 else None, no_trump=state.trump == NO_TRUMP,
            turn_up=state.turnup, turn_up_turned_down=state.turned_down,
            maker=state.maker if state.maker != NOBODY else None,
            dealer_discard=state.dealer_discard if seat == state.dealer and state.dealer_discard != NO_CARD else None)
    else:
        v.rules = BuckEuchreRules(None, False, None, False, None)
    return v


# ---- determinizing: the hidden cards of a seat's view, and states built from a view ----

def _turn_up_taken(view: View) -> bool:
    """Whether the dealer took the turn-up into its hand (ordered up, or a club turn-up)."""
    return view.phase in (Phase.DEALER_DISCARD, Phase.DROP_OUT, Phase.PLAY) and not view.rules.turn_up_turned_down


def _turn_up_place(view: View) -> str:
    """Where the turn-up is when the viewer cannot see it: "hand" (the dealer's), "discard", or
    "" when the viewer knows (not taken, played, or the viewer is the dealer). The dealer is
    taken to keep a turn-up it took (it is trump) unless it has shown out of trump or holds no card."""
    up = view.rules.turn_up
    if not _turn_up_taken(view) or view.viewer == view.dealer or public_cards(view) >> up & 1:
        return ""
    if view.phase == Phase.DEALER_DISCARD:
        return TURN_UP_IN_HAND
    dealer = view.seats[view.dealer]
    out = effective_suit(up, view.rules.trump) in dealer.void_suits or not dealer.card_count
    return TURN_UP_DISCARDED if out else TURN_UP_IN_HAND


def hidden(view: View) -> Hidden:
    """The cards the viewer cannot see: the other hands (those who dropped out included), the
    kitty, and the dealer's discard."""
    if between_hands(view):
        return Hidden(0, ())
    where = _turn_up_place(view)
    discard_hidden = (view.phase in (Phase.DROP_OUT, Phase.PLAY) and _turn_up_taken(view)
                      and view.viewer != view.dealer and where != TURN_UP_DISCARDED)
    return hidden_places(view, euchre_rules(view.rules.trump).masks, where, discard_hidden)


def determinize(view: View, places: Hidden, fills: Sequence[Sequence[int]]) -> BuckEuchreState:
    """The Buck Euchre state of ``view`` with the places of ``places`` (its ``hidden``) holding ``fills``."""
    state = new_state(view.options, view.dealer)
    if not fill_state(state, view, places, fills, _turn_up_place(view)):
        return state
    rules: BuckEuchreRules = view.rules
    trump = rules.trump
    state.trump = trump if trump is not None else NO_TRUMP if rules.no_trump else NO_CARD
    state.maker = rules.maker if rules.maker is not None else NOBODY
    state.active = 15 & ~sum(1 << info.seat for info in view.seats if info.rules.dropped_out)
    state.clubs = state.turnup // 13 == CLUBS and view.options.club_turn_up_forces_clubs
    return state


APPLY: dict[int, ApplyStep] = {Phase.DEAL: apply_deal, Phase.ORDER_UP: apply_order_up,
         Phase.DEALER_DISCARD: apply_dealer_discard, Phase.NAME_TRUMP: apply_name_trump,
         Phase.DROP_OUT: apply_drop_round, Phase.PLAY: apply_play}
LEGAL: dict[int, LegalStep] = {phase: legal for phase in APPLY}



def new_state(options: BuckEuchreOptions, first_dealer: Seat) -> BuckEuchreState:
    """A Buck Euchre game before its first deal, every player at the starting score."""
    return BuckEuchreState(NAME, options, 4, 4, first_dealer, options.starting_score)


GAME = Game(name=NAME, seats=4, cards=tuple(DECK), options_type=BuckEuchreOptions, state_type=BuckEuchreState,
            record_type=BuckEuchreHandRecord, new_state=new_state, legal=LEGAL, apply=APPLY, view=view,
            hidden=hidden, determinize=determinize, title="Buck Euchre", reasons=BuckEuchreReason,
            low_score_wins=True, words=WORDS, phases=PHASES)
