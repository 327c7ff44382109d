"""One table of game names in the Python client (cardgame.games), pinned to what the games
declare in the engine and what the server's wire adapters carry; every spelling the client and
the CLI took before still works."""

from __future__ import annotations

import dataclasses

import pytest

import engine
from cardgame import cli, client, games, render
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import view_pb2
from engine.games import BUILTIN
from service.rpc import catalog, wire

BUILT_IN_CATALOG = [catalog.game_description(game) for game in BUILTIN]
"""The catalog of a server that plays the built-in games alone."""


@pytest.mark.parametrize("game", BUILTIN, ids=lambda game: game.name)
def test_the_client_table_is_what_each_built_in_game_declares(game):
    known = games.find(game.name)
    assert known is not None
    assert (known.title, known.seats) == (game.title, game.seats)
    assert {games.fold(alias) for alias in known.aliases} == {engine.fold_name(alias) for alias in game.aliases}
    assert known.variant == wire.VARIANT_ENUM.get(game.name, 0)   # games after variant_name have no value
    assert known.options == wire.adapter_of(game.name).options_case
    assert known.target_option in {f.name for f in dataclasses.fields(game.options_type)}
    for spelling in game.spellings:       # whatever the server answers to, the client resolves alike
        assert games.find(spelling) is known, spelling
        found = engine.find_game(spelling)
        assert found is not None and found.name == known.name


def test_the_table_holds_the_built_in_games_only_once_each():
    assert sorted(game.name for game in games.GAMES) == sorted(game.name for game in BUILTIN)
    spellings = [spelling for game in games.GAMES for spelling in game.spellings]
    assert len(spellings) == len(set(spellings))


@pytest.mark.parametrize("text,name", [
    ("spades", "spades"), ("spades2", "spades2"), ("buck-euchre", "buck_euchre"), ("buck_euchre", "buck_euchre"),
    ("VARIANT_BUCK_EUCHRE", "buck_euchre"), ("VARIANT_SPADES_TWO_PLAYER", "spades2"), ("Buck Euchre", "buck_euchre"),
    ("Two-player Spades", "spades2"), ("SPADES", "spades"), (" Buck-Euchre ", "buck_euchre"),
])
def test_every_spelling_resolves_in_the_client_and_the_cli(text, name):
    known = games.find(text)
    assert known is not None and known.name == name
    assert client.variant_of(text) == known.variant
    found = cli.find_game(BUILT_IN_CATALOG, text)   # the CLI reads the server's catalog
    assert found is not None and found.name == name


def test_the_old_tables_are_derived_from_the_one_table():
    assert client.VARIANTS == {"spades": enums.VARIANT_SPADES, "spades2": enums.VARIANT_SPADES_TWO_PLAYER,
                               "buck-euchre": enums.VARIANT_BUCK_EUCHRE}
    assert client.SEAT_COUNTS == {enums.VARIANT_SPADES: 4, enums.VARIANT_SPADES_TWO_PLAYER: 2,
                                  enums.VARIANT_BUCK_EUCHRE: 4}
    assert client.variant_of(enums.VARIANT_SPADES) == enums.VARIANT_SPADES
    with pytest.raises(ValueError):
        client.variant_of("whist")
    assert cli.find_game(BUILT_IN_CATALOG, "whist") is None


def test_rule_options_are_any_games_settings_by_name():
    assert client.rule_options("buck-euchre", {"starting_score": 8}).settings["starting_score"] == "8"
    assert client.rule_options(enums.VARIANT_SPADES_TWO_PLAYER, {"target_score": 200}).settings == {
        "target_score": "200"}
    assert dict(client.rule_options("whist", {"target": 3, "keep": True}).settings) == {"target": "3", "keep": "true"}


def test_titles_come_from_the_view_first_then_the_table():
    assert render.game_title(view_pb2.GameView(variant_name="whist", variant_title="Plain Whist")) == "Plain Whist"
    assert render.game_title(view_pb2.GameView(variant_name="whist")) == "Whist"
    assert render.game_title(view_pb2.GameView(variant_name="buck_euchre")) == "Buck Euchre"


def test_a_server_view_carries_the_title_and_the_client_creates_by_any_spelling(client):
    for spelling, name in [("Buck Euchre", "buck_euchre"), ("VARIANT_SPADES_TWO_PLAYER", "spades2")]:
        seats = ["A", "B", "C", "D"][:games.find(spelling).seats]
        created = client.create_game(spelling, seats, first_dealer=0)
        assert created.view.variant_name == name and created.view.variant_title == games.find(name).title
