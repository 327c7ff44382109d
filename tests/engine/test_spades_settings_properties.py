"""Property test of the Spades table settings: whole games of both Spades games under random
settings (jokers, bidding rules, minimum team bids, exchanges for Nil, failed Nil tricks counting,
Double Nil only when behind, losing scores), played with random legal actions, the invariants
checked after every action: every card of the table's deck in exactly one place, tricks and
scores consistent with the hand records (the winner the highest total once a side reached the
target or fell to the losing score), the bids offered exactly those the rules accept (and the
others refused with the reason ``bid_refusal`` gives), random illegal actions refused with the
state unchanged, every legal action accepted, no view showing a card its seat may not know, the
states built from a view showing that view again, serialisation, and replay from the log."""

from __future__ import annotations

import random

from engine_helpers import allowed_private, cs, examples, movers, names, private_cards
from hypothesis import given, settings
from hypothesis import strategies as st
from test_properties import (
    SETTINGS,
    check_legal_accepted,
    check_rejections,
    check_replay,
    check_serialisation,
    check_tricks,
    mask_of,
)

import engine
from bots.sampling import sample_fills
from engine import PLAY_CODE, IllegalAction, Phase, SpadesOptions, TableState, kind_of, payload_of
from engine.games.spades_bidding import bid_refusal, exchange_size
from engine.games.spades_deck import trumps_of
from engine.games.spades_scoring import DOUBLE_NIL_BID
from engine.games.spades_state import BIDDING, TRUMPS
from engine.games.spades_words import DOUBLE_NIL, REVEAL, SpadesCode, SpadesPhase, bid

MAX_HANDS = 20
"""Hands played of one game at most (a game under a losing score and random bids may run long)."""
FULL_CHECKS_EVERY = 3


@st.composite
def four_player_options(draw) -> SpadesOptions:
    bidding = draw(st.sampled_from(BIDDING))
    return SpadesOptions(
        target_score=draw(st.sampled_from([100, 150, 200])), exchange_size=draw(st.sampled_from([3, 3, 2, 0])),
        double_nil_allowed=draw(st.sampled_from([True, True, False])),
        blind_nil_when_behind=draw(st.sampled_from([0, 0, 50, 150])), trumps=draw(st.sampled_from(TRUMPS)),
        bidding=bidding, min_team_bid=0 if bidding != "standard" else draw(st.sampled_from([0, 0, 3, 7, 13])),
        nil_exchange=draw(st.integers(0, 3)), failed_nil_tricks_count=draw(st.booleans()),
        losing_score=draw(st.sampled_from([0, 0, 100, 250])))


@st.composite
def two_player_options(draw) -> SpadesOptions:
    return SpadesOptions(target_score=draw(st.sampled_from([100, 150])),
                         blind_nil_when_behind=draw(st.sampled_from([0, 50, 100])),
                         losing_score=draw(st.sampled_from([0, 100, 200])))


# ---- a policy: random legal actions, bids near the tricks each seat will take -------------------

def foresee(state: TableState, seed: int) -> list[int]:
    """The tricks each seat takes when the hand is played with ``Random(seed)`` choosing the cards
    (the bids, each the legal one nearest 1, do not change which cards are legal)."""
    sim = state.copy()
    rng = random.Random(seed)
    while sim.phase in (SpadesPhase.BID, SpadesPhase.EXCHANGE, SpadesPhase.DRAW):
        seat = sim.turn if sim.turn >= 0 else movers(sim)[0]
        legal = [a for a in engine.legal_actions(sim, seat) if a not in (REVEAL, DOUBLE_NIL)]
        bids = [a for a in legal if kind_of(a) == SpadesCode.BID]
        engine.apply(sim, seat, min(bids, key=lambda a: abs(payload_of(a) - 1)) if bids else legal[0], rng)
    play_rng = random.Random(seed)
    while sim.phase == Phase.PLAY:
        legal = engine.legal_actions(sim, sim.turn)
        engine.apply(sim, sim.turn, legal[play_rng.randrange(len(legal))])
    return sim.records[-1].tricks


def choose(state: TableState, rng: random.Random, plan: dict) -> tuple[int, int]:
    seats = movers(state)
    seat = state.turn if state.turn in seats and rng.random() < 0.8 else rng.choice(seats)
    legal = engine.legal_actions(state, seat)
    bids = [a for a in legal if kind_of(a) == SpadesCode.BID]
    if state.phase == Phase.PLAY:
        return seat, legal[plan["play"].randrange(len(legal))]
    if bids:
        if "tricks" not in plan:
            plan["tricks"] = foresee(state, plan["seed"])
        r = rng.random()
        if r < 0.04 and DOUBLE_NIL in legal:
            return seat, DOUBLE_NIL
        if r < 0.1 and REVEAL in legal:
            return seat, REVEAL
        if r < 0.85:
            return seat, min(bids, key=lambda a: abs(payload_of(a) - plan["tricks"][seat]))
        return seat, rng.choice(bids)
    if DOUBLE_NIL in legal and rng.random() < 0.9:
        legal = [a for a in legal if a != DOUBLE_NIL]
    return seat, legal[rng.randrange(len(legal))]


# ---- invariants ---------------------------------------------------------------------------------

def check_cards(state: TableState, played: list[tuple[int, int]]) -> None:
    """Every card of the table's deck is in exactly one place: a hand, the cards played, and in
    two-player Spades the discards, the stock and the card offered."""
    if state.phase in (Phase.DEAL, Phase.GAME_OVER):
        assert not any(state.hands)
        return
    places = [*state.hands, mask_of(c for _, c in played)]
    if state.variant == "spades2":
        places.append(state.discards)
        if state.phase == SpadesPhase.DRAW:
            places.append(mask_of(state.deck[state.pos:]))
            if state.offered != -1:
                places.append(1 << state.offered)
    union = total = 0
    for p in places:
        union |= p
        total += p.bit_count()
    deck = trumps_of(state.options).deck
    assert union == deck, f"cards missing: {names(deck & ~union)}, extra: {names(union & ~deck)}"
    assert total == deck.bit_count(), "a card is in two places"


def check_scores(state: TableState, start: list[int]) -> None:
    options = state.options
    for side in range(state.sides):
        assert state.scores[side] == start[side] + sum(r.sides[side].hand_points for r in state.records)
        assert 0 <= state.bags[side] < options.bag_limit
    for r in state.records:
        assert sum(r.tricks) == 13 and len(r.forced) == state.n
        assert r.losing_sides == [s for s in range(state.sides) if options.losing_score
                                  and r.totals[s] <= -options.losing_score]
        for x in r.exchanges:
            if state.n == 4:
                assert len(x.gave.split()) == exchange_size(options, r.bids[x.seat], r.bids[x.seat ^ 2]) > 0
                assert x.nil == (DOUBLE_NIL_BID not in (r.bids[x.seat], r.bids[x.seat ^ 2]))
        for side in r.sides:
            for nil in side.nils:
                assert nil.for_partner == 0 or (options.failed_nil_tricks_count and nil.result == "failed")
    if state.records:
        assert state.records[-1].totals == state.scores
    assert (state.phase == Phase.GAME_OVER) == bool(state.winner)
    if state.winner:
        (w,) = state.winner
        assert all(state.scores[s] < state.scores[w] for s in range(state.sides) if s != w)
        ended = max(state.scores) >= options.target_score or (
            options.losing_score and min(state.scores) <= -options.losing_score)
        assert ended or state.hand_no >= engine.core.rules.MAX_HANDS


def check_bids_offered(state: TableState) -> None:
    """The bids the seat in turn is offered are exactly those the rules accept; the others are
    refused with the reason the rules give, the state unchanged."""
    if state.variant != "spades" or state.phase != SpadesPhase.BID:
        return
    seat = state.turn
    legal = set(engine.legal_actions(state, seat))
    before = state.to_bytes()
    for tricks, action in [*((t, bid(t)) for t in range(15)), (DOUBLE_NIL_BID, DOUBLE_NIL)]:
        refusal = bid_refusal(state, seat, tricks)
        assert (action in legal) == (refusal is None), (tricks, refusal)
        try:
            engine.apply(state.copy(), seat, action)
        except IllegalAction as refused:
            assert refusal is not None and refused.reason == refusal[0]
        else:
            assert refusal is None
    assert state.to_bytes() == before


def check_views(state: TableState, rng: random.Random) -> None:
    """No view shows a card its seat may not know; a state built from a seat's view shows it that view."""
    spectator = engine.view(state, None)
    assert spectator.hand is None and private_cards(spectator) == set()
    for seat in range(state.n):
        view = engine.view(state, seat)
        extra = cs(private_cards(view)) & ~allowed_private(state, seat)
        assert not extra, f"seat {seat} sees {names(extra)}"
        if view.hand is not None:
            assert sorted(view.hand) == sorted(engine.core.cards.card_list(state.hands[seat]))
        if state.phase not in (Phase.DEAL, Phase.GAME_OVER) and (state.turn == seat or state.turn < 0):
            world = engine.determinize(view, sample_fills(engine.hidden(view), rng))
            assert engine.view(world, seat) == view


def play_game(state: TableState, rng: random.Random) -> None:
    start = state.scores[:]
    genesis = (state.variant, state.options, state.dealer, [])
    log: list[engine.LogEntry] = []
    played: list[tuple[int, int]] = []
    plan: dict = {}
    step = 0
    while state.phase != Phase.GAME_OVER and not (state.phase == Phase.DEAL and state.hand_no >= MAX_HANDS):
        if state.phase == Phase.DEAL:
            played = []
            seed = rng.randrange(1 << 30)
            plan = {"seed": seed, "play": random.Random(seed)}
        check_bids_offered(state)
        seat, action = choose(state, rng, plan)
        assert action in engine.legal_actions(state, seat)
        log.append(engine.LogEntry(seat, action, engine.apply(state, seat, action, rng)))
        if kind_of(action) == PLAY_CODE:
            played.append((seat, payload_of(action)))
        step += 1
        check_cards(state, played)
        check_tricks(state, played)
        check_scores(state, start)
        if step % FULL_CHECKS_EVERY == 0:
            check_views(state, rng)
            check_rejections(state, rng)
            check_legal_accepted(state, rng)
            check_serialisation(state)
        if state.phase == Phase.DEAL:
            check_replay(genesis, log, state)
    check_serialisation(state)
    check_replay(genesis, log, state)


@settings(max_examples=examples(30), **SETTINGS)
@given(seed=st.integers(0, 2**32 - 1), dealer=st.integers(0, 3), options=four_player_options())
def test_four_player_games_under_random_settings_keep_every_invariant(seed, dealer, options):
    rng = random.Random(seed)
    play_game(engine.new_game("spades", options, rng=rng, first_dealer=dealer), rng)


@settings(max_examples=examples(20), **SETTINGS)
@given(seed=st.integers(0, 2**32 - 1), dealer=st.integers(0, 1), options=two_player_options())
def test_two_player_games_under_random_settings_keep_every_invariant(seed, dealer, options):
    rng = random.Random(seed)
    play_game(engine.new_game("spades2", options, rng=rng, first_dealer=dealer), rng)
