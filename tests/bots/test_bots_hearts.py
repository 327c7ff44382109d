"""The Hearts bots: the basic bot passes its dangerous cards and plays to take no points, the
playout policy values a hand with fewer points (the moon included) as better, its sampler deals
the hands two complementary voids leave, and the strong bot searches a pass among a few
candidates only; with the J♦ counting −10 the basic bot keeps it, wins it when safe and keeps it
from the leader; both bots play whole three-player and J♦ games legally."""

from __future__ import annotations

import dataclasses
import math
import random

import pytest

import bots
import engine
from bots import hearts as basic
from bots.hearts_playout import LEADER, OTHERS, PASS_CARDS, HeartsPlayout, fill_places
from bots.playout import play_hand
from bots.search import Budget, SearchBot
from engine import Hidden, Place
from engine.core.cards import SUIT_MASKS, card_list, cards_text, parse_card, parse_cards
from engine.core.hidden import mask
from engine.games.hearts_state import HeartsOptions
from engine.games.hearts_words import HeartsPhase
from tests.bots.test_bots_search import Counting
from tests.engine.engine_helpers import fill_hands, round_robin_deck

HOLD = HeartsOptions(pass_cycle="H")   # no pass: play starts at once
LEFT = HeartsOptions(pass_cycle="L")


def dealt(hands: dict[int, str], options: HeartsOptions = HOLD, dealer: int = 3) -> engine.TableState:
    """A Hearts game dealt so that the given seats hold the given cards (the rest filled low first)."""
    full = fill_hands(hands, 4, 13, range(52))
    state = engine.new_game("hearts", options, first_dealer=dealer, decks=[round_robin_deck(full, dealer)])
    engine.apply(state, dealer, engine.DEAL, random.Random(0))
    return state


def basic_choice(state, seat: int | None = None) -> str:
    seat = state.turn if seat is None else seat
    return engine.notation(state.variant, bots.choose_action("basic", state, seat, random.Random(0)))


def play(state, *cards: str) -> None:
    for c in cards:
        engine.apply(state, state.turn, engine.play(parse_card(c)), random.Random(0))


# ---- the basic bot ----

def test_basic_passes_an_unguarded_queen_and_the_top_spades():
    state = dealt({0: "QS 3S 4S 2C 3C 4C 5C 2D 3D 4D 5D 2H 3H"}, LEFT)
    assert state.phase == HeartsPhase.PASS
    assert "QS" in basic_choice(state, 0).split()
    state = dealt({0: "AS KS 3S 2C 3C 4C 5C 2D 3D 4D 5D 2H 3H"}, LEFT)
    assert basic_choice(state, 0) == "pass 5D KS AS"         # the top spades, then the highest card


def test_basic_keeps_a_guarded_queen_and_passes_high_hearts_or_a_short_suit():
    state = dealt({0: "QS 2S 3S 4S 5S 6S 2C 3C 4C 9D AH KH QH"}, LEFT)
    assert basic_choice(state, 0) == "pass QH KH AH"         # four low spades guard the queen
    state = dealt({0: "KD 2S 3S 4S 5S 6S 2C 3C 4C 5C 6C 2H 3H"}, LEFT)
    assert "KD" in basic_choice(state, 0).split()             # a singleton: voids diamonds


def test_basic_pass_is_one_of_the_legal_passes():
    state = dealt({}, LEFT)
    for seat in range(4):
        legal = engine.legal_actions(state, seat)
        action = bots.game_bots("hearts").basic(engine.view(state, seat), legal, random.Random(0))
        assert action in legal and len(card_list(engine.payload_of(action))) == 3


def test_basic_unloads_on_the_first_trick():
    state = dealt({0: "2C", 1: "AC 5C 6C KD", 2: "3C"}, dealer=3)
    assert state.turn == 0
    play(state, "2C")
    assert basic_choice(state) == "play AC"                   # no points can come: the highest club


def test_basic_ducks_under_the_winner():
    state = dealt({0: "2C 3D 9D KD 2S 3S 4S 5S 6S 7S 8S 9S 10S", 3: "AC AD"})
    play(state, "2C", "3C", "5D", "AC")                       # seat 3 takes the first trick ...
    play(state, "AD")
    assert basic_choice(state) == "play KD"                   # ... highest diamond under the ace
    hand = parse_cards("3D 9D KD")
    trick = [parse_card("10D"), parse_card("2D")]
    assert basic.card_to_play(hand, hand, trick, mask(trick)) == parse_card("9D")
    assert basic.card_to_play(hand, hand, trick[1:], mask(trick)) == parse_card("3D")   # cannot duck: lowest


def test_basic_throws_the_queen_then_the_top_spades_then_high_hearts():
    trick = [parse_card("9D")]
    gone = parse_cards("2C 3C 4C 5C 9D")
    hand = parse_cards("QS AH 5C KS")
    assert basic.card_to_play(hand, hand, trick, gone) == parse_card("QS")
    hand = parse_cards("KS AH 5C")
    assert basic.card_to_play(hand, hand, trick, gone) == parse_card("KS")    # the queen is out
    gone |= parse_cards("QS")
    assert basic.card_to_play(hand, hand, trick, gone) == parse_card("AH")    # the queen is gone


def test_basic_leads_low_and_no_heart_while_it_can():
    gone = parse_cards("2C 3C 4C 5C")
    hand = parse_cards("2H 3H 4H 9D 8S")
    legal = hand & ~SUIT_MASKS[2]                                 # hearts not broken
    assert basic.card_to_play(hand, legal, [], gone) == parse_card("8S")      # smoke out the queen
    gone |= parse_cards("QS")
    hand = parse_cards("2D 9D 8S 2H 3H")
    assert basic.card_to_play(hand, hand, [], gone) == parse_card("2D")       # the lowest card
    hand = parse_cards("2H 3H 9D")
    assert basic.card_to_play(hand, hand, [], gone) == parse_card("9D")       # broken: still no heart
    hand = parse_cards("2H 5H")
    assert basic.card_to_play(hand, hand, [], gone) == parse_card("2H")
    hand = parse_cards("AS 2D 5D")                                # the ace of spades catches the queen
    assert basic.card_to_play(hand, hand, [], gone & ~parse_cards("QS")) == parse_card("2D")


def test_basic_takes_a_free_trick_high_when_last():
    hand = parse_cards("3D KD 2S")
    trick = [parse_card(c) for c in ("5D", "8D", "10D")]
    assert basic.card_to_play(hand, hand & SUIT_MASKS[1], trick, mask(trick)) == parse_card("KD")
    trick[1] = parse_card("9H")                                   # a heart in it: duck
    assert basic.card_to_play(hand, hand & SUIT_MASKS[1], trick, mask(trick)) == parse_card("3D")


# ---- the playout ----

def test_value_prefers_fewer_points_and_counts_the_moon():
    policy = HeartsPlayout()
    before = engine.new_game("hearts", None, first_dealer=0)
    before.scores = [40, 20, 30, 50]
    taken, given = before.copy(), before.copy()
    taken.scores = [53, 20, 30, 63]      # seat 0 took the Q♠ ...
    given.scores = [40, 20, 30, 76]      # ... or seat 3 did
    assert policy.value(before, given, 0) > policy.value(before, taken, 0)
    to_leader = before.copy()
    to_leader.scores = [40, 33, 30, 50]  # the Q♠ to seat 1, the lowest score: better still for seat 0
    assert policy.value(before, to_leader, 0) > policy.value(before, given, 0)
    moon = before.copy()
    moon.scores = [40, 46, 56, 76]       # seat 0 shot the moon
    assert policy.value(before, moon, 0) > 0 > policy.value(before, moon, 1)


def test_playout_plays_whole_hands_and_the_policy_passes_as_the_basic_bot():
    policy = bots.game_bots("hearts").playout
    assert isinstance(policy, HeartsPlayout)
    rng = random.Random(5)
    for seed in range(5):
        state = engine.new_game("hearts", None, rng=random.Random(seed), first_dealer=seed % 4)
        engine.apply(state, state.turn, engine.DEAL, rng)
        assert state.phase == HeartsPhase.PASS
        for seat in range(4):
            view = engine.view(state, seat)
            legal = engine.legal_actions(state, seat)
            assert policy.act(state, seat, rng) == basic.choose(view, legal, rng)
        assert play_hand(state, policy, rng) == 4 + 52 and state.records


def test_the_sampler_deals_around_complementary_voids():
    """Seat 0 showed it holds only clubs and diamonds, seat 2 only hearts and spades: seat 1 must
    take exactly one of the ten hearts and spades. Proportional dealing nearly always dead-ends
    there; ``fill_places`` never does, and gives seat 1 each of those ten cards."""
    minors = parse_cards("3C 7C 10C JC QC 2D 3D 4D 5D 8D 10D JD QD KD AD")
    majors = parse_cards("2H 8H 9H 10H KH 2S 3S 4S 5S 9S")
    hidden = Hidden(minors | majors, (Place("hand", 0, 7, minors), Place("hand", 1, 9, minors | majors),
                                      Place("hand", 2, 9, majors)))
    rng = random.Random(1)
    seen = set()
    for _ in range(300):
        fills = fill_places(hidden, rng)
        hidden.check(fills)
        one = [c for c in fills[1] if majors >> c & 1]
        assert len(one) == 1
        seen.add(one[0])
    assert seen == set(card_list(majors)), cards_text(mask(list(seen)))


# ---- the strong bot ----

def test_the_strong_bot_searches_a_pass_among_a_few_candidates():
    """Of the 286 passes, the search tries the basic bot's and every other three of its most
    dangerous cards, so a pass decision values at most ``call_samples`` hands of each."""
    policy = bots.game_bots("hearts").playout
    budget = Budget(samples=8, call_samples=16, seconds=None, round=4)
    for seed in range(3):
        state = engine.new_game("hearts", LEFT, rng=random.Random(seed), first_dealer=0)
        engine.apply(state, 0, engine.DEAL, random.Random(seed))
        view, legal = engine.view(state, 1), engine.legal_actions(state, 1)
        assert len(legal) == 286
        candidates = policy.candidates(view, legal)
        assert 2 <= len(candidates) <= math.comb(PASS_CARDS, 3)
        assert candidates[0] == basic.choose(view, legal, random.Random(0))
        assert len(set(candidates)) == len(candidates) and all(a in legal for a in candidates)
        counting = Counting(policy)
        bot = SearchBot(budget, {"hearts": counting})
        action = bot.choose(view, legal, random.Random(seed))
        assert action in candidates
        assert len(candidates) <= counting.values <= budget.call_samples * len(candidates)


def test_the_strong_bot_plays_the_queen_as_a_card_of_its_own():
    """The Q♠ is never merged with the spades beside it: giving it away is not playing a low spade."""
    policy = bots.game_bots("hearts").playout
    state = dealt({0: "2C", 1: "3C", 2: "AC AS", 3: "4C JS QS KS"})
    play(state, "2C", "3C", "AC", "4C", "AS")                 # seat 2 takes the first trick, leads the ace
    assert state.turn == 3
    view, legal = engine.view(state, 3), engine.legal_actions(state, 3)
    assert cards_text(mask(view.hand) & SUIT_MASKS[3]) == "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS"
    names = {engine.notation("hearts", a) for a in policy.candidates(view, legal)}
    assert names == {"play 2S", "play QS"}
    assert basic_choice(state) == "play QS"                   # and the basic bot throws it under the ace


# ---- the J♦ ("Omnibus") and three players ----

def cards(text: str) -> list[int]:
    return [parse_card(c) for c in text.split()]


def test_basic_wins_the_jack_when_it_is_safe():
    hand = parse_cards("JD 5D 2S")
    diamonds = hand & SUIT_MASKS[1]
    trick = cards("9D 2H 3H")                                        # last, two hearts in the trick
    assert basic.card_to_play(hand, diamonds, trick, mask(trick), jack=True) == parse_card("JD")
    assert basic.card_to_play(hand, diamonds, trick, mask(trick)) == parse_card("5D")   # without it: duck
    trick = cards("9D")                                              # first to follow: the A♦ is unseen
    assert basic.card_to_play(hand, diamonds, trick, mask(trick), jack=True) == parse_card("5D")
    gone = mask(trick) | parse_cards("QD KD AD QS")                  # nothing can beat it, the Q♠ is gone
    assert basic.card_to_play(hand, diamonds, trick, gone, jack=True) == parse_card("JD")
    gone &= ~parse_cards("QS")                                       # the Q♠ could still fall on it
    assert basic.card_to_play(hand, diamonds, trick, gone, jack=True) == parse_card("5D")


def test_basic_takes_a_trick_holding_the_jack_when_it_is_worth_it():
    hand = parse_cards("KD 2D 2S")
    diamonds = hand & SUIT_MASKS[1]
    trick = cards("5D JD 2H")                                        # last: the J♦ and a heart
    assert basic.card_to_play(hand, diamonds, trick, mask(trick), jack=True) == parse_card("KD")
    assert basic.card_to_play(hand, diamonds, trick, mask(trick)) == parse_card("2D")
    trick = cards("5D QS JD")                                        # the Q♠ in it: 13 - 10 > 0
    assert basic.card_to_play(hand, diamonds, trick, mask(trick), jack=True) == parse_card("2D")
    three = cards("5D JD")                                           # last of three
    assert basic.card_to_play(hand, diamonds, three, mask(three), players=3, jack=True) == parse_card("KD")
    assert basic.card_to_play(hand, diamonds, three, mask(three), players=4, jack=True) == parse_card("2D")


def test_basic_keeps_the_jack_from_the_leader():
    """Last to a trick the K♦ wins, with the J♦ its only card under it: the bot takes the trick
    (two hearts) rather than drop the J♦ under the leader's card; under another player's card it
    drops it."""
    hand = parse_cards("JD AD 2S")
    trick = cards("KD 2H 3H")
    kw = dict(jack=True, seats=[1, 2, 3])
    diamonds = hand & SUIT_MASKS[1]
    assert basic.card_to_play(hand, diamonds, trick, mask(trick), leader=1, **kw) == parse_card("AD")
    assert basic.card_to_play(hand, diamonds, trick, mask(trick), leader=2, **kw) == parse_card("JD")
    assert basic.leader_of([40, 20, 30, 20], 1) == 3 and basic.leader_of([40, 20, 30], 2) == 1


def test_basic_never_passes_discards_or_leads_away_the_jack():
    hand = parse_cards("JD QD KD 2C 3C 4C 5C 6C 7C 2S 3S 4S 5S")
    assert basic.pass_mask(hand) == parse_cards("JD QD KD")              # three diamonds: a void
    assert basic.pass_mask(hand, jack=True) == parse_cards("QD KD 7C")
    hand = parse_cards("JD 2H 2S")
    trick = cards("5C")                                              # void in clubs
    assert basic.card_to_play(hand, hand, trick, mask(trick)) == parse_card("JD")
    assert basic.card_to_play(hand, hand, trick, mask(trick), jack=True) == parse_card("2H")
    hand = parse_cards("JD 9C 3H")
    gone = parse_cards("2C 3C 4C 5C QD KD AD QS")
    assert basic.card_to_play(hand, hand, [], gone, jack=True) == parse_card("JD")   # a sure winner: lead it
    gone = gone & ~parse_cards("AD") | parse_cards("2D 3D 4D 5D 6D 7D 8D 9D 10D")   # the A♦ unseen
    assert basic.card_to_play(hand, hand, [], gone) == parse_card("JD")           # counting nothing: the lowest
    assert basic.card_to_play(hand, hand, [], gone, jack=True) == parse_card("9C")   # the A♦ would take it


def three_or_jack_games():
    return [HeartsOptions(players=3), HeartsOptions(players=3, jack_of_diamonds=True, moon="shooter_subtracts"),
            HeartsOptions(jack_of_diamonds=True), HeartsOptions(players=3, pass_cycle="RH", queen_breaks_hearts=True)]


def test_the_basic_bot_plays_whole_three_player_and_jack_games_legally():
    heuristic = bots.game_bots("hearts").basic
    for seed, options in enumerate(three_or_jack_games()):
        rng = random.Random(seed)
        state = engine.new_game("hearts", dataclasses.replace(options, target=60), rng=rng)
        moves = 0
        while state.phase != HeartsPhase.GAME_OVER:
            seat = state.turn if state.turn >= 0 else next(s for s in range(state.n) if engine.legal_actions(state, s))
            legal = engine.legal_actions(state, seat)
            action = heuristic(engine.view(state, seat), legal, rng)
            assert action in legal
            engine.apply(state, seat, action, rng)
            moves += 1
        assert len(state.scores) == options.players and state.winner and moves > 10
        assert all(len(r.points) == options.players and (r.jack >= 0) == options.jack_of_diamonds
                   for r in state.records)


def test_the_playout_plays_three_player_and_jack_hands_as_the_basic_bot():
    policy = bots.game_bots("hearts").playout
    rng = random.Random(3)
    for seed, options in enumerate(three_or_jack_games()):
        state = engine.new_game("hearts", options, rng=random.Random(seed), first_dealer=seed % options.players)
        state.scores = [10 * s for s in range(options.players)][::-1]          # a leader other than seat 0
        engine.apply(state, state.turn, engine.DEAL, rng)
        while state.phase in (HeartsPhase.PASS, engine.Phase.PLAY):
            seat = state.turn if state.turn >= 0 else next(s for s in range(state.n) if engine.legal_actions(state, s))
            view, legal = engine.view(state, seat), engine.legal_actions(state, seat)
            chosen = basic.choose(view, legal, rng)
            assert policy.act(state, seat, rng) == chosen
            engine.apply(state, seat, chosen, rng)
        copy = engine.new_game("hearts", options, rng=random.Random(seed), first_dealer=seed % options.players)
        engine.apply(copy, copy.turn, engine.DEAL, random.Random(seed))
        taken = play_hand(copy, policy, rng)
        assert taken == (options.players if copy.records[-1].passes else 0) + 52 - (52 % options.players)


def test_value_counts_the_two_others_at_a_table_of_three():
    policy = HeartsPlayout()
    before = engine.new_game("hearts", HeartsOptions(players=3), first_dealer=0)
    before.scores = [10, 20, 30]
    moon = before.copy()
    moon.scores = [10, 46, 56]                                       # seat 0 shot the moon
    assert policy.value(before, moon, 0) == pytest.approx(OTHERS * 52 / 2 + LEADER * 26)
    assert policy.value(before, moon, 1) < 0
    jack = before.copy()
    jack.scores = [0, 20, 30]                                         # seat 0 took the J♦ and nothing else
    assert policy.value(before, jack, 0) == 10


def test_the_strong_bot_plays_whole_three_player_and_jack_games_legally():
    bot = SearchBot(Budget(samples=4, call_samples=4, seconds=None, round=4))
    for seed, options in enumerate(three_or_jack_games()[:3]):
        rng = random.Random(seed)
        state = engine.new_game("hearts", dataclasses.replace(options, target=30), rng=rng)
        while state.phase != HeartsPhase.GAME_OVER:
            seat = state.turn if state.turn >= 0 else next(s for s in range(state.n) if engine.legal_actions(state, s))
            legal = engine.legal_actions(state, seat)
            action = bot.choose(engine.view(state, seat), legal, rng)
            assert action in legal
            engine.apply(state, seat, action, rng)
        assert len(state.winner) == 1


def test_the_strong_bot_searches_the_jack_as_a_card_of_its_own():
    policy = bots.game_bots("hearts").playout
    options = HeartsOptions(pass_cycle="H", jack_of_diamonds=True)
    full = fill_hands({0: "2C", 1: "3C", 2: "AC 2D", 3: "4C 10D JD QD"}, 4, 13, range(52))
    state = engine.new_game("hearts", options, first_dealer=3, decks=[round_robin_deck(full, 3)])
    engine.apply(state, 3, engine.DEAL, random.Random(0))
    play(state, "2C", "3C", "AC", "4C", "2D")                  # seat 2 takes the first trick, leads a diamond
    view, legal = engine.view(state, 3), engine.legal_actions(state, 3)
    names = {engine.notation("hearts", a) for a in policy.candidates(view, legal)}
    assert "play JD" in names and not {"play 10D", "play QD"} <= names   # 10D and QD are one run around it
    plain = engine.view(state, 3)
    plain.options = HeartsOptions(pass_cycle="H")
    assert "play JD" not in {engine.notation("hearts", a) for a in policy.candidates(plain, legal)}


def test_the_bot_keeps_the_jack_from_the_leader_by_the_scores_it_sees():
    """Seat 1 takes the first trick and leads the K♦, seats 2 and 3 throw a heart each: seat 0,
    last with the J♦ and the A♦, takes the trick when seat 1 has the lowest score of the others,
    and drops the J♦ under the K♦ when another has; the basic bot from its view and the playout
    from the state alike."""
    hands = {0: "2C JD AD 2S 3S 4S 5S 6S 7S 8S 9S 10S JS", 1: "AC 3C KD 2D 3D 4D 5D 6D 7D 8D 9D 10D QD",
             2: "4C 5C 6C 7C 8C 9C 2H 4H 5H 6H 7H 8H 9H", 3: "10C JC QC KC 3H 10H JH QH KH AH QS KS AS"}
    for scores, card in (([50, 20, 30, 40], "AD"), ([50, 30, 20, 40], "JD")):
        state = dealt(hands, HeartsOptions(pass_cycle="H", jack_of_diamonds=True, target=1000))
        state.scores = scores
        play(state, "2C", "AC", "4C", "10C", "KD", "2H", "3H")
        assert state.turn == 0
        assert basic_choice(state) == f"play {card}"
        assert engine.card_name(bots.game_bots("hearts").playout.card(state, 0)) == card
