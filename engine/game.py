"""The Game protocol, the registry of games, and the engine's entry points over it.

A game is one module that builds a :class:`Game`: its seats, deck, options, state and hand
record types, one legal/apply step per phase, and its view. ``register`` adds it to ``GAMES``
(the built-in games, ``engine.games.BUILTIN``, are registered by ``engine/__init__.py``); every entry point
dispatches on ``state.variant`` and fails loudly for a game that is not registered. A game whose
number of seats or deck depends on its options says so (``seat_setting``, ``cards_for``), and
the entry points follow them; a state knows its own number of seats (``state.n``).

Chance is recorded: ``apply`` returns the outcome of any random event it drew (a deal's deck
and salt, the cards a draw took), and ``replay`` folds a log of (seat, action, outcome) entries
back into the exact state, drawing no randomness at all.
"""

from __future__ import annotations

import json
import random
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple, NoReturn

from .core.actions import DEAL, DEAL_WORD, PLAY_WORD, Action
from .core.cards import CARD_COUNT, Card, card_name, to_set
from .core.dealing import Chance
from .core.errors import IllegalAction, Reason
from .core.hidden import Hidden
from .core.options import GameOptions, Setting, check_settings
from .core.records import HandRecord
from .core.table import Phase, Seat, TableState
from .core.views import View
from .core.vocabulary import VOCABULARIES, PhaseWord, Shape, Vocabulary, Word, phase_words

LegalStep = Callable[[Any, Seat], Sequence[Action]]
ApplyStep = Callable[[Any, Seat, Action, random.Random, "Chance | None"], "Chance | None"]

_SYSTEM_RANDOM = secrets.SystemRandom()
_GAME_OVER = Phase.GAME_OVER


CORE_PHASES = phase_words(Phase, {"deal": "Deal", "play": "Play", "game_over": "Game over"})
"""The phases of the shared machinery, which every game has: deal, play, game over."""


def redact_cards(words: Vocabulary, action: Action) -> str:
    """An action as an open hand's log shows it: the cards of a CARDS word (an exchange, a
    discard, a pass) hidden, its word alone; every other action as it is.

    >>> words = Vocabulary("x", (Word(7, "exchange", Shape.CARDS), PLAY_WORD), ())
    >>> redact_cards(words, 7 | 0b111 << 8), redact_cards(words, PLAY_WORD.code | 51 << 8)
    ('exchange', 'play AS')
    """
    word = words.word_of(action)
    return word.word if word is not None and word.shape is Shape.CARDS else words.name(action)


@dataclass(frozen=True)
class Game:
    """What a game module provides to the engine (and through it to the service and bots).

    - ``new_state(options, first_dealer)`` builds the state before the first deal;
    - ``legal[phase](state, seat)`` lists the actions ``seat`` may take in that phase, and
      ``apply[phase](state, seat, action, rng, chance)`` applies one in place after checking it
      (raising IllegalAction with nothing changed), drawing randomness from ``rng`` only when
      ``chance`` is None, and returns the chance outcome it used (None if it used none);
    - ``view(state, seat)`` is what ``seat`` (None: a spectator) may know, legal actions included;
    - ``bags(state)`` each side's carried bags, for games that count them;
    - optionally, for search bots, ``hidden(view)`` what the viewer cannot see (the unknown cards
      and the places they may be in) and ``determinize(view, hidden, fills)`` the whole state in
      which those places hold ``fills``, which the viewer cannot tell from the real one
      (``engine.core.hidden``);
    - ``title``, its display name (by default the name with spaces, capitalised: "whist" ->
      "Whist"), and ``aliases``, other names it is known by; :func:`find_game` finds a game by
      its name, title or an alias written in any case, with "-", "_" or spaces between words;
    - ``low_score_wins``: whether the lowest score is the best (Buck Euchre counts down, Hearts
      counts points against), as its own end-of-game rule applies it;
    - ``reasons``, the StrEnum of its own reason codes beyond the core's :class:`Reason` (None:
      it gives only those);
    - ``words``, its action words (``engine.core.vocabulary.Word``: a code, the notation's word,
      a shape, a title; by default the shared ``deal`` and ``play``), and ``phases``, its phases
      (by default the shared deal, play and game over): its ``vocabulary`` writes and reads its
      notation, and names its phases;
    - ``redact(action)``, the notation a game's log shows for one of its actions while the hand
      it belongs to is still open (its deck and chance outcomes are hidden until then too), read
      through :meth:`Game.redacted`: by default :func:`redact_cards`, which writes the action of
      any CARDS word as its word alone (the Double Nil exchange, a discard, a pass), and every
      other action as it is;
    - ``seat_setting``, for a game played by more than one number of players: the name of its
      integer setting whose value is the number of seats (its range: every count the game takes,
      :attr:`Game.seat_counts`; its default: ``seats``); :meth:`Game.seats_for` reads it;
    - ``cards_for(options)``, for a game whose deck depends on its options: the cards of a game
      with those options (by default ``cards``, the deck of its default options), read through
      :meth:`Game.deck_for`.
    """

    name: str
    seats: int
    cards: tuple[Card, ...]
    options_type: type[GameOptions]
    state_type: type[TableState]
    record_type: type[HandRecord]
    new_state: Callable[[Any, Seat], TableState]
    legal: Mapping[int, LegalStep]
    apply: Mapping[int, ApplyStep]
    view: Callable[[Any, Seat | None], View]
    bags: Callable[[Any], list[int]] | None = None
    hidden: Callable[[View], Hidden] | None = None
    determinize: Callable[[View, Hidden, Sequence[Sequence[Card]]], TableState] | None = None
    title: str = ""
    aliases: tuple[str, ...] = ()
    low_score_wins: bool = False
    reasons: type[StrEnum] | None = None
    words: tuple[Word, ...] = (DEAL_WORD, PLAY_WORD)
    phases: tuple[PhaseWord, ...] = CORE_PHASES
    redact: Callable[[Action], str] | None = None
    seat_setting: str = ""
    cards_for: Callable[[Any], Sequence[Card]] | None = None
    deck_mask: int = field(init=False)
    vocabulary: Vocabulary = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "deck_mask", to_set(self.cards))
        if not self.title:
            object.__setattr__(self, "title", self.name.replace("_", " ").capitalize())
        words = Vocabulary(self.name, self.words, self.phases)
        object.__setattr__(self, "vocabulary", words)
        check_settings(self.options_type)
        steps = set(self.legal) | set(self.apply)
        missing = sorted(code for code in steps if code not in words.phase_by_code)
        if missing:
            raise ValueError(f"{self.name}: the phases {missing} have steps but no declared word")
        if self.seat_setting:
            setting = next((s for s in self.options_type.SETTINGS if s.name == self.seat_setting), None)
            if setting is None or setting.kind != "integer" or setting.default != self.seats:
                raise ValueError(f"{self.name}: its seat setting {self.seat_setting!r} must be one of its integer "
                                 f"settings, with {self.seats} seats as its default")

    def seats_for(self, options: Any) -> int:
        """How many seats a game of these options has: its ``seat_setting``'s value, else ``seats``."""
        return getattr(options, self.seat_setting) if self.seat_setting else self.seats

    @property
    def seat_counts(self) -> tuple[int, ...]:
        """Every number of seats the game is played with, fewest first.

        >>> game_of("hearts").seat_counts, game_of("spades").seat_counts
        ((3, 4), (4,))
        """
        if not self.seat_setting:
            return (self.seats,)
        setting = next(s for s in self.options_type.SETTINGS if s.name == self.seat_setting)
        assert setting.low is not None and setting.high is not None
        return tuple(range(setting.low, setting.high + 1))

    def deck_for(self, options: Any) -> int:
        """The set of the cards a game of these options is dealt from."""
        return to_set(self.cards_for(options)) if self.cards_for is not None else self.deck_mask

    @property
    def settings(self) -> tuple[Setting, ...]:
        """The rule options this game takes, as its options declare them."""
        return self.options_type.settings_for(self.name)

    def redacted(self, action: Action) -> str:
        """The notation the game's log shows for ``action`` while its hand is open (``redact``)."""
        return self.redact(action) if self.redact is not None else redact_cards(self.vocabulary, action)

    @property
    def spellings(self) -> frozenset[str]:
        """Every name the game answers to, folded (:func:`fold_name`): its name, title and aliases."""
        return frozenset(fold_name(text) for text in (self.name, self.title, *self.aliases))


GAMES: dict[str, Game] = {}
"""Every registered game by its name (``state.variant``)."""


def fold_name(text: str) -> str:
    """A game's name as written anywhere, folded for matching: trimmed, lowercase, words joined by "_".

    >>> fold_name(" Buck-Euchre "), fold_name("Two-player Spades")
    ('buck_euchre', 'two_player_spades')
    """
    return "_".join(text.strip().lower().replace("-", " ").replace("_", " ").split())


def register(game: Game) -> Game:
    """Add a game to the registry; ValueError if another game already has its name, or answers to
    one of its title or aliases."""
    if GAMES.get(game.name, game) is not game:
        raise ValueError(f"a different game is already registered as {game.name!r}")
    for other in GAMES.values():
        shared = other.spellings & game.spellings if other is not game else frozenset()
        if shared:
            raise ValueError(f"{game.name!r} and {other.name!r} both answer to {', '.join(sorted(shared))}")
    GAMES[game.name] = game
    VOCABULARIES[game.name] = game.vocabulary
    return game


def find_game(text: str) -> Game | None:
    """The registered game ``text`` names (its name, title or an alias, in any case, with "-", "_"
    or spaces between words), or None.

    >>> find_game("Buck-Euchre").name, find_game("spades_two_player").name, find_game("bridge")
    ('buck_euchre', 'spades2', None)
    """
    game = GAMES.get(text)
    if game is not None:
        return game
    folded = fold_name(text)
    return next((game for game in GAMES.values() if folded in game.spellings), None)


def unregister(name: str) -> None:
    """Remove a game from the registry (tests that register games of their own use it)."""
    GAMES.pop(name, None)
    VOCABULARIES.pop(name, None)


def game_of(variant: str) -> Game:
    """The registered game of this name; ValueError for any other name."""
    game = GAMES.get(variant)
    if game is None:
        raise ValueError(f"unknown variant {variant!r} (one of {', '.join(sorted(GAMES))})")
    return game


class LogEntry(NamedTuple):
    """One step of a game's log: who did what, and the chance outcome it drew (if any)."""

    seat: Seat
    action: Action
    chance: Chance | None = None


def new_game(variant: str, options: Any = None, rng: random.Random | None = None,
             first_dealer: Seat | None = None, decks: Iterable[Sequence[Card]] | None = None) -> TableState:
    """A new game waiting for its first deal; ValueError on a bad variant, option, dealer or deck.

    ``decks`` are prearranged decks (top first), used one per hand before shuffling resumes.
    """
    game = game_of(variant)
    cls = game.options_type
    options = options if options is not None else cls()
    if not isinstance(options, cls):
        raise ValueError(f"{variant} takes {cls.__name__}, not {type(options).__name__}")
    options.validate()
    n = game.seats_for(options)
    if first_dealer is None:
        first_dealer = (rng or _SYSTEM_RANDOM).randrange(n)
    if not 0 <= first_dealer < n:
        raise ValueError(f"first dealer must be a seat from 0 to {n - 1}, not {first_dealer}")
    state = game.new_state(options, first_dealer)
    for i, deck in enumerate(decks or []):
        check_deck(variant, deck, i, options)
        state.decks.append(list(deck))
    return state


def check_deck(variant: str, deck: Sequence[Card], index: int = 0, options: Any = None) -> None:
    """Raise ValueError unless ``deck`` holds every card of the variant exactly once (of a game
    with ``options``, when its deck depends on them, jokers included where they are its cards;
    None: its default options)."""
    game = game_of(variant)
    want = game.deck_mask if options is None else game.deck_for(options)
    mask = 0
    for c in deck:
        if not 0 <= c < CARD_COUNT or not want >> c & 1:
            name = card_name(c) if 0 <= c < CARD_COUNT else c
            raise ValueError(f"deck {index + 1}: {name} is not a card of {variant}")
        if mask >> c & 1:
            raise ValueError(f"deck {index + 1}: {card_name(c)} appears twice")
        mask |= 1 << c
    if mask != want:
        raise ValueError(f"deck {index + 1}: {want.bit_count() - mask.bit_count()} cards are missing")


def notation(variant: str, action: Action) -> str:
    """The notation of one of the game's actions: ``play AS``, ``bid 4``, ``order-up``."""
    return game_of(variant).vocabulary.name(action)


def parse_notation(variant: str, text: str) -> Action:
    """The action of the game's notation ``text``; ValueError if it is none of the game's words."""
    return game_of(variant).vocabulary.parse(text)


def phase_of(state: TableState) -> PhaseWord:
    """The game's word for the state's phase."""
    return GAMES[state.variant].vocabulary.phase(state.phase)


def legal_actions(state: TableState, seat: Seat) -> Sequence[Action]:
    """Every action ``seat`` may take now (empty when it has none); exchanges come as a lazy sequence."""
    try:                             # a phase without a step is rare: no .get() call on the hot path
        step = GAMES[state.variant].legal[state.phase]
    except KeyError:
        if state.variant not in GAMES:
            raise                    # an unregistered game fails loudly
        return []
    if seat < 0 or seat >= state.n:
        return []
    return step(state, seat)


def apply(state: TableState, seat: Seat, action: Action, rng: random.Random | None = None,
          chance: Chance | None = None) -> Chance | None:
    """Apply one action of ``seat`` in place; IllegalAction leaves the state unchanged.

    Returns the chance outcome the action drew from ``rng`` (None for an action without
    chance); passing that outcome back as ``chance`` replays it without drawing.
    """
    try:                             # as in legal_actions: no .get() call on the hot path
        step: ApplyStep | None = GAMES[state.variant].apply[state.phase]
    except KeyError:
        if state.variant not in GAMES:
            raise                    # an unregistered game fails loudly
        step = None                  # refused below, with no KeyError chained to the refusal
    if step is None or seat < 0 or seat >= state.n:
        _refuse(state, step, seat)
    if chance is not None and action == DEAL:
        check_deck(state.variant, chance.cards, options=state.options)
    return step(state, seat, action, rng or _SYSTEM_RANDOM, chance)


def _refuse(state: TableState, step: ApplyStep | None, seat: Seat) -> NoReturn:
    """Why nothing can be applied: the game is over, the phase has no step, or there is no such seat."""
    if state.phase == _GAME_OVER:
        raise IllegalAction(Reason.WRONG_PHASE, "the game is over")
    if step is None:
        raise IllegalAction(Reason.WRONG_PHASE, f"nothing can be done in the {phase_of(state).name} phase")
    raise IllegalAction(Reason.NOT_YOUR_TURN, f"there is no seat {seat}")


def view(state: TableState, seat: Seat | None) -> View:
    """What ``seat`` may know now (``None`` or a seat outside the game: a spectator)."""
    if seat is not None and not 0 <= seat < state.n:
        seat = None
    return GAMES[state.variant].view(state, seat)


def _searchable(view: View) -> Game:
    game = game_of(view.variant)
    if game.hidden is None or game.determinize is None:
        raise ValueError(f"{view.variant} cannot build states from a view (it has no determinize hook)")
    if view.viewer is None:
        raise ValueError("a spectator's view: determinizing needs a seat's view")
    return game


def hidden(view: View) -> Hidden:
    """What the viewer of ``view`` cannot see: the unknown cards and the places they may be in.

    ValueError for a spectator's view or a game without the hook.
    """
    hook = _searchable(view).hidden
    assert hook is not None
    return hook(view)


def determinize(view: View, fills: Sequence[Sequence[Card]]) -> TableState:
    """A whole state consistent with ``view`` in which ``hidden(view).places[i]`` holds ``fills[i]``.

    The viewer's view of it is ``view`` again. ValueError when the fills do not fit the places,
    for a spectator's view, or for a game without the hook.
    """
    game = _searchable(view)
    assert game.hidden is not None and game.determinize is not None
    places = game.hidden(view)
    places.check(fills)
    return game.determinize(view, places, fills)


@dataclass
class Score:
    """Every finished hand's record, the running totals and bags per side, and the winners."""

    hands: list[HandRecord]
    totals: list[int]
    bags: list[int]
    sides: list[list[Seat]]
    winner_sides: list[int]


def side_bags(state: TableState) -> list[int]:
    """Each side's carried bags (zeros for a game that counts none)."""
    bags = GAMES[state.variant].bags
    return bags(state) if bags is not None else [0] * state.sides


def score(state: TableState) -> Score:
    """Every hand's score record, the running totals and bags per side, and the winners."""
    return Score(hands=list(state.records), totals=state.scores[:], bags=side_bags(state),
                 sides=[state.seats_of(side) for side in range(state.sides)], winner_sides=state.winner[:])


def replay(variant: str, options: Any, first_dealer: Seat, log: Iterable[LogEntry],
           decks: Iterable[Sequence[Card]] | None = None) -> TableState:
    """The state that ``log`` leads to from a new game: a pure fold, drawing no randomness."""
    state = new_game(variant, options, None, first_dealer, decks)
    for entry in log:
        fold(state, entry)
    return state


def fold(state: TableState, entry: LogEntry) -> None:
    """Apply one log entry in place; ValueError when it needs a chance outcome it lacks."""
    if apply(state, entry.seat, entry.action, _NO_RANDOM, entry.chance) is not entry.chance:
        raise ValueError(f"log entry {entry} drew randomness: its chance outcome is missing")


class _NoRandom(random.Random):
    """An rng that refuses to be used: replay draws nothing."""

    def random(self) -> float:
        raise ValueError("replay drew randomness: a chance outcome is missing from the log")

    def getrandbits(self, k: int) -> int:
        raise ValueError("replay drew randomness: a chance outcome is missing from the log")


_NO_RANDOM = _NoRandom()


def state_from_dict(data: dict) -> TableState:
    """A state stored by ``TableState.to_dict``; ValueError for an unknown game or schema."""
    game = game_of(data.get("variant", ""))
    options = game.options_type.from_dict(data["options"])
    return game.state_type.from_dict(data, options, game.record_type)


def state_from_bytes(raw: bytes) -> TableState:
    """A state from ``TableState.to_bytes``; ValueError for an unknown game or schema."""
    return state_from_dict(json.loads(raw))
