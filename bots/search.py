"""The "strong" computer player: a determinized Monte Carlo search over the engine, for any game
with a determinize hook.

For each decision it deals the cards its seat cannot see in a way its view allows
(``bots.sampling`` over ``engine.hidden(view)``), keeping a deal with the probability that the
seats' calls (bids, passes, orders, drops) would have been made with the hands it gives
(rejection sampling against the playout's model), builds the whole state that deal gives
(``engine.determinize``), and for each candidate action plays the hand out from there with a
fast policy for every seat (``bots.playout``), scoring the hand's end for its seat. That policy
is the basic bot's (a rollout algorithm: the search improves on the policy it rolls out with,
and the table's other players are modelled as that policy, not as players who see the cards).
Each game brings its policy and, where the default does not suit, its budget in its bots entry
(``bots.registry``); a game without a policy is played out at random.

Every candidate is tried on the same deals with the same random stream (common random numbers),
so the comparison measures the actions, not the luck of the deals. After each round of deals the
worse half of the candidates is dropped (successive halving), and the search stops once the best
leads every other by ``Budget.sure`` standard errors of the paired difference (over at least
``Budget.least`` deals), or when the sample or time budget is spent; it takes the candidate with
the best total. Calls (bids, passes, trump, discards) are searched like card play, among the
candidates the game's policy offers (``Playout.candidates``); a choice the policy makes itself
(``Playout.shortcut``) is not searched.

It decides from ``(view, legal, rng)`` alone: the real state never reaches it, and with the same
view and rng it makes the same choice whatever the hidden cards really are. All its randomness
comes from ``rng``, so it is deterministic under a seed as long as the sample budget, not the
clock, ends its thinking.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace

import engine
from engine import Action, Phase, TableState, View

from .budget import Budget
from .playout import Playout, RandomPlayout, play_hand
from .registry import game_bots


class SearchBot:
    """Determinized Monte Carlo search with fast playouts, under a per-decision budget."""

    name = "strong"
    slow = True   # thinks long enough that a server runs it off its event loop

    def __init__(self, budget: Budget | None = None, playouts: Mapping[str, Playout] | None = None):
        """``budget`` for every game, or None: each game's own (``bots.register_game``), and
        ``Budget()`` for a game without one; ``playouts`` by game instead of the registered ones
        (a game missing from either is played out at random)."""
        self.budget = budget or Budget()
        self.own_budgets = budget is None   # whether a game's registered budget applies
        self.reclocked = False              # whether clocked() set ``seconds`` for every game's budget
        self.playouts = playouts
        self.fallback = RandomPlayout()

    def clocked(self, seconds: float | None) -> SearchBot:
        """This bot with ``seconds`` of thinking a decision in every game's budget (None: no
        clock, so each decision plays its whole sample budget and is the same under a seed however
        busy the machine is)."""
        bot = SearchBot(replace(self.budget, seconds=seconds), self.playouts)
        bot.own_budgets, bot.reclocked = self.own_budgets, True
        return bot

    def budget_of(self, variant: str) -> Budget:
        """The budget of a decision in the game ``variant``."""
        own = game_bots(variant).budget if self.own_budgets else None
        if own is None:
            return self.budget
        return replace(own, seconds=self.budget.seconds) if self.reclocked else own

    def playout_of(self, variant: str) -> Playout:
        """The policy the game ``variant`` is played out with (random for a game without one)."""
        policy = game_bots(variant).playout if self.playouts is None else self.playouts.get(variant)
        return policy if policy is not None else self.fallback

    def plays(self, variant: str) -> bool:
        """The games whose engine module can build states from a view."""
        game = engine.GAMES.get(variant)
        return game is not None and game.hidden is not None and game.determinize is not None

    def choose(self, view: View, legal: Sequence[Action], rng: random.Random) -> Action:
        """The legal action with the best total over sampled deals."""
        if len(legal) == 1:
            return legal[0]
        policy = self.playout_of(view.variant)
        quick = policy.shortcut(view, legal, rng)
        if quick is not None:
            return quick
        candidates = policy.candidates(view, legal)
        if len(candidates) == 1:
            return candidates[0]
        totals = self.evaluate(view, candidates, rng, policy)
        return candidates[max(range(len(candidates)), key=totals.__getitem__)]

    def evaluate(self, view: View, candidates: Sequence[Action], rng: random.Random,
                 policy: Playout | None = None) -> list[float]:
        """Each candidate's total value over the deals it was tried on; one dropped in an earlier
        round of the successive halving ranks below every one that stayed (-inf)."""
        policy = policy or self.playout_of(view.variant)
        budget = self.budget_of(view.variant)
        start = time.perf_counter()
        me = view.viewer
        assert me is not None, "a bot plays a seat"
        game = engine.game_of(view.variant)
        build, steps = game.determinize, game.apply
        assert build is not None
        hidden = engine.hidden(view)
        values: list[list[float]] = [[] for _ in candidates]
        alive = list(range(len(candidates)))
        playout_rng = random.Random()
        samples = budget.samples if view.phase == Phase.PLAY else budget.call_samples
        for deal in range(samples):
            if deal and deal % budget.round == 0:
                alive = _halve(alive, values)
                if len(alive) == 1 or (deal >= budget.least and _sure(alive, values, budget.sure)):
                    break
                if budget.seconds is not None and time.perf_counter() - start > budget.seconds:
                    break
            world = self._deal(view, hidden, build, policy, rng, budget.tries)
            seed = rng.getrandbits(64)
            for j in alive:
                state = world.copy()
                playout_rng.seed(seed)
                steps[state.phase](state, me, candidates[j], playout_rng, None)
                play_hand(state, policy, playout_rng)
                values[j].append(policy.value(world, state, me))
        return [sum(values[j]) if j in alive else -math.inf for j in range(len(candidates))]


    def _deal(self, view: View, hidden: engine.Hidden, build, policy: Playout, rng: random.Random,
              tries: int) -> TableState:
        """A sampled world, kept with the probability the playout's likelihood gives it (rejection
        sampling: the kept deals follow how the seats bid); when ``tries`` draws keep none, the
        likeliest of them for a policy that says so (``likeliest``), else one more drawn unweighed."""
        likeliest = getattr(policy, "likeliest", False)
        best, most = None, -1.0
        for _ in range(tries if likeliest else tries - 1):
            world = build(view, hidden, policy.deal(view, hidden, rng))
            u = rng.random()
            weight = policy.likelihood(view, world, u)
            if u < weight:
                return world
            if weight > most:
                best, most = world, weight
        if best is not None and likeliest:
            return best
        return build(view, hidden, policy.deal(view, hidden, rng))


def _halve(alive: list[int], values: list[list[float]]) -> list[int]:
    """The better half of the candidates still in the running (at least two), in their order."""
    if len(alive) <= 2:
        return alive
    ranked = sorted(alive, key=lambda j: -sum(values[j]))
    return sorted(ranked[:max(2, (len(alive) + 1) // 2)])


def _sure(alive: list[int], values: list[list[float]], z: float) -> bool:
    """Whether the best candidate leads each other one by ``z`` standard errors of the paired
    difference over the same deals (a zero difference on every deal counts as sure: they tie)."""
    best = max(alive, key=lambda j: sum(values[j]))
    n = len(values[best])
    for j in alive:
        if j == best:
            continue
        diffs = [a - b for a, b in zip(values[best], values[j], strict=True)]
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        if var and mean < z * math.sqrt(var / n):
            return False
    return True
