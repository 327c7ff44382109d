"""Cutthroat Spades through a real server on real Redis, by Act alone (RULES.md §5): whole games
under its settings (given by name) match GetScore, the history and the engine, ending at the target
or at the losing score; a hand said as the rules say it (hands withheld until looked at, Double Nil
in turn before looking, no exchange, bids 0..17, the 2♣ no card), each refusal with its reason;
views and hand scores carry the Spades facts for three players each alone; the basic and the strong
bot play it on the server; the catalog describes it, and the settings and seats it does not take
are refused."""

from __future__ import annotations

import hashlib
import random

import grpc
import pytest

import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import options_pb2, score_pb2
from engine import SpadesOptions
from engine.core.cards import deck_text
from engine.games.cutthroat_spades import DECK, NAME
from tests.support.players import act, create, play_to_end, refused, tokens_of, view_of

HUMANS = [enums.PLAYER_KIND_HUMAN] * 3
SETTINGS = ("target_score", "bag_limit", "bag_penalty", "nil_value", "double_nil_value", "double_nil_allowed",
            "blind_nil_when_behind", "losing_score")










def history(stub, game_id: str) -> list:
    """Every entry of the game's history, page after page."""
    page = stub.GetHistory(pb.GetHistoryRequest(game_id=game_id))
    entries = list(page.entries)
    while page.next_after_version:
        page = stub.GetHistory(pb.GetHistoryRequest(game_id=game_id, after_version=page.next_after_version))
        entries += page.entries
    return entries


# ---- whole games -------------------------------------------------------------------------------------

@pytest.mark.parametrize("settings", [{"target_score": "150", "bag_limit": "50"},
                                      {"target_score": "500", "losing_score": "100", "nil_value": "50"}],
                         ids=["to-the-target", "to-the-losing-score"])
def test_whole_games_by_act_match_get_score_the_history_and_the_engine(stub, settings):
    rng = random.Random(f"cutthroat-{sorted(settings)}")
    decks = [rng.sample(DECK, len(DECK)) for _ in range(60)]
    created = create(stub, NAME, HUMANS, first_dealer=2, options={"settings": settings},
                     decks=[pb.Deck(cards=deck_text(d).split()) for d in decks])
    options = SpadesOptions.from_settings(NAME, settings)
    assert created.view.variant_name == NAME and created.view.variant_title == "Cutthroat Spades"
    assert sorted(created.view.options.settings) == sorted(SETTINGS)
    assert created.view.options.WhichOneof("variant") == "spades" and created.view.options.spades.target_score == \
        options.target_score
    assert [list(s.seats) for s in created.view.scores] == [[0], [1], [2]] and sorted(tokens_of(created)) == [0, 1, 2]
    seen = {"hands": 0}

    def check(seat, view):
        assert view.WhichOneof("rules") == "spades" and len(view.seats) == 3
        if view.hand_number and view.phase == enums.PHASE_PLAY:
            assert len(view.hand) + len(view.seats[seat].played_cards) == 17 and "2C" not in view.hand
            seen["hands"] += 1

    moves = play_to_end(stub, created.game_id, tokens_of(created), rng, on_response=check)
    assert seen["hands"]
    expected = engine.new_game(NAME, options, first_dealer=2, decks=decks)
    for seat, notation in moves:
        engine.apply(expected, seat, engine.parse_notation(NAME, notation))
    final = view_of(stub, created.game_id, None)
    score = stub.GetScore(pb.GetScoreRequest(game_id=created.game_id))
    assert final.phase == enums.PHASE_GAME_OVER and expected.phase == engine.Phase.GAME_OVER
    assert [t.score for t in score.totals] == expected.scores == [s.score for s in final.scores]
    assert [t.bags for t in score.totals] == expected.bags
    assert list(score.winner_seats) == expected.winner and max(expected.scores) == expected.scores[expected.winner[0]]
    if options.losing_score:
        assert min(expected.scores) <= -options.losing_score and list(score.hands[-1].spades.losing_sides)
    else:
        assert max(expected.scores) >= options.target_score
    deals = [entry for entry in history(stub, created.game_id) if entry.action == "deal"]
    assert len(score.hands) == len(expected.records) == len(deals)
    for hand, record, dealt in zip(score.hands, expected.records, deals, strict=True):
        assert hand.deck == record.deck == " ".join(dealt.deck) and len(dealt.deck) == 51 and "2C" not in dealt.deck
        assert hashlib.sha256(f"{dealt.salt}:{hand.deck}".encode()).hexdigest() == hand.commitment
        assert [s.tricks_won for s in hand.seats] == record.tricks and sum(record.tricks) == 17
        assert [s.hand_points for s in hand.sides] == record.points
        assert [list(s.seats) for s in hand.sides] == [[0], [1], [2]]
        assert [s.contract for s in hand.sides] == [max(b, 0) for b in record.bids]
        assert [s.bid_tricks for s in hand.seats] == [max(b, 0) for b in record.bids]
        assert [s.bags_after for s in hand.sides] == [side.bags_after for side in record.sides]
        assert not hand.spades.exchanges


# ---- one hand, said as the rules say it ---------------------------------------------------------------

def test_a_hand_is_said_as_the_rules_say_it(stub):
    deck = random.Random(3).sample(DECK, 51)
    created = create(stub, NAME, HUMANS, first_dealer=1, decks=[pb.Deck(cards=deck_text(deck).split())])
    game_id, tokens = created.game_id, tokens_of(created)
    assert refused(stub, game_id, tokens[2], "deal") == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN")
    act(stub, game_id, tokens[1], "deal")
    views = {s: view_of(stub, game_id, tokens[s]) for s in range(3)}
    assert all(not v.hand and not v.hand_visible for v in views.values())          # withheld until looked at
    assert views[2].turn == 2 and views[2].phase_name == "bid"                     # left of the dealer bids first
    assert [a.notation for a in views[2].legal_actions] == ["reveal", *(f"bid {n}" for n in range(18)), "double-nil"]
    assert [a.notation for a in views[0].legal_actions] == ["reveal"]
    assert refused(stub, game_id, tokens[0], "double-nil") == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN")
    assert refused(stub, game_id, tokens[2], "bid 18") == (grpc.StatusCode.FAILED_PRECONDITION, "INVALID_BID")
    assert refused(stub, game_id, tokens[2], "exchange 3C 4C 5C") == (grpc.StatusCode.FAILED_PRECONDITION,
                                                                       "WRONG_PHASE")   # no word of this game
    with pytest.raises(grpc.RpcError) as info:
        act(stub, game_id, tokens[2], "play BJ")
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT                   # no jokers here

    view = act(stub, game_id, tokens[2], "double-nil")                            # blind, in turn
    assert not view.hand and view.seats[2].spades.double_nil and not view.seats[2].HasField("bid_tricks")
    assert len(act(stub, game_id, tokens[1], "reveal").hand) == 17                # looking out of turn
    view = act(stub, game_id, tokens[0], "reveal")
    assert len(view.hand) == 17 and "2C" not in view.hand and view.seats[0].spades.has_looked
    assert refused(stub, game_id, tokens[0], "double-nil") == (grpc.StatusCode.FAILED_PRECONDITION,
                                                               "BLIND_NIL_AFTER_LOOKING")
    act(stub, game_id, tokens[0], "bid 17")
    view = act(stub, game_id, tokens[1], "bid 0")
    assert view.phase == enums.PHASE_PLAY and view.phase_name == "play" and view.turn == 2   # no exchange
    mine = view_of(stub, game_id, tokens[2])
    assert len(mine.hand) == 17 and not mine.spades.exchange_given                # the Double Nil seat sees it now
    assert refused(stub, game_id, tokens[2], "play 2C") == (grpc.StatusCode.FAILED_PRECONDITION, "CARD_NOT_IN_HAND")
    rng = random.Random(4)
    while (spectator := view_of(stub, game_id, None)).phase == enums.PHASE_PLAY:
        seat = spectator.turn
        act(stub, game_id, tokens[seat], rng.choice(list(view_of(stub, game_id, tokens[seat]).legal_actions)).notation)
    [hand] = stub.GetScore(pb.GetScoreRequest(game_id=game_id)).hands
    assert [s.spades.double_nil for s in hand.seats] == [False, False, True]
    assert [s.bid_tricks for s in hand.seats] == [17, 0, 0] and not hand.seats[2].HasField("bid_tricks")
    tricks = [s.tricks_won for s in hand.seats]
    nil = [score_pb2.NIL_RESULT_MADE if won == 0 else score_pb2.NIL_RESULT_FAILED for won in tricks]
    assert [s.spades.nil_result for s in hand.seats] == [score_pb2.NIL_RESULT_NONE, nil[1], nil[2]]
    assert hand.seats[2].spades.nil_points == (200 if tricks[2] == 0 else -200)
    assert hand.seats[1].spades.nil_points == (100 if tricks[1] == 0 else -100)
    assert hand.sides[0].contract_points == (170 if tricks[0] == 17 else -170) and not hand.spades.exchanges
    assert view_of(stub, game_id, None).dealer == 2                                # the deal passes left


# ---- bots ----------------------------------------------------------------------------------------------

def test_the_basic_and_the_strong_bot_play_it_on_the_server(stub):
    kinds = [enums.PLAYER_KIND_HUMAN, enums.PLAYER_KIND_BOT_BASIC, enums.PLAYER_KIND_BOT_STRONG]
    created = create(stub, NAME, kinds, first_dealer=0, shuffle_seed=5,
                     options={"settings": {"target_score": "150", "bag_limit": "30"}})
    assert [s.kind for s in created.view.seats] == kinds
    play_to_end(stub, created.game_id, tokens_of(created), random.Random(5))
    final = view_of(stub, created.game_id, None)
    score = stub.GetScore(pb.GetScoreRequest(game_id=created.game_id))
    assert final.phase == enums.PHASE_GAME_OVER and len(score.winner_seats) == 1 and score.hands
    assert all(s.HasField("bid_tricks") or s.spades.double_nil for hand in score.hands for s in hand.seats[1:])
    assert sum(s.tricks_won for hand in score.hands for s in hand.seats[1:]) > 0     # the bots played their cards


# ---- the catalog, and what it refuses ---------------------------------------------------------------------

def test_the_catalog_describes_cutthroat_spades(stub):
    game = next(g for g in stub.GetCatalog(pb.GetCatalogRequest()).games if g.name == NAME)
    assert (game.title, game.seats, list(game.seat_counts), game.target_setting, game.low_score_wins) == (
        "Cutthroat Spades", 3, [3], "target_score", False)
    assert [list(side.seats) for side in game.sides] == [[0], [1], [2]]
    assert [p.name for p in game.phases] == ["deal", "bid", "play", "game_over"]
    assert [w.word for w in game.words] == ["deal", "reveal", "bid", "double-nil", "play"]
    assert [s.name for s in game.settings] == list(SETTINGS)
    assert {s.name: s.default_value for s in game.settings}["target_score"] == "500"
    assert list(game.bots) == [enums.PLAYER_KIND_BOT_RANDOM, enums.PLAYER_KIND_BOT_BASIC, enums.PLAYER_KIND_BOT_STRONG]


@pytest.mark.parametrize("fields,words", [
    ({"options": {"settings": {"trumps": "jokers"}}}, "cutthroat_spades has no setting 'trumps'"),
    ({"options": {"settings": {"exchange_size": "3"}}}, "cutthroat_spades has no setting 'exchange_size'"),
    ({"options": {"settings": {"min_team_bid": "2"}}}, "cutthroat_spades has no setting 'min_team_bid'"),
    ({"options": {"settings": {"bidding": "whiz"}}}, "cutthroat_spades has no setting 'bidding'"),
    ({"options": {"settings": {"target_score": "50"}}}, "option target_score must be an integer from 100 to 5000"),
    ({"options": {"settings": {"losing_score": "-5"}}}, "option losing_score must be an integer from 0"),
    ({"decks": [pb.Deck(cards=deck_text(range(52)).split())]}, "2C is not a card of cutthroat_spades"),
    ({"first_dealer": 3}, "first_dealer must be a seat from 0 to 2"),
])
def test_what_it_does_not_take_is_refused_naming_it(stub, fields, words):
    with pytest.raises(grpc.RpcError) as info:
        create(stub, NAME, HUMANS, **fields)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT and words in info.value.details()


def test_it_seats_exactly_three_and_takes_its_options_typed_too(stub):
    with pytest.raises(grpc.RpcError) as info:
        create(stub, NAME, HUMANS + [enums.PLAYER_KIND_HUMAN])
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert info.value.details() == "cutthroat_spades needs exactly 3 seats, not 4"
    created = create(stub, "Cutthroat Spades", HUMANS,
                     options=options_pb2.RuleOptions(spades=options_pb2.SpadesOptions(target_score=250),
                                                     settings={"double_nil_allowed": "false"}))
    assert created.view.variant_name == NAME
    assert created.view.options.settings["target_score"] == "250"
    assert created.view.options.settings["double_nil_allowed"] == "false"
    act(stub, created.game_id, tokens_of(created)[created.view.dealer], "deal")
    view = view_of(stub, created.game_id, tokens_of(created)[0])
    assert len(view.hand) == 17 and view.hand_visible                              # seen from the deal
    assert not {"double-nil", "reveal"} & {a.notation for a in view.legal_actions}
