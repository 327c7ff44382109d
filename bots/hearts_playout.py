"""The fast playout policy of Hearts: the basic bot's decisions, read straight from a
(determinized) state, and what the strong bot searches.

As in ``bots.spades_playout``: every seat passes and plays exactly as the basic bot
(``bots.hearts``) would from its own view (both call the same bit-set functions, and a test pins
it), from the state's bit sets, looking at nobody else's cards: a playout of a whole hand takes
about half a millisecond.

Points are bad in Hearts, and the search maximises a hand's value, so a hand is worth to a seat
minus the points it scored (the moon as the game's option scores it: another seat's moon costs
the seat 26, its own costs every other seat 26; the J♦'s −10 where it counts), plus ``OTHERS``
of the others' average (the two others at a table of three, the three of four) and ``LEADER`` of
the points of the other seat with the lowest score (points dumped on the player to beat are worth
more than points dumped on the others), and the game won (or lost to another player) with the
hand counts ``GAME_VALUE`` more: once a score reaches the target the lowest wins.

The search compares the cards of a run of equal cards once (the Q♠ always apart from the spades
beside it, and the J♦ from the diamonds where it counts) and, of the 286 passes (680 of a hand of
17), only the basic bot's and every other three of its ``PASS_CARDS`` most dangerous cards (at
most ten). Its deals come from :func:`fill_places`, which
never dead-ends on the hands that two complementary voids leave (``bots.sampling`` may).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations
from typing import cast

from engine import Action, Hidden, Phase, TableState, View
from engine.core.actions import DEAL, payload_of, play
from engine.core.cards import card_list
from engine.core.hidden import mask, public_cards
from engine.core.tricks import TrumpRules
from engine.games.hearts import playable
from engine.games.hearts_state import FULL_DECK, HeartsState, deck_mask
from engine.games.hearts_words import HeartsPhase, pass_cards

from . import hearts as basic
from .budget import Budget
from .playout import equivalent_cards
from .registry import register_game
from .sampling import NoDeal, sample_fills

GAME_VALUE = 60        # points a game won (or lost) with this hand is worth beyond the hand's own
OTHERS = 1 / 3         # the weight of the other players' average points against one's own
LEADER = 0.5           # the weight of the points taken by the other seat with the lowest score
PASS_CARDS = 5         # the pass searches every three of the basic bot's five most dangerous cards
NO_TRUMP = TrumpRules(None, bowers=False)
_PLAY_PHASE, _PASS_PHASE = Phase.PLAY, HeartsPhase.PASS


def play_card(state: TableState, seat: int) -> int:
    """The card the basic bot plays for ``seat`` (the seat in turn in trick play)."""
    table = cast(HeartsState, state)
    legal = playable(table, seat)
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    options = table.options
    gone = FULL_DECK & ~deck_mask(options)       # a card out of the deck is out of play
    for cards in table.played:
        gone |= cards
    return basic.card_to_play(table.hands[seat], legal, table.trick_cards, gone, table.n, options.jack_of_diamonds,
                              table.trick_seats, basic.leader_of(table.scores, seat))


def pass_ranking(hand: int, jack: bool = False) -> list[int]:
    """The cards of ``hand`` from the most dangerous to pass (as the basic bot ranks them first;
    ``jack``: the J♦ counts −10)."""
    return sorted(card_list(hand), key=lambda c: (-basic.pass_danger(c, hand, basic.PASS_SIZE, jack), -c))


def fill_places(hidden: Hidden, rng: random.Random) -> list[list[int]]:
    """One random deal of ``hidden.cards`` into ``hidden.places``, each card in a place that may
    hold it, that never runs into a dead end: ``bots.sampling.sample_fills`` when nothing is
    restricted, else each card (in random order) goes to one of its places in proportion to the
    room left there, among the places that leave the rest a deal (Hall's condition over the sets
    of places, kept as each set's slack: its room less the cards that fit nowhere else).

    Hearts needs it: two seats void in complementary suits (one holding only hearts and spades,
    the other only clubs and diamonds) leave so few deals that proportional dealing nearly always
    dead-ends. NoDeal when the places admit no deal at all."""
    places = hidden.places
    pool = hidden.cards
    if all(p.allowed & pool == pool for p in places):
        return sample_fills(hidden, rng)
    k = len(places)
    cards = card_list(pool)
    if sum(p.size for p in places) != len(cards):
        raise NoDeal(f"{len(cards)} unknown cards for {sum(p.size for p in places)} places")
    fits = [0] * 52
    for c in cards:
        for i, p in enumerate(places):
            if p.allowed >> c & 1:
                fits[c] |= 1 << i
    full = (1 << k) - 1
    slack = [0] * (full + 1)
    for subset in range(1, full + 1):
        size = sum(p.size for i, p in enumerate(places) if subset >> i & 1)
        slack[subset] = size - sum(1 for c in cards if fits[c] & ~subset == 0)
        if slack[subset] < 0:
            raise NoDeal("no deal of the unknown cards fits the places")
    tight: dict[tuple[int, int], list[int]] = {}   # (place, fits): the sets that lose a slot
    room = [p.size for p in places]
    out: list[list[int]] = [[] for _ in places]
    draw = rng.random
    for c in sorted(cards, key=lambda _: draw()):
        sig = fits[c]
        options: list[tuple[int, list[int]]] = []
        total = 0
        for i in range(k):
            if not sig >> i & 1 or not room[i]:
                continue
            sets = tight.get((i, sig))
            if sets is None:
                sets = tight[(i, sig)] = [s for s in range(1, full + 1) if s >> i & 1 and sig & ~s]
            if all(slack[s] > 0 for s in sets):
                options.append((i, sets))
                total += room[i]
        pick = draw() * total
        chosen = 0
        while chosen < len(options) - 1:
            pick -= room[options[chosen][0]]
            if pick < 0:
                break
            chosen += 1
        i, sets = options[chosen]
        room[i] -= 1
        for s in sets:
            slack[s] -= 1
        out[i].append(c)
    return out


class HeartsPlayout:
    """The playout policy and hand value of Hearts."""

    card = staticmethod(play_card)

    def act(self, state: TableState, seat: int, rng: random.Random) -> Action:
        """The basic bot's action for ``seat``."""
        phase = state.phase
        if phase == _PLAY_PHASE:
            return play(play_card(state, seat))
        if phase == _PASS_PHASE:
            return pass_cards(basic.pass_mask(state.hands[seat], cast(HeartsState, state).options.jack_of_diamonds))
        return DEAL

    def value(self, before: TableState, after: TableState, seat: int) -> float:
        """Minus the seat's points, plus a share of the others' average and of the best placed
        rival's, and the game."""
        n = after.n
        change = [after.scores[s] - before.scores[s] for s in range(n)]
        v = -change[seat] + OTHERS * (sum(change) - change[seat]) / (n - 1)
        leader = basic.leader_of(before.scores, seat)
        v += LEADER * change[leader]   # points the best placed rival takes are worth more to us
        if after.winner:
            v += GAME_VALUE if after.winner == [seat] else -GAME_VALUE
        return v

    def deal(self, view: View, hidden: Hidden, rng: random.Random) -> list[list[int]]:
        """A random deal the view allows (:func:`fill_places`)."""
        return fill_places(hidden, rng)

    def likelihood(self, view: View, world: TableState, floor: float = 0.0) -> float:
        """Every deal as likely as any other (the passes of the others are not seen)."""
        return 1.0

    def candidates(self, view: View, legal: Sequence[Action]) -> list[Action]:
        """Cards once per run of equal cards (the Q♠, and the J♦ where it counts, always on their
        own); in the pass, the basic bot's pass first, then every other three of its
        ``PASS_CARDS`` most dangerous cards."""
        hand = mask(view.hand)
        if view.phase == HeartsPhase.PASS:
            jack = view.options.jack_of_diamonds
            mine = basic.pass_mask(hand, jack)
            out = [pass_cards(mine)]
            for three in combinations(pass_ranking(hand, jack)[:PASS_CARDS], basic.PASS_SIZE):
                given = mask(list(three))
                if given != mine:
                    out.append(pass_cards(given))
            return [a for a in out if a in legal]
        if view.phase == Phase.PLAY:
            apart = (basic.QUEEN, basic.JACK) if view.options.jack_of_diamonds else (basic.QUEEN,)
            cards = [payload_of(a) for a in legal]
            plain = [c for c in cards if c not in apart]
            gone = public_cards(view) | FULL_DECK & ~deck_mask(view.options)
            kept = equivalent_cards(plain, hand, gone, NO_TRUMP) if plain else []
            return [play(c) for c in kept + [c for c in cards if c in apart]]
        return list(legal)

    def shortcut(self, view: View, legal: Sequence[Action], rng: random.Random) -> Action | None:
        """Never: every choice is searched."""
        return None


BUDGET = Budget(samples=128, call_samples=128)
"""The search's budget a decision: 128 deals for a card and for the pass, within the default
clock (0.2 s, checked every round of 8 deals). A hand plays out in about half a millisecond and
successive halving drops most candidates early, so a decision takes some 20 ms (a pass, ten
candidates played out to the end of the hand, about 90; p99 about 110 ms over whole games).
Over the same 400 bench games (100 duplicate deals) against three basic bots, the strong bot's
win share was 0.46 with 64 deals, 0.525 with 64 deals and the leader's points weighed
(``LEADER``), 0.57 with 128 deals; the basic bot's own pass instead of the searched one, 0.49."""

# bench-bots plays 400 games (100 deals, the strong bot in each seat), for an interval of about ±0.045.
register_game("hearts", basic=basic.choose, playout=HeartsPlayout(), budget=BUDGET)
