"""Pure rules of trick-taking card games: no I/O, no protobuf, no Redis.

Each game is one module of ``engine.games`` that builds a :class:`Game`; the built-in games
are registered here, and ``register`` adds more. The entry points dispatch on the game:

>>> import random
>>> state = new_game("spades", rng=random.Random(1), first_dealer=0)
>>> chance = apply(state, 0, DEAL, random.Random(1))
>>> view(state, 1).turn, len(legal_actions(state, 1)), phase_of(state).name
(1, 16, 'bid')
>>> notation("spades", legal_actions(state, 1)[1]), parse_notation("spades", "bid nil") == legal_actions(state, 1)[1]
('bid 0', True)
>>> replay("spades", state.options, 0, [LogEntry(0, DEAL, chance)]) == state
True
"""

from .core.actions import DEAL, PLAY_CODE, Action, action_of, kind_of, payload_of, play
from .core.cards import card_name, cards_text, parse_card, parse_cards, parse_deck
from .core.dealing import Chance
from .core.errors import IllegalAction, Reason
from .core.hidden import Hidden, Place
from .core.records import HandRecord
from .core.table import NOBODY, Phase, Seat, TableState
from .core.views import SeatInfo, SideInfo, View
from .core.vocabulary import PhaseWord, Shape, Vocabulary, Word
from .game import (
    GAMES,
    Game,
    LogEntry,
    Score,
    apply,
    check_deck,
    determinize,
    find_game,
    fold,
    fold_name,
    game_of,
    hidden,
    legal_actions,
    new_game,
    notation,
    parse_notation,
    phase_of,
    register,
    replay,
    score,
    side_bags,
    state_from_bytes,
    state_from_dict,
    unregister,
    view,
)
from .games import BUILTIN
from .games.buck_euchre import BuckEuchreOptions
from .games.spades_state import SpadesOptions

for _game in BUILTIN:
    register(_game)

__all__ = [
    "DEAL", "PLAY_CODE", "Action", "action_of", "kind_of", "payload_of", "play", "card_name", "cards_text",
    "parse_card", "parse_cards", "parse_deck", "PhaseWord", "Shape", "Vocabulary", "Word",
    "Chance", "IllegalAction", "Reason", "HandRecord", "NOBODY", "Phase", "Seat", "TableState", "SeatInfo",
    "SideInfo", "View", "GAMES", "Game", "LogEntry", "Score", "apply", "check_deck", "determinize", "find_game",
    "fold", "fold_name", "game_of", "hidden", "Hidden", "Place", "legal_actions", "new_game", "notation",
    "parse_notation", "phase_of", "register", "replay", "score", "side_bags", "state_from_bytes", "state_from_dict",
    "unregister", "view", "BuckEuchreOptions", "SpadesOptions",
]
