"""Euchre (RULES.md §6), sentence by sentence: partnerships, the deck and the bowers, the deal
and the turn-up, ordering up and the dealer's discard, the turned-down suit and naming, thrown-in
hands, stick the dealer, going alone (the dealer's partner alone, the dealer alone), defending
alone, play, scoring and the target; the reason codes and their order; the options; the views; the
determinize hooks; and whole games of random legal play under random options, replayed from
their logs."""

from __future__ import annotations

import dataclasses
import random

import pytest
from engine_helpers import C, act, check_views, cs, euchre_deck, examples, new, private_cards, rejects, start
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from bots.sampling import sample_fills
from engine import DEAL, Reason, play
from engine.core.cards import CLUBS, DIAMONDS, EUCHRE_DECK, HEARTS, SPADES, card_list
from engine.core.tricks import euchre_rules
from engine.games.buck_euchre import BuckEuchreOptions
from engine.games.euchre import EuchreOptions, EuchreReason, hand_points, partner
from engine.games.euchre_cards import left_bower, right_bower, rules, trump_cards, trump_rank
from engine.games.euchre_words import (
    DEFEND_ALONE,
    ORDER,
    PASS,
    EuchreCode,
    EuchrePhase,
    discard,
    name_suit,
)

Phase = EuchrePhase
R = Reason
E = EuchreReason
NOBODY = -1

# Dealer 3 (seat 0 on its left), turn-up 9H: the hands of the first trump round.
ROUND1 = {0: "JH AH 9C 10D KS", 1: "10C JC QC KC AC", 2: "JS QS AS QH KH", 3: "9D QD KD AD 10S"}
ROUND1_KITTY = "10H JD 9S"

# Trump hearts named by seat 0 (dealer 3, the turn-up a spade turned down): scripted hands that
# ``greedy`` play gives a known split of the tricks (the makers' tricks, as a comment).
SCRIPTS = {
    "all": ({0: "JH JD AH KH QH", 1: "9C 10C QC KC AC", 2: "9D 10D QD KD AD", 3: "10S JS QS KS AS"}, "9S",
            "9H 10H JC"),                                                      # makers 5
    "four": ({0: "JH JD AH KH 9C", 1: "10C JC QC KC AC", 2: "9D 10D QD KD AD", 3: "10S JS QS KS AS"}, "9S",
             "QH 10H 9H"),                                                     # makers 4
    "three": ({0: "JH JD AH 9C 10D", 1: "10C JC QC KC AC", 2: "JS QS KS AS 9H", 3: "9D QD KD AD 10S"}, "9S",
              "KH QH 10H"),                                                    # makers 3 (4 without seat 3)
    "two": ({0: "JH 9C 10C 9D 10D", 1: "JC QC KC AC 10S", 2: "QS KS AS 9H 10H", 3: "JD QD KD AD 9S"}, "JS",
            "QH KH AH"),                                                       # makers 2 (1 alone)
    "one": ({0: "JH 9C 10C 9D 10D", 1: "AC KC QC AD KD", 2: "10S JS QS KS AS", 3: "JC JD QD 9H 10H"}, "9S",
            "QH KH AH"),                                                       # makers 1
}


def eu(dealer: int, hands, turnup: str, kitty: str | None = None, options=None, more_decks=()):
    """A Euchre game dealt from a prearranged deck (the hands, the turn-up, then the kitty)."""
    return start("euchre", [euchre_deck(dealer, hands, turnup, kitty), *more_decks], dealer=dealer, options=options)


def round1(options=None, more_decks=()):
    return eu(3, ROUND1, "9H", ROUND1_KITTY, options, more_decks)


def calls(state, *notations: str) -> None:
    """Apply the actions in order, each by the seat in turn."""
    for notation in notations:
        act(state, state.turn, notation)


def tricks(state, text: str) -> None:
    """Play the named cards in order, each by the seat in turn."""
    for card in text.split():
        act(state, state.turn, play(C(card)))


def greedy(state) -> None:
    """Play the hand out: the leader plays its strongest legal card, each other seat its weakest."""
    while state.phase == Phase.PLAY:
        seat = state.turn
        legal = [engine.payload_of(a) for a in engine.legal_actions(state, seat)]
        power = rules(state.trump).power
        pick = min if state.trick_cards else max
        act(state, seat, play(pick(legal, key=power.__getitem__)))


def named(script: str, alone: bool = False, options=None, more_decks=()):
    """A SCRIPTS hand after four passes and seat 0's naming hearts (alone or not)."""
    hands, turnup, kitty = SCRIPTS[script]
    state = eu(3, hands, turnup, kitty, options, more_decks)
    calls(state, "pass", "pass", "pass", "pass", "name hearts alone" if alone else "name H")
    return state


def notations(state, seat: int) -> list[str]:
    return [engine.notation("euchre", a) for a in engine.legal_actions(state, seat)]


def sitting_out(state) -> list[int]:
    return [s for s in range(4) if not state.active >> s & 1]


# ---- partnerships, the deck, the ranking ---------------------------------------------------------

def test_seats_0_and_2_and_seats_1_and_3_are_partners_playing_24_cards_to_10():
    state = new("euchre")
    assert [state.seats_of(side) for side in range(state.sides)] == [[0, 2], [1, 3]]
    assert [partner(s) for s in range(4)] == [2, 3, 0, 1]
    assert engine.game_of("euchre").deck_mask == EUCHRE_DECK and len(engine.game_of("euchre").cards) == 24
    assert state.options.target == 10 and state.scores == [0, 0]
    with pytest.raises(ValueError, match="not a card of euchre"):
        engine.check_deck("euchre", list(range(52)))


def test_trump_ranks_the_right_bower_the_left_bower_then_ace_down_to_nine():
    assert trump_cards(HEARTS) == cs("JD 9H 10H JH QH KH AH")
    ranked = sorted(card_list(trump_cards(HEARTS)), key=lambda c: -trump_rank(c, HEARTS))
    assert [engine.card_name(c) for c in ranked] == ["JH", "JD", "AH", "KH", "QH", "10H", "9H"]
    assert (right_bower(SPADES), left_bower(SPADES)) == (C("JS"), C("JC"))
    assert (right_bower(DIAMONDS), left_bower(DIAMONDS)) == (C("JD"), C("JH"))
    table = euchre_rules(CLUBS)
    assert table.winner([C("AC"), C("JS"), C("JC"), C("KC")])[1] == C("JC")   # right over left over ace
    assert table.winner([C("AC"), C("JS"), C("9C")])[1] == C("JS")             # left over ace


# Dealer 3, clubs turned down, seat 0 names hearts: seat 1's JD is its only trump.
LEFT_BOWER = {0: "9D JH 9C 10C QC", 1: "JD AS KS QS JS", 2: "10D 9S 10S KC AC", 3: "AD KD QD 9H 10H"}


def test_the_left_bower_is_a_trump_for_every_purpose_following_suit_included():
    state = eu(3, LEFT_BOWER, "JC", "QH KH AH")
    calls(state, "pass", "pass", "pass", "pass", "name H")
    act(state, 0, play(C("9D")))
    assert len(engine.legal_actions(state, 1)) == 5            # JD is no diamond: seat 1 plays any card
    act(state, 1, play(C("AS")))
    rejects(state, 2, play(C("9S")), R.MUST_FOLLOW_SUIT)       # seat 2 holds 10D
    act(state, 2, play(C("10D")))
    act(state, 3, play(C("AD")))
    assert state.tricks == [0, 0, 0, 1] and state.turn == 3    # plain suits: the ace highest
    assert engine.view(state, 0).seats[1].void_suits == (DIAMONDS,)
    act(state, 3, play(C("9H")))                               # a trump lead
    assert notations(state, 0) == ["play JH"]
    act(state, 0, play(C("JH")))
    assert notations(state, 1) == ["play JD"]                  # the left bower follows trump
    rejects(state, 1, play(C("KS")), R.MUST_FOLLOW_SUIT)
    act(state, 1, play(C("JD")))
    assert len(engine.legal_actions(state, 2)) == 4
    act(state, 2, play(C("9S")))
    assert state.tricks == [1, 0, 0, 1] and state.last_trick[2] == 0   # the right bower over the left


# ---- the deal --------------------------------------------------------------------------------

@pytest.mark.parametrize("dealer", range(4))
def test_five_cards_each_from_the_dealers_left_then_the_turn_up_and_the_kitty(dealer):
    deck = card_list(EUCHRE_DECK)
    random.Random(dealer).shuffle(deck)
    state = new("euchre", [deck], dealer=dealer)
    rejects(state, (dealer + 1) % 4, DEAL, R.NOT_YOUR_TURN)
    act(state, dealer, DEAL)
    for i in range(20):
        assert state.hands[(dealer + 1 + i) % 4] >> deck[i] & 1
    assert [h.bit_count() for h in state.hands] == [5] * 4
    assert state.turnup == deck[20] and state.kitty == cs(deck[21:])
    assert state.phase == Phase.ORDER_UP and state.turn == (dealer + 1) % 4
    for seat in (None, 0, 1, 2, 3):
        v = engine.view(state, seat)
        assert v.rules.turn_up == deck[20] and not v.rules.turn_up_taken and not v.rules.turn_up_turned_down
        assert v.rules.trump is None and v.rules.maker is None


# ---- round one: ordering up, the dealer's pick-up and discard ------------------------------------

def test_round_one_each_in_turn_orders_or_passes_and_the_dealer_takes_the_turn_up():
    state = round1()
    assert notations(state, 0) == ["order", "order-alone", "pass"]
    assert all(not engine.legal_actions(state, s) for s in (1, 2, 3))
    rejects(state, 1, ORDER, R.NOT_YOUR_TURN)
    calls(state, "pass")
    assert state.turn == 1 and engine.view(state, 2).seats[0].last_call == "pass"
    calls(state, "order")
    assert (state.maker, state.trump, state.alone) == (1, HEARTS, False)
    assert state.phase == Phase.DEALER_DISCARD and state.turn == 3 and state.taken
    assert state.hands[3] == cs("9D QD KD AD 10S 9H")
    assert engine.view(state, 0).rules.maker == 1 and engine.view(state, None).rules.turn_up_taken


def test_the_dealers_own_order_is_picking_it_up():
    state = round1()
    calls(state, "pass", "pass", "pass", "order")
    assert state.maker == 3 and state.trump == HEARTS and state.hands[3] >> C("9H") & 1
    assert state.phase == Phase.DEALER_DISCARD and state.turn == 3


def test_the_discard_is_any_card_but_the_turn_up():
    state = round1()
    calls(state, "order")
    v = engine.view(state, 3)
    assert v.exchange is not None
    assert (v.exchange.fewest, v.exchange.most, v.exchange.kind) == (1, 1, EuchreCode.DISCARD)
    assert cs(v.exchange.cards) == cs("9D QD KD AD 10S") and v.legal_actions == []
    assert sorted(engine.legal_actions(state, 3)) == sorted(discard(1 << c) for c in card_list(cs("9D QD KD AD 10S")))
    error = rejects(state, 3, "exchange 9H", E.MUST_KEEP_TURN_UP)
    assert "9H" in str(error)
    act(state, 3, "exchange 10S")
    assert state.hands[3] == cs("9D QD KD AD 9H") and state.dealer_discard == C("10S")
    assert state.phase == Phase.PLAY and state.turn == 0


@pytest.mark.parametrize("text", ["exchange 9H 10S", "exchange", "exchange 9H 9H", "exchange JS", "exchange 9D 10S"])
def test_anything_but_one_card_held_is_an_invalid_exchange_before_must_keep_turn_up(text):
    state = round1()
    calls(state, "order")
    rejects(state, 3, text, R.INVALID_EXCHANGE)


def test_only_the_dealer_sees_the_discard_and_every_seat_the_turn_up():
    state = round1()
    calls(state, "order")
    act(state, 3, "exchange QD")
    assert engine.view(state, 3).rules.dealer_discard == C("QD")
    for seat in (None, 0, 1, 2):
        v = engine.view(state, seat)
        assert v.rules.dealer_discard is None and C("QD") not in private_cards(v)
        assert v.rules.turn_up == C("9H") and v.rules.turn_up_taken     # public knowledge after it is taken
    greedy(state)
    record = state.records[-1]
    assert record.dealer_discard == "QD" and record.turn_up == "9H" and not record.turned_down


# ---- round two: the turned-down suit, naming, throwing in, stick the dealer -----------------------

def test_four_passes_turn_the_turn_up_down_and_round_two_names_another_suit():
    state = round1()
    calls(state, "pass", "pass", "pass", "pass")
    assert state.phase == Phase.NAME_TRUMP and state.turn == 0 and state.turned_down and not state.taken
    v = engine.view(state, 1)
    assert v.rules.turn_up == C("9H") and v.rules.turn_up_turned_down    # still public knowledge
    assert notations(state, 0) == ["pass", "name C", "name-alone C", "name D", "name-alone D", "name S",
                                   "name-alone S"]
    rejects(state, 0, "name H", E.SUIT_TURNED_DOWN)
    rejects(state, 0, "name hearts alone", E.SUIT_TURNED_DOWN)
    rejects(state, 0, ORDER, R.WRONG_PHASE)
    calls(state, "pass", "name S")
    assert (state.maker, state.trump, state.alone) == (1, SPADES, False)
    assert state.phase == Phase.PLAY and state.turn == 0 and state.hands[3] == cs(ROUND1[3])   # nothing picked up
    greedy(state)
    assert state.records[-1].turned_down and state.records[-1].dealer_discard == ""


def test_eight_passes_throw_the_hand_in_it_is_recorded_and_the_deal_passes_left_with_no_score():
    second = euchre_deck(0, SCRIPTS["all"][0], "9S", "9H 10H JC")
    state = round1(more_decks=[second])
    calls(state, *["pass"] * 7)
    assert state.phase == Phase.NAME_TRUMP and state.turn == 3
    assert notations(state, 3)[0] == "pass"                    # no stick the dealer: the dealer may pass
    calls(state, "pass")
    assert state.phase == Phase.DEAL and state.dealer == 0 and state.turn == 0
    assert state.scores == [0, 0] and state.hand_no == 1 and not any(state.hands)
    [record] = state.records
    assert record.thrown_in and (record.trump, record.maker, record.points, record.totals) == (-1, -1, [0, 0], [0, 0])
    assert record.tricks == [0, 0, 0, 0] and record.side_tricks == [0, 0] and not record.euchred
    assert record.turn_up == "9H" and record.turned_down and record.kitty == "JD 10H 9S"
    act(state, 0, DEAL)                                        # the next deck deals the next hand
    assert state.hand_no == 2 and state.deck == second


def test_stick_the_dealer_the_dealer_may_not_pass_the_second_round():
    state = round1(EuchreOptions(stick_the_dealer=True))
    calls(state, *["pass"] * 7)
    assert notations(state, 3) == ["name C", "name-alone C", "name D", "name-alone D", "name S", "name-alone S"]
    rejects(state, 0, PASS, R.NOT_YOUR_TURN)                   # not your turn first
    rejects(state, 3, ORDER, R.WRONG_PHASE)                    # wrong phase before anything
    error = rejects(state, 3, PASS, E.DEALER_MUST_NAME)
    assert "dealer must name" in str(error)
    rejects(state, 3, "name H", E.SUIT_TURNED_DOWN)
    calls(state, "name D")
    assert state.maker == 3 and state.trump == DIAMONDS and state.phase == Phase.PLAY


def test_stick_the_dealer_leaves_the_first_round_as_it_is():
    state = round1(EuchreOptions(stick_the_dealer=True))
    calls(state, "pass", "pass", "pass")
    assert notations(state, 3) == ["order", "order-alone", "pass"]


# ---- the maker, going alone ----------------------------------------------------------------

def test_the_seat_that_orders_is_the_maker_and_its_partnership_the_makers():
    state = named("three")
    assert state.maker == 0 and state.trump == HEARTS
    greedy(state)
    assert state.records[-1].points == [1, 0] and state.scores == [1, 0]
    hands, turnup, kitty = SCRIPTS["three"]
    other = eu(2, {(s + 3) % 4: h for s, h in hands.items()}, turnup, kitty)   # the same hand, one seat on
    calls(other, "pass", "pass", "pass", "pass", "name H")
    assert other.maker == 3
    greedy(other)
    assert other.records[-1].points == [0, 1] and other.records[-1].side_tricks == [2, 3]


def test_order_alone_sits_the_partner_out_face_down():
    state = round1()
    calls(state, "order alone")                               # said as in the rules
    assert state.maker == 0 and state.alone and sitting_out(state) == [2]
    assert state.phase == Phase.DEALER_DISCARD and state.turn == 3
    act(state, 3, "exchange 10S")
    assert state.phase == Phase.PLAY and state.turn == 0
    for seat in (None, 0, 1, 3):
        v = engine.view(state, seat)
        assert v.rules.alone and v.rules.sitting_out == [2] and v.seats[2].rules.sitting_out
        assert v.seats[2].card_count == 5 and not v.seats[0].rules.sitting_out
        assert not set(private_cards(v)) & set(card_list(state.hands[2]))          # its cards face down
    assert engine.view(state, 2).hand == card_list(state.hands[2])               # it knows what it holds
    assert engine.view(state, 1).seats[0].last_call == "order-alone"
    tricks(state, "JH 10C 9H")                                 # three cards make a trick
    assert state.tricks == [1, 0, 0, 0] and state.turn == 0 and not state.played[2]
    rejects(state, 2, play(C("JS")), R.NOT_YOUR_TURN)
    assert engine.legal_actions(state, 2) == []


def test_name_hearts_alone():
    state = named("four", alone=True)
    assert state.alone and sitting_out(state) == [2] and state.calls[0] == name_suit(HEARTS, alone=True)
    assert engine.view(state, 3).seats[0].last_call == "name-alone H"
    greedy(state)
    assert state.records[-1].alone and state.records[-1].sitting_out == [2]


def test_the_dealers_partner_alone_sits_the_dealer_out_and_the_turn_up_stays_in_the_kitty():
    state = round1()
    calls(state, "pass", "order-alone")                        # seat 1, the dealer's partner
    assert state.maker == 1 and sitting_out(state) == [3]
    assert state.phase == Phase.PLAY and state.turn == 0       # no discard: play at once
    assert state.hands[3] == cs(ROUND1[3]) and not state.taken and state.dealer_discard == -1
    assert not any(h >> C("9H") & 1 for h in state.hands)
    assert engine.view(state, 3).rules.dealer_discard is None and not engine.view(state, 0).rules.turn_up_taken
    greedy(state)
    record = state.records[-1]
    assert record.dealer_discard == "" and record.sitting_out == [3] and sum(record.tricks) == 5
    assert record.tricks[3] == 0


def test_the_dealer_may_order_alone_picking_up_and_discarding_while_its_partner_sits_out():
    state = round1()
    calls(state, "pass", "pass", "pass", "order alone")
    assert state.maker == 3 and state.alone and sitting_out(state) == [1]
    assert state.phase == Phase.DEALER_DISCARD and state.hands[3] >> C("9H") & 1
    act(state, 3, "exchange 9D")
    assert state.phase == Phase.PLAY and state.turn == 0
    greedy(state)
    assert state.records[-1].dealer_discard == "9D" and state.records[-1].tricks[1] == 0


def test_when_the_seat_left_of_the_dealer_sits_out_the_next_seat_leads():
    state = round1()
    calls(state, "pass", "pass", "order-alone")               # seat 2 alone: seat 0 sits out
    act(state, 3, "exchange 10S")
    assert sitting_out(state) == [0] and state.phase == Phase.PLAY and state.turn == 1
    assert engine.view(state, 2).trick_leader == 1


def test_going_alone_is_written_as_one_word_and_read_as_it_is_said():
    words = engine.game_of("euchre").vocabulary
    for said, written in [("order alone", "order-alone"), ("Order Alone", "order-alone"),
                          ("name hearts alone", "name-alone H"), ("name H alone", "name-alone H"),
                          ("defend alone", "defend-alone"), ("name-alone s", "name-alone S")]:
        assert words.name(engine.parse_notation("euchre", said)) == written
    assert engine.parse_notation("euchre", "order") == ORDER and engine.parse_notation("euchre", "pass") == PASS
    assert engine.parse_notation("euchre", "defend-alone") == DEFEND_ALONE
    assert engine.parse_notation("euchre", "exchange 9c") == discard(1 << C("9C"))
    for bad in ("name alone", "order twice", "alone", "order alone now"):
        with pytest.raises(ValueError):
            engine.parse_notation("euchre", bad)


# ---- defending alone ----------------------------------------------------------------------------

def test_defend_alone_is_off_by_default_and_against_a_maker_who_does_not_go_alone():
    state = round1()
    calls(state, "order alone")
    act(state, 3, "exchange 10S")
    assert state.phase == Phase.PLAY
    rejects(state, 1, DEFEND_ALONE, R.WRONG_PHASE)
    state = round1(EuchreOptions(defend_alone=True))
    calls(state, "order")
    act(state, 3, "exchange 10S")
    assert state.phase == Phase.PLAY and sitting_out(state) == []


def test_defend_alone_round_comes_after_the_discard_from_the_makers_left():
    state = round1(EuchreOptions(defend_alone=True))
    calls(state, "order-alone")                               # seat 0 alone, seat 2 out
    assert state.phase == Phase.DEALER_DISCARD
    act(state, 3, "exchange 10S")
    assert state.phase == Phase.DEFEND_ALONE and state.turn == 1      # the maker's left
    assert notations(state, 1) == ["defend-alone", "pass"]
    rejects(state, 3, DEFEND_ALONE, R.NOT_YOUR_TURN)
    rejects(state, 1, ORDER, R.WRONG_PHASE)
    calls(state, "pass")
    assert state.turn == 3
    calls(state, "defend alone")                              # the dealer: its partner, seat 1, sits out
    assert state.defender == 3 and sitting_out(state) == [1, 2]
    assert state.phase == Phase.PLAY and state.turn == 0
    assert engine.view(state, None).rules.defender_alone == 3
    tricks(state, "JH 9H")                                     # two cards make a trick
    assert state.tricks == [1, 0, 0, 0]


def test_the_first_defender_to_defend_alone_ends_the_round():
    state = round1(EuchreOptions(defend_alone=True))
    calls(state, "pass", "pass", "order-alone")               # seat 2 alone, seat 0 out
    act(state, 3, "exchange 10S")
    assert state.phase == Phase.DEFEND_ALONE and state.turn == 3
    calls(state, "defend-alone")
    assert state.phase == Phase.PLAY and sitting_out(state) == [0, 1] and state.turn == 2
    assert engine.legal_actions(state, 1) == []


def test_a_dealer_who_discarded_and_then_sits_out_keeps_its_five_cards_face_down():
    state = round1(EuchreOptions(defend_alone=True))
    calls(state, "order-alone")
    act(state, 3, "exchange 10S")
    calls(state, "defend-alone")                              # seat 1 defends alone: the dealer sits out
    assert sitting_out(state) == [2, 3] and state.hands[3] == cs("9D QD KD AD 9H")
    assert engine.view(state, 3).hand == card_list(cs("9D QD KD AD 9H"))
    for seat in (None, 0, 1, 2):
        v = engine.view(state, seat)
        assert v.seats[3].card_count == 5 and v.seats[3].rules.sitting_out
        assert not set(private_cards(v)) & set(card_list(state.hands[3]))
    greedy(state)
    assert state.records[-1].defender_alone == 1 and state.records[-1].dealer_discard == "10S"


# ---- play ---------------------------------------------------------------------------------------

def test_follow_suit_or_play_any_card_the_trick_winner_leads_next():
    state = named("three")
    rejects(state, 0, play(C("QD")), R.CARD_NOT_IN_HAND)
    rejects(state, 1, play(C("10C")), R.NOT_YOUR_TURN)
    tricks(state, "JH 10C 9H 9D")
    assert state.turn == 0 and state.tricks == [1, 0, 0, 0]
    tricks(state, "10D JC JS")                                 # seats 1 and 2 hold no diamond: any card
    rejects(state, 3, play(C("10S")), R.MUST_FOLLOW_SUIT)     # seat 3 holds diamonds
    tricks(state, "QD")
    assert state.turn == 3 and state.tricks == [1, 0, 0, 1]   # the highest diamond wins and leads


# ---- scoring and winning ------------------------------------------------------------------------

def test_the_points_of_a_hand():
    for tricks_won in range(6):
        for alone in (False, True):
            for defended in (False, True):
                made, defenders = hand_points(tricks_won, alone, defended)
                if tricks_won == 5:
                    assert (made, defenders) == (4 if alone else 2, 0)
                elif tricks_won >= 3:
                    assert (made, defenders) == (1, 0)
                else:
                    assert (made, defenders) == (0, 4 if defended else 2)


@pytest.mark.parametrize("script,alone,defend,side_tricks,points", [
    ("three", False, False, [3, 2], [1, 0]),      # 3 tricks: 1 point
    ("four", False, False, [4, 1], [1, 0]),       # 4 tricks: 1 point
    ("all", False, False, [5, 0], [2, 0]),        # all 5: 2 points
    ("all", True, False, [5, 0], [4, 0]),         # all 5 alone: 4 points
    ("four", True, False, [4, 1], [1, 0]),        # 3 or 4 alone: 1 point
    ("three", True, False, [3, 2], [1, 0]),
    ("two", False, False, [2, 3], [0, 2]),        # euchred: the defenders 2
    ("one", True, False, [1, 4], [0, 2]),         # a lone maker euchred: still 2
    ("one", True, True, [1, 4], [0, 4]),          # euchred by a lone defender: 4
    ("all", True, True, [5, 0], [4, 0]),          # a lone sweep against a lone defender: 4
])
def test_scoring(script, alone, defend, side_tricks, points):
    state = named(script, alone, EuchreOptions(defend_alone=defend))
    if defend:
        assert state.phase == Phase.DEFEND_ALONE
        calls(state, "defend alone")
    greedy(state)
    record = state.records[-1]
    assert record.side_tricks == side_tricks and record.points == points and state.scores == points
    assert record.euchred == (side_tricks[0] < 3) and record.alone == alone
    assert record.defender_alone == (1 if defend else -1)
    assert record.sitting_out == ([2] if alone else []) + ([3] if defend else [])
    assert state.phase == Phase.DEAL and state.dealer == 0 and not state.winner


def test_the_hand_record_tells_maker_trump_alone_defender_tricks_and_points():
    state = named("one", alone=True, options=EuchreOptions(defend_alone=True))
    calls(state, "defend-alone")
    greedy(state)
    record = state.records[-1]
    assert (record.maker, record.trump, record.alone, record.defender_alone) == (0, HEARTS, True, 1)
    assert (record.side_tricks, record.points, record.totals, record.tricks) == ([1, 4], [0, 4], [0, 4], [1, 4, 0, 0])
    assert not record.thrown_in and record.turn_up == "9S" and record.kitty == "QH KH AH"
    again = type(record).from_dict(record.to_dict())
    assert again == record


def test_a_partnership_at_or_above_the_target_wins():
    state = named("all", options=EuchreOptions(target=2))
    greedy(state)
    assert state.winner == [0] and state.phase == Phase.GAME_OVER and state.scores == [2, 0]
    assert engine.view(state, None).winner_seats == [0, 2]
    rejects(state, 0, DEAL, R.WRONG_PHASE)
    rejects(state, 1, PASS, R.WRONG_PHASE)
    state = named("all", options=EuchreOptions(target=3))
    greedy(state)
    assert not state.winner and state.phase == Phase.DEAL


def test_the_defenders_reach_the_target_by_a_euchre():
    state = named("two", options=EuchreOptions(target=2))
    greedy(state)
    assert state.winner == [1] and state.scores == [0, 2]


# ---- the order of the reason codes --------------------------------------------------------------

def test_wrong_phase_first_then_not_your_turn_then_the_specific_one():
    state = round1()
    rejects(state, 2, "name S", R.WRONG_PHASE)                # a round-two word in round one, out of turn
    rejects(state, 2, "exchange 10H", R.WRONG_PHASE)
    rejects(state, 2, DEAL, R.WRONG_PHASE)
    rejects(state, 2, ORDER, R.NOT_YOUR_TURN)
    calls(state, "order")
    rejects(state, 0, "exchange 9H", R.NOT_YOUR_TURN)         # not the dealer: not its turn first
    rejects(state, 0, PASS, R.WRONG_PHASE)
    rejects(state, 3, play(C("9D")), R.WRONG_PHASE)
    state = round1()
    calls(state, *["pass"] * 4)
    rejects(state, 2, "name H", R.NOT_YOUR_TURN)              # turned down, but not its turn first
    rejects(state, 0, engine.action_of(EuchreCode.NAME, 9), R.INVALID_BID)    # no such suit


def test_euchres_own_reason_codes():
    assert {r.value for r in EuchreReason} == {"MUST_KEEP_TURN_UP", "DEALER_MUST_NAME", "SUIT_TURNED_DOWN"}
    assert engine.game_of("euchre").reasons is EuchreReason


# ---- options ---------------------------------------------------------------------------------------

def test_the_options_and_their_defaults():
    game = engine.game_of("euchre")
    assert [(s.name, s.default, s.kind) for s in game.settings] == [
        ("target", 10, "integer"), ("stick_the_dealer", False, "boolean"), ("defend_alone", False, "boolean")]
    options = EuchreOptions.from_settings("euchre", {"target": "5", "stick_the_dealer": "true"})
    assert options == EuchreOptions(target=5, stick_the_dealer=True, defend_alone=False)
    assert game.title == "Euchre" and engine.find_game("EUCHRE") is game and not game.low_score_wins


@pytest.mark.parametrize("options,words", [
    (EuchreOptions(target=0), "target must be an integer from 1 to 100"),
    (EuchreOptions(target=101), "target"),
    (EuchreOptions(target=True), "target"),
    (EuchreOptions(stick_the_dealer="yes"), "stick_the_dealer must be true or false"),
    (EuchreOptions(defend_alone=1), "defend_alone"),
])
def test_bad_options_are_refused(options, words):
    with pytest.raises(ValueError, match=words):
        engine.new_game("euchre", options, first_dealer=0)


def test_bad_settings_and_another_games_options_are_refused():
    with pytest.raises(ValueError, match="euchre has no setting 'starting_score'"):
        EuchreOptions.from_settings("euchre", {"starting_score": "5"})
    with pytest.raises(ValueError, match="target must be"):
        EuchreOptions.from_settings("euchre", {"target": "ten"})
    with pytest.raises(ValueError, match="defend_alone must be true or false"):
        EuchreOptions.from_settings("euchre", {"defend_alone": "maybe"})
    with pytest.raises(ValueError, match="takes EuchreOptions"):
        engine.new_game("euchre", BuckEuchreOptions(), first_dealer=0)


# ---- views and the determinize hooks through random hands --------------------------------------

PHASES_SEEN = {Phase.ORDER_UP, Phase.DEALER_DISCARD, Phase.NAME_TRUMP, Phase.DEFEND_ALONE, Phase.PLAY}


def random_positions(seed: int, hands: int, options: EuchreOptions):
    """Every state of a game of random legal play (passes and going alone often)."""
    rng = random.Random(seed)
    state = engine.new_game("euchre", options, rng, first_dealer=seed % 4)
    while state.phase != Phase.GAME_OVER and state.hand_no <= hands:
        yield state
        legal = engine.legal_actions(state, state.turn)
        lone = [a for a in legal if engine.kind_of(a) in (EuchreCode.ORDER_ALONE, EuchreCode.NAME_ALONE)]
        roll = rng.random()
        if PASS in legal and roll < 0.5:
            action = PASS
        elif lone and roll < 0.8:
            action = rng.choice(lone)
        else:
            action = legal[rng.randrange(len(legal))]
        engine.apply(state, state.turn, action, rng)
    yield state


OPTIONS_TRIED = [EuchreOptions(), EuchreOptions(defend_alone=True), EuchreOptions(stick_the_dealer=True, target=5),
                 EuchreOptions(defend_alone=True, stick_the_dealer=True)]


def test_views_show_no_hidden_card_the_kitty_never_and_the_discard_to_the_dealer_alone():
    phases = set()
    for seed, options in enumerate(OPTIONS_TRIED * 2):
        for state in random_positions(seed, 4, options):
            check_views(state)
            phases.add(state.phase)
            if state.phase in (Phase.DEAL, Phase.GAME_OVER):
                continue
            for seat in (None, 0, 1, 2, 3):
                v = engine.view(state, seat)
                shown = set(private_cards(v)) | {c for _, c in v.trick} | {c for _, c in v.last_trick}
                assert not shown & set(card_list(state.kitty))
                assert v.rules.turn_up == state.turnup
                assert v.rules.sitting_out == sitting_out(state)
                assert [info.rules.sitting_out for info in v.seats] == [s in sitting_out(state) for s in range(4)]
                if state.dealer_discard != -1 and seat != state.dealer:
                    assert v.rules.dealer_discard is None and state.dealer_discard not in shown
                if seat is not None:                         # a seat sitting out knows its cards too
                    assert v.hand == card_list(state.hands[seat])
    assert phases >= PHASES_SEEN


def test_states_built_from_a_view_show_that_view_in_every_phase():
    rng = random.Random(5)
    checked = set()
    for seed, options in enumerate(OPTIONS_TRIED):
        for state in random_positions(seed + 10, 3, options):
            for seat in range(4):
                view = engine.view(state, seat)
                hidden = engine.hidden(view)
                assert sum(p.size for p in hidden.places) == hidden.cards.bit_count()
                for place in hidden.places:                    # every place may hold what it really holds
                    if place.what == "hand":
                        real = state.hands[place.seat] & hidden.cards
                        assert real & ~place.allowed == 0 and real.bit_count() == place.size
                    elif place.what == "kitty":
                        assert state.kitty & ~place.allowed == 0
                for _ in range(2):
                    world = engine.determinize(view, sample_fills(hidden, rng))
                    assert engine.view(world, seat) == view
                checked.add(state.phase)
    assert checked >= PHASES_SEEN


# ---- whole games of random legal play under random options ----------------------------------------

def check_invariants(state, start_scores: list[int]) -> None:
    """Every card in one place; who sits out and who plays; the points of every hand; the winner."""
    assert state.scores == [start_scores[side] + sum(r.points[side] for r in state.records) for side in (0, 1)]
    for r in state.records:
        makers = r.maker % 2
        if r.thrown_in:
            assert r.points == [0, 0] and r.maker == -1 and sum(r.tricks) == 0 and r.turned_down
        else:
            made, defended = hand_points(r.side_tricks[makers], r.alone, r.defender_alone != -1)
            assert r.points[makers] == made and r.points[1 - makers] == defended and sum(r.tricks) == 5
            assert all(r.tricks[s] == 0 for s in r.sitting_out)
    if state.phase == Phase.GAME_OVER:
        (w,) = state.winner
        assert state.scores[w] >= state.options.target > state.scores[1 - w]
        return
    assert not state.winner
    if state.phase == Phase.DEAL:
        assert not any(state.hands) and state.turn == state.dealer
        return
    places = [*state.hands, *state.played, state.kitty]
    if state.dealer_discard != -1:
        places.append(1 << state.dealer_discard)
        assert state.dealer_discard != state.turnup and state.taken
    if not state.taken:
        places.append(1 << state.turnup)
    union = 0
    for p in places:
        assert not union & p, "a card is in two places"
        union |= p
    assert union == EUCHRE_DECK
    out = sitting_out(state)
    assert len(out) == state.alone + (state.defender != NOBODY) and all(partner(s) not in out for s in out)
    for s in out:
        assert state.hands[s].bit_count() == 5 and not state.played[s] and s not in state.trick_seats
        assert s == partner(state.maker) or state.defender != NOBODY and s == partner(state.defender)
    if state.taken:
        assert state.dealer not in out or state.defender != NOBODY
        assert (state.hands[state.dealer] | state.played[state.dealer]) >> state.turnup & 1
    movers = [s for s in range(4) if engine.legal_actions(state, s)]
    assert movers == [state.turn] and state.turn not in out
    if state.phase == Phase.PLAY:
        assert len(state.trick_cards) < 4 - len(out)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), dealer=st.integers(0, 3),
       options=st.builds(EuchreOptions, target=st.sampled_from([3, 5, 10]), stick_the_dealer=st.booleans(),
                         defend_alone=st.booleans()),
       pass_share=st.sampled_from([0.2, 0.5, 0.8]), alone_share=st.sampled_from([0.0, 0.3, 0.7]))
def test_random_legal_play_keeps_every_invariant_and_the_log_replays_the_game(seed, dealer, options, pass_share,
                                                                           alone_share):
    rng = random.Random(seed)
    state = engine.new_game("euchre", options, rng, first_dealer=dealer)
    start_scores = state.scores[:]
    log: list[engine.LogEntry] = []
    while state.phase != Phase.GAME_OVER:
        assert len(log) < 20000, "the game did not end"
        seat = state.turn
        legal = engine.legal_actions(state, seat)
        lone = [a for a in legal if engine.kind_of(a) in (EuchreCode.ORDER_ALONE, EuchreCode.NAME_ALONE,
                                                           EuchreCode.DEFEND_ALONE)]
        if PASS in legal and rng.random() < pass_share:
            action = PASS
        elif lone and rng.random() < alone_share:
            action = rng.choice(lone)
        else:
            action = legal[rng.randrange(len(legal))]
        before = state.to_bytes()
        wrong = (seat + 1 + rng.randrange(3)) % 4                 # the same action by another seat is refused
        with pytest.raises(engine.IllegalAction):
            engine.apply(state, wrong, action, rng)
        assert state.to_bytes() == before
        log.append(engine.LogEntry(seat, action, engine.apply(state, seat, action, rng)))
        check_invariants(state, start_scores)
    assert engine.replay("euchre", options, dealer, log) == state
    again = engine.state_from_bytes(state.to_bytes())
    assert again == state and again.to_bytes() == state.to_bytes()
    assert all(engine.legal_actions(state, s) == [] for s in range(4))
    assert dataclasses.asdict(state.records[-1]) == state.records[-1].to_dict()
