"""Euchre (RULES.md §6): four players in two partnerships (seats 0+2 and 1+3), 24 cards, a
turn-up, two rounds of making trump, the dealer's pick-up and discard, going alone (and, as a
rule option, defending alone), thrown-in hands, and the first partnership to 10 points wins.

A hand runs: the deal (five cards each, the 21st card of the deck turned up, the last three the
kitty); round one, each in turn from the dealer's left orders the turn-up's suit (``order``,
``order-alone``) or passes, and once it is ordered the dealer takes the turn-up and discards one
other card (``exchange C``); round two, after four passes, each in turn names a suit other than the
turned-down one (``name H``, ``name-alone H``) or passes (the dealer may not pass with
``stick_the_dealer``), four passes throwing the hand in; against a lone maker, with
``defend_alone``, each defender in turn from the maker's left may defend alone; then five tricks,
the seats sitting out skipped, and the hand's score.

>>> import random, engine
>>> state = engine.new_game("euchre", rng=random.Random(2), first_dealer=0)
>>> _ = engine.apply(state, 0, engine.DEAL, random.Random(2))
>>> engine.phase_of(state).name, state.turn, [engine.notation("euchre", a) for a in engine.legal_actions(state, 1)]
('order_up', 1, ['order', 'order-alone', 'pass'])
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from ..core.actions import DEAL, PLAY_CODE, Action, kind_of, payload_of, play_actions
from ..core.cards import SUIT_NAMES, SUITS, card_list, card_name, cards_text
from ..core.dealing import Chance, deal_round_robin, open_hand
from ..core.errors import Reason
from ..core.hidden import Hidden, public_cards
from ..core.options import GameOptions, Setting
from ..core.records import HandRecord, record_base
from ..core.rules import check_cards, end_game_or_pass_deal, reject, require_turn, wrong_phase
from ..core.table import NO_CARD, NOBODY, Seat, TableState
from ..core.views import View, in_hand, table_view
from ..game import ApplyStep, Game, LegalStep
from .euchre_cards import DEALT, DECK, HAND_SIZE, next_active, play_to_trick, playable, rules
from .euchre_hidden import TURN_UP_IN_HAND, between_hands, fill_state, hidden_places
from .euchre_words import (
    DEFEND_ALONE,
    ORDER,
    ORDER_ALONE,
    PASS,
    PHASES,
    WORDS,
    EuchreCode,
    EuchrePhase,
    EuchreVocabulary,
    discard,
    name_suit,
)

NAME = "euchre"
MAKERS_NEED = 3        # tricks the makers must win
MARCH = 1              # the makers' points for 3 or 4 tricks (alone too)
MARCH_ALL = 2          # for all 5 tricks
MARCH_ALONE = 4        # for all 5 tricks alone
EUCHRED = 2            # the defenders' points when the makers win fewer than 3
EUCHRED_ALONE = 4      # ... when a defender defended alone
Phase = EuchrePhase
# Phases looked up once: reading an enum member costs more than the comparison in a legal step.
_DEAL, _ORDER_UP, _DEALER_DISCARD, _NAME_TRUMP, _DEFEND, _PLAYING = (
    Phase.DEAL, Phase.ORDER_UP, Phase.DEALER_DISCARD, Phase.NAME_TRUMP, Phase.DEFEND_ALONE, Phase.PLAY)
_PLAY = PLAY_CODE
_NAMES = (EuchreCode.NAME, EuchreCode.NAME_ALONE)


EUCHRE_SETTINGS = (
    Setting("target", 10, "Target", "The points a partnership needs to win.", low=1, high=100),
    Setting("stick_the_dealer", False, "Stick the dealer",
            "Whether the dealer must name trump when the other three passed the second round."),
    Setting("defend_alone", False, "Defend alone",
            "Whether a defender may play alone against a maker who goes alone, for 4 points on a euchre."),
)


class EuchreReason(StrEnum):
    """Euchre's reason codes beyond the core's (RULES.md): its own two, and the turned-down suit
    it shares with Buck Euchre."""

    SUIT_TURNED_DOWN = "SUIT_TURNED_DOWN"
    MUST_KEEP_TURN_UP = "MUST_KEEP_TURN_UP"
    DEALER_MUST_NAME = "DEALER_MUST_NAME"


@dataclass(frozen=True)
class EuchreOptions(GameOptions):
    """Options of Euchre."""

    SETTINGS = EUCHRE_SETTINGS

    target: int = 10
    stick_the_dealer: bool = False
    defend_alone: bool = False


class EuchreState(TableState):
    """A Euchre game: the table plus the turn-up, trump, the makers and who plays the hand.

    ``active``: a bit per seat that plays the hand (a lone maker's partner, and a lone
    defender's, sit out); ``taken``: the dealer took the turn-up into its hand; ``defender``: the
    seat defending alone (NOBODY when none does).
    """

    __slots__ = ("turnup", "trump", "maker", "alone", "defender", "active", "kitty", "turned_down", "taken",
                 "dealer_discard")
    options: EuchreOptions

    def reset_hand(self) -> None:
        """Clear everything that belongs to one hand (cards, calls, tricks, trump, the makers)."""
        super().reset_hand()
        self.turnup = NO_CARD
        self.trump = NO_CARD
        self.maker = NOBODY
        self.alone = False
        self.defender = NOBODY
        self.active = (1 << self.n) - 1
        self.kitty = 0
        self.turned_down = False
        self.taken = False
        self.dealer_discard = NO_CARD

    def seats_of(self, side: int) -> list[Seat]:
        """The seats of a partnership: side 0 is seats 0 and 2, side 1 seats 1 and 3."""
        return [side, side + 2]


@dataclass
class EuchreHandRecord(HandRecord):
    """A finished Euchre hand, played or thrown in.

    ``trump`` and ``maker`` are -1 in a thrown-in hand; ``alone``: the maker went alone;
    ``defender_alone``: the seat that defended alone (-1 for none); ``sitting_out``: the seats
    that sat the hand out; ``side_tricks``: the tricks each partnership won; ``euchred``: the
    makers won fewer than three; ``dealer_discard``: the card the dealer discarded ("" when it
    did not take the turn-up); ``kitty``: the three cards nobody was dealt.
    """

    turn_up: str
    turned_down: bool
    trump: int
    maker: int
    alone: bool
    defender_alone: int
    sitting_out: list[int]
    side_tricks: list[int]
    euchred: bool
    thrown_in: bool
    dealer_discard: str
    kitty: str


@dataclass
class EuchreRules:
    """What a Euchre view shows beyond the common part.

    The turn-up is shown for the whole hand: everyone saw it turned up, and then saw it taken
    into the dealer's hand (``turn_up_taken``) or turned down. The dealer's discard is shown to
    the dealer alone.
    """

    trump: int | None
    turn_up: int | None
    turn_up_turned_down: bool
    turn_up_taken: bool
    maker: int | None
    alone: bool
    defender_alone: int | None
    sitting_out: list[int] = field(default_factory=list)
    dealer_discard: int | None = None


@dataclass(frozen=True)
class EuchreSeat:
    """A seat's Euchre facts: whether it sits this hand out (its cards face down)."""

    sitting_out: bool


def partner(seat: Seat) -> Seat:
    """The seat across the table."""
    return (seat + 2) % 4


def hand_points(maker_tricks: int, alone: bool, defended_alone: bool) -> tuple[int, int]:
    """(the makers' points, the defenders' points) of a hand the makers took ``maker_tricks`` in.

    >>> hand_points(3, False, False), hand_points(5, False, False), hand_points(5, True, False)
    ((1, 0), (2, 0), (4, 0))
    >>> hand_points(4, True, False)
    (1, 0)
    >>> hand_points(2, False, False), hand_points(0, True, True)
    ((0, 2), (0, 4))
    """
    if maker_tricks >= MAKERS_NEED:
        if maker_tricks == HAND_SIZE:
            return (MARCH_ALONE if alone else MARCH_ALL), 0
        return MARCH, 0
    return 0, EUCHRED_ALONE if defended_alone else EUCHRED


# ---- legal actions ------------------------------------------------------------------------

def legal(state: EuchreState, seat: Seat) -> list[Action]:
    """Every action open to ``seat`` now in Euchre."""
    if seat != state.turn:
        return []
    phase = state.phase
    if phase == _PLAYING:
        return play_actions(playable(state.hands[seat], state.trick_cards, state.trump))
    if phase == _DEAL:
        return [DEAL]
    if phase == _ORDER_UP:
        return [ORDER, ORDER_ALONE, PASS]
    if phase == _DEALER_DISCARD:
        return [discard(1 << c) for c in card_list(state.hands[seat] & ~(1 << state.turnup))]
    if phase == _NAME_TRUMP:
        down = state.turnup // 13
        names = [name_suit(s, alone) for s in SUITS if s != down for alone in (False, True)]
        return names if _stuck(state, seat) else [PASS, *names]
    if phase == _DEFEND:
        return [DEFEND_ALONE, PASS]
    return []


def exchange_choice(state: EuchreState, seat: Seat) -> tuple[int, int, int, int] | None:
    """(eligible cards, fewest, most, the discard's code) for the dealer's discard, or None:
    any one card but the turn-up."""
    if state.phase != _DEALER_DISCARD or seat != state.turn:
        return None
    return state.hands[seat] & ~(1 << state.turnup), 1, 1, EuchreCode.DISCARD


def _stuck(state: EuchreState, seat: Seat) -> bool:
    """Whether ``seat`` is a dealer that may not pass the second round (stick the dealer)."""
    return seat == state.dealer and state.options.stick_the_dealer


# ---- the deal and making trump ------------------------------------------------------------

def apply_deal(state: EuchreState, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """Deal five cards each, one at a time from the dealer's left, and turn up the 21st."""
    deck, chance = open_hand(state, seat, action, DECK, rng, chance)
    deal_round_robin(state, deck, DEALT)
    state.looked = 15
    state.turnup = deck[DEALT]
    state.kitty = sum(1 << c for c in deck[DEALT + 1:])
    state.phase = _ORDER_UP
    state.turn = (state.dealer + 1) % 4
    return chance


def apply_order_up(state: EuchreState, seat: Seat, action: Action, rng: random.Random,
                   chance: Chance | None = None) -> Chance | None:
    """Round one: order the turn-up's suit trump, alone or not, or pass; after the dealer's pass
    the turn-up is turned down."""
    if action != ORDER and action != ORDER_ALONE and action != PASS:
        wrong_phase(state, action)
    require_turn(state, seat)
    state.calls[seat] = action
    if action == PASS:
        if seat == state.dealer:
            state.turned_down = True
            state.phase = _NAME_TRUMP
        state.turn = (seat + 1) % 4
        return None
    _make(state, seat, state.turnup // 13, action == ORDER_ALONE)
    if state.active >> state.dealer & 1:       # the dealer takes the turn-up, unless it sits out
        state.taken = True
        state.hands[state.dealer] |= 1 << state.turnup
        state.phase = _DEALER_DISCARD
        state.turn = state.dealer
    else:
        _after_making(state)
    return None


def apply_dealer_discard(state: EuchreState, seat: Seat, action: Action, rng: random.Random,
                         chance: Chance | None = None) -> Chance | None:
    """The dealer, holding six cards, discards one face down: any but the turn-up."""
    if kind_of(action) != EuchreCode.DISCARD:
        wrong_phase(state, action)
    require_turn(state, seat)
    cards = check_cards(state, seat, action, 1, 1)
    if cards >> state.turnup & 1:
        reject(EuchreReason.MUST_KEEP_TURN_UP, f"the dealer keeps the turn-up {card_name(state.turnup)}: "
                                               "discard another card")
    state.hands[seat] &= ~cards
    state.dealer_discard = cards.bit_length() - 1
    _after_making(state)
    return None


def apply_name_trump(state: EuchreState, seat: Seat, action: Action, rng: random.Random,
                     chance: Chance | None = None) -> Chance | None:
    """Round two: name a suit other than the turned-down one, alone or not, or pass; four passes
    throw the hand in (with ``stick_the_dealer`` the dealer may not pass)."""
    kind = kind_of(action)
    if kind not in _NAMES and action != PASS:
        wrong_phase(state, action)
    require_turn(state, seat)
    if action == PASS:
        if _stuck(state, seat):
            reject(EuchreReason.DEALER_MUST_NAME, "stick the dealer: the dealer must name trump")
        state.calls[seat] = action
        if seat == state.dealer:
            _throw_in(state)
        else:
            state.turn = (seat + 1) % 4
        return None
    suit = payload_of(action)
    if suit not in SUITS:
        reject(Reason.INVALID_BID, f"there is no suit #{suit}")
    if suit == state.turnup // 13:
        reject(EuchreReason.SUIT_TURNED_DOWN, f"{SUIT_NAMES[suit]} were turned down and cannot be named")
    state.calls[seat] = action
    _make(state, seat, suit, kind == EuchreCode.NAME_ALONE)
    _after_making(state)
    return None


def _make(state: EuchreState, seat: Seat, trump: int, alone: bool) -> None:
    """``seat`` makes ``trump``; going alone, its partner sits the hand out."""
    state.trump = trump
    state.maker = seat
    state.alone = alone
    if alone:
        state.active &= ~(1 << partner(seat))


def _after_making(state: EuchreState) -> None:
    """Once trump is made (and the dealer has discarded): the defenders' round against a lone
    maker when the table plays with ``defend_alone``, else the play."""
    if state.alone and state.options.defend_alone:
        state.phase = _DEFEND
        state.turn = (state.maker + 1) % 4
    else:
        _start_play(state)


def apply_defend_alone(state: EuchreState, seat: Seat, action: Action, rng: random.Random,
                       chance: Chance | None = None) -> Chance | None:
    """Against a lone maker, each defender in turn from the maker's left defends alone or
    passes; the first who defends alone makes its partner sit out."""
    if action != DEFEND_ALONE and action != PASS:
        wrong_phase(state, action)
    require_turn(state, seat)
    state.calls[seat] = action
    if action == DEFEND_ALONE:
        state.defender = seat
        state.active &= ~(1 << partner(seat))
        _start_play(state)
    elif seat == (state.maker + 1) % 4:
        state.turn = partner(seat)
    else:
        _start_play(state)
    return None


# ---- play and scoring ---------------------------------------------------------------------

def _start_play(state: EuchreState) -> None:
    """The first seat playing the hand left of the dealer leads."""
    state.phase = _PLAYING
    state.turn = next_active(state, state.dealer)


def apply_play(state: EuchreState, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """Play a card; follow the led suit (the left bower is trump) when possible; the seats
    sitting out are skipped."""
    if kind_of(action) != _PLAY:
        wrong_phase(state, action)
    if seat != state.turn:
        require_turn(state, seat)
    play_to_trick(state, seat, payload_of(action), _end_hand)
    return None


def _side_tricks(state: EuchreState) -> list[int]:
    return [state.tricks[side] + state.tricks[side + 2] for side in (0, 1)]


def _record(state: EuchreState, points: list[int], thrown_in: bool) -> EuchreHandRecord:
    makers = state.maker % 2 if state.maker != NOBODY else -1
    sides = _side_tricks(state)
    return EuchreHandRecord(
        **record_base(state), points=points, totals=state.scores[:], turn_up=card_name(state.turnup),
        turned_down=state.turned_down, trump=state.trump if state.trump in SUITS else -1, maker=state.maker,
        alone=state.alone, defender_alone=state.defender,
        sitting_out=[s for s in range(4) if not state.active >> s & 1], side_tricks=sides,
        euchred=makers >= 0 and sides[makers] < MAKERS_NEED, thrown_in=thrown_in,
        dealer_discard=card_name(state.dealer_discard) if state.dealer_discard != NO_CARD else "",
        kitty=cards_text(state.kitty))


def _end_hand(state: EuchreState) -> None:
    """Score the hand: the makers' side or the defenders' gains; a side at the target wins."""
    makers = state.maker % 2
    made, defended = hand_points(_side_tricks(state)[makers], state.alone, state.defender != NOBODY)
    points = [0, 0]
    points[makers], points[1 - makers] = made, defended
    for side in (0, 1):
        state.scores[side] += points[side]
    state.records.append(_record(state, points, thrown_in=False))
    state.winner = [side for side in (0, 1) if state.scores[side] >= state.options.target]
    state.hands = [0] * 4
    end_game_or_pass_deal(state)


def _throw_in(state: EuchreState) -> None:
    """All four passed twice: the hand is recorded with no score and the deal passes left."""
    state.records.append(_record(state, [0, 0], thrown_in=True))
    state.hands = [0] * 4
    end_game_or_pass_deal(state)


# ---- views ----------------------------------------------------------------------------------

def view(state: EuchreState, seat: Seat | None) -> View:
    """What ``seat`` (None: a spectator) may know of a Euchre game."""
    if seat is None:
        v = table_view(state, None, [], None)
    else:
        v = table_view(state, seat, legal(state, seat), exchange_choice(state, seat))
    if not in_hand(state):
        for info in v.seats:
            info.rules = _SEATS[False]
        v.rules = EuchreRules(None, None, False, False, None, False, None)
        return v
    active = state.active
    for info in v.seats:
        info.rules = _SEATS[not active >> info.seat & 1]
    v.rules = EuchreRules(
        trump=state.trump if state.trump in SUITS else None, turn_up=state.turnup,
        turn_up_turned_down=state.turned_down, turn_up_taken=state.taken,
        maker=state.maker if state.maker != NOBODY else None, alone=state.alone,
        defender_alone=state.defender if state.defender != NOBODY else None,
        sitting_out=[s for s in range(4) if not active >> s & 1],
        dealer_discard=state.dealer_discard if seat == state.dealer and state.dealer_discard != NO_CARD else None)
    return v


_SEATS = {False: EuchreSeat(False), True: EuchreSeat(True)}


# ---- determinizing: the hidden cards of a seat's view, and states built from a view ----

def _turn_up_place(view: View) -> str:
    """"hand" when the viewer knows the turn-up is in the dealer's hand without seeing that hand:
    the dealer took it (and must keep it), has not played it, and is not the viewer; else "" (it is
    in sight, played, or in the kitty)."""
    rules_: EuchreRules = view.rules
    up = rules_.turn_up
    with_dealer = (rules_.turn_up_taken and view.viewer != view.dealer and up is not None
                   and not public_cards(view) >> up & 1)
    return TURN_UP_IN_HAND if with_dealer else ""


def hidden(view: View) -> Hidden:
    """The cards the viewer cannot see: the other hands (those sitting out included), the kitty,
    and the dealer's discard (the turn-up is known: in the kitty, or in the dealer's hand)."""
    if between_hands(view):
        return Hidden(0, ())
    info: EuchreRules = view.rules
    discard_hidden = info.turn_up_taken and view.viewer != view.dealer and view.phase != Phase.DEALER_DISCARD
    return hidden_places(view, rules(info.trump).masks, _turn_up_place(view), discard_hidden)


def determinize(view: View, places: Hidden, fills: Sequence[Sequence[int]]) -> EuchreState:
    """The Euchre state of ``view`` with the places of ``places`` (its ``hidden``) holding ``fills``."""
    state = new_state(view.options, view.dealer)
    if not fill_state(state, view, places, fills, _turn_up_place(view)):
        return state
    info: EuchreRules = view.rules
    state.trump = info.trump if info.trump is not None else NO_CARD
    state.maker = info.maker if info.maker is not None else NOBODY
    state.alone = info.alone
    state.defender = info.defender_alone if info.defender_alone is not None else NOBODY
    state.active = 15 & ~sum(1 << s for s in info.sitting_out)
    state.taken = info.turn_up_taken
    return state


# ---- the game ---------------------------------------------------------------------------------

APPLY: dict[int, ApplyStep] = {Phase.DEAL: apply_deal, Phase.ORDER_UP: apply_order_up,
                               Phase.DEALER_DISCARD: apply_dealer_discard, Phase.NAME_TRUMP: apply_name_trump,
                               Phase.DEFEND_ALONE: apply_defend_alone, Phase.PLAY: apply_play}
LEGAL: dict[int, LegalStep] = {phase: legal for phase in APPLY}


def new_state(options: EuchreOptions, first_dealer: Seat) -> EuchreState:
    """A Euchre game before its first deal, both partnerships at 0."""
    return EuchreState(NAME, options, 4, 2, first_dealer)


class EuchreGame(Game):
    """Euchre's :class:`Game`: its vocabulary reads going alone as it is said (``order alone``,
    ``name hearts alone``, ``defend alone``) besides the one word it writes for it."""

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "vocabulary", EuchreVocabulary(self.name, self.words, self.phases))


GAME = EuchreGame(name=NAME, seats=4, cards=tuple(DECK), options_type=EuchreOptions, state_type=EuchreState,
                  record_type=EuchreHandRecord, new_state=new_state, legal=LEGAL, apply=APPLY, view=view,
                  hidden=hidden, determinize=determinize, title="Euchre", reasons=EuchreReason, words=WORDS,
                  phases=PHASES)
