"""A game's words: the phases it has and the actions it takes, with their notation.

The core knows only the *shapes* of actions (what an action carries: nothing, a card, a number,
a suit or a set of cards) and the machinery to write and read them; every game declares its own
words, as it declares its reason codes. An action word is a code (the low byte of the game's
actions, see ``engine.core.actions``), the word of its notation, its shape and a title a client
can show; a phase is a code, a name and a title.

>>> from .actions import DEAL_WORD, PLAY_WORD
>>> bid = Word(5, "bid", Shape.NUMBER, "Bid", numbers={"nil": 0})
>>> words = Vocabulary("example", (DEAL_WORD, bid, PLAY_WORD), ())
>>> words.name(words.parse("bid nil")), words.name(words.parse("play as")), words.name(1)
('bid 0', 'play AS', 'deal')
>>> words.parse("fold")
Traceback (most recent call last):
...
ValueError: not an action of example: 'fold' (its words: bid, deal, play)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import IntEnum

from .cards import CARD_COUNT, SUIT_LETTERS, card_name, cards_text, parse_card, parse_suit

CODE_BITS = 8
"""The low bits of an action that hold its word's code: 255 words for each game."""
CODE_MASK = (1 << CODE_BITS) - 1
DUPLICATE_FLAG = 1 << 60
"""Set in a card set's payload when the caller listed a card twice (never held, so rejected)."""
_CARDS_MASK = (1 << CARD_COUNT) - 1
_NEGATIVE = re.compile(r"-[1-9][0-9]*")


class Shape(IntEnum):
    """What an action carries beside its word, and so what a client offers to choose."""

    NONE = 1     # nothing: "deal", "pass"
    CARD = 2     # one card: "play AS"
    NUMBER = 3   # a number: "bid 4"
    SUIT = 4     # a suit: "name H"
    CARDS = 5    # a set of cards: "exchange 2C 3D 4H" (how many: the view's rule for it)


@dataclass(frozen=True)
class Word:
    """One action word of a game: its code, its notation's word, its shape and its title.

    ``numbers`` names numbers a NUMBER word also takes in notation ("bid nil" is "bid 0");
    ``optional`` marks an action a seat may take but never has to, out of turn too (Spades' look
    at one's cards): a seat whose only legal actions are optional has nothing to do; ``jokers``
    lets a CARD or CARDS word read the jokers' names (``BJ``, ``LJ``) in its notation, for a game
    that may be played with them (any word writes them).
    """

    code: int
    word: str
    shape: Shape
    title: str = ""
    numbers: Mapping[str, int] = field(default_factory=dict)
    optional: bool = False
    jokers: bool = False

    def __post_init__(self) -> None:
        if not 0 < self.code <= CODE_MASK:
            raise ValueError(f"action word {self.word!r}: its code must be from 1 to {CODE_MASK}, not {self.code}")
        if not self.word or self.word != self.word.strip().lower() or " " in self.word:
            raise ValueError(f"action word {self.word!r}: one lowercase word without spaces")
        if not self.title:
            object.__setattr__(self, "title", self.word.replace("-", " ").capitalize())


@dataclass(frozen=True)
class PhaseWord:
    """One phase of a game: its code (``state.phase``), its name and its title."""

    code: int
    name: str
    title: str = ""

    def __post_init__(self) -> None:
        if not self.title:
            object.__setattr__(self, "title", self.name.replace("_", " ").capitalize())


def phase_words(phases: type[IntEnum], titles: Mapping[str, str] | None = None) -> tuple[PhaseWord, ...]:
    """The phase words of an IntEnum of phases: each member's value, its name in lowercase, and a
    title from ``titles`` (by lowercase name; else the name capitalised).

    >>> class P(IntEnum):
    ...     DEAL = 1
    ...     NAME_TRUMP = 7
    >>> [(p.code, p.name, p.title) for p in phase_words(P, {"deal": "Deal"})]
    [(1, 'deal', 'Deal'), (7, 'name_trump', 'Name trump')]
    """
    titles = titles or {}
    return tuple(PhaseWord(int(m), m.name.lower(), titles.get(m.name.lower(), "")) for m in phases)


class Vocabulary:
    """A game's words: every action word by code and by word, every phase by code.

    It writes and reads the game's notation: ``name(action)`` and ``parse(text)`` are inverses.
    """

    def __init__(self, game: str, words: Iterable[Word], phases: Iterable[PhaseWord]):
        self.game = game
        self.words: tuple[Word, ...] = tuple(words)
        self.phases: tuple[PhaseWord, ...] = tuple(phases)
        self.by_code: dict[int, Word] = {}
        self.by_word: dict[str, Word] = {}
        for word in self.words:
            if word.code in self.by_code or word.word in self.by_word:
                raise ValueError(f"{game}: action word {word.word!r} or its code {word.code} is declared twice")
            self.by_code[word.code] = word
            self.by_word[word.word] = word
        self.phase_by_code: dict[int, PhaseWord] = {}
        for phase in self.phases:
            if phase.code in self.phase_by_code:
                raise ValueError(f"{game}: phase code {phase.code} is declared twice")
            self.phase_by_code[phase.code] = phase

    def word_of(self, action: int) -> Word | None:
        """The word of an action (None for a code the game does not have)."""
        return self.by_code.get(action & CODE_MASK)

    def is_optional(self, action: int) -> bool:
        """Whether an action is one a seat may take but never has to (``Word.optional``)."""
        word = self.by_code.get(action & CODE_MASK)
        return word is not None and word.optional

    def phase(self, code: int) -> PhaseWord:
        """The phase of this code; ValueError for one the game does not have."""
        phase = self.phase_by_code.get(code)
        if phase is None:
            raise ValueError(f"{self.game} has no phase {code}")
        return phase

    def name(self, action: int) -> str:
        """The notation of an action: ``deal``, ``play AS``, ``bid 4``, ``name H``, ``exchange 2C 3D``;
        ``action #n`` for an int that is none of the game's."""
        word = self.by_code.get(action & CODE_MASK)
        payload = action >> CODE_BITS
        if word is None:
            return f"action #{action}"
        shape = word.shape
        if shape is Shape.CARD:
            return f"{word.word} " + (card_name(payload) if 0 <= payload < CARD_COUNT else f"card #{payload}")
        if shape is Shape.NUMBER:
            return f"{word.word} {payload}"
        if shape is Shape.SUIT:
            return f"{word.word} " + (SUIT_LETTERS[payload] if 0 <= payload < 4 else f"suit #{payload}")
        if shape is Shape.CARDS:
            cards = payload & _CARDS_MASK
            extra = " and unknown cards" if payload & ~cards & ~DUPLICATE_FLAG else ""
            return (word.word + " " + cards_text(cards)).rstrip() + extra
        return word.word if not payload else f"action #{action}"

    def parse(self, text: str) -> int:
        """The action written as by :meth:`name`; ValueError if it is not one of the game's.

        A card set takes its cards in any order, separated by spaces or commas; a card listed
        twice gives an action the rules refuse (its payload carries DUPLICATE_FLAG), not a
        ValueError: only a word that is no card is malformed.
        """
        head, _, rest = text.strip().lower().partition(" ")
        rest = rest.strip()
        word = self.by_word.get(head)
        if word is None:
            raise ValueError(f"not an action of {self.game}: {text!r} (its words: {', '.join(sorted(self.by_word))})")
        shape, code = word.shape, word.code
        if shape is Shape.NONE:
            if rest:
                raise ValueError(f"{word.word!r} takes nothing after it, not {rest!r}")
            return code
        if shape is Shape.CARD:
            return code | parse_card(rest, word.jokers) << CODE_BITS
        if shape is Shape.NUMBER:
            if rest in word.numbers:
                return code | word.numbers[rest] << CODE_BITS
            if not (rest.isdigit() or _NEGATIVE.fullmatch(rest)):   # a negative number is the rules' to refuse
                raise ValueError(f"{word.word!r} takes a number, not {rest!r}")
            return code | int(rest) << CODE_BITS
        if shape is Shape.SUIT:
            return code | parse_suit(rest) << CODE_BITS
        return code | card_set_of([parse_card(w, word.jokers) for w in rest.replace(",", " ").split()]) << CODE_BITS

    def notation_help(self) -> str:
        """The game's words as a one-line reminder: ``bid N, deal, play CARD``."""
        arg = {Shape.NONE: "", Shape.CARD: " CARD", Shape.NUMBER: " N", Shape.SUIT: " SUIT", Shape.CARDS: " CARDS"}
        return ", ".join(w.word + arg[w.shape] for w in sorted(self.words, key=lambda w: w.word))


def card_set_of(cards: Iterable[int]) -> int:
    """The card set of the listed cards as a payload; a card listed twice sets DUPLICATE_FLAG."""
    mask = 0
    for c in cards:
        mask |= DUPLICATE_FLAG if mask >> c & 1 else 1 << c
    return mask


VOCABULARIES: dict[str, Vocabulary] = {}
"""Every registered game's vocabulary by its game's name (``engine.register`` fills it)."""


def vocabulary_of(game: str) -> Vocabulary:
    """The vocabulary of a registered game; ValueError for another name."""
    found = VOCABULARIES.get(game)
    if found is None:
        raise ValueError(f"no game {game!r} is registered")
    return found


def notation(game: str, action: int) -> str:
    """The notation of one of a registered game's actions."""
    return vocabulary_of(game).name(action)
