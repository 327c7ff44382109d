"""Playing a hand out fast: what a search bot simulates every seat with, and how it scores a hand.

A :class:`Playout` knows one game: ``act`` picks a seat's action straight from a (determinized)
state, with no view built and no list of legal actions; ``value`` says how good the end of the
hand is for a seat; ``deal`` how the unseen cards lie, as its players would have come to hold
them, and ``likelihood`` how well a sampled deal explains the calls the seats made;
``candidates`` the actions of a view worth searching, and ``shortcut`` an action to take without
searching (or None). :func:`play_hand` plays a state to the end of its
hand through the game's own apply steps, so every rule is the engine's.

:class:`RandomPlayout` plays any game uniformly at random and counts a hand by the points of the
seat's side against the others' (higher is better); the games built in have their own
(``bots.spades_playout``, ``bots.buck_euchre_playout``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

import engine
from engine import NOBODY, Action, Hidden, IllegalAction, Phase, TableState, View
from engine.core.actions import play
from engine.core.cards import card_list
from engine.core.tricks import TrumpRules

from .sampling import sample_fills

MAX_STEPS = 1000   # no hand of a built-in game takes more than ~110 actions
_DEAL, _GAME_OVER, _PLAYING = Phase.DEAL, Phase.GAME_OVER, Phase.PLAY   # enum members read once


class Playout(Protocol):
    """A fast policy for every seat of one game, and the value of a hand's end."""

    def act(self, state: TableState, seat: int, rng: random.Random) -> Action:
        """An action for ``seat`` in ``state`` (meant to be legal; an illegal one is replaced)."""
        ...

    def value(self, before: TableState, after: TableState, seat: int) -> float:
        """How good the change from ``before`` to the end of the hand (``after``) is for ``seat``."""
        ...

    def deal(self, view: View, hidden: Hidden, rng: random.Random) -> list[list[int]]:
        """The unseen cards dealt into ``hidden``'s places as this policy's players would have
        come to hold them (``bots.sampling.sample_fills`` when every deal is equally likely)."""
        ...

    def likelihood(self, view: View, world: TableState, floor: float = 0.0) -> float:
        """How likely, from 0 to 1, the calls the view shows are had the hands been those of
        ``world`` (the search keeps a sampled deal with this probability); it may stop early with
        any value below ``floor`` once the answer is sure to be below it."""
        ...

    def candidates(self, view: View, legal: Sequence[Action]) -> list[Action]:
        """The actions of ``legal`` worth comparing (equivalent cards once, hopeless bids left out)."""
        ...

    def shortcut(self, view: View, legal: Sequence[Action], rng: random.Random) -> Action | None:
        """An action to take without searching, or None."""
        ...


def mover(state: TableState) -> int:
    """The seat to act: the seat in turn, or the lowest seat with an action in a simultaneous step."""
    if state.turn != NOBODY:
        return state.turn
    for seat in range(state.n):
        if len(engine.legal_actions(state, seat)):
            return seat
    return NOBODY


def play_hand(state: TableState, policy: Playout, rng: random.Random) -> int:
    """Play ``state`` in place to the end of its hand (the next deal, or the game's end), every
    seat acting by ``policy`` (in trick play by its ``card(state, seat)`` when it has one, the
    card to play: the commonest step, one call shorter); returns the number of actions taken.
    An action the policy gets wrong is replaced by a random legal one, so a playout always ends."""
    steps = engine.GAMES[state.variant].apply
    act, card = policy.act, getattr(policy, "card", None)
    taken = 0
    phase = state.phase
    while phase != _DEAL and phase != _GAME_OVER and taken < MAX_STEPS:
        seat = state.turn
        if seat == NOBODY:
            seat = mover(state)
        action = play(card(state, seat)) if phase == _PLAYING and card is not None else act(state, seat, rng)
        try:
            steps[phase](state, seat, action, rng, None)
        except IllegalAction:
            legal = engine.legal_actions(state, seat)
            steps[phase](state, seat, legal[rng.randrange(len(legal))], rng, None)
        taken += 1
        phase = state.phase
    return taken


def side_of(state: TableState, seat: int) -> int:
    """The scoring side ``seat`` belongs to."""
    for side in range(state.sides):
        if seat in state.seats_of(side):
            return side
    raise ValueError(f"seat {seat} is on no side")


def equivalent_cards(cards: Sequence[int], hand: int, gone: int, rules: TrumpRules) -> list[int]:
    """``cards`` with each run of equally good cards kept once (the lowest): two cards of one suit
    are equally good when every card ranked between them is in ``hand`` or ``gone`` (played).

    >>> from engine.core.cards import parse_cards, parse_card, card_list, cards_text
    >>> from engine.core.tricks import SPADES_RULES
    >>> hand = parse_cards("9H 10H QH 2C")
    >>> cards_text(sum(1 << c for c in equivalent_cards(card_list(hand), hand, 0, SPADES_RULES)))
    '2C 9H QH'
    >>> cards_text(sum(1 << c for c in equivalent_cards(card_list(hand), hand, 1 << parse_card("JH"), SPADES_RULES)))
    '2C 9H'
    """
    suit, power, masks = rules.suit, rules.power, rules.masks
    outside = ~hand & ~gone
    kept: list[int] = []
    by_suit: dict[int, list[int]] = {}
    for c in cards:
        by_suit.setdefault(suit[c], []).append(c)
    for s, group in by_suit.items():
        group.sort(key=power.__getitem__)
        others = [power[c] for c in card_list(outside & masks[s])]
        kept.append(group[0])
        for low, high in zip(group, group[1:], strict=False):
            if any(power[low] < p < power[high] for p in others):
                kept.append(high)
    return kept


class RandomPlayout:
    """Any game: uniformly random actions, and a hand counted by the seat's side's points minus
    the average of the other sides' (for games where more points are better)."""

    def act(self, state: TableState, seat: int, rng: random.Random) -> Action:
        """A uniformly random legal action."""
        legal = engine.legal_actions(state, seat)
        return legal[rng.randrange(len(legal))]

    def value(self, before: TableState, after: TableState, seat: int) -> float:
        """The side's points in the hand minus the average of the other sides'."""
        side = side_of(after, seat)
        gains = [after.scores[s] - before.scores[s] for s in range(after.sides)]
        others = [g for s, g in enumerate(gains) if s != side]
        return gains[side] - (sum(others) / len(others) if others else 0.0)

    def deal(self, view: View, hidden: Hidden, rng: random.Random) -> list[list[int]]:
        """A uniformly random deal the view allows."""
        return sample_fills(hidden, rng)

    def likelihood(self, view: View, world: TableState, floor: float = 0.0) -> float:
        """Every deal as likely as any other."""
        return 1.0

    def candidates(self, view: View, legal: Sequence[Action]) -> list[Action]:
        """Every legal action."""
        return list(legal)

    def shortcut(self, view: View, legal: Sequence[Action], rng: random.Random) -> Action | None:
        """Never: every choice is searched."""
        return None
