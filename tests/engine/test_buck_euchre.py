"""Buck Euchre (RULES.md §3): deal and turn-up, the two trump rounds, the club turn-up, the
dealer's discard, dropping out, bowers and following suit, no-trump hands, scoring and winning."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest
from engine_helpers import C, act, cs, euchre_deck, new, rejects, seat_result, start

import engine
from engine import DEAL, BuckEuchreOptions, Reason, play
from engine.core.cards import CLUBS, DIAMONDS, EUCHRE_DECK, HEARTS, SPADES, card_list
from engine.core.tricks import euchre_rules
from engine.games.buck_euchre import BuckEuchreReason
from engine.games.buck_euchre_words import DROP_OUT, ORDER_UP, PASS, STAY_IN, discard, name_suit
from engine.games.buck_euchre_words import BuckPhase as Phase
from engine.games.spades_words import bid

R = Reason
NOBODY = -1
NO_TRUMP = 4


def be(dealer, hands, turnup, kitty=None, options=None, more_decks=()):
    return start("buck_euchre", [euchre_deck(dealer, hands, turnup, kitty), *more_decks], dealer=dealer,
                 options=options)


def tricks(state, text: str) -> None:
    """Play the named cards in order, each by the seat in turn."""
    for c in text.split():
        act(state, state.turn, play(C(c)))


def calls(state, *actions) -> None:
    """Apply trump-round / drop-round actions in order, each by the seat in turn."""
    for a in actions:
        act(state, state.turn, a)


# ---- deal ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dealer", range(4))
def test_deal_five_each_turn_up_and_kitty(dealer):
    deck = card_list(EUCHRE_DECK)
    random.Random(dealer).shuffle(deck)
    state = new("buck_euchre", [deck], dealer=dealer)
    assert state.scores == [25] * 4
    rejects(state, (dealer + 1) % 4, DEAL, R.NOT_YOUR_TURN)
    act(state, dealer, DEAL)
    for i in range(20):
        assert state.hands[(dealer + 1 + i) % 4] >> deck[i] & 1
    assert state.turnup == deck[20]
    assert state.kitty == cs(deck[21:])
    if deck[20] // 13 == CLUBS:            # the dealer takes a club turn-up at once
        assert state.phase == Phase.DEALER_DISCARD
        assert [h.bit_count() for h in state.hands] == [6 if s == dealer else 5 for s in range(4)]
    else:
        assert [h.bit_count() for h in state.hands] == [5] * 4
        assert state.phase == Phase.ORDER_UP and state.turn == (dealer + 1) % 4
    assert engine.view(state, None).rules.turn_up == deck[20]


# ---- standard deal: dealer 3, turn-up 9H --------------------------------------------------------

# Seat 0 (maker) wins 2 tricks against seat 1; seats 2 and 3 drop out.
MAKER_TWO = {0: "AH KH AC 9S 10S", 1: "JH AS KS QS 9D", 2: "JD 10D QD KD AD", 3: "9C 10C QC KC JC"}


def test_order_up_dealer_takes_turn_up_and_discards_then_drop_round():
    state = be(3, MAKER_TWO, "9H")
    assert engine.legal_actions(state, 0) == [ORDER_UP, PASS]
    assert engine.legal_actions(state, 1) == []
    rejects(state, 1, ORDER_UP, R.NOT_YOUR_TURN)
    act(state, 0, ORDER_UP)
    assert state.maker == 0 and state.trump == HEARTS
    assert state.phase == Phase.DEALER_DISCARD and state.turn == 3
    assert state.hands[3] == cs("9C 10C QC KC JC 9H")
    assert len(engine.legal_actions(state, 3)) == 6
    rejects(state, 3, discard(cs("9C 10C")), R.INVALID_EXCHANGE)
    rejects(state, 3, discard(0), R.INVALID_EXCHANGE)
    rejects(state, 3, discard(cs("AS")), R.INVALID_EXCHANGE)
    rejects(state, 0, discard(cs("AH")), R.NOT_YOUR_TURN)
    act(state, 3, discard(cs("9H")))                          # the turn-up itself may be discarded
    assert state.hands[3] == cs("9C 10C QC KC JC") and state.dealer_discard == C("9H")
    # drop round: from left of the dealer, skipping the maker
    assert state.phase == Phase.DROP_OUT and state.turn == 1
    rejects(state, 0, DROP_OUT, BuckEuchreReason.MAKER_CANNOT_DROP)
    order = []
    for a in (STAY_IN, DROP_OUT, DROP_OUT):
        order.append(state.turn)
        act(state, state.turn, a)
    assert order == [1, 2, 3]
    assert state.active == 0b0011
    assert state.phase == Phase.PLAY and state.turn == 0       # first active left of the dealer
    # seat 0 leads; dropped-out seats are skipped
    act(state, 0, play(C("AC")))
    assert state.turn == 1
    rejects(state, 2, play(C("JD")), R.NOT_YOUR_TURN)
    assert engine.legal_actions(state, 2) == []
    act(state, 1, play(C("9D")))                               # void in clubs: any card
    assert state.tricks == [1, 0, 0, 0] and state.turn == 0
    act(state, 0, play(C("AH")))
    assert engine.legal_actions(state, 1) == [play(C("JH"))]   # must follow trump
    rejects(state, 1, play(C("AS")), R.MUST_FOLLOW_SUIT)
    tricks(state, "JH")                                        # the right bower beats the ace
    assert state.turn == 1
    tricks(state, "AS 9S KS 10S QS KH")
    # maker with 2 tricks: -2 + 5 = +3; seat 1 -3; the dropped players do not change
    assert state.records[0].tricks == [2, 3, 0, 0]
    assert state.scores == [28, 22, 25, 25]
    assert seat_result(state, 0).change == 3 and seat_result(state, 0).penalty == 5
    assert [seat_result(state, s).active for s in range(4)] == [True, True, False, False]
    assert state.phase == Phase.DEAL and state.dealer == 0 and state.turn == 0   # the deal passes left
    assert state.winner == []


def test_dealer_may_order_up_and_is_then_maker():
    state = be(3, MAKER_TWO, "9H")
    calls(state, PASS, PASS, PASS)
    assert state.turn == 3
    assert engine.legal_actions(state, 3) == [ORDER_UP, PASS]
    act(state, 3, ORDER_UP)
    assert state.maker == 3 and state.phase == Phase.DEALER_DISCARD and state.turn == 3
    act(state, 3, discard(cs("9C")))
    order = []
    while state.phase == Phase.DROP_OUT:
        order.append(state.turn)
        act(state, state.turn, STAY_IN)
    assert order == [0, 1, 2]
    assert state.phase == Phase.PLAY and state.turn == 0


def test_all_pass_turns_down_and_the_turned_down_suit_cannot_be_named():
    state = be(3, MAKER_TWO, "9H")
    calls(state, PASS, PASS, PASS, PASS)
    assert state.phase == Phase.NAME_TRUMP and state.turned_down and state.turn == 0
    assert state.hands[3].bit_count() == 5                       # nobody took the turn-up
    assert engine.view(state, None).rules.turn_up_turned_down
    assert engine.legal_actions(state, 0) == [PASS, name_suit(CLUBS), name_suit(DIAMONDS), name_suit(SPADES)]
    rejects(state, 0, name_suit(HEARTS), BuckEuchreReason.SUIT_TURNED_DOWN)
    rejects(state, 0, ORDER_UP, R.WRONG_PHASE)
    rejects(state, 1, name_suit(SPADES), R.NOT_YOUR_TURN)
    rejects(state, 1, name_suit(HEARTS), R.NOT_YOUR_TURN)        # not your turn before turned down
    act(state, 0, PASS)
    act(state, 1, name_suit(SPADES))
    assert state.maker == 1 and state.trump == SPADES
    assert state.phase == Phase.DROP_OUT and state.turn == 0     # no dealer discard after naming
    order = []
    while state.phase == Phase.DROP_OUT:
        order.append(state.turn)
        act(state, state.turn, STAY_IN)
    assert order == [0, 2, 3]


def test_option_turned_down_suit_may_be_named():
    state = be(3, MAKER_TWO, "9H", options=BuckEuchreOptions(turned_down_suit_may_be_named=True))
    calls(state, PASS, PASS, PASS, PASS)
    assert name_suit(HEARTS) in engine.legal_actions(state, 0)
    act(state, 0, name_suit(HEARTS))
    assert state.trump == HEARTS and state.maker == 0


def test_dealer_may_pass_again_no_trump_and_every_player_decides():
    state = be(3, MAKER_TWO, "9H")
    calls(state, PASS, PASS, PASS, PASS, PASS, PASS, PASS)
    assert state.turn == 3 and PASS in engine.legal_actions(state, 3)   # no "stick the dealer"
    act(state, 3, PASS)
    assert state.trump == NO_TRUMP and state.maker == NOBODY
    v = engine.view(state, None)
    assert v.rules.no_trump and v.rules.trump is None and v.rules.maker is None
    assert state.phase == Phase.DROP_OUT and state.turn == 0
    order = []
    while state.phase == Phase.DROP_OUT:
        order.append(state.turn)
        act(state, state.turn, STAY_IN)
    assert order == [0, 1, 2, 3]


# ---- the club turn-up -----------------------------------------------------------------------

CLUB_HANDS = {0: "JC AH KH 9S 10S", 1: "JS AC AD KD QD", 2: "AS KS QS 10H 9H", 3: "10C 9D 10D QH JH"}


def test_club_turn_up_forces_clubs_dealer_discards_nobody_may_drop():
    state = be(3, CLUB_HANDS, "9C", kitty="QC KC JD")
    assert state.trump == CLUBS and state.maker == NOBODY
    assert state.phase == Phase.DEALER_DISCARD and state.turn == 3       # no ordering round
    assert state.hands[3] >> C("9C") & 1
    for seat in range(4):
        rejects(state, seat, DROP_OUT, BuckEuchreReason.CANNOT_DROP_ON_CLUBS)
    rejects(state, 0, ORDER_UP, R.WRONG_PHASE)
    rejects(state, 0, PASS, R.WRONG_PHASE)
    act(state, 3, discard(cs("9C")))
    assert state.phase == Phase.PLAY and state.turn == 0                 # no drop round
    assert state.active == 0b1111
    for seat in range(4):
        rejects(state, seat, DROP_OUT, BuckEuchreReason.CANNOT_DROP_ON_CLUBS)
    rejects(state, 0, STAY_IN, R.WRONG_PHASE)
    tricks(state, "AH QD 9H JH")          # seat 1 void in hearts; JH is a plain heart (clubs trump)
    tricks(state, "KH KD 10H QH")
    # JS is the left bower: a club, not a spade - seat 1 has no spade and may play anything
    act(state, 0, play(C("9S")))
    assert set(engine.legal_actions(state, 1)) == {play(C(c)) for c in ("JS", "AC", "AD")}
    act(state, 1, play(C("JS")))
    tricks(state, "AS 9D")                # seat 2 follows spades; the left bower (trump) wins
    assert state.last_trick[2] == 1
    tricks(state, "AD KS 10D 10S")
    assert state.turn == 1
    act(state, 1, play(C("AC")))
    assert engine.legal_actions(state, 2) == [play(C("QS"))]
    tricks(state, "QS 10C")
    assert engine.legal_actions(state, 0) == [play(C("JC"))]
    act(state, 0, play(C("JC")))          # the right bower beats the ace of trump
    rec = state.records[0]
    assert rec.tricks == [3, 2, 0, 0] and rec.clubs and rec.maker == NOBODY
    # no maker: everyone needs one trick
    assert state.scores == [22, 23, 30, 30]


def test_club_turn_up_option_off_means_an_ordinary_hand():
    state = be(3, CLUB_HANDS, "9C", kitty="QC KC JD", options=BuckEuchreOptions(club_turn_up_forces_clubs=False))
    assert state.phase == Phase.ORDER_UP and state.turn == 0
    calls(state, PASS, ORDER_UP)
    assert state.maker == 1 and state.trump == CLUBS


# ---- bowers, following suit, ranking ----------------------------------------------------------

LEFT = {0: "AD 9D KH QH 9S", 1: "JD 10D AS KS QS", 2: "9C 10C JC QC KC", 3: "AC 10S JS 9H 10H"}


def bowers_hand():
    state = be(3, LEFT, "AH")
    calls(state, ORDER_UP)
    act(state, 3, discard(cs("AH")))
    calls(state, STAY_IN, DROP_OUT, DROP_OUT)
    assert state.phase == Phase.PLAY and state.trump == HEARTS and state.turn == 0
    return state


def test_left_bower_is_not_a_diamond_when_diamonds_are_led():
    state = bowers_hand()
    act(state, 0, play(C("AD")))
    assert engine.legal_actions(state, 1) == [play(C("10D"))]
    rejects(state, 1, play(C("JD")), R.MUST_FOLLOW_SUIT)
    tricks(state, "10D")
    act(state, 0, play(C("9D")))
    assert set(engine.legal_actions(state, 1)) == {play(C(c)) for c in ("JD", "AS", "KS", "QS")}
    tricks(state, "JD")                                      # trump beats the led diamond
    assert state.turn == 1
    tricks(state, "AS 9S KS QH KH QS")
    assert state.records[0].tricks == [3, 2, 0, 0]
    assert state.scores == [22, 23, 25, 25]                  # maker made 3: no penalty


def test_left_bower_must_be_played_to_a_trump_lead():
    state = bowers_hand()
    act(state, 0, play(C("KH")))
    assert engine.legal_actions(state, 1) == [play(C("JD"))]
    rejects(state, 1, play(C("10D")), R.MUST_FOLLOW_SUIT)
    act(state, 1, play(C("JD")))
    assert state.last_trick[2] == 1                          # the left bower beats the king


def test_trump_ranking():
    rules = euchre_rules(HEARTS)
    order = [C(c) for c in ("9H", "10H", "QH", "KH", "AH", "JD", "JH")]
    for lo, hi in pairwise(order):
        assert rules.winner([lo, hi])[0] == 1 and rules.winner([hi, lo])[0] == 0
    assert rules.winner([C("AD"), C("9H")])[0] == 1          # any trump beats a plain suit
    assert rules.winner([C("9D"), C("AC")])[0] == 0          # off-suit never wins
    assert rules.winner([C("9D"), C("AD"), C("JD")])[0] == 2
    plain = euchre_rules(None)
    assert plain.winner([C("9D"), C("JD"), C("AD")])[0] == 2
    assert plain.winner([C("JD"), C("9H")])[0] == 0


# ---- no trump ---------------------------------------------------------------------------------

NO_TRUMP_HANDS = {0: "JD 9D AC KC 10S", 1: "AD QD 9C 9S 10H", 2: "JH QH KH AH 10D", 3: "10C JC QC KD JS"}


def test_no_trump_hand_plain_suits_and_everyone_needs_one_trick():
    state = be(3, NO_TRUMP_HANDS, "9H", kitty="QS KS AS")
    calls(state, *[PASS] * 8)
    assert state.trump == NO_TRUMP
    calls(state, STAY_IN, STAY_IN, STAY_IN, DROP_OUT)
    assert state.phase == Phase.PLAY and state.turn == 0
    act(state, 0, play(C("9D")))
    rejects(state, 1, play(C("9C")), R.MUST_FOLLOW_SUIT)
    tricks(state, "QD 10D")
    assert state.turn == 1
    act(state, 1, play(C("AD")))
    tricks(state, "QH")                                         # seat 2 now void in diamonds
    assert engine.legal_actions(state, 0) == [play(C("JD"))]    # JD is a plain diamond
    rejects(state, 0, play(C("AC")), R.MUST_FOLLOW_SUIT)
    tricks(state, "JD")
    tricks(state, "9S KH 10S")                                  # a heart discard does not win
    assert state.turn == 0
    tricks(state, "AC 9C AH KC 10H JH")
    assert state.records[0].tricks == [3, 2, 0, 0]
    assert state.scores == [22, 23, 30, 25]                     # seat 2: no trick -> +5; seat 3 dropped


def test_only_one_player_remaining_is_credited_five_tricks_without_instant_win():
    state = be(3, MAKER_TWO, "9H")
    calls(state, ORDER_UP)
    act(state, 3, discard(cs("9C")))
    calls(state, DROP_OUT, DROP_OUT, DROP_OUT)
    rec = state.records[0]
    assert rec.tricks == [5, 0, 0, 0]
    assert not rec.contested and rec.swept_by == NOBODY
    assert state.scores == [20, 25, 25, 25]
    assert state.winner == [] and state.phase == Phase.DEAL and state.dealer == 0


def test_only_one_remaining_can_win_by_reaching_zero():
    state = be(3, MAKER_TWO, "9H", options=BuckEuchreOptions(starting_score=5))
    calls(state, ORDER_UP)
    act(state, 3, discard(cs("9C")))
    calls(state, DROP_OUT, DROP_OUT, DROP_OUT)
    assert state.scores == [0, 5, 5, 5]
    assert state.records[0].swept_by == NOBODY
    assert state.winner == [0] and state.phase == Phase.GAME_OVER


def test_only_one_remaining_in_a_no_trump_hand():
    state = be(3, MAKER_TWO, "9H")
    calls(state, *[PASS] * 8)
    calls(state, DROP_OUT, DROP_OUT, STAY_IN, DROP_OUT)
    assert state.records[0].tricks == [0, 0, 5, 0]
    assert state.scores == [25, 25, 20, 25]


def test_nobody_remaining_scores_nothing():
    state = be(3, MAKER_TWO, "9H")
    calls(state, *[PASS] * 8)
    calls(state, DROP_OUT, DROP_OUT, DROP_OUT, DROP_OUT)
    assert len(state.records) == 1
    assert state.records[0].tricks == [0, 0, 0, 0]
    assert state.scores == [25] * 4
    assert all(seat_result(state, s).change == 0 for s in range(4))
    assert state.phase == Phase.DEAL and state.dealer == 0


# ---- scoring ------------------------------------------------------------------------------------

WEAK_MAKER = {0: "9H 10H 9C 9S 9D", 1: "JH JD AH KH AC", 2: "AS KS QS 10S 10D", 3: "10C JC QC KC QD"}


def test_maker_without_a_trick_gets_one_penalty_only():
    state = be(3, WEAK_MAKER, "QH", kitty="KD AD JS")
    calls(state, ORDER_UP)
    act(state, 3, discard(cs("QH")))
    calls(state, STAY_IN, STAY_IN, DROP_OUT)
    tricks(state, "9S AC AS")
    tricks(state, "KS 9C JH")
    act(state, 1, play(C("JD")))                                  # the left bower led: a trump lead
    tricks(state, "QS")
    rejects(state, 0, play(C("9D")), R.MUST_FOLLOW_SUIT)
    tricks(state, "9H AH 10S 10H KH 10D 9D")
    assert state.records[0].tricks == [0, 4, 1, 0]
    assert seat_result(state, 0).penalty == 5
    assert state.scores == [30, 21, 24, 25]


def test_penalty_and_maker_requirement_options():
    state = be(3, MAKER_TWO, "9H", options=BuckEuchreOptions(maker_requirement=2, penalty=7))
    calls(state, ORDER_UP)
    act(state, 3, discard(cs("9H")))
    calls(state, STAY_IN, STAY_IN, DROP_OUT)
    # seat 2 (JD is the left bower) stays in and takes no trick
    tricks(state, "AC 9D 10D AH JH JD AS QD 9S KS KD 10S QS AD KH")
    assert state.records[0].tricks == [2, 3, 0, 0]
    assert state.scores == [23, 22, 32, 25]                      # maker made 2 of 2; seat 2 +7


def test_five_trick_sweep_of_a_contested_hand_wins_at_once():
    state = be(3, WEAK_MAKER, "QH", kitty="KD AD JS")
    calls(state, ORDER_UP)
    act(state, 3, discard(cs("QH")))
    calls(state, STAY_IN, DROP_OUT, DROP_OUT)
    tricks(state, "9C AC JH 9H JD 10H AH 9S KH 9D")
    rec = state.records[0]
    assert rec.tricks == [0, 5, 0, 0] and rec.contested and rec.swept_by == 1
    assert state.scores == [30, 20, 25, 25]
    assert state.winner == [1] and state.phase == Phase.GAME_OVER
    assert engine.legal_actions(state, 2) == []
    rejects(state, 2, DEAL, R.WRONG_PHASE)


TIE_HAND = {0: "AC KC 9D 9S 10S", 1: "AD KD 9C QS KS", 2: "10C JC AS 10D AH", 3: "QC JD QD 10H JH"}
SWEEP_HAND = {2: "JS JC AS KS QS", 3: "AH KH QH AD KD"}


def test_tie_at_zero_plays_another_hand_and_a_sweep_comes_before_the_zero_rule():
    opts = BuckEuchreOptions(starting_score=2)
    second = euchre_deck(0, SWEEP_HAND, "9S")
    state = be(3, TIE_HAND, "9H", kitty="QH KH JS", options=opts, more_decks=[second])
    calls(state, PASS, PASS, ORDER_UP)
    act(state, 3, discard(cs("9H")))
    calls(state, STAY_IN, STAY_IN, DROP_OUT)
    tricks(state, "AC 9C 10C KC QS JC 9D AD 10D KD AS 9S KS AH 10S")
    assert state.records[0].tricks == [2, 2, 1, 0]
    assert state.scores == [0, 0, 6, 2]
    assert state.winner == [] and state.phase == Phase.DEAL and state.dealer == 0   # tie at 0: play on
    act(state, 0, DEAL)
    assert state.turnup == C("9S")
    calls(state, PASS, ORDER_UP)                     # seat 1 passes, seat 2 orders spades
    act(state, 0, discard(cs("9S")))
    calls(state, DROP_OUT, STAY_IN, DROP_OUT)        # seats 1, 3, 0
    assert state.turn == 2
    tricks(state, "JS AH JC KH AS QH KS AD QS KD")
    assert state.records[1].swept_by == 2
    assert state.scores == [0, 0, 1, 7]
    assert state.winner == [2] and state.phase == Phase.GAME_OVER     # 1 > 0, but the sweep wins


def test_several_at_zero_or_below_lowest_wins():
    state = start("buck_euchre", [euchre_deck(3, LEFT, "AH")], dealer=3, options=BuckEuchreOptions(starting_score=2))
    calls(state, ORDER_UP)
    act(state, 3, discard(cs("AH")))
    calls(state, STAY_IN, DROP_OUT, DROP_OUT)
    tricks(state, "AD 10D 9D JD AS 9S KS QH KH QS")
    assert state.scores == [-1, 0, 2, 2]
    assert state.winner == [0] and state.phase == Phase.GAME_OVER


# ---- reason codes ---------------------------------------------------------------------------------

def test_reason_precedence():
    state = new("buck_euchre", [euchre_deck(3, MAKER_TWO, "9H")], dealer=3)
    rejects(state, 0, ORDER_UP, R.WRONG_PHASE)                   # wrong phase before not your turn
    act(state, 3, DEAL)
    rejects(state, 1, name_suit(SPADES), R.WRONG_PHASE)
    rejects(state, 1, bid(3), R.WRONG_PHASE)
    rejects(state, 1, DROP_OUT, R.WRONG_PHASE)
    rejects(state, 1, play(C("AS")), R.WRONG_PHASE)
    rejects(state, 1, PASS, R.NOT_YOUR_TURN)
    calls(state, PASS, PASS, PASS, PASS)
    rejects(state, 2, name_suit(HEARTS), R.NOT_YOUR_TURN)
    rejects(state, 0, name_suit(HEARTS), BuckEuchreReason.SUIT_TURNED_DOWN)
    calls(state, name_suit(SPADES))
    assert state.maker == 0 and state.phase == Phase.DROP_OUT and state.turn == 1
    rejects(state, 2, STAY_IN, R.NOT_YOUR_TURN)
    rejects(state, 2, DROP_OUT, R.NOT_YOUR_TURN)
    rejects(state, 0, DROP_OUT, BuckEuchreReason.MAKER_CANNOT_DROP)
    rejects(state, 0, STAY_IN, R.NOT_YOUR_TURN)
    rejects(state, 1, play(C("AS")), R.WRONG_PHASE)
    calls(state, STAY_IN, STAY_IN, STAY_IN)
    assert state.phase == Phase.PLAY and state.turn == 0
    rejects(state, 0, DROP_OUT, R.WRONG_PHASE)
    rejects(state, 1, play(C("AS")), R.NOT_YOUR_TURN)
    rejects(state, 0, play(C("AS")), R.CARD_NOT_IN_HAND)
    act(state, 0, play(C("9S")))                                 # spades are trump
    rejects(state, 1, play(C("9D")), R.MUST_FOLLOW_SUIT)
    rejects(state, 1, play(C("JD")), R.CARD_NOT_IN_HAND)


def test_dealer_rotation_over_hands():
    state = new("buck_euchre", dealer=2, options=BuckEuchreOptions())
    rng = random.Random(9)
    dealers = []
    while len(dealers) < 6 and state.phase != Phase.GAME_OVER:
        if state.phase == Phase.DEAL:
            dealers.append(state.dealer)
        seat = state.turn
        engine.apply(state, seat, rng.choice(list(engine.legal_actions(state, seat))), rng)
    assert dealers == [(2 + i) % 4 for i in range(len(dealers))]
