"""Hearts' table settings (RULES.md §4.1), sentence by sentence: the J♦ counting −10 ("Omnibus")
in every hand, also in a moon hand, outside the moon, on the first trick and without breaking
hearts; three players with the 2♦ removed, seats 0..2, the pass cycle left, right, hold (across
refused, also when given), right passing to the seat before, the 2♣ leading, the moon and the
lowest of three winning; the options' refusals; and whole games under random settings keeping
every invariant and replaying from their log."""

from __future__ import annotations

import random
from math import comb

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
    rejects,
    round_robin_deck,
    start,
)
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from bots.sampling import sample_fills
from engine import DEAL, PLAY_CODE, Reason, kind_of, payload_of, play
from engine.core.actions import play_actions
from engine.core.cards import card_list
from engine.games import hearts_state
from engine.games.hearts_scoring import hand_score, hearts_winners
from engine.games.hearts_state import MOON_RULES, THREE_PLAYER_DECK, HeartsOptions, HeartsReason, PassChoices
from engine.games.hearts_words import HeartsPhase as Phase
from engine.games.hearts_words import pass_cards
from tests.engine.test_properties import (
    SETTINGS,
    check_legal_accepted,
    check_rejections,
    check_replay,
    check_scores,
    check_serialisation,
    check_tricks,
    mask_of,
)

R = Reason
H = HeartsReason
NOBODY = -1
JACK = HeartsOptions(pass_cycle="H", jack_of_diamonds=True)
THREE = HeartsOptions(players=3)


def deck4(dealer: int, hands: dict[int, str]) -> list[int]:
    """A four-player deck giving each listed seat its cards (the rest filled low first)."""
    return round_robin_deck(fill_hands(hands, 4, 13, range(52)), dealer)


def deck3(dealer: int, hands: dict[int, str]) -> list[int]:
    """A three-player deck (no 2♦) giving each listed seat its cards (the rest filled low first)."""
    return round_robin_deck(fill_hands(hands, 3, 17, THREE_PLAYER_DECK), dealer)


def tricks(state, text: str) -> None:
    """Play the named cards in order, each by the seat in turn."""
    for c in text.split():
        act(state, state.turn, play(C(c)))


def play_highest_for(state, seat: int) -> None:
    """Play the hand out: ``seat`` plays its highest legal card, the others their lowest."""
    hand = state.hand_no
    while state.hand_no == hand and state.phase == Phase.PLAY:
        legal = engine.legal_actions(state, state.turn)
        act(state, state.turn, legal[-1] if state.turn == seat else legal[0])


def finish_hand(state, rng: random.Random) -> None:
    """Play the hand in progress to its end: passes of the three highest cards, then random legal cards."""
    hand = state.hand_no
    while state.hand_no == hand and state.phase in (Phase.PASS, Phase.PLAY):
        if state.phase == Phase.PASS:
            seat = movers(state)[0]
            act(state, seat, pass_cards(cs(card_list(state.hands[seat])[-3:])))
            continue
        legal = engine.legal_actions(state, state.turn)
        act(state, state.turn, legal[rng.randrange(len(legal))])


def jack_winner(state, rng: random.Random) -> int:
    """Play the hand out at random and return the seat that won the trick holding the J♦."""
    hand, winner = state.hand_no, NOBODY
    while state.hand_no == hand and state.phase in (Phase.PASS, Phase.PLAY):
        if state.phase == Phase.PASS:
            finish_pass(state)
            continue
        legal = engine.legal_actions(state, state.turn)
        act(state, state.turn, legal[rng.randrange(len(legal))])
        if state.last_trick is not None and C("JD") in state.last_trick[1] and not state.trick_cards:
            winner = state.last_trick[2]
    return winner


def finish_pass(state) -> dict[int, int]:
    """Every seat still to pass passes its three highest cards; returns who gave what."""
    gives = {}
    for seat in movers(state):
        gives[seat] = cs(card_list(state.hands[seat])[-3:])
        act(state, seat, pass_cards(gives[seat]))
    return gives


# ---- jack_of_diamonds ----------------------------------------------------------------------------

# Dealer 0, hold: seat 1 leads the 2C; seat 2 (no clubs) may throw the J♦ on it; seat 3 wins the
# first trick with the A♣ and then leads the 2D to seat 0's A♦; seat 0, holding every other club,
# wins every trick after the first: every heart and the Q♠, but not the J♦ (seat 3's).
MOON_WITHOUT_JACK = {
    0: "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AH AD",
    1: "2C",
    2: "JD",
    3: "AC 2D",
}


def moon_without_jack(options: HeartsOptions):
    state = start("hearts", [deck4(0, MOON_WITHOUT_JACK)], dealer=0, options=options)
    assert state.turn == 1
    tricks(state, "2C JD AC 3C")
    play_highest_for(state, 0)
    return state.records[-1]


def test_the_jack_counts_minus_ten_for_the_player_who_wins_it():
    state = start("hearts", [deck4(0, MOON_WITHOUT_JACK)], dealer=0, options=JACK)
    tricks(state, "2C JD AC 3C")
    assert state.taken == [0, 0, 0, -10] and state.jack == 3
    v = engine.view(state, 1)
    assert v.rules.points_taken == [0, 0, 0, -10] and v.rules.jack == 3
    assert engine.view(state, None).rules.jack == 3
    off = start("hearts", [deck4(0, MOON_WITHOUT_JACK)], dealer=0, options=HeartsOptions(pass_cycle="H"))
    tricks(off, "2C JD AC 3C")
    assert off.taken == [0, 0, 0, 0] and off.jack == NOBODY and engine.view(off, 1).rules.jack is None


def test_the_jack_counts_in_every_hand_and_the_points_taken_then_add_up_to_16():
    rng = random.Random(7)
    state = new("hearts", dealer=1, options=HeartsOptions(jack_of_diamonds=True, target=1000))
    for h in range(1, 6):                                            # left, right, across, hold, left
        deal(state, seed=h)
        winner = jack_winner(state, rng)
        record = state.records[-1]
        assert record.hand == h and record.jack == winner >= 0
        assert sum(record.taken) == 16
        expected, shooter = hand_score(record.taken, winner, "others_add")
        assert record.points == expected and record.moon == shooter
        if shooter == NOBODY:
            assert record.points[winner] == record.taken[winner]          # its -10 is in its points
    assert [r.direction for r in state.records] == ["left", "right", "across", "hold", "left"]


@pytest.mark.parametrize(("moon", "points"), [("others_add", [0, 26, 26, 16]),
                                              ("shooter_subtracts", [-26, 0, 0, -10])])
def test_the_moon_takes_every_heart_and_the_queen_and_the_jack_keeps_its_minus_ten(moon, points):
    record = moon_without_jack(HeartsOptions(pass_cycle="H", jack_of_diamonds=True, moon=moon))
    assert record.taken == [26, 0, 0, -10] and record.jack == 3
    assert record.moon == 0, "the J♦ plays no part in the moon"
    assert record.points == points and sum(record.taken) == 16


def test_without_the_setting_the_jack_counts_nothing():
    record = moon_without_jack(HeartsOptions(pass_cycle="H"))
    assert record.taken == [26, 0, 0, 0] and record.jack == NOBODY and record.moon == 0
    assert record.points == [0, 26, 26, 26]


# Dealer 0, hold: seat 0 holds every club but the 2C and the A♥, and wins every trick (the J♦ too).
MOON_HANDS = {0: "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC AH", 1: "2C"}


@pytest.mark.parametrize(("moon", "points"), [("others_add", [-10, 26, 26, 26]),
                                              ("shooter_subtracts", [-36, 0, 0, 0])])
def test_a_shooter_who_also_won_the_jack(moon, points):
    state = start("hearts", [deck4(0, MOON_HANDS)], dealer=0,
                  options=HeartsOptions(pass_cycle="H", jack_of_diamonds=True, moon=moon))
    play_highest_for(state, 0)
    record = state.records[-1]
    assert record.taken == [16, 0, 0, 0] and record.moon == 0 and record.jack == 0
    assert record.points == points and state.scores == points


def test_sixteen_points_without_every_heart_is_no_moon():
    assert hand_score([16, 0, 10, 0], NOBODY, "others_add") == ([16, 0, 10, 0], NOBODY)    # Q♠ and 3 hearts
    assert hand_score([16, 0, 0, 0], 0, "others_add") == ([-10, 26, 26, 26], 0)           # 26 and the J♦
    assert hand_score([3, 13, -10, 10], 2, "shooter_subtracts") == ([3, 13, -10, 10], NOBODY)


def test_the_jack_may_be_played_to_the_first_trick_and_does_not_break_hearts():
    state = start("hearts", [deck4(0, MOON_WITHOUT_JACK)], dealer=0, options=JACK)
    tricks(state, "2C")
    assert card_list(state.hands[2]) == cl("JD 4H 5H 6H 7H 8H 9H 10H JH QH KH 2S 3S")   # no club
    assert engine.legal_actions(state, 2) == play_actions(cs("JD 2S 3S"))   # the J♦ is no point card there
    rejects(state, 2, "play 4H", H.NO_POINTS_ON_FIRST_TRICK)                 # while a heart still is
    tricks(state, "JD AC 3C")
    assert not state.broken and not engine.view(state, 0).rules.hearts_broken
    tricks(state, "2D AD 3D 2S")                                              # seat 3 leads, seat 0 wins
    assert state.turn == 0 and not state.broken
    rejects(state, 0, "play AH", H.HEARTS_NOT_BROKEN)                         # the J♦ broke nothing


# ---- players: three ------------------------------------------------------------------------------

@pytest.mark.parametrize("dealer", range(3))
def test_three_players_are_dealt_17_each_without_the_two_of_diamonds(dealer):
    deck = list(THREE_PLAYER_DECK)
    random.Random(dealer).shuffle(deck)
    state = new("hearts", [deck], dealer=dealer, options=THREE)
    assert state.n == 3 and state.scores == [0, 0, 0] and state.sides == 3
    act(state, dealer, DEAL)
    for i, c in enumerate(deck):                                     # one at a time from left of the dealer
        assert state.hands[(dealer + 1 + i) % 3] >> c & 1
    assert [h.bit_count() for h in state.hands] == [17] * 3
    assert not any(h >> C("2D") & 1 for h in state.hands) and len(state.deck) == 51
    assert state.phase == Phase.PASS and movers(state) == [0, 1, 2]
    for seat in range(3):
        legal = engine.legal_actions(state, seat)
        assert isinstance(legal, PassChoices) and len(legal) == comb(17, 3)
    check_views(state)


def test_a_three_player_deck_is_the_51_cards():
    with pytest.raises(ValueError, match="2D is not a card of hearts"):
        new("hearts", [list(range(52))], options=THREE)
    with pytest.raises(ValueError, match="1 cards are missing"):
        new("hearts", [THREE_PLAYER_DECK], options=HeartsOptions())
    state = new("hearts", options=THREE)
    with pytest.raises(ValueError, match="2D is not a card of hearts"):
        engine.apply(state, 0, DEAL, chance=engine.Chance(tuple(range(52)), "00"))
    assert engine.apply(state, 0, DEAL, chance=engine.Chance(tuple(THREE_PLAYER_DECK), "00")) is not None
    game = engine.game_of("hearts")
    assert game.seats_for(THREE) == 3 and game.seats_for(HeartsOptions()) == 4 and game.seat_counts == (3, 4)
    assert game.deck_for(THREE) == cs(THREE_PLAYER_DECK) and game.deck_for(HeartsOptions()) == (1 << 52) - 1


def test_three_players_sit_in_seats_zero_to_two():
    with pytest.raises(ValueError, match="first dealer must be a seat from 0 to 2"):
        engine.new_game("hearts", THREE, first_dealer=3)
    assert {engine.new_game("hearts", THREE, random.Random(seed)).dealer for seed in range(40)} == {0, 1, 2}
    options = HeartsOptions(players=3, pass_cycle="H", target=1000)
    state = start("hearts", [deck3(0, {1: "2C"})], dealer=0, options=options)
    assert state.turn == 1
    rejects(state, 3, "play 2C", R.NOT_YOUR_TURN)
    assert engine.legal_actions(state, 3) == []
    assert engine.view(state, 3).viewer is None                      # no seat 3: a spectator's view
    v = engine.view(state, 1)
    assert [info.seat for info in v.seats] == [0, 1, 2] and [s.seats for s in v.sides] == [[0], [1], [2]]
    assert len(v.rules.points_taken) == 3 and len(v.hand) == 17
    for dealer in (0, 1, 2, 0):                                       # the deal passes left, round three seats
        if state.phase == Phase.DEAL:
            assert state.dealer == dealer
            rejects(state, (dealer + 1) % 3, DEAL, R.NOT_YOUR_TURN)
            deal(state, seed=dealer)
        finish_hand(state, random.Random(dealer))
        assert state.records[-1].dealer == dealer and len(state.records[-1].points) == 3


def test_three_players_pass_left_right_hold_and_right_is_the_seat_before():
    state = new("hearts", dealer=0, options=HeartsOptions(players=3, target=1000))
    for h, direction in enumerate(["left", "right", "hold", "left", "right"]):
        deal(state, seed=h)
        assert engine.view(state, 0).rules.pass_direction == direction
        before = state.hands[:]
        if direction == "hold":
            assert state.phase == Phase.PLAY and movers(state) == [state.turn]
        else:
            gives = finish_pass(state)
            to = {"left": 1, "right": 2}[direction]                   # right: s - 1, two on round three seats
            for s in range(3):
                assert state.hands[(s + to) % 3] == before[(s + to) % 3] & ~gives[(s + to) % 3] | gives[s]
            for s in range(3):
                assert engine.view(state, s).rules.pass_received == card_list(gives[(s - to) % 3])
            check_views(state)
        finish_hand(state, random.Random(h))
        record = state.records[-1]
        assert record.direction == direction
        if direction == "right":
            assert [(p.seat, p.to) for p in record.passes] == [(0, 2), (1, 0), (2, 1)]
        elif direction == "left":
            assert [(p.seat, p.to) for p in record.passes] == [(0, 1), (1, 2), (2, 0)]
        else:
            assert record.passes == []


def test_across_is_refused_for_three_players_also_when_given():
    for cycle in ("LRAH", "A", "HHA", "LA"):
        with pytest.raises(ValueError, match="option pass_cycle may not name A \\(across\\) with 3 players"):
            engine.new_game("hearts", HeartsOptions(players=3, pass_cycle=cycle), first_dealer=0)
        with pytest.raises(ValueError, match="pass_cycle may not name A"):
            HeartsOptions.from_settings("hearts", {"players": "3", "pass_cycle": cycle})
    for cycle in ("", "LRH", "HLR", "R"):
        engine.new_game("hearts", HeartsOptions(players=3, pass_cycle=cycle), first_dealer=0)
    assert HeartsOptions.from_settings("hearts", {"players": "3"}).cycle == "LRH"
    assert engine.new_game("hearts", HeartsOptions(pass_cycle="A"), first_dealer=0).n == 4


@pytest.mark.parametrize("players", [0, 1, 2, 5, 6, -3, True])
def test_players_outside_three_and_four_are_refused(players):
    with pytest.raises(ValueError, match="option players must be an integer from 3 to 4"):
        engine.new_game("hearts", HeartsOptions(players=players), first_dealer=0)
    with pytest.raises(ValueError, match="option players must be an integer from 3 to 4"):
        HeartsOptions.from_settings("hearts", {"players": str(int(players))})


def test_the_two_of_clubs_still_opens_the_first_trick():
    state = start("hearts", [deck3(0, {2: "2C 3C 4C"})], dealer=0, options=THREE)
    gives = {2: cs("2C 3C 4C")}
    act(state, 2, pass_cards(gives[2]))                            # hand 1: left, to seat 0
    gives.update(finish_pass(state))
    assert state.turn == 0 and engine.legal_actions(state, 0) == [play(C("2C"))]
    rejects(state, 0, "play 3C", H.MUST_LEAD_TWO_OF_CLUBS)
    rejects(state, 1, "play 2C", R.NOT_YOUR_TURN)
    tricks(state, "2C")
    assert state.turn == 1


# Dealer 0, hold, three players: seat 0 holds every club but the 2C, the top diamonds, the A♠ and
# the A♥, and wins every trick.
MOON3 = {0: "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC QD KD AD AS AH", 1: "2C"}


def moon3(shooter: int, dealer: int) -> list[int]:
    return deck3(dealer, {(s + shooter) % 3: text for s, text in MOON3.items()})


@pytest.mark.parametrize(("moon", "points"), [("others_add", [0, 26, 26]), ("shooter_subtracts", [-26, 0, 0])])
def test_a_moon_of_three_gives_each_of_the_two_others_26_or_the_shooter_minus_26(moon, points):
    state = start("hearts", [moon3(0, 0)], dealer=0, options=HeartsOptions(players=3, pass_cycle="H", moon=moon))
    play_highest_for(state, 0)
    record = state.records[-1]
    assert record.taken == [26, 0, 0] and record.moon == 0 and record.tricks == [17, 0, 0]
    assert record.points == points and state.scores == points


def test_three_players_with_the_jack():
    state = start("hearts", [moon3(0, 0)], dealer=0,
                  options=HeartsOptions(players=3, pass_cycle="H", jack_of_diamonds=True))
    play_highest_for(state, 0)
    record = state.records[-1]
    assert record.taken == [16, 0, 0] and record.jack == 0 and record.points == [-10, 26, 26]


def test_the_lowest_of_the_three_scores_wins():
    state = start("hearts", [moon3(1, 0)], dealer=0, options=HeartsOptions(players=3, pass_cycle="H", target=26))
    play_highest_for(state, 1)
    assert state.scores == [26, 0, 26] and state.winner == [1] and state.phase == Phase.GAME_OVER
    v = engine.view(state, None)
    assert v.winner_seats == [1] and len(v.sides) == 3
    assert hearts_winners([30, 5, 5], 26) == [] and hearts_winners([30, 5, 6], 26) == [1]
    assert hearts_winners([25, 5, 6], 26) == []


def test_a_tie_for_the_lowest_of_three_plays_another_hand():
    state = start("hearts", [moon3(0, 0), moon3(1, 1), moon3(0, 2)], dealer=0,
                  options=HeartsOptions(players=3, pass_cycle="H", target=27))
    play_highest_for(state, 0)
    assert state.scores == [0, 26, 26] and state.winner == [] and state.phase == Phase.DEAL
    deal(state)
    play_highest_for(state, 1)
    assert state.scores == [26, 26, 52] and state.winner == [] and state.phase == Phase.DEAL   # seats 0 and 1 tie
    assert state.dealer == 2
    deal(state)
    play_highest_for(state, 0)
    assert state.scores == [26, 52, 78] and state.winner == [0] and state.phase == Phase.GAME_OVER


def test_a_three_player_state_and_its_records_are_stored_and_read_back():
    state = start("hearts", [deck3(2, {})], dealer=2, options=HeartsOptions(players=3, jack_of_diamonds=True))
    finish_hand(state, random.Random(1))
    again = engine.state_from_bytes(state.to_bytes())
    assert again == state and again.n == 3 and again.options.players == 3
    assert again.records[-1].jack == state.records[-1].jack >= 0
    old = state.to_dict()
    del old["jack"]                                                  # stored before the J♦ setting
    for record in old["records"]:
        del record["jack"]
    read = engine.state_from_dict(old)
    assert read.jack == NOBODY and read.records[-1].jack == NOBODY


# ---- whole games with random settings --------------------------------------------------------------

def check_cards(state, played: list[tuple[int, int]]) -> None:
    """Each card of the deck the options give is in exactly one place (a hand or the cards played)."""
    if state.phase in (Phase.DEAL, Phase.GAME_OVER):
        assert not any(state.hands) and not state.trick_cards
        return
    deck = engine.game_of("hearts").deck_for(state.options)
    places = list(state.hands) + [mask_of(c for _, c in played)]
    union = 0
    for p in places:
        assert not union & p, "a card is in two places"
        union |= p
    assert union == deck, f"cards missing: {engine.cards_text(deck & ~union)}"


def check_hand_records(state) -> None:
    """Every hand's points follow from its points taken, the J♦'s winner and the moon rule."""
    options = state.options
    n = state.n
    for record in state.records:
        jack = record.jack
        assert (jack >= 0) == options.jack_of_diamonds
        assert sum(record.taken) == (16 if options.jack_of_diamonds else 26)
        assert sum(record.tricks) == 52 // n and len(record.points) == n
        assert (record.points, record.moon) == hand_score(record.taken, jack, options.moon)
        letter = options.cycle[(record.hand - 1) % len(options.cycle)]
        assert record.direction == hearts_state.DIRECTION_NAMES[letter]
        assert len(record.passes) == (0 if letter == "H" else n)
        assert all(p.to == (p.seat + hearts_state.offset_of(letter, n)) % n for p in record.passes)


SETTINGS_3_OR_4 = st.one_of(
    st.builds(HeartsOptions, players=st.just(3), pass_cycle=st.sampled_from(["", "LRH", "H", "RL", "HLRR"]),
              target=st.integers(1, 100), moon=st.sampled_from(MOON_RULES), queen_breaks_hearts=st.booleans(),
              jack_of_diamonds=st.booleans()),
    st.builds(HeartsOptions, players=st.just(4), pass_cycle=st.sampled_from(["", "LRAH", "A", "RH"]),
              target=st.integers(1, 100), moon=st.sampled_from(MOON_RULES), queen_breaks_hearts=st.booleans(),
              jack_of_diamonds=st.booleans()),
)


@settings(max_examples=examples(30), **SETTINGS)
@given(seed=st.integers(0, 2**32 - 1), dealer=st.integers(0, 3), options=SETTINGS_3_OR_4)
def test_random_legal_play_under_random_settings_keeps_every_invariant_and_replays(seed, dealer, options):
    """Random legal actions from a new game to its end: after every action each card is in one
    place, tricks agree with the cards played, totals with the records, no view shows a hidden
    card, illegal actions change nothing, legal ones are accepted, the state serialises; every
    hand's points follow from the rules; the winner has the lowest score; replaying the log gives
    the very same state."""
    rng = random.Random(seed)
    dealer %= options.players
    state = engine.new_game("hearts", options, rng=rng, first_dealer=dealer)
    genesis = ("hearts", options, dealer, [])
    log: list[engine.LogEntry] = []
    played: list[tuple[int, int]] = []
    steps = 0
    while state.phase != Phase.GAME_OVER:
        if state.phase == Phase.DEAL:
            played = []
        seat = rng.choice(movers(state))
        legal = engine.legal_actions(state, seat)
        action = legal[rng.randrange(len(legal))]
        log.append(engine.LogEntry(seat, action, engine.apply(state, seat, action, rng)))
        if kind_of(action) == PLAY_CODE:
            played.append((seat, payload_of(action)))
        steps += 1
        assert steps < 20000, "the game did not end"
        check_cards(state, played)
        check_tricks(state, played)
        check_scores(state, [0] * options.players)
        if steps % 7 == 0:
            check_views(state)
            check_rejections(state, rng)
            check_legal_accepted(state, rng)
            check_serialisation(state)
    check_hand_records(state)
    (winner,) = state.winner
    assert max(state.scores) >= options.target and state.scores.count(state.scores[winner]) == 1
    assert state.scores[winner] == min(state.scores) and len(state.scores) == options.players
    check_replay(genesis, log, state)


def test_at_three_the_jack_may_be_thrown_on_the_first_trick_and_its_winner_gets_minus_ten():
    seat0 = "JD 2H 3D 4D 5D 6D 7D 8D 9D 10D QD KD AD 2S 3S 4S 5S"          # no club
    state = start("hearts", [deck3(0, {0: seat0, 1: "2C", 2: "3C"})], dealer=0,
                  options=HeartsOptions(players=3, pass_cycle="H", jack_of_diamonds=True))
    tricks(state, "2C")
    assert state.turn == 2 and state.hands[2] & cs("4C 5C") == 0                # the 3C is seat 2's only club
    tricks(state, "3C")
    assert engine.legal_actions(state, 0) == play_actions(state.hands[0] & ~cs("2H"))
    rejects(state, 0, "play 2H", H.NO_POINTS_ON_FIRST_TRICK)
    tricks(state, "JD")
    assert state.taken == [0, 0, -10] and state.jack == 2 and state.turn == 2 and not state.broken


# ---- the determinize hooks at three and with the J♦ ------------------------------------------------

def test_a_seats_view_rebuilds_into_worlds_that_show_it_again_at_three_and_with_the_jack():
    """Through a left and a right pass at three, and after the J♦ is won: the hidden cards are the
    other hands' (never the 2♦), a world built from them shows the viewer its very view, and plays
    on to the end of the hand."""
    rng = random.Random(9)
    state = new("hearts", dealer=0, options=HeartsOptions(players=3, jack_of_diamonds=True, target=1000))
    for hand in range(2):
        deal(state, seed=hand)
        act(state, 1, pass_cards(cs(card_list(state.hands[1])[:3])))
        for seat in range(3):
            check_worlds(state, seat, rng)
        finish_pass(state)
        while state.phase == Phase.PLAY:
            for seat in range(3):
                places = check_worlds(state, seat, rng)
                assert not places.cards >> C("2D") & 1
                assert sum(p.size for p in places.places) == places.cards.bit_count()
            legal = engine.legal_actions(state, state.turn)
            act(state, state.turn, legal[rng.randrange(len(legal))])
            if state.jack >= 0 and state.phase == Phase.PLAY:
                view = engine.view(state, 0)
                world = engine.determinize(view, sample_fills(engine.hidden(view), rng))
                assert world.jack == state.jack and world.taken == state.taken
                finish_hand(world, rng)
                assert world.records[-1].jack == state.jack
                break
        finish_hand(state, rng)
    assert [r.direction for r in state.records] == ["left", "right"]


def check_worlds(state, seat: int, rng: random.Random) -> engine.Hidden:
    view = engine.view(state, seat)
    places = engine.hidden(view)
    for _ in range(2):
        world = engine.determinize(view, sample_fills(places, rng))
        assert engine.view(world, seat) == view and world.n == 3
    return places
