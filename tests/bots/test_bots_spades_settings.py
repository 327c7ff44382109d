"""The Spades bots under the table settings (RULES.md §1.1): whole games under random settings
with only legal actions (the basic heuristic's own choice, the strong bot's and every playout
action), the playout policy playing as the basic bot, and the basic bot's choices that the
settings call for: jokers and the 2♦ counted as spades, a minimum team bid met, Nil with the
weaker hand of a Suicide pair, Nil or the spades held in Whiz, Double Nil blind only far behind,
the high cards given away by the Nil seat of an exchange for Nil."""

from __future__ import annotations

import random

import pytest

import bots
import engine
from bots import spades as basic
from bots.search import Budget, SearchBot
from engine import Phase, SpadesOptions
from engine.core.cards import card_list, parse_cards
from engine.games.spades_deck import trumps_of
from engine.games.spades_state import BIDDING, TRUMPS
from engine.games.spades_words import DOUBLE_NIL, REVEAL, SpadesPhase, bid
from tests.engine.engine_helpers import examples, round_robin_deck

QUICK = Budget(samples=3, seconds=None, round=2)


def random_options(rng: random.Random, four: bool) -> SpadesOptions:
    """Random table settings of four- or two-player Spades, in a short game."""
    settings = dict(target_score=rng.choice([100, 150, 200]), losing_score=rng.choice([0, 0, 150]),
                    blind_nil_when_behind=rng.choice([0, 50, 100]), double_nil_allowed=rng.random() < 0.85)
    if four:
        rule = rng.choice(BIDDING)
        settings.update(trumps=rng.choice(TRUMPS), bidding=rule, nil_exchange=rng.randrange(4),
                        min_team_bid=rng.choice([0, 4, 9]) if rule == "standard" else 0,
                        failed_nil_tricks_count=rng.random() < 0.5, exchange_size=rng.choice([3, 2, 0]))
    return SpadesOptions(**settings)


def heuristic_choice(state, seat, legal):
    """The basic heuristic's own choice (before the basic bot's fallback to a random legal action)."""
    return basic.choose(engine.view(state, seat), legal, random.Random(0))


@pytest.mark.parametrize("variant", ["spades", "spades2"])
def test_whole_games_under_random_settings_take_only_legal_actions(variant):
    strong = SearchBot(QUICK)
    finished = 0
    for seed in range(examples(12)):
        rng = random.Random(seed)
        options = random_options(rng, variant == "spades")
        state = engine.new_game(variant, options, rng=rng, first_dealer=seed % engine.game_of(variant).seats)
        lineup = rng.sample(["basic", "basic", "random", "strong"] if variant == "spades" else ["basic", "strong"],
                            state.n)
        seats = set(range(state.n))
        while state.phase != Phase.GAME_OVER and state.hand_no <= 6:
            seat = bots.bot_seat_to_act(state, seats)
            assert seat is not None
            legal = engine.legal_actions(state, seat)
            if lineup[seat] == "basic" and len(legal) > 1:
                assert heuristic_choice(state, seat, legal) in legal, options
            if lineup[seat] == "strong" and state.hand_no <= 2:
                action = strong.choose(engine.view(state, seat), legal, rng)
            else:
                action = bots.choose_action(lineup[seat] if lineup[seat] != "strong" else "basic", state, seat, rng)
            assert action in legal, (engine.notation(variant, action), options)
            engine.apply(state, seat, action, rng)
        finished += state.phase == Phase.GAME_OVER
    assert finished >= 1


@pytest.mark.parametrize("variant", ["spades", "spades2"])
def test_the_playout_policy_plays_as_the_basic_bot_and_only_legal_actions(variant):
    policy = bots.game_bots(variant).playout
    assert policy is not None
    checked = 0
    for seed in range(examples(10)):
        rng = random.Random(100 + seed)
        options = random_options(rng, variant == "spades")
        state = engine.new_game(variant, options, rng=rng, first_dealer=0)
        seats = set(range(state.n))
        while state.phase != Phase.GAME_OVER and state.hand_no <= 4:
            seat = bots.bot_seat_to_act(state, seats)
            assert seat is not None
            legal = engine.legal_actions(state, seat)
            mine = policy.act(state, seat, random.Random(0))
            if state.phase == Phase.PLAY:
                assert engine.play(policy.card(state, seat)) == mine
            if state.phase != Phase.DEAL:
                assert mine in legal, (engine.notation(variant, mine), options)
            if len(legal) > 1 and REVEAL not in legal:
                assert mine == heuristic_choice(state, seat, legal), (engine.notation(variant, mine), options)
                checked += 1
            engine.apply(state, seat, bots.choose_action("basic", state, seat, rng), rng)
    assert checked > 100


# ---- the basic bot's choices ---------------------------------------------------------------------

def dealt(hands: dict[int, str], options: SpadesOptions, dealer: int = 3, totals=None) -> engine.TableState:
    """Four-player Spades at a table with ``options``, the listed seats holding the listed cards."""
    table = trumps_of(options)
    fixed = {s: card_list(parse_cards(text, jokers=True)) for s, text in hands.items()}
    rest = [c for c in card_list(table.deck) if not any(c in h for h in fixed.values())]
    for s in range(4):
        k = 13 - len(fixed.setdefault(s, []))
        fixed[s], rest = fixed[s] + rest[:k], rest[k:]
    deck = round_robin_deck([fixed[s] for s in range(4)], dealer)   # the jokers as themselves
    state = engine.new_game("spades", options, first_dealer=dealer, decks=[deck])
    if totals is not None:
        state.scores = list(totals)
    engine.apply(state, dealer, engine.DEAL, random.Random(0))
    return state


def basic_now(state, seat=None) -> str:
    seat = state.turn if seat is None else seat
    return engine.notation(state.variant, bots.choose_action("basic", state, seat, random.Random(0)))


def bid_in_turn(state, *bids) -> None:
    for b in bids:
        seat = state.turn
        if REVEAL in engine.legal_actions(state, seat) and b != "DN":
            engine.apply(state, seat, REVEAL)
        engine.apply(state, seat, DOUBLE_NIL if b == "DN" else bid(b))


def test_jokers_and_the_two_of_diamonds_count_as_the_spades_they_beat():
    deuces = trumps_of(SpadesOptions(trumps="jokers_deuces"))
    with_jokers = card_list(parse_cards("BJ LJ 2D 2S 3C 4C 5C 6C 7C 3H 4H 5H 6H", jokers=True))
    plain = card_list(parse_cards("AS KS QS JS 3C 4C 5C 6C 7C 3H 4H 5H 6H"))
    assert basic.estimate(with_jokers, "spades", deuces) == basic.estimate(plain, "spades")
    assert basic.estimate(with_jokers, "spades", deuces) > basic.estimate(
        card_list(parse_cards("3D 4D 2S 3S 3C 4C 5C 6C 7C 3H 4H 5H 6H")), "spades", deuces) + 2
    assert not basic.nil_ok(card_list(parse_cards("LJ 3C 4C 5C 6C 7C 8C 3H 4H 5H 6H 7H 8H", jokers=True)),
                            trumps_of(SpadesOptions(trumps="jokers")))


def test_the_second_partner_meets_the_minimum_team_bid():
    state = dealt({2: "2C 3C 5C 9C 2D 4D 6D 10D 3H 5H 7H JH 2S"}, SpadesOptions(min_team_bid=9))
    bid_in_turn(state, 1, 3)
    engine.apply(state, 2, REVEAL)
    assert basic_now(state) == "bid 8"                  # a hopeless hand, but 1 + 8 reaches 9
    state = dealt({2: "2C 3C 5C 9C 2D 4D 6D 10D 3H 5H 7H JH 2S"}, SpadesOptions())
    bid_in_turn(state, 1, 3)
    engine.apply(state, 2, REVEAL)
    assert basic_now(state) == "bid 0"                  # without the minimum: Nil


def test_suicide_the_weaker_hand_of_the_pair_bids_nil():
    weak, strong = "2C 3C 5C 9C 2D 4D 6D 10D 3H 5H 7H JH 2S", "AC KC AD KD QD AH KH AS KS QS JS 10S 9S"
    state = dealt({0: weak}, SpadesOptions(bidding="suicide"))
    engine.apply(state, 0, REVEAL)
    assert basic_now(state) == "bid 0"
    state = dealt({0: strong}, SpadesOptions(bidding="suicide"))
    engine.apply(state, 0, REVEAL)
    assert basic_now(state) not in ("bid 0", "double-nil")
    engine.apply(state, 0, engine.parse_notation("spades", basic_now(state)))
    bid_in_turn(state, 4)
    engine.apply(state, 2, REVEAL)
    assert basic_now(state) == "bid 0"                  # its partner bid a number: Nil, whatever its hand


def test_whiz_bids_nil_with_a_weak_hand_and_its_spades_otherwise():
    state = dealt({0: "2C 3C 5C 9C 2D 4D 6D 10D 3H 5H 7H 3S 2S"}, SpadesOptions(bidding="whiz"))
    assert basic_now(state) == "bid 0"
    state = dealt({0: "AC KC 5C 9C 2D 4D 6D 10D 3H 5H AS KS 2S"}, SpadesOptions(bidding="whiz"))
    assert basic_now(state) == "bid 3"
    state = dealt({0: "AC KC 5C 9C 2D 4D 6D 10D 3H 5H AS KS 2S"}, SpadesOptions(bidding="mirror"))
    assert basic_now(state) == "bid 3"


def test_double_nil_blind_only_far_behind_at_a_table_that_ties_it_to_the_score():
    far = dealt({}, SpadesOptions(blind_nil_when_behind=100), totals=(-50, 250))
    assert basic_now(far) == "double-nil"
    near = dealt({}, SpadesOptions(blind_nil_when_behind=100), totals=(50, 170))
    assert DOUBLE_NIL in engine.legal_actions(near, 0) and basic_now(near) == "reveal"
    plain = dealt({}, SpadesOptions(), totals=(-50, 250))
    assert basic_now(plain) == "reveal"                 # a table that allows it always: it looks first
    partner_nil = dealt({}, SpadesOptions(blind_nil_when_behind=100), totals=(-50, 250))
    bid_in_turn(partner_nil, 0, 3)
    assert basic_now(partner_nil) == "reveal"           # its partner bid Nil already


def test_two_players_double_nil_blind_far_behind_in_the_first_draw_turn():
    options = SpadesOptions(blind_nil_when_behind=100)
    state = engine.new_game("spades2", options, rng=random.Random(1), first_dealer=0)
    state.scores = [0, 300]
    engine.apply(state, 0, engine.DEAL, random.Random(1))
    assert basic_now(state) == "double-nil"
    policy = bots.game_bots("spades2").playout
    assert policy is not None and policy.act(state, 0, random.Random(0)) == DOUBLE_NIL


def test_the_nil_seat_of_an_exchange_for_nil_gives_its_high_cards():
    options = SpadesOptions(nil_exchange=2)
    state = dealt({0: "2C 3C 5C 9C 2D 4D 6D 10D 3H 5H 7H AH 2S"}, options)
    bid_in_turn(state, 0, 3, 4, 3)
    assert state.phase == SpadesPhase.EXCHANGE
    assert basic_now(state, 0) == "exchange 10D AH"     # its most dangerous cards
    given = basic_now(state, 2).split()[1:]
    assert len(given) == 2 and not any(card.endswith("S") for card in given)   # the partner: low side cards
    policy = bots.game_bots("spades").playout
    assert policy is not None
    for seat in (0, 2):
        assert engine.notation("spades", policy.act(state, seat, random.Random(0))) == basic_now(state, seat)
