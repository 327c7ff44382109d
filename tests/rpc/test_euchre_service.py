"""Euchre through a real server on real Redis, by Act alone: whole games under its settings (given
by name) match GetScore and the engine; a scripted hand says going alone as the rules do, is
refused with Euchre's reasons, shows the turn-up, trump, the maker and who sits out, and the
dealer's discard to the dealer alone; stick the dealer and a thrown-in hand; the basic and the
strong bot play it on the server; and the catalog describes it."""

from __future__ import annotations

import random

import grpc
import pytest

import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from engine.core.cards import deck_text
from engine.games.euchre import EuchreOptions
from tests.engine.engine_helpers import euchre_deck
from tests.support.players import act, create, play_to_end, refused, tokens_of, view_of

ROUND1 = {0: "JH AH 9C 10C KS", 1: "10D JC QC KC AC", 2: "JS QS AS QH KH", 3: "9D QD KD AD 10S"}
"""Dealer 3, the turn-up 9H: the hands of a scripted hand."""
HUMANS = [enums.PLAYER_KIND_HUMAN] * 4










def play_hand_out(stub, game_id: str, tokens: dict[int, str], rng: random.Random) -> None:
    """Random legal plays by the seat in turn until the hand is over."""
    while (spectator := view_of(stub, game_id, None)).phase_name == "play":
        view = view_of(stub, game_id, tokens[spectator.turn])
        act(stub, game_id, tokens[spectator.turn], rng.choice(list(view.legal_actions)).notation)


def scripted(stub, settings: dict[str, str] | None = None):
    """A game of the scripted deck, dealt by seat 3: its id and tokens."""
    deck = deck_text(euchre_deck(3, ROUND1, "9H", "10H JD 9S")).split()
    created = create(stub, "euchre", HUMANS, first_dealer=3, decks=[pb.Deck(cards=deck)],
                     options={"settings": settings or {}})
    tokens = tokens_of(created)
    act(stub, created.game_id, tokens[3], "deal")
    return created.game_id, tokens


@pytest.mark.parametrize("settings", [{}, {"target": "5", "stick_the_dealer": "true", "defend_alone": "true"}],
                         ids=["defaults", "short-stick-defend"])
def test_whole_games_by_act_match_get_score_and_the_engine(stub, settings):
    rng = random.Random(f"euchre-{len(settings)}")
    cards = list(engine.game_of("euchre").cards)
    decks = [rng.sample(cards, len(cards)) for _ in range(80)]
    created = create(stub, "euchre", HUMANS, first_dealer=1, options={"settings": settings},
                     decks=[pb.Deck(cards=deck_text(d).split()) for d in decks])
    options = EuchreOptions.from_settings("euchre", settings)
    assert dict(created.view.options.settings) == {"target": str(options.target),
                                                   "stick_the_dealer": str(options.stick_the_dealer).lower(),
                                                   "defend_alone": str(options.defend_alone).lower()}
    phases = set()

    def check(seat, view):
        assert view.variant_name == "euchre" and view.variant_title == "Euchre"
        assert view.WhichOneof("rules") == "buck_euchre"
        phases.add(view.phase_name)
        if view.buck_euchre.dealer_discard:
            assert seat == view.dealer

    moves = play_to_end(stub, created.game_id, tokens_of(created), rng, on_response=check)
    final = view_of(stub, created.game_id, None)
    score = stub.GetScore(pb.GetScoreRequest(game_id=created.game_id))
    assert final.phase == enums.PHASE_GAME_OVER and final.phase_name == "game_over"
    expected = engine.new_game("euchre", options, first_dealer=1, decks=decks)
    for seat, notation in moves:
        engine.apply(expected, seat, engine.parse_notation("euchre", notation))
    assert [t.score for t in score.totals] == expected.scores == [s.score for s in final.scores]
    assert score.winner_side == expected.winner[0] and list(score.winner_seats) == expected.seats_of(expected.winner[0])
    assert max(expected.scores) >= options.target
    assert len(score.hands) == len(expected.records)
    for hand, record in zip(score.hands, expected.records, strict=True):
        assert [s.hand_points for s in hand.sides] == record.points
        assert [s.tricks for s in hand.sides] == record.side_tricks
        assert hand.buck_euchre.turn_up == record.turn_up and hand.buck_euchre.contested == (not record.thrown_in)
        assert [s.buck_euchre.dropped_out for s in hand.seats] == [s in record.sitting_out for s in range(4)]
        assert hand.buck_euchre.HasField("maker") == (record.maker >= 0)
    assert {"order_up", "dealer_discard", "play", "deal"} <= phases
    assert {"order", "order-alone", "pass", "exchange", "play"} <= {notation.split()[0] for _, notation in moves}


def test_a_scripted_hand_said_as_the_rules_say_it(stub):
    game_id, tokens = scripted(stub, {"defend_alone": "true"})
    view = view_of(stub, game_id, tokens[0])
    assert view.phase == enums.PHASE_ORDER_UP and view.phase_name == "order_up"
    assert [(a.notation, a.word, a.kind) for a in view.legal_actions] == [
        ("order", "order", enums.ACTION_KIND_ORDER_UP), ("order-alone", "order-alone", enums.ACTION_KIND_UNSPECIFIED),
        ("pass", "pass", enums.ACTION_KIND_PASS)]
    assert view.buck_euchre.turn_up == "9H" and not view.buck_euchre.HasField("maker")
    assert refused(stub, game_id, tokens[1], "order") == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN")
    assert refused(stub, game_id, tokens[0], "name S") == (grpc.StatusCode.FAILED_PRECONDITION, "WRONG_PHASE")

    view = act(stub, game_id, tokens[0], "order alone")             # the maker goes alone, said as in the rules
    assert view.buck_euchre.maker == 0 and view.buck_euchre.trump == enums.SUIT_HEARTS
    assert view.seats[0].last_call == "order-alone" and view.seats[2].buck_euchre.dropped_out
    assert view.phase_name == "dealer_discard"
    dealer = view_of(stub, game_id, tokens[3])
    [discard] = dealer.legal_actions
    assert (discard.word, discard.min_cards, discard.max_cards) == ("exchange", 1, 1) and "9H" not in discard.cards
    assert refused(stub, game_id, tokens[3], "exchange 9H") == (grpc.StatusCode.FAILED_PRECONDITION,
                                                                 "MUST_KEEP_TURN_UP")
    assert refused(stub, game_id, tokens[3], "exchange 9H 10S") == (grpc.StatusCode.FAILED_PRECONDITION,
                                                                     "INVALID_EXCHANGE")
    assert refused(stub, game_id, tokens[0], "exchange 10S") == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN")
    view = act(stub, game_id, tokens[3], "exchange 10S")
    assert view.buck_euchre.dealer_discard == "10S" and "9H" in view.hand and "10S" not in view.hand
    for token in (None, tokens[0], tokens[1], tokens[2]):
        other = view_of(stub, game_id, token)
        assert other.buck_euchre.dealer_discard == "" and other.buck_euchre.turn_up == "9H"

    view = view_of(stub, game_id, tokens[1])
    assert view.phase_name == "defend_alone" and view.phase == enums.PHASE_UNSPECIFIED
    assert [a.notation for a in view.legal_actions] == ["defend-alone", "pass"]
    view = act(stub, game_id, tokens[1], "defend alone")
    assert [s.buck_euchre.dropped_out for s in view.seats] == [False, False, True, True]
    assert view.phase_name == "play" and view.turn == 0
    assert [s.card_count for s in view.seats] == [5, 5, 5, 5] and len(view.hand) == 5

    play_hand_out(stub, game_id, tokens, random.Random(3))
    [hand] = stub.GetScore(pb.GetScoreRequest(game_id=game_id)).hands
    assert (hand.buck_euchre.maker, hand.buck_euchre.trump, hand.buck_euchre.dealer_discard) == (
        0, enums.SUIT_HEARTS, "10S")
    assert [s.buck_euchre.dropped_out for s in hand.seats] == [False, False, True, True]
    assert hand.seats[0].buck_euchre.is_maker and hand.sides[0].contract == 3
    assert sum(s.tricks for s in hand.sides) == 5 and sorted(s.hand_points for s in hand.sides)[0] == 0
    assert max(s.hand_points for s in hand.sides) in (1, 4)     # a lone maker's 1 or 4, or a lone defence's 4


def test_stick_the_dealer_and_a_thrown_in_hand_over_act(stub):
    game_id, tokens = scripted(stub, {"stick_the_dealer": "true"})
    for seat in (0, 1, 2, 3, 0, 1, 2):
        act(stub, game_id, tokens[seat], "pass")
    view = view_of(stub, game_id, tokens[3])
    assert view.phase == enums.PHASE_NAME_TRUMP and view.buck_euchre.turn_up_turned_down
    assert "pass" not in [a.notation for a in view.legal_actions]
    assert refused(stub, game_id, tokens[3], "pass") == (grpc.StatusCode.FAILED_PRECONDITION, "DEALER_MUST_NAME")
    assert refused(stub, game_id, tokens[3], "name H") == (grpc.StatusCode.FAILED_PRECONDITION, "SUIT_TURNED_DOWN")
    view = act(stub, game_id, tokens[3], "name spades alone")
    assert view.buck_euchre.maker == 3 and view.buck_euchre.trump == enums.SUIT_SPADES
    assert view.seats[1].buck_euchre.dropped_out and view.seats[3].last_call == "name-alone S"

    game_id, tokens = scripted(stub)
    for seat in (0, 1, 2, 3, 0, 1, 2, 3):
        act(stub, game_id, tokens[seat], "pass")
    view = view_of(stub, game_id, None)
    assert view.phase_name == "deal" and view.dealer == 0 and [s.score for s in view.scores] == [0, 0]
    [hand] = stub.GetScore(pb.GetScoreRequest(game_id=game_id)).hands
    assert not hand.buck_euchre.HasField("maker") and not hand.buck_euchre.contested
    assert hand.buck_euchre.trump == enums.SUIT_UNSPECIFIED and hand.buck_euchre.turn_up_turned_down
    assert [s.hand_points for s in hand.sides] == [0, 0] and hand.deck


def test_the_basic_and_the_strong_bot_play_it_on_the_server(stub):
    kinds = [enums.PLAYER_KIND_HUMAN, enums.PLAYER_KIND_BOT_BASIC, enums.PLAYER_KIND_BOT_STRONG,
             enums.PLAYER_KIND_BOT_BASIC]
    created = create(stub, "euchre", kinds, first_dealer=1, shuffle_seed=5,
                     options={"settings": {"target": "3", "defend_alone": "true"}})
    play_to_end(stub, created.game_id, tokens_of(created), random.Random(5))
    final = view_of(stub, created.game_id, None)
    assert final.phase_name == "game_over" and max(s.score for s in final.scores) >= 3
    score = stub.GetScore(pb.GetScoreRequest(game_id=created.game_id))
    assert score.HasField("winner_side") and score.hands
    assert sum(s.tricks_won for hand in score.hands for s in hand.seats[1:]) > 0   # the bots played their cards


def test_the_catalog_describes_euchre_and_bad_settings_are_refused(stub):
    game = next(g for g in stub.GetCatalog(pb.GetCatalogRequest()).games if g.name == "euchre")
    assert (game.title, game.seats, game.target_setting, game.low_score_wins) == ("Euchre", 4, "target", False)
    assert [list(side.seats) for side in game.sides] == [[0, 2], [1, 3]]
    assert [p.name for p in game.phases] == ["deal", "order_up", "dealer_discard", "name_trump", "defend_alone",
                                             "play", "game_over"]
    assert [w.word for w in game.words] == ["deal", "exchange", "order", "order-alone", "pass", "name", "name-alone",
                                            "defend-alone", "play"]
    assert {s.name: s.default_value for s in game.settings} == {"target": "10", "stick_the_dealer": "false",
                                                                "defend_alone": "false"}
    assert list(game.bots) == [enums.PLAYER_KIND_BOT_RANDOM, enums.PLAYER_KIND_BOT_BASIC, enums.PLAYER_KIND_BOT_STRONG]
    for settings, words in [({"target": "0"}, "option target must be an integer from 1 to 100"),
                            ({"defend_alone": "maybe"}, "option defend_alone must be true or false"),
                            ({"starting_score": "5"}, "euchre has no setting 'starting_score'")]:
        with pytest.raises(grpc.RpcError) as info:
            create(stub, "euchre", HUMANS, options={"settings": settings})
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT and words in info.value.details()
