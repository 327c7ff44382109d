"""Euchre's computer players: whole games of the basic and the strong bot under every option
take only legal actions; the basic bot's calls (ordering, naming, going alone, the discard,
defending alone, stick the dealer) and its play (throwing low under its partner, winning
cheaply, drawing trumps); its playout policy plays exactly as it does in every phase; and a
basic partnership beats a random one."""

from __future__ import annotations

import random

import pytest

import bots
import engine
from bots import euchre as basic
from bots.euchre_playout import EuchrePlayout
from bots.search import Budget, SearchBot
from engine import Phase, play
from engine.core.cards import parse_card, parse_cards
from engine.games.euchre import EuchreOptions
from engine.games.euchre_words import DEFEND_ALONE, ORDER, ORDER_ALONE, PASS, EuchrePhase, name_suit
from tests.engine.engine_helpers import euchre_deck

QUICK = Budget(samples=4, seconds=None, round=2)   # cheap and clock-free: deterministic
C = parse_card
OPTIONS = [EuchreOptions(target=5), EuchreOptions(target=5, defend_alone=True, stick_the_dealer=True)]


def dealt(hands: dict[int, str], turnup: str, kitty: str, options: EuchreOptions | None = None):
    """A game, dealer 3, dealt from these hands."""
    deck = euchre_deck(3, hands, turnup, kitty)
    state = engine.new_game("euchre", options, first_dealer=3, decks=[deck])
    engine.apply(state, 3, engine.DEAL, random.Random(0))
    return state


def basic_action(state, seat: int | None = None) -> int:
    seat = state.turn if seat is None else seat
    return basic.choose(engine.view(state, seat), engine.legal_actions(state, seat), random.Random(0))


def apply_all(state, *notations: str) -> None:
    for text in notations:
        engine.apply(state, state.turn, engine.parse_notation("euchre", text), random.Random(0))


# ---- whole games ---------------------------------------------------------------------------------

@pytest.mark.parametrize("options", OPTIONS, ids=["defaults", "defend-alone-and-stick"])
def test_whole_games_of_basic_and_strong_bots_take_only_legal_actions(options):
    strong = SearchBot(QUICK)
    rng = random.Random(11)
    phases: set[int] = set()
    lineups = (["strong", "basic", "strong", "basic"], ["basic", "strong", "random", "basic"])
    for game, lineup in enumerate(lineups):
        state = engine.new_game("euchre", options, rng, first_dealer=game)
        while state.phase != Phase.GAME_OVER:
            seat = bots.bot_seat_to_act(state, set(range(4)))
            assert seat is not None
            legal = engine.legal_actions(state, seat)
            view = engine.view(state, seat)
            if lineup[seat] == "strong":
                action = strong.choose(view, legal, rng)
            else:
                action = bots.choose_action(lineup[seat], state, seat, rng, legal)
            assert action in legal, engine.notation("euchre", action)
            phases.add(state.phase)
            engine.apply(state, seat, action, rng)
        assert state.winner and state.records
    assert {EuchrePhase.ORDER_UP, EuchrePhase.DEALER_DISCARD, Phase.PLAY} <= phases


def test_the_strong_bot_decides_in_the_defend_alone_round_and_when_stuck():
    strong = SearchBot(QUICK)
    state = dealt({0: "JH JD AH KH AS", 1: "AC KC JS AD KD", 2: "9C 10C QC 9S 10S", 3: "9D 10D QD QS KS"}, "9H",
                  "10H QH JC", EuchreOptions(defend_alone=True))
    apply_all(state, "order-alone", "exchange 9D")
    assert state.phase == EuchrePhase.DEFEND_ALONE
    legal = engine.legal_actions(state, 1)
    assert strong.choose(engine.view(state, 1), legal, random.Random(1)) in legal
    state = dealt({0: "9C 10C QC 9S 10S", 1: "9D 10D QD QS KS", 2: "AC KC JS AD KD", 3: "JH JD AH KH AS"}, "9H",
                  "10H QH JC", EuchreOptions(stick_the_dealer=True))
    apply_all(state, *["pass"] * 7)
    legal = engine.legal_actions(state, 3)
    assert PASS not in legal
    assert strong.choose(engine.view(state, 3), legal, random.Random(1)) in legal


# ---- the basic bot's calls ----------------------------------------------------------------------------

def test_it_orders_a_strong_hand_goes_alone_with_a_lone_hand_and_passes_a_weak_one():
    kitty = "10H QH 9S"
    strong = dealt({0: "JH JD AH KS 9C", 1: "10C JC QC KC AC", 2: "JS QS AS KH 10S", 3: "9D 10D QD KD AD"}, "9H", kitty)
    assert basic_action(strong) == ORDER
    lone = dealt({0: "JH JD AH KH AS", 1: "10C JC QC KC AC", 2: "JS QS 9C KS 10S", 3: "9D 10D QD KD AD"}, "9H", kitty)
    assert basic_action(lone) == ORDER_ALONE
    weak = dealt({0: "9C 10C 9D 10S QS", 1: "JH JD AH KH AS", 2: "JC QC KC AC JS", 3: "QD KD AD KS 9S"}, "9H",
                 "10H QH 10D")
    assert basic_action(weak) == PASS


def test_the_dealer_counts_the_turn_up_it_takes_and_discards_its_weakest_side_card():
    hands = {0: "9C 10C 9D 10S QS", 1: "JC QC KC AC JS", 2: "QD KD AD KS 9S", 3: "JH JD AH 10D AS"}
    state = dealt(hands, "KH", "9H 10H QH")
    apply_all(state, "pass", "pass", "pass")
    assert basic_action(state) == ORDER_ALONE                    # JH JD AH KH AS after the discard of 10D
    apply_all(state, "order")
    action = basic_action(state)
    assert engine.notation("euchre", action) == "exchange 10D"   # the side card, never the turn-up or an ace
    assert basic.dealer_discard(parse_cards("JH JD AH KH AS 10D"), C("KH"), 2) == C("10D")
    assert basic.dealer_discard(parse_cards("JH JD AH KH QH 10H"), C("KH"), 2) == C("10H")   # all trumps


def test_it_names_its_best_suit_in_round_two_and_always_when_the_dealer_is_stuck():
    weak = {3: "9C 10C 9D 10D QS"}                             # the dealer: worth about one trick anywhere
    for stick, want in ((False, PASS), (True, name_suit(0))):
        state = dealt(weak, "9S", "AH QH JD", EuchreOptions(stick_the_dealer=stick))
        apply_all(state, *["pass"] * 7)
        assert state.turn == 3 and basic_action(state) == want   # stuck: its best suit, clubs
    bowers = {0: "JS JC AS 9D 10D"}                            # spades turned down: clubs with both bowers
    state = dealt(bowers, "9S", "AH QH JD")
    apply_all(state, "pass", "pass", "pass", "pass")
    assert basic_action(state) == name_suit(0)
    state = dealt({0: "JH JD AH KH 9C", 1: "9D 10D QD 9S 10S", 2: "JC QC KC AC JS", 3: "KD AD KS QS AS"}, "10C",
                  "10H QH 9H")
    apply_all(state, "pass", "pass", "pass", "pass")
    assert basic_action(state) == name_suit(2)                   # hearts, strong but not alone (the 9C)
    state = dealt({0: "JH JD AH KH AS", 1: "9D 10D QD 9S 10S", 2: "JC QC KC AC JS", 3: "KD AD KS QS 9C"}, "10C",
                  "10H QH 9H")
    apply_all(state, "pass", "pass", "pass", "pass")
    assert basic_action(state) == name_suit(2, alone=True)      # nothing but high trumps and an ace


def test_it_defends_alone_with_three_stoppers_and_passes_otherwise():
    options = EuchreOptions(defend_alone=True)
    state = dealt({0: "JH AH KH QH 9S", 1: "JD AC AD 9C 10C", 2: "KC QC JC KD QD", 3: "10D 9D 10S JS QS"}, "9H",
                  "10H KS AS", options)
    apply_all(state, "order-alone", "exchange 10S")
    assert state.turn == 1 and basic_action(state) == DEFEND_ALONE   # the left bower, two off aces
    apply_all(state, "pass")
    assert basic_action(state) == PASS                           # seat 3 holds no stopper


# ---- the basic bot's play ---------------------------------------------------------------------------

PLAY_HANDS = {0: "JH JD 9C 9S AD", 1: "10C QC KC 10S QS", 2: "AC 9D 10D KS AS", 3: "JC KD QD QH KH"}


def test_it_throws_low_under_its_partners_winning_card_and_beats_an_opponent_cheaply():
    state = dealt(PLAY_HANDS, "9H", "10H AH JS")                # seat 0 orders; the dealer picks up
    apply_all(state, "order", "exchange JC")
    assert basic_action(state) == play(C("JH"))                 # the maker leads its top trump
    apply_all(state, "play JH", "play 10C", "play 9D", "play QH")
    assert basic_action(state) == play(C("JD"))                 # still the best trump out: draw them
    apply_all(state, "play JD", "play QC", "play 10D", "play KH")
    assert basic_action(state) == play(C("AD"))                 # no trump out against it: its off ace
    apply_all(state, "play AD", "play 10S")
    assert basic_action(state) == play(C("KS"))                 # its partner wins: the lowest card
    apply_all(state, "play KS")
    assert basic_action(state) == play(C("QD"))                 # it must follow and cannot win: its lowest


def test_it_follows_as_cheaply_as_it_can_win():
    state = dealt(PLAY_HANDS, "9H", "10H AH JS")
    apply_all(state, "pass", "pass", "pass", "pass", "pass", "name C")   # seat 1 names clubs
    assert state.trump == 0 and state.turn == 0
    apply_all(state, "play AD")                                 # seat 0 leads its off ace
    assert basic_action(state) == play(C("10C"))                # seat 1 has no diamond: the lowest trump wins
    apply_all(state, "play 10C")
    assert basic_action(state) == play(C("9D"))                 # seat 2 cannot beat a trump: its lowest
    apply_all(state, "play 9D")
    assert basic_action(state) == play(C("QD"))                 # seat 3 follows low under its partner


# ---- the playout is the basic bot -----------------------------------------------------------------

def test_the_playout_plays_as_the_basic_bot_in_every_phase_under_every_option():
    policy = EuchrePlayout()
    phases = set()
    for seed in range(8):
        rng = random.Random(seed)
        options = OPTIONS[seed % 2]
        state = engine.new_game("euchre", options, rng, first_dealer=seed % 4)
        while state.phase != Phase.GAME_OVER and state.hand_no <= 8:
            seat = state.turn
            legal = engine.legal_actions(state, seat)
            if len(legal) > 1:
                want = basic.choose(engine.view(state, seat), legal, random.Random(0))
                assert policy.act(state, seat, random.Random(0)) == want, engine.notation("euchre", want)
                phases.add(state.phase)
            lone = [a for a in legal if a in (ORDER_ALONE, DEFEND_ALONE)]
            roll = rng.random()
            if PASS in legal and roll < 0.5:
                action = PASS
            elif lone and roll < 0.7:
                action = rng.choice(lone)
            else:
                action = legal[rng.randrange(len(legal))]
            engine.apply(state, seat, action, rng)
    assert phases >= {EuchrePhase.ORDER_UP, EuchrePhase.DEALER_DISCARD, EuchrePhase.NAME_TRUMP,
                      EuchrePhase.DEFEND_ALONE, Phase.PLAY}


def test_the_likelihood_of_a_world_is_lower_when_its_hands_would_have_called_otherwise():
    state = dealt({0: "JH JD AH KH AS", 1: "9C 10C 9D 10S QS", 2: "JC QC KC AC JS", 3: "QD KD AD KS 9S"}, "9H",
                  "10H QH 10D")
    apply_all(state, "order-alone", "exchange 9S")             # seat 0 went alone, as the basic bot would
    view = engine.view(state, 1)
    policy = EuchrePlayout()
    assert policy.likelihood(view, state) == 1.0                # the real hands explain every call
    world = state.copy()
    world.hands[0], world.hands[1] = world.hands[1], world.hands[0]   # seat 0 with a weak hand: it would pass
    assert policy.likelihood(view, world) < 1.0


# ---- strength ----------------------------------------------------------------------------------------

def test_a_basic_partnership_beats_a_random_one():
    wins = 0
    for seed in range(24):
        rng = random.Random(seed)
        state = engine.new_game("euchre", EuchreOptions(), rng, first_dealer=seed % 4)
        while state.phase != Phase.GAME_OVER:
            seat = state.turn
            strategy = "basic" if seat % 2 == 0 else "random"
            engine.apply(state, seat, bots.choose_action(strategy, state, seat, rng), rng)
        wins += state.winner == [0]
    assert wins >= 18, wins
