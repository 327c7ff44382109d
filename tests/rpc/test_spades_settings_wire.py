"""The Spades table settings on the wire: CreateGame takes them typed (SpadesOptions) and by name
(RuleOptions.settings), both checked, each refusal INVALID_ARGUMENT naming the option; a view
names the jokers and shows a forced bid; a hand score tells what each setting did (forced bids,
who exchanged how many cards and why, failed Nil tricks counted for the partner, the sides at the
losing score)."""

from __future__ import annotations

import hashlib
import random

import grpc
import pytest

import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import options_pb2
from engine import SpadesOptions
from service.errors import InvalidArgument
from service.rpc import convert, requests
from tests.engine.engine_helpers import bid_round, finish_hand, spades_game
from tests.support.players import auth, reason_of, send, tokens_of

PLAYERS = [{"name": name, "kind": enums.PLAYER_KIND_HUMAN} for name in "ABCD"]
SPADES = engine.game_of("spades")




# ---- options in ------------------------------------------------------------------------------------

def test_typed_options_and_settings_by_name_give_the_same_options():
    typed = options_pb2.RuleOptions(spades=options_pb2.SpadesOptions(
        trumps="jokers_deuces", bidding="suicide", nil_exchange=2, failed_nil_tricks_count=True,
        blind_nil_when_behind=100, losing_score=300))
    named = options_pb2.RuleOptions(settings={"trumps": "jokers_deuces", "bidding": "suicide", "nil_exchange": "2",
                                              "failed_nil_tricks_count": "true", "blind_nil_when_behind": "100",
                                              "losing_score": "300"})
    want = SpadesOptions(trumps="jokers_deuces", bidding="suicide", nil_exchange=2, failed_nil_tricks_count=True,
                         blind_nil_when_behind=100, losing_score=300)
    assert requests.options(SPADES, typed) == requests.options(SPADES, named) == want
    assert requests.options(SPADES, options_pb2.RuleOptions(
        spades=options_pb2.SpadesOptions(min_team_bid=5))).min_team_bid == 5


@pytest.mark.parametrize("message,words", [
    ({"spades": {"trumps": "aces"}}, "option trumps must be one of standard, jokers, jokers_deuces"),
    ({"settings": {"bidding": "blind"}}, "option bidding must be one of standard, suicide, mirror, whiz"),
    ({"spades": {"bidding": "mirror", "min_team_bid": 4}}, "option min_team_bid must be 0 with bidding mirror"),
    ({"settings": {"bidding": "suicide", "min_team_bid": "1"}}, "option min_team_bid must be 0 with bidding suicide"),
    ({"spades": {"min_team_bid": 14}}, "option min_team_bid must be an integer from 0 to 13"),
    ({"spades": {"nil_exchange": 4}}, "option nil_exchange must be an integer from 0 to 3"),
    ({"spades": {"losing_score": -1}}, "option losing_score must be an integer from 0 to"),
    ({"settings": {"blind_nil_when_behind": "-5"}}, "option blind_nil_when_behind must be an integer from 0 to"),
    ({"settings": {"failed_nil_tricks_count": "maybe"}}, "option failed_nil_tricks_count must be true or false"),
    ({"spades": {"trumps": "jokers"}, "settings": {"trumps": "standard"}},
     "option trumps is 'jokers' in options.spades but 'standard' in options.settings"),
])
def test_a_bad_table_setting_is_refused_naming_it(message, words):
    with pytest.raises(InvalidArgument, match=words):
        requests.options(SPADES, options_pb2.RuleOptions(**message))


@pytest.mark.parametrize("name,value", [("trumps", "standard"), ("min_team_bid", "0"), ("bidding", "whiz"),
                                        ("nil_exchange", "1"), ("failed_nil_tricks_count", "false")])
def test_two_player_spades_refuses_a_four_player_setting_by_name(name, value):
    with pytest.raises(InvalidArgument, match=f"spades2 has no setting '{name}'"):
        requests.options(engine.game_of("spades2"), options_pb2.RuleOptions(settings={name: value}))


def test_the_effective_options_show_every_setting_typed_and_by_name():
    options = SpadesOptions(trumps="jokers", bidding="whiz", losing_score=200)
    message = convert.options_message("spades", options)
    assert message.spades.trumps == "jokers" and message.spades.bidding == "whiz" and message.spades.losing_score == 200
    assert message.settings["trumps"] == "jokers" and message.settings["nil_exchange"] == "0"
    two = convert.options_message("spades2", SpadesOptions(losing_score=100))
    assert "trumps" not in two.settings and two.settings["losing_score"] == "100"


# ---- views and hand scores out ---------------------------------------------------------------------

def test_a_view_names_the_jokers_in_the_views_order_and_shows_a_forced_bid():
    state = engine.new_game("spades", SpadesOptions(trumps="jokers", bidding="mirror"), rng=random.Random(2),
                            first_dealer=3)
    engine.apply(state, 3, engine.DEAL, random.Random(2))
    holder = next(s for s in range(4) if state.hands[s] & engine.core.cards.JOKERS)
    view = convert.view_message(engine.view(state, holder), "g", 2, PLAYERS)
    assert view.hand_visible and view.hand[0] in ("BJ", "LJ") and view.options.spades.trumps == "jokers"
    [only] = [a.notation for a in convert.view_message(engine.view(state, 0), "g", 2, PLAYERS).legal_actions]
    engine.apply(state, 0, engine.parse_notation("spades", only))
    after = convert.view_message(engine.view(state, 1), "g", 3, PLAYERS)
    assert after.seats[0].spades.bid_forced and not after.seats[1].spades.bid_forced


def test_a_hand_score_tells_what_the_settings_did():
    state = spades_game([((0, 3, 4, 3), (2, 3, 3, 5))], dealer=3,
                        options=SpadesOptions(failed_nil_tricks_count=True, losing_score=10))
    hand = convert.score_message(state).hands[0]
    assert hand.seats[0].spades.tricks_for_partner == 2 and hand.seats[2].spades.tricks_for_partner == 0
    assert hand.sides[0].tricks == 5 and hand.sides[0].contract_points == 40
    assert list(hand.spades.losing_sides) == [0]                # -59: at or below -10
    assert not any(seat.spades.bid_forced for seat in hand.seats)

    mirror = engine.new_game("spades", SpadesOptions(bidding="mirror", nil_exchange=1), rng=random.Random(6),
                             first_dealer=3)
    engine.apply(mirror, 3, engine.DEAL, random.Random(6))
    table = engine.games.spades_deck.trumps_of(mirror.options)
    bid_round(mirror, [(mirror.hands[s] & table.spades).bit_count() for s in range(4)])
    finish_hand(mirror)
    hand = convert.score_message(mirror).hands[0]
    assert all(seat.spades.bid_forced for seat in hand.seats)
    for exchange in hand.spades.exchanges:
        assert exchange.card_count == len(exchange.given) == 1 and exchange.nil


# ---- through a server --------------------------------------------------------------------------------

def _seats() -> list[pb.SeatConfig]:
    return [pb.SeatConfig(name="Ann"), *[pb.SeatConfig(kind=enums.PLAYER_KIND_BOT_BASIC) for _ in range(3)]]


def test_create_game_takes_the_settings_typed_and_plays_with_jokers(stub):
    created = stub.CreateGame(pb.CreateGameRequest(
        variant=enums.VARIANT_SPADES, seats=_seats(), first_dealer=0,
        options=options_pb2.RuleOptions(spades=options_pb2.SpadesOptions(trumps="jokers", min_team_bid=4),
                                        settings={"losing_score": "250"})))
    options = created.view.options
    assert options.spades.trumps == "jokers" and options.spades.min_team_bid == 4 and options.spades.losing_score == 250
    assert options.settings["trumps"] == "jokers" and options.settings["bidding"] == "standard"
    token = tokens_of(created)[0]
    send(stub, "Act", pb.ActRequest(game_id=created.game_id, action="deal"), token)
    view = send(stub, "Act", pb.ActRequest(game_id=created.game_id, action="reveal"), token).view
    assert len(view.hand) == 13 and all(card in {"BJ", "LJ"} or card[-1] in "CDHS" for card in view.hand)
    assert not {"2C", "2D"} & set(view.hand)
    with pytest.raises(grpc.RpcError) as refused:   # a joker's name is a card at this table: no move now
        send(stub, "Act", pb.ActRequest(game_id=created.game_id, action="play BJ"), token)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION and reason_of(refused.value) == "WRONG_PHASE"
    for method, request in (("Play", pb.PlayRequest(game_id=created.game_id, card="BJ")),   # the older RPCs too
                            ("Exchange", pb.ExchangeRequest(game_id=created.game_id, cards=["LJ", "3C"]))):
        with pytest.raises(grpc.RpcError) as refused:
            send(stub, method, request, token)
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION and reason_of(refused.value) == "WRONG_PHASE"


def test_the_older_play_and_exchange_rpcs_name_a_joker_only_at_a_table_with_jokers(stub):
    created = stub.CreateGame(pb.CreateGameRequest(variant=enums.VARIANT_SPADES, seats=_seats(), first_dealer=0))
    token = tokens_of(created)[0]
    send(stub, "Act", pb.ActRequest(game_id=created.game_id, action="deal"), token)
    for method, request in (("Play", pb.PlayRequest(game_id=created.game_id, card="BJ")),
                            ("Exchange", pb.ExchangeRequest(game_id=created.game_id, cards=["LJ", "3C"]))):
        with pytest.raises(grpc.RpcError) as refused:
            send(stub, method, request, token)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "no card at this table" in refused.value.details()
    with pytest.raises(grpc.RpcError) as refused:
        send(stub, "Play", pb.PlayRequest(game_id=created.game_id, card="XJ"), token)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT


@pytest.mark.parametrize("options,words", [
    ({"spades": {"bidding": "whiz", "min_team_bid": 2}}, "option min_team_bid must be 0 with bidding whiz"),
    ({"settings": {"trumps": "four_jokers"}}, "option trumps must be one of"),
])
def test_create_game_refuses_a_bad_table_setting_naming_it(stub, options, words):
    with pytest.raises(grpc.RpcError) as refused:
        stub.CreateGame(pb.CreateGameRequest(variant=enums.VARIANT_SPADES, seats=_seats(),
                                             options=options_pb2.RuleOptions(**options)))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and words in refused.value.details()


def test_create_two_player_game_refuses_a_four_player_setting_by_name(stub):
    with pytest.raises(grpc.RpcError) as refused:
        stub.CreateGame(pb.CreateGameRequest(variant=enums.VARIANT_SPADES_TWO_PLAYER,
                                             seats=[pb.SeatConfig(name="Ann"),
                                                    pb.SeatConfig(kind=enums.PLAYER_KIND_BOT_BASIC)],
                                             options=options_pb2.RuleOptions(settings={"bidding": "standard"})))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "spades2 has no setting 'bidding'" in refused.value.details()


def test_a_seat_bids_only_what_the_minimum_allows_through_act(stub):
    created = stub.CreateGame(pb.CreateGameRequest(
        variant=enums.VARIANT_SPADES, seats=[pb.SeatConfig(name=n) for n in "ABCD"], first_dealer=3,
        options=options_pb2.RuleOptions(settings={"min_team_bid": "6"})))
    tokens = tokens_of(created)
    send(stub, "Act", pb.ActRequest(game_id=created.game_id, action="deal"), tokens[3])
    for seat, action in ((0, "bid 2"), (1, "bid 3")):
        send(stub, "Act", pb.ActRequest(game_id=created.game_id, action=action), tokens[seat])
    view = stub.GetGame(pb.GetGameRequest(game_id=created.game_id), metadata=auth(tokens[2])).view
    assert [a.number for a in view.legal_actions if a.word == "bid"] == list(range(4, 14))
    with pytest.raises(grpc.RpcError) as refused:
        send(stub, "Act", pb.ActRequest(game_id=created.game_id, action="bid 3"), tokens[2])
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert reason_of(refused.value) == "BID_BELOW_MINIMUM"
    assert "your partnership must bid at least 6 in all" in refused.value.details()


def test_the_history_of_a_jokers_table_shows_its_deck_with_the_jokers_and_it_meets_the_commitment(stub):
    """The deal's recorded chance is the table's own deck: GetHistory reveals the jokers themselves
    (no stand-in deuces), and the deck it shows is the one the hand's commitment was made to."""
    created = stub.CreateGame(pb.CreateGameRequest(
        variant=enums.VARIANT_SPADES, seats=[pb.SeatConfig(name=n) for n in "ABCD"], first_dealer=1, shuffle_seed=8,
        options=options_pb2.RuleOptions(settings={"trumps": "jokers_deuces", "target_score": "100"})))
    tokens, rng = tokens_of(created), random.Random(8)
    dealt = send(stub, "Act", pb.ActRequest(game_id=created.game_id, action="deal"), tokens[1]).view
    while (spectator := stub.GetGame(pb.GetGameRequest(game_id=created.game_id)).view).hand_number == 1 \
            and spectator.phase_name != "deal":
        seat = spectator.turn
        view = stub.GetGame(pb.GetGameRequest(game_id=created.game_id), metadata=auth(tokens[seat])).view
        bids = [a.notation for a in view.legal_actions if a.word == "bid" and 2 <= a.number <= 4]
        action = rng.choice(bids or [a.notation for a in view.legal_actions if a.word == "play"])
        send(stub, "Act", pb.ActRequest(game_id=created.game_id, action=action), tokens[seat])
    history = stub.GetHistory(pb.GetHistoryRequest(game_id=created.game_id))
    (deal,) = [entry for entry in history.entries if entry.action == "deal"]
    hand = stub.GetScore(pb.GetScoreRequest(game_id=created.game_id)).hands[0]
    assert {"BJ", "LJ"} <= set(deal.deck) and not {"2C", "2H"} & set(deal.deck) and len(deal.deck) == 52
    assert " ".join(deal.deck) == hand.deck and deal.salt == hand.salt
    assert hashlib.sha256(f"{deal.salt}:{' '.join(deal.deck)}".encode()).hexdigest() == hand.commitment \
        == dealt.deck_commitment
