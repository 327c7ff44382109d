"""The wire tells the whole hand, one way: per-game wire adapters, the HandScore / SeatScore
``rules`` cases, one sign for the bag penalty, no hand to see between hands, ``Act "bid -1"``
refused as the rules refuse it, and games named by any spelling they declare."""

from __future__ import annotations

import random

import grpc
import orjson
import pytest

import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import options_pb2, score_pb2
from engine import DEAL
from engine.core.cards import parse_card
from engine.games import BUILTIN
from engine.games.buck_euchre_words import ORDER_UP, PASS
from engine.games.spades_words import DOUBLE_NIL, bid
from service.errors import InvalidArgument
from service.rpc import convert, lifecycle_messages, requests, wire
from tests.engine.engine_helpers import finish_hand
from tests.support.players import auth, create, reason_of, send, tokens_of

PLAYERS = [{"name": name, "kind": enums.PLAYER_KIND_HUMAN} for name in "ABCD"]


def _score(state) -> pb.GetScoreResponse:
    return convert.score_message(state)


def _euchre_deck(turn_up: str) -> list[int]:
    names = [rank + suit for suit in "CDHS" for rank in ("9", "10", "J", "Q", "K", "A")]
    names.remove(turn_up)
    names.insert(20, turn_up)
    return [parse_card(c) for c in names]


# ---- the adapters ----

def test_every_built_in_game_has_its_adapter_and_the_variant_enum_is_mapped_once():
    for game in BUILTIN:
        adapter = wire.adapter_of(game.name)
        assert adapter.name == game.name and adapter is not wire.GENERIC
        assert adapter.options_case in options_pb2.RuleOptions.DESCRIPTOR.fields_by_name
    assert wire.adapter_of("no_such_game") is wire.GENERIC
    # the Variant enum names the games that came before variant_name, each once; later games need no value
    assert set(wire.VARIANTS.values()) <= {game.name for game in BUILTIN}
    assert len(set(wire.VARIANTS.values())) == len(wire.VARIANTS)
    assert requests.VARIANTS is wire.VARIANTS
    with pytest.raises(ValueError):
        wire.register(wire.WireAdapter(name="spades"))       # a different adapter for a registered game


@pytest.fixture
def whist():
    """The test-only Whist game registered in this process (it has no wire adapter). Importing
    its module registers it once per process, as other test modules do; it stays registered."""
    from tests.games import whist as module

    if module.GAME.name not in engine.GAMES:   # a test unregistered it since the import
        engine.register(module.GAME)
    return module.GAME


def test_a_game_without_an_adapter_gets_the_common_part_of_every_message(whist):
    assert wire.adapter_of("whist") is wire.GENERIC
    state = engine.new_game("whist", first_dealer=0, rng=random.Random(1))
    engine.apply(state, 0, DEAL, random.Random(1))
    view = convert.view_message(engine.view(state, 1), "g", 2, PLAYERS)
    assert view.WhichOneof("rules") is None and view.variant == enums.VARIANT_UNSPECIFIED
    assert view.variant_title == "Whist" and view.hand_visible and len(view.hand) == 13
    assert {seat.WhichOneof("rules") for seat in view.seats} == {None} and view.options.WhichOneof("variant") is None
    assert view.options == options_pb2.RuleOptions(settings={"target": "5"})   # its settings, by name alone
    finish_hand(state)
    hand = _score(state).hands[0]
    assert hand.WhichOneof("rules") is None and {s.WhichOneof("rules") for s in hand.seats} == {None}
    assert [side.hand_points for side in hand.sides] == state.records[0].points
    assert [s.points for s in hand.seats] == [0, 0, 0, 0]                     # partnerships score as sides
    assert requests.options(engine.game_of("whist"), options_pb2.RuleOptions()) == whist.options_type()
    with pytest.raises(InvalidArgument, match="do not apply to whist"):
        requests.options(engine.game_of("whist"), options_pb2.RuleOptions(spades=options_pb2.SpadesOptions()))


# ---- Spades: who exchanged, one sign for the bag penalty ----

def test_a_spades_hand_score_tells_who_exchanged_in_a_double_nil():
    state = engine.new_game("spades", first_dealer=0, rng=random.Random(4))
    engine.apply(state, 0, DEAL, random.Random(4))
    engine.apply(state, 1, DOUBLE_NIL, random.Random(4))
    for seat in (2, 3, 0):
        engine.apply(state, seat, bid(3), random.Random(4))
    finish_hand(state)
    hand = _score(state).hands[0]
    assert hand.WhichOneof("rules") == "spades"
    exchanges = {x.seat: x for x in hand.spades.exchanges}
    assert sorted(exchanges) == [1, 3] and len(exchanges[1].given) == 3
    assert list(exchanges[1].given) == list(exchanges[3].received)
    assert list(exchanges[3].given) == list(exchanges[1].received)
    seat = hand.seats[1]
    assert seat.WhichOneof("rules") == "spades" and seat.spades.double_nil and not seat.HasField("bid_tricks")
    assert seat.spades.nil_result in (score_pb2.NIL_RESULT_MADE, score_pb2.NIL_RESULT_FAILED)
    assert abs(seat.spades.nil_points) == 200
    assert hand.seats[2].bid_tricks == 3 and hand.seats[2].spades.nil_result == score_pb2.NIL_RESULT_NONE


def test_a_two_player_spades_hand_score_tells_who_put_cards_aside():
    state = engine.new_game("spades2", first_dealer=0, rng=random.Random(5))
    engine.apply(state, 0, DEAL, random.Random(5))
    engine.apply(state, 0, DOUBLE_NIL, random.Random(5))
    finish_hand(state)
    hand = _score(state).hands[0]
    [exchange] = hand.spades.exchanges
    assert exchange.seat == 0 and len(exchange.given) == len(exchange.received) == 2
    assert [s.points for s in hand.seats] == [side.hand_points for side in hand.sides]   # a player is a side


def test_the_bag_penalty_has_one_sign_in_the_engine_and_on_the_wire_and_the_hand_adds_up():
    state = engine.new_game("spades", first_dealer=0, options=engine.SpadesOptions(bag_limit=5),
                            rng=random.Random(3))
    penalties = []
    while not penalties and state.hand_no < 30:
        engine.apply(state, state.dealer, DEAL, random.Random(state.hand_no))
        for seat in ((state.dealer + i) % 4 for i in range(1, 5)):
            engine.apply(state, seat, bid(1), random.Random(0))
        finish_hand(state)
        penalties = [side.bag_penalty for side in state.records[-1].sides if side.bag_penalty]
    assert penalties and all(p == -100 for p in penalties)
    score = _score(state)
    for hand, record in zip(score.hands, state.records, strict=True):
        for wire_side, side in zip(hand.sides, record.sides, strict=True):
            assert wire_side.bag_penalty == side.bag_penalty <= 0
            assert wire_side.hand_points == (wire_side.contract_points + wire_side.bags_gained
                                             + wire_side.nil_points + wire_side.bag_penalty)
    assert [sum(h.sides[s].hand_points for h in score.hands) for s in (0, 1)] == [t.score for t in score.totals]


def test_a_hand_end_event_stored_with_a_positive_bag_penalty_shows_it_negative():
    state = engine.new_game("spades", first_dealer=0, options=engine.SpadesOptions(bag_limit=5),
                            rng=random.Random(3))
    while not any(side.bag_penalty for record in state.records for side in record.sides):
        engine.apply(state, state.dealer, DEAL, random.Random(state.hand_no))
        for seat in ((state.dealer + i) % 4 for i in range(1, 5)):
            engine.apply(state, seat, bid(1), random.Random(0))
        finish_hand(state)
    stored = state.records[-1].to_dict()
    for side in stored["sides"]:
        side["bag_penalty"] = abs(side["bag_penalty"])       # an event written before the sign change
    body = {"k": "hand_end", "g": "g1", "v": 9, "t": 0, "labels": {}, "hand": stored, "variant": "spades",
            "sides": [[0, 2], [1, 3]]}
    event = lifecycle_messages.event_message("1-0", b"1 " + orjson.dumps(body))
    assert event.hand.WhichOneof("rules") == "spades"
    assert [s.bag_penalty for s in event.hand.sides] == [s.bag_penalty for s in state.records[-1].sides]
    assert min(s.bag_penalty for s in event.hand.sides) == -100


# ---- Buck Euchre: the discard, the kitty, the turn-down ----

def test_a_buck_euchre_hand_score_tells_the_discard_the_kitty_and_the_turn_down():
    deck = _euchre_deck("9H")
    state = engine.new_game("buck_euchre", first_dealer=0, decks=[deck, deck])
    engine.apply(state, 0, DEAL, random.Random(1))
    for seat in (1, 2, 3, 0):
        engine.apply(state, seat, PASS, random.Random(1))
    finish_hand(state)
    engine.apply(state, 1, DEAL, random.Random(1))
    engine.apply(state, 2, ORDER_UP, random.Random(1))
    discard = engine.legal_actions(state, 1)[0]
    engine.apply(state, 1, discard, random.Random(1))
    finish_hand(state)
    turned, taken = _score(state).hands
    assert turned.WhichOneof("rules") == taken.WhichOneof("rules") == "buck_euchre"
    assert turned.buck_euchre.turn_up_turned_down and turned.buck_euchre.dealer_discard == ""
    assert turned.buck_euchre.turn_up == "9H" and len(turned.buck_euchre.kitty) == 3
    assert not taken.buck_euchre.turn_up_turned_down
    assert taken.buck_euchre.dealer_discard == engine.cards_text(engine.payload_of(discard))
    assert taken.buck_euchre.maker == 2 and taken.seats[2].buck_euchre.is_maker
    assert taken.buck_euchre.trump == enums.SUIT_HEARTS and not taken.buck_euchre.clubs_forced
    dealt = set(taken.deck.split()[:20]) | {taken.buck_euchre.turn_up}
    assert set(taken.buck_euchre.kitty) == set(taken.deck.split()) - dealt
    for hand, record in zip((turned, taken), state.records, strict=True):
        assert hand.buck_euchre.contested == record.contested
        for seat, entry in zip(hand.seats, record.seats, strict=True):
            assert seat.WhichOneof("rules") == "buck_euchre" and seat.points == entry.change
            assert (seat.buck_euchre.dropped_out, seat.buck_euchre.penalty) == (not entry.active, entry.penalty)
            assert hand.sides[seat.seat].contract == entry.requirement


def test_a_club_turn_up_is_told_as_forced_clubs():
    state = engine.new_game("buck_euchre", first_dealer=0, decks=[_euchre_deck("9C")])
    engine.apply(state, 0, DEAL, random.Random(1))
    finish_hand(state)
    hand = _score(state).hands[0].buck_euchre
    assert hand.clubs_forced and hand.trump == enums.SUIT_CLUBS and not hand.turn_up_turned_down
    assert hand.dealer_discard and hand.contested


# ---- views ----

@pytest.mark.parametrize("variant", [game.name for game in BUILTIN])
def test_hand_visible_is_false_between_hands(variant):
    state = engine.new_game(variant, first_dealer=0, rng=random.Random(2))
    engine.apply(state, 0, DEAL, random.Random(2))
    for seat in range(state.n):
        optional = [a for a in engine.legal_actions(state, seat) if engine.game_of(variant).vocabulary.is_optional(a)]
        if optional:   # look at the cards (Spades' reveal) where a seat must ask to see them
            engine.apply(state, seat, optional[0], random.Random(2))
    assert convert.view_message(engine.view(state, 0), "g", 2, PLAYERS).hand_visible
    finish_hand(state)
    for seat in range(state.n):
        view = convert.view_message(engine.view(state, seat), "g", 3, PLAYERS)
        assert view.phase in (enums.PHASE_DEAL, enums.PHASE_GAME_OVER)
        assert not view.hand_visible and not view.hand and view.seats[seat].card_count == 0
    assert view.variant_title == engine.game_of(variant).title


# ---- names ----

def test_create_game_takes_any_spelling_a_game_declares():
    assert requests.game(enums.VARIANT_UNSPECIFIED, "Buck Euchre").name == "buck_euchre"
    assert requests.game(enums.VARIANT_UNSPECIFIED, "buck-euchre").name == "buck_euchre"
    assert requests.game(enums.VARIANT_UNSPECIFIED, "spades_two_player").name == "spades2"
    assert requests.game(enums.VARIANT_SPADES_TWO_PLAYER, "Two-player Spades").name == "spades2"
    with pytest.raises(InvalidArgument, match="does not agree"):
        requests.game(enums.VARIANT_SPADES, "buck-euchre")
    with pytest.raises(InvalidArgument, match="unknown variant_name 'contract-bridge'"):
        requests.game(enums.VARIANT_UNSPECIFIED, "contract-bridge")
    with pytest.raises(InvalidArgument, match="SPADES, SPADES_TWO_PLAYER or BUCK_EUCHRE"):
        requests.game(99)


# ---- Act "bid -1" ----



def test_act_bid_minus_one_is_a_bid_the_rules_refuse():
    state = engine.new_game("spades", first_dealer=0, rng=random.Random(1))
    engine.apply(state, 0, DEAL, random.Random(1))
    action = requests.act_action("bid -1", engine.new_game("spades", first_dealer=0))
    with pytest.raises(engine.IllegalAction) as info:
        engine.apply(state, 1, action)
    assert info.value.reason == engine.Reason.INVALID_BID
    for malformed in ("bid -0", "bid -x", "bid --1", "bid - 1"):
        with pytest.raises(InvalidArgument):
            requests.act_action(malformed, engine.new_game("spades", first_dealer=0))


def test_act_bid_minus_one_answers_as_the_bid_rpc_does(stub):
    created = create(stub, "spades", first_dealer=0)
    tokens = tokens_of(created)
    send(stub, "Deal", pb.DealRequest(game_id=created.game_id), tokens[0])
    version = stub.GetGame(pb.GetGameRequest(game_id=created.game_id)).view.version
    answers = []
    for method, request in [("Act", pb.ActRequest(game_id=created.game_id, action="bid -1")),
                            ("Bid", pb.BidRequest(game_id=created.game_id, kind=pb.BID_KIND_TRICKS, tricks=-1))]:
        with pytest.raises(grpc.RpcError) as info:
            send(stub, method, request, tokens[1])
        answers.append((info.value.code(), reason_of(info.value)))
    assert answers == [(grpc.StatusCode.FAILED_PRECONDITION, "INVALID_BID")] * 2
    assert stub.GetGame(pb.GetGameRequest(game_id=created.game_id), metadata=auth(None)).view.version == version
