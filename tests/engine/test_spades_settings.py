"""The Spades table settings (RULES.md §1.1), sentence by sentence: Double Nil only when behind,
the minimum team bid, Suicide, Mirror and Whiz bidding, the exchange for Nil, failed Nil tricks
counting for the partner and the losing score; each refusal with its code and in the order the
rules give; the options' validation; and what each setting leaves in the hand record. The jokers
(``trumps``) are in test_spades_jokers.py."""

from __future__ import annotations

import dataclasses

import pytest
from engine_helpers import act, bid_round, cs, deal, new, rejects, side_result, spades_deck, spades_game, start

import engine
from engine import Reason, SpadesOptions
from engine.games.spades_bidding import exchange_size
from engine.games.spades_scoring import DOUBLE_NIL_BID, spades_side
from engine.games.spades_state import SpadesHandRecord, SpadesReason, SpadesState
from engine.games.spades_words import DOUBLE_NIL, DRAW_KEEP, REVEAL, SpadesCode, bid, exchange
from engine.games.spades_words import SpadesPhase as Phase

R, S = Reason, SpadesReason

# Dealer 3: seat 0 bids first; seat 0 holds no spade, seat 1 three, seat 2 four, seat 3 six.
HANDS = {
    0: "AC KC QC JC 2D 3D 4D 2H 3H 4H 5H 6H 7H",
    1: "2C 3C 4C 5C 5D 6D 7D 8D 8H 9H 2S 3S 4S",
    2: "6C 7C 8C 9C 9D 10D JD 10H JH 5S 6S 7S 8S",
    3: "10C QD KD AD QH KH AH 9S 10S JS QS KS AS",
}


def dealt(totals: tuple[int, int] | None = None, **settings) -> SpadesState:
    """A four-player hand dealt from HANDS by dealer 3 with these settings, the running totals
    ``totals`` standing at the start of the hand (as earlier hands would have left them)."""
    state = new("spades", [spades_deck(3, HANDS)], dealer=3, options=SpadesOptions(**settings))
    if totals is not None:
        state.scores = list(totals)
    deal(state)
    return state


def bids_of(state, seat: int) -> set[int | str]:
    """The bids ``seat`` is offered: numbers, and "DN" for Double Nil."""
    out: set[int | str] = set()
    for a in engine.legal_actions(state, seat):
        if a == DOUBLE_NIL:
            out.add("DN")
        elif engine.kind_of(a) == SpadesCode.BID:
            out.add(engine.payload_of(a))
    return out


def sees_its_hand_from_the_deal(state, seat: int) -> bool:
    view = engine.view(state, seat)
    return (view.hand is not None and view.seats[seat].rules.has_looked
            and REVEAL not in engine.legal_actions(state, seat))


# ---- validation (RULES.md §1.1, last paragraph) ------------------------------------------------

@pytest.mark.parametrize("settings,name", [
    ({"blind_nil_when_behind": -1}, "blind_nil_when_behind"),
    ({"losing_score": -100}, "losing_score"),
    ({"min_team_bid": 14}, "min_team_bid"),
    ({"min_team_bid": -1}, "min_team_bid"),
    ({"nil_exchange": 4}, "nil_exchange"),
    ({"trumps": "aces"}, "trumps"),
    ({"bidding": "blind"}, "bidding"),
    ({"failed_nil_tricks_count": "yes"}, "failed_nil_tricks_count"),
    ({"blind_nil_when_behind": True}, "blind_nil_when_behind"),
])
def test_values_out_of_range_are_refused_naming_the_option(settings, name):
    with pytest.raises(ValueError, match=f"option {name} must be"):
        engine.new_game("spades", SpadesOptions(**settings))


@pytest.mark.parametrize("rule", ["suicide", "mirror", "whiz"])
def test_a_bidding_rule_with_a_minimum_team_bid_is_refused_under_min_team_bid(rule):
    with pytest.raises(ValueError, match="option min_team_bid must be 0 with bidding " + rule):
        engine.new_game("spades", SpadesOptions(bidding=rule, min_team_bid=1))
    with pytest.raises(ValueError, match="option min_team_bid"):
        SpadesOptions.from_settings("spades", {"bidding": rule, "min_team_bid": "3"})
    assert SpadesOptions.from_settings("spades", {"bidding": rule, "min_team_bid": "0"}).bidding == rule


@pytest.mark.parametrize("name,text", [("trumps", "jokers"), ("min_team_bid", "4"), ("bidding", "mirror"),
                                       ("nil_exchange", "2"), ("failed_nil_tricks_count", "true")])
def test_two_player_spades_refuses_the_four_player_settings_even_at_their_default(name, text):
    setting = next(s for s in SpadesOptions.SETTINGS if s.name == name)
    for value in (text, setting.text(setting.default)):
        with pytest.raises(ValueError, match=f"spades2 has no setting '{name}'"):
            SpadesOptions.from_settings("spades2", {name: value})
    with pytest.raises(ValueError, match=f"option {name} is not a setting of two-player Spades"):
        engine.new_game("spades2", SpadesOptions(**{name: setting.parse(text)}))
    assert SpadesOptions.from_settings("spades", {name: text})


def test_two_player_spades_takes_blind_nil_when_behind_and_losing_score():
    options = SpadesOptions.from_settings("spades2", {"blind_nil_when_behind": "150", "losing_score": "300"})
    assert (options.blind_nil_when_behind, options.losing_score) == (150, 300)
    assert engine.new_game("spades2", options).options == options


def test_points_options_are_whole_numbers_from_zero():
    assert SpadesOptions.from_settings("spades", {"blind_nil_when_behind": "0", "losing_score": "1000000"})
    for text in ("1.5", "-1", "ten"):
        with pytest.raises(ValueError, match="option losing_score must be an integer from 0 to"):
            SpadesOptions.from_settings("spades", {"losing_score": text})


def test_defaults_are_the_rule_sheet():
    options = SpadesOptions()
    assert (options.blind_nil_when_behind, options.trumps, options.min_team_bid, options.bidding,
            options.nil_exchange, options.failed_nil_tricks_count, options.losing_score) == \
        (0, "standard", 0, "standard", 0, False, 0)


# ---- Double Nil only when behind ------------------------------------------------------------------

def test_double_nil_needs_the_side_to_trail_by_at_least_the_setting():
    state = dealt(totals=(40, 140), blind_nil_when_behind=100)        # side 0 trails by exactly 100
    assert "DN" in bids_of(state, 0) and REVEAL in engine.legal_actions(state, 0)
    act(state, 0, DOUBLE_NIL)
    assert state.bids[0] == DOUBLE_NIL_BID
    assert sees_its_hand_from_the_deal(state, 1) and sees_its_hand_from_the_deal(state, 3)   # side 1 leads
    assert not engine.view(state, 2).seats[2].rules.has_looked
    refused = rejects(state, 1, DOUBLE_NIL, S.BLIND_NIL_NOT_BEHIND)
    assert refused.message == ("Double Nil is allowed only to a partnership trailing by at least 100 points at the "
                               "start of the hand: yours leads by 100")
    assert "DN" not in bids_of(state, 1)


def test_trailing_by_less_or_a_tie_is_not_enough():
    for totals, words in (((41, 140), "trails by 99"), ((200, 200), "is level")):
        state = dealt(totals=totals, blind_nil_when_behind=100)
        assert "DN" not in bids_of(state, 0) and sees_its_hand_from_the_deal(state, 0)
        refused = rejects(state, 0, DOUBLE_NIL, S.BLIND_NIL_NOT_BEHIND)
        assert "at least 100 points" in refused.message and refused.message.endswith(words)


def test_a_tie_is_enough_only_without_the_setting():
    state = dealt(totals=(200, 200))
    assert "DN" in bids_of(state, 0) and not any(engine.view(state, s).seats[s].rules.has_looked for s in range(4))


def test_double_nil_switched_off_comes_before_not_behind():
    state = dealt(totals=(0, 50), blind_nil_when_behind=100, double_nil_allowed=False)
    rejects(state, 0, DOUBLE_NIL, R.INVALID_BID)


def test_double_nil_switched_off_means_every_seat_sees_its_hand_from_the_deal():
    state = dealt(double_nil_allowed=False)
    assert all(sees_its_hand_from_the_deal(state, s) for s in range(4))
    assert engine.legal_actions(state, 1) == []                          # nothing to do out of turn
    rejects(state, 1, REVEAL, R.WRONG_PHASE)


def test_two_players_double_nil_when_behind_only_in_the_first_draw_turn():
    level = start("spades2", dealer=0, options=SpadesOptions(blind_nil_when_behind=50))
    assert DOUBLE_NIL not in engine.legal_actions(level, 0)            # 0 - 0: a tie is not behind
    rejects(level, 0, DOUBLE_NIL, S.BLIND_NIL_NOT_BEHIND)
    behind = new("spades2", dealer=0, options=SpadesOptions(blind_nil_when_behind=50))
    behind.scores = [10, 60]
    deal(behind)
    assert DOUBLE_NIL in engine.legal_actions(behind, 0)               # trails by 50
    act(behind, 0, DRAW_KEEP)
    assert DOUBLE_NIL not in engine.legal_actions(behind, 1)          # leads by 50
    assert rejects(behind, 1, DOUBLE_NIL, S.BLIND_NIL_NOT_BEHIND).message == \
        "Double Nil is allowed only to a player trailing by at least 50 points at the start of the hand: you lead by 50"
    act(behind, 1, DRAW_KEEP)
    rejects(behind, 0, DOUBLE_NIL, S.BLIND_NIL_AFTER_LOOKING)          # behind, but after its first choice


def test_two_players_not_behind_comes_before_after_looking_and_switched_off_first():
    state = new("spades2", dealer=0, options=SpadesOptions(blind_nil_when_behind=50))
    state.scores = [100, 0]
    deal(state)
    assert DOUBLE_NIL not in engine.legal_actions(state, 0)
    rejects(state, 0, DOUBLE_NIL, S.BLIND_NIL_NOT_BEHIND)
    while state.phase == Phase.DRAW:
        act(state, state.turn, DRAW_KEEP)
    assert state.turn == 1
    rejects(state, 1, DOUBLE_NIL, S.BLIND_NIL_AFTER_LOOKING)          # trails: only too late
    act(state, 1, bid(3))
    rejects(state, 0, DOUBLE_NIL, S.BLIND_NIL_NOT_BEHIND)             # leads: not behind first
    off = start("spades2", dealer=0, options=SpadesOptions(double_nil_allowed=False))
    while off.phase == Phase.DRAW:
        act(off, off.turn, DRAW_KEEP)
    rejects(off, 1, DOUBLE_NIL, R.INVALID_BID)


# ---- the minimum team bid -----------------------------------------------------------------------

def test_the_first_bidder_of_a_partnership_is_not_restricted():
    state = dealt(min_team_bid=6)
    assert bids_of(state, 0) == set(range(14)) | {"DN"}
    act(state, 0, bid(0))
    assert bids_of(state, 1) == set(range(14)) | {"DN"}


def test_the_second_bidder_must_reach_the_minimum_and_nil_counts_zero():
    state = dealt(min_team_bid=4)
    bid_round_until(state, 2, {0: 1, 1: 4})
    assert bids_of(state, 2) == set(range(3, 14))                     # 1 + 3 reaches 4; Nil and Double Nil do not
    refused = rejects(state, 2, bid(2), S.BID_BELOW_MINIMUM)
    assert refused.message == "your partnership must bid at least 4 in all: your partner bid 1, so bid at least 3"
    rejects(state, 2, bid(0), S.BID_BELOW_MINIMUM)
    rejects(state, 2, DOUBLE_NIL, S.BID_BELOW_MINIMUM)                # not looked: the minimum refuses it
    act(state, 2, bid(3))
    assert bids_of(state, 3) == set(range(14)) | {"DN"}               # partner bid 4: Nil reaches the minimum


def test_a_minimum_the_partner_left_to_one_bid_forces_it_and_the_record_says_so():
    state = dealt(min_team_bid=13)
    bid_round_until(state, 2, {0: 0, 1: 4})
    assert bids_of(state, 2) == {13}
    assert rejects(state, 2, bid(12), S.BID_BELOW_MINIMUM).message.endswith("your partner bid Nil, so bid at least 13")
    act(state, 2, bid(13))
    assert engine.view(state, 0).seats[2].rules.bid_forced and not engine.view(state, 0).seats[0].rules.bid_forced


def test_after_looking_comes_before_below_the_minimum():
    state = dealt(min_team_bid=4)
    bid_round_until(state, 2, {0: 1, 1: 4})
    act(state, 2, REVEAL)
    rejects(state, 2, DOUBLE_NIL, S.BLIND_NIL_AFTER_LOOKING)


# ---- Suicide -------------------------------------------------------------------------------------

def test_suicide_a_number_first_means_nil_or_double_nil_second():
    state = dealt(bidding="suicide")
    assert bids_of(state, 0) == set(range(14)) | {"DN"}               # the first partner bids anything
    bid_round_until(state, 2, {0: 4, 1: 0})
    assert bids_of(state, 2) == {0, "DN"}
    refused = rejects(state, 2, bid(3), S.BID_NOT_ALLOWED)
    assert refused.message == "in Suicide one partner bids Nil: your partner bid 4, so you must bid Nil or Double Nil"
    act(state, 2, REVEAL)
    assert bids_of(state, 2) == {0}
    act(state, 2, bid(0))
    assert engine.view(state, 1).seats[2].rules.bid_forced            # looked: Nil was its only bid


def test_suicide_nil_or_double_nil_first_means_a_number_second():
    state = dealt(bidding="suicide")
    bid_round_until(state, 2, {0: "DN", 1: 0})
    assert bids_of(state, 2) == set(range(1, 14))
    assert rejects(state, 2, bid(0), S.BID_NOT_ALLOWED).message.endswith(
        "your partner bid Double Nil, so you must bid a number from 1 to 13")
    rejects(state, 2, DOUBLE_NIL, S.BID_NOT_ALLOWED)
    act(state, 2, bid(5))
    assert bids_of(state, 3) == set(range(1, 14))                     # seat 1 bid Nil
    act(state, 3, bid(6))
    assert state.phase == Phase.EXCHANGE                              # the Double Nil exchange as usual


def test_suicide_bid_not_allowed_comes_before_not_behind():
    state = dealt(totals=(100, 0), bidding="suicide", blind_nil_when_behind=50)
    bid_round_until(state, 2, {0: 0, 1: 3})
    rejects(state, 2, DOUBLE_NIL, S.BID_NOT_ALLOWED)                  # not behind either: the rule first


# ---- Mirror and Whiz -----------------------------------------------------------------------------

def test_mirror_each_bids_its_spades_and_none_is_nil():
    state = dealt(bidding="mirror")
    assert all(sees_its_hand_from_the_deal(state, s) for s in range(4))   # no Double Nil, no looking
    assert bids_of(state, 0) == {0}
    refused = rejects(state, 0, bid(1), S.BID_NOT_ALLOWED)
    assert refused.message == "in Mirror you bid the spades in your hand: you hold 0 spades, so bid Nil"
    rejects(state, 0, DOUBLE_NIL, S.BID_NOT_ALLOWED)
    act(state, 0, bid(0))
    assert bids_of(state, 1) == {3}
    assert rejects(state, 1, bid(0), S.BID_NOT_ALLOWED).message.endswith("you hold 3 spades, so bid 3")
    bid_round(state, {1: 3, 2: 4, 3: 6})
    assert state.phase == Phase.PLAY and state.forced == 15
    record = finish(state)
    assert record.forced == [True] * 4 and record.bids == [0, 3, 4, 6]
    assert record.sides[0].nils[0].result in ("made", "failed") and record.sides[0].contract == 4   # an ordinary Nil


def test_mirror_double_nil_switched_off_is_invalid_bid_first():
    state = dealt(bidding="mirror", double_nil_allowed=False)
    rejects(state, 0, DOUBLE_NIL, R.INVALID_BID)


def test_whiz_nil_or_the_spades_held():
    state = dealt(bidding="whiz")
    assert all(sees_its_hand_from_the_deal(state, s) for s in range(4))
    assert bids_of(state, 0) == {0}                                   # no spades: Nil only
    act(state, 0, bid(0))
    assert bids_of(state, 1) == {0, 3}
    assert rejects(state, 1, bid(2), S.BID_NOT_ALLOWED).message == \
        "in Whiz you bid Nil or the spades in your hand: you hold 3 spades, so bid Nil or 3"
    rejects(state, 1, DOUBLE_NIL, S.BID_NOT_ALLOWED)
    act(state, 1, bid(0))
    act(state, 2, bid(4))
    act(state, 3, bid(6))
    assert state.forced == 1                                          # only seat 0 had one bid


def test_the_nil_of_mirror_is_ordinary_and_nil_exchange_applies():
    state = dealt(bidding="mirror", nil_exchange=2)
    bid_round(state, {0: 0, 1: 3, 2: 4, 3: 6})
    assert state.phase == Phase.EXCHANGE
    assert engine.view(state, 0).exchange.fewest == engine.view(state, 2).exchange.most == 2
    assert not engine.legal_actions(state, 1)


# ---- the exchange for Nil ------------------------------------------------------------------------

def test_exchange_sizes_first_case_that_fits():
    options = SpadesOptions(nil_exchange=2, exchange_size=3)
    dn, nil = DOUBLE_NIL_BID, 0
    assert [exchange_size(options, a, b) for a, b in ((dn, 4), (4, dn), (dn, nil), (nil, 4), (4, nil), (nil, nil),
                                                      (dn, dn), (4, 5))] == [3, 3, 3, 2, 2, 0, 0, 0]
    assert exchange_size(dataclasses.replace(options, exchange_size=0), dn, nil) == 0   # not nil_exchange instead


def test_a_nil_bidder_and_partner_exchange_and_both_partnerships_each_their_own_number():
    state = dealt(nil_exchange=1, exchange_size=3)
    bid_round(state, {0: 0, 1: "DN", 2: 4, 3: 5})
    assert state.phase == Phase.EXCHANGE and engine.view(state, 0).hand is not None
    assert [(engine.view(state, s).exchange.fewest, engine.view(state, s).exchange.most) for s in range(4)] == \
        [(1, 1), (3, 3), (1, 1), (3, 3)]
    rejects(state, 0, exchange(cs("AC KC")), R.INVALID_EXCHANGE)
    act(state, 2, exchange(cs("5S")))
    act(state, 0, exchange(cs("AC")))
    assert state.hands[0] >> engine.parse_card("5S") & 1 and state.hands[2] >> engine.parse_card("AC") & 1
    act(state, 1, exchange(cs("2S 3S 4S")))
    act(state, 3, exchange(cs("AS KS QS")))
    assert state.phase == Phase.PLAY
    record = finish(state)
    assert [(x.seat, len(x.gave.split()), x.nil) for x in record.exchanges] == \
        [(0, 1, True), (1, 3, False), (2, 1, True), (3, 3, False)]


def test_no_nil_exchange_by_default_nor_when_both_bid_nil():
    assert dealt_and_bid({0: 0, 1: 3, 2: 4, 3: 3}).phase == Phase.PLAY
    assert dealt_and_bid({0: 0, 1: 3, 2: 0, 3: 3}, nil_exchange=3).phase == Phase.PLAY


# ---- failed Nil tricks counting for the partner --------------------------------------------------

def test_failed_nil_tricks_count_toward_the_partner_and_past_it_as_bags():
    on = dict(failed_nil_tricks_count=True)
    made = spades_game([((0, 3, 4, 3), (2, 3, 3, 5))], dealer=3, options=SpadesOptions(**on))
    side = side_result(made, 0)
    assert (side.contract, side.tricks, side.contract_points, side.bags_gained) == (4, 5, 40, 1)
    assert side.nils[0].for_partner == 2 and side.nils[0].result == "failed"
    assert side.hand_points == 40 + 1 - 100
    off = side_result(spades_game([((0, 3, 4, 3), (2, 3, 3, 5))], dealer=3), 0)
    assert (off.tricks, off.contract_points, off.bags_gained, off.nils[0].for_partner) == (3, -40, 2, 0)


def test_failed_nil_tricks_are_not_bags_when_the_contract_is_still_short():
    state = spades_game([((0, 3, 6, 3), (2, 3, 3, 5))], dealer=3, options=SpadesOptions(failed_nil_tricks_count=True))
    side = side_result(state, 0)
    assert (side.tricks, side.contract_points, side.bags_gained, side.hand_points) == (5, -60, 0, -160)


def test_failed_nil_tricks_stay_bags_when_neither_partner_has_a_contract():
    side = spades_side([0, 0], [2, 1], 0, 0, 10, 100, 100, 200, failed_nil_count=True)
    assert (side.contract, side.bags_gained, side.nils[0].for_partner, side.hand_points) == (0, 3, 0, -197)


def test_the_wire_record_of_counted_tricks_round_trips():
    state = spades_game([((0, 3, 4, 3), (2, 3, 3, 5))], dealer=3, options=SpadesOptions(failed_nil_tricks_count=True))
    record = state.records[-1]
    again = SpadesHandRecord.from_dict(record.to_dict())
    assert again == record and again.sides[0].nils[0].for_partner == 2


# ---- the losing score ------------------------------------------------------------------------------

def test_the_game_ends_when_a_side_falls_to_the_losing_score_and_the_highest_wins():
    # side 0 bids 13 and takes 3: -130; side 1 bids 6 and takes 10: 64
    state = spades_game([((7, 3, 6, 3), (1, 5, 2, 5))], dealer=3, options=SpadesOptions(losing_score=130))
    assert state.scores == [-130, 64] and state.phase == Phase.GAME_OVER and state.winner == [1]
    assert state.records[-1].losing_sides == [0]


def test_the_highest_wins_even_below_zero():
    # both sides fail: -100 and -80; side 1, the higher, wins
    state = spades_game([((6, 4, 4, 4), (3, 4, 3, 3))], dealer=3, options=SpadesOptions(losing_score=100))
    assert state.scores == [-100, -80] and state.winner == [1] and state.records[-1].losing_sides == [0]


def test_equal_highest_totals_at_the_losing_score_play_another_hand():
    state = spades_game([((6, 6, 4, 4), (3, 4, 4, 2))], dealer=3, options=SpadesOptions(losing_score=100))
    assert state.scores == [-100, -100] and state.winner == [] and state.phase == Phase.DEAL
    assert state.records[-1].losing_sides == [0, 1]


def test_without_a_losing_score_play_goes_on():
    state = spades_game([((7, 3, 6, 3), (1, 5, 2, 5))], dealer=3)
    assert state.scores == [-130, 64] and state.phase == Phase.DEAL and state.records[-1].losing_sides == []


def test_two_players_losing_score():
    from engine_helpers import spades2_game
    state = spades2_game([((10, 2), (4, 9))], options=SpadesOptions(losing_score=100))
    assert state.scores == [-100, 27] and state.winner == [1] and state.records[-1].losing_sides == [0]


# ---- the order of the codes, and the records ------------------------------------------------------

def test_invalid_bid_comes_first():
    state = dealt(bidding="mirror")
    rejects(state, 0, bid(14), R.INVALID_BID)
    state = dealt(min_team_bid=4)
    bid_round_until(state, 2, {0: 1, 1: 4})
    rejects(state, 2, bid(14), R.INVALID_BID)


def test_not_behind_comes_before_after_looking():
    state = dealt(totals=(100, 0), blind_nil_when_behind=50)
    assert state.looked >> 0 & 1                                      # seen from the deal
    rejects(state, 0, DOUBLE_NIL, S.BLIND_NIL_NOT_BEHIND)


def test_not_your_turn_and_wrong_phase_come_before_the_settings():
    state = dealt(bidding="mirror")
    rejects(state, 1, bid(5), R.NOT_YOUR_TURN)
    state = new("spades", dealer=3, options=SpadesOptions(bidding="mirror"))
    rejects(state, 3, bid(5), R.WRONG_PHASE)


def test_a_record_stored_before_the_settings_loads_with_nothing_forced_and_nobody_losing():
    record = spades_game([((4, 3, 2, 2), (4, 3, 3, 3))], dealer=3).records[-1]
    data = record.to_dict()
    assert data["forced"] == [False] * 4 and data["losing_sides"] == []
    for key in ("forced", "losing_sides"):
        del data[key]
    for exchange_ in data["exchanges"]:
        del exchange_["nil"]
    old = SpadesHandRecord.from_dict(data)
    assert old.forced == [False] * 4 and old.losing_sides == []   # as replaying its hand records it
    assert old.to_dict() == record.to_dict()


def test_a_state_stored_before_the_settings_loads():
    state = dealt()
    data = state.to_dict()
    del data["forced"]
    again = engine.state_from_dict(data)
    assert again.forced == 0 and engine.view(again, 0) == engine.view(state, 0)


# ---- helpers -------------------------------------------------------------------------------------

def bid_round_until(state, seat: int, bids: dict[int, int | str]) -> None:
    """Bid in turn from ``bids`` until ``seat`` is to bid."""
    while state.turn != seat:
        b = bids[state.turn]
        act(state, state.turn, DOUBLE_NIL if b == "DN" else bid(b))


def dealt_and_bid(bids: dict[int, int | str], **settings) -> SpadesState:
    state = dealt(**settings)
    bid_round(state, bids)
    return state


def finish(state: SpadesState) -> SpadesHandRecord:
    """Play the hand out (each seat its first legal card) and return its record."""
    hand = state.hand_no
    while state.hand_no == hand and state.phase == Phase.PLAY:
        act(state, state.turn, engine.legal_actions(state, state.turn)[0])
    record = state.records[-1]
    assert isinstance(record, SpadesHandRecord)
    return record
