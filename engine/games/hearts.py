"""Hearts: four players each for themselves, 52 cards, three cards passed left, right, across or
not at all, no trump, the 2♣ leads, no points on the first trick, hearts broken before they are
led, and the lowest score wins once someone reaches the target (RULES.md §4); and its table
settings (§4.1): the J♦ counting −10 ("Omnibus"), and three players with the 2♦ removed."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from ..core.actions import DEAL, PLAY_CODE, Action, kind_of, payload_of, play_actions
from ..core.cards import (
    BITS,
    CLUBS,
    DIAMONDS,
    HEARTS,
    SPADES,
    SUIT_LETTERS,
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
from ..core.options import GameOptions, Setting, shown
from ..core.records import HandRecord, Record, record_base
from ..core.rules import best_side, check_cards, end_game_or_pass_deal, finish_trick, reject, require_turn, wrong_phase
from ..core.table import NO_CARD, NOBODY, Seat, TableState
from ..core.views import View, in_hand, table_view
from ..game import ApplyStep, Game, LegalStep
from .hearts_words import PHASES, WORDS, HeartsCode
from .hearts_words import HeartsPhase as Phase

NAME = "hearts"
DECK = list(range(52))
FULL_DECK = (1 << 52) - 1
PASS_SIZE = 3
TWO_OF_CLUBS = make_card(2, CLUBS)
TWO_OF_DIAMONDS = make_card(2, DIAMONDS)
JACK_OF_DIAMONDS = make_card(11, DIAMONDS)
QUEEN_OF_SPADES = make_card(12, SPADES)
THREE_PLAYER_DECK = [c for c in DECK if c != TWO_OF_DIAMONDS]
"""The deck of three players: the 2♦ removed (51 cards, 17 each)."""
HEART_MASK = SUIT_MASKS[HEARTS]
POINT_CARDS = HEART_MASK | 1 << QUEEN_OF_SPADES
"""The cards that count: every heart (1 point each) and the Q♠ (13); with ``jack_of_diamonds`` the
J♦ counts too (−10), though not as a point card of the first trick."""
MOON = 26
"""The points of the hearts and the Q♠: whoever takes them all has shot the moon."""
JACK_POINTS = -10
"""What the J♦ counts for the player who wins it, with ``jack_of_diamonds``."""
_PLAY, _PASS = PLAY_CODE, int(HeartsCode.PASS)
_ONLY_HEARTS = 1 << CLUBS | 1 << DIAMONDS | 1 << SPADES   # void bits of a seat that showed it holds only hearts
_NO_DIAMONDS = 1 << DIAMONDS
# Phases looked up once: reading an enum member costs more than the comparison in a legal step.
_DEAL, _PASSING, _PLAYING = Phase.DEAL, Phase.PASS, Phase.PLAY

DIRECTION_NAMES = {"L": "left", "R": "right", "A": "across", "H": "hold"}
"""The letters of the pass cycle option, and the word a view and a hand record show for each."""
_LETTERS = {name: letter for letter, name in DIRECTION_NAMES.items()}
STANDARD_CYCLES = {4: "LRAH", 3: "LRH"}
"""The pass cycle of a table of each size when the ``pass_cycle`` option is left empty."""
MOON_RULES = ("others_add", "shooter_subtracts")
"""The values of the ``moon`` option: who is charged when a player shoots the moon."""
MAX_CYCLE = 12
"""The longest pass cycle accepted."""
HEARTS_SETTINGS = (
    Setting("target", 100, "Target", "The score at which the game ends (after the hand that reaches it, unless the "
            "lowest score is shared).", low=1, high=1000),
    Setting("pass_cycle", "", "Pass cycle", "The pass directions of successive hands, repeated: one letter "
            "each, L (left), R (right), A (across; four players only), H (hold: no pass); empty: LRAH with four "
            "players, LRH with three.", pattern=f"[LRAH]{{0,{MAX_CYCLE}}}",
            allowed_text=f"1 to {MAX_CYCLE} of the letters L (left), R (right), A (across) and H (hold), such as "
            "'LRAH', or empty (the standard cycle)"),
    Setting("moon", "others_add", "Shooting the moon", "others_add: the shooter 0, every other player 26; "
            "shooter_subtracts: the shooter -26, the others 0.", choices=MOON_RULES),
    Setting("queen_breaks_hearts", False, "Q♠ breaks hearts", "Whether the Q♠ breaks hearts like a heart."),
    Setting("jack_of_diamonds", False, "J♦ counts -10", "Omnibus: the J♦ counts -10 for the player who wins it "
            "(shooting the moon still takes every heart and the Q♠)."),
    Setting("players", 4, "Players", "How many play: 4, or 3 with the 2♦ removed (17 cards each, no pass "
            "across).", low=3, high=4),
)
"""Every Hearts setting (with the hands cap, ``MAX_HANDS``, no score leaves a 32-bit integer)."""
HEARTS_RANGES = {s.name: (s.low, s.high) for s in HEARTS_SETTINGS if s.kind == "integer"}


class HeartsReason(StrEnum):
    """Hearts' reason codes beyond the core's (RULES.md), in the order they are checked."""

    INVALID_PASS = "INVALID_PASS"
    MUST_LEAD_TWO_OF_CLUBS = "MUST_LEAD_TWO_OF_CLUBS"
    NO_POINTS_ON_FIRST_TRICK = "NO_POINTS_ON_FIRST_TRICK"
    HEARTS_NOT_BROKEN = "HEARTS_NOT_BROKEN"


@dataclass(frozen=True)
class HeartsOptions(GameOptions):
    """Options of Hearts.

    ``pass_cycle`` is the direction of each hand's pass, one letter a hand, repeated: L (left),
    R (right), A (across), H (hold: no passing), or empty for the table's standard cycle
    (``STANDARD_CYCLES``); ``moon`` is ``others_add`` (the shooter scores 0, every other player
    26) or ``shooter_subtracts`` (the shooter scores −26, the others 0); ``jack_of_diamonds``
    makes the J♦ count −10 for its winner; ``players`` is 4, or 3 with the 2♦ removed (no pass
    across then).

    >>> HeartsOptions().cycle, HeartsOptions(players=3).cycle, HeartsOptions(players=3, pass_cycle="HL").cycle
    ('LRAH', 'LRH', 'HL')
    >>> HeartsOptions(players=3, pass_cycle="LRAH").validate()
    Traceback (most recent call last):
    ...
    ValueError: option pass_cycle may not name A (across) with 3 players, not 'LRAH'
    """

    SETTINGS = HEARTS_SETTINGS

    target: int = 100
    pass_cycle: str = ""
    moon: str = "others_add"
    queen_breaks_hearts: bool = False
    jack_of_diamonds: bool = False
    players: int = 4

    def validate(self) -> None:
        """Raise ValueError for an option its setting does not take, or a pass across at three."""
        super().validate()
        if self.players == 3 and "A" in self.pass_cycle:
            raise ValueError(f"option pass_cycle may not name A (across) with 3 players, not {shown(self.pass_cycle)}")

    @property
    def cycle(self) -> str:
        """The pass cycle played: ``pass_cycle``, or the standard one of the table when it is empty."""
        return self.pass_cycle or STANDARD_CYCLES[self.players]


def cards_for(options: HeartsOptions) -> list[int]:
    """The deck of a game with these options: 52 cards, or 51 without the 2♦ for three players."""
    return THREE_PLAYER_DECK if options.players == 3 else DECK


def deck_mask(options: HeartsOptions) -> int:
    """The set of the cards a game with these options is dealt from."""
    return FULL_DECK & ~BITS[TWO_OF_DIAMONDS] if options.players == 3 else FULL_DECK


class HeartsState(TableState):
    """A Hearts game: the table plus hearts broken, the points taken, the passes of the hand and
    who won the J♦."""

    __slots__ = ("broken", "taken", "xgiven", "xgot", "jack")
    options: HeartsOptions

    def reset_hand(self) -> None:
        """Clear everything that belongs to one hand (cards, tricks, points taken, passes, the J♦)."""
        super().reset_hand()
        n = self.n
        self.broken = False
        self.taken = [0] * n          # points each seat won in tricks this hand (the J♦'s -10 included)
        self.xgiven = [NO_CARD] * n   # the cards each seat chose to pass (-1: none chosen, or a hold hand)
        self.xgot = [0] * n           # the cards each seat received, once every pass is delivered
        self.jack = NOBODY            # the seat that won the J♦ this hand, when it counts

    @classmethod
    def from_dict(cls, data: dict, options: Any, record_type: Any) -> TableState:
        """The state stored by ``to_dict``; one stored before the J♦ setting has nobody holding it."""
        if "jack" not in data:
            data = {**data, "jack": NOBODY}
        return super().from_dict(data, options, record_type)


@dataclass
class PassRecord(Record):
    """One seat's pass: to whom, the cards it gave and the cards it got."""

    seat: int
    to: int
    gave: str
    got: str


@dataclass
class HeartsHandRecord(HandRecord):
    """A finished Hearts hand: ``points`` each seat scored (after the moon), ``taken`` the points
    each won in tricks (the J♦'s −10 included), ``moon`` the seat that shot the moon (-1: nobody),
    ``direction`` the pass direction ("left", "right", "across", "hold"), ``passes`` every pass
    (none when held) and ``jack`` the seat that won the J♦ (-1: it does not count)."""

    direction: str
    taken: list[int]
    moon: int
    passes: list[PassRecord]
    jack: int = NOBODY


@dataclass
class HeartsRules:
    """What a Hearts view shows beyond the common part.

    ``pass_direction``: this hand's ("left", "right", "across", "hold"; while the next deal is
    awaited, the next hand's); ``points_taken``: the points each seat has won in tricks this hand
    (public: every trick is seen; the J♦'s −10 included); ``pass_given``: the viewer's own pass,
    once chosen (the cards stay in its hand until every seat has passed); ``pass_received``: the
    cards it received, once the passes are delivered; ``jack``: the seat that won the J♦ this hand
    (None: nobody yet, or it does not count). A spectator sees no pass.
    """

    pass_direction: str
    hearts_broken: bool
    points_taken: list[int]
    pass_given: list[int]
    pass_received: list[int]
    jack: Seat | None = None


@dataclass(frozen=True)
class HeartsSeat:
    """A seat's Hearts facts: whether it has chosen its pass this hand (public; not which cards)."""

    passed: bool


_SEATS = (HeartsSeat(False), HeartsSeat(True))


class PassChoices(ExchangeChoices):
    """Every Hearts pass of ``low``..``high`` cards from ``cards`` (a view shows them as one rule
    listing the eligible cards).

    >>> from engine.core.cards import parse_cards
    >>> from .hearts_words import pass_cards
    >>> choices = PassChoices(parse_cards("2C 3C 4C AS"), 3, 3)
    >>> len(choices), pass_cards(parse_cards("3C 4C AS")) in choices, pass_cards(parse_cards("2C 3C")) in choices
    (4, True, False)
    """

    __slots__ = ()

    def __init__(self, cards: int, low: int, high: int):
        super().__init__(cards, low, high, _PASS)

    def __repr__(self) -> str:
        return f"PassChoices({len(self)} ways to pass {self.low}..{self.high} cards)"


def direction_letter(options: HeartsOptions, hand_no: int) -> str:
    """The pass cycle's letter of hand number ``hand_no`` (the first hand is 1).

    >>> [direction_letter(HeartsOptions(), h) for h in range(1, 7)]
    ['L', 'R', 'A', 'H', 'L', 'R']
    >>> [direction_letter(HeartsOptions(players=3), h) for h in range(1, 6)]
    ['L', 'R', 'H', 'L', 'R']
    """
    cycle = options.cycle
    return cycle[(hand_no - 1) % len(cycle)]


def offset_of(letter: str, n: int) -> int:
    """How far clockwise a pass in the direction ``letter`` goes at a table of ``n`` seats: left
    to the next seat, right to the seat before (n − 1 on), across two on, hold nowhere (0).

    >>> [offset_of(letter, 4) for letter in "LRAH"], [offset_of(letter, 3) for letter in "LRH"]
    ([1, 3, 2, 0], [1, 2, 0])
    """
    return {"L": 1, "R": n - 1, "A": 2, "H": 0}[letter]


def pass_offset(state: HeartsState) -> int:
    """How far clockwise each seat passes in the current hand (0: a hold hand)."""
    return offset_of(direction_letter(state.options, state.hand_no), state.n)


def hand_points(cards: int) -> int:
    """The points of a set of cards: 1 a heart, 13 the Q♠.

    >>> from engine.core.cards import parse_cards
    >>> hand_points(parse_cards("2H AH QS KS 2C"))
    15
    """
    return (cards & HEART_MASK).bit_count() + (13 if cards >> QUEEN_OF_SPADES & 1 else 0)


def moon_points(taken: list[int], moon: str) -> tuple[list[int], Seat]:
    """Each seat's points for a hand from the points it took, and the seat that shot the moon.

    >>> moon_points([26, 0, 0, 0], "others_add"), moon_points([0, 26, 0, 0], "shooter_subtracts")
    (([0, 26, 26, 26], 0), ([0, -26, 0, 0], 1))
    >>> moon_points([13, 5, 8, 0], "others_add")
    ([13, 5, 8, 0], -1)
    """
    if MOON not in taken:
        return taken[:], NOBODY
    shooter = taken.index(MOON)
    if moon == "shooter_subtracts":
        return [-MOON if s == shooter else 0 for s in range(len(taken))], shooter
    return [0 if s == shooter else MOON for s in range(len(taken))], shooter


def hand_score(taken: list[int], jack: Seat, moon: str) -> tuple[list[int], Seat]:
    """Each seat's points for a hand from the points it took (the J♦'s −10 included, won by
    ``jack``; NOBODY: it does not count), and the seat that shot the moon: the moon is taking
    every heart and the Q♠, the J♦ aside, whose −10 its winner keeps in a moon hand too.

    >>> hand_score([16, 0, 0, 0], 0, "others_add"), hand_score([16, 0, 0, 0], 0, "shooter_subtracts")
    (([-10, 26, 26, 26], 0), ([-36, 0, 0, 0], 0))
    >>> hand_score([26, -10, 0], 1, "others_add"), hand_score([6, -5, 15], 1, "others_add")
    (([0, 16, 26], 0), ([6, -5, 15], -1))
    """
    if jack == NOBODY:
        return moon_points(taken, moon)
    base = taken[:]
    base[jack] -= JACK_POINTS
    points, shooter = moon_points(base, moon)
    points[jack] += JACK_POINTS
    return points, shooter


def hearts_winners(scores: list[int], target: int) -> list[int]:
    """The winning seat (a one-item list) once a score reached the target: the lowest; [] on a tie.

    >>> hearts_winners([100, 40, 62, 80], 100), hearts_winners([104, 40, 40, 80], 100)
    ([1], [])
    >>> hearts_winners([9, 9, 9, 8], 100)
    []
    """
    if max(scores) < target:
        return []
    return best_side(scores, list(range(len(scores))), high=False)


# ---- legal actions ----

def playable(state: HeartsState, seat: Seat) -> int:
    """The cards ``seat`` may play now (it being its turn): the 2♣ to the first lead; the led suit
    when it holds one; on the first trick no point card unless it holds nothing else; no heart led
    before hearts are broken unless it holds nothing else."""
    hand = state.hands[seat]
    trick = state.trick_cards
    first = not any(state.tricks)
    if trick:
        follow = hand & SUIT_MASKS[trick[0] // 13]
        if follow:
            return follow
        if first:
            return hand & ~POINT_CARDS or hand
        return hand
    if first:
        return hand & BITS[TWO_OF_CLUBS]
    if state.broken:
        return hand
    return hand & ~HEART_MASK or hand


def legal(state: HeartsState, seat: Seat) -> Sequence[Action]:
    """Every action open to ``seat`` now in Hearts: in the pass, every choice of three of its cards
    (a lazy sequence) until it has passed."""
    phase = state.phase
    if phase == _PLAYING:
        return play_actions(playable(state, seat)) if seat == state.turn else []
    if phase == _PASSING:
        return PassChoices(state.hands[seat], PASS_SIZE, PASS_SIZE) if state.xgiven[seat] == NO_CARD else []
    if phase == _DEAL:
        return [DEAL] if seat == state.turn else []
    return []


def pass_choice(state: HeartsState, seat: Seat) -> tuple[int, int, int, int] | None:
    """(eligible cards, fewest, most, the pass's code) for the seat's pass while it has not
    passed, or None."""
    if state.phase != _PASSING or state.xgiven[seat] != NO_CARD:
        return None
    return state.hands[seat], PASS_SIZE, PASS_SIZE, _PASS


# ---- the deal and the pass ----

def apply_deal(state: HeartsState, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """Deal the whole deck (13 cards each, 17 of three); open the pass (no turn: every seat
    chooses), or play in a hold hand."""
    cards = cards_for(state.options)
    deck, chance = open_hand(state, seat, action, cards, rng, chance)
    deal_round_robin(state, deck, len(cards))
    state.looked = (1 << state.n) - 1
    if pass_offset(state):
        state.phase = Phase.PASS
        state.turn = NOBODY
    else:
        _start_play(state)
    return chance


def apply_pass(state: HeartsState, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """Choose three cards to pass (once); when every seat has chosen, every pass is delivered."""
    if kind_of(action) != _PASS:
        wrong_phase(state, action)
    if state.xgiven[seat] != NO_CARD:
        reject(HeartsReason.INVALID_PASS, f"seat {seat} has already passed")
    state.xgiven[seat] = check_cards(state, seat, action, PASS_SIZE, PASS_SIZE, HeartsReason.INVALID_PASS, "pass")
    if NO_CARD not in state.xgiven:
        _deliver(state)
    return None


def _deliver(state: HeartsState) -> None:
    n = state.n
    offset = pass_offset(state)
    hands, given = state.hands, state.xgiven
    for s in range(n):
        hands[s] &= ~given[s]
    for s in range(n):
        to = (s + offset) % n
        hands[to] |= given[s]
        state.xgot[to] = given[s]
    _start_play(state)


def _start_play(state: HeartsState) -> None:
    """Open trick play: the holder of the 2♣ leads it."""
    state.phase = Phase.PLAY
    state.turn = next(s for s in range(state.n) if state.hands[s] >> TWO_OF_CLUBS & 1)


# ---- trick play ----

def apply_play(state: HeartsState, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """Play one card, closing the trick and the hand when they are complete."""
    if kind_of(action) != _PLAY:
        wrong_phase(state, action)
    if seat != state.turn:
        require_turn(state, seat)
    card = payload_of(action)
    hand = state.hands[seat]
    if card > 51 or not hand >> card & 1:
        reject(Reason.CARD_NOT_IN_HAND,
               f"seat {seat} does not hold {card_name(card) if 0 <= card < 52 else f'card #{card}'}")
    trick = state.trick_cards
    suit = card // 13
    bit = 1 << card
    if not trick:
        if card != TWO_OF_CLUBS and not any(state.tricks):
            reject(HeartsReason.MUST_LEAD_TWO_OF_CLUBS, "the 2C leads the first trick")
        if suit == HEARTS and not state.broken:
            if hand & ~HEART_MASK:
                reject(HeartsReason.HEARTS_NOT_BROKEN, f"{card_name(card)} cannot be led before hearts are broken")
            state.voids |= _ONLY_HEARTS << 4 * seat                # it holds nothing but hearts
    else:
        led = trick[0] // 13
        if suit != led:
            if hand & SUIT_MASKS[led]:
                reject(Reason.MUST_FOLLOW_SUIT,
                       f"{card_name(card)} does not follow {SUIT_LETTERS[led]} and seat {seat} holds one")
            if bit & POINT_CARDS and not any(state.tricks):
                if hand & ~POINT_CARDS:
                    reject(HeartsReason.NO_POINTS_ON_FIRST_TRICK,
                           f"{card_name(card)} counts points: not on the first trick while seat {seat} holds "
                           "another card")
                state.voids |= _NO_DIAMONDS << 4 * seat            # it holds nothing but hearts and the Q♠
            state.voids |= 1 << (4 * seat + led)                   # shown out of the led suit
    if suit == HEARTS:
        state.broken = True
    elif card == QUEEN_OF_SPADES and state.options.queen_breaks_hearts:
        state.broken = True
    state.hands[seat] = hand ^ bit
    state.played[seat] |= bit
    state.trick_seats.append(seat)
    trick.append(card)
    n = state.n
    if len(trick) < n:
        state.turn = seat + 1 if seat + 1 < n else 0
        return None
    cards = sum(map(BITS.__getitem__, trick))               # distinct cards: the sum is their union
    high = cards & SUIT_MASKS[trick[0] // 13]                # no trump: the highest of the led suit
    winner = finish_trick(state, trick.index(high.bit_length() - 1))
    points = hand_points(cards)
    if cards >> JACK_OF_DIAMONDS & 1 and state.options.jack_of_diamonds:
        points += JACK_POINTS
        state.jack = winner
    state.taken[winner] += points
    if not any(state.hands):
        _end_hand(state)
    return None


def _end_hand(state: HeartsState) -> None:
    """Score the hand (the moon as the option says), record it, and end the game or pass the deal."""
    options = state.options
    n = state.n
    points, shooter = hand_score(state.taken, state.jack, options.moon)
    for s in range(n):
        state.scores[s] += points[s]
    offset = pass_offset(state)
    passes = [PassRecord(s, (s + offset) % n, cards_text(state.xgiven[s]), cards_text(state.xgot[s]))
              for s in range(n) if state.xgiven[s] != NO_CARD]
    state.records.append(HeartsHandRecord(
        **record_base(state), points=points, totals=state.scores[:],
        direction=DIRECTION_NAMES[direction_letter(options, state.hand_no)], taken=state.taken[:], moon=shooter,
        passes=passes, jack=state.jack))
    state.winner = hearts_winners(state.scores, options.target)
    end_game_or_pass_deal(state, high_wins=False)


# ---- views, records and the log as a seat may see them ----

def view(state: HeartsState, seat: Seat | None) -> View:
    """What ``seat`` (None: a spectator) may know of a Hearts game: its own pass, never another's."""
    if seat is None:
        v = table_view(state, None, [], None)
    else:
        v = table_view(state, seat, legal(state, seat), pass_choice(state, seat))
    playing = in_hand(state)
    given = state.xgiven
    for info in v.seats:
        info.rules = _SEATS[playing and given[info.seat] != NO_CARD]
    hand_no = state.hand_no + (state.phase == _DEAL)                 # between hands: the next one's
    direction = DIRECTION_NAMES[direction_letter(state.options, hand_no)]
    if playing:
        mine = given[seat] if seat is not None and given[seat] != NO_CARD else 0
        got = state.xgot[seat] if seat is not None else 0
        jack = state.jack if state.jack != NOBODY else None
        v.rules = HeartsRules(direction, state.broken, state.taken[:], card_list(mine), card_list(got), jack)
    else:
        v.rules = HeartsRules(direction, False, [0] * state.n, [], [])
    return v


def record_for(record: HeartsHandRecord, seat: Seat | None) -> HeartsHandRecord:
    """A hand record as ``seat`` may see it (None: a spectator): of the passes, only its own and
    the one it received (without what that passer got in turn)."""
    passes = [p if p.seat == seat else PassRecord(p.seat, p.to, p.gave, "")
              for p in record.passes if seat is not None and seat in (p.seat, p.to)]
    return replace(record, passes=passes)


# ---- determinizing: the hidden cards of a seat's view, and states built from a view ----

def _before_first_lead(view: View) -> bool:
    """Whether the first trick of the hand is still to be led (the seat in turn holds the 2♣)."""
    return view.phase == Phase.PLAY and not view.trick and not any(info.played for info in view.seats)


def hidden(view: View) -> Hidden:
    """The cards the viewer cannot see: the other hands, less the cards it passed (in its
    receiver's hand once delivered); during the pass, the three cards each seat that has passed
    chose (a "gift" place). Before the first lead the seat in turn holds the 2♣."""
    me = view.viewer
    assert me is not None
    if view.phase not in (Phase.PASS, Phase.PLAY):
        return Hidden(0, ())
    rules: HeartsRules = view.rules
    given, received = mask(rules.pass_given), mask(rules.pass_received)
    known = mask(view.hand) | public_cards(view)
    n = len(view.seats)
    to = (me + offset_of(_LETTERS[rules.pass_direction], n)) % n
    at_receiver = given & ~known if received else 0
    unknown = deck_mask(view.options) & ~known & ~at_receiver
    leader = view.turn if _before_first_lead(view) else None
    places = []
    for info in view.seats:
        s = info.seat
        if s == me:
            continue
        allowed = unknown & ~shown_out(view, s, SUIT_MASKS)
        if leader is not None and s != leader:
            allowed &= ~BITS[TWO_OF_CLUBS]
        count = info.card_count - (at_receiver.bit_count() if s == to else 0)
        if view.phase == Phase.PASS and info.rules.passed:
            places.append(Place("gift", s, PASS_SIZE, allowed))
            count -= PASS_SIZE
        if count:
            places.append(Place("hand", s, count, allowed))
    return Hidden(unknown, tuple(places))


def determinize(view: View, places: Hidden, fills: Sequence[Sequence[int]]) -> HeartsState:
    """The Hearts state of ``view`` with the places of ``places`` (its ``hidden``) holding ``fills``.

    Passes the viewer cannot know (between two other seats) are kept as passes of no cards."""
    me = view.viewer
    assert me is not None
    state = new_state(view.options, view.dealer)
    n = state.n
    restore_table(state, view)
    state.looked = (1 << n) - 1 if view.hand is not None else 0
    if view.phase not in (Phase.PASS, Phase.PLAY):
        return state
    got = filled(places, fills)
    rules: HeartsRules = view.rules
    given, received = mask(rules.pass_given), mask(rules.pass_received)
    offset = offset_of(_LETTERS[rules.pass_direction], n)
    to, giver = (me + offset) % n, (me - offset) % n
    for s in range(n):
        state.hands[s] = mask(got.get(("hand", s))) | mask(got.get(("gift", s)))
    state.hands[me] = mask(view.hand)
    if received:
        state.hands[to] |= given & ~(mask(view.hand) | public_cards(view))
    state.broken = rules.hearts_broken
    state.taken = list(rules.points_taken)
    state.jack = rules.jack if rules.jack is not None else NOBODY
    for info in view.seats:
        s = info.seat
        if not info.rules.passed:
            continue
        if s == me:
            state.xgiven[s] = given
        elif ("gift", s) in got:
            state.xgiven[s] = mask(got[("gift", s)])
        elif s == giver:
            state.xgiven[s] = received
        else:
            state.xgiven[s] = 0          # a pass between two other seats: which cards is never shown
    if received:
        state.xgot[me], state.xgot[to] = received, given
    return state


APPLY: dict[int, ApplyStep] = {Phase.DEAL: apply_deal, Phase.PASS: apply_pass, Phase.PLAY: apply_play}
LEGAL: dict[int, LegalStep] = {phase: legal for phase in APPLY}


def new_state(options: HeartsOptions, first_dealer: Seat) -> HeartsState:
    """A Hearts game before its first deal, every player at 0 (as many as ``options.players``)."""
    n = options.players
    return HeartsState(NAME, options, n, n, first_dealer)


GAME = Game(name=NAME, seats=4, cards=tuple(DECK), options_type=HeartsOptions, state_type=HeartsState,
            record_type=HeartsHandRecord, new_state=new_state, legal=LEGAL, apply=APPLY, view=view,
            hidden=hidden, determinize=determinize, title="Hearts", reasons=HeartsReason, low_score_wins=True,
            words=WORDS, phases=PHASES, seat_setting="players", cards_for=cards_for)
