"""States built from a seat's view (the determinize hooks), and the view facts they rest on:
cards played per seat and the suits a seat showed out of.

Over whole games of every game under test with the hooks, for every seat at every step:
``hidden(view)`` leaves unknown exactly the cards the seat cannot see, every place may hold the
cards really there (a void is never wrong), and a state built from the view with any fill of its
places shows that seat the very same view, legal actions included; a game without the hooks
refuses to build states.
"""

from __future__ import annotations

import random

import pytest
from engine_helpers import GAMES, searchable, short_options

import engine
from bots.sampling import sample_fills
from engine import Phase
from engine.core.cards import card_list, parse_card, parse_cards
from engine.core.hidden import mask as mask_of
from engine.core.tricks import euchre_rules
from engine.games.spades_words import REVEAL, SpadesCode, bid


def positions(variant: str, seed: int, hands: int):
    """Every state of a game played at random for ``hands`` hands (Double Nil now and then)."""
    rng = random.Random(seed)
    state = engine.new_game(variant, short_options(variant, target=150), rng=rng,
                            first_dealer=seed % engine.game_of(variant).seats)
    while state.phase != Phase.GAME_OVER and state.hand_no <= hands:
        yield state
        movers = [s for s in range(state.n) if any(a != REVEAL for a in engine.legal_actions(state, s))]
        seat = state.turn if state.turn in movers else rng.choice(movers)
        legal = engine.legal_actions(state, seat)
        bids = [a for a in legal if engine.kind_of(a) == SpadesCode.BID and 1 <= engine.payload_of(a) <= 4]
        action = rng.choice(bids) if bids and rng.random() < 0.9 else legal[rng.randrange(len(legal))]
        engine.apply(state, seat, action, rng)
    yield state


HAND_PLACES = ("hand", "gift", "drawn")   # the places that make up a seat's hand between them


def check_places_hold_the_truth(state, hidden) -> None:
    """Each seat's real hidden cards fit the places of its hand (so no void is wrong), the kitty its place."""
    allowed: dict[int, int] = {}
    for place in hidden.places:
        if place.what in HAND_PLACES:
            allowed[place.seat] = allowed.get(place.seat, 0) | place.allowed
        elif place.what == "kitty":
            assert state.kitty & ~place.allowed == 0
    for seat, cards in allowed.items():
        assert state.hands[seat] & hidden.cards & ~cards == 0, seat


@pytest.mark.parametrize("variant", [variant for variant in GAMES if searchable(variant)])
def test_views_of_built_states_match(variant):
    rng = random.Random(7)
    checked = 0
    for seed in range(3):
        for state in positions(variant, seed, hands=3):
            for seat in range(state.n):
                view = engine.view(state, seat)
                hidden = engine.hidden(view)
                assert sum(p.size for p in hidden.places) == hidden.cards.bit_count()
                check_places_hold_the_truth(state, hidden)
                mine = mask_of(view.hand or [])
                assert hidden.cards & mine == 0 or view.hand is None
                for _ in range(2):
                    fills = sample_fills(hidden, rng)
                    world = engine.determinize(view, fills)
                    assert engine.view(world, seat) == view
                    checked += 1
    assert checked > 300


def test_hidden_cards_are_the_unseen_ones():
    state = next(s for s in positions("spades", 1, 1) if s.phase == Phase.PLAY and len(s.trick_cards) == 2)
    view = engine.view(state, state.turn)
    hidden = engine.hidden(view)
    seen = mask_of(view.hand) | mask_of([c for info in view.seats for c in info.played])
    assert hidden.cards == ((1 << 52) - 1) & ~seen
    assert [(p.what, p.seat) for p in hidden.places] == [("hand", s) for s in range(4) if s != state.turn]


def test_spades_voids_recorded_when_a_seat_does_not_follow():
    decks = [[parse_card(c) for c in (
        "2C 3C 4C 2S 5C 6C 7C 3S 8C 9C 10C 4S JC QC KC 5S AC 2D 3D 6S 4D 5D 6D 7S 7D 8D 9D 8S 10D JD QD 9S "
        "KD AD 2H 10S 3H 4H 5H JS 6H 7H 8H QS 9H 10H JH KS QH KH AH AS").split()]]
    state = engine.new_game("spades", first_dealer=3, decks=decks)
    rng = random.Random(0)
    engine.apply(state, 3, engine.DEAL, rng)
    for seat in (0, 1, 2, 3):
        engine.apply(state, seat, bid(3), rng)
    assert card_list(state.hands[3]) == card_list(parse_cards("2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS"))
    engine.apply(state, 0, engine.play(parse_card("2C")), rng)
    engine.apply(state, 1, engine.play(parse_card("3C")), rng)
    engine.apply(state, 2, engine.play(parse_card("4C")), rng)
    engine.apply(state, 3, engine.play(parse_card("2S")), rng)      # seat 3 cannot follow clubs
    view = engine.view(state, 0)
    assert [info.void_suits for info in view.seats] == [(), (), (), (0,)]
    assert [info.played for info in view.seats][3] == [parse_card("2S")]
    assert state.turn == 3
    engine.apply(state, 3, engine.play(parse_card("3S")), rng)      # spades broken: seat 3 leads one
    assert engine.view(state, 1).seats[3].void_suits == (0,)


def test_unbroken_spade_lead_shows_out_of_the_other_suits():
    state = engine.new_game("spades", first_dealer=3, decks=[list(range(52))])
    rng = random.Random(0)
    engine.apply(state, 3, engine.DEAL, rng)
    state.hands[0] = parse_cards("2S 3S")         # arranged: seat 0 holds nothing but spades
    state.turn, state.phase = 0, Phase.PLAY
    engine.apply(state, 0, engine.play(parse_card("2S")), rng)
    assert engine.view(state, 1).seats[0].void_suits == (0, 1, 2)
    assert state.broken


def test_shown_voids_are_true_in_buck_euchre_with_the_left_bower_as_trump():
    voids = 0
    for seed in range(3):
        for state in positions("buck_euchre", seed, hands=5):
            if state.phase != Phase.PLAY:
                continue
            masks = euchre_rules(state.trump).masks      # trump's mask holds the left bower
            for seat in range(4):
                for suit in engine.view(state, 0).seats[seat].void_suits:
                    assert state.hands[seat] & masks[suit] == 0
                    voids += 1
    assert voids > 20


def test_dealer_sees_its_discard_in_its_view_only():
    for state in positions("buck_euchre", 5, hands=6):
        if state.phase == Phase.PLAY and state.dealer_discard >= 0:
            assert engine.view(state, state.dealer).rules.dealer_discard == state.dealer_discard
            others = [s for s in range(4) if s != state.dealer]
            assert all(engine.view(state, s).rules.dealer_discard is None for s in others)
            assert engine.view(state, None).rules.dealer_discard is None
            return
    raise AssertionError("no hand with a dealer discard")


def test_determinize_refuses_what_it_cannot_build():
    state = next(s for s in positions("spades", 2, 1) if s.phase == Phase.PLAY)
    with pytest.raises(ValueError, match="spectator"):
        engine.hidden(engine.view(state, None))
    view = engine.view(state, state.turn)
    hidden = engine.hidden(view)
    fills = sample_fills(hidden, random.Random(0))
    with pytest.raises(ValueError):
        engine.determinize(view, [fills[1], fills[0], fills[2][:-1]])
    with pytest.raises(ValueError, match="two places"):
        engine.determinize(view, [fills[0], fills[0], fills[2]])


@pytest.mark.parametrize("variant", [variant for variant in GAMES if not searchable(variant)])
def test_a_game_without_the_hooks_refuses_to_build_states(variant):
    """Whist among them: a game that need not have them."""
    state = engine.new_game(variant, first_dealer=0)
    engine.apply(state, 0, engine.DEAL, random.Random(0))
    view = engine.view(state, state.turn if state.turn >= 0 else 0)
    with pytest.raises(ValueError, match="determinize"):
        engine.hidden(view)
    with pytest.raises(ValueError, match="determinize"):
        engine.determinize(view, [])


def test_state_stored_before_played_and_voids_loads():
    state = next(s for s in positions("buck_euchre", 4, 1) if s.phase == Phase.PLAY)
    data = state.to_dict()
    del data["played"], data["voids"]
    again = engine.state_from_dict(data)
    assert again.played == [0, 0, 0, 0] and again.voids == 0
    assert engine.legal_actions(again, again.turn) == engine.legal_actions(state, state.turn)
