"""The strong (search) bot: the sampler deals only what a view allows, the playout policies play
exactly as the basic bot, and the bot is legal in whole games, deterministic under a seed,
within its budget, blind to the real hidden cards, and better than the basic bot."""

from __future__ import annotations

import random

import pytest

import bots
import engine
from bots.playout import Playout, RandomPlayout, play_hand
from bots.sampling import NoDeal, sample_fills
from bots.search import Budget, SearchBot
from engine import Hidden, Phase, Place
from engine.core.cards import SUIT_MASKS
from engine.core.hidden import mask
from engine.core.tricks import euchre_rules
from engine.games.hearts_words import HeartsPhase
from engine.games.spades_words import REVEAL, SpadesPhase
from tests.engine.engine_helpers import GAMES, searchable, short_options
from tests.engine.facts import facts_of

QUICK = Budget(samples=4, seconds=None, round=2)   # cheap and clock-free: deterministic
STRONG_GAMES = [variant for variant in GAMES if bots.BOTS["strong"].plays(variant)]
"""The games under test that the strong bot plays (those with the determinize hooks)."""
POLICY_GAMES = [variant for variant in GAMES if bots.game_bots(variant).playout and bots.game_bots(variant).basic]
"""The games under test with a playout policy of their own and a basic heuristic it plays as."""


def options(variant: str, target: int = 200):
    return short_options(variant, target)


def playout(variant: str) -> Playout:
    """The game's registered playout policy."""
    policy = bots.game_bots(variant).playout
    assert policy is not None
    return policy


def positions(variant: str, seed: int, hands: int, strategies=("basic", "random")):
    """(state, seat to act) at every step of a game of basic and random bots (random only, in a
    game the basic bot does not play), ``hands`` hands long."""
    rng = random.Random(seed)
    state = engine.new_game(variant, options(variant), rng=rng, first_dealer=seed % engine.game_of(variant).seats)
    if not bots.BOTS["basic"].plays(variant):
        strategies = ("random",)
    seats = set(range(state.n))
    while state.phase != Phase.GAME_OVER and state.hand_no <= hands:
        seat = bots.bot_seat_to_act(state, seats)
        assert seat is not None
        yield state, seat
        strategy = strategies[seat % len(strategies)]
        engine.apply(state, seat, bots.choose_action(strategy, state, seat, rng), rng)


# ---- the sampler ----

def test_sampler_respects_sizes_and_allowed_cards():
    rng = random.Random(1)
    for _ in range(300):
        pool = rng.sample(range(52), rng.randrange(4, 40))
        sizes = [0, 0, 0]
        for _ in pool:
            sizes[rng.randrange(3)] += 1
        owner = {c: rng.randrange(3) for c in pool}          # a deal the restrictions must allow
        allowed = []
        for i in range(3):
            banned = rng.choice([0, SUIT_MASKS[rng.randrange(4)]])
            mine = mask([c for c in pool if owner[c] == i])
            allowed.append(mask(pool) & ~banned | mine)
        sizes = [sum(owner[c] == i for c in pool) for i in range(3)]
        hidden = Hidden(mask(pool), tuple(Place("hand", i, sizes[i], allowed[i]) for i in range(3)))
        fills = sample_fills(hidden, rng)
        hidden.check(fills)


def test_sampler_is_deterministic_and_refuses_impossible_deals():
    pool = mask(list(range(13)))
    hidden = Hidden(pool, (Place("hand", 1, 6, pool), Place("hand", 2, 7, pool)))
    assert sample_fills(hidden, random.Random(5)) == sample_fills(hidden, random.Random(5))
    assert sample_fills(hidden, random.Random(5)) != sample_fills(hidden, random.Random(6))
    with pytest.raises(NoDeal):
        sample_fills(Hidden(pool, (Place("hand", 1, 6, pool), Place("hand", 2, 6, pool))), random.Random(0))
    with pytest.raises(NoDeal):
        sample_fills(Hidden(pool, (Place("hand", 1, 6, 0), Place("hand", 2, 7, pool))), random.Random(0))


def test_sampler_finds_the_one_deal_where_dealing_card_by_card_dead_ends():
    """Late in a hand one seat has shown out of every suit but spades, the partner out of
    spades: the six unknown spades must all be the first seat's, which dealing each card in
    proportion to the room left almost never gives; the sampler still finds that deal."""
    spades = mask([39, 41, 44, 46, 47, 48])                           # as met in a Suicide game
    others = mask([1, 2, 7, 8, 9, 10, 13, 14, 16, 21, 23, 31])
    hidden = Hidden(spades | others, (Place("hand", 0, 6, spades | others), Place("hand", 2, 6, spades),
                                      Place("hand", 3, 6, others)))
    rng = random.Random(0)
    for _ in range(300):       # the depth-first search it had, cut off at 20,000 steps, failed 1 in 50
        fills = sample_fills(hidden, rng)
        hidden.check(fills)
        assert mask(fills[1]) == spades


@pytest.mark.parametrize("variant", STRONG_GAMES)
def test_sampled_hands_fit_the_view(variant):
    """Voids, seen cards (own hand, played cards, own discards, the turn-up) and hand sizes."""
    rng = random.Random(2)
    voids = checked = 0
    for seed in range(3):
        for state, seat in positions(variant, seed, hands=4):
            if state.phase == Phase.DEAL:
                continue
            view = engine.view(state, seat)
            seen = mask(view.hand) | mask([c for info in view.seats for c in info.played])
            if variant == "spades2":
                if view.rules.offered is not None:
                    seen |= 1 << view.rules.offered
                if not view.seats[1 - seat].rules.exchange_done:   # else its exchange may have drawn them
                    seen |= mask(view.rules.seen_discards)
            bower = facts_of(variant).left_bower
            if bower:              # the turn-up is known; the left bower belongs to trump
                seen |= 1 << view.rules.turn_up
            masks = euchre_rules(view.rules.trump).masks if bower else SUIT_MASKS
            hidden = engine.hidden(view)
            for _ in range(3):
                fills = sample_fills(hidden, rng)
                got = mask([c for cards in fills for c in cards])
                assert got & seen == 0
                for place, cards in zip(hidden.places, fills, strict=True):
                    assert len(cards) == place.size
                    if place.what == "hand":
                        info = view.seats[place.seat]
                        for suit in info.void_suits:
                            assert mask(cards) & masks[suit] == 0
                            voids += 1
                world = engine.determinize(view, fills)
                for info in view.seats:
                    assert world.hands[info.seat].bit_count() == info.card_count
                checked += 1
    assert checked > 200 and voids > 20


def test_two_player_deals_give_the_other_player_a_drawers_cards():
    """The spades2 deal re-splits the other player's drawn cards by the basic keep rule: the deal
    still fits the view, and its hand holds more spades than a uniform deal would give it."""
    policy = playout("spades2")
    rng = random.Random(8)
    spades = {"uniform": 0, "drawn": 0}
    for seed in range(4):
        state = engine.new_game("spades2", options("spades2"), rng=random.Random(seed), first_dealer=seed % 2)
        engine.apply(state, state.turn, engine.DEAL, rng)
        while state.phase != Phase.PLAY:
            seat = state.turn
            engine.apply(state, seat, bots.choose_action("basic", state, seat, rng), rng)
            if state.phase in (SpadesPhase.BID, Phase.PLAY):
                break
        view = engine.view(state, 0)
        hidden = engine.hidden(view)
        hand = next(i for i, p in enumerate(hidden.places) if p.what == "hand")
        for _ in range(40):
            drawn = policy.deal(view, hidden, rng)
            hidden.check(drawn)
            assert engine.view(engine.determinize(view, drawn), 0) == view
            spades["drawn"] += sum(c >= 39 for c in drawn[hand])
            spades["uniform"] += sum(c >= 39 for c in sample_fills(hidden, rng)[hand])
    assert spades["drawn"] > 1.2 * spades["uniform"], spades


# ---- the playout policies are the basic bot ----

@pytest.mark.parametrize("variant", POLICY_GAMES)
def test_playout_policy_plays_as_the_basic_bot(variant):
    heuristic = bots.game_bots(variant).basic
    assert heuristic is not None
    policy = playout(variant)
    checked = 0
    for seed in range(6):
        for state, seat in positions(variant, seed, hands=6):
            legal = engine.legal_actions(state, seat)
            if len(legal) < 2 or REVEAL in legal:
                continue
            want = heuristic(engine.view(state, seat), legal, random.Random(0))
            assert policy.act(state, seat, random.Random(0)) == want, engine.notation(variant, want)
            checked += 1
    assert checked > 300


@pytest.mark.parametrize("variant", GAMES)
def test_playouts_end_the_hand_with_legal_moves(variant):
    own = bots.game_bots(variant).playout
    for policy in [own, RandomPlayout()] if own is not None else [RandomPlayout()]:
        rng = random.Random(4)
        state = engine.new_game(variant, options(variant), rng=rng, first_dealer=0)
        engine.apply(state, 0, engine.DEAL, rng)
        taken = play_hand(state, policy, rng)
        assert state.phase in (Phase.DEAL, Phase.GAME_OVER) and len(state.records) == 1 and taken > 10


# ---- the search bot ----

@pytest.mark.parametrize("variant", STRONG_GAMES)
def test_strong_bot_plays_whole_games_legally(variant):
    bot = SearchBot(QUICK)
    rng = random.Random(3)
    moves = games = 0
    while moves < 150 and games < 6:             # whole games (a Buck Euchre sweep ends one at once)
        state = engine.new_game(variant, options(variant, target=150), rng=rng,
                                first_dealer=games % engine.game_of(variant).seats)
        seats = set(range(state.n))
        while state.phase != Phase.GAME_OVER and state.hand_no <= 12:
            seat = bots.bot_seat_to_act(state, seats)
            legal = engine.legal_actions(state, seat)
            action = bot.choose(engine.view(state, seat), legal, rng) if seat % 2 == 0 else \
                bots.choose_action("random", state, seat, rng)
            assert action in legal
            engine.apply(state, seat, action, rng)
            moves += 1
        assert state.records
        games += 1
    assert moves >= 150


def test_registered_strong_bot_is_the_search_bot():
    assert isinstance(bots.BOTS["strong"], SearchBot) and bots.BOTS["strong"].slow
    state, seat = next((s, t) for s, t in positions("buck_euchre", 1, 1) if s.phase == Phase.PLAY)
    assert bots.choose_action("strong", state, seat, random.Random(0)) in engine.legal_actions(state, seat)
    with pytest.raises(ValueError, match="does not play"):
        bots.bot_of("strong", "whist")


def test_the_strong_bot_plays_each_game_by_its_registered_entry():
    """The games with the determinize hooks, each with its own policy and budget where it
    registered them, random playouts and ``Budget()`` where it did not."""
    bot = SearchBot()
    for variant in GAMES:
        entry = bots.game_bots(variant)
        assert bot.plays(variant) == searchable(variant)
        assert bot.budget_of(variant) == (entry.budget or Budget())
        assert bot.playout_of(variant) is (entry.playout or bot.fallback)
        assert SearchBot(QUICK).budget_of(variant) == QUICK          # one budget given: every game's
        assert isinstance(SearchBot(playouts={}).playout_of(variant), RandomPlayout)   # policies given: none
    assert bots.game_bots("buck_euchre").budget == Budget(samples=48, call_samples=192, least=64)
    assert bots.game_bots("spades").budget is None and bots.game_bots("spades2").budget is None
    assert playout("spades") is playout("spades2")


def test_a_budget_registered_for_a_game_is_its_budget_clocked_or_not():
    own = Budget(samples=6, call_samples=10, seconds=1.0)
    bots.register_game("whist", budget=own)
    try:
        assert SearchBot().budget_of("whist") == own
        assert SearchBot().clocked(None).budget_of("whist") == Budget(samples=6, call_samples=10, seconds=None)
        assert SearchBot(QUICK).budget_of("whist") == QUICK
        assert isinstance(SearchBot().playout_of("whist"), RandomPlayout)
    finally:
        bots.unregister_game("whist")
    assert SearchBot().budget_of("whist") == Budget()


def decisions(variant: str, seed: int, count: int):
    """``count`` positions of a game where the seat to act has a real choice (no Reveal)."""
    out = []
    for state, seat in positions(variant, seed, hands=3):
        legal = engine.legal_actions(state, seat)
        if len(legal) > 1 and REVEAL not in legal and state.phase not in (SpadesPhase.EXCHANGE, HeartsPhase.PASS):
            out.append((state.copy(), seat))
            if len(out) == count:
                break
    return out


@pytest.mark.parametrize("variant", STRONG_GAMES)
def test_deterministic_and_blind_to_the_hidden_cards(variant):
    """Same view and seed, same choice; and the same choice in another real deal that shows the
    seat the very same view (its hidden cards dealt anew, consistently with the view)."""
    bot = SearchBot(Budget(samples=8, seconds=None, round=4))
    rng = random.Random(11)
    for state, seat in decisions(variant, 5, 10):
        view = engine.view(state, seat)
        legal = engine.legal_actions(state, seat)
        first = bot.choose(view, legal, random.Random(99))
        assert bot.choose(engine.view(state, seat), legal, random.Random(99)) == first
        other = engine.determinize(view, sample_fills(engine.hidden(view), rng))
        assert layout(other) != layout(state)
        assert engine.view(other, seat) == view
        assert bot.choose(engine.view(other, seat), engine.legal_actions(other, seat), random.Random(99)) == first


def layout(state) -> tuple:
    """Where the cards are: the hands, and the stock (two-player draw) or the kitty (Buck Euchre)."""
    if state.variant == "spades2":
        return tuple(state.hands), tuple(state.deck[state.pos:]), state.discards
    return tuple(state.hands), getattr(state, "kitty", 0)


class Counting:
    """A playout policy that counts the hands it values."""

    def __init__(self, inner):
        self.inner, self.values = inner, 0

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def value(self, before, after, seat):
        self.values += 1
        return self.inner.value(before, after, seat)


def test_budget_bounds_the_deals():
    state, seat = decisions("spades", 2, 1)[0]
    view, legal = engine.view(state, seat), engine.legal_actions(state, seat)
    for budget, most in ((Budget(samples=12, call_samples=12, seconds=None, round=4, sure=99.0), 12),
                         (Budget(samples=1000, call_samples=1000, seconds=0.0, round=3, sure=99.0), 3)):
        counting = Counting(playout("spades"))
        bot = SearchBot(budget, {"spades": counting})
        candidates = counting.candidates(view, legal)
        bot.evaluate(view, candidates, random.Random(0), counting)
        assert len(candidates) <= counting.values <= most * len(candidates)


def test_the_search_stops_sure_only_after_its_least_deals():
    """With ``sure`` at 0 any lead is sure, so the search stops at the first round end that
    ``least`` allows."""
    state, seat = decisions("spades", 2, 1)[0]
    view, legal = engine.view(state, seat), engine.legal_actions(state, seat)
    for least in (4, 40):
        counting = Counting(playout("spades"))
        bot = SearchBot(Budget(1000, None, round=4, sure=0.0, least=least, call_samples=1000), {"spades": counting})
        candidates = counting.candidates(view, legal)
        assert len(candidates) >= 3
        bot.evaluate(view, candidates, random.Random(0), counting)
        assert 2 * least <= counting.values <= len(candidates) * least


def test_search_with_random_playouts_for_a_game_without_a_policy():
    bot = SearchBot(QUICK, playouts={})
    for state, seat in decisions("buck_euchre", 4, 6):
        legal = engine.legal_actions(state, seat)
        assert bot.choose(engine.view(state, seat), legal, random.Random(1)) in legal


def hand_margin(strong: set[int], deck: list[int], dealer: int, bot: SearchBot, seed: int) -> float:
    """One four-player Spades hand from 0 to 0: the strong side's points less its bags at their
    price (10 points each, as a game charges them), against the other side's."""
    state = engine.new_game("spades", engine.SpadesOptions(), first_dealer=dealer, decks=[deck])
    rng = random.Random(seed)
    while state.hand_no < 1 or state.phase != Phase.DEAL:
        seat = bots.bot_seat_to_act(state, {0, 1, 2, 3})
        legal = engine.legal_actions(state, seat)
        player = bot if seat in strong else bots.BOTS["basic"]
        engine.apply(state, seat, player.choose(engine.view(state, seat), legal, rng), rng)
    side = min(strong)
    worth = [state.scores[s] - 10 * state.bags[s] for s in (0, 1)]
    return worth[side] - worth[1 - side]


def test_strong_beats_basic_over_duplicate_deals():
    """Six four-player Spades deals, each played with the strong pair on either side (seeded, no clock)."""
    bot = SearchBot(Budget(samples=16, seconds=None))
    total = 0.0
    for deal in range(6):
        deck = list(range(52))
        random.Random(deal).shuffle(deck)
        total += hand_margin({0, 2}, deck, deal % 4, bot, deal) + hand_margin({1, 3}, deck, deal % 4, bot, deal)
    assert total > 0, total
