"""The GetCatalog answer: every registered game as its declarations give it (seats, the seat counts
it takes and the setting that chooses them, sides, phases, action words, settings), for lobbies
and tables that know no game beforehand."""

from __future__ import annotations

import bots
import engine
from cardgame.v1 import catalog_pb2
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from engine.core.options import Setting
from service.rpc import convert

SETTING_TYPES = {"integer": enums.SETTING_TYPE_INTEGER, "boolean": enums.SETTING_TYPE_BOOLEAN,
                 "choice": enums.SETTING_TYPE_CHOICE, "text": enums.SETTING_TYPE_TEXT}
SHAPES = {engine.Shape.NONE: enums.ACTION_SHAPE_NONE, engine.Shape.CARD: enums.ACTION_SHAPE_CARD,
          engine.Shape.NUMBER: enums.ACTION_SHAPE_NUMBER, engine.Shape.SUIT: enums.ACTION_SHAPE_SUIT,
          engine.Shape.CARDS: enums.ACTION_SHAPE_CARDS}
TARGET_SETTINGS = ("target_score", "target", "starting_score")
"""The names a game's length setting goes by, first found first."""

_cache: dict[tuple[str, ...], pb.GetCatalogResponse] = {}


def setting_description(setting: Setting) -> catalog_pb2.SettingDescription:
    """One setting as the catalog describes it."""
    message = catalog_pb2.SettingDescription(
        name=setting.name, type=SETTING_TYPES[setting.kind], default_value=setting.text(setting.default),
        choices=setting.choices, pattern=setting.pattern, title=setting.title, help=setting.help,
        allowed=setting.allowed)
    if setting.kind == "integer":
        message.min, message.max = setting.low or 0, setting.high or 0
    return message


def game_description(game: engine.Game) -> catalog_pb2.GameDescription:
    """One game as the catalog describes it."""
    state = game.new_state(game.options_type(), 0)   # its sides' seats, as a game of its defaults has them
    settings = game.settings
    message = catalog_pb2.GameDescription(
        name=game.name, title=game.title, seats=game.seats, aliases=game.aliases, low_score_wins=game.low_score_wins,
        target_setting=next((s.name for s in settings if s.name in TARGET_SETTINGS), ""),
        seat_counts=game.seat_counts, seat_setting=game.seat_setting)
    for side in range(state.sides):
        message.sides.add(seats=state.seats_of(side))
    for phase in game.vocabulary.phases:
        message.phases.add(name=phase.name, title=phase.title)
    for word in game.vocabulary.words:
        message.words.add(word=word.word, shape=SHAPES[word.shape], title=word.title, numbers=dict(word.numbers))
    message.settings.extend(setting_description(s) for s in settings)
    message.bots.extend(kind for kind, strategy in convert.BOTS.items() if bots.BOTS[strategy].plays(game.name))
    return message


def catalog() -> pb.GetCatalogResponse:
    """Every registered game, in registration order (built once per set of registered games)."""
    key = tuple(engine.GAMES)
    found = _cache.get(key)
    if found is None:
        found = pb.GetCatalogResponse(games=[game_description(game) for game in engine.GAMES.values()])
        _cache.clear()
        _cache[key] = found
    return found
