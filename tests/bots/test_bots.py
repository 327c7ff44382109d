"""Computer players: always legal in every game under test, "basic" clearly beats "random", no
peeking at hidden cards, the right bot seat acts, the basic heuristics make the obvious choices,
and each game's bots come from its registered entry."""

from __future__ import annotations

import random

import pytest

import bots
import engine
from engine import NOBODY, Phase
from engine.core.cards import EUCHRE_DECK, card_list, parse_card, parse_cards
from engine.games.buck_euchre_words import DROP_OUT, ORDER_UP, PASS, STAY_IN, BuckPhase
from engine.games.spades_words import DOUBLE_NIL, REVEAL, SpadesPhase, bid
from tests.engine.engine_helpers import GAMES, short_options

BASIC_GAMES = [variant for variant in GAMES if bots.BOTS["basic"].plays(variant)]
"""The games under test that the basic bot plays (those with a registered heuristic)."""


def basic_action(state, seat, legal, rng):
    """The basic heuristic's own choice for ``seat`` (from its view), before any legality check."""
    heuristic = bots.game_bots(state.variant).basic
    assert heuristic is not None
    return heuristic(engine.view(state, seat), legal, rng)


SMALL = engine.SpadesOptions(target_score=200)


def new(variant: str, seed: int, target: int = 200, dealer: int | None = None) -> engine.TableState:
    """A fresh game with a small Spades target, dealt from ``seed``."""
    n = engine.game_of(variant).seats
    return engine.new_game(variant, short_options(variant, target), rng=random.Random(seed),
                           first_dealer=seed % n if dealer is None else dealer)


def play_out(state, strategies, seed, max_hands=30, check=None):
    """Let bots play every seat until the game ends or ``max_hands`` hands were dealt."""
    rng = random.Random(seed)
    seats = set(range(state.n))
    while state.phase != Phase.GAME_OVER and not (state.phase == Phase.DEAL and state.hand_no >= max_hands):
        seat = bots.bot_seat_to_act(state, seats)
        assert seat is not None
        legal = engine.legal_actions(state, seat)
        if check:
            check(state, seat, strategies[seat], legal)
        action = bots.choose_action(strategies[seat], state, seat, rng)
        assert action in legal
        engine.apply(state, seat, action, rng)
    return state


def lineups(n):
    return {"random": ["random"] * n, "basic": ["basic"] * n,
            "mixed": (["basic", "random"] * n)[:n], "mixed2": (["random", "basic"] * n)[:n]}


# ---- every action legal, whole games ----

@pytest.mark.parametrize("variant,lineup", [(variant, lineup) for variant in GAMES
                                            for lineup in (lineups(1) if variant in BASIC_GAMES else ["random"])])
def test_whole_games_only_legal_actions(variant, lineup):
    strategies = lineups(engine.game_of(variant).seats)[lineup]

    def check(state, seat, strategy, legal):
        if strategy == "basic" and len(legal) > 1:   # the heuristic itself, not the fallback
            assert basic_action(state, seat, legal, random.Random(0)) in legal

    finished = 0
    for seed in range(4):
        state = play_out(new(variant, seed), strategies, seed, max_hands=12, check=check)
        assert state.records
        finished += state.phase == Phase.GAME_OVER
    if lineup == "basic":
        assert finished >= 1


def test_games_with_double_nil_exchanges():
    """Random bids bring Double Nil exchanges (4p partners, 2p put-aside); basic seats join in."""
    phases = set()

    def check(state, seat, strategy, legal):
        phases.add(state.phase)
        if strategy == "basic" and len(legal) > 1:
            assert basic_action(state, seat, legal, random.Random(0)) in legal

    for variant, strategies in (("spades", ["basic", "basic", "random", "random"]), ("spades2", ["basic", "random"])):
        for seed in range(6):                     # 4p: each partnership has a basic and a random seat
            play_out(new(variant, seed), strategies, seed, max_hands=15, check=check)
    assert SpadesPhase.EXCHANGE in phases


def test_spades2_double_nil_put_aside_gives_high_cards():
    for seed in range(5):
        state = new("spades2", seed, dealer=0)
        rng = random.Random(seed)
        engine.apply(state, 0, engine.DEAL, rng)
        engine.apply(state, 0, DOUBLE_NIL, rng)
        while state.phase == SpadesPhase.DRAW:
            engine.apply(state, state.turn, bots.choose_action("basic", state, state.turn, rng), rng)
        assert state.phase == SpadesPhase.EXCHANGE and state.turn == 0
        legal = engine.legal_actions(state, 0)
        action = basic_action(state, 0, legal, rng)
        assert action in legal
        given = card_list(engine.payload_of(action))
        kept = card_list(state.hands[0] & ~engine.payload_of(action))
        assert given and all(c % 13 >= 8 or c // 13 == 3 for c in given)        # tens and up, or spades
        assert len(given) == 3 or all(c % 13 < 8 and c // 13 != 3 for c in kept)


# ---- basic beats random ----

def test_basic_beats_random_spades4():
    basic_wins = random_wins = margin = 0
    for seed in range(12):
        b = seed % 2                                      # which partnership is basic
        strategies = ["basic" if s % 2 == b else "random" for s in range(4)]
        state = play_out(new("spades", seed), strategies, seed, max_hands=30)
        margin += state.scores[b] - state.scores[1 - b]
        basic_wins += state.winner == [b]
        random_wins += state.winner == [1 - b]
    assert basic_wins >= 10 and random_wins == 0, (basic_wins, random_wins)
    assert margin > 12 * 300


def test_basic_beats_random_spades2():
    basic_wins = random_wins = margin = 0
    for seed in range(12):
        b = seed % 2
        strategies = ["basic" if s == b else "random" for s in range(2)]
        state = play_out(new("spades2", seed), strategies, seed, max_hands=30)
        margin += state.scores[b] - state.scores[1 - b]
        basic_wins += state.winner == [b]
        random_wins += state.winner == [1 - b]
    assert basic_wins >= 10 and random_wins == 0, (basic_wins, random_wins)
    assert margin > 12 * 300


def test_basic_beats_random_buck_euchre():
    basic, rand, wins = [], [], {"basic": 0, "random": 0}
    for seed in range(40):
        strategies = ["basic", "random"] * 2 if seed % 2 == 0 else ["random", "basic"] * 2
        state = play_out(new("buck_euchre", seed), strategies, seed, max_hands=200)
        for s in range(4):
            (basic if strategies[s] == "basic" else rand).append(state.scores[s])
        if state.winner:
            wins[strategies[state.winner[0]]] += 1
    avg_basic, avg_random = sum(basic) / len(basic), sum(rand) / len(rand)
    assert avg_basic + 15 < avg_random, (avg_basic, avg_random)
    assert wins["basic"] >= 3 * wins["random"], wins


# ---- no peeking ----

def scrambled(state: engine.TableState, seat: int, rng: random.Random) -> engine.TableState:
    """A copy where every card ``seat`` cannot see is dealt anew among the hidden places: the
    other hands and a kitty (and in the two-player draw, the stock and the unseen discards)."""
    other = state.copy()
    deck = other.deck[:]
    rng.shuffle(deck)
    other.deck = deck
    if state.variant == "spades2":
        opp = 1 - seat
        hidden = (state.hands[opp] | state.discards | _stock(state)) & ~state.seen[seat] & ~state.hands[seat]
        cards = card_list(hidden)
        rng.shuffle(cards)
        k = state.hands[opp].bit_count()
        other.hands[opp] = _mask(cards[:k])
        hidden_discards = (state.discards & ~state.seen[seat]).bit_count()
        other.discards = state.discards & state.seen[seat] | _mask(cards[k:k + hidden_discards])
        return other
    others = [s for s in range(state.n) if s != seat]
    kitty = getattr(state, "kitty", None)
    cards = [c for s in others for c in card_list(state.hands[s])] + card_list(kitty or 0)
    rng.shuffle(cards)
    for s in others:
        k = state.hands[s].bit_count()
        other.hands[s], cards = _mask(cards[:k]), cards[k:]
    if kitty is not None:
        other.kitty = _mask(cards)
    return other


def _stock(state) -> int:
    return _mask(state.deck[state.pos:]) if state.phase == SpadesPhase.DRAW else 0


def _mask(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


@pytest.mark.parametrize("variant", BASIC_GAMES)
def test_basic_decides_from_its_view_only(variant):
    rng = random.Random(99)
    checked = changed = 0

    def check(state, seat, strategy, legal):
        nonlocal checked, changed
        if strategy != "basic" or len(legal) < 2:
            return
        mine = basic_action(state, seat, legal, random.Random(1))
        for _ in range(2):
            copy = scrambled(state, seat, rng)
            changed += copy.hands != state.hands
            assert engine.view(copy, seat).hand == engine.view(state, seat).hand
            assert basic_action(copy, seat, legal, random.Random(1)) == mine
        checked += 1

    for seed in range(3):
        play_out(new(variant, seed), lineups(engine.game_of(variant).seats)["mixed"], seed, max_hands=6, check=check)
    assert checked > 100 and changed > checked


# ---- which bot acts ----

def test_bot_seat_to_act_in_turn_and_not_for_reveal():
    state = new("spades", 0, dealer=3)
    assert bots.bot_seat_to_act(state, {3}) == 3            # the dealer deals
    assert bots.bot_seat_to_act(state, {0, 1, 2}) is None
    engine.apply(state, 3, engine.DEAL, random.Random(0))
    assert state.turn == 0
    assert REVEAL in engine.legal_actions(state, 2)         # a seat may look out of turn ...
    assert bots.bot_seat_to_act(state, {1, 2, 3}) is None   # ... but that never makes it act
    assert bots.bot_seat_to_act(state, {0, 2}) == 0
    engine.apply(state, 0, bid(3), random.Random(0))
    assert bots.bot_seat_to_act(state, {1}) == 1
    assert bots.bot_seat_to_act(state, set()) is None


def test_bot_seat_to_act_in_double_nil_exchange():
    state = new("spades", 0, dealer=3)
    rng = random.Random(0)
    engine.apply(state, 3, engine.DEAL, rng)
    for seat, action in ((0, bid(4)), (1, DOUBLE_NIL), (2, bid(3)), (3, bid(5))):
        engine.apply(state, seat, action, rng)
    assert state.phase == SpadesPhase.EXCHANGE and state.turn == NOBODY
    assert bots.bot_seat_to_act(state, {0, 1, 2, 3}) == 1   # lowest bot seat that must choose
    assert bots.bot_seat_to_act(state, {0, 2, 3}) == 3
    assert bots.bot_seat_to_act(state, {0, 2}) is None
    action = bots.choose_action("basic", state, 1, rng)
    engine.apply(state, 1, action, rng)
    assert bots.bot_seat_to_act(state, {0, 1, 2, 3}) == 3
    engine.apply(state, 3, bots.choose_action("random", state, 3, rng), rng)
    assert state.phase == Phase.PLAY and bots.bot_seat_to_act(state, {0, 1, 2, 3}) == 0


def test_bot_seat_to_act_game_over_and_errors():
    state = play_out(new("spades2", 1), ["basic", "basic"], 1, max_hands=40)
    assert state.phase == Phase.GAME_OVER
    assert bots.bot_seat_to_act(state, {0, 1}) is None
    with pytest.raises(ValueError):
        bots.choose_action("basic", state, 0, random.Random(0))
    with pytest.raises(ValueError):
        bots.choose_action("clever", new("spades", 0), 0, random.Random(0))
    assert tuple(bots.BOTS) == ("random", "basic", "strong")


def test_random_picks_from_lazy_exchange_choices():
    state = new("spades", 0, dealer=3)
    rng = random.Random(0)
    engine.apply(state, 3, engine.DEAL, rng)
    for seat, action in ((0, DOUBLE_NIL), (1, bid(4)), (2, bid(3)), (3, bid(5))):
        engine.apply(state, seat, action, rng)
    picks = {bots.choose_action("random", state, 2, random.Random(i)) for i in range(20)}
    assert len(picks) > 10 and all(a in engine.legal_actions(state, 2) for a in picks)


# ---- basic heuristics on arranged hands ----

def spades_state(hands: dict[int, str], bids=(), dealer=3) -> engine.TableState:
    """Four-player Spades dealt so that the given seats hold the given cards; then ``bids``."""
    fixed = {s: card_list(parse_cards(t)) for s, t in hands.items()}
    rest = [c for c in range(52) if not any(c in h for h in fixed.values())]
    for s in range(4):
        k = 13 - len(fixed.setdefault(s, []))
        fixed[s], rest = fixed[s] + rest[:k], rest[k:]
    deck = [fixed[(dealer + 1 + i) % 4][i // 4] for i in range(52)]
    state = engine.new_game("spades", SMALL, first_dealer=dealer, decks=[deck])
    engine.apply(state, dealer, engine.DEAL, random.Random(0))
    for action in bids:
        engine.apply(state, state.turn, action, random.Random(0))
    return state


def basic(state, seat=None) -> str:
    seat = state.turn if seat is None else seat
    return engine.notation(state.variant, bots.choose_action("basic", state, seat, random.Random(0)))


def play(state, *cards):
    for c in cards:
        engine.apply(state, state.turn, engine.play(parse_card(c)), random.Random(0))


WEAK = "2C 3C 5C 9C 2D 4D 6D 10D 3H 5H 7H JH 2S"
STRONG = "AC KC AD KD QD AH KH AS KS QS JS 10S 9S"


def test_spades_bidding():
    state = spades_state({0: WEAK, 1: STRONG})
    assert basic(state) == "reveal"                          # looks before bidding
    engine.apply(state, 0, REVEAL, random.Random(0))
    assert basic(state) == "bid 0"                           # a hopeless hand bids Nil
    engine.apply(state, 0, bid(0), random.Random(0))
    engine.apply(state, 1, REVEAL, random.Random(0))
    assert int(basic(state).split()[1]) >= 9                 # a powerhouse bids high
    state = spades_state({2: STRONG}, bids=[bid(6), bid(3)])
    engine.apply(state, 2, REVEAL, random.Random(0))
    assert basic(state) == "bid 7"                           # partnership total capped at 13


def test_spades_nil_bidder_leads_low_and_ducks():
    state = spades_state({0: "3C 5C 2D 4D 6D 10D 3H 5H 7H JH 2S 9C QC"},
                         bids=[bid(0), bid(3), bid(6), bid(3)])
    assert basic(state) == "play 2D"                         # the Nil bidder leads its lowest card
    state = spades_state({0: "3C 5C 2D 4D 6D 10D 3H 5H 7H JH 2S 9C QC", 3: "KC"}, dealer=2,
                         bids=[bid(3), bid(0), bid(3), bid(6)])
    play(state, "KC")
    assert basic(state) == "play QC"                         # highest club under the king


def test_spades_partner_covers_nil():
    state = spades_state({0: "QC 2D 4D 6D 10D 3H 5H 7H JH 2S 3S 4S 5S", 2: "AC KC", 3: "JC"}, dealer=2,
                         bids=[bid(3), bid(0), bid(3), bid(6)])
    play(state, "JC", "QC")                                  # the Nil bidder is winning ...
    play(state, engine.card_name(engine.payload_of(engine.legal_actions(state, 1)[0])))
    assert basic(state) == "play KC"                         # ... so its partner overtakes, cheaply


FOLLOWER = "8C 10C QC AC 2D 3D 4D 5H 6H 7H 8H 2S 3S"


def test_spades_contract_play():
    def trick(tricks_of_1=0, second="2C"):
        state = spades_state({0: "9C", 1: second, 2: "5C", 3: FOLLOWER},
                             bids=[bid(4), bid(2), bid(3), bid(2)])
        state.tricks[1] = tricks_of_1
        play(state, "9C", second, "5C")
        return state
    assert basic(trick()) == "play 10C"                      # last to play: lowest winner
    assert basic(trick(tricks_of_1=4)) == "play 8C"          # contract made: duck the bag
    assert basic(trick(second="KC")) == "play 8C"            # partner wins with a king: no overtaking
    state = spades_state({0: "AC KC 4C 3D 2H 3H 4H 5H 2S 3S 4S 5S 6S"},
                         bids=[bid(4), bid(2), bid(3), bid(2)])
    assert basic(state) == "play AC"                         # leads an ace


def test_double_nil_exchange_gives_high_and_low():
    state = spades_state({0: "AC KC 4C 3D 2H 3H 4H 5H 2S 3S 4S AS KS",
                          2: "2C 3C QC 4D 5D 6D 7D 8D 9D 10S JS 9H 10H"},
                         bids=[DOUBLE_NIL, bid(3), bid(4), bid(3)])
    assert state.phase == SpadesPhase.EXCHANGE
    assert basic(state, 0) == "exchange AC KS AS"            # Double Nil gives its highest
    assert basic(state, 2) == "exchange 2C 3C 4D"            # partner gives its lowest side cards


def test_spades2_draw_keeps_good_cards():
    state = new("spades2", 0, dealer=0)
    engine.apply(state, 0, engine.DEAL, random.Random(0))
    for card, want in (("AH", "keep"), ("3S", "keep"), ("KD", "keep"), ("QH", "discard"), ("4C", "discard")):
        state.offered = parse_card(card)
        assert basic(state) == want, card
    assert DOUBLE_NIL in engine.legal_actions(state, 0)  # offered, never taken


# ---- Buck Euchre ----

def euchre_state(hands: dict[int, str], turn_up: str, dealer=3) -> engine.TableState:
    """Buck Euchre dealt so that the given seats hold the given cards and ``turn_up`` is turned up."""
    fixed = {s: card_list(parse_cards(t)) for s, t in hands.items()}
    up = parse_card(turn_up)
    rest = [c for c in card_list(EUCHRE_DECK) if c != up and not any(c in h for h in fixed.values())]
    for s in range(4):
        if s not in fixed:
            fixed[s], rest = rest[:5], rest[5:]
    deck = [fixed[(dealer + 1 + i) % 4][i // 4] for i in range(20)] + [up] + rest
    state = engine.new_game("buck_euchre", first_dealer=dealer, decks=[deck])
    engine.apply(state, dealer, engine.DEAL, random.Random(0))
    return state


def test_euchre_trump_making_and_discard():
    state = euchre_state({0: "JH JD AH 9C 10S", 1: "9S 10D QC KC AC"}, "9H")
    assert basic(state) == "order-up"                        # both bowers and the ace
    engine.apply(state, 0, PASS, random.Random(0))
    assert basic(state) == "pass"                            # no hearts at all
    state = euchre_state({3: "JS QH 9D 10D AC"}, "KS")
    for _ in range(3):
        engine.apply(state, state.turn, PASS, random.Random(0))
    assert basic(state) == "pass"                             # dealer: two spades is not enough
    state = euchre_state({0: "JH JD AH 9C 10S"}, "KS")
    for _ in range(4):
        engine.apply(state, state.turn, PASS, random.Random(0))
    assert state.phase == BuckPhase.NAME_TRUMP and basic(state) == "name H"
    state = euchre_state({3: "JS QS 9D 10D AC"}, "KS")
    for _ in range(3):
        engine.apply(state, state.turn, PASS, random.Random(0))
    engine.apply(state, 3, ORDER_UP, random.Random(0))
    assert basic(state) == "exchange 9D"                     # lowest side card, aces kept


def test_euchre_drop_and_play():
    state = euchre_state({0: "JH JD AH KH QH", 1: "9C 10C 9D 10D QD", 2: "AD 9S 10S QS KS"}, "9H")
    engine.apply(state, 0, ORDER_UP, random.Random(0))
    engine.apply(state, 3, bots.choose_action("basic", state, 3, random.Random(0)), random.Random(0))
    assert state.phase == BuckPhase.DROP_OUT and state.turn == 1
    assert basic(state) == "drop"                             # nothing that takes a trick
    engine.apply(state, 1, DROP_OUT, random.Random(0))
    assert basic(state) == "stay"                             # an off ace
    engine.apply(state, 2, STAY_IN, random.Random(0))
    engine.apply(state, 3, STAY_IN, random.Random(0))
    assert state.phase == Phase.PLAY and state.turn == 0
    assert basic(state) == "play JH"                         # the maker leads the right bower
    play(state, "JH")
    assert basic(state) == "play 9S"                          # cannot win: lowest card


# ---- each game brings its bots ----

def test_every_game_with_a_heuristic_is_played_by_the_basic_bot_and_any_game_by_the_random_one():
    for variant in GAMES:
        entry = bots.game_bots(variant)
        assert bots.BOTS["basic"].plays(variant) == (entry.basic is not None)
        assert bots.bot_of("random", variant).name == "random"
        if entry.basic is None:
            with pytest.raises(ValueError, match="does not play"):
                bots.bot_of("basic", variant)
    assert "whist" not in bots.GAME_BOTS and not bots.BOTS["basic"].plays("whist")
    assert set(BASIC_GAMES) >= {game.name for game in engine.games.BUILTIN}


def _lowest_card(view, legal, rng):
    """A heuristic for Whist: the lowest legal card (or whatever else is legal)."""
    return min(legal)


def test_a_registered_entry_makes_the_basic_bot_play_a_game_until_it_is_removed():
    assert bots.register_game("whist", basic=_lowest_card) is bots.register_game("whist", basic=_lowest_card)
    try:
        entry = bots.game_bots("whist")
        assert entry.basic is _lowest_card and entry.playout is None and entry.budget is None
        assert entry.name == "whist" and bots.bot_of("basic", "whist").plays("whist")
        with pytest.raises(ValueError, match="different"):
            bots.register_game("whist", basic=lambda view, legal, rng: legal[0])
        state = play_out(new("whist", 1), ["basic", "random"] * 2, 1, max_hands=3)
        assert state.records
        state = new("whist", 2, dealer=0)
        engine.apply(state, 0, engine.DEAL, random.Random(0))
        legal = engine.legal_actions(state, state.turn)
        assert bots.choose_action("basic", state, state.turn, random.Random(0)) == min(legal)
    finally:
        bots.unregister_game("whist")
    assert not bots.BOTS["basic"].plays("whist") and "whist" not in bots.GAME_BOTS
    with pytest.raises(ValueError, match="does not play"):
        bots.bot_of("basic", "whist")
