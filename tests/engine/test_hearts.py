"""Hearts (RULES.md §4): the deal, the pass (left, right, across, hold; simultaneous, delivered
after the fourth, INVALID_PASS), the 2♣ lead, no points on the first trick and its exception,
hearts broken (and the Q♠ option), scoring and the moon both ways, the target and the tie rule,
the deal passing left, the views' privacy of passes, hand records, the log's redaction, replay,
the pass notation, the options, and the determinize hooks."""

from __future__ import annotations

import dataclasses
import random

import pytest
from engine_helpers import (
    C,
    act,
    check_views,
    cl,
    cs,
    deal,
    examples,
    fill_hands,
    movers,
    new,
    private_cards,
    rejects,
    round_robin_deck,
    start,
)
from hypothesis import given, settings
from hypothesis import strategies as st

import bots
import engine
from bots.sampling import sample_fills
from engine import (
    DEAL,
    Reason,
    kind_of,
    notation,
    parse_notation,
    payload_of,
    play,
)
from engine.core.actions import play_actions
from engine.core.cards import card_list, deck_text
from engine.core.hidden import mask
from engine.core.views import ExchangeRule
from engine.games import hearts, hearts_state
from engine.games.buck_euchre_words import PASS
from engine.games.hearts_state import MOON_RULES, HeartsHandRecord, HeartsOptions, HeartsReason, PassChoices
from engine.games.hearts_words import HeartsCode, pass_cards, pass_of
from engine.games.hearts_words import HeartsPhase as Phase
from engine.games.spades_words import exchange
from tests.engine.test_properties import play_game

R = Reason
H = HeartsReason
NOBODY = -1
HOLD = HeartsOptions(pass_cycle="H")
OFFSET = {"left": 1, "right": 3, "across": 2, "hold": 0}


def hearts_deck(dealer: int, hands: dict[int, str]) -> list[int]:
    """A deck giving each listed seat its cards (the other cards filled in low first)."""
    return round_robin_deck(fill_hands(hands, 4, 13, range(52)), dealer)


def dealt(hands: dict[int, str], dealer: int = 0, options=HOLD, more_decks=()):
    return start("hearts", [hearts_deck(dealer, hands), *more_decks], dealer=dealer, options=options)


def tricks(state, text: str) -> None:
    """Play the named cards in order, each by the seat in turn."""
    for c in text.split():
        act(state, state.turn, play(C(c)))


def pass_all(state, choose=lambda hand: card_list(hand)[-3:], order=(0, 1, 2, 3)) -> dict[int, int]:
    """Every seat passes three of its cards (by default its highest three); returns who gave what."""
    gives = {s: cs(choose(state.hands[s])) for s in range(4)}
    for s in order:
        act(state, s, pass_cards(gives[s]))
    return gives


def finish_hand(state, rng: random.Random | None = None) -> None:
    """Play the hand in progress to its end: passes of the three highest cards, then the first
    legal card (a random legal one with ``rng``)."""
    hand = state.hand_no
    while state.hand_no == hand and state.phase in (Phase.PASS, Phase.PLAY):
        if state.phase == Phase.PASS:
            seat = movers(state)[0]
            act(state, seat, pass_cards(cs(card_list(state.hands[seat])[-3:])))
            continue
        legal = engine.legal_actions(state, state.turn)
        act(state, state.turn, legal[rng.randrange(len(legal))] if rng else legal[0])


# ---- the deal ----------------------------------------------------------------------------------

@pytest.mark.parametrize("dealer", range(4))
def test_deal_one_at_a_time_from_left_of_dealer_then_the_pass(dealer):
    deck = list(range(52))
    random.Random(dealer).shuffle(deck)
    state = new("hearts", [deck], dealer=dealer)
    assert state.phase == Phase.DEAL and state.turn == dealer and state.scores == [0] * 4
    for seat in range(4):
        if seat != dealer:
            rejects(state, seat, DEAL, R.NOT_YOUR_TURN)
    rejects(state, dealer, pass_cards(cs("2C 3C 4C")), R.WRONG_PHASE)
    act(state, dealer, DEAL)
    for i, c in enumerate(deck):
        assert state.hands[(dealer + 1 + i) % 4] >> c & 1
    assert [h.bit_count() for h in state.hands] == [13] * 4
    assert state.phase == Phase.PASS and state.turn == NOBODY and state.hand_no == 1
    assert movers(state) == [0, 1, 2, 3]
    for seat in range(4):
        legal = engine.legal_actions(state, seat)
        assert isinstance(legal, PassChoices) and len(legal) == 286
        assert all(kind_of(a) == HeartsCode.PASS and payload_of(a).bit_count() == 3
                   and payload_of(a) & ~state.hands[seat] == 0 for a in legal[::37])
        v = engine.view(state, seat)
        assert v.turn is None and v.legal_actions == [] and v.hand == card_list(state.hands[seat])
        assert isinstance(v.exchange, ExchangeRule) and v.exchange.kind == HeartsCode.PASS
        assert (v.exchange.cards, v.exchange.fewest, v.exchange.most) == (card_list(state.hands[seat]), 3, 3)
        assert v.rules.pass_direction == "left" and v.rules.pass_given == [] and v.rules.pass_received == []


def test_a_hold_hand_has_no_pass_and_the_two_of_clubs_leads():
    state = dealt({2: "2C"}, dealer=0)
    assert state.phase == Phase.PLAY and state.turn == 2
    assert engine.view(state, None).rules.pass_direction == "hold"
    assert all(engine.legal_actions(state, s) == [] for s in (0, 1, 3))
    assert engine.legal_actions(state, 2) == [play(C("2C"))]
    rejects(state, 0, pass_cards(cs(card_list(state.hands[0])[:3])), R.WRONG_PHASE)


# ---- the pass ------------------------------------------------------------------------------------

def test_passes_in_any_order_delivered_only_after_the_fourth():
    state = start("hearts", [list(range(52))], dealer=0)
    before = state.hands[:]
    gives = {s: cs(card_list(state.hands[s])[s:s + 3]) for s in range(4)}
    passed: set[int] = set()
    for seat in (2, 0, 3):
        act(state, seat, pass_cards(gives[seat]))
        passed.add(seat)
        assert state.hands == before, "a pass moved cards before all four had passed"
        assert state.phase == Phase.PASS and state.turn == NOBODY
        assert movers(state) == sorted({0, 1, 2, 3} - passed)
        check_views(state)
    assert bots.bot_seat_to_act(state, {0, 1, 2, 3}) == 1 and bots.bot_seat_to_act(state, {0, 2}) is None
    act(state, 1, pass_cards(gives[1]))
    for s in range(4):                                            # hand 1: to the left
        assert state.hands[(s + 1) % 4] == before[(s + 1) % 4] & ~gives[(s + 1) % 4] | gives[s]
        assert state.xgot[(s + 1) % 4] == gives[s]
    assert state.phase == Phase.PLAY
    assert state.turn == next(s for s in range(4) if state.hands[s] >> C("2C") & 1)
    check_views(state)


def test_the_two_of_clubs_holder_after_the_pass_leads():
    state = start("hearts", [hearts_deck(0, {1: "2C 3C 4C"})], dealer=0)
    gives = pass_all(state, choose=lambda hand: card_list(hand)[:3])      # seat 1 passes 2C 3C 4C left
    assert gives[1] == cs("2C 3C 4C")
    assert state.turn == 2 and engine.legal_actions(state, 2) == [play(C("2C"))]


@pytest.mark.parametrize(("action", "why"), [
    ("pass 2C 3C", "two cards"), ("pass 2C 3C 4C 5C", "four cards"), ("pass", "no cards"),
    ("pass 2C 2C 3C", "a duplicate"), ("pass 2C 3C 2D", "a card not held"),
])
def test_invalid_passes(action, why):
    state = start("hearts", [hearts_deck(0, {0: "2C 3C 4C 5C"})], dealer=0)
    rejects(state, 0, action, H.INVALID_PASS)


def test_passing_twice_and_actions_of_no_pass_are_refused():
    state = start("hearts", [hearts_deck(0, {0: "2C 3C 4C 5C"})], dealer=0)
    act(state, 0, "pass 2C 3C 4C")
    rejects(state, 0, "pass 5C 2C 3C", H.INVALID_PASS)                   # no change once made
    rejects(state, 0, "pass 2C 3C 4C", H.INVALID_PASS)
    rejects(state, 1, pass_cards(cs("2C 3C 4C") | 1 << 55), H.INVALID_PASS)
    rejects(state, 1, pass_of([C("2C"), C("2C"), C("3C")]), H.INVALID_PASS)
    rejects(state, 1, play(card_list(state.hands[1])[0]), R.WRONG_PHASE)
    rejects(state, 1, exchange(cs(card_list(state.hands[1])[:3])), R.WRONG_PHASE)
    rejects(state, 1, DEAL, R.WRONG_PHASE)
    rejects(state, 4, pass_cards(cs(card_list(state.hands[1])[:3])), R.NOT_YOUR_TURN)
    assert state.xgiven[0] == cs("2C 3C 4C")


def test_pass_directions_left_right_across_hold_then_the_cycle_repeats():
    state = new("hearts", dealer=0, options=HeartsOptions(target=1000))
    for h, direction in enumerate(["left", "right", "across", "hold", "left", "right"]):
        deal(state, seed=h)
        assert state.hand_no == h + 1 and state.dealer == h % 4             # the deal passes left
        assert engine.view(state, 1).rules.pass_direction == direction
        before = state.hands[:]
        if direction == "hold":
            assert state.phase == Phase.PLAY
            assert not any(isinstance(engine.legal_actions(state, s), PassChoices) for s in range(4))
        else:
            gives = pass_all(state, order=(3, 1, 0, 2))
            for s in range(4):
                to = (s + OFFSET[direction]) % 4
                assert state.hands[to] == before[to] & ~gives[to] | gives[s], (direction, s)
        finish_hand(state, random.Random(h))
        record = state.records[-1]
        assert record.direction == direction and state.phase == Phase.DEAL
        if direction == "hold":
            assert record.passes == []
        else:
            assert [(p.seat, p.to) for p in record.passes] == [(s, (s + OFFSET[direction]) % 4) for s in range(4)]
            for p in record.passes:
                assert p.gave == engine.cards_text(gives[p.seat])
                assert p.got == engine.cards_text(gives[(p.seat - OFFSET[direction]) % 4])
        assert engine.view(state, None).rules.pass_direction == ["right", "across", "hold", "left", "right",
                                                                 "across"][h]   # the next hand's


def test_a_pass_cycle_option_of_its_own():
    state = new("hearts", dealer=0, options=HeartsOptions(pass_cycle="AR", target=1000))
    for direction in ("across", "right", "across"):
        deal(state)
        assert state.phase == Phase.PASS and engine.view(state, 0).rules.pass_direction == direction
        finish_hand(state)
        assert state.records[-1].direction == direction


# ---- the first trick -----------------------------------------------------------------------------

# Dealer 0, hold hand: seat 1 leads the 2C; seat 2 is void in clubs with the Q♠ and two hearts;
# seat 3 holds clubs and hearts.
FIRST = {
    1: "2C 3C 4C 5C 6C KD QD JD KS JS 10S 9S 8S",
    2: "QS 2H 3H 2D 3D 4D 5D 6D 7D 8D 9D 10D AD",
    3: "7C 8C 9C 10C 4H 5H 6H 7H 8H 2S 3S 4S 5S",
    0: "JC QC KC AC 9H 10H JH QH KH AH 6S 7S AS",
}


def test_the_two_of_clubs_must_lead_and_the_order_of_reasons():
    state = dealt(FIRST)
    assert state.turn == 1 and engine.legal_actions(state, 1) == [play(C("2C"))]
    rejects(state, 2, "play 2D", R.NOT_YOUR_TURN)
    rejects(state, 1, "play 9H", R.CARD_NOT_IN_HAND)
    rejects(state, 1, "play 3C", H.MUST_LEAD_TWO_OF_CLUBS)
    rejects(state, 1, "play KD", H.MUST_LEAD_TWO_OF_CLUBS)
    rejects(state, 1, play(60), R.CARD_NOT_IN_HAND)
    rejects(state, 1, "pass 2C 3C 4C", R.WRONG_PHASE)
    tricks(state, "2C")


def test_no_points_on_the_first_trick_and_following_suit_comes_first():
    state = dealt(FIRST)
    tricks(state, "2C")
    assert engine.legal_actions(state, 2) == play_actions(cs("2D 3D 4D 5D 6D 7D 8D 9D 10D AD"))
    rejects(state, 2, "play 2H", H.NO_POINTS_ON_FIRST_TRICK)
    rejects(state, 2, "play QS", H.NO_POINTS_ON_FIRST_TRICK)
    tricks(state, "2D")
    rejects(state, 3, "play 4H", R.MUST_FOLLOW_SUIT)                      # holds clubs: following first
    rejects(state, 3, "play 2S", R.MUST_FOLLOW_SUIT)
    tricks(state, "7C AC")
    assert state.turn == 0 and state.taken == [0] * 4 and not state.broken
    assert engine.view(state, 1).seats[2].void_suits == (0,)


def test_hearts_are_not_led_before_broken_and_the_queen_does_not_break_them():
    state = dealt(FIRST)
    tricks(state, "2C 2D 7C AC")
    rejects(state, 0, "play 9H", H.HEARTS_NOT_BROKEN)
    assert C("9H") not in [payload_of(a) for a in engine.legal_actions(state, 0)]
    tricks(state, "JC 3C QS 8C")                                         # the Q♠ is discarded: no break
    assert state.taken == [13, 0, 0, 0] and not state.broken
    assert not engine.view(state, 1).rules.hearts_broken
    rejects(state, 0, "play 9H", H.HEARTS_NOT_BROKEN)
    tricks(state, "QC 4C 2H 9C")                                         # a heart is discarded: broken
    assert state.broken and engine.view(state, None).rules.hearts_broken
    assert engine.view(state, 3).rules.points_taken == [14, 0, 0, 0]
    tricks(state, "9H")


def test_queen_breaks_hearts_when_the_option_says_so():
    state = dealt(FIRST, options=HeartsOptions(pass_cycle="H", queen_breaks_hearts=True))
    tricks(state, "2C 2D 7C AC")
    rejects(state, 0, "play 9H", H.HEARTS_NOT_BROKEN)
    tricks(state, "JC 3C QS 8C")
    assert state.broken
    tricks(state, "9H")


# Seat 2 holds nothing but hearts and the Q♠; seat 3 holds the A♥ among spades.
ONLY_POINTS = {2: "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH QS", 1: "2C"}


def test_a_hand_of_nothing_but_hearts_and_the_queen_may_play_them_on_the_first_trick():
    state = dealt(ONLY_POINTS)
    assert card_list(state.hands[3]) == cl("AH 2S 3S 4S 5S 6S 7S 8S 9S 10S JS KS AS")
    tricks(state, "2C")
    assert engine.legal_actions(state, 2) == play_actions(state.hands[2])
    queen = state.copy()
    act(queen, 2, "play QS")
    assert not queen.broken                                             # the Q♠ alone breaks nothing
    tricks(state, "5H")
    assert state.broken                                                 # a heart under the exception
    assert engine.view(state, 0).seats[2].void_suits == (0, 1)
    rejects(state, 3, "play AH", H.NO_POINTS_ON_FIRST_TRICK)
    tricks(state, "2S 3C")
    assert state.taken == [1, 0, 0, 0] and state.turn == 0


def test_queen_played_under_the_exception_breaks_hearts_with_the_option():
    state = dealt(ONLY_POINTS, options=HeartsOptions(pass_cycle="H", queen_breaks_hearts=True))
    tricks(state, "2C QS")
    assert state.broken


def test_a_hand_of_hearts_only_may_play_them_on_the_first_trick():
    state = dealt({2: "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", 1: "2C"})
    tricks(state, "2C")
    assert engine.legal_actions(state, 2) == play_actions(state.hands[2])
    tricks(state, "AH")
    assert state.broken


def test_a_leader_holding_only_hearts_may_lead_one_before_they_are_broken():
    state = dealt({0: "AC 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", 1: "2C"})
    tricks(state, "2C")
    rejects(state, 2, "play AH", H.NO_POINTS_ON_FIRST_TRICK)
    tricks(state, "3D 2S AC")
    assert state.turn == 0 and not state.broken
    assert engine.legal_actions(state, 0) == play_actions(state.hands[0])
    tricks(state, "7H")
    assert state.broken
    assert engine.view(state, 1).seats[0].void_suits == (0, 1, 3)      # it showed it holds only hearts


# ---- scoring, the moon, the target and the tie -----------------------------------------------------

# Dealer 0, hold: seat 0 holds every club but the 2C, and the A♥: it wins every trick.
MOON_HANDS = {0: "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC AH", 1: "2C"}


def moon_hand(shooter: int, dealer: int) -> list[int]:
    """A deck (for ``dealer``) in which ``shooter`` wins every trick if it plays its highest card."""
    hands = {(s + shooter) % 4: text for s, text in MOON_HANDS.items()}
    return hearts_deck(dealer, hands)


def play_highest_for(state, seat: int) -> None:
    """Play the hand out: ``seat`` plays its highest legal card, the others their lowest."""
    hand = state.hand_no
    while state.hand_no == hand and state.phase == Phase.PLAY:
        legal = engine.legal_actions(state, state.turn)
        act(state, state.turn, legal[-1] if state.turn == seat else legal[0])


@pytest.mark.parametrize(("moon", "points"), [("others_add", [0, 26, 26, 26]),
                                              ("shooter_subtracts", [-26, 0, 0, 0])])
def test_shooting_the_moon_both_ways(moon, points):
    state = start("hearts", [moon_hand(0, 0)], dealer=0, options=HeartsOptions(pass_cycle="H", moon=moon))
    play_highest_for(state, 0)
    record = state.records[-1]
    assert record.taken == [26, 0, 0, 0] and record.moon == 0
    assert record.points == points and state.scores == points and record.totals == points
    assert record.tricks == [13, 0, 0, 0]
    assert state.phase == Phase.DEAL and state.winner == []


# Dealer 0, hold: seat 0 wins tricks 1-12 (24 points), seat 2 wins the last (2H 3H: 2 points).
SPREAD = {
    0: "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC 2H",
    1: "2C 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD",
    2: "AD 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH 2S",
    3: "AH 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS",
}
SPREAD_PLAY = ("2C 2S 3S 3C " + " ".join(
    f"{club} {d} {h} {s}" for club, d, h, s in zip(
        "4C 5C 6C 7C 8C 9C 10C JC QC KC AC".split(), "2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD".split(),
        "AD 4H 5H 6H 7H 8H 9H 10H JH QH KH".split(), "AH 4S 5S 6S 7S 8S 9S 10S JS QS KS".split(), strict=True))
    + " 2H KD 3H AS")


def test_hand_points_a_heart_each_and_thirteen_for_the_queen():
    state = dealt(SPREAD)
    tricks(state, SPREAD_PLAY)
    record = state.records[-1]
    assert record.taken == [24, 0, 2, 0] and record.points == [24, 0, 2, 0] and record.moon == NOBODY
    assert record.tricks == [12, 0, 1, 0] and sum(record.taken) == 26


def test_a_tie_for_lowest_at_the_target_plays_another_hand_in_the_next_pass_direction():
    state = dealt(SPREAD, options=HeartsOptions(target=24, pass_cycle="HR"), more_decks=[list(range(52))])
    tricks(state, SPREAD_PLAY)
    assert state.scores == [24, 0, 2, 0]                   # seat 0 reached 24; seats 1 and 3 tie for lowest
    assert state.winner == [] and state.phase == Phase.DEAL and state.turn == 1 and state.dealer == 1
    assert engine.view(state, 2).rules.pass_direction == "right"
    act(state, 1, DEAL)
    assert state.phase == Phase.PASS and engine.view(state, 0).rules.pass_direction == "right"


def test_the_lowest_score_wins_once_someone_reaches_the_target():
    state = dealt(SPREAD, options=HeartsOptions(target=24, pass_cycle="H"), more_decks=[moon_hand(1, 1)])
    tricks(state, SPREAD_PLAY)
    deal(state)
    play_highest_for(state, 1)                                           # seat 1 shoots the moon
    assert state.scores == [50, 0, 28, 26] and state.records[-1].moon == 1
    assert state.phase == Phase.GAME_OVER and state.winner == [1]
    v = engine.view(state, None)
    assert v.winner_seats == [1] and v.winner_sides == [1]
    assert all(engine.legal_actions(state, s) == [] for s in range(4))
    rejects(state, 1, DEAL, R.WRONG_PHASE)
    rejects(state, 0, "play 2C", R.WRONG_PHASE)


def test_the_lowest_wins_even_when_it_did_not_reach_the_target():
    state = start("hearts", [moon_hand(0, 0)], dealer=0, options=HeartsOptions(pass_cycle="H", target=26))
    play_highest_for(state, 0)
    assert state.scores == [0, 26, 26, 26] and state.winner == [0] and state.phase == Phase.GAME_OVER


def test_the_deal_passes_left_after_each_hand():
    state = new("hearts", dealer=2, options=HeartsOptions(target=1000))
    for h in range(5):
        assert state.phase == Phase.DEAL and state.dealer == (2 + h) % 4 and state.turn == state.dealer
        rejects(state, (state.dealer + 1) % 4, DEAL, R.NOT_YOUR_TURN)
        deal(state, seed=h)
        finish_hand(state)
        assert state.records[-1].dealer == (2 + h) % 4


# ---- views: nobody sees another seat's pass -----------------------------------------------------

def test_a_pass_is_seen_by_its_passer_and_receiver_only():
    state = start("hearts", [list(range(52))], dealer=0)
    give0 = cs(card_list(state.hands[0])[:3])
    act(state, 0, pass_cards(give0))
    v0 = engine.view(state, 0)
    assert v0.rules.pass_given == card_list(give0) and v0.rules.pass_received == []
    assert set(card_list(give0)) <= set(v0.hand), "chosen cards stay in the hand until delivery"
    assert v0.exchange is None and v0.legal_actions == []
    for seat in (1, 2, 3, None):
        v = engine.view(state, seat)
        assert v.rules.pass_given == [] and v.rules.pass_received == []
        assert not private_cards(v) & set(card_list(give0))
        assert [info.rules.passed for info in v.seats] == [True, False, False, False]
        assert all(info.last_call == "" for info in v.seats)
    check_views(state)
    gives = {0: give0}
    for seat in (1, 2, 3):
        gives[seat] = cs(card_list(state.hands[seat])[:3])
        act(state, seat, pass_cards(gives[seat]))
    for seat in range(4):
        v = engine.view(state, seat)
        assert v.rules.pass_given == card_list(gives[seat])
        assert v.rules.pass_received == card_list(gives[(seat + 3) % 4])
        for other in range(4):                          # what passed between two other seats stays unseen
            if seat not in (other, (other + 1) % 4):
                assert not private_cards(v) & set(card_list(gives[other]))
    spectator = engine.view(state, None)
    assert spectator.rules.pass_given == [] and spectator.rules.pass_received == [] and spectator.hand is None
    check_views(state)
    tricks(state, "2C")
    assert engine.view(state, 1).rules.pass_received == card_list(gives[0])   # for the rest of the hand
    finish_hand(state)
    v = engine.view(state, 1)
    assert v.hand is None and v.rules.pass_given == [] and v.rules.pass_received == []


def test_hand_records_keep_every_pass_and_a_seat_sees_only_those_it_knows():
    state = start("hearts", [list(range(52))], dealer=0)
    gives = pass_all(state)
    finish_hand(state)
    record = state.records[-1]
    assert isinstance(record, HeartsHandRecord) and len(record.passes) == 4
    assert HeartsHandRecord.from_dict(record.to_dict()) == record
    assert engine.state_from_bytes(state.to_bytes()).records == state.records
    mine = hearts.record_for(record, 2)
    assert [(p.seat, p.to, p.gave, p.got) for p in mine.passes] == [
        (1, 2, engine.cards_text(gives[1]), ""), (2, 3, engine.cards_text(gives[2]), engine.cards_text(gives[1]))]
    assert hearts.record_for(record, None).passes == [] and len(record.passes) == 4
    assert mine.points == record.points and mine.deck == record.deck


def test_the_log_shows_a_pass_without_its_cards_while_the_hand_is_open():
    game = engine.game_of("hearts")
    assert game.redacted(pass_cards(cs("2C 3D 4H"))) == "pass"
    assert game.redacted(play(C("QS"))) == "play QS" and game.redacted(DEAL) == "deal"
    assert engine.game_of("buck_euchre").redacted(PASS) == "pass"


# ---- replay, serialisation, notation, options ----------------------------------------------------

def test_a_whole_game_replays_from_its_log_and_prearranged_decks_come_first():
    decks = [list(range(52)), list(reversed(range(52)))]
    rng = random.Random(5)
    options = HeartsOptions(target=60, moon="shooter_subtracts", pass_cycle="RAL")
    state = engine.new_game("hearts", options, rng, first_dealer=3, decks=decks)
    log = []
    while state.phase != Phase.GAME_OVER:
        seat = rng.choice(movers(state))
        legal = engine.legal_actions(state, seat)
        action = legal[rng.randrange(len(legal))]
        log.append(engine.LogEntry(seat, action, engine.apply(state, seat, action, rng)))
        assert len(log) < 5000
    assert state.records[0].deck == deck_text(decks[0])
    assert state.records[1].deck == deck_text(decks[1])
    assert engine.replay("hearts", options, 3, log, decks).to_bytes() == state.to_bytes()
    with pytest.raises(ValueError, match="randomness"):
        engine.replay("hearts", options, 3, [engine.LogEntry(e.seat, e.action) for e in log], decks)
    again = engine.state_from_bytes(state.to_bytes())
    assert again == state and type(again) is hearts_state.HeartsState and again.options == options
    assert max(state.scores) >= 60 and state.winner == [state.scores.index(min(state.scores))]


def test_pass_notation_round_trip():
    assert notation("hearts", pass_cards(cs("4H 2C 3D"))) == "pass 2C 3D 4H"
    assert (parse_notation("hearts", "pass 4H 2C 3D") == pass_cards(cs("2C 3D 4H"))
            == parse_notation("hearts", "PASS 2c, 3d, 4h"))
    assert kind_of(parse_notation("hearts", "pass 4H 2C 3D")) == HeartsCode.PASS
    # Buck Euchre's plain pass
    assert parse_notation("buck_euchre", "pass") == PASS and notation("buck_euchre", PASS) == "pass"
    assert parse_notation("hearts", "pass") == pass_cards(0) and notation("hearts", pass_cards(0)) == "pass"
    assert pass_cards(0) == PASS and pass_of([]) == PASS
    assert (parse_notation("hearts", "pass 2C 2C 3D") == pass_of([C("2C"), C("2C"), C("3D")])
            != pass_cards(cs("2C 3D")))
    for bad in ("pass XX 2C 3D", "pass 2C 3D 1H", "pass 2C 3D 4", "exchange 2C 3D 4H"):
        with pytest.raises(ValueError):
            parse_notation("hearts", bad)
    assert notation("spades", exchange(cs("2C 3D 4H"))) == "exchange 2C 3D 4H"


@given(st.sets(st.integers(0, 51), min_size=1, max_size=13))
@settings(max_examples=examples(200), deadline=None)
def test_every_pass_round_trips(cards):
    action = pass_cards(cs(cards))
    assert kind_of(action) == HeartsCode.PASS and payload_of(action) == cs(cards)
    assert parse_notation("hearts", notation("hearts", action)) == action
    assert pass_of(sorted(cards, reverse=True)) == action


def test_options_defaults_validation_and_storage():
    o = HeartsOptions()
    assert (o.target, o.pass_cycle, o.moon, o.queen_breaks_hearts, o.jack_of_diamonds, o.players) == (
        100, "", "others_add", False, False, 4)
    assert o.cycle == "LRAH"                                # empty: the standard cycle of four players
    for bad in (dict(target=0), dict(target=1001), dict(target=True), dict(target="100"), dict(pass_cycle=" "),
                dict(pass_cycle="LRX"), dict(pass_cycle="lrah"), dict(pass_cycle=("L", "R")),
                dict(pass_cycle="L" * 13), dict(moon="nobody"), dict(moon=None), dict(queen_breaks_hearts=1),
                dict(jack_of_diamonds=1), dict(players=2), dict(players=5), dict(players=True)):
        with pytest.raises(ValueError, match=next(iter(bad))):
            engine.new_game("hearts", options=HeartsOptions(**bad), first_dealer=0)
    options = HeartsOptions(target=1000, pass_cycle="HA", moon="shooter_subtracts", queen_breaks_hearts=True)
    options.validate()
    state = start("hearts", dealer=0, options=options)
    again = engine.state_from_bytes(state.to_bytes())
    assert again == state and again.options == options and again.options.pass_cycle == "HA"
    assert HeartsOptions.from_dict(dataclasses.asdict(options)) == options
    with pytest.raises(ValueError):
        engine.new_game("hearts", options=engine.SpadesOptions())


def test_the_game_is_registered_with_its_title_and_reasons():
    game = engine.find_game("Hearts")
    assert game is not None and game is hearts.GAME and game.title == "Hearts" and game.seats == 4
    assert game.reasons is HeartsReason
    assert [r.value for r in HeartsReason] == ["INVALID_PASS", "MUST_LEAD_TWO_OF_CLUBS",
                                               "NO_POINTS_ON_FIRST_TRICK", "HEARTS_NOT_BROKEN"]
    assert hearts.GAME in engine.games.BUILTIN and len(game.cards) == 52


@settings(max_examples=examples(12), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), dealer=st.integers(0, 3),
       options=st.builds(HeartsOptions, target=st.integers(1, 120), moon=st.sampled_from(MOON_RULES),
                         pass_cycle=st.sampled_from(["LRAH", "H", "AR", "RLLH"]), queen_breaks_hearts=st.booleans()))
def test_whole_games_with_any_options_keep_every_invariant(seed, dealer, options):
    """The engine suites' whole-game invariants (cards, tricks, views, rejections, serialisation,
    replay: ``play_game``) under any options, and Hearts' own score rules."""
    rng = random.Random(seed)
    state = play_game(engine.new_game("hearts", options, rng=rng, first_dealer=dealer), rng, full_checks_every=4)
    for record in state.records:
        assert sum(record.taken) == 26 and sum(record.tricks) == 13
        shooter = record.taken.index(26) if 26 in record.taken else NOBODY
        assert record.moon == shooter
        if shooter == NOBODY:
            assert record.points == record.taken
        elif options.moon == "others_add":
            assert record.points == [0 if s == shooter else 26 for s in range(4)]
        else:
            assert record.points == [-26 if s == shooter else 0 for s in range(4)]
        letter = options.pass_cycle[(record.hand - 1) % len(options.pass_cycle)]
        assert record.direction == hearts_state.DIRECTION_NAMES[letter]
        assert len(record.passes) == (0 if record.direction == "hold" else 4)
    for record in state.records[:-1]:                            # every hand but the last had no winner
        assert max(record.totals) < options.target or record.totals.count(min(record.totals)) > 1
    (winner,) = state.winner
    assert max(state.scores) >= options.target and state.scores.count(state.scores[winner]) == 1
    assert state.scores[winner] == min(state.scores)


# ---- the determinize hooks ------------------------------------------------------------------------

def check_worlds(state, seat: int, rng: random.Random, tries: int = 3) -> engine.Hidden:
    view = engine.view(state, seat)
    places = engine.hidden(view)
    for _ in range(tries):
        world = engine.determinize(view, sample_fills(places, rng))
        assert engine.view(world, seat) == view
    return places


def test_hidden_cards_through_the_pass_and_the_first_lead():
    rng = random.Random(3)
    state = start("hearts", [list(range(52))], dealer=0)
    act(state, 2, pass_cards(cs(card_list(state.hands[2])[:3])))
    places = check_worlds(state, 0, rng)
    assert [(p.what, p.seat, p.size) for p in places.places] == [("hand", 1, 13), ("gift", 2, 3), ("hand", 2, 10),
                                                                 ("hand", 3, 13)]
    gives = {2: state.xgiven[2]}
    for seat in (0, 1, 3):
        gives[seat] = cs(card_list(state.hands[seat])[-3:])
        act(state, seat, pass_cards(gives[seat]))
    leader = state.turn
    for seat in range(4):
        places = check_worlds(state, seat, rng)
        view = engine.view(state, seat)
        assert places.cards & mask(view.hand) == 0
        assert places.cards & gives[seat] == 0, "the cards it passed are known to be with its receiver"
        if places.cards >> C("2C") & 1:                                      # before the first lead
            for p in places.places:
                assert p.allowed >> C("2C") & 1 == (p.seat == leader)
        for _ in range(3):
            world = engine.determinize(view, sample_fills(places, rng))
            assert world.hands[(seat + 1) % 4] & gives[seat] == gives[seat]
            assert world.hands[leader] >> C("2C") & 1
            finish_hand(world, rng)                                        # a world plays on to the end
            assert world.phase in (Phase.DEAL, Phase.GAME_OVER)
