"""Cutthroat Spades (RULES.md §5), sentence by sentence: three players each alone, the 2♣ out (51
cards, 17 each), bids 0..17, Nil and Double Nil without an exchange, each player scored alone,
bidding and the first lead left of the dealer, the deal passing left, the end of the game at the
target (or the losing score) with the highest total winning and a tie for it playing on; its
options (Double Nil only when trailing the highest of the other two, the losing score) and the
options it refuses; hands withheld until looked at, Double Nil bid in turn by a seat that has not
looked; views, hand records and reason codes as four-player Spades'."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from cutthroat_script import script
from engine_helpers import act, bid_round, cl, deal, new, play_script, rejects, round_robin_deck

import engine
from bots.sampling import sample_fills
from engine import LogEntry, Reason, SpadesOptions
from engine.core.cards import SPADES, SUIT_MASKS
from engine.core.hidden import mask, public_cards
from engine.games import cutthroat_spades
from engine.games.cutthroat_spades import DECK, NAME, CutthroatState
from engine.games.spades_scoring import DOUBLE_NIL_BID
from engine.games.spades_state import SpadesHandRecord, SpadesReason, SpadesRules, SpadesSeat
from engine.games.spades_words import DOUBLE_NIL, REVEAL, SpadesCode
from engine.games.spades_words import SpadesPhase as Phase

R, S = Reason, SpadesReason
SPADE_MASK = SUIT_MASKS[SPADES]
TARGET_AND_ALL = ("target_score", "bag_limit", "bag_penalty", "nil_value", "double_nil_value", "double_nil_allowed",
                  "blind_nil_when_behind", "losing_score")


# ---- scripted hands: each player wins exactly the tricks asked (cutthroat_script) ----------------------

def cutthroat_game(hands_spec: Sequence[tuple[Sequence[int | str], Sequence[int]]], dealer: int = 0,
                   options: SpadesOptions | None = None, totals: Sequence[int] | None = None) -> CutthroatState:
    """Play whole Cutthroat hands, each (bids per seat, tricks won per seat), from ``totals``."""
    decks, scripts = [], []
    for h, (_bids, counts) in enumerate(hands_spec):
        hands, tricks = script(counts)
        decks.append(round_robin_deck(hands, (dealer + h) % 3))
        scripts.append(tricks)
    state = new(NAME, decks, dealer, options)
    if totals is not None:
        state.scores = list(totals)
    for h, (bids, counts) in enumerate(hands_spec):
        deal(state)
        bid_round(state, bids)
        assert state.phase == Phase.PLAY, state.phase
        play_script(state, scripts[h])
        assert state.records[-1].tricks == list(counts)
    return state


def dealt(dealer: int = 0, options: SpadesOptions | None = None, totals: Sequence[int] | None = None,
          counts: Sequence[int] = (6, 6, 5)) -> CutthroatState:
    """A hand of the script dealt by ``dealer``, the totals standing at ``totals``."""
    hands, _ = script(counts)
    state = new(NAME, [round_robin_deck(hands, dealer)], dealer, options)
    if totals is not None:
        state.scores = list(totals)
    deal(state)
    return state


def record(state) -> SpadesHandRecord:
    return state.records[-1]


# ---- "As four-player Spades (§1), with these differences." ----------------------------------------------

PLAY_HANDS = {0: "AC 3S 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD 3H 4H",
              1: "KC 4S 5S 6S 7S 8S 2H 5H 6H 7H 8H 9H 10H JH QH KH AH",
              2: "3C 4C 5C 6C 7C 8C 9C 10C JC QC 2S 9S 10S JS QS KS AS"}
"""Dealt by seat 2: seat 0 leads, holding one club, one spade, the diamonds and two hearts."""


def test_trick_play_is_four_player_spades():
    """Follow suit (MUST_FOLLOW_SUIT); no spade led before spades are broken unless only spades are
    held (SPADES_NOT_BROKEN); the highest spade, else the highest of the suit led, wins and leads."""
    hands = [cl(PLAY_HANDS[s]) for s in range(3)]
    state = new(NAME, [round_robin_deck(hands, 2)], dealer=2)
    deal(state)
    bid_round(state, (3, 3, 3))
    assert state.turn == 0                                    # left of the dealer leads the first trick
    rejects(state, 0, "play 3S", S.SPADES_NOT_BROKEN)         # seat 0 holds other suits
    act(state, 0, "play AC")
    rejects(state, 2, "play 3C", R.NOT_YOUR_TURN)
    rejects(state, 1, "play 4S", R.MUST_FOLLOW_SUIT)          # it holds the KC
    act(state, 1, "play KC")
    act(state, 2, "play 3C")
    assert state.tricks == [1, 0, 0] and state.turn == 0       # the highest of the suit led wins and leads
    act(state, 0, "play 3H")
    act(state, 1, "play 5H")
    act(state, 2, "play 2S")                                  # void in hearts: the lowest spade trumps
    assert state.tricks == [1, 0, 1] and state.turn == 2 and state.broken
    assert engine.view(state, 0).seats[2].void_suits == (2,)
    act(state, 2, "play AS")                                  # spades broken: led
    act(state, 0, "play 3S")
    act(state, 1, "play 8S")
    assert state.tricks == [1, 0, 2] and state.turn == 2


def test_spades_are_led_unbroken_only_from_a_hand_of_nothing_but_spades():
    hands, tricks = script((4, 4, 9))                         # seat 2 wins trick 12 and holds only spades
    state = new(NAME, [round_robin_deck(hands, 0)], dealer=0)
    deal(state)
    bid_round(state, (4, 4, 9))
    play_script(state, tricks[:12])
    assert not state.broken and state.turn == 2 and not state.hands[2] & ~SPADE_MASK
    act(state, 2, engine.play(tricks[12][2]))
    assert state.broken and engine.view(state, 0).seats[2].void_suits == (0, 1, 2)
    play_script(state, [{s: c for s, c in tricks[12].items() if s != 2}] + tricks[13:])
    assert record(state).tricks == [4, 4, 9] and record(state).points == [40, 40, 90]


# ---- "The 2♣ leaves the deck (51 cards, 17 each)." -----------------------------------------------------

def test_the_two_of_clubs_leaves_the_deck_and_each_player_gets_17_cards():
    game = engine.game_of(NAME)
    assert len(game.cards) == 51 and engine.parse_card("2C") not in game.cards
    assert (game.seats, game.title, game.seat_counts) == (3, "Cutthroat Spades", (3,))
    for seed in range(5):
        state = new(NAME, dealer=seed % 3, seed=seed)
        chance = deal(state, seed)
        assert sorted(chance.cards) == sorted(DECK) and len(chance.cards) == 51
        assert [hand.bit_count() for hand in state.hands] == [17, 17, 17]
        assert state.hands[0] | state.hands[1] | state.hands[2] == game.deck_mask
        assert engine.replay(NAME, state.options, seed % 3, [LogEntry(seed % 3, engine.DEAL, chance)]) == state


def test_a_prearranged_deck_is_the_51_cards():
    deck = random.Random(1).sample(DECK, 51)
    state = new(NAME, [deck], dealer=0)
    deal(state)
    assert state.deck == deck
    assert state.hands[1] >> deck[0] & 1 and state.hands[2] >> deck[1] & 1 and state.hands[0] >> deck[2] & 1
    with pytest.raises(ValueError, match="2C is not a card of cutthroat_spades"):
        new(NAME, [deck[:-1] + [engine.parse_card("2C")]])
    with pytest.raises(ValueError, match="1 cards are missing"):
        new(NAME, [deck[:-1]])
    with pytest.raises(ValueError, match="2C is not a card of cutthroat_spades"):
        new(NAME, [list(range(52))])


def test_the_two_of_clubs_is_no_card_in_hand():
    state = dealt()
    bid_round(state, (3, 3, 3))
    refused = rejects(state, state.turn, "play 2C", R.CARD_NOT_IN_HAND)
    assert refused.message == "2C is not a card of this table's deck"
    with pytest.raises(ValueError, match="not a card"):        # no jokers in Cutthroat Spades
        engine.parse_notation(NAME, "play BJ")


# ---- "Each player scores alone (contract = own bid, bags per player), as in two-player Spades." ---------

def test_each_player_scores_alone_against_its_own_bid():
    state = cutthroat_game([((5, 4, 6), (7, 4, 6))], dealer=0)
    hand = record(state)
    assert [s.seats for s in hand.sides] == [[0], [1], [2]] and [s.contract for s in hand.sides] == [5, 4, 6]
    assert hand.points == [52, 40, 60] and state.scores == [52, 40, 60] and state.bags == [2, 0, 0]
    assert [s.bags_gained for s in hand.sides] == [2, 0, 0]


def test_a_failed_contract_loses_ten_a_trick_bid():
    state = cutthroat_game([((8, 4, 2), (5, 5, 7))], dealer=2)
    hand = record(state)
    assert hand.points == [-80, 41, 25] and [s.contract_points for s in hand.sides] == [-80, 40, 20]
    assert state.bags == [0, 1, 5]


def test_bags_accumulate_per_player_and_each_pays_its_own_penalty():
    options = SpadesOptions(bag_limit=5, bag_penalty=50)
    state = cutthroat_game([((1, 5, 5), (5, 5, 7)), ((1, 4, 4), (3, 7, 7))], dealer=0, options=options)
    first, second = state.records
    assert first.points == [14, 50, 52] and [s.bags_after for s in first.sides] == [4, 0, 2]
    assert [s.bag_penalty for s in second.sides] == [-50, 0, -50]
    assert [s.bags_after for s in second.sides] == [1, 3, 0] and second.points == [12 - 50, 43, 43 - 50]
    assert state.scores == [14 + 12 - 50, 50 + 43, 52 + 43 - 50] and state.bags == [1, 3, 0]


# ---- "Bids are 0..17; Nil ±100 and Double Nil ±200 as in §1, but there is no exchange." -----------------

@pytest.mark.parametrize("options", [SpadesOptions(), SpadesOptions(blind_nil_when_behind=50)],
                         ids=["plain", "with-a-table-setting"])
def test_bids_run_from_nil_to_seventeen(options):
    state = dealt(options=options)
    seat = state.turn
    numbers = [engine.payload_of(a) for a in engine.legal_actions(state, seat) if engine.kind_of(a) == SpadesCode.BID]
    assert numbers == list(range(18))
    refused = rejects(state, seat, "bid 18", R.INVALID_BID)
    assert refused.message == "a bid is 0 (Nil) to 17 tricks, not 18"
    act(state, seat, "bid 17")
    assert state.bids[seat] == 17 and engine.view(state, 0).seats[seat].bid == 17


def test_nil_made_and_failed_each_a_hundred_and_a_failed_nils_tricks_are_bags():
    state = cutthroat_game([((0, 0, 6), (0, 2, 15))], dealer=1)
    hand = record(state)
    assert [n.result for s in hand.sides for n in s.nils] == ["made", "failed", "none"]
    assert hand.points == [100, -100 + 2, 60 + 9] and state.bags == [0, 2, 9]
    assert [s.contract for s in hand.sides] == [0, 0, 6]


def test_double_nil_made_and_failed_two_hundred_and_no_exchange():
    """Double Nil goes straight from the bidding to play: nobody has a partner to exchange with."""
    hands, tricks = script((0, 2, 15))
    state = new(NAME, [round_robin_deck(hands, 2)], dealer=2)
    deal(state)
    act(state, 0, DOUBLE_NIL)
    assert engine.view(state, 0).hand is None                 # a Double Nil bidder sees its hand when the bidding ends
    act(state, 1, DOUBLE_NIL)
    act(state, 2, "bid 10")
    assert state.phase == Phase.PLAY and state.turn == 0 and not state.xneed
    assert len(engine.view(state, 0).hand or []) == 17 and engine.view(state, 0).exchange is None
    play_script(state, tricks)
    hand = record(state)
    assert hand.bids == [DOUBLE_NIL_BID, DOUBLE_NIL_BID, 10] and hand.exchanges == []
    assert [n.double for s in hand.sides for n in s.nils] == [True, True, False]
    assert hand.points == [200, -200 + 2, 100 + 5] and state.bags == [0, 2, 5]
    with pytest.raises(ValueError, match="not an action of cutthroat_spades"):
        engine.parse_notation(NAME, "exchange 3C 4C 5C")


def test_the_nil_and_double_nil_values_are_options():
    hands, tricks = script((0, 0, 17))
    options = SpadesOptions(nil_value=50, double_nil_value=300)
    state = new(NAME, [round_robin_deck(hands, 2)], dealer=2, options=options)
    deal(state)
    act(state, 0, DOUBLE_NIL)
    act(state, 1, "bid 0")
    act(state, 2, "bid 16")
    play_script(state, tricks)
    assert record(state).points == [300, 50, 161]


# ---- "Bidding starts left of the dealer, who deals 17 each; the player left of the dealer leads the ----
# ---- first trick; the deal passes to the left."                                                     ----

@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_bidding_and_the_first_lead_start_left_of_the_dealer_and_the_deal_passes_left(dealer):
    state = new(NAME, dealer=dealer, seed=dealer)
    assert state.turn == dealer and engine.legal_actions(state, dealer) == [engine.DEAL]
    rejects(state, (dealer + 1) % 3, engine.DEAL, R.NOT_YOUR_TURN)
    deal(state)
    first = (dealer + 1) % 3
    assert state.phase == Phase.BID and state.turn == first
    rejects(state, (dealer + 2) % 3, "bid 3", R.NOT_YOUR_TURN)
    bid_round(state, {0: 4, 1: 4, 2: 4})
    assert state.phase == Phase.PLAY and state.turn == first and engine.view(state, 0).trick_leader == first
    while state.phase == Phase.PLAY:
        act(state, state.turn, engine.legal_actions(state, state.turn)[0])
    assert state.phase == Phase.DEAL and state.dealer == first and state.turn == first


# ---- "Winning: after a hand in which a player reached the target, the highest total wins; equal -------
# ---- highest totals play another hand."                                                           -------

def test_a_player_reaching_the_target_wins():
    state = cutthroat_game([((5, 4, 4), (5, 5, 7))], dealer=0, options=SpadesOptions(target_score=150),
                           totals=(100, 60, 0))
    assert state.scores == [150, 101, 43] and state.winner == [0] and state.phase == engine.Phase.GAME_OVER
    assert engine.view(state, None).winner_seats == [0]


def test_when_two_reach_the_target_the_highest_wins_not_the_first_to_reach_it():
    state = cutthroat_game([((5, 6, 3), (5, 7, 5))], dealer=0, options=SpadesOptions(target_score=150),
                           totals=(145, 100, 0))
    assert state.scores == [195, 161, 32] and state.winner == [0]
    state = cutthroat_game([((5, 6, 3), (5, 7, 5))], dealer=0, options=SpadesOptions(target_score=150),
                           totals=(110, 140, 0))
    assert state.scores == [160, 201, 32] and state.winner == [1]


def test_equal_highest_totals_at_the_target_play_another_hand():
    state = cutthroat_game([((5, 5, 4), (5, 5, 7))], dealer=0, options=SpadesOptions(target_score=150),
                           totals=(100, 100, 0))
    assert state.scores == [150, 150, 43] and state.winner == [] and state.phase == Phase.DEAL
    assert state.dealer == 1
    state = cutthroat_game([((5, 5, 4), (5, 5, 7)), ((5, 4, 4), (5, 5, 7))], dealer=0,
                           options=SpadesOptions(target_score=150), totals=(100, 100, 0))
    assert state.scores == [200, 191, 86] and state.winner == [0]


def test_the_target_is_an_option_and_a_lower_total_does_not_end_the_game():
    state = cutthroat_game([((5, 4, 4), (5, 5, 7))], dealer=0, options=SpadesOptions(target_score=200),
                           totals=(100, 60, 0))
    assert state.scores == [150, 101, 43] and state.winner == [] and state.phase == Phase.DEAL


# ---- losing_score: "the game ends when a player falls to it; highest wins" ------------------------------

def test_a_player_falling_to_the_losing_score_ends_the_game_and_the_highest_wins():
    options = SpadesOptions(losing_score=200)
    state = cutthroat_game([((8, 4, 3), (5, 5, 7))], dealer=0, options=options, totals=(-130, 20, 10))
    assert state.scores == [-210, 61, 44] and state.winner == [1] and state.phase == engine.Phase.GAME_OVER
    assert record(state).losing_sides == [0]
    assert max(state.scores) < options.target_score            # the highest wins even far below the target


def test_at_the_losing_score_equal_highest_play_on_and_without_it_the_game_goes_on():
    options = SpadesOptions(losing_score=200)
    state = cutthroat_game([((8, 4, 4), (5, 5, 7))], dealer=0, options=options, totals=(-130, 20, 18))
    assert state.scores == [-210, 61, 61] and state.winner == [] and state.phase == Phase.DEAL
    assert record(state).losing_sides == [0]
    state = cutthroat_game([((8, 4, 3), (5, 5, 7))], dealer=0, totals=(-130, 20, 10))
    assert state.scores == [-210, 61, 44] and state.winner == [] and record(state).losing_sides == []
    state = cutthroat_game([((8, 4, 3), (5, 5, 7))], dealer=0, options=options, totals=(-110, 20, 10))
    assert state.scores == [-190, 61, 44] and state.winner == []   # above minus the losing score: on


# ---- blind_nil_when_behind: "the player trails the highest of the other two by at least N" ------------

def test_double_nil_only_for_a_player_trailing_the_highest_of_the_other_two():
    """Totals 0, 100, 300 and N = 150: seat 1 trails the highest (300) by 200, so it may, though it
    leads seat 0 and trails the others' mean (150) by only 50; seat 0 trails by 300; seat 2 leads."""
    state = dealt(dealer=2, options=SpadesOptions(blind_nil_when_behind=150), totals=(0, 100, 300))
    assert [engine.view(state, s).hand is None for s in range(3)] == [True, True, False]   # seat 2: from the deal
    assert REVEAL not in engine.legal_actions(state, 2) and REVEAL in engine.legal_actions(state, 1)
    assert DOUBLE_NIL in engine.legal_actions(state, 0)
    act(state, 0, "bid 4")
    assert DOUBLE_NIL in engine.legal_actions(state, 1)
    act(state, 1, DOUBLE_NIL)
    assert DOUBLE_NIL not in engine.legal_actions(state, 2)
    refused = rejects(state, 2, DOUBLE_NIL, S.BLIND_NIL_NOT_BEHIND)   # not behind comes before having looked
    assert refused.message == ("Double Nil is allowed only to a player trailing the highest of the others by at "
                               "least 150 points at the start of the hand: you lead by 200")
    act(state, 2, "bid 6")
    assert state.phase == Phase.PLAY and state.bids == [4, DOUBLE_NIL_BID, 6]


def test_trailing_by_exactly_n_is_enough_and_a_tie_never_is():
    state = dealt(dealer=2, options=SpadesOptions(blind_nil_when_behind=100), totals=(50, 150, 150))
    assert DOUBLE_NIL in engine.legal_actions(state, 0)              # trails 150 by exactly 100
    act(state, 0, "bid 3")
    assert engine.view(state, 1).hand is not None                    # level with the highest: from the deal
    refused = rejects(state, 1, DOUBLE_NIL, S.BLIND_NIL_NOT_BEHIND)
    assert refused.message.endswith("you are level")
    state = dealt(dealer=2, options=SpadesOptions(blind_nil_when_behind=100), totals=(51, 150, 0))
    refused = rejects(state, 0, DOUBLE_NIL, S.BLIND_NIL_NOT_BEHIND)  # trails the highest by 99
    assert refused.message.endswith("you trail by 99")


def test_double_nil_switched_off_is_invalid_before_not_behind():
    state = dealt(dealer=2, options=SpadesOptions(double_nil_allowed=False, blind_nil_when_behind=100),
                  totals=(0, 0, 500))
    rejects(state, 0, DOUBLE_NIL, R.INVALID_BID)


# ---- Decision: hands withheld until looked at; Double Nil in turn by a seat that has not looked; -------
# ---- a seat that may not declare it sees its hand from the deal                                   -------

def test_hands_are_withheld_until_looked_at_and_double_nil_is_bid_blind_in_turn():
    state = dealt(dealer=0)
    assert all(engine.view(state, s).hand is None for s in range(3))
    assert [REVEAL in engine.legal_actions(state, s) for s in range(3)] == [True, True, True]
    assert DOUBLE_NIL in engine.legal_actions(state, 1) and DOUBLE_NIL not in engine.legal_actions(state, 2)
    rejects(state, 2, DOUBLE_NIL, R.NOT_YOUR_TURN)
    act(state, 2, REVEAL)                                             # looking out of turn
    assert len(engine.view(state, 2).hand or []) == 17 and engine.view(state, 0).hand is None
    rejects(state, 2, REVEAL, R.WRONG_PHASE)                          # it sees its hand already
    act(state, 1, "bid 5")                                            # a number without looking shows the hand
    assert len(engine.view(state, 1).hand or []) == 17
    refused = rejects(state, 2, DOUBLE_NIL, S.BLIND_NIL_AFTER_LOOKING)
    assert refused.message == "seat 2 has seen its cards"
    assert DOUBLE_NIL not in engine.legal_actions(state, 2)
    act(state, 2, "bid 5")
    assert REVEAL in engine.legal_actions(state, 0)
    act(state, 0, DOUBLE_NIL)
    assert state.phase == Phase.PLAY and len(engine.view(state, 0).hand or []) == 17
    assert [info.rules for info in engine.view(state, 1).seats] == [SpadesSeat(True, True, False),
                                                                    SpadesSeat(False, True, False),
                                                                    SpadesSeat(False, True, False)]


def test_without_double_nil_every_seat_sees_its_hand_from_the_deal():
    state = dealt(dealer=1, options=SpadesOptions(double_nil_allowed=False))
    for seat in range(3):
        assert len(engine.view(state, seat).hand or []) == 17 and engine.view(state, seat).seats[seat].rules.has_looked
        legal = engine.legal_actions(state, seat)
        assert REVEAL not in legal and DOUBLE_NIL not in legal
    refused = rejects(state, 2, DOUBLE_NIL, R.INVALID_BID)
    assert refused.message == "Double Nil is switched off in this game"


# ---- the options it takes, and every other refused ------------------------------------------------------

def test_its_settings_are_the_ones_section_5_lists():
    game = engine.game_of(NAME)
    assert [s.name for s in game.settings] == list(TARGET_AND_ALL)
    given = {"target_score": "300", "bag_limit": "7", "bag_penalty": "70", "nil_value": "60", "double_nil_value": "120",
             "double_nil_allowed": "false", "blind_nil_when_behind": "30", "losing_score": "250"}
    options = SpadesOptions.from_settings(NAME, given)
    assert options == SpadesOptions(target_score=300, bag_limit=7, bag_penalty=70, nil_value=60, double_nil_value=120,
                                    double_nil_allowed=False, blind_nil_when_behind=30, losing_score=250)
    assert engine.new_game(NAME, options, first_dealer=0).n == 3


@pytest.mark.parametrize("name,value", [("exchange_size", "2"), ("exchange_size", "3"), ("trumps", "jokers"),
                                        ("trumps", "standard"), ("min_team_bid", "4"), ("bidding", "suicide"),
                                        ("nil_exchange", "1"), ("failed_nil_tricks_count", "true")])
def test_any_other_setting_is_refused_by_name_even_at_its_default(name, value):
    with pytest.raises(ValueError, match=f"cutthroat_spades has no setting '{name}'"):
        SpadesOptions.from_settings(NAME, {name: value})


@pytest.mark.parametrize("options", [SpadesOptions(exchange_size=2), SpadesOptions(trumps="jokers"),
                                     SpadesOptions(min_team_bid=3), SpadesOptions(bidding="whiz"),
                                     SpadesOptions(nil_exchange=2), SpadesOptions(failed_nil_tricks_count=True)])
def test_engine_options_away_from_a_refused_settings_default_are_refused_naming_it(options):
    name = next(s.name for s in options.SETTINGS if getattr(options, s.name) != s.default)
    with pytest.raises(ValueError, match=f"option {name} is not a setting of Cutthroat Spades"):
        engine.new_game(NAME, options, first_dealer=0)


def test_option_values_out_of_range_are_refused():
    for options, words in ((SpadesOptions(target_score=50), "option target_score must be an integer from 100"),
                           (SpadesOptions(losing_score=-1), "option losing_score must be an integer from 0"),
                           (SpadesOptions(blind_nil_when_behind=-5), "option blind_nil_when_behind")):
        with pytest.raises(ValueError, match=words):
            engine.new_game(NAME, options, first_dealer=0)
    with pytest.raises(ValueError, match="first dealer must be a seat from 0 to 2, not 3"):
        engine.new_game(NAME, first_dealer=3)


# ---- views, hand records and reason codes as four-player Spades' -----------------------------------------

def test_views_records_and_reasons_are_spades():
    game = engine.game_of(NAME)
    assert game.reasons is SpadesReason and game.record_type is SpadesHandRecord and game.state_type is CutthroatState
    assert [p.name for p in game.vocabulary.phases] == ["deal", "bid", "play", "game_over"]
    assert [w.word for w in game.vocabulary.words] == ["deal", "reveal", "bid", "double-nil", "play"]
    assert engine.find_game("Cutthroat Spades") is game and engine.find_game("cutthroat") is game
    state = cutthroat_game([((5, 4, 6), (7, 4, 6))], dealer=0)
    view = engine.view(state, 1)
    assert isinstance(view.rules, SpadesRules) and view.rules.exchange_given == []
    assert [side.seats for side in view.sides] == [[0], [1], [2]] and [s.bags for s in view.sides] == [2, 0, 0]
    assert all(isinstance(info.rules, SpadesSeat) for info in view.seats)
    hand = record(state)
    assert isinstance(hand, SpadesHandRecord) and len(hand.deck.split()) == 51 and "2C" not in hand.deck.split()
    assert hand.forced == [False, False, False] and hand.losing_sides == []
    again = engine.state_from_bytes(state.to_bytes())
    assert type(again) is CutthroatState and again == state and again.records == state.records
    assert engine.score(state).sides == [[0], [1], [2]]


def test_a_random_game_replays_and_its_states_come_back_from_every_view():
    rng = random.Random(9)
    state = engine.new_game(NAME, SpadesOptions(target_score=100, losing_score=100), rng=rng, first_dealer=1)
    log, built = [], 0
    while state.phase != engine.Phase.GAME_OVER:
        seat = state.turn
        legal = engine.legal_actions(state, seat)
        if state.phase == Phase.PLAY:
            view = engine.view(state, seat)
            hidden = engine.hidden(view)
            assert hidden.cards == engine.game_of(NAME).deck_mask & ~mask(view.hand) & ~public_cards(view)
            assert engine.view(engine.determinize(view, sample_fills(hidden, rng)), seat) == view
            built += 1
        action = legal[rng.randrange(len(legal))]
        log.append(LogEntry(seat, action, engine.apply(state, seat, action, rng)))
    assert engine.replay(NAME, state.options, 1, log) == state and built >= 51
    assert cutthroat_spades.GAME.deck_for(state.options) == engine.game_of(NAME).deck_mask
