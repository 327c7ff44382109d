"""The "basic" computer player of Buck Euchre, deciding only from one seat's view.

It makes trump with three trumps or a strong trump holding, discards its weakest side card as
dealer, stays in when the hand should take a trick, and in play wins as cheaply as it can.
"""

from __future__ import annotations

from engine import Phase
from engine.core.actions import Action, kind_of, payload_of, play
from engine.core.cards import Card
from engine.core.tricks import euchre_rules
from engine.core.views import View
from engine.games.buck_euchre_words import DROP_OUT, ORDER_UP, PASS, STAY_IN, BuckCode, BuckPhase, discard, name_suit

# Value of a trump by its power above the trump bonus: 9, 10, Q, K, A, left, right bower.
TRUMP_VALUE = {9: 0.3, 10: 0.35, 12: 0.4, 13: 0.5, 14: 0.7, 15: 0.85, 16: 1.0}
OFF_ACE = 0.5
MAKE_WITH_THREE = 1.6    # three or more trumps worth this much make trump
MAKE_STRONG = 2.3        # any holding worth this much makes trump
ORDER_PENALTY = 0.2      # ordering up hands the turn-up to the dealer


def strength(hand: list[Card], trump: int) -> tuple[int, float]:
    """(number of trumps, expected-trick value) of a hand if ``trump`` were trump."""
    rules = euchre_rules(trump)
    trumps = [c for c in hand if rules.suit[c] == trump]
    value = sum(TRUMP_VALUE[rules.power[c] - 100] for c in trumps)
    value += OFF_ACE * sum(1 for c in hand if rules.suit[c] != trump and c % 13 == 12)
    return len(trumps), value


def _makes(n: int, value: float, extra: float = 0.0) -> bool:
    return (n >= 3 and value >= MAKE_WITH_THREE + extra) or value >= MAKE_STRONG + extra


def choose(v: View, legal, rng) -> Action:
    """The basic bot's action for the viewer of ``v`` (Buck Euchre), from ``legal``."""
    hand = v.hand or []
    if v.phase == BuckPhase.ORDER_UP:
        trump = v.rules.turn_up // 13
        if v.viewer == v.dealer:
            mine = hand + [v.rules.turn_up]
            mine.remove(_discard(mine, trump))
            return ORDER_UP if _makes(*strength(mine, trump)) else PASS
        return ORDER_UP if _makes(*strength(hand, trump), ORDER_PENALTY) else PASS
    if v.phase == BuckPhase.DEALER_DISCARD:
        return discard(1 << _discard(hand, v.rules.trump))
    if v.phase == BuckPhase.NAME_TRUMP:
        suits = [payload_of(a) for a in legal if kind_of(a) == BuckCode.NAME_SUIT]
        if suits:
            best = max(suits, key=lambda s: strength(hand, s)[1])
            if _makes(*strength(hand, best)):
                return name_suit(best)
        return PASS
    if v.phase == BuckPhase.DROP_OUT:
        return STAY_IN if _stays(v, hand) else DROP_OUT
    if v.phase == Phase.PLAY:
        return play(_play(v, [payload_of(a) for a in legal], hand))
    return legal[0]


def _discard(hand: list[Card], trump: int | None) -> Card:
    """The dealer's discard: the lowest side card (keeping aces), from the shortest suit."""
    rules = euchre_rules(trump)
    lengths = [0, 0, 0, 0]
    for c in hand:
        lengths[rules.suit[c]] += 1
    side = [c for c in hand if rules.suit[c] != trump]
    return min(side or hand, key=lambda c: (c % 13 == 12, rules.power[c], lengths[rules.suit[c]]))


def _stays(v: View, hand: list[Card]) -> bool:
    return stays_in(hand, v.rules.trump, sum(1 for s in v.seats if s.rules.dropped_out))


def stays_in(hand: list[Card], trump: int | None, dropped: int) -> bool:
    """Stay in when the hand should take a trick: a bower, trump ace, off ace or two trumps (with
    ``dropped`` players out already, a lone trump or an off king will do)."""
    rules = euchre_rules(trump)
    aces = sum(1 for c in hand if c % 13 == 12 and rules.suit[c] != trump)
    if trump is None:
        return aces >= 1
    trumps = [rules.power[c] - 100 for c in hand if rules.suit[c] == trump]
    if aces or len(trumps) >= 2 or any(p >= 14 for p in trumps):
        return True
    kings = sum(1 for c in hand if c % 13 == 11 and rules.suit[c] != trump)
    return dropped >= 2 and (bool(trumps) or kings > 0)


def _play(v: View, cards: list[Card], hand: list[Card]) -> Card:
    rules = euchre_rules(v.rules.trump)
    trump, power, suit = v.rules.trump, rules.power, rules.suit
    if not v.trick:
        return _lead(v, cards, hand, rules)
    _, best = rules.winner([c for _, c in v.trick])
    winners = [c for c in cards if suit[c] in (suit[best], trump) and power[c] > power[best]]
    if winners:
        return min(winners, key=lambda c: power[c])
    return min(cards, key=lambda c: (suit[c] == trump, power[c]))


def _lead(v: View, cards: list[Card], hand: list[Card], rules) -> Card:
    trump, power, suit = v.rules.trump, rules.power, rules.suit
    trumps = sorted((c for c in cards if suit[c] == trump), key=lambda c: power[c])
    if trumps and (power[trumps[-1]] == 116 or (v.rules.maker == v.viewer and len(trumps) >= 2)):
        return trumps[-1]
    aces = [c for c in cards if suit[c] != trump and c % 13 == 12]
    if aces:
        return aces[0]
    side = [c for c in cards if suit[c] != trump]
    return min(side or cards, key=lambda c: power[c])
