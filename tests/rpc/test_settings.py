"""Settings as data: each game declares its settings once, and the wire, the docs' table, the
catalog and CreateGame's checks follow from the declaration; the shared layers name no game's
words."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor

import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import options_pb2
from engine import settings_table
from engine.games import BUILTIN
from service.rpc import wire
from tests.support.players import tokens_of

ROOT = Path(__file__).resolve().parents[2]
PROTO_TYPES = {"integer": FieldDescriptor.TYPE_INT32, "boolean": FieldDescriptor.TYPE_BOOL,
               "choice": FieldDescriptor.TYPE_STRING, "text": FieldDescriptor.TYPE_STRING}
RANDOM = enums.PLAYER_KIND_BOT_RANDOM


def test_the_docs_settings_table_is_the_declarations():
    page = (ROOT / "docs" / "api.md").read_text()
    assert settings_table.rewrite(page, settings_table.markdown()) == page, "run `make docs-tables`"


@pytest.mark.parametrize("game", BUILTIN, ids=lambda game: game.name)
def test_a_typed_options_message_holds_exactly_the_declared_settings(game):
    case = wire.adapter_of(game.name).options_case
    message = options_pb2.RuleOptions.DESCRIPTOR.fields_by_name[case].message_type
    declared = {s.name: s for s in game.options_type.SETTINGS}
    assert set(message.fields_by_name) == set(declared)
    for name, setting in declared.items():
        field = message.fields_by_name[name]
        assert field.type == PROTO_TYPES[setting.kind] and field.has_presence, name
    assert {s.name for s in game.settings} <= set(declared)


def test_every_setting_is_described_with_what_it_takes():
    for game in engine.GAMES.values():
        for setting in game.settings:
            assert setting.title and setting.help.endswith("."), (game.name, setting.name)
            assert setting.check(setting.default) == setting.default
            assert setting.parse(setting.text(setting.default)) == setting.default


def _code_of(path: Path) -> tuple[set[str], set[str]]:
    """The string constants (docstrings left out) and the identifiers a module's code uses."""
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    strings = {node.value.strip().lower() for node in ast.walk(tree)
               if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings}
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    names |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    return strings, names


def test_the_shared_layers_name_no_games_phase_or_action():
    words = {w.word for game in BUILTIN for w in game.vocabulary.words} - {"deal", "play"}
    phases = {p.name for game in BUILTIN for p in game.vocabulary.phases} - {"deal", "play", "game_over"}
    shared = [*sorted((ROOT / "engine" / "core").glob("*.py")), ROOT / "service" / "rpc" / "convert.py"]
    game_names = {"ORDER_UP", "NAME_TRUMP", "DROP_OUT", "DOUBLE_NIL", "REVEAL", "DEALER_DISCARD", "STAY_IN",
                  "NAME_SUIT", "DRAW_KEEP", "DRAW_DISCARD", "EXCHANGE", "BID", "PASS", "DRAW"}
    for path in shared:
        strings, names = _code_of(path)
        assert not strings & (words | phases), f"{path.name} names {sorted(strings & (words | phases))}"
        assert not names & game_names, f"{path.name} names {sorted(names & game_names)}"
    enums_proto = (ROOT / "proto" / "cardgame" / "v1" / "enums.proto").read_text()
    new_values = {line.split("=")[0].strip() for line in enums_proto.splitlines()
                  if re.match(r"\s+(PHASE|ACTION_KIND)_\w+ = \d+;", line)}
    kept = {"PHASE_UNSPECIFIED", "PHASE_DEAL", "PHASE_DRAW", "PHASE_BID", "PHASE_EXCHANGE", "PHASE_ORDER_UP",
            "PHASE_DEALER_DISCARD", "PHASE_NAME_TRUMP", "PHASE_DROP_OUT", "PHASE_PLAY", "PHASE_GAME_OVER"}
    assert {v for v in new_values if v.startswith("PHASE_")} == kept, "the Phase enum gains no game's phase"
    assert len({v for v in new_values if v.startswith("ACTION_KIND_")}) == 15, "ActionKind gains no game's word"


def _seats(n: int = 4) -> list[pb.SeatConfig]:
    return [pb.SeatConfig(name="Ann"), *[pb.SeatConfig(kind=RANDOM) for _ in range(n - 1)]]


def test_create_game_takes_settings_by_name_and_shows_them_all(stub):
    created = stub.CreateGame(pb.CreateGameRequest(variant_name="hearts", seats=_seats(), first_dealer=0, options={
        "settings": {"target": "50", "moon": "shooter_subtracts", "queen_breaks_hearts": "yes"}}))
    settings = dict(created.view.options.settings)
    assert settings == {"target": "50", "pass_cycle": "", "moon": "shooter_subtracts",
                        "queen_breaks_hearts": "true", "jack_of_diamonds": "false", "players": "4"}
    assert created.view.options.hearts.target == 50 and created.view.options.hearts.queen_breaks_hearts
    typed_and_named = options_pb2.RuleOptions(spades=options_pb2.SpadesOptions(target_score=300),
                                              settings={"bag_limit": "7", "target_score": "300"})
    created = stub.CreateGame(pb.CreateGameRequest(variant=enums.VARIANT_SPADES, seats=_seats(),
                                                   options=typed_and_named))
    assert created.view.options.spades.target_score == 300 and created.view.options.settings["bag_limit"] == "7"
    assert tokens_of(created)


@pytest.mark.parametrize("options,words", [
    ({"settings": {"target_score": "50"}}, "option target_score must be an integer from 100 to 5000, not 50"),
    ({"settings": {"double_nil_allowed": "sometimes"}}, "option double_nil_allowed must be true or false"),
    ({"settings": {"jokers": "yes"}}, "spades has no setting 'jokers' (its settings: target_score, "),
    ({"spades": {"target_score": 300}, "settings": {"target_score": "400"}},
     "option target_score is '300' in options.spades but '400' in options.settings"),
])
def test_a_bad_setting_is_refused_naming_it(stub, options, words):
    with pytest.raises(grpc.RpcError) as refused:
        stub.CreateGame(pb.CreateGameRequest(variant=enums.VARIANT_SPADES, seats=_seats(),
                                             options=options_pb2.RuleOptions(**options)))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and words in refused.value.details()


def test_a_huge_setting_value_is_refused_without_being_echoed_whole(stub):
    for settings in ({"target_score": "9" * 5000}, {"x" * 5000: "1"}):
        with pytest.raises(grpc.RpcError) as refused:
            stub.CreateGame(pb.CreateGameRequest(variant=enums.VARIANT_SPADES, seats=_seats(),
                                                 options=options_pb2.RuleOptions(settings=settings)))
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and len(refused.value.details()) < 300


def test_hearts_choice_and_pattern_settings_are_refused_with_what_they_take(stub):
    for settings, words in [({"moon": "nobody"}, "option moon must be one of others_add, shooter_subtracts"),
                            ({"pass_cycle": "LX"}, "option pass_cycle must be 1 to 12 of the letters L (left)")]:
        with pytest.raises(grpc.RpcError) as refused:
            stub.CreateGame(pb.CreateGameRequest(variant_name="hearts", seats=_seats(),
                                                 options={"settings": settings}))
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and words in refused.value.details()


def test_the_catalog_gives_every_game_its_words_and_settings(stub):
    catalog = {game.name: game for game in stub.GetCatalog(pb.GetCatalogRequest()).games}
    assert list(catalog) == [game.name for game in BUILTIN]
    for game in BUILTIN:
        described = catalog[game.name]
        assert [p.name for p in described.phases] == [p.name for p in game.vocabulary.phases]
        assert [w.word for w in described.words] == [w.word for w in game.vocabulary.words]
        assert [s.name for s in described.settings] == [s.name for s in game.settings]
        assert described.seats == game.seats and described.title == game.title
    bid = next(w for w in catalog["spades"].words if w.word == "bid")
    assert bid.shape == enums.ACTION_SHAPE_NUMBER and dict(bid.numbers) == {"nil": 0}
    assert [list(side.seats) for side in catalog["spades"].sides] == [[0, 2], [1, 3]]
    assert catalog["buck_euchre"].target_setting == "starting_score" and catalog["buck_euchre"].low_score_wins
    assert all(list(game.bots) == [RANDOM, enums.PLAYER_KIND_BOT_BASIC, enums.PLAYER_KIND_BOT_STRONG]
               for game in catalog.values())
