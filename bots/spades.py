"""The "basic" computer player of every Spades game, deciding only from one seat's view.

Bidding counts likely winners with weights fitted on self-play hands; the two-player draw keeps
spades and high cards; trick play wins cheaply while the side's contract needs tricks, ducks
when it is made (bags) or when the seat bid Nil, and covers a partner who bid Nil. In Cutthroat
Spades every player is alone: no partner to cover or to count on, its own weights for a hand of
17 cards, and either opponent may be set.

The table settings change what it may bid, and it bids within them: the legal bid nearest the
one it wants (reaching a minimum team bid), in Suicide Nil with the weaker hand of the pair
(the first partner to bid bids Nil when its hand is weaker than an average one), in Whiz Nil or
its spades, and Double Nil blind only at a table that allows it to a side far behind, when its
side trails by ``BLIND_NIL_DEFICIT`` or more. At a table with jokers a joker (and in
``jokers_deuces`` the 2♦) is a spade, ranked by its strength: its hand is valued as the plain
hand whose spades are as strong.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine import Phase
from engine.core.actions import Action, kind_of, payload_of, play
from engine.core.cards import SPADES, Card
from engine.core.views import View
from engine.games.spades_bidding import trailing
from engine.games.spades_deck import Trumps, trumps_of
from engine.games.spades_scoring import DOUBLE_NIL_BID
from engine.games.spades_state import STANDARD, SUICIDE
from engine.games.spades_words import (
    DOUBLE_NIL,
    DRAW_DISCARD,
    DRAW_KEEP,
    REVEAL,
    SpadesCode,
    SpadesPhase,
    bid,
    exchange,
)

from .spades_hand import PLAIN, _suits, estimate, nil_ok, ranks_of, table_of

WIN, DUCK, COVER = "win", "duck", "cover"
NO_BID = -1

BID_MARGIN = {"spades": 0.4, "spades2": 0.9, "cutthroat_spades": 0.8}   # bid this much under the estimate
NIL_BELOW = {"spades": 2.0, "spades2": 3.5, "cutthroat_spades": 3.0}    # Nil only with an estimate below this
HAND_SIZE = {"spades": 13, "spades2": 13, "cutthroat_spades": 17}       # the most a seat may bid
SUICIDE_NIL_BELOW = 13 / 4   # Suicide, first of the pair to bid: Nil with an estimate below an average hand's
BLIND_NIL_DEFICIT = 200      # Double Nil blind only when the side trails by this much (and the table allows it)
KEEP_RANK = 13           # two-player draw: keep spades and side cards of this rank or higher
SET_SLACK = 2            # contract made: keep winning while the opponents can still be set

def is_nil(bid_: int) -> bool:
    """Whether a bid as the state keeps it is Nil or Double Nil."""
    return bid_ == 0 or bid_ == DOUBLE_NIL_BID


def choose_bid(hand: list[Card], variant: str, options: Any, partner: int, allowed: Sequence[int]) -> int:
    """The tricks to bid (0: Nil) with ``hand``, the partner having bid ``partner`` (as the state
    keeps it: ``NO_BID`` not yet, ``DOUBLE_NIL_BID``; two players: ``NO_BID``), among the numbers
    ``allowed``: the one nearest the estimate less a margin (the higher of two as near), or Nil
    with a weak hand; in Suicide the first partner to bid bids Nil with a hand below an average
    one's estimate."""
    table = trumps_of(options)
    est = estimate(hand, variant, table)
    if getattr(options, "bidding", STANDARD) == SUICIDE and partner == NO_BID:
        nil = est < SUICIDE_NIL_BELOW
    else:
        nil = not is_nil(partner) and est < NIL_BELOW[variant] and nil_ok(hand, table)
    if nil and 0 in allowed:
        return 0
    tricks = max(1, int(est - BID_MARGIN[variant] + 0.5))
    most = HAND_SIZE[variant]
    want = max(1, min(tricks, most - partner if partner > 0 else most))
    numbers = [t for t in allowed if t > 0] or list(allowed)
    return min(numbers, key=lambda t: (abs(t - want), -t))


def blind_nil_wanted(options: Any, deficit: int, partner: int) -> bool:
    """Whether to declare Double Nil blind: only at a table that allows it to a side behind
    (``blind_nil_when_behind``), with the side trailing by ``BLIND_NIL_DEFICIT`` or more and a
    partner who bid no Nil."""
    need = getattr(options, "blind_nil_when_behind", 0)
    return (need > 0 and options.double_nil_value > 0 and deficit >= max(need, BLIND_NIL_DEFICIT)
            and not is_nil(partner))


def _deficit(v: View, me: int) -> int:
    """How far the viewer's side trails the highest of the other sides."""
    return trailing([side.score for side in v.sides], me % len(v.sides))


def _partner_bid(v: View, me: int) -> int:
    if v.variant != "spades":
        return NO_BID
    partner = v.seats[me ^ 2]
    return partner.bid if partner.bid is not None else DOUBLE_NIL_BID if partner.rules.double_nil else NO_BID


def choose(v: View, legal, rng) -> Action:
    """The basic bot's action for the viewer of ``v`` (a Spades variant), from ``legal``."""
    if v.phase == SpadesPhase.BID:
        return _bid(v, legal)
    if v.phase == SpadesPhase.DRAW:
        return _draw(v, legal)
    if v.phase == SpadesPhase.EXCHANGE:
        return _exchange(v)
    if v.phase == Phase.PLAY:
        return play(_play(v, [payload_of(a) for a in legal]))
    return legal[0]


# ---- bidding, draw, exchange ----

def _bid(v: View, legal) -> Action:
    me = v.viewer
    assert me is not None    # a bot acts for a seat, never as a spectator
    if DOUBLE_NIL in legal and blind_nil_wanted(v.options, _deficit(v, me), _partner_bid(v, me)):
        return DOUBLE_NIL
    if REVEAL in legal:
        return REVEAL          # look first: it bids Double Nil blind only when far behind
    if v.turn != v.viewer:
        return legal[0]
    allowed = [payload_of(a) for a in legal if kind_of(a) == SpadesCode.BID]
    if not allowed:
        return legal[0]
    return bid(choose_bid(v.hand or [], v.variant, v.options, _partner_bid(v, me), allowed))


def _draw(v: View, legal=()) -> Action:
    me = v.viewer
    if DOUBLE_NIL in legal and me is not None and blind_nil_wanted(v.options, _deficit(v, me), NO_BID):
        return DOUBLE_NIL
    card = v.rules.offered
    if card is None:
        return DRAW_KEEP
    keep = _suit(card) == SPADES or _rank(card) >= KEEP_RANK
    return DRAW_KEEP if keep else DRAW_DISCARD


def _rank(c: Card, table: Trumps = PLAIN) -> int:
    return ranks_of(table)[c]


def _suit(c: Card, table: Trumps = PLAIN) -> int:
    return table.suit[c]


def _danger(c: Card, table: Trumps = PLAIN) -> int:
    """How likely a card is to take a trick: its rank, spades a little more."""
    return _rank(c, table) + (3 if _suit(c, table) == SPADES else 0)


def gives_high(v: View, me: int) -> bool:
    """Whether the seat gives its most dangerous cards in the exchange: it bid Double Nil, or it
    bid Nil in an exchange for an ordinary Nil (its partner bid no Double Nil)."""
    mine = v.seats[me]
    return mine.rules.double_nil or (mine.bid == 0 and v.variant == "spades"
                                     and not v.seats[me ^ 2].rules.double_nil)


def exchange_cards(cards: list[Card], fewest: int, most: int, high: bool, table: Trumps = PLAIN) -> list[Card]:
    """The cards the bot gives in an exchange: ``high``, its most dangerous (of rank 10 or more
    with the spade bonus, up to ``most``, at least ``fewest``); else its lowest, side cards first."""
    ordered = sorted(cards, key=lambda c: _danger(c, table))
    if high:
        top = [c for c in reversed(ordered) if _danger(c, table) >= 10]
        return top[:most] if len(top) >= fewest else ordered[-fewest:] if fewest else []
    return sorted(ordered, key=lambda c: (_suit(c, table) == SPADES, _rank(c, table)))[:fewest]


def _exchange(v: View) -> Action:
    rule, me = v.exchange, v.viewer
    assert rule is not None and me is not None   # the seat to act in the exchange has a rule
    give = exchange_cards(rule.cards, rule.fewest, rule.most, gives_high(v, me), table_of(v))
    mask = 0
    for c in give:
        mask |= 1 << c
    return exchange(mask)


# ---- trick play ----

def _nil(info) -> bool:
    return info.bid == 0 or info.rules.double_nil


def _side(v: View, seat: int) -> list[int]:
    return [seat, seat ^ 2] if v.variant == "spades" else [seat]


def _rivals(v: View, me: int) -> list[list[int]]:
    """The seats of each side against the viewer's: the other partnership, or each other player."""
    if v.variant == "spades":
        return [_side(v, (me + 1) % 4)]
    return [[s] for s in range(len(v.seats)) if s != me]


def _need(v: View, seats: list[int]) -> int:
    infos = [v.seats[s] for s in seats]
    return sum(i.bid for i in infos if i.bid) - sum(i.tricks_won for i in infos if i.bid)


def _mode(v: View) -> str:
    me = v.viewer
    assert me is not None
    if _nil(v.seats[me]):
        return DUCK
    if v.variant == "spades":
        partner = v.seats[me ^ 2]
        if _nil(partner) and partner.tricks_won == 0:
            return COVER
    if _need(v, _side(v, me)) > 0:
        return WIN
    left = len(v.hand or [])
    for rival in _rivals(v, me):
        opp_need = _need(v, rival)
        if opp_need > 0 and left - opp_need <= SET_SLACK:
            return WIN           # the opponents (one of them, in Cutthroat Spades) can still be set
    return DUCK


def _beats(c: Card, best: Card, table: Trumps = PLAIN) -> bool:
    suit, power = table.suit, table.power
    return (suit[c] == suit[best] and power[c] > power[best]) or (suit[c] == SPADES and suit[best] != SPADES)


def _lowest(cards: list[Card], hand: list[Card], table: Trumps = PLAIN) -> Card:
    """The cheapest card to throw: a low non-spade, from a short suit first."""
    lengths = [0, 0, 0, 0]
    for c in hand:
        lengths[_suit(c, table)] += 1
    return min(cards, key=lambda c: (_suit(c, table) == SPADES, _rank(c, table), lengths[_suit(c, table)]))


def _play(v: View, cards: list[Card]) -> Card:
    table = table_of(v)
    hand = v.hand or cards
    mode = _mode(v)
    if not v.trick:
        return _lead(v, cards, hand, mode, table)
    me, n = v.viewer, len(v.seats)
    assert me is not None
    power = table.power.__getitem__
    danger = lambda c: _danger(c, table)   # noqa: E731
    seats = [s for s, _ in v.trick]
    played = [c for _, c in v.trick]
    winning = table.winner(played)
    best, top = played[winning], seats[winning]   # the card and the seat winning the trick so far
    last = len(v.trick) == n - 1
    winners = [c for c in cards if _beats(c, best, table)]
    losers = [c for c in cards if not _beats(c, best, table)]
    partner = me ^ 2 if n == 4 else None
    if mode == COVER:
        if partner in seats:
            if top != partner:
                mode = WIN if _need(v, _side(v, me)) > 0 else DUCK
            elif winners:
                return min(winners, key=power) if last else max(winners, key=danger)
            else:
                return _lowest(cards, hand, table)
        else:
            return max(winners, key=danger) if winners else _lowest(cards, hand, table)
    info = v.seats[top]
    if top != partner and _nil(info) and info.tricks_won == 0:     # an opponent's Nil is winning:
        return _lowest(losers, hand, table) if losers else min(cards)   # leave the trick to it
    if mode == DUCK:
        if losers:
            return max(losers, key=danger)
        return max(cards, key=danger) if last else min(cards, key=danger)
    if top == partner and (last or _suit(best, table) == SPADES or _rank(best, table) >= 12):
        return _lowest(losers or cards, hand, table)
    if not winners:
        return _lowest(cards, hand, table)
    if last or _suit(winners[0], table) != _suit(best, table) or _suit(best, table) != _suit(played[0], table):
        return min(winners, key=danger)
    return max(winners, key=danger)


def _lead(v: View, cards: list[Card], hand: list[Card], mode: str, table: Trumps = PLAIN) -> Card:
    suits = _suits(hand, table)
    rank, suit = ranks_of(table), table.suit
    if mode == DUCK:
        return min(cards, key=lambda c: (rank[c], suit[c] == SPADES, len(suits[suit[c]])))
    if mode == COVER:
        return max(cards, key=lambda c: (rank[c], suit[c] != SPADES))
    side = [c for c in cards if suit[c] != SPADES]
    aces = [c for c in side if rank[c] == 14]
    if aces:
        return max(aces, key=lambda c: ((c - 1) in hand, -len(suits[suit[c]])))
    spades = [c for c in cards if suit[c] == SPADES]
    if spades:
        highest = max(spades, key=table.power.__getitem__)
        if (rank[highest] == 14 and len(suits[SPADES]) >= 3) or not side:
            return highest
    if side:
        if suits[SPADES]:
            singles = [c for c in side if len(suits[suit[c]]) == 1 and rank[c] < 13]
            if singles:
                return min(singles)
        longest = max(range(3), key=lambda s: (len(suits[s]) if any(suit[c] == s for c in side) else -1))
        return min(c for c in side if suit[c] == longest)
    return min(cards)
