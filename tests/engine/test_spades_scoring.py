"""Spades scoring and winning (RULES.md §1 and §2): every worked example of the rules, played
through the engine with scripted deals that give each seat an exact number of tricks."""

from __future__ import annotations

import pytest
from engine_helpers import rejects, side_result, spades2_game, spades_game

import engine
from engine import Phase, Reason, SpadesOptions
from engine.games.spades_words import bid

R = Reason


# ---- four players: contract, bags ----------------------------------------------------------

def test_contract_made_with_bags_sheet_example_bid_5_won_7_is_52():
    # side 0: seat 0 bids 3, seat 2 bids 2 (contract 5), they win 4 + 3 = 7
    state = spades_game([((3, 3, 2, 3), (4, 3, 3, 3))], dealer=3)
    r = side_result(state, 0)
    assert (r.contract, r.tricks, r.contract_points, r.bags_gained, r.hand_points) == (5, 7, 50, 2, 52)
    assert state.scores[0] == 52 and state.bags[0] == 2
    assert side_result(state, 1).hand_points == 60 and state.bags[1] == 0      # bid 6, won 6


def test_contract_failed_loses_ten_per_contracted_trick_and_no_bags():
    state = spades_game([((3, 4, 3, 4), (4, 3, 3, 3))], dealer=3)
    r = side_result(state, 1)
    assert (r.contract, r.tricks, r.contract_points, r.bags_gained, r.hand_points) == (8, 6, -80, 0, -80)
    assert state.scores == [61, -80] and state.bags == [1, 0]


def test_sandbagging_sheet_example_11_bags_then_9_more():
    # side 0: 4 bid / 7 won, 3 / 6, 4 / 9 -> 11 bags -> -100 and 1 carries; 9 more bags -> another -100
    state = spades_game([
        ((2, 3, 2, 3), (4, 3, 3, 3)),     # side 0: 4 bid, 7 won -> 43, bags 3;   side 1: 6/6 -> 60
        ((2, 3, 1, 3), (3, 4, 3, 3)),     # side 0: 3 bid, 6 won -> 33, bags 6;   side 1: 6/7 -> 61, bags 1
        ((2, 1, 2, 1), (5, 2, 4, 2)),     # side 0: 4 bid, 9 won -> 45 - 100, bags 11 -> 1; side 1: 2/4 -> 22, bags 3
        ((2, 0, 2, 0), (7, 0, 6, 0)),     # side 0: 4 bid, 13 won -> 49 - 100, bags 10 -> 0; side 1: both Nil made
    ], dealer=0)
    after = [(r.sides[0].total_after, r.sides[0].bags_after, r.sides[0].bag_penalty)
             for r in state.records]
    assert after == [(43, 3, 0), (76, 6, 0), (21, 1, -100), (-30, 0, -100)]
    assert state.scores == [-30, 60 + 61 + 22 + 200]
    assert state.bags == [0, 3]


def test_two_bag_penalties_when_one_hand_pushes_the_count_past_20():
    state = spades_game([
        ((2, 0, 2, 0), (7, 0, 6, 0)),     # side 0: bid 4, won 13 -> 49, bags 9
        ((1, 0, 0, 0), (11, 0, 2, 0)),    # seat 0 bids 1 wins 11 (10 bags), seat 2's failed Nil: 2 more -> 21
    ], dealer=0)
    r = side_result(state, 0)
    assert r.bags_gained == 12
    assert r.bag_penalty == -200
    assert r.bags_after == 1
    assert r.hand_points == 10 + 12 - 100 - 200
    assert state.scores[0] == 49 - 278 and state.bags[0] == 1


def test_bag_count_exactly_20_is_two_penalties():
    state = spades_game([
        ((2, 0, 2, 0), (7, 0, 6, 0)),     # bags 9
        ((1, 0, 1, 0), (7, 0, 6, 0)),     # bid 2, won 13: 11 bags -> 20
    ], dealer=0)
    r = side_result(state, 0)
    assert (r.bag_penalty, r.bags_after) == (-200, 0)


# ---- four players: Nil and Double Nil ------------------------------------------------------

def test_nil_made_plus_partner_contract():
    state = spades_game([((4, 3, 0, 3), (5, 4, 0, 4))], dealer=3)
    r = side_result(state, 0)
    assert r.nil_points == 100 and r.contract == 4
    assert r.hand_points == 40 + 1 + 100
    assert [n.result for n in r.nils] == ["none", "made"]


def test_failed_nil_tricks_are_bags_not_contract_tricks_partner_makes_contract():
    state = spades_game([((4, 3, 0, 3), (4, 4, 2, 3))], dealer=3)
    r = side_result(state, 0)
    assert r.tricks == 4                     # only the non-Nil member's tricks count
    assert r.contract_points == 40
    assert r.bags_gained == 2
    assert r.nil_points == -100
    assert r.hand_points == 40 + 2 - 100
    assert state.bags[0] == 2


def test_failed_nil_tricks_do_not_rescue_the_partner_and_still_count_as_bags():
    # seat 0 bids 4 and wins 3; its Nil partner wins 2: 3 + 2 >= 4, but the contract fails
    state = spades_game([((4, 3, 0, 3), (3, 4, 2, 4))], dealer=3)
    r = side_result(state, 0)
    assert r.contract_points == -40
    assert r.bags_gained == 2                # Decision: bags whether or not the partner makes it
    assert r.hand_points == -40 + 2 - 100
    assert state.bags[0] == 2


@pytest.mark.parametrize("counts,points,bags", [
    ((0, 7, 0, 6), 200, 0),          # both made
    ((1, 6, 2, 4), -200 + 3, 3),     # both failed: contract 0, every trick a bag
    ((0, 7, 2, 4), 0 + 2, 2),        # one of each
])
def test_both_partners_nil(counts, points, bags):
    state = spades_game([((0, 3, 0, 3), counts)], dealer=3)
    r = side_result(state, 0)
    assert r.contract == 0
    assert r.hand_points == points and r.bags_gained == bags
    assert state.scores[0] == points and state.bags[0] == bags


def _dn_game(counts, bids=("DN", 3, 4, 3)):
    return spades_game([(bids, counts)], dealer=3)


def test_double_nil_made_is_plus_200():
    state = _dn_game((0, 4, 5, 4))
    r = side_result(state, 0)
    assert r.nils[0].to_dict() == {"double": True, "result": "made", "points": 200, "seat": 0, "for_partner": 0}
    assert r.hand_points == 40 + 1 + 200
    assert state.records[0].bids[0] == -2
    assert [e.seat for e in state.records[0].exchanges] == [0, 2]


def test_double_nil_failed_is_minus_200_and_its_tricks_are_bags():
    state = _dn_game((1, 4, 4, 4))
    r = side_result(state, 0)
    assert r.nils[0].result == "failed" and r.nil_points == -200
    assert r.hand_points == 40 + 1 - 200


@pytest.mark.parametrize("counts,points,bags", [
    ((0, 7, 0, 6), 400, 0),
    ((1, 6, 2, 4), -400 + 3, 3),
    ((0, 7, 2, 4), 0 + 2, 2),
])
def test_both_partners_double_nil_no_exchange(counts, points, bags):
    state = spades_game([(("DN", 3, "DN", 3), counts)], dealer=3)   # would fail if an exchange were due
    r = side_result(state, 0)
    assert r.hand_points == points and r.bags_gained == bags
    assert state.records[0].exchanges == []


def test_double_nil_and_ordinary_nil_partners():
    state = spades_game([(("DN", 3, 0, 3), (0, 7, 0, 6))], dealer=3)
    assert side_result(state, 0).hand_points == 300
    assert [e.seat for e in state.records[0].exchanges] == [0, 2]


def test_rule_options_change_values():
    opts = SpadesOptions(nil_value=50, double_nil_value=75, bag_limit=5, bag_penalty=40)
    state = spades_game([((0, 2, 3, "DN"), (0, 6, 7, 0))], dealer=3, options=opts)
    # side 0: Nil made +50, contract 3 won 7 -> 30 + 4 bags; side 1: DN made +75, contract 2 won 6 -> 20 + 4
    assert side_result(state, 0).hand_points == 50 + 34
    assert side_result(state, 1).hand_points == 75 + 24
    state = spades_game([((1, 2, 1, 2), (6, 2, 3, 2))], dealer=3, options=opts)
    r = side_result(state, 0)                   # 2 bid, 9 won: 7 bags -> one penalty of 40 at 5
    assert (r.bag_penalty, r.bags_after, r.hand_points) == (-40, 2, 20 + 7 - 40)


# ---- four players: winning -------------------------------------------------------------------

def test_first_partnership_to_500_wins():
    hand = ((6, 1, 7, 1), (7, 0, 6, 0))          # side 0: 13 bid, 13 won -> 130; side 1: 2 bid, 0 won -> -20
    state = spades_game([hand] * 3, dealer=0)
    assert state.scores == [390, -60] and state.phase == Phase.DEAL and state.winner == []
    state = spades_game([hand] * 4, dealer=0)
    assert state.scores == [520, -80]
    assert state.phase == Phase.GAME_OVER and state.winner == [0]
    assert engine.score(state).winner_sides == [0]
    assert engine.view(state, None).winner_seats == [0, 2]
    for seat in range(4):
        assert engine.legal_actions(state, seat) == []
        rejects(state, seat, engine.DEAL, R.WRONG_PHASE)
        rejects(state, seat, bid(3), R.WRONG_PHASE)


def test_reaching_the_target_exactly_wins():
    state = spades_game([((6, 1, 7, 1), (7, 0, 6, 0))], dealer=0, options=SpadesOptions(target_score=130))
    assert state.winner == [0] and state.phase == Phase.GAME_OVER


def test_both_reach_target_in_the_same_hand_higher_wins():
    opts = SpadesOptions(target_score=100)
    state = spades_game([((4, 3, 3, 3), (4, 3, 3, 3)),          # 70 / 60
                         ((2, 5, 2, 4), (2, 6, 2, 3))], dealer=0, options=opts)  # +40 -> 110 / +90 -> 150
    assert state.scores == [110, 150]
    assert state.winner == [1] and state.phase == Phase.GAME_OVER


def test_tie_at_target_plays_another_hand():
    opts = SpadesOptions(target_score=100)
    state = spades_game([((1, 4, 1, 4), (1, 6, 1, 5)),          # side 0: 2/2 -> 20; side 1: 8/11 -> 83
                         ((4, 1, 4, 1), (6, 1, 5, 1))], dealer=0, options=opts)  # 8/11 -> 103; 2/2 -> 103
    assert state.scores == [103, 103]
    assert state.winner == [] and state.phase == Phase.DEAL
    state = spades_game([((1, 4, 1, 4), (1, 6, 1, 5)), ((4, 1, 4, 1), (6, 1, 5, 1)),
                         ((2, 3, 2, 3), (4, 3, 3, 3))], dealer=0, options=opts)   # +43 / +60
    assert state.scores == [146, 163] and state.winner == [1]


def test_score_summary():
    state = spades_game([((3, 3, 2, 3), (4, 3, 3, 3))], dealer=3)
    s = engine.score(state)
    assert s.totals == [52, 60] and s.bags == [2, 0]
    assert s.sides == [[0, 2], [1, 3]]
    assert s.winner_sides == []
    assert len(s.hands) == 1 and s.hands[0].dealer == 3


# ---- two players ------------------------------------------------------------------------------

def test_two_player_sheet_example_bid_7_won_8_is_71():
    state = spades2_game([((7, 5), (8, 5))], dealer=0)
    r = side_result(state, 0)
    assert (r.contract, r.tricks, r.hand_points, r.bags_after) == (7, 8, 71, 1)
    assert side_result(state, 1).hand_points == 50
    assert state.scores == [71, 50] and state.bags == [1, 0]


def test_two_player_sheet_example_megan_8_drew_6():
    # first drawer Drew = seat 0, second player Megan = seat 1 bids first
    state = spades2_game([((6, 8), (5, 8))], dealer=0)
    rec = state.records[0]
    assert rec.bids == [6, 8]
    assert [s.contract for s in rec.sides] == [6, 8]
    assert state.scores == [-60, 80]


def test_two_player_nil_double_nil_and_bags_per_player():
    state = spades2_game([((0, 4), (0, 13)),           # Nil made: +100; bid 4 won 13: 40 + 9 bags
                          (("DN", 3), (1, 12))], dealer=0)    # DN failed: -200 + 1 bag; 3 won 12: 30 + 9 bags
    assert [side_result(state, s, 0).hand_points for s in (0, 1)] == [100, 49]
    assert side_result(state, 0).hand_points == -200 + 1
    assert side_result(state, 1).bag_penalty == -100          # 9 + 9 = 18 bags -> 8
    assert state.bags == [1, 8]
    assert state.scores == [100 - 199, 49 + 39 - 100]


def test_two_player_first_to_target_wins_and_ties_continue():
    opts = SpadesOptions(target_score=100)
    state = spades2_game([((7, 5), (8, 5)), ((3, 5), (6, 7))], dealer=1, options=opts)
    assert state.scores == [71 + 33, 50 + 52]
    assert state.winner == [0] and state.phase == Phase.GAME_OVER
    state = spades2_game([((6, 6), (6, 7)), ((6, 6), (7, 6))], dealer=0, options=opts)
    assert state.scores == [121, 121] and state.winner == [] and state.phase == Phase.DEAL
