"""Whole games of every built-in game (the games a server plays without ``--game-module``) through
the API alone, checked against GetScore and the engine."""

from __future__ import annotations

import random

import grpc
import pytest

import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import options_pb2
from engine.core.cards import deck_text
from engine.games import BUILTIN
from tests.support.players import play_to_end, tokens_of

GAMES = [game.name for game in BUILTIN]
"""The games the test server plays: the built-in ones."""
# A low target and a high bag limit make random play (bids of 1 to 3) finish in a few hands.
SPADES_OPTIONS = options_pb2.RuleOptions(spades=options_pb2.SpadesOptions(target_score=100, bag_limit=50))
ENGINE_SPADES_OPTIONS = engine.SpadesOptions(target_score=100, bag_limit=50)
SHORT_GAMES = {"spades": (SPADES_OPTIONS, ENGINE_SPADES_OPTIONS), "spades2": (SPADES_OPTIONS, ENGINE_SPADES_OPTIONS),
               "cutthroat_spades": (SPADES_OPTIONS, ENGINE_SPADES_OPTIONS)}
"""The options (request, engine) that make a game short; any other game: its defaults."""


def create(stub, variant: str, **fields) -> pb.CreateGameResponse:
    """Create a game of the registered game ``variant`` by its name, every seat human."""
    seats = [pb.SeatConfig(name=f"P{i}") for i in range(engine.game_of(variant).seats)]
    return stub.CreateGame(pb.CreateGameRequest(variant_name=variant, seats=seats, **fields))


def decks_for(variant: str, seed: int, count: int = 60) -> list[list[int]]:
    """Prearranged decks so the engine can replay the game exactly."""
    rng = random.Random(seed)
    cards = list(engine.game_of(variant).cards)
    return [rng.sample(cards, len(cards)) for _ in range(count)]


def replay(variant: str, decks, first_dealer: int, moves, options) -> engine.TableState:
    """The same moves applied by the engine directly, from their notations."""
    state = engine.new_game(variant, options, first_dealer=first_dealer, decks=decks)
    for seat, notation in moves:
        engine.apply(state, seat, engine.parse_notation(variant, notation))
    return state


@pytest.mark.parametrize("variant", GAMES)
def test_whole_game_matches_get_score_and_engine(stub, variant):
    rng = random.Random(f"whole-{variant}")
    decks = decks_for(variant, 7)
    options, engine_options = SHORT_GAMES.get(variant, (None, None))
    created = create(stub, variant, first_dealer=1, options=options,
                     decks=[pb.Deck(cards=deck_text(d).split()) for d in decks])
    moves = play_to_end(stub, created.game_id, tokens_of(created), rng)

    score = stub.GetScore(pb.GetScoreRequest(game_id=created.game_id))
    final = stub.GetGame(pb.GetGameRequest(game_id=created.game_id)).view
    assert final.phase == enums.PHASE_GAME_OVER and final.variant_name == variant
    assert [t.score for t in score.totals] == [s.score for s in final.scores]
    assert score.HasField("winner_side") and final.winner_side == score.winner_side

    expected = replay(variant, decks, 1, moves, engine_options)
    assert [t.score for t in score.totals] == expected.scores
    assert [t.bags for t in score.totals] == engine.side_bags(expected)
    assert len(score.hands) == len(expected.records)
    for hand, record in zip(score.hands, expected.records, strict=True):
        assert hand.deck == record.deck
        assert [s.tricks_won for s in hand.seats] == record.tricks
        assert [s.hand_points for s in hand.sides] == record.points
        assert [s.total_after for s in hand.sides] == record.totals
    # every hand's points add up to the totals, from the scores a game starts with
    start = engine.new_game(variant, engine_options, first_dealer=1).scores
    for side in range(len(score.totals)):
        assert start[side] + sum(h.sides[side].hand_points for h in score.hands) == score.totals[side].score


def test_get_score_pages_through_every_hand(stub):
    decks = decks_for("spades", 3)
    created = create(stub, "spades", first_dealer=1, options=SPADES_OPTIONS,
                     decks=[pb.Deck(cards=deck_text(d).split()) for d in decks])
    play_to_end(stub, created.game_id, tokens_of(created), random.Random("pages"))
    whole = stub.GetScore(pb.GetScoreRequest(game_id=created.game_id))
    assert len(whole.hands) >= 2 and not whole.next_page_token
    pages, token = [], ""
    for _ in range(len(whole.hands) + 1):
        page = stub.GetScore(pb.GetScoreRequest(game_id=created.game_id, page_size=1, page_token=token))
        assert len(page.hands) == 1 and page.totals == whole.totals and page.winner_side == whole.winner_side
        pages.extend(page.hands)
        token = page.next_page_token
        if not token:
            break
    assert list(pages) == list(whole.hands)
    other = create(stub, "buck_euchre", first_dealer=0).game_id
    foreign = stub.GetScore(pb.GetScoreRequest(game_id=created.game_id, page_size=1)).next_page_token
    for bad in (pb.GetScoreRequest(game_id=created.game_id, page_size=-1),
                pb.GetScoreRequest(game_id=created.game_id, page_token="junk"),
                pb.GetScoreRequest(game_id=other, page_token=foreign)):
        with pytest.raises(grpc.RpcError) as info:
            stub.GetScore(bad)
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
