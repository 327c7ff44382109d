"""Hearts on the wire: its view facts, its options, and a finished hand's passes shown only to
those who may know them (RULES.md §4: a seat knows its own pass and the one it received; a
spectator none; the game's owner, whose backend gets the hand's event, all); three players and
the J♦'s winner (§4.1) in its options, views and hand scores."""

from __future__ import annotations

import random

import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import hearts_pb2, options_pb2
from service.rpc import convert, requests, wire
from tests.engine.engine_helpers import finish_hand

PLAYERS = [{"name": name, "kind": enums.PLAYER_KIND_HUMAN} for name in ("South", "West", "North", "East")]


def _dealt(seed: int = 3):
    state = engine.new_game("hearts", None, random.Random(seed), 0)
    engine.apply(state, 0, engine.DEAL, random.Random(seed))
    return state


def test_the_pass_is_one_card_choice_that_only_its_seat_sees():
    state = _dealt()
    view = convert.view_message(engine.view(state, 1), "g", 2, PLAYERS)
    assert view.phase == enums.PHASE_EXCHANGE and view.hearts.pass_direction == "left"
    [choice] = view.legal_actions
    assert (choice.kind, choice.notation, choice.min_cards, choice.max_cards) == (enums.ACTION_KIND_PASS, "pass", 3, 3)
    assert sorted(choice.cards) == sorted(view.hand) and len(view.hand) == 13
    given = list(view.hand[:3])
    engine.apply(state, 1, engine.parse_notation("hearts", " ".join(["pass", *given])), random.Random(0))
    mine = convert.view_message(engine.view(state, 1), "g", 3, PLAYERS)
    assert list(mine.hearts.pass_given) == sorted(given, key=engine.parse_card) and not mine.legal_actions
    spectator = convert.view_message(engine.view(state, None), "g", 3, PLAYERS)
    assert not spectator.hearts.pass_given and spectator.seats[1].hearts.passed
    assert not spectator.seats[0].hearts.passed


def test_a_finished_hands_passes_reach_only_who_may_know_them():
    state = _dealt()
    finish_hand(state)
    everyone = convert.score_message(state, wire.EVERY_SEAT).hands[0].hearts
    assert everyone.direction == "left" and len(everyone.passes) == 4
    assert {(p.seat, p.to) for p in everyone.passes} == {(s, (s + 1) % 4) for s in range(4)}
    for seat in range(4):
        known = convert.score_message(state, seat).hands[0].hearts.passes
        assert {(p.seat, p.to) for p in known} == {(seat, (seat + 1) % 4), ((seat - 1) % 4, seat)}
    assert not convert.score_message(state, None).hands[0].hearts.passes
    seats = convert.score_message(state, None).hands[0].seats
    assert sum(s.hearts.points_taken for s in seats) == 26


def test_hearts_options_cross_the_wire_both_ways():
    game = engine.game_of("hearts")
    sent = options_pb2.RuleOptions(hearts=hearts_pb2.HeartsOptions(target=50, pass_cycle="LRH",
                                                                    moon="shooter_subtracts"))
    options = requests.options(game, sent)
    assert (options.target, options.pass_cycle, options.moon, options.queen_breaks_hearts) == (
        50, "LRH", "shooter_subtracts", False)
    back = convert.options_message("hearts", options).hearts
    assert (back.target, back.pass_cycle, back.moon, back.queen_breaks_hearts) == (
        50, "LRH", "shooter_subtracts", False)


def test_three_players_and_the_jack_cross_the_wire():
    game = engine.game_of("hearts")
    sent = options_pb2.RuleOptions(hearts=hearts_pb2.HeartsOptions(players=3, jack_of_diamonds=True))
    options = requests.options(game, sent)
    assert (options.players, options.jack_of_diamonds, options.pass_cycle, options.cycle) == (3, True, "", "LRH")
    back = convert.options_message("hearts", options)
    assert (back.hearts.players, back.hearts.jack_of_diamonds, back.hearts.pass_cycle) == (3, True, "")
    assert back.settings["players"] == "3" and back.settings["jack_of_diamonds"] == "true"
    state = engine.new_game("hearts", options, random.Random(4), 0)
    engine.apply(state, 0, engine.DEAL, random.Random(4))
    three = PLAYERS[:3]
    view = convert.view_message(engine.view(state, 2), "g", 2, three)
    assert len(view.seats) == 3 and len(view.hand) == 17 and list(view.hearts.points_taken) == [0, 0, 0]
    assert not view.hearts.HasField("jack_of_diamonds_by")
    rng = random.Random(4)
    while state.jack < 0:
        seat = state.turn if state.turn >= 0 else next(s for s in range(3) if engine.legal_actions(state, s))
        legal = engine.legal_actions(state, seat)
        engine.apply(state, seat, legal[rng.randrange(len(legal))], rng)
    view = convert.view_message(engine.view(state, None), "g", 3, three)
    assert view.hearts.jack_of_diamonds_by == state.jack and -10 in view.hearts.points_taken
    finish_hand(state)
    hand = convert.score_message(state, None).hands[0]
    record = state.records[0]
    assert hand.hearts.jack_of_diamonds_by == record.jack and len(hand.seats) == 3
    assert [s.hearts.points_taken for s in hand.seats] == record.taken and sum(record.taken) == 16
    assert {(p.seat, p.to) for p in convert.score_message(state, wire.EVERY_SEAT).hands[0].hearts.passes} == {
        (0, 1), (1, 2), (2, 0)}
