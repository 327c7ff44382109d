"""What Hearts is made of: the game's name and decks, its table settings (``HeartsOptions``,
RULES.md §4.1) and reason codes, the state of a game (``HeartsState``), its hand records, what a
view shows of the Hearts rules (``HeartsRules``, ``HeartsSeat``), the passes a seat may choose
(``PassChoices``) and the pass cycle.

The rules that work on them live beside this module: the scoring of a hand in
``engine.games.hearts_scoring``, states built from a view in ``engine.games.hearts_determinize``,
and the flow of the game with its registration in ``engine.games.hearts``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ..core.cards import BITS, CLUBS, DIAMONDS, HEARTS, SPADES, SUIT_MASKS, make_card
from ..core.choices import ExchangeChoices
from ..core.options import GameOptions, Setting, shown
from ..core.records import HandRecord, Record
from ..core.table import NO_CARD, NOBODY, Seat, TableState
from .hearts_words import HeartsCode

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
PASS_CODE = int(HeartsCode.PASS)
"""The code of a pass (``HeartsCode.PASS``), read once."""

DIRECTION_NAMES = {"L": "left", "R": "right", "A": "across", "H": "hold"}
"""The letters of the pass cycle option, and the word a view and a hand record show for each."""
DIRECTION_LETTERS = {name: letter for letter, name in DIRECTION_NAMES.items()}
"""The letter of each pass direction a view shows."""
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
        super().__init__(cards, low, high, PASS_CODE)

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



def new_state(options: HeartsOptions, first_dealer: Seat) -> HeartsState:
    """A Hearts game before its first deal, every player at 0 (as many as ``options.players``)."""
    n = options.players
    return HeartsState(NAME, options, n, n, first_dealer)
