"""Property tests: whole games of every game under test (``engine_helpers.GAMES``) played with
random legal actions, with the engine's invariants checked after every action.

After each action: every card is in exactly one place (hands, the current trick, the cards
played, and a game's other places: the discards / kitty / dealer discard / stock / offered
card); trick counts agree with the cards played; the totals equal the start plus the sum of the
hand records; no view shows a hidden card; random actions outside ``legal_actions`` are rejected
with ``IllegalAction`` and leave the state byte-for-byte unchanged; every action in
``legal_actions`` is accepted (tried on a copy); the state survives serialisation; each hand and
the game end within a bound. A game's own rules add their checks through its facts
(``tests/engine/facts``: its other places of cards, the seats that play a hand, its score rules,
the options its games are played with); a game without any gets the common ones.
"""

from __future__ import annotations

import random

import pytest
from engine_helpers import GAMES, check_views, examples, movers
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import (
    PLAY_CODE,
    IllegalAction,
    Phase,
    Shape,
    TableState,
    kind_of,
    payload_of,
)
from engine.core.cards import card_list
from engine.games.buck_euchre_words import BuckCode
from engine.games.spades_words import DOUBLE_NIL, REVEAL, SpadesCode, SpadesPhase, bid
from tests.engine.facts import facts_of

MAX_HANDS = 200
EXCHANGE_SAMPLE = 6
KINDS = sorted({word.code for variant in GAMES for word in engine.game_of(variant).vocabulary.words})
"""The codes of every word of the games under test (an action of another game's word is one more
action a game must refuse)."""


def max_actions(variant: str) -> int:
    """The most actions a hand of ``variant`` may take: as its facts say, else a deal, then at
    most three actions a card."""
    return facts_of(variant).max_actions_per_hand or 1 + 3 * len(engine.game_of(variant).cards)


SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ---- a policy that plays legal actions and bids so that games end ----------------------------

def foresee_tricks(state: TableState, seed: int) -> list[int]:
    """The tricks each seat will win if the hand is played with ``Random(seed)`` choosing the
    cards (bids do not change which cards are legal, so bidding these makes the contracts)."""
    sim = state.copy()
    while sim.phase == SpadesPhase.BID:
        seat = sim.turn
        engine.apply(sim, seat, bid(1))
    while sim.phase == SpadesPhase.EXCHANGE:                     # only when a Double Nil was bid already
        seat = movers(sim)[0]
        acts = engine.legal_actions(sim, seat)
        engine.apply(sim, seat, acts[0], random.Random(seed))
    play_rng = random.Random(seed)
    while sim.phase == Phase.PLAY:
        engine.apply(sim, sim.turn, play_choice(sim, play_rng))
    return sim.records[-1].tricks


def play_choice(state: TableState, play_rng: random.Random) -> int:
    acts = engine.legal_actions(state, state.turn)
    return acts[play_rng.randrange(len(acts))]


class Policy:
    """Plays legal actions at random; in Spades it mostly bids the tricks the seat is going to
    win (foreseen by playing the hand out on a copy), so that contracts are made and games end,
    with some Nil, Double Nil, over- and under-bids for variety."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.hand_seed = 0
        self.plan: list[int] | None = None
        self.play_rng = random.Random(0)

    def new_hand(self) -> None:
        self.hand_seed = self.rng.randrange(1 << 30)
        self.plan = None
        self.play_rng = random.Random(self.hand_seed)

    def choose(self, state: TableState) -> tuple[int, int]:
        rng = self.rng
        if state.phase == Phase.PLAY:
            return state.turn, play_choice(state, self.play_rng)
        seats = movers(state)
        assert seats, f"nobody can act in phase {engine.phase_of(state).name}"
        seat = rng.choice(seats)
        if state.turn in seats and seat != state.turn and rng.random() < 0.7:
            seat = state.turn                   # looking out of turn now and then, not all the time
        acts = engine.legal_actions(state, seat)
        if state.variant in ("spades", "spades2") and any(kind_of(a) == SpadesCode.BID for a in acts):
            if self.plan is None:
                self.plan = foresee_tricks(state, self.hand_seed)
            r = rng.random()
            if r < 0.03 and DOUBLE_NIL in acts:
                return seat, DOUBLE_NIL
            if r < 0.08 and REVEAL in acts:
                return seat, REVEAL
            if r < 0.13 and self.plan[seat] <= 1:
                return seat, bid(0)
            if r < 0.80:
                return seat, bid(self.plan[seat])
            return seat, bid(max(0, min(13, self.plan[seat] + rng.choice([-2, -1, 1, 2]))))
        if state.variant in ("spades", "spades2") and DOUBLE_NIL in acts and rng.random() < 0.95:
            acts = [a for a in acts if a != DOUBLE_NIL]
        preferred = facts_of(state.variant).pass_action
        if preferred is not None and preferred in acts and rng.random() < 0.75:   # reach the later rounds
            return seat, preferred
        return seat, acts[rng.randrange(len(acts))]


def choose(state: TableState, rng: random.Random) -> tuple[int, int]:
    """Any seat that may act and one of its legal actions, at random."""
    seat = rng.choice(movers(state))
    acts = engine.legal_actions(state, seat)
    return seat, acts[rng.randrange(len(acts))]


# ---- invariants --------------------------------------------------------------------------------

def mask_of(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def check_cards(state: TableState, played: list[tuple[int, int]]) -> None:
    """Each card of the game's deck is in exactly one place."""
    deck = engine.game_of(state.variant).deck_mask
    if state.phase in (Phase.DEAL, Phase.GAME_OVER):     # between hands: nothing is dealt
        assert not any(state.hands) and not state.trick_cards
        return
    cards = [card for _, card in played]
    places = list(state.hands) + [mask_of(cards)]
    assert len(set(cards)) == len(cards), "a card was played twice"
    assert state.trick_cards == cards[len(cards) - len(state.trick_cards):]
    extra = facts_of(state.variant).extra_places
    if extra is not None:
        places += extra(state, places)
    union = 0
    total = 0
    for p in places:
        union |= p
        total += p.bit_count()
    assert union == deck, f"cards missing: {engine.cards_text(deck & ~union)}"
    assert total == deck.bit_count(), "a card is in two places"


def check_tricks(state: TableState, played: list[tuple[int, int]]) -> None:
    """Tricks won and cards played agree, seat by seat; every seat holds as many cards as the
    others once its cards played are counted back."""
    if state.phase != Phase.PLAY:
        return
    seats = facts_of(state.variant).playing_seats
    mask = seats(state) if seats is not None else (1 << state.n) - 1
    active = [s for s in range(state.n) if mask >> s & 1]
    size = len(active)
    done = sum(state.tricks)
    assert done * size + len(state.trick_cards) == len(played)
    assert len(state.trick_cards) < size
    assert len(set(state.trick_seats)) == len(state.trick_seats)
    counts = [0] * state.n
    for seat, _ in played:
        counts[seat] += 1
    for s in range(state.n):
        expect = done + (1 if s in state.trick_seats else 0) if s in active else 0
        assert counts[s] == expect, (s, counts[s], expect)
    held = [state.hands[s].bit_count() + counts[s] for s in range(state.n)]
    assert len(set(held)) == 1, held
    assert state.turn in active and state.turn not in state.trick_seats


def check_scores(state: TableState, start: list[int]) -> None:
    """Every side's total is its start plus its points in the hand records, as the last record
    says; the game is over exactly when it has a winner; and the game's own score rules."""
    for side in range(state.sides):
        assert state.scores[side] == start[side] + sum(r.points[side] for r in state.records)
    if state.records:
        assert state.records[-1].totals == state.scores
    assert (state.phase == Phase.GAME_OVER) == bool(state.winner)
    assert len(state.winner) <= 1
    own = facts_of(state.variant).score_check
    if own is not None:
        own(state, start)


def check_serialisation(state: TableState) -> None:
    raw = state.to_bytes()
    again = engine.state_from_bytes(raw)
    assert again == state
    assert again.to_bytes() == raw
    assert state.copy().to_bytes() == raw


def random_action(state: TableState, rng: random.Random) -> tuple[int, int]:
    """A random (seat, action) from the meaningful part of the encoding space."""
    seat = rng.choice(list(range(state.n)) + [-1, state.n]) if rng.random() < 0.1 else rng.randrange(state.n)
    kind = rng.choice(KINDS)
    word = engine.game_of(state.variant).vocabulary.by_code.get(kind)
    if kind == PLAY_CODE:
        if rng.random() < 0.7 and any(state.hands):
            owner = rng.randrange(state.n)
            cards = card_list(state.hands[owner]) or [rng.randrange(52)]
            payload = rng.choice(cards)
        else:
            payload = rng.randrange(52)
    elif kind == SpadesCode.BID:
        payload = rng.randrange(16)
    elif kind == BuckCode.NAME_SUIT:
        payload = rng.randrange(4)
    elif kind == SpadesCode.EXCHANGE or (word is not None and word.shape is Shape.CARDS):   # Hearts' pass too
        pool = card_list(state.hands[seat]) if 0 <= seat < state.n and state.hands[seat] else list(range(52))
        if rng.random() < 0.3:
            pool = list(range(52))
        k = min(len(pool), rng.randrange(5))
        payload = mask_of(rng.sample(pool, k))
    else:
        payload = 0
    return seat, engine.action_of(kind, payload)


def check_rejections(state: TableState, rng: random.Random, tries: int = 3) -> None:
    before = state.to_bytes()
    for _ in range(tries):
        seat, action = random_action(state, rng)
        if 0 <= seat < state.n and action in engine.legal_actions(state, seat):
            continue
        try:
            engine.apply(state, seat, action, random.Random(0))
        except IllegalAction as e:
            declared = set(engine.Reason) | set(engine.game_of(state.variant).reasons or ())
            assert e.reason in declared, f"{e.reason} is declared neither by the core nor by {state.variant}"
        else:
            raise AssertionError(f"{engine.notation(state.variant, action)} by seat {seat} accepted but not legal")
        assert state.to_bytes() == before, f"rejected {engine.notation(state.variant, action)} changed the state"


def check_legal_accepted(state: TableState, rng: random.Random) -> None:
    before = state.to_bytes()
    for seat in range(state.n):
        acts = engine.legal_actions(state, seat)
        if len(acts) > 20:                      # hundreds of exchange choices: a sample of them
            idx = {0, len(acts) - 1} | {rng.randrange(len(acts)) for _ in range(EXCHANGE_SAMPLE)}
            acts = [acts[i] for i in sorted(idx)]
        assert len(set(acts)) == len(acts)
        for a in acts:
            engine.apply(state.copy(), seat, a, random.Random(1))
    assert state.to_bytes() == before, "trying legal actions on copies changed the state"


def play_game(state: TableState, rng: random.Random, full_checks_every: int = 1) -> TableState:
    start = state.scores[:]
    genesis = (state.variant, state.options, state.dealer, [d[:] for d in state.decks])
    log: list[engine.LogEntry] = []
    policy = Policy(rng)
    played: list[tuple[int, int]] = []   # (seat, card) of every card played this hand
    actions_this_hand = 0
    hands = 0
    step = 0
    while state.phase != Phase.GAME_OVER:
        if state.phase == Phase.DEAL:
            hands += 1
            assert hands <= MAX_HANDS, "the game did not end"
            played = []
            actions_this_hand = 0
            policy.new_hand()
        seat, action = policy.choose(state)
        assert action in engine.legal_actions(state, seat)
        log.append(engine.LogEntry(seat, action, engine.apply(state, seat, action, rng)))
        if kind_of(action) == PLAY_CODE:
            played.append((seat, payload_of(action)))
        actions_this_hand += 1
        assert actions_this_hand <= max_actions(state.variant), "a hand did not end"
        step += 1
        check_cards(state, played)
        check_tricks(state, played)
        check_scores(state, start)
        if step % full_checks_every == 0:
            check_views(state)
            check_rejections(state, rng)
            check_legal_accepted(state, rng)
            check_serialisation(state)
        if state.phase == Phase.DEAL:
            check_replay(genesis, log, state)
    for seat in range(state.n):
        assert engine.legal_actions(state, seat) == []
    check_rejections(state, rng, tries=5)
    check_serialisation(state)
    check_replay(genesis, log, state)
    return state


def check_replay(genesis: tuple, log: list[engine.LogEntry], state: TableState) -> None:
    """The game is a pure fold of its log: replaying it rebuilds the exact state, drawing nothing."""
    variant, options, dealer, decks = genesis
    assert engine.replay(variant, options, dealer, log, decks).to_bytes() == state.to_bytes()
    if any(e.chance is not None for e in log):   # without its chance outcomes a log cannot be replayed
        stripped = [engine.LogEntry(e.seat, e.action) for e in log]
        with pytest.raises(ValueError, match="randomness"):
            engine.replay(variant, options, dealer, stripped, decks)


@pytest.mark.parametrize("variant", GAMES)
def test_whole_games_keep_every_invariant(variant):
    game, facts = engine.game_of(variant), facts_of(variant)

    @settings(max_examples=examples(facts.examples), **SETTINGS)
    @given(seed=st.integers(0, 2**32 - 1), dealer=st.integers(0, game.seats - 1),
           options=st.builds(game.options_type) if facts.options is None else facts.options)
    def whole_game(seed, dealer, options):
        rng = random.Random(seed)
        play_game(engine.new_game(variant, options, rng=rng, first_dealer=dealer), rng)

    whole_game()


@settings(max_examples=examples(100), **SETTINGS)
@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(GAMES),
       steps=st.integers(0, 120))
def test_random_illegal_actions_mid_hand_change_nothing(seed, variant, steps):
    rng = random.Random(seed)
    state = engine.new_game(variant, rng=rng)
    for _ in range(steps):
        if state.phase == Phase.GAME_OVER:
            break
        seat, action = choose(state, rng)
        engine.apply(state, seat, action, rng)
    check_rejections(state, rng, tries=40)
    check_serialisation(state)


@settings(max_examples=examples(300), **SETTINGS)
@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(GAMES),
       steps=st.integers(0, 60), seat=st.integers(-2, 5),
       action=st.one_of(st.integers(0, 1 << 64), st.integers(0, 15), st.integers(0, 255), st.integers(0, 1 << 12),
                        st.integers(0, 1 << 16)))
def test_any_action_int_is_rejected_with_a_reason_or_accepted(seed, variant, steps, seat, action):
    """Anything a client can send (any non-negative action int, any seat) is either legal or
    rejected with IllegalAction and a reason code: never another exception (DESIGN.md: never
    UNKNOWN/INTERNAL for anything a client can send)."""
    rng = random.Random(seed)
    state = engine.new_game(variant, rng=rng)
    for _ in range(steps):
        if state.phase == Phase.GAME_OVER:
            break
        s, a = choose(state, rng)
        engine.apply(state, s, a, rng)
    before = state.to_bytes()
    legal = 0 <= seat < state.n and action in engine.legal_actions(state, seat)
    try:
        engine.apply(state, seat, action, random.Random(0))
    except IllegalAction:
        assert not legal
        assert state.to_bytes() == before
    else:
        assert legal, f"{action} by seat {seat} accepted but not legal"
