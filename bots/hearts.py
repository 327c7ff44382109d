"""The "basic" computer player of Hearts, deciding only from one seat's view.

It passes its most dangerous cards (the Q♠ and the A♠/K♠ without enough low spades to guard
them, high hearts, the high cards of a short suit it can void), and in play avoids points: it
follows under the trick's winner with its highest card that still loses, takes a pointless
trick high when it plays last, throws the Q♠, then the A♠/K♠ while the Q♠ is out, then its
highest hearts and high cards when it cannot follow, leads low from the suits where the fewest
unseen cards rank below its card, smokes out the Q♠ with low spades when it holds none of the
three top spades, and leads no heart while it has another card. It never tries to shoot the moon.

Where the J♦ counts −10 (``jack_of_diamonds``) it keeps the J♦ (never passing or discarding it
while it has another card), wins it when that is safe (playing it, or a higher card of the suit
led on it, when nothing unseen can beat that card, the Q♠ cannot be dropped on the trick and the
points in it stay below ten), does not lead it unless it wins, and, last to a trick whose winner
is the player with the lowest score among the others (the leader), takes the trick rather than
drop the J♦ under the leader's card. At a table of three it plays the same way, last being the
third card of a trick.

Every decision is a function of bit sets (:func:`pass_mask`, :func:`card_to_play`) that both
this heuristic (from a view) and the playout policy (``bots.hearts_playout``, from a state)
call, so the strong bot's playouts play exactly as this bot does.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine import Phase
from engine.core.actions import Action, payload_of, play
from engine.core.cards import DIAMONDS, HEARTS, SPADES, SUIT_MASKS, make_card
from engine.core.hidden import mask, public_cards
from engine.core.views import View
from engine.games.hearts_state import FULL_DECK, deck_mask
from engine.games.hearts_words import HeartsPhase, pass_cards

PASS_SIZE = 3
TWO_OF_CLUBS = make_card(2, 0)
QUEEN = make_card(12, SPADES)
QUEEN_BIT = 1 << QUEEN
SPADE_MASK = SUIT_MASKS[SPADES]
HEART_MASK = SUIT_MASKS[HEARTS]
TOP_SPADES = SPADE_MASK & ~((1 << QUEEN) - 1)          # Q♠ K♠ A♠
LOW_SPADES = SPADE_MASK & ((1 << QUEEN) - 1)           # 2♠..J♠
GUARDS = 4                # low spades that make the Q♠ (or the A♠/K♠) safe to keep
BELOW = tuple((1 << c) - 1 for c in range(53))         # every card numbered below c
POINTS = HEART_MASK | QUEEN_BIT
JACK = make_card(11, DIAMONDS)
JACK_BIT = 1 << JACK
ABOVE_JACK = SUIT_MASKS[DIAMONDS] & ~BELOW[JACK + 1]    # Q♦ K♦ A♦
JACK_WORTH = 10           # the points the J♦ takes off its winner
TAKE_FROM_LEADER = 10     # last to the leader's trick: take it (keeping the J♦) below this many points
TAKE_FROM_OTHER = 2       # ... and below this many when another player would get the J♦


def _high(cards: int) -> int:
    """The highest card of a non-empty set (within a suit: the strongest)."""
    return cards.bit_length() - 1


def _low(cards: int) -> int:
    """The lowest card of a non-empty set."""
    return (cards & -cards).bit_length() - 1


# ---- the pass ----

def pass_danger(c: int, hand: int, room: int, jack: bool = False) -> int:
    """How much ``c`` should leave a hand ``hand`` that still has ``room`` cards to pass (``jack``:
    the J♦ counts −10, and is kept)."""
    if jack and c == JACK:
        return -1
    suit, r = c // 13, c % 13                   # r: 0 for a two .. 12 for an ace
    if suit == SPADES:
        guarded = (hand & LOW_SPADES).bit_count() >= GUARDS
        if c == QUEEN:
            return 5 if guarded else 100
        if c > QUEEN:                           # K♠, A♠: they catch the Q♠
            return r if guarded else 60 + r
        return r // 2                           # low spades guard: keep them
    if suit == HEARTS:
        return 2 * r + 8 if r >= 8 else r        # the ten of hearts and up
    length = (hand & SUIT_MASKS[suit]).bit_count()
    void = 14 if length <= room and c != TWO_OF_CLUBS else 0   # the whole suit can go: a void
    return 2 * r + void


def pass_mask(hand: int, jack: bool = False) -> int:
    """The three cards the basic bot passes from ``hand``: the most dangerous, one at a time."""
    left, given = hand, 0
    for room in range(PASS_SIZE, 0, -1):
        best, key = -1, -1
        c_set = left
        while c_set:
            low = c_set & -c_set
            c = low.bit_length() - 1
            c_set ^= low
            k = pass_danger(c, left, room, jack)
            if k >= key:
                best, key = c, k
        given |= 1 << best
        left &= ~(1 << best)
    return given


# ---- trick play ----

def discard_danger(c: int, hand: int, gone: int, jack: bool = False) -> int:
    """How much ``c`` should be thrown away when the seat cannot follow suit (``jack``: the J♦
    counts −10, and is kept)."""
    if c == QUEEN:
        return 1000
    if jack and c == JACK:
        return -1
    suit, r = c // 13, c % 13
    if suit == SPADES:
        if c > QUEEN and not gone & QUEEN_BIT and not hand & QUEEN_BIT:
            return 500 + r                       # the A♠/K♠ while the Q♠ is out
        return 2 * r if c > QUEEN else r
    if suit == HEARTS:
        return 2 * r + 6
    single = 1 if (hand & SUIT_MASKS[suit]).bit_count() == 1 else 0
    return 2 * r + single


def card_to_play(hand: int, legal: int, trick: Sequence[int], gone: int, players: int = 4, jack: bool = False,
                 seats: Sequence[int] = (), leader: int = -1) -> int:
    """The card the basic bot plays from ``hand`` (``legal``: the cards it may play) to the
    trick ``trick`` (its cards in play order), ``gone`` being every card played this hand, at a
    table of ``players``; ``jack``: the J♦ counts −10; ``seats``: who played the trick's cards;
    ``leader``: the other player with the lowest score."""
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    if trick:
        return _follow(hand, legal, trick, gone, len(trick) == players - 1, jack, seats, leader)
    return _lead(hand, legal, gone, jack)


def _points(cards: Sequence[int], jack: bool) -> int:
    """What the cards count: 1 a heart, 13 the Q♠, −10 the J♦ when it counts."""
    total = 0
    for c in cards:
        if HEART_MASK >> c & 1:
            total += 1
        elif c == QUEEN:
            total += 13
        elif jack and c == JACK:
            total -= JACK_WORTH
    return total


def _sure(c: int, hand: int, gone: int) -> bool:
    """Whether nobody else can hold a card of ``c``'s suit above it (each is played or in ``hand``)."""
    return not SUIT_MASKS[c // 13] & ~BELOW[c + 1] & ~hand & ~gone


def _follow(hand: int, legal: int, trick: Sequence[int], gone: int, last: bool, jack: bool = False,
            seats: Sequence[int] = (), leader: int = -1) -> int:
    lead = trick[0]
    suit_cards = SUIT_MASKS[lead // 13]
    follow = legal & suit_cards
    if not follow:                               # void: throw the most dangerous card
        best, key = -1, -2
        c_set = legal
        while c_set:
            low = c_set & -c_set
            c = low.bit_length() - 1
            c_set ^= low
            k = discard_danger(c, hand, gone, jack)
            if k > key:
                best, key = c, k
        return best
    if lead == TWO_OF_CLUBS:                     # the first trick carries no points: unload
        return _high(follow)
    top, points, at = lead, 0, 0
    for i, c in enumerate(trick):
        if c > top and suit_cards >> c & 1:
            top, at = c, i
        if POINTS >> c & 1:
            points += 1
    under = follow & BELOW[top]
    safe = follow & ~QUEEN_BIT or follow
    if jack and (follow & JACK_BIT or JACK in trick):
        wanted = _jack_trick(hand, follow, trick, gone, last, top, bool(seats) and seats[at] == leader)
        if wanted >= 0:
            return wanted
        under = under & ~JACK_BIT or under       # the J♦ goes to another only when nothing else can
        safe = safe & ~JACK_BIT or safe
    if last and not points and follow & ~BELOW[top] & ~QUEEN_BIT:
        return _high(safe)                       # a free trick: take it with the highest card
    if under:                                    # duck: the Q♠ under the A♠/K♠, else as high as possible
        return QUEEN if under & QUEEN_BIT else _high(under)
    return _high(safe) if last else _low(safe)


def _jack_trick(hand: int, follow: int, trick: Sequence[int], gone: int, last: bool, top: int,
                leader_wins: bool) -> int:
    """With the J♦ in the trick or in the hand's cards of the suit led: the card that wins the
    J♦ when that is safe (nothing unseen beats it, the Q♠ cannot be dropped on it, and the points
    stay below ten), or, last with the J♦ as the only card under the trick's winner, a card that
    takes the trick rather than give the J♦ away (below ``TAKE_FROM_LEADER`` points when the
    winner is the leader, ``TAKE_FROM_OTHER`` otherwise); -1 for none."""
    above = follow & ~BELOW[top + 1]
    if not above:
        return -1
    points = _points(trick, True)
    card = JACK if above & JACK_BIT else _high(above & ~QUEEN_BIT or above)
    if card == JACK or JACK in trick:
        worst = points + _points((card,), True)
        if not last:                             # the players still to come may drop points on it
            worst += (13 if QUEEN_BIT & ~gone & ~hand else 0) + 3
        if worst < 0 and (last or _sure(card, hand, gone)):
            return card
    if last and follow & BELOW[top] == JACK_BIT and points < (TAKE_FROM_LEADER if leader_wins else TAKE_FROM_OTHER):
        return _low(above)
    return -1


def _lead(hand: int, legal: int, gone: int, jack: bool = False) -> int:
    queen_out = not (gone | hand) & QUEEN_BIT
    if jack and legal & JACK_BIT and not ABOVE_JACK & ~hand & ~gone and not QUEEN_BIT & ~gone & ~hand:
        return JACK                              # nothing can beat it, and the Q♠ cannot fall on it
    smoke = queen_out and not hand & TOP_SPADES
    best, key = -1, (99, 99, 99)
    c_set = legal
    others = legal & ~HEART_MASK
    while c_set:
        low = c_set & -c_set
        c = low.bit_length() - 1
        c_set ^= low
        suit = c // 13
        unseen = SUIT_MASKS[suit] & ~hand & ~gone
        if jack and c == JACK:
            tier = 3                             # it would go to whoever holds a higher diamond
        elif not unseen:
            tier = 4                             # nobody else can follow: its points come to me
        elif suit == SPADES and c >= QUEEN and (queen_out or c == QUEEN and unseen & TOP_SPADES):
            tier = 3                             # the Q♠ or a card that catches it
        elif smoke and suit == SPADES:
            tier = 0                             # smoke out the Q♠
        elif suit == HEARTS and others or suit == SPADES and hand & QUEEN_BIT:
            tier = 2                             # hearts, or the guards of one's own Q♠
        else:
            tier = 1
        k = (tier, (unseen & BELOW[c]).bit_count(), -c)
        if k < key:
            best, key = c, k
    return best


# ---- the heuristic ----

def leader_of(scores: Sequence[int], seat: int) -> int:
    """The other player with the lowest score (the first of them in seat order on a tie).

    >>> leader_of([40, 20, 30, 20], 1), leader_of([40, 20, 30], 2)
    (3, 1)
    """
    return min((s for s in range(len(scores)) if s != seat), key=scores.__getitem__)


def choose(v: View, legal: Sequence[Action], rng: random.Random) -> Action:
    """The basic bot's action for the viewer of ``v`` (Hearts), from ``legal``."""
    hand = mask(v.hand)
    jack = v.options.jack_of_diamonds
    if v.phase == HeartsPhase.PASS:
        assert v.exchange is not None
        return pass_cards(pass_mask(mask(v.exchange.cards) & hand, jack))
    if v.phase == Phase.PLAY:
        assert v.viewer is not None
        cards = 0
        for a in legal:
            cards |= 1 << payload_of(a)
        scores = [side.score for side in v.sides]
        gone = public_cards(v) | FULL_DECK & ~deck_mask(v.options)     # a card out of the deck is out of play
        return play(card_to_play(hand, cards, [c for _, c in v.trick], gone, len(v.seats), jack,
                                 [s for s, _ in v.trick], leader_of(scores, v.viewer)))
    return legal[0]
