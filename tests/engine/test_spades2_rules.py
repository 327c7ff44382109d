"""Two-player Spades (RULES.md §2): the draw, Double Nil in the first draw turn, the exchange
against the discards, bidding order, play and the swap of roles."""

from __future__ import annotations

import random

import pytest
from engine_helpers import C, act, cl, cs, draw_all_keep, draw_deck, new, rejects, spades2_game, start

import engine
from engine import DEAL, Reason, play
from engine.core.cards import card_list
from engine.games.spades_state import SpadesReason
from engine.games.spades_words import DOUBLE_NIL, DRAW_DISCARD, DRAW_KEEP, bid, exchange, exchange_of
from engine.games.spades_words import SpadesPhase as Phase

R = Reason


def shuffled(seed: int = 1) -> list[int]:
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    return deck


@pytest.mark.parametrize("first", [0, 1])
def test_draw_keep_or_discard(first):
    D = shuffled(first)
    state = new("spades2", [D], dealer=first)
    second = 1 - first
    assert state.turn == first and engine.legal_actions(state, first) == [DEAL]
    rejects(state, second, DEAL, R.NOT_YOUR_TURN)
    act(state, first, DEAL)
    assert state.phase == Phase.DRAW and state.turn == first
    assert engine.view(state, first).rules.offered == D[0]
    assert engine.view(state, second).rules.offered is None
    assert engine.view(state, None).rules.offered is None
    assert engine.view(state, first).rules.stock_count == 51
    rejects(state, second, DRAW_KEEP, R.NOT_YOUR_TURN)
    assert engine.legal_actions(state, second) == []
    # keep: the next card goes to the discards, seen by the drawer only
    act(state, first, DRAW_KEEP)
    assert state.hands[first] == 1 << D[0]
    assert state.discards == 1 << D[1]
    assert engine.view(state, first).rules.seen_discards == [D[1]]
    assert engine.view(state, second).rules.seen_discards == []
    assert state.turn == second and engine.view(state, second).rules.offered == D[2]
    assert engine.view(state, first).rules.offered is None
    # discard: the offered card is discarded and the next one must be kept
    act(state, second, DRAW_DISCARD)
    assert state.hands[second] == 1 << D[3]
    assert state.discards == 1 << D[1] | 1 << D[2]
    assert engine.view(state, second).rules.seen_discards == [D[2]]
    assert engine.view(state, first).rules.seen_discards == [D[1]]
    assert state.turn == first and engine.view(state, first).rules.offered == D[4]
    assert engine.view(state, first).rules.stock_count == 47


def test_the_draw_gives_thirteen_each_and_26_discards_then_second_player_bids():
    D = shuffled(4)
    state = start("spades2", [D], dealer=1)
    rng = random.Random(3)
    turns = 0
    while state.phase == Phase.DRAW:
        assert state.turn == (1 if turns % 2 == 0 else 0)       # alternate, first drawer first
        act(state, state.turn, rng.choice([DRAW_KEEP, DRAW_DISCARD]))
        turns += 1
    assert turns == 26
    assert [h.bit_count() for h in state.hands] == [13, 13]
    assert state.discards.bit_count() == 26
    assert state.hands[0] | state.hands[1] | state.discards == (1 << 52) - 1
    assert state.phase == Phase.BID and state.turn == 0          # the second player bids first
    for seat in (0, 1):                                         # every card seen by a drawer
        assert engine.view(state, seat).rules.seen_discards == card_list(state.discarded[seat])
    seen_disc = [set(engine.view(state, s).rules.seen_discards) for s in (0, 1)]
    assert not seen_disc[0] & seen_disc[1]
    assert seen_disc[0] | seen_disc[1] == set(card_list(state.discards))


def test_bidding_second_player_first_then_second_player_leads():
    state = start("spades2", [shuffled(2)], dealer=0)
    draw_all_keep(state)
    assert state.phase == Phase.BID and state.turn == 1
    assert set(engine.legal_actions(state, 1)) == {bid(n) for n in range(14)}
    assert engine.legal_actions(state, 0) == []
    rejects(state, 0, bid(3), R.NOT_YOUR_TURN)
    rejects(state, 1, bid(14), R.INVALID_BID)
    rejects(state, 1, DOUBLE_NIL, SpadesReason.BLIND_NIL_AFTER_LOOKING)     # too late for Double Nil
    rejects(state, 0, DOUBLE_NIL, R.NOT_YOUR_TURN)
    rejects(state, 1, DRAW_KEEP, R.WRONG_PHASE)
    act(state, 1, bid(8))
    act(state, 0, bid(6))                                        # bids need not increase
    assert state.bids == [6, 8]
    assert state.phase == Phase.PLAY and state.turn == 1


def test_double_nil_during_first_draw_turn_only():
    state = start("spades2", [shuffled(3)], dealer=0)
    assert DOUBLE_NIL in engine.legal_actions(state, 0)          # the offered card is visible already
    rejects(state, 1, DOUBLE_NIL, R.NOT_YOUR_TURN)
    act(state, 0, DOUBLE_NIL)
    assert state.bids[0] == -2 and state.turn == 0 and state.phase == Phase.DRAW
    assert engine.legal_actions(state, 0) == [DRAW_KEEP, DRAW_DISCARD]
    rejects(state, 0, DOUBLE_NIL, R.INVALID_BID)                 # already declared
    act(state, 0, DRAW_DISCARD)
    act(state, 1, DRAW_KEEP)                                     # second player's first turn: no Double Nil
    assert DOUBLE_NIL not in engine.legal_actions(state, 0)
    rejects(state, 0, DOUBLE_NIL, R.INVALID_BID)                 # already declared (seat 0)
    act(state, 0, DRAW_KEEP)
    assert DOUBLE_NIL not in engine.legal_actions(state, 1)
    rejects(state, 1, DOUBLE_NIL, SpadesReason.BLIND_NIL_AFTER_LOOKING)     # after its first draw choice


def test_second_player_may_declare_in_its_first_draw_turn():
    state = start("spades2", [shuffled(3)], dealer=0)
    act(state, 0, DRAW_KEEP)
    assert DOUBLE_NIL in engine.legal_actions(state, 1)
    act(state, 1, DOUBLE_NIL)
    assert state.bids[1] == -2


def test_double_nil_switched_off():
    state = start("spades2", [shuffled(3)], dealer=0, options=engine.SpadesOptions(double_nil_allowed=False))
    assert DOUBLE_NIL not in engine.legal_actions(state, 0)
    rejects(state, 0, DOUBLE_NIL, R.INVALID_BID)


def draw_with_double_nil(dn_seats, dealer=0, seed=5, options=None):
    state = start("spades2", [shuffled(seed)], dealer=dealer, options=options)
    while state.phase == Phase.DRAW:
        seat = state.turn
        if seat in dn_seats and state.draw_turns[seat] == 0 and state.bids[seat] != -2:
            act(state, seat, DOUBLE_NIL)
        act(state, seat, DRAW_KEEP)
    return state


def test_exchange_zero_to_three_cards_from_the_discards_before_bidding():
    state = draw_with_double_nil({0})
    assert state.phase == Phase.EXCHANGE and state.turn == 0
    assert engine.legal_actions(state, 1) == []
    choices = engine.legal_actions(state, 0)
    assert len(choices) == 1 + 13 + 78 + 286
    hand = card_list(state.hands[0])
    rejects(state, 0, exchange(cs(hand[:4])), R.INVALID_EXCHANGE)            # four is too many
    rejects(state, 0, exchange(cs(card_list(state.hands[1])[:1])), R.INVALID_EXCHANGE)   # not held
    rejects(state, 0, exchange_of([hand[0], hand[0]]), R.INVALID_EXCHANGE)
    rejects(state, 1, exchange(0), R.NOT_YOUR_TURN)
    rejects(state, 0, bid(0), R.WRONG_PHASE)
    before_discards = state.discards
    before_hand = state.hands[0]
    aside = cs(hand[:3])
    act(state, 0, exchange(aside), rng=random.Random(7))
    got = cs(random.Random(7).sample(card_list(before_discards), 3))   # drawn from the discards as they were
    assert state.hands[0] == before_hand & ~aside | got
    assert state.hands[0].bit_count() == 13
    assert got & before_discards == got and not got & aside
    assert state.discards == before_discards & ~got | aside
    assert state.xgiven[0] == aside and state.xgot[0] == got
    v = engine.view(state, 0)
    assert v.rules.exchange_given == card_list(aside) and v.rules.exchange_received == card_list(got)
    assert set(card_list(aside)) <= set(v.rules.seen_discards)                  # its own put-aside cards
    # the Double Nil player makes no other bid: only the second player bids, then plays first
    assert state.phase == Phase.BID and state.turn == 1
    act(state, 1, bid(4))
    assert state.phase == Phase.PLAY and state.turn == 1
    assert state.bids == [-2, 4]


def test_putting_nothing_aside():
    state = draw_with_double_nil({1})
    assert state.phase == Phase.EXCHANGE and state.turn == 1
    hand = state.hands[1]
    act(state, 1, exchange(0))
    assert state.hands[1] == hand
    assert state.phase == Phase.BID and state.turn == 0           # the second player (1) is skipped
    act(state, 0, bid(5))
    assert state.phase == Phase.PLAY and state.turn == 1          # the second player still leads


def test_both_double_nil_first_player_exchanges_first_and_there_is_no_bidding():
    state = draw_with_double_nil({0, 1}, dealer=1)
    assert state.phase == Phase.EXCHANGE and state.turn == 1      # the first drawer
    rejects(state, 0, exchange(0), R.NOT_YOUR_TURN)
    act(state, 1, exchange(cs(card_list(state.hands[1])[:2])))
    assert state.phase == Phase.EXCHANGE and state.turn == 0
    act(state, 0, exchange(cs(card_list(state.hands[0])[:1])))
    assert state.phase == Phase.PLAY and state.turn == 0          # no bidding; the second player leads
    assert state.bids == [-2, -2]
    assert [h.bit_count() for h in state.hands] == [13, 13]


def test_exchange_size_option_zero_means_no_exchange():
    state = draw_with_double_nil({0}, options=engine.SpadesOptions(exchange_size=0))
    assert state.phase == Phase.BID and state.turn == 1


def test_spades_play_rules_apply():
    first = cl("2C 3C 4C 5C 2H 3H 4H 5H 6H 7H 8H 9H AS")
    second = cl("6C 7C 8C 9C 10C JC QC KC AC 2S 3S 4S 5S")
    state = start("spades2", [draw_deck(first, second)], dealer=0)
    draw_all_keep(state)
    assert state.hands[0] == cs(first) and state.hands[1] == cs(second)
    act(state, 1, bid(5))
    act(state, 0, bid(1))
    assert state.turn == 1
    assert set(engine.legal_actions(state, 1)) == {play(C(c)) for c in "6C 7C 8C 9C 10C JC QC KC AC".split()}
    rejects(state, 1, play(C("2S")), SpadesReason.SPADES_NOT_BROKEN)
    act(state, 1, play(C("6C")))
    rejects(state, 0, play(C("AS")), R.MUST_FOLLOW_SUIT)
    rejects(state, 0, play(C("2H")), R.MUST_FOLLOW_SUIT)
    act(state, 0, play(C("5C")))
    assert state.tricks == [0, 1] and state.turn == 1
    for c in "7C 4C 8C 3C 9C 2C".split():
        act(state, state.turn, play(C(c)))
    act(state, 1, play(C("10C")))
    act(state, 0, play(C("AS")))                                  # void: trumps and breaks spades
    assert state.broken and state.tricks == [1, 4] and state.turn == 0
    act(state, 0, play(C("2H")))
    act(state, 1, play(C("2S")))                                  # void in hearts
    assert state.tricks == [1, 5] and state.turn == 1
    act(state, 1, play(C("3S")))                                  # spades are broken
    assert state.turn == 0


def test_roles_swap_each_hand():
    state = spades2_game([((7, 5), (8, 5)), ((3, 5), (6, 7))], dealer=1)
    assert [r.dealer for r in state.records] == [1, 0]
    assert state.phase == Phase.DEAL and state.dealer == 1 and state.turn == 1
    rejects(state, 0, DEAL, R.NOT_YOUR_TURN)
    act(state, 1, DEAL)
    assert state.phase == Phase.DRAW and state.turn == 1
    assert engine.view(state, 1).rules.offered is not None
