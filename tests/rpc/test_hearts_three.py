"""Hearts for three players and with the J♦ through a running server on Redis (RULES.md §4.1): a
three-seat game created with ``players`` = 3 and played whole through Act, checked against
GetScore and the engine; bots in two of its seats; the seat count checked against the options
(INVALID_ARGUMENT, naming the setting); the options' refusals; and the catalog's seat counts."""

from __future__ import annotations

import random

import grpc
import pytest

import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import hearts_pb2, options_pb2
from engine.core.cards import deck_text
from engine.games.hearts_state import THREE_PLAYER_DECK, HeartsOptions
from tests.support.players import play_to_end, tokens_of

HUMAN, BASIC, STRONG = enums.PLAYER_KIND_HUMAN, enums.PLAYER_KIND_BOT_BASIC, enums.PLAYER_KIND_BOT_STRONG


def seats(kinds: list[int]) -> list[pb.SeatConfig]:
    return [pb.SeatConfig(name=f"P{i}", kind=kind) for i, kind in enumerate(kinds)]


def create(stub, kinds: list[int], options: options_pb2.RuleOptions, **fields) -> pb.CreateGameResponse:
    return stub.CreateGame(pb.CreateGameRequest(variant_name="hearts", seats=seats(kinds), options=options, **fields))


def refusal(stub, kinds: list[int], options: options_pb2.RuleOptions) -> str:
    """The message of a CreateGame refused with INVALID_ARGUMENT."""
    with pytest.raises(grpc.RpcError) as refused:
        create(stub, kinds, options)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, refused.value.details()
    return refused.value.details()


def hearts_options(**fields) -> options_pb2.RuleOptions:
    return options_pb2.RuleOptions(hearts=hearts_pb2.HeartsOptions(**fields))


def replay(decks, moves, options) -> engine.TableState:
    """The same moves applied by the engine directly, from their notations."""
    state = engine.new_game("hearts", options, first_dealer=2, decks=decks)
    for seat, notation in moves:
        engine.apply(state, seat, engine.parse_notation("hearts", notation))
    return state


@pytest.mark.parametrize("jack", [False, True], ids=["plain", "jack"])
def test_a_three_seat_game_is_played_whole_through_act(stub, jack):
    rng = random.Random(f"three-{jack}")
    decks = [rng.sample(THREE_PLAYER_DECK, 51) for _ in range(60)]
    created = create(stub, [HUMAN] * 3, hearts_options(players=3, target=40, jack_of_diamonds=jack), first_dealer=2,
                     decks=[pb.Deck(cards=deck_text(d).split()) for d in decks])
    view = created.view
    assert len(view.seats) == 3 and [s.seats for s in view.scores] == [[0], [1], [2]]
    assert view.options.hearts.players == 3 and view.options.settings["players"] == "3"
    assert view.options.hearts.pass_cycle == "" and view.hearts.pass_direction == "left"
    assert sorted(tokens_of(created)) == [0, 1, 2]
    dealt: list[pb.GameView] = []
    moves = play_to_end(stub, created.game_id, tokens_of(created), rng,
                        on_response=lambda seat, v: dealt.append(v) if v.hand_number == 1 and v.hand else None)
    first = dealt[0]
    assert len(first.hand) == 17 and len(first.hearts.points_taken) == 3 and len(first.seats) == 3
    assert all(s.card_count in (16, 17) for s in first.seats)

    score = stub.GetScore(pb.GetScoreRequest(game_id=created.game_id))
    final = stub.GetGame(pb.GetGameRequest(game_id=created.game_id)).view
    assert final.phase == enums.PHASE_GAME_OVER and len(final.scores) == 3
    expected = replay(decks, moves, HeartsOptions(players=3, target=40, jack_of_diamonds=jack))
    assert [t.score for t in score.totals] == expected.scores and expected.phase == engine.Phase.GAME_OVER
    assert list(score.winner_seats) == expected.winner and min(expected.scores) == expected.scores[expected.winner[0]]
    directions = []
    for hand, record in zip(score.hands, expected.records, strict=True):
        assert hand.deck == record.deck and len(hand.deck.split()) == 51
        assert [s.tricks_won for s in hand.seats] == record.tricks and sum(record.tricks) == 17
        assert [s.hand_points for s in hand.sides] == record.points
        assert [s.hearts.points_taken for s in hand.seats] == record.taken
        assert sum(record.taken) == (16 if jack else 26)
        assert hand.hearts.HasField("jack_of_diamonds_by") == jack
        if jack:
            assert hand.hearts.jack_of_diamonds_by == record.jack
        directions.append(hand.hearts.direction)
    assert directions[:3] == ["left", "right", "hold"][:len(directions)]
    assert not any(hand.hearts.passes for hand in score.hands)          # a spectator's score: no passes


def test_bots_play_two_of_three_seats(stub):
    created = create(stub, [HUMAN, BASIC, STRONG],
                     hearts_options(players=3, target=30, jack_of_diamonds=True), first_dealer=0, shuffle_seed=5)
    assert [s.kind for s in created.view.seats] == [HUMAN, BASIC, STRONG]
    play_to_end(stub, created.game_id, tokens_of(created), random.Random(5))
    score = stub.GetScore(pb.GetScoreRequest(game_id=created.game_id))
    assert len(score.winner_seats) == 1 and score.hands and all(len(h.sides) == 3 for h in score.hands)


def test_the_seat_count_must_be_the_one_the_options_give(stub):
    words = refusal(stub, [HUMAN] * 4, hearts_options(players=3))
    assert words == "hearts with players=3 needs exactly 3 seats, not 4 (it takes 3 or 4 seats: set players to match)"
    settings = options_pb2.RuleOptions(settings={"players": "3"})
    assert "needs exactly 3 seats, not 4" in refusal(stub, [HUMAN] * 4, settings)
    assert "hearts with players=4 needs exactly 4 seats, not 3" in refusal(stub, [HUMAN] * 3, options_pb2.RuleOptions())
    assert "first_dealer must be a seat from 0 to 2" in _first_dealer_refusal(stub)
    created = create(stub, [HUMAN] * 3, settings)
    assert len(created.view.seats) == 3 and created.view.options.hearts.players == 3


def _first_dealer_refusal(stub) -> str:
    with pytest.raises(grpc.RpcError) as refused:
        create(stub, [HUMAN] * 3, hearts_options(players=3), first_dealer=3)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    return refused.value.details()


def test_across_at_three_and_other_player_counts_are_refused(stub):
    for cycle in ("LRAH", "A"):
        words = refusal(stub, [HUMAN] * 3, hearts_options(players=3, pass_cycle=cycle))
        assert words == f"option pass_cycle may not name A (across) with 3 players, not {cycle!r}"
    words = refusal(stub, [HUMAN] * 3, options_pb2.RuleOptions(settings={"players": "3", "pass_cycle": "LA"}))
    assert "pass_cycle may not name A (across)" in words
    for players in (2, 5):
        words = refusal(stub, [HUMAN] * players, hearts_options(players=players))
        assert words == f"option players must be an integer from 3 to 4, not {players}"
    with pytest.raises(grpc.RpcError) as refused:
        create(stub, [HUMAN] * 3, hearts_options(players=3), decks=[pb.Deck(cards=deck_text(range(52)).split())])
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "2D is not a card of hearts" in refused.value.details()


def test_the_catalog_gives_the_seat_counts_and_the_setting_that_chooses_them(stub):
    catalog = {game.name: game for game in stub.GetCatalog(pb.GetCatalogRequest()).games}
    hearts = catalog["hearts"]
    assert (hearts.seats, list(hearts.seat_counts), hearts.seat_setting) == (4, [3, 4], "players")
    players = next(s for s in hearts.settings if s.name == "players")
    assert (players.type, players.min, players.max, players.default_value) == (enums.SETTING_TYPE_INTEGER, 3, 4, "4")
    for name in ("spades", "spades2", "buck_euchre"):
        assert list(catalog[name].seat_counts) == [catalog[name].seats] and catalog[name].seat_setting == ""
