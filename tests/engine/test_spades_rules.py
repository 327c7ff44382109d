"""Four-player Spades (RULES.md §1): deal, bidding, looking, Double Nil, the exchange, trick play."""

from __future__ import annotations

import random

import pytest
from engine_helpers import C, act, bid_round, cl, cs, deal, new, rejects, spades_deck, spades_game, start

import engine
from engine import DEAL, Reason, play
from engine.core.cards import card_list
from engine.games.buck_euchre_words import ORDER_UP, PASS
from engine.games.spades_state import SpadesReason
from engine.games.spades_words import DOUBLE_NIL, REVEAL, SpadesCode, bid, exchange, exchange_of
from engine.games.spades_words import SpadesPhase as Phase

R = Reason

# A deal for dealer 3 (seat 0 bids first and leads first).
HANDS = {
    0: "AC KC QC JC 2D 3D 4D 2H 3H 4H 5H 6H 7H",          # no spades
    1: "2C 3C 4C 5C 5D 6D 7D 8D 8H 9H 2S 3S 4S",
    2: "6C 7C 8C 9C 9D 10D JD 10H JH 5S 6S 7S 8S",
    3: "10C QD KD AD QH KH AH 9S 10S JS QS KS AS",        # one club
}


def dealt(dealer: int = 3, hands=HANDS, options=None):
    return start("spades", [spades_deck(dealer, hands)], dealer=dealer, options=options)


def in_play(bids=(3, 3, 3, 3), **kw):
    state = dealt(**kw)
    bid_round(state, bids)
    assert state.phase == Phase.PLAY
    return state


# ---- deal -------------------------------------------------------------------------------

@pytest.mark.parametrize("dealer", range(4))
def test_deal_one_at_a_time_from_left_of_dealer(dealer):
    deck = list(range(52))
    random.Random(dealer).shuffle(deck)
    state = new("spades", [deck], dealer=dealer)
    assert state.phase == Phase.DEAL and state.turn == dealer
    for seat in range(4):
        if seat != dealer:
            rejects(state, seat, DEAL, R.NOT_YOUR_TURN)
    act(state, dealer, DEAL)
    for i, c in enumerate(deck):
        assert state.hands[(dealer + 1 + i) % 4] >> c & 1
    assert [h.bit_count() for h in state.hands] == [13] * 4
    assert state.phase == Phase.BID
    assert state.turn == (dealer + 1) % 4
    assert state.hand_no == 1


def test_only_deal_in_deal_phase():
    state = new("spades", dealer=1)
    assert engine.legal_actions(state, 1) == [DEAL]
    assert engine.legal_actions(state, 0) == []
    rejects(state, 1, bid(3), R.WRONG_PHASE)
    rejects(state, 1, REVEAL, R.WRONG_PHASE)
    rejects(state, 0, bid(3), R.WRONG_PHASE)         # wrong phase before not-your-turn
    rejects(state, 1, play(0), R.WRONG_PHASE)


# ---- bidding ------------------------------------------------------------------------------

def test_one_round_of_bids_clockwise_from_left_of_dealer():
    state = dealt(dealer=1)
    order = []
    for b in (4, 2, 6, 1):          # bids need not increase
        seat = state.turn
        order.append(seat)
        act(state, seat, bid(b))
    assert order == [2, 3, 0, 1]
    assert state.bids == [6, 1, 4, 2]
    assert state.phase == Phase.PLAY
    assert state.turn == 2           # left of the dealer leads


def test_bid_range_and_no_passing():
    state = dealt()
    assert set(engine.legal_actions(state, 0)) == {bid(n) for n in range(14)} | {REVEAL, DOUBLE_NIL}
    rejects(state, 0, bid(14), R.INVALID_BID)
    rejects(state, 0, bid(99), R.INVALID_BID)
    rejects(state, 0, PASS, R.WRONG_PHASE)          # no passing in Spades
    act(state, 0, bid(13))
    act(state, 1, bid(0))                           # Nil
    assert state.bids[:2] == [13, 0]


def test_bid_out_of_turn_is_rejected():
    state = dealt()
    rejects(state, 2, bid(3), R.NOT_YOUR_TURN)
    rejects(state, 2, bid(20), R.NOT_YOUR_TURN)      # not your turn before invalid bid
    rejects(state, 1, DOUBLE_NIL, R.NOT_YOUR_TURN)
    assert engine.legal_actions(state, 2) == [REVEAL]


def test_contract_is_sum_of_non_nil_bids_sheet_example():
    # Sheet: A bids 4, B 3, C 2, D 2 -> A+C must win 6, B+D 5 (A = seat 0, B = seat 1, ...)
    done = spades_game([((4, 3, 2, 2), (4, 3, 3, 3))], dealer=3)
    assert [s.contract for s in done.records[0].sides] == [6, 5]
    assert done.records[0].bids == [4, 3, 2, 2]
    done = spades_game([((4, 3, 0, 2), (4, 3, 0, 6))], dealer=3)   # a Nil adds nothing
    assert [s.contract for s in done.records[0].sides] == [4, 5]


# ---- looking and Double Nil -----------------------------------------------------------------

def test_hand_is_withheld_until_the_seat_looks():
    state = dealt()
    for seat in range(4):
        assert engine.view(state, seat).hand is None
        assert REVEAL in engine.legal_actions(state, seat)


def test_reveal_any_time_during_bidding_in_turn_or_not():
    state = dealt()
    act(state, 2, REVEAL)                                        # out of turn
    assert engine.view(state, 2).hand == card_list(state.hands[2])
    assert engine.view(state, 0).hand is None
    assert REVEAL not in engine.legal_actions(state, 2)
    act(state, 0, REVEAL)                                        # in turn
    assert engine.view(state, 0).hand == card_list(state.hands[0])
    assert state.turn == 0                                       # looking is not a bid
    assert DOUBLE_NIL not in engine.legal_actions(state, 0)
    rejects(state, 0, DOUBLE_NIL, SpadesReason.BLIND_NIL_AFTER_LOOKING)
    act(state, 0, bid(3))
    act(state, 1, bid(3))
    assert DOUBLE_NIL not in engine.legal_actions(state, 2)
    rejects(state, 2, DOUBLE_NIL, SpadesReason.BLIND_NIL_AFTER_LOOKING)


def test_reveal_after_bidding_is_rejected():
    state = dealt()
    act(state, 0, bid(3))
    with pytest.raises(engine.IllegalAction):
        act(state, 0, REVEAL)
    bid_round(state, {1: 3, 2: 3, 3: 3})
    rejects(state, 1, REVEAL, R.WRONG_PHASE)                     # play phase


def test_bidding_a_number_without_looking_shows_the_hand_at_once():
    state = dealt()
    assert engine.view(state, 0).hand is None
    act(state, 0, bid(0))                                        # Nil, blind
    assert engine.view(state, 0).hand == card_list(state.hands[0])
    assert engine.view(state, 0).seats[0].rules.has_looked
    act(state, 1, bid(5))
    assert engine.view(state, 1).hand == card_list(state.hands[1])


def test_double_nil_only_in_turn_and_only_before_looking():
    state = dealt()
    rejects(state, 1, DOUBLE_NIL, R.NOT_YOUR_TURN)
    act(state, 0, DOUBLE_NIL)
    assert state.bids[0] == -2
    assert state.turn == 1
    v = engine.view(state, 0)
    assert v.hand is None and v.seats[0].rules.double_nil and v.seats[0].bid is None
    assert REVEAL not in engine.legal_actions(state, 0)          # it has bid: no looking now
    with pytest.raises(engine.IllegalAction):
        act(state, 0, REVEAL)


def test_double_nil_bidder_sees_hand_when_bidding_ends():
    state = dealt()
    act(state, 0, DOUBLE_NIL)
    for seat, b in ((1, 3), (2, 4)):
        act(state, seat, bid(b))
        assert engine.view(state, 0).hand is None
    act(state, 3, bid(3))
    assert engine.view(state, 0).hand == card_list(state.hands[0])


def test_double_nil_switched_off():
    state = dealt(options=engine.SpadesOptions(double_nil_allowed=False))
    assert DOUBLE_NIL not in engine.legal_actions(state, 0)
    rejects(state, 0, DOUBLE_NIL, R.INVALID_BID)


# ---- the Double Nil exchange ----------------------------------------------------------------

def test_exchange_after_all_four_bids_between_double_nil_partners_only():
    state = dealt()
    act(state, 0, DOUBLE_NIL)
    assert state.phase == Phase.BID
    bid_round(state, {1: 3, 2: 4, 3: 3})
    assert state.phase == Phase.EXCHANGE
    for seat in (1, 3):
        assert engine.legal_actions(state, seat) == []
        rejects(state, seat, exchange(cs(cl(HANDS[seat])[:3])), R.NOT_YOUR_TURN)
    for seat in (0, 2):
        choices = engine.legal_actions(state, seat)
        assert len(choices) == 286                               # any three of thirteen
        assert all(engine.kind_of(a) == SpadesCode.EXCHANGE and engine.payload_of(a).bit_count() == 3
                   for a in choices)
        assert exchange(cs(cl(HANDS[seat])[:3])) in choices


def test_exchange_is_simultaneous_and_swaps_when_both_have_chosen():
    state = dealt()
    bid_round(state, {0: "DN", 1: 3, 2: 4, 3: 3})
    h0, h2 = state.hands[0], state.hands[2]
    give0 = cs("2H 3H 4H")
    give2 = cs("5S 6S 7S")                  # spades may be given
    act(state, 2, exchange(give2))          # the partner may choose first
    assert state.hands == [h0, state.hands[1], h2, state.hands[3]]      # nothing moves yet
    assert state.phase == Phase.EXCHANGE
    assert engine.view(state, 2).rules.exchange_given == card_list(give2)
    assert engine.view(state, 2).rules.exchange_received == []
    assert engine.view(state, 0).rules.exchange_given == []
    rejects(state, 2, exchange(cs("8S 9C 9D")), R.NOT_YOUR_TURN)        # already chosen
    act(state, 0, exchange(give0))
    assert state.hands[0] == h0 & ~give0 | give2
    assert state.hands[2] == h2 & ~give2 | give0
    assert state.phase == Phase.PLAY and state.turn == 0
    v0 = engine.view(state, 0)
    assert v0.rules.exchange_given == card_list(give0) and v0.rules.exchange_received == card_list(give2)
    assert state.xgot[0] == give2 and state.xgot[2] == give0


def test_invalid_exchanges():
    state = dealt()
    bid_round(state, {0: "DN", 1: 3, 2: 4, 3: 3})
    rejects(state, 0, exchange(cs("2H 3H")), R.INVALID_EXCHANGE)             # too few
    rejects(state, 0, exchange(cs("2H 3H 4H 5H")), R.INVALID_EXCHANGE)       # too many
    rejects(state, 0, exchange(cs("2H 3H AS")), R.INVALID_EXCHANGE)          # AS not held
    rejects(state, 0, exchange_of([C("2H"), C("2H"), C("3H")]), R.INVALID_EXCHANGE)  # duplicate
    rejects(state, 0, bid(3), R.WRONG_PHASE)
    rejects(state, 0, play(C("2H")), R.WRONG_PHASE)
    rejects(state, 1, play(C("2S")), R.WRONG_PHASE)


def test_exchange_size_option():
    state = dealt(options=engine.SpadesOptions(exchange_size=2))
    bid_round(state, {0: "DN", 1: 3, 2: 4, 3: 3})
    rejects(state, 0, exchange(cs("2H 3H 4H")), R.INVALID_EXCHANGE)
    act(state, 0, exchange(cs("2H 3H")))
    act(state, 2, exchange(cs("5S 6S")))
    assert state.phase == Phase.PLAY


def test_both_partnerships_may_exchange_and_play_starts_when_all_are_done():
    state = dealt()
    bid_round(state, {0: "DN", 1: 4, 2: 3, 3: "DN"})
    assert state.phase == Phase.EXCHANGE
    assert all(len(engine.legal_actions(state, s)) == 286 for s in range(4))
    act(state, 0, exchange(cs("2H 3H 4H")))
    act(state, 2, exchange(cs("5S 6S 7S")))
    assert state.phase == Phase.EXCHANGE              # the other partnership still choosing
    assert engine.legal_actions(state, 0) == []
    act(state, 3, exchange(cs("QD KD AD")))
    assert state.phase == Phase.EXCHANGE
    act(state, 1, exchange(cs("2S 3S 4S")))
    assert state.phase == Phase.PLAY and state.turn == 0
    assert state.hands[3] & cs("2S 3S 4S") == cs("2S 3S 4S")
    assert state.hands[1] & cs("QD KD AD") == cs("QD KD AD")


def test_both_partners_double_nil_means_no_exchange():
    state = dealt()
    bid_round(state, {0: "DN", 1: 4, 2: "DN", 3: 4})
    assert state.phase == Phase.PLAY


def test_double_nil_with_ordinary_nil_partner_does_exchange():
    state = dealt()
    bid_round(state, {0: 0, 1: 4, 2: "DN", 3: 4})
    assert state.phase == Phase.EXCHANGE
    assert engine.legal_actions(state, 0) and engine.legal_actions(state, 2)
    assert not engine.legal_actions(state, 1)


def test_ordinary_nil_has_no_exchange():
    state = dealt()
    bid_round(state, {0: 0, 1: 0, 2: 4, 3: 0})
    assert state.phase == Phase.PLAY


# ---- trick play ------------------------------------------------------------------------------

def trick(state, cards: str) -> None:
    for c in cards.split():
        act(state, state.turn, play(C(c)))


def test_follow_suit_trick_winner_and_spades_broken_by_a_discard():
    state = in_play()
    assert state.turn == 0                                       # left of dealer 3 leads
    act(state, 0, play(C("2D")))
    rejects(state, 1, play(C("2S")), R.MUST_FOLLOW_SUIT)         # a spade is never required
    rejects(state, 1, play(C("2C")), R.MUST_FOLLOW_SUIT)
    rejects(state, 1, play(C("AS")), R.CARD_NOT_IN_HAND)
    assert set(engine.legal_actions(state, 1)) == {play(C(c)) for c in ("5D", "6D", "7D", "8D")}
    for seat in (0, 2, 3):
        assert engine.legal_actions(state, seat) == []
    trick(state, "5D 9D QD")
    assert state.tricks == [0, 0, 0, 1] and state.turn == 3      # the winner leads next
    assert state.last_trick == [[0, 1, 2, 3], [C("2D"), C("5D"), C("9D"), C("QD")], 3]
    # seat 3 may not lead a spade before spades are broken
    assert set(engine.legal_actions(state, 3)) == {play(C(c)) for c in "10C KD AD QH KH AH".split()}
    rejects(state, 3, play(C("AS")), SpadesReason.SPADES_NOT_BROKEN)
    trick(state, "10C AC 2C 6C")
    assert state.turn == 0 and state.tricks == [1, 0, 0, 1]
    # seat 3 is void in clubs: a non-spade discard (even an ace) does not win; a spade is not required
    trick(state, "KC 3C 7C AH")
    assert state.turn == 0 and state.tricks == [2, 0, 0, 1]
    assert not state.broken
    # seat 3, void in clubs, plays a spade: that breaks spades, and the spade wins
    trick(state, "QC 4C 8C 9S")
    assert state.broken
    assert state.turn == 3 and state.tricks == [2, 0, 0, 2]
    act(state, 3, play(C("KS")))                                 # spades may now be led
    act(state, 0, play(C("7H")))                                 # void in spades: any card
    rejects(state, 1, play(C("9H")), R.MUST_FOLLOW_SUIT)
    trick(state, "4S 8S")
    assert state.tricks == [2, 0, 0, 3] and state.turn == 3


def test_leader_with_only_spades_may_lead_one_and_that_breaks_spades():
    hands = {0: [c for c in range(39, 52)]}
    state = dealt(hands=hands)
    bid_round(state, (13, 0, 0, 0))
    assert not state.broken
    assert set(engine.legal_actions(state, 0)) == {play(c) for c in range(39, 52)}
    act(state, 0, play(C("2S")))
    assert state.broken


def test_spades_not_broken_by_leading_them_too_early_even_if_holding_many():
    hands = {0: "2C AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S"}
    state = dealt(hands=hands)
    bid_round(state, (3, 3, 3, 3))
    assert engine.legal_actions(state, 0) == [play(C("2C"))]
    rejects(state, 0, play(C("AS")), SpadesReason.SPADES_NOT_BROKEN)


def test_spade_trumps_the_led_suit():
    state = in_play()
    trick(state, "2D 5D 9D QD 10C AC 2C 6C")
    trick(state, "KC 3C 7C 9S")               # the lowest spade beats the clubs
    assert state.last_trick[2] == 3 and state.broken


def test_play_out_of_turn_and_precedence():
    state = in_play()
    rejects(state, 1, play(C("2C")), R.NOT_YOUR_TURN)
    rejects(state, 1, play(C("AC")), R.NOT_YOUR_TURN)            # not your turn before card not in hand
    rejects(state, 1, bid(3), R.WRONG_PHASE)                     # wrong phase before not your turn
    rejects(state, 1, DEAL, R.WRONG_PHASE)
    rejects(state, 0, ORDER_UP, R.WRONG_PHASE)            # another game's action
    rejects(state, 0, play(C("AS")), R.CARD_NOT_IN_HAND)
    act(state, 0, play(C("2D")))
    rejects(state, 2, play(C("5S")), R.NOT_YOUR_TURN)            # not your turn before must follow
    rejects(state, 1, play(C("AD")), R.CARD_NOT_IN_HAND)         # card not in hand before must follow
    rejects(state, 1, play(C("2C")), R.MUST_FOLLOW_SUIT)


def test_next_hand_dealer_is_left_of_dealer():
    state = spades_game([((3, 3, 3, 3), (4, 3, 3, 3))] * 3, dealer=2)
    assert [r.dealer for r in state.records] == [2, 3, 0]
    assert state.phase == Phase.DEAL and state.dealer == 1 and state.turn == 1
    assert engine.legal_actions(state, 1) == [DEAL]
    rejects(state, 0, DEAL, R.NOT_YOUR_TURN)
    deal(state)
    assert state.turn == 2 and state.hand_no == 4
