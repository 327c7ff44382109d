"""The "basic" computer player of both Spades variants, deciding only from one seat's view.

Bidding counts likely winners with weights fitted on self-play hands; the two-player draw keeps
spades and high cards; trick play wins cheaply while the side's contract needs tricks, ducks
when it is made (bags) or when the seat bid Nil, and covers a partner who bid Nil.
"""

from __future__ import annotations

from engine import Phase
from engine.core.actions import Action, payload_of, play
from engine.core.cards import SPADES, Card
from engine.core.tricks import SPADES_RULES
from engine.core.views import View
from engine.games.spades_words import DRAW_DISCARD, DRAW_KEEP, REVEAL, SpadesPhase, bid, exchange

WIN, DUCK, COVER = "win", "duck", "cover"

# Weights of the hand features (fitted by least squares on self-play of this bot,
# tricks actually won when every seat tries to win), one table per variant.
WEIGHTS = {
    "spades": (0.94, 0.87, 0.44, 0.54, 0.09, 0.3, 0.27, 0.96, 0.7, 0.19, 0.5, 0.16, 0.35,
                     0.34, 0.47, 0.5, 0.17, -0.39, 0.24, 0.09, 0.43),
    "spades2": (0.81, 0.93, 0.35, 0.47, 0.09, 0.28, 0.15, 0.84, 0.89, 0.4, 0.67, 0.17, 0.49,
                      0.08, 0.13, 0.05, 0.03, -0.37, 0.15, 0.12, 0.73),
}
BID_MARGIN = {"spades": 0.4, "spades2": 0.9}   # bid this much under the estimate
NIL_BELOW = {"spades": 2.0, "spades2": 3.5}    # Nil only with an estimate below this
KEEP_RANK = 13           # two-player draw: keep spades and side cards of this rank or higher
SET_SLACK = 2            # contract made: keep winning while the opponents can still be set


def _rank(c: Card) -> int:
    return c % 13 + 2


def _suit(c: Card) -> int:
    return c // 13


def _suits(hand: list[Card]) -> list[list[int]]:
    """The ranks held in each suit, highest first."""
    out: list[list[int]] = [[], [], [], []]
    for c in sorted(hand, reverse=True):
        out[c // 13].append(c % 13 + 2)
    return out


def features(hand: list[Card]) -> list[float]:
    """The hand-strength features that the bid estimate weighs (a constant last)."""
    suits = _suits(hand)
    f = [0.0] * 21
    for ranks in suits[:3]:
        n, has = len(ranks), set(ranks)
        f[18] += 12 in has and not (3 <= n <= 4 and (14 in has or 13 in has))
        f[19] += 11 in has
        if 14 in has:
            f[0 if n <= 5 else 1] += 1
        if 13 in has:
            if n == 1:
                f[4] += 1
            elif n >= 6:
                f[5] += 1
            else:
                f[2 if 14 in has else 3] += 1
        if 12 in has and 3 <= n <= 4 and (14 in has or 13 in has):
            f[6] += 1
    sp = suits[SPADES]
    ns, has = len(sp), set(sp)
    honours = 0
    if 14 in has:
        f[7] += 1
        honours += 1
    if 13 in has:
        f[8 if ns >= 2 else 9] += 1
        honours += ns >= 2
    if 12 in has:
        f[10 if ns >= 3 else 11] += 1
        honours += ns >= 3
    if 11 in has and ns >= 4:
        f[12] += 1
        honours += 1
    extra = max(0, ns - 4)
    f[13] = extra
    spare = max(0, ns - honours - extra)
    for length in sorted(len(r) for r in suits[:3]):
        if length > 2 or not spare:
            break
        use = min(spare, 2 if length == 0 else 1)
        f[14 + length] += use
        spare -= use
    f[17] = 1.0
    f[20] = ns
    return f


def estimate(hand: list[Card], variant: str) -> float:
    """The number of tricks this hand is expected to take."""
    return sum(w * x for w, x in zip(WEIGHTS[variant], features(hand), strict=True))


def nil_ok(hand: list[Card]) -> bool:
    """Whether a hand is weak enough to bid Nil: no aces, few low spades, high cards guarded."""
    suits = _suits(hand)
    sp = suits[SPADES]
    if len(sp) > 3 or (sp and sp[0] > (10 if len(sp) < 3 else 9)):
        return False
    for ranks in suits[:3]:
        if ranks and ranks[0] == 14:
            return False
        low = sum(r <= 7 for r in ranks)
        need = sum(2 if r >= 12 else 1 for r in ranks if r >= 11)
        if need > low:
            return False
    return True


def choose(v: View, legal, rng) -> Action:
    """The basic bot's action for the viewer of ``v`` (a Spades variant), from ``legal``."""
    if v.phase == SpadesPhase.BID:
        return _bid(v, legal)
    if v.phase == SpadesPhase.DRAW:
        return _draw(v)
    if v.phase == SpadesPhase.EXCHANGE:
        return _exchange(v)
    if v.phase == Phase.PLAY:
        return play(_play(v, [payload_of(a) for a in legal]))
    return legal[0]


# ---- bidding, draw, exchange ----

def _bid(v: View, legal) -> Action:
    if REVEAL in legal:
        return REVEAL          # look first: this bot never bids Double Nil blind
    if v.turn != v.viewer:
        return legal[0]
    me = v.viewer
    assert me is not None    # a bot acts for a seat, never as a spectator
    hand = v.hand or []
    partner = v.seats[me ^ 2] if v.variant == "spades" else None
    partner_nil = partner is not None and (partner.bid == 0 or partner.rules.double_nil)
    est = estimate(hand, v.variant)
    if not partner_nil and est < NIL_BELOW[v.variant] and nil_ok(hand):
        return bid(0)
    tricks = max(1, int(est - BID_MARGIN[v.variant] + 0.5))
    room = 13 - partner.bid if partner is not None and partner.bid else 13
    return bid(max(1, min(tricks, room)))


def _draw(v: View) -> Action:
    card = v.rules.offered
    if card is None:
        return DRAW_KEEP
    keep = _suit(card) == SPADES or _rank(card) >= KEEP_RANK
    return DRAW_KEEP if keep else DRAW_DISCARD


def _danger(c: Card) -> int:
    """How likely a card is to take a trick: its rank, spades a little more."""
    return _rank(c) + (3 if _suit(c) == SPADES else 0)


def _exchange(v: View) -> Action:
    rule, me = v.exchange, v.viewer
    assert rule is not None and me is not None   # the seat to act in the exchange has a rule
    cards = sorted(rule.cards, key=_danger)
    if v.seats[me].rules.double_nil:
        high = [c for c in reversed(cards) if _danger(c) >= 10]
        give = high[:rule.most] if len(high) >= rule.fewest else cards[-rule.fewest:]
    else:
        give = sorted(cards, key=lambda c: (_suit(c) == SPADES, _rank(c)))[:rule.fewest]
    mask = 0
    for c in give:
        mask |= 1 << c
    return exchange(mask)


# ---- trick play ----

def _nil(info) -> bool:
    return info.bid == 0 or info.rules.double_nil


def _side(v: View, seat: int) -> list[int]:
    return [seat, seat ^ 2] if v.variant == "spades" else [seat]


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
    opp_need = _need(v, _side(v, (me + 1) % len(v.seats)))
    if opp_need > 0 and left - opp_need <= SET_SLACK:
        return WIN               # the opponents can still be set
    return DUCK


def _beats(c: Card, best: Card) -> bool:
    return (_suit(c) == _suit(best) and c > best) or (_suit(c) == SPADES and _suit(best) != SPADES)


def _lowest(cards: list[Card], hand: list[Card]) -> Card:
    """The cheapest card to throw: a low non-spade, from a short suit first."""
    lengths = [0, 0, 0, 0]
    for c in hand:
        lengths[_suit(c)] += 1
    return min(cards, key=lambda c: (_suit(c) == SPADES, _rank(c), lengths[_suit(c)]))


def _play(v: View, cards: list[Card]) -> Card:
    hand = v.hand or cards
    mode = _mode(v)
    if not v.trick:
        return _lead(v, cards, hand, mode)
    me, n = v.viewer, len(v.seats)
    assert me is not None
    seats = [s for s, _ in v.trick]
    _, best = SPADES_RULES.winner([c for _, c in v.trick])
    top = seats[[c for _, c in v.trick].index(best)]   # the seat winning the trick so far
    last = len(v.trick) == n - 1
    winners = [c for c in cards if _beats(c, best)]
    losers = [c for c in cards if not _beats(c, best)]
    partner = me ^ 2 if n == 4 else None
    if mode == COVER:
        if partner in seats:
            if top != partner:
                mode = WIN if _need(v, _side(v, me)) > 0 else DUCK
            elif winners:
                return min(winners) if last else max(winners, key=_danger)
            else:
                return _lowest(cards, hand)
        else:
            return max(winners, key=_danger) if winners else _lowest(cards, hand)
    info = v.seats[top]
    if top != partner and _nil(info) and info.tricks_won == 0:     # an opponent's Nil is winning:
        return _lowest(losers, hand) if losers else min(cards)       # leave the trick to it
    if mode == DUCK:
        if losers:
            return max(losers, key=_danger)
        return max(cards, key=_danger) if last else min(cards, key=_danger)
    if top == partner and (last or _suit(best) == SPADES or _rank(best) >= 12):
        return _lowest(losers or cards, hand)
    if not winners:
        return _lowest(cards, hand)
    if last or _suit(winners[0]) != _suit(best) or _suit(best) != _suit(v.trick[0][1]):
        return min(winners, key=_danger)
    return max(winners, key=_danger)


def _lead(v: View, cards: list[Card], hand: list[Card], mode: str) -> Card:
    suits = _suits(hand)
    if mode == DUCK:
        return min(cards, key=lambda c: (_rank(c), _suit(c) == SPADES, len(suits[_suit(c)])))
    if mode == COVER:
        return max(cards, key=lambda c: (_rank(c), _suit(c) != SPADES))
    side = [c for c in cards if _suit(c) != SPADES]
    aces = [c for c in side if _rank(c) == 14]
    if aces:
        return max(aces, key=lambda c: ((c - 1) in hand, -len(suits[_suit(c)])))
    spades = [c for c in cards if _suit(c) == SPADES]
    if spades and ((max(spades) == 51 and len(suits[SPADES]) >= 3) or not side):
        return max(spades)
    if side:
        if suits[SPADES]:
            singles = [c for c in side if len(suits[_suit(c)]) == 1 and _rank(c) < 13]
            if singles:
                return min(singles)
        longest = max(range(3), key=lambda s: (len(suits[s]) if any(_suit(c) == s for c in side) else -1))
        return min(c for c in side if _suit(c) == longest)
    return min(cards)
