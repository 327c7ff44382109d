"""Deal the cards a seat cannot see, in a way its view allows: the sampler of the search bot.

``engine.hidden(view)`` lists the unknown cards and the places they can be in (each with a size
and the cards it may hold, given the suits each seat has shown out of). :func:`sample_fills`
gives every place its number of cards, each card going only where it may be. Without
restrictions every deal is equally likely; with them, cards that fit fewer places are dealt first
and each card goes to a place with probability proportional to the room left there, which keeps
the deal close to uniform over the consistent deals. Should that dead-end (a card with no room
left where it may go), it starts again, and after ``ATTEMPTS`` tries it deals each card only to
a place that leaves the other cards a deal (as when one seat must hold exactly the cards of the
one suit it has not shown out of), which finds one whenever the view is one the rules can
produce.

>>> import random
>>> from engine import Hidden, Place
>>> from engine.core.cards import parse_cards, cards_text, SUIT_MASKS, HEARTS
>>> pool = parse_cards("2H 3H 4H 2C 3C 4C")
>>> hidden = Hidden(pool, (Place("hand", 1, 3, pool & ~SUIT_MASKS[HEARTS]), Place("hand", 2, 3, pool)))
>>> fills = sample_fills(hidden, random.Random(1))
>>> [cards_text(sum(1 << c for c in cards)) for cards in fills]
['2C 3C 4C', '2H 3H 4H']
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine import Hidden
from engine.core.cards import Card, card_list

ATTEMPTS = 8


class NoDeal(ValueError):
    """No deal fits the places (the view is not one the rules can produce)."""


def sample_fills(hidden: Hidden, rng: random.Random) -> list[list[Card]]:
    """One random deal of ``hidden.cards`` into ``hidden.places``, each card in a place that may
    hold it; the cards of each place in random order. NoDeal when there is none."""
    places = hidden.places
    cards = card_list(hidden.cards)
    if sum(p.size for p in places) != len(cards):
        raise NoDeal(f"{len(cards)} unknown cards for {sum(p.size for p in places)} places")
    pool = hidden.cards
    if all(p.allowed & pool == pool for p in places):     # no restriction: a plain shuffle
        return _split(_shuffled(cards, rng), [p.size for p in places])
    fits = {c: [i for i, p in enumerate(places) if p.allowed >> c & 1] for c in cards}
    for _ in range(ATTEMPTS):
        cards = _shuffled(cards, rng)
        deal = _greedy(sorted(cards, key=lambda c: len(fits[c])), fits, [p.size for p in places], rng)
        if deal is not None:
            return deal
    deal = _guided(cards, fits, [p.size for p in places], rng)
    if deal is None:
        raise NoDeal("no deal of the unknown cards fits the places")
    return deal


def _shuffled(cards: list[Card], rng: random.Random) -> list[Card]:
    """The cards in a uniformly random order (sorted by random keys: cheaper than ``shuffle``)."""
    draw = rng.random
    return sorted(cards, key=lambda _: draw())


def _split(cards: list[Card], sizes: Sequence[int]) -> list[list[Card]]:
    out, start = [], 0
    for size in sizes:
        out.append(cards[start:start + size])
        start += size
    return out


def _greedy(cards: list[Card], fits: dict[Card, list[int]], sizes: list[int],
            rng: random.Random) -> list[list[Card]] | None:
    """Each card to one of its places, chosen in proportion to the room left; None on a dead end."""
    room = sizes[:]
    out: list[list[Card]] = [[] for _ in sizes]
    for c in cards:
        options = fits[c]
        total = 0
        for i in options:
            total += room[i]
        if not total:
            return None
        pick = int(rng.random() * total)   # uniform to within 2**-53
        for i in options:
            pick -= room[i]
            if pick < 0:
                break
        room[i] -= 1
        out[i].append(c)
    return [_shuffled(part, rng) for part in out]


def _guided(cards: list[Card], fits: dict[Card, list[int]], sizes: list[int],
            rng: random.Random) -> list[list[Card]] | None:
    """A deal that never dead-ends (None only when there is none): the most restricted cards
    first, each to a place chosen in proportion to the room left among those that leave the
    rest of the cards a deal (Hall's condition: for every set of places, the cards that fit only
    there are no more than their room)."""
    order = sorted(_shuffled(cards, rng), key=lambda c: len(fits[c]))
    places = len(sizes)
    room = sizes[:]
    left: dict[int, int] = {}                  # remaining cards by the set of places they fit
    bits = {c: sum(1 << i for i in fits[c]) for c in cards}
    for c in cards:
        left[bits[c]] = left.get(bits[c], 0) + 1
    subsets = range(1, 1 << places)

    def feasible() -> bool:
        for sub in subsets:
            need = sum(n for m, n in left.items() if m & ~sub == 0)
            if need > sum(room[i] for i in range(places) if sub >> i & 1):
                return False
        return True

    if not feasible():
        return None
    out: list[list[Card]] = [[] for _ in sizes]
    for c in order:
        left[bits[c]] -= 1
        options = [i for i in fits[c] if room[i]]
        while options:
            total = sum(room[i] for i in options)
            pick = int(rng.random() * total)
            for i in options:
                pick -= room[i]
                if pick < 0:
                    break
            room[i] -= 1
            if feasible():
                out[i].append(c)
                break
            room[i] += 1
            options.remove(i)
        else:
            return None
    return [_shuffled(part, rng) for part in out]
