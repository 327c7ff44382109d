"""What the engine's hand records and views tell about a finished hand: the bag penalty's one
sign, the Buck Euchre turn-down, no hand to see between hands, and each game's declared title
and aliases."""

from __future__ import annotations

import dataclasses
import random

import pytest

import engine
from engine import DEAL, Phase
from engine.core.cards import card_list, parse_card
from engine.games import BUILTIN, buck_euchre, spades
from engine.games.buck_euchre_words import ORDER_UP, PASS
from engine.games.spades_scoring import spades_side
from engine.games.spades_state import SpadesHandRecord
from engine.games.spades_words import DOUBLE_NIL, REVEAL, bid
from tests.engine.engine_helpers import finish_hand


def test_the_bag_penalty_is_negative_like_every_point_change_and_the_hand_adds_up():
    side = spades_side([5], [7], 0, 9, 10, 100, 100, 200)   # 2 overtricks on 9 bags: one penalty
    assert (side.bag_penalty, side.bags_after) == (-100, 1)
    assert side.hand_points == side.contract_points + side.bags_gained + side.nil_points + side.bag_penalty == -48
    assert side.total_after == -48


def test_a_record_stored_with_a_positive_bag_penalty_reads_as_the_same_negative_one():
    state = engine.new_game("spades", first_dealer=0, options=engine.SpadesOptions(bag_limit=5))
    engine.apply(state, 0, DEAL, random.Random(3))
    for seat in (1, 2, 3, 0):
        engine.apply(state, seat, bid(1), random.Random(3))   # low bids: bags for somebody
    finish_hand(state)
    record = state.records[0]
    stored = record.to_dict()
    for side in stored["sides"]:
        side["bag_penalty"] = abs(side["bag_penalty"])          # the form stored before the sign change
    loaded = SpadesHandRecord.from_dict(stored)
    assert loaded == record
    data = state.to_dict()
    data["records"] = [stored]
    assert engine.state_from_dict(data).records == [record]


def _euchre_deck(turn_up: str) -> list[int]:
    names = [rank + suit for suit in "CDHS" for rank in ("9", "10", "J", "Q", "K", "A")]
    names.remove(turn_up)
    names.insert(20, turn_up)
    return [parse_card(c) for c in names]


def test_a_buck_euchre_record_knows_whether_the_turn_up_was_turned_down():
    deck = _euchre_deck("9H")
    state = engine.new_game("buck_euchre", first_dealer=0, decks=[deck, deck])
    engine.apply(state, 0, DEAL, random.Random(1))
    for seat in (1, 2, 3, 0):
        engine.apply(state, seat, PASS, random.Random(1))      # all four pass: turned down
    assert state.turned_down
    finish_hand(state)
    turned = state.records[0]
    assert turned.turned_down and turned.dealer_discard == "" and turned.turn_up == "9H"
    assert len(turned.kitty.split()) == 3

    engine.apply(state, 1, DEAL, random.Random(1))              # the deal passed to seat 1
    engine.apply(state, 2, ORDER_UP, random.Random(1))
    discard = engine.legal_actions(state, 1)[0]
    engine.apply(state, 1, discard, random.Random(1))
    finish_hand(state)
    taken = state.records[1]
    assert not taken.turned_down and taken.dealer_discard == engine.cards_text(engine.payload_of(discard))
    assert "turned_down" not in taken.to_dict()               # known from the record, not stored twice


@pytest.mark.parametrize("seed", range(6))
def test_turned_down_matches_the_state_in_every_hand(seed):
    rng = random.Random(seed)
    state = engine.new_game("buck_euchre", first_dealer=seed % 4, rng=rng)
    while state.phase != Phase.GAME_OVER and state.hand_no < 12:
        engine.apply(state, state.turn, DEAL, rng)
        hand = state.hand_no
        while state.hand_no == hand and state.phase not in (Phase.DEAL, Phase.GAME_OVER):
            engine.apply(state, state.turn, rng.choice(list(engine.legal_actions(state, state.turn))), rng)
        assert state.records[-1].turned_down == state.turned_down


@pytest.mark.parametrize("variant", [game.name for game in BUILTIN])
def test_no_hand_is_shown_between_hands_but_an_empty_one_is_during_the_draw(variant):
    state = engine.new_game(variant, first_dealer=0, rng=random.Random(2))
    engine.apply(state, 0, DEAL, random.Random(2))
    if variant == "spades2":
        assert engine.view(state, 0).hand == [] and engine.view(state, 1).hand == []   # the draw: nothing yet
    for seat in range(state.n):
        if engine.legal_actions(state, seat) and REVEAL in engine.legal_actions(state, seat):
            engine.apply(state, seat, REVEAL, random.Random(2))
    finish_hand(state)
    assert state.phase in (Phase.DEAL, Phase.GAME_OVER) and not any(state.hands)
    assert all(engine.view(state, seat).hand is None for seat in range(state.n))


def test_exchanges_of_a_double_nil_are_recorded_per_seat():
    state = engine.new_game("spades", first_dealer=0, rng=random.Random(4))
    engine.apply(state, 0, DEAL, random.Random(4))
    engine.apply(state, 1, DOUBLE_NIL, random.Random(4))
    for seat in (2, 3, 0):
        engine.apply(state, seat, bid(3), random.Random(4))
    gave = {seat: card_list(state.hands[seat])[:3] for seat in (1, 3)}
    finish_hand(state)
    exchanges = {x.seat: x for x in state.records[0].exchanges}
    assert sorted(exchanges) == [1, 3]
    assert exchanges[1].gave == engine.cards_text(sum(1 << c for c in gave[1])) == exchanges[3].got
    assert exchanges[3].gave == exchanges[1].got


def test_games_declare_a_title_and_aliases_and_answer_to_any_spelling_of_them():
    assert [(game.name, game.title) for game in engine.GAMES.values() if game.name in ("spades", "spades2",
                                                                                       "buck_euchre")] == [
        ("spades", "Spades"), ("spades2", "Two-player Spades"), ("buck_euchre", "Buck Euchre")]
    for text, name in [("spades", "spades"), ("SPADES", "spades"), ("spades2", "spades2"),
                       ("spades_two_player", "spades2"), ("Two-player Spades", "spades2"),
                       ("buck-euchre", "buck_euchre"), ("Buck Euchre", "buck_euchre"),
                       (" buck_euchre ", "buck_euchre")]:
        found = engine.find_game(text)
        assert found is not None and found.name == name, text
    assert engine.find_game("contract bridge") is None and engine.find_game("") is None
    for game in engine.GAMES.values():
        assert all(engine.find_game(spelling) is game for spelling in game.spellings)


def test_a_title_defaults_to_the_name_and_spellings_may_not_collide():
    plain = dataclasses.replace(spades.GAME, name="plain_whist", title="", aliases=())
    assert plain.title == "Plain whist" and plain.deck_mask == spades.GAME.deck_mask
    clash = dataclasses.replace(spades.GAME, name="buck", title="", aliases=("Buck Euchre",))
    with pytest.raises(ValueError, match="both answer to buck_euchre"):
        engine.register(clash)
    assert "buck" not in engine.GAMES
    assert buck_euchre.GAME.title == "Buck Euchre"
