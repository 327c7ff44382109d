"""The strong Spades bot's reading of a table (``bots.spades_deals``, ``bots.spades_playout``):
after an exchange for Nil the partner is dealt only what its exchange left it and an opposing Nil
seat is dealt without the cards it gave away; the candidates it searches start with the basic
bot's own choice, and in Suicide the first of a pair takes Nil as the basic bot does; at a table
with jokers its playouts play as the basic bot, from the state's bit sets."""

from __future__ import annotations

import random
import statistics
from collections.abc import Iterator, Sequence

import bots
import engine
from bots import spades as basic
from bots import spades_deals
from bots.sampling import sample_fills
from bots.search import SearchBot
from bots.spades_play_jokers import play_card_jokers
from bots.spades_playout import PLAYOUT
from engine import Phase, SpadesOptions
from engine.core.cards import card_list, parse_cards
from engine.games.spades_deck import trumps_of
from engine.games.spades_words import REVEAL, SpadesPhase, bid
from tests.bots.test_bots_spades_settings import dealt, random_options
from tests.engine.engine_helpers import examples

NIL_HAND = "2C 3C 5C 9C 2D 4D 6D 10D 3H 5H 7H QH 2S"
COVER_HAND = "AC KC 4C AD KD 3D AH KH 2H AS KS QS 3S"


def exchanged(options: SpadesOptions) -> engine.TableState:
    """Seat 2 bid Nil with a weak hand and exchanged with seat 0 (each as the basic bot does);
    seats 1 and 3 bid numbers."""
    state = dealt({0: COVER_HAND, 2: NIL_HAND}, options)
    for b in (5, 3, 0, 3):
        seat = state.turn
        if REVEAL in engine.legal_actions(state, seat):
            engine.apply(state, seat, REVEAL)
        engine.apply(state, seat, bid(b))
    assert state.phase == SpadesPhase.EXCHANGE
    for seat in (0, 2):
        engine.apply(state, seat, bots.choose_action("basic", state, seat, random.Random(0)))
    assert state.phase == Phase.PLAY
    return state


def danger(card: int) -> int:
    return basic._danger(card, trumps_of(None))


def test_after_the_nil_exchange_the_partner_is_dealt_only_what_its_exchange_left_it():
    state = exchanged(SpadesOptions(nil_exchange=2))
    view = engine.view(state, 0)
    assert sorted(view.rules.exchange_received) == card_list(parse_cards("10D QH"))   # the Nil's most dangerous
    allowed = spades_deals.partner_may_hold(view)
    assert allowed is not None
    assert state.hands[2] & ~state.xgot[2] & ~allowed == 0          # the real hand is among them
    assert not allowed & parse_cards("JD 10H 7S JH")                   # more dangerous than the 10D, or as and later
    hidden = engine.hidden(view)
    partner = next(i for i, p in enumerate(hidden.places) if p.seat == 2)
    rng = random.Random(3)
    for _ in range(50):
        fills = PLAYOUT.deal(view, hidden, rng)
        hidden.check(fills)
        assert all(allowed >> c & 1 for c in fills[partner])
        assert max(danger(c) for c in fills[partner]) <= 10
    uniform = [max(danger(c) for c in sample_fills(hidden, rng)[partner]) for _ in range(50)]
    assert statistics.fmean(uniform) > 11.5                 # a deal of the unseen cards as they come


def test_an_opposing_nil_seat_is_dealt_without_the_cards_its_exchange_gave_away():
    state = exchanged(SpadesOptions(nil_exchange=2))
    view = engine.view(state, 1)                      # an opponent of the pair that exchanged
    hidden = engine.hidden(view)
    world = engine.determinize(view, [[c for c in card_list(hidden.cards) if state.hands[p.seat] >> c & 1]
                                      for p in hidden.places])
    dealt_hands, weight = spades_deals.dealt_hands(view, world)
    assert weight == 1.0                              # the real deal is one the basic bot's exchange explains
    policy = bots.game_bots("spades").playout
    assert policy is not None
    game = engine.game_of("spades")
    rng = random.Random(5)
    kept = [SearchBot()._deal(view, hidden, game.determinize, policy, rng, 8) for _ in range(150)]
    uniform = [game.determinize(view, hidden, sample_fills(hidden, rng)) for _ in range(150)]

    def high(worlds) -> float:       # the Nil seat's cards of rank Q or more (or spades of 9 or more)
        return statistics.fmean(sum(danger(c) >= 12 for c in card_list(w.hands[2])) for w in worlds)

    assert high(kept) < 0.85 * high(uniform), (high(kept), high(uniform))   # the real hand holds none


def test_suicide_the_first_of_a_pair_takes_nil_as_the_basic_bot_does():
    weak, strong = "2C 3C 5C 9C 2D 4D 6D 10D 3H 5H 7H JH 2S", "AC KC AD KD QD AH KH AS KS QS JS 10S 9S"
    options = SpadesOptions(bidding="suicide")
    state = dealt({0: weak}, options)
    engine.apply(state, 0, REVEAL)
    view = engine.view(state, 0)
    assert PLAYOUT.candidates(view, engine.legal_actions(state, 0)) == [bid(0)]
    state = dealt({0: strong}, options)
    engine.apply(state, 0, REVEAL)
    view = engine.view(state, 0)
    searched = PLAYOUT.candidates(view, engine.legal_actions(state, 0))
    assert bid(0) not in searched and searched[0] == bots.choose_action("basic", state, 0, random.Random(0))
    assert len(searched) > 1


def turns_of_two_hands(state: engine.TableState) -> Iterator[tuple[int, Sequence[int]]]:
    """Each (seat, legal actions) of the game's first two hands, in turn order; the caller applies
    the seat's action before the next is asked for."""
    seats = set(range(state.n))
    while state.phase != Phase.GAME_OVER and state.hand_no <= 2:
        seat = bots.bot_seat_to_act(state, seats)
        assert seat is not None
        yield seat, engine.legal_actions(state, seat)


def test_the_search_tries_the_basic_bots_own_choice_first():
    """The search keeps the first of the best candidates, so the basic bot's own card or bid
    wins every tie."""
    checked = 0
    for seed in range(examples(6)):
        rng = random.Random(seed)
        options = random_options(rng, True)
        state = engine.new_game("spades", options, rng=rng, first_dealer=seed % 4)
        for seat, legal in turns_of_two_hands(state):
            view = engine.view(state, seat)
            if state.phase in (Phase.PLAY, SpadesPhase.BID) and len(legal) > 1 and REVEAL not in legal:
                searched = PLAYOUT.candidates(view, legal)
                assert searched[0] == basic.choose(view, legal, rng), options
                assert len(set(searched)) == len(searched) and set(searched) <= set(legal)
                checked += 1
            engine.apply(state, seat, bots.choose_action("basic", state, seat, rng), rng)
    assert checked > 100


def test_at_a_table_with_jokers_the_playout_plays_each_card_as_the_basic_bot():
    checked = 0
    for seed in range(examples(20)):
        rng = random.Random(seed)
        options = SpadesOptions(trumps=rng.choice(["jokers", "jokers_deuces"]),
                                bidding=rng.choice(["standard", "suicide", "whiz"]), nil_exchange=rng.randrange(3))
        state = engine.new_game("spades", options, rng=rng, first_dealer=seed % 4)
        for seat, legal in turns_of_two_hands(state):
            if state.phase == Phase.PLAY and len(legal) > 1:
                mine = basic._play(engine.view(state, seat), [engine.payload_of(a) for a in legal])
                assert play_card_jokers(state, seat) == mine, options
                checked += 1
            strategy = "basic" if rng.random() < 0.8 else "random"      # and off the basic bot's lines
            engine.apply(state, seat, bots.choose_action(strategy, state, seat, rng), rng)
    assert checked > 300
