"""What a seat (or a spectator) may see: ``engine.view`` never shows hidden cards."""

from __future__ import annotations

import random

from engine_helpers import (
    C,
    act,
    bid_round,
    check_views,
    cs,
    euchre_deck,
    movers,
    private_cards,
    public_cards,
    spades_deck,
    start,
)

import engine
from engine import Phase, play
from engine.core.cards import card_list
from engine.games.buck_euchre_words import DROP_OUT, ORDER_UP, PASS, STAY_IN, discard
from engine.games.spades_words import DOUBLE_NIL, DRAW_DISCARD, DRAW_KEEP, REVEAL, SpadesPhase, bid, exchange


def spades_hand(seed=1, dealer=3):
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    return start("spades", [deck], dealer=dealer)


# ---- four-player Spades ---------------------------------------------------------------------

def test_no_seat_sees_any_hand_before_looking_and_never_another_seats_hand():
    state = spades_hand()
    check_views(state)
    for seat in range(4):
        v = engine.view(state, seat)
        assert v.hand is None and private_cards(v) == set()
        assert [s.card_count for s in v.seats] == [13] * 4          # card counts are public
    act(state, 2, REVEAL)
    check_views(state)
    assert engine.view(state, 2).hand == card_list(state.hands[2])
    for seat in (0, 1, 3):
        assert engine.view(state, seat).hand is None
    assert engine.view(state, 0).seats[2].rules.has_looked
    bid_round(state, (3, 3, 3, 3))
    check_views(state)
    for seat in range(4):
        v = engine.view(state, seat)
        assert v.hand == card_list(state.hands[seat])
        assert private_cards(v) <= set(card_list(state.hands[seat]))


def test_double_nil_bidder_cannot_see_its_hand_while_double_nil_is_open():
    state = spades_hand()
    v = engine.view(state, 0)
    assert v.hand is None and DOUBLE_NIL in v.legal_actions
    act(state, 0, DOUBLE_NIL)
    for b in (3, 4, 3):
        check_views(state)
        assert engine.view(state, 0).hand is None
        act(state, state.turn, bid(b))
    assert state.phase == SpadesPhase.EXCHANGE
    check_views(state)
    v0 = engine.view(state, 0)
    assert v0.hand == card_list(state.hands[0])
    assert v0.exchange is not None and v0.exchange.cards == card_list(state.hands[0])
    assert (v0.exchange.fewest, v0.exchange.most) == (3, 3)
    assert engine.view(state, 1).exchange is None


def test_exchange_cards_are_shown_only_to_the_two_partners():
    state = spades_hand(seed=2)
    bid_round(state, ("DN", 3, 4, 3))
    give0 = cs(card_list(state.hands[0])[:3])
    give2 = cs(card_list(state.hands[2])[-3:])
    act(state, 0, exchange(give0))
    check_views(state)
    assert engine.view(state, 0).rules.exchange_given == card_list(give0)
    assert engine.view(state, 2).rules.exchange_given == []            # the partner does not see them yet
    assert engine.view(state, 2).seats[0].rules.exchange_done          # only that a choice was made
    act(state, 2, exchange(give2))
    check_views(state)
    for seat in (1, 3):
        v = engine.view(state, seat)
        assert v.rules.exchange_given == [] and v.rules.exchange_received == []
        assert not private_cards(v) & set(card_list(give0 | give2))
    assert engine.view(state, 0).rules.exchange_received == card_list(give2)
    assert engine.view(state, 2).rules.exchange_received == card_list(give0)
    spectator = engine.view(state, None)
    assert spectator.rules.exchange_given == [] and spectator.rules.exchange_received == []


def test_spectator_sees_only_public_facts():
    state = spades_hand(seed=3)
    bid_round(state, (2, 0, 4, 3))
    for _ in range(6):
        seat = state.turn
        act(state, seat, engine.legal_actions(state, seat)[0])
    v = engine.view(state, None)
    assert v.viewer is None and v.hand is None and v.legal_actions == []
    assert private_cards(v) == set()
    assert [s.bid for s in v.seats] == [2, 0, 4, 3]
    assert v.trick == list(zip(state.trick_seats, state.trick_cards, strict=True))
    assert v.last_trick_winner == state.last_trick[2]
    assert [s.score for s in v.sides] == state.scores
    assert v.deck_commitment and len(v.deck_commitment) == 64
    for bad in (-1, 4, 99):                                       # no such seat: a spectator's view
        w = engine.view(state, bad)
        assert w.viewer is None and w.hand is None and w.legal_actions == []


# ---- two-player Spades --------------------------------------------------------------------

def test_two_player_offered_card_and_own_discards_only():
    deck = list(range(52))
    random.Random(7).shuffle(deck)
    state = start("spades2", [deck], dealer=1)
    rng = random.Random(1)
    while state.phase == SpadesPhase.DRAW:
        check_views(state)
        drawer, other = state.turn, 1 - state.turn
        assert engine.view(state, drawer).rules.offered == state.offered
        assert engine.view(state, other).rules.offered is None
        assert engine.view(state, None).rules.offered is None
        stock = set(deck[state.pos:])
        for seat in (0, 1, None):
            v = engine.view(state, seat)
            assert not private_cards(v) & stock                  # the undrawn stock is hidden
            assert v.rules.stock_count == len(stock)
        for seat in (0, 1):
            v = engine.view(state, seat)
            assert set(v.rules.seen_discards) == set(card_list(state.discarded[seat]))
            assert not private_cards(v) & set(card_list(state.hands[1 - seat]))
        act(state, drawer, rng.choice([DRAW_KEEP, DRAW_DISCARD]))
    check_views(state)
    d0, d1 = (set(engine.view(state, s).rules.seen_discards) for s in (0, 1))
    assert not d0 & d1 and d0 | d1 == set(card_list(state.discards))
    assert len(d0) == len(d1) == 13


def test_two_player_exchange_replacements_visible_only_to_the_double_nil_player():
    deck = list(range(52))
    random.Random(8).shuffle(deck)
    state = start("spades2", [deck], dealer=0)
    act(state, 0, DOUBLE_NIL)
    while state.phase == SpadesPhase.DRAW:
        act(state, state.turn, DRAW_KEEP)
    assert state.phase == SpadesPhase.EXCHANGE
    v = engine.view(state, 0)
    assert v.exchange is not None and (v.exchange.fewest, v.exchange.most) == (0, 3)
    assert engine.view(state, 1).exchange is None
    aside = cs(card_list(state.hands[0])[:3])
    act(state, 0, exchange(aside), rng=random.Random(4))
    check_views(state)
    got = set(card_list(state.xgot[0]))
    assert engine.view(state, 0).rules.exchange_received == sorted(got)
    v1 = engine.view(state, 1)
    assert v1.rules.exchange_given == [] and v1.rules.exchange_received == []
    assert not set(v1.rules.seen_discards) & set(card_list(aside))      # seat 1 never saw what was put aside


# ---- Buck Euchre ------------------------------------------------------------------------------

HANDS = {0: "AH KH AC 9S 10S", 1: "JH AS KS QS 9D", 2: "JD 10D QD KD AD", 3: "9C 10C QC KC JC"}


def test_kitty_and_dealer_discard_never_shown_and_dropped_hands_hidden():
    state = start("buck_euchre", [euchre_deck(3, HANDS, "9H", kitty="10H QH JS")], dealer=3)
    kitty = {C("10H"), C("QH"), C("JS")}
    check_views(state)
    for seat in (0, 1, 2, 3, None):
        v = engine.view(state, seat)
        assert v.rules.turn_up == C("9H")                                 # the turn-up is public
        assert not (private_cards(v) | public_cards(v)) & kitty
    act(state, 0, ORDER_UP)
    check_views(state)
    assert C("9H") in engine.view(state, 3).hand                    # the dealer took it
    act(state, 3, discard(cs("QC")))
    check_views(state)
    for seat in (0, 1, 2, None):
        v = engine.view(state, seat)
        assert C("QC") not in private_cards(v) | public_cards(v)
    assert C("QC") not in engine.view(state, 3).hand
    act(state, 1, STAY_IN)
    act(state, 2, DROP_OUT)
    act(state, 3, DROP_OUT)
    assert state.phase == Phase.PLAY
    dropped = set(card_list(state.hands[2]) + card_list(state.hands[3]))
    for seat in (0, 1, None):
        v = engine.view(state, seat)
        assert v.seats[2].rules.dropped_out and v.seats[3].rules.dropped_out
        assert not private_cards(v) & dropped
    assert engine.view(state, 2).hand == card_list(state.hands[2])   # its own hand stays its own
    while state.phase == Phase.PLAY:
        check_views(state)
        seat = state.turn
        act(state, seat, engine.legal_actions(state, seat)[0])
    check_views(state)


def test_buck_euchre_views_through_random_hands():
    rng = random.Random(11)
    for game in range(5):
        state = engine.new_game("buck_euchre", rng=random.Random(game))
        for _ in range(200):
            if state.phase == Phase.GAME_OVER:
                break
            check_views(state)
            seat = state.turn
            acts = engine.legal_actions(state, seat)
            engine.apply(state, seat, acts[rng.randrange(len(acts))], rng)
        check_views(state)


def test_views_of_no_trump_and_pass_rounds_show_no_cards_of_others():
    state = start("buck_euchre", [euchre_deck(3, HANDS, "9H")], dealer=3)
    for _ in range(8):
        check_views(state)
        act(state, state.turn, PASS)
    v = engine.view(state, None)
    assert v.rules.no_trump and v.rules.turn_up_turned_down and v.rules.turn_up == C("9H")
    check_views(state)


def test_spades_views_through_random_hands():
    rng = random.Random(12)
    for variant in ("spades", "spades2"):
        for game in range(3):
            state = engine.new_game(variant, rng=random.Random(game))
            for _ in range(250):
                if state.phase == Phase.GAME_OVER:
                    break
                check_views(state)
                seat = rng.choice(movers(state))
                acts = engine.legal_actions(state, seat)
                engine.apply(state, seat, acts[rng.randrange(len(acts))], rng)
            check_views(state)


def test_view_of_play_lists_only_own_cards():
    state = start("spades", [spades_deck(3, {})], dealer=3)
    bid_round(state, (3, 3, 3, 3))
    v = engine.view(state, 0)
    assert {engine.payload_of(a) for a in v.legal_actions} <= set(v.hand)
    assert engine.view(state, 1).legal_actions == []
    assert play(v.hand[0]) in v.legal_actions


def test_two_player_own_discards_stay_visible_after_the_opponents_exchange():
    """RULES §2 Decision: a player's own discards stay visible to them for the hand. When the
    Double Nil opponent draws replacements from the discards, they are drawn face down: the
    other player must neither lose sight of its own discards nor learn which cards were drawn
    (that would reveal cards now in the opponent's hand)."""
    deck = list(range(52))
    random.Random(8).shuffle(deck)
    state = start("spades2", [deck], dealer=0)
    act(state, 0, DRAW_KEEP)
    act(state, 1, DOUBLE_NIL)
    while state.phase == SpadesPhase.DRAW:
        act(state, state.turn, DRAW_KEEP)
    mine_before = engine.view(state, 0).rules.seen_discards
    assert len(mine_before) == 13
    aside = cs(card_list(state.hands[1])[:3])
    act(state, 1, exchange(aside), rng=random.Random(4))
    drawn_from_mine = set(card_list(state.xgot[1])) & set(mine_before)
    assert drawn_from_mine, "this deal is meant to draw some of seat 0's discards"
    v0 = engine.view(state, 0)
    assert not set(card_list(state.hands[1])) & (private_cards(v0) - set(mine_before)), \
        "seat 0 sees a card of seat 1's hand"
    assert v0.rules.seen_discards == mine_before, (
        f"seat 0's own discards changed from {len(mine_before)} to {len(v0.rules.seen_discards)} cards: "
        f"it learns that seat 1 drew {engine.cards_text(cs(set(mine_before) - set(v0.rules.seen_discards)))}")
