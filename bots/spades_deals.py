"""What the strong Spades bot infers about the cards it cannot see: deals sampled as the seats
would have come to hold them, and how well a sampled deal explains the seats' calls.

Bids: each other seat's bid is weighed against the basic bot's bid for the hand it was dealt
(``BID_LIKELIHOOD`` by how far apart they are). Exchanges (for Double Nil, and for Nil at a table
with ``nil_exchange``): every seat is taken to exchange as the basic bot does, the Nil seat giving
its most dangerous cards and its partner its lowest side cards (``bots.spades.exchange_cards``).
So after an exchange:

- the partner's dealt hand is its hand now with the cards it gave back in place of the ones it got,
  and its unseen cards are dealt only among those its exchange left it (``partner_may_hold``): a
  Nil partner kept nothing more dangerous than it gave, a covering partner nothing lower;
- an opposing pair's swap is unseen: their dealt hands are guessed by undoing the basic bot's
  exchange (the Nil seat got its partner's lowest cards and gave cards more dangerous than any it
  kept, ``undo_exchange``); a deal that no such exchange explains counts ``EXCHANGE_MISFIT``, and
  their bids are weighed on the guess.

Two-player Spades: the other player's cards paired into the draw turns it took them in (``redraw``).
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import cast

from engine import Hidden, Place, TableState, View
from engine.core.cards import SPADES, card_list
from engine.core.hidden import mask
from engine.games.spades_bidding import allowed_numbers, exchange_size
from engine.games.spades_deck import Trumps, trumps_of
from engine.games.spades_determinize import view_bids
from engine.games.spades_scoring import DOUBLE_NIL_BID
from engine.games.spades_state import STANDARD, SpadesState

from . import spades as basic
from .sampling import NoDeal, sample_fills

BID_LIKELIHOOD = (1.0, 0.45, 0.12, 0.03)   # of a bid 0, 1, 2, 3+ tricks from the basic bot's for the hand
EXCHANGE_MISFIT = 0.1   # of an opposing pair's deal that no exchange of the basic bot explains
REDRAW_TRIES = 4
NO_BID, NO_CARD = -1, -1


def danger(c: int, table: Trumps) -> int:
    """How likely a card is to take a trick, as the basic bot's exchange ranks it."""
    return basic._danger(c, table)


def low_key(c: int, table: Trumps) -> tuple[bool, int]:
    """How the covering partner's exchange orders its cards, lowest first: side cards, then by rank."""
    return table.suit[c] == SPADES, basic._rank(c, table)


def gives_high(bids: list[int], seat: int) -> bool:
    """Whether ``seat`` is the Nil seat of its partnership's exchange (it gives its most dangerous
    cards): it bid Double Nil, or Nil with a partner who bid no Double Nil."""
    return bids[seat] == DOUBLE_NIL_BID or (bids[seat] == 0 and bids[seat ^ 2] != DOUBLE_NIL_BID)


def partner_may_hold(view: View) -> int | None:
    """The cards the viewer's partner may still hold after their exchange, given the cards it gave
    (the basic bot's exchange: a Nil seat gives its most dangerous, a covering one its lowest), or
    None when there was no exchange yet."""
    me = view.viewer
    assert me is not None
    got = view.rules.exchange_received
    if len(view.seats) != 4 or not got or not view.rules.exchange_given:
        return None
    table = trumps_of(view.options)
    deck = table.deck
    if gives_high(view_bids(view), me ^ 2):     # it kept nothing more dangerous than it gave
        least = min(danger(c, table) for c in got)
        tie = min(c for c in got if danger(c, table) == least)
        return sum(1 << c for c in card_list(deck) if danger(c, table) < least
                   or (danger(c, table) == least and c < tie))
    most = max(low_key(c, table) for c in got)   # it kept nothing lower than it gave
    tie = max(c for c in got if low_key(c, table) == most)
    return sum(1 << c for c in card_list(deck) if low_key(c, table) > most or (low_key(c, table) == most and c > tie))


_restricted: tuple[Hidden | None, Hidden | None] = (None, None)   # the last view's places, narrowed


def narrowed(view: View, hidden: Hidden) -> Hidden:
    """``hidden`` with the partner's place holding only what its exchange left it (as it was when
    that leaves no deal: a partner that did not exchange as the basic bot does)."""
    global _restricted
    last, narrow = _restricted               # read once: another thread may be searching too
    if last is hidden:
        return narrow or hidden
    allowed = partner_may_hold(view)
    out: Hidden | None = None
    if allowed is not None:
        partner = cast(int, view.viewer) ^ 2
        places = tuple(Place(p.what, p.seat, p.size, p.allowed & allowed) if p.seat == partner else p
                       for p in hidden.places)
        out = Hidden(hidden.cards, places)
        try:
            sample_fills(out, random.Random(0))
        except NoDeal:
            out = None
    _restricted = (hidden, out)
    return out or hidden


def deal(view: View, hidden: Hidden, rng: random.Random) -> list[list[int]]:
    """A random deal the view allows, the partner holding only what its exchange left it and an
    opposing Nil seat none of the cards its unseen exchange gave away (``give_back``); in
    two-player Spades, the other player's cards split by the draw (``redraw``)."""
    if view.variant == "spades2":
        return redraw(view, hidden, sample_fills(hidden, rng), rng)
    fills = sample_fills(narrowed(view, hidden) if view.rules.exchange_received else hidden, rng)
    a = 1 - cast(int, view.viewer) % 2      # the first seat of the other pair
    if len(view.seats) == 4 and view.seats[a].rules.exchange_done and view.seats[a + 2].rules.exchange_done:
        bids = view_bids(view)
        nil = a if gives_high(bids, a) else a + 2
        give_back(view, hidden, fills, nil, exchange_size(view.options, bids[nil], bids[nil ^ 2]), rng)
    return fills


def give_back(view: View, hidden: Hidden, fills: list[list[int]], nil: int, k: int, rng: random.Random) -> None:
    """Move, in ``fills``, the opposing Nil seat's unseen cards more dangerous than it could have
    kept to its partner, each for a random less dangerous one of the partner's (as each may hold
    them): until, its own lowest ``k`` cards taken as the ones it got, the partner holds ``k``
    cards at least as dangerous as any other it holds (those it gave)."""
    where = {(p.what, p.seat): i for i, p in enumerate(hidden.places)}
    if ("hand", nil) not in where or ("hand", nil ^ 2) not in where or not k:
        return
    i, j = where[("hand", nil)], where[("hand", nil ^ 2)]
    mine, theirs = fills[i], fills[j]
    may_mine, may_theirs = hidden.places[i].allowed, hidden.places[j].allowed
    played, partner_played = mask(view.seats[nil].played), mask(view.seats[nil ^ 2].played)
    table = trumps_of(view.options)
    for _ in range(len(mine)):
        now = mask(mine) | played
        got = mask(basic.exchange_cards(card_list(now), k, k, False, table))
        top = max(card_list(now & ~got), key=lambda c: danger(c, table), default=-1)
        if top < 0 or top not in mine or not may_theirs >> top & 1:
            return
        most = danger(top, table)
        if sum(danger(c, table) >= most for c in theirs) + sum(
                danger(c, table) >= most for c in card_list(partner_played)) >= k:
            return
        lower = [c for c in theirs if danger(c, table) < most and may_mine >> c & 1]
        if not lower:
            return
        swap = lower[rng.randrange(len(lower))]
        mine[mine.index(top)], theirs[theirs.index(swap)] = swap, top


def undo_exchange(post_nil: int, post_cover: int, k: int, table: Trumps) -> tuple[int, int, bool]:
    """The dealt hands (Nil seat, covering seat) of an opposing pair whose ``k``-card exchange is
    unseen, from the cards each holds or played now, and whether the basic bot's exchange explains
    them: the Nil seat got its partner's ``k`` lowest cards (guessed as its own lowest) and gave
    ``k`` cards at least as dangerous as any it kept (guessed as the least dangerous such of the
    covering seat's; none such: the deal is not explained)."""
    got = mask(basic.exchange_cards(card_list(post_nil), k, k, False, table))
    kept = post_nil & ~got
    top = max((danger(c, table) for c in card_list(kept)), default=-1)
    pool = sorted((c for c in card_list(post_cover) if danger(c, table) >= top), key=lambda c: danger(c, table))
    fits = len(pool) >= k
    if not fits:
        pool = sorted(card_list(post_cover), key=lambda c: danger(c, table))[-k:]
    gave = mask(pool[:k])
    return kept | gave, post_cover & ~gave | got, fits


def dealt_hands(view: View, world: SpadesState) -> tuple[list[int], float]:
    """Each seat's hand as dealt in ``world`` (-1: not known, as after a two-player put-aside),
    and the weight of the opposing pairs' exchanges (``EXCHANGE_MISFIT`` for each that the basic
    bot's exchange does not explain)."""
    n = world.n
    now = [world.hands[s] | world.played[s] for s in range(n)]
    given, got = world.xgiven, world.xgot
    if n != 4:
        return [now[s] if given[s] == NO_CARD else -1 for s in range(n)], 1.0
    out = [now[s] if given[s] == NO_CARD else now[s] & ~got[s] | given[s] for s in range(4)]
    weight = 1.0
    me = view.viewer
    assert me is not None
    for a in (0, 1):
        if a == me % 2 or given[a] != 0 or got[a] != 0 or given[a + 2] != 0:
            continue                      # no exchange, a known one, or one still being chosen
        bids = world.bids
        nil = a if gives_high(bids, a) else a + 2
        k = exchange_size(world.options, bids[nil], bids[nil ^ 2])
        out[nil], out[nil ^ 2], fits = undo_exchange(now[nil], now[nil ^ 2], k, trumps_of(world.options))
        weight *= 1.0 if fits else EXCHANGE_MISFIT
    return out, weight


def likelihood(view: View, table: TableState, floor: float = 0.0) -> float:
    """How well the world's hands explain the bids and exchanges: each other seat's bid against
    the basic bot's bid for its hand as dealt, and the opposing pairs' exchanges; it may stop
    early with any value below ``floor`` once the answer is sure to be below it."""
    world = cast(SpadesState, table)
    me = view.viewer
    n = world.n
    first = (world.dealer + 1) % n if n != 2 else 1 - world.dealer
    order = [(first + i) % n for i in range(n)]
    dealt, weight = dealt_hands(view, world)
    for info in view.seats:
        s = info.seat
        if weight < floor:
            break
        if s == me or info.bid is None or dealt[s] < 0:
            continue
        partner = s ^ 2 if n == 4 and order.index(s ^ 2) < order.index(s) else -1
        partner_bid = world.bids[partner] if partner >= 0 else NO_BID
        weight *= BID_LIKELIHOOD[min(abs(guess_bid(world, dealt[s], partner_bid) - info.bid), len(BID_LIKELIHOOD) - 1)]
    return weight


def guess_bid(world: SpadesState, dealt: int, partner_bid: int) -> int:
    """The basic bot's bid with the hand ``dealt``, its partner having bid ``partner_bid``."""
    options = world.options
    if plain_bidding(options):
        return bid_for(dealt, world.variant, partner_bid)
    spades = (dealt & trumps_of(options).spades).bit_count()
    allowed = allowed_numbers(options, partner_bid, spades, world.MOST_BID) if world.n != 2 else list(range(14))
    return basic.choose_bid(card_list(dealt), world.variant, options, partner_bid, allowed)


def plain_bidding(options) -> bool:
    """Whether the basic bot's bid is the plain one (the sheet's bidding, the plain deck): the one
    ``bid_for`` remembers."""
    return (options.trumps == STANDARD and options.bidding == STANDARD and not options.min_team_bid
            and not options.blind_nil_when_behind)


@lru_cache(maxsize=1 << 16)
def bid_for(cards: int, variant: str, partner_bid: int) -> int:
    """The tricks the basic bot bids with the hand ``cards`` (0: Nil), its partner having bid
    ``partner_bid`` (remembered: the same hands come up again and again in a search)."""
    hand = card_list(cards)
    est = basic.estimate(hand, variant)
    if not basic.is_nil(partner_bid) and est < basic.NIL_BELOW[variant] and basic.nil_ok(hand):
        return 0
    tricks = max(1, int(est - basic.BID_MARGIN[variant] + 0.5))
    most = basic.HAND_SIZE[variant]
    room = most - partner_bid if partner_bid > 0 else most
    return max(1, min(tricks, room))


def keeps(card: int) -> bool:
    """Whether the basic bot keeps ``card`` when it is offered first in the two-player draw."""
    return card >= 39 or card % 13 + 2 >= basic.KEEP_RANK


def redraw(view: View, hidden: Hidden, fills: list[list[int]], rng: random.Random,
           tries: int = REDRAW_TRIES) -> list[list[int]]:
    """Two-player Spades: re-split the other player's drawn cards (its hand's place and its
    discards' place in ``fills``) as the draw would have: each card it played is kept with a
    random discard beside it, the rest go in random pairs of which the first is kept if it is
    a spade or high, else the second. A split that breaks a void (or an exchange that may have
    drawn from the pile) leaves the uniform deal as it was."""
    me = view.viewer
    assert me is not None
    opp = 1 - me
    where = {(p.what, p.seat): i for i, p in enumerate(hidden.places)}
    if ("drawn", opp) in where or ("hand", opp) not in where:
        return fills
    hand_i = where[("hand", opp)]
    pile_i = where.get(("discards", opp), where.get(("pile", -1)))
    if pile_i is None:
        return fills
    allowed = hidden.places[hand_i].allowed
    pool = fills[hand_i] + fills[pile_i]
    kept_before = len(view.seats[opp].played)
    for _ in range(tries):
        cards = [pool[i] for i in sorted(range(len(pool)), key=lambda _: rng.random())]
        discards = cards[:kept_before]             # beside the cards it has played
        rest = cards[kept_before:]
        hand = []
        for k in range(0, len(rest) - 1, 2):
            first, second = rest[k], rest[k + 1]
            kept, gone = (first, second) if keeps(first) else (second, first)
            hand.append(kept)
            discards.append(gone)
        if len(hand) == hidden.places[hand_i].size and all(allowed >> c & 1 for c in hand):
            out = [list(f) for f in fills]
            out[hand_i], out[pile_i] = hand, discards
            return out
    return fills
