"""Whole games of every variant through the API alone, checked against GetScore and the engine."""

from __future__ import annotations

import random

import grpc
import pytest
from players import create, play_to_end, tokens_of

import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import options_pb2
from engine.core.cards import EUCHRE_DECK, card_list, deck_text

CARDS = {"spades": list(range(52)), "spades2": list(range(52)), "buck_euchre": card_list(EUCHRE_DECK)}
# A low target and a high bag limit make random play (bids of 1 to 3) finish in a few hands.
SPADES_OPTIONS = options_pb2.RuleOptions(spades=options_pb2.SpadesOptions(target_score=100, bag_limit=50))
ENGINE_SPADES_OPTIONS = engine.SpadesOptions(target_score=100, bag_limit=50)


def decks_for(variant: str, seed: int, count: int = 60) -> list[list[int]]:
    """Prearranged decks so the engine can replay the game exactly."""
    rng = random.Random(seed)
    return [rng.sample(CARDS[variant], len(CARDS[variant])) for _ in range(count)]


def replay(variant: str, decks, first_dealer: int, moves, options) -> engine.GameState:
    """The same moves applied by the engine directly, from their notations."""
    state = engine.new_game(variant, options, first_dealer=first_dealer, decks=decks)
    for seat, notation in moves:
        engine.apply(state, seat, engine.parse_action(notation))
    return state


@pytest.mark.parametrize("variant", ["spades", "spades2", "buck_euchre"])
def test_whole_game_matches_get_score_and_engine(stub, variant):
    rng = random.Random(f"whole-{variant}")
    decks = decks_for(variant, 7)
    spades = variant != "buck_euchre"
    options = SPADES_OPTIONS if spades else None
    created = create(stub, variant, first_dealer=1, options=options,
                     decks=[pb.Deck(cards=deck_text(d).split()) for d in decks])
    moves = play_to_end(stub, created.game_id, tokens_of(created), rng)

    score = stub.GetScore(pb.GetScoreRequest(game_id=created.game_id))
    final = stub.GetGame(pb.GetGameRequest(game_id=created.game_id)).view
    assert final.phase == enums.PHASE_GAME_OVER
    assert [t.score for t in score.totals] == [s.score for s in final.scores]
    assert score.HasField("winner_side") and final.winner_side == score.winner_side

    expected = replay(variant, decks, 1, moves, ENGINE_SPADES_OPTIONS if spades else None)
    assert [t.score for t in score.totals] == expected.scores
    assert [t.bags for t in score.totals] == engine.side_bags(expected)
    assert len(score.hands) == len(expected.records)
    for hand, record in zip(score.hands, expected.records, strict=True):
        assert hand.deck == record.deck
        assert [s.tricks_won for s in hand.seats] == record.tricks
    # every hand's points add up to the totals
    if spades:
        for side in range(len(score.totals)):
            assert sum(h.sides[side].hand_points for h in score.hands) == score.totals[side].score
    else:
        for seat in range(4):
            assert 25 + sum(h.seats[seat].points for h in score.hands) == score.totals[seat].score


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
