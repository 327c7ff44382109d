"""The bots at a Cutthroat Spades table (RULES.md §5): the basic bot bids its 17 cards alone (its
own weights, bids above 13 for a hand that takes them, no partner's bid read), makes most of its
contracts, plays with no partner to cover yet sets either opponent, declares Double Nil blind only
where the table allows it to a player far behind the highest of the other two, and beats random
players; the playout policy and the search bot decide as it does from the same facts."""

from __future__ import annotations

import random

import bots
import engine
from bots import spades as basic
from bots import spades_play
from bots.search import Budget, SearchBot
from bots.spades_playout import PLAYOUT, bid_action
from engine import Phase, SpadesOptions
from engine.core.cards import card_list, parse_cards
from engine.games.cutthroat_spades import DECK, NAME
from engine.games.spades_words import DOUBLE_NIL, REVEAL, SpadesCode, bid
from tests.engine.cutthroat_script import script
from tests.engine.engine_helpers import play_script, round_robin_deck

SEATS = {0, 1, 2}


def dealt(hands: dict[int, str], dealer: int = 2, options: SpadesOptions | None = None,
          totals: tuple[int, int, int] | None = None) -> engine.TableState:
    """A Cutthroat hand in which the listed seats hold the listed cards (the others the rest)."""
    fixed = {s: card_list(parse_cards(text)) for s, text in hands.items()}
    rest = [c for c in DECK if not any(c in cards for cards in fixed.values())]
    for s in range(3):
        k = 17 - len(fixed.setdefault(s, []))
        fixed[s], rest = fixed[s] + rest[:k], rest[k:]
    state = engine.new_game(NAME, options, first_dealer=dealer, decks=[round_robin_deck([fixed[s] for s in range(3)],
                                                                                         dealer)])
    if totals is not None:
        state.scores = list(totals)
    engine.apply(state, dealer, engine.DEAL, random.Random(0))
    return state


def basic_now(state, seat: int) -> int:
    return bots.choose_action("basic", state, seat, random.Random(0))


# ---- bidding ------------------------------------------------------------------------------------------

def test_a_hand_that_takes_more_than_thirteen_tricks_bids_them():
    state = dealt({0: "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS AH AD AC KH"})
    engine.apply(state, 0, REVEAL)
    action = basic_now(state, 0)
    assert engine.kind_of(action) == SpadesCode.BID and 14 <= engine.payload_of(action) <= 17
    assert bid_action(state, 0) == action                              # the playout bids alike


def test_its_bid_reads_no_partners_bid():
    """Seat 2's bid is the same whatever seat 0 (its partner's seat at a four-player table) bid."""
    chosen = set()
    for first in (0, 5, "DN"):
        state = dealt({2: "AS KS QS 4S AH KH 3H AD 5D 6D 7C 8C 9C 10C JC QC KC"}, dealer=2)
        engine.apply(state, 0, DOUBLE_NIL if first == "DN" else bid(first))
        engine.apply(state, 1, bid(4))
        engine.apply(state, 2, REVEAL)
        chosen.add(basic_now(state, 2))
    assert len(chosen) == 1 and engine.payload_of(chosen.pop()) >= 5


def test_a_weak_hand_bids_nil_and_a_middling_one_a_number():
    weak = dealt({0: "2S 3S 2H 3H 4H 5H 6H 2D 3D 4D 5D 6D 7D 3C 4C 5C 6C"})
    engine.apply(weak, 0, REVEAL)
    assert basic_now(weak, 0) == bid(0)
    middling = dealt({0: "AS 10S 5S 2S KH 9H 5H 2H QD 8D 4D 3D JC 9C 6C 4C 3C"})
    engine.apply(middling, 0, REVEAL)
    assert engine.payload_of(basic_now(middling, 0)) in range(2, 7)


def test_its_bids_fit_seventeen_cards_and_most_contracts_are_made():
    bids = made = 0
    total = 0
    for seed in range(20):
        state = engine.new_game(NAME, rng=random.Random(seed), first_dealer=seed % 3)
        rng = random.Random(seed)
        while state.phase != Phase.GAME_OVER and state.hand_no < 3:
            seat = bots.bot_seat_to_act(state, SEATS)
            engine.apply(state, seat, bots.choose_action("basic", state, seat, rng), rng)
        for record in state.records:
            for seat, b in enumerate(record.bids):
                if b > 0:
                    bids += 1
                    total += b
                    made += record.tricks[seat] >= b
    assert bids > 100 and 4.0 <= total / bids <= 6.0          # 17 tricks among three, less a margin
    assert made / bids >= 0.8


def test_double_nil_blind_only_far_behind_the_highest_of_the_other_two():
    options = SpadesOptions(blind_nil_when_behind=100)
    state = dealt({}, dealer=2, options=options, totals=(300, 50, 320))
    engine.apply(state, 0, basic_now(state, 0))                 # seat 0 trails by 20: not behind, sees its cards
    assert engine.kind_of(state.calls[0]) == SpadesCode.BID
    assert basic_now(state, 1) == DOUBLE_NIL == bid_action(state, 1)   # trails the highest (320) by 270
    state = dealt({}, dealer=2, options=options, totals=(300, 150, 320))
    engine.apply(state, 0, basic_now(state, 0))
    assert basic_now(state, 1) == REVEAL                       # trails by 170: allowed, but not far enough for it
    assert bid_action(state, 1) != DOUBLE_NIL


# ---- play ----------------------------------------------------------------------------------------------

def _late_hand(bids: tuple[int, int, int]) -> engine.TableState:
    """Fourteen tricks of a scripted hand played (seat 0 won 5, seat 1 four, seat 2 five; three cards each left)."""
    hands, tricks = script((5, 4, 8))
    state = engine.new_game(NAME, first_dealer=0, decks=[round_robin_deck(hands, 0)])
    engine.apply(state, 0, engine.DEAL, random.Random(0))
    for seat in (1, 2, 0):
        engine.apply(state, seat, bid(bids[seat]))
    play_script(state, tricks[:14])
    assert state.tricks == [5, 4, 5] and [h.bit_count() for h in state.hands] == [3, 3, 3]
    return state


def test_either_opponent_may_be_set_once_its_own_contract_is_made():
    """Seat 2 has made its 4; seat 1, two seats on, needs 2 of the last 3 tricks: seat 2 plays to
    win (to set it) as it would against the next seat, and ducks once nobody can be set."""
    state = _late_hand((5, 6, 4))
    assert basic._mode(engine.view(state, 2)) == basic.WIN and spades_play._mode(state, 2) == spades_play.WIN
    state = _late_hand((5, 4, 4))
    assert basic._mode(engine.view(state, 2)) == basic.DUCK and spades_play._mode(state, 2) == spades_play.DUCK


def test_no_partner_to_cover():
    """At a four-player table a seat covers its partner's Nil; here seat 2 is nobody's partner."""
    state = dealt({}, dealer=2)
    for seat, tricks in ((0, 0), (1, 4), (2, 5)):
        engine.apply(state, seat, bid(tricks))
    assert basic._mode(engine.view(state, 2)) == basic.WIN and spades_play._mode(state, 2) == spades_play.WIN


def test_the_basic_bot_beats_random_players():
    wins = 0
    for seed in range(9):
        state = engine.new_game(NAME, SpadesOptions(target_score=200), rng=random.Random(seed), first_dealer=seed % 3)
        strategies = ["random"] * 3
        strategies[seed % 3] = "basic"
        rng = random.Random(seed)
        while state.phase != Phase.GAME_OVER and state.hand_no < 40:
            seat = bots.bot_seat_to_act(state, SEATS)
            engine.apply(state, seat, bots.choose_action(strategies[seat], state, seat, rng), rng)
        wins += state.winner == [seed % 3]
    assert wins >= 8


# ---- the playout policy and the search --------------------------------------------------------------

def test_the_playout_values_a_hand_against_the_mean_of_the_other_two():
    hands, tricks = script((8, 5, 4))
    state = engine.new_game(NAME, first_dealer=0, decks=[round_robin_deck(hands, 0)])
    engine.apply(state, 0, engine.DEAL, random.Random(0))
    for seat, tricks_bid in ((1, 5), (2, 4), (0, 7)):
        engine.apply(state, seat, bid(tricks_bid))
    start = state.copy()
    play_script(state, tricks)
    assert state.scores == [71, 50, 40]
    price = state.options.bag_penalty / state.options.bag_limit
    assert PLAYOUT.value(start, state, 0) == (71 - price) - (50 + 40) / 2
    assert PLAYOUT.value(start, state, 2) == 40 - ((71 - price) + 50) / 2


def test_the_search_bids_within_seventeen_and_plays_legally():
    bot = SearchBot(Budget(samples=4, seconds=None, round=2))
    state = dealt({0: "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS AH AD AC KH"})
    engine.apply(state, 0, REVEAL)
    view = engine.view(state, 0)
    legal = engine.legal_actions(state, 0)
    assert max(engine.payload_of(a) for a in PLAYOUT.candidates(view, legal)) > 13
    action = bot.choose(view, legal, random.Random(1))
    assert action in legal and engine.payload_of(action) >= 12
