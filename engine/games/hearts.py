"""Hearts: four players each for themselves, 52 cards, three cards passed left, right, across or
not at all, no trump, the 2♣ leads, no points on the first trick, hearts broken before they are
led, and the lowest score wins once someone reaches the target (RULES.md §4); and its table
settings (§4.1): the J♦ counting −10 ("Omnibus"), and three players with the 2♦ removed.

The game's parts live beside this module: its settings, state and records in
``engine.games.hearts_state``, the scoring of a hand in ``engine.games.hearts_scoring``, and the
states search bots build from a view in ``engine.games.hearts_determinize``; this module holds the
flow of a hand (the deal, the pass, trick play, its end), the views, and the game's registration."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from ..core.actions import DEAL, PLAY_CODE, Action, kind_of, payload_of, play_actions
from ..core.cards import (
    BITS,
    CLUBS,
    DIAMONDS,
    HEARTS,
    SPADES,
    SUIT_LETTERS,
    SUIT_MASKS,
    card_list,
    card_name,
    cards_text,
)
from ..core.dealing import Chance, deal_round_robin, open_hand
from ..core.errors import Reason
from ..core.records import record_base
from ..core.rules import check_cards, end_game_or_pass_deal, finish_trick, reject, require_turn, wrong_phase
from ..core.table import NO_CARD, NOBODY, Seat
from ..core.views import View, in_hand, table_view
from ..game import ApplyStep, Game, LegalStep
from .hearts_determinize import determinize, hidden
from .hearts_scoring import hand_points, hand_score, hearts_winners
from .hearts_state import (
    DECK,
    DIRECTION_NAMES,
    HEART_MASK,
    JACK_OF_DIAMONDS,
    JACK_POINTS,
    NAME,
    PASS_CODE,
    PASS_SIZE,
    POINT_CARDS,
    QUEEN_OF_SPADES,
    TWO_OF_CLUBS,
    HeartsHandRecord,
    HeartsOptions,
    HeartsReason,
    HeartsRules,
    HeartsSeat,
    HeartsState,
    PassChoices,
    PassRecord,
    cards_for,
    direction_letter,
    new_state,
    pass_offset,
)
from .hearts_words import PHASES, WORDS
from .hearts_words import HeartsPhase as Phase

_PLAY, _PASS = PLAY_CODE, PASS_CODE
_ONLY_HEARTS = 1 << CLUBS | 1 << DIAMONDS | 1 << SPADES   # void bits of a seat that showed it holds only hearts
_NO_DIAMONDS = 1 << DIAMONDS
# Phases looked up once: reading an enum member costs more than the comparison in a legal step.
_DEAL, _PASSING, _PLAYING = Phase.DEAL, Phase.PASS, Phase.PLAY


# ---- legal actions ----

def playable(state: HeartsState, seat: Seat) -> int:
    """The cards ``seat`` may play now (it being its turn): the 2♣ to the first lead; the led suit
    when it holds one; on the first trick no point card unless it holds nothing else; no heart led
    before hearts are broken unless it holds nothing else."""
    hand = state.hands[seat]
    trick = state.trick_cards
    first = not any(state.tricks)
    if trick:
        follow = hand & SUIT_MASKS[trick[0] // 13]
        if follow:
            return follow
        if first:
            return hand & ~POINT_CARDS or hand
        return hand
    if first:
        return hand & BITS[TWO_OF_CLUBS]
    if state.broken:
        return hand
    return hand & ~HEART_MASK or hand


def legal(state: HeartsState, seat: Seat) -> Sequence[Action]:
    """Every action open to ``seat`` now in Hearts: in the pass, every choice of three of its cards
    (a lazy sequence) until it has passed."""
    phase = state.phase
    if phase == _PLAYING:
        return play_actions(playable(state, seat)) if seat == state.turn else []
    if phase == _PASSING:
        return PassChoices(state.hands[seat], PASS_SIZE, PASS_SIZE) if state.xgiven[seat] == NO_CARD else []
    if phase == _DEAL:
        return [DEAL] if seat == state.turn else []
    return []


def pass_choice(state: HeartsState, seat: Seat) -> tuple[int, int, int, int] | None:
    """(eligible cards, fewest, most, the pass's code) for the seat's pass while it has not
    passed, or None."""
    if state.phase != _PASSING or state.xgiven[seat] != NO_CARD:
        return None
    return state.hands[seat], PASS_SIZE, PASS_SIZE, _PASS


# ---- the deal and the pass ----

def apply_deal(state: HeartsState, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """Deal the whole deck (13 cards each, 17 of three); open the pass (no turn: every seat
    chooses), or play in a hold hand."""
    cards = cards_for(state.options)
    deck, chance = open_hand(state, seat, action, cards, rng, chance)
    deal_round_robin(state, deck, len(cards))
    state.looked = (1 << state.n) - 1
    if pass_offset(state):
        state.phase = Phase.PASS
        state.turn = NOBODY
    else:
        _start_play(state)
    return chance


def apply_pass(state: HeartsState, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """Choose three cards to pass (once); when every seat has chosen, every pass is delivered."""
    if kind_of(action) != _PASS:
        wrong_phase(state, action)
    if state.xgiven[seat] != NO_CARD:
        reject(HeartsReason.INVALID_PASS, f"seat {seat} has already passed")
    state.xgiven[seat] = check_cards(state, seat, action, PASS_SIZE, PASS_SIZE, HeartsReason.INVALID_PASS, "pass")
    if NO_CARD not in state.xgiven:
        _deliver(state)
    return None


def _deliver(state: HeartsState) -> None:
    n = state.n
    offset = pass_offset(state)
    hands, given = state.hands, state.xgiven
    for s in range(n):
        hands[s] &= ~given[s]
    for s in range(n):
        to = (s + offset) % n
        hands[to] |= given[s]
        state.xgot[to] = given[s]
    _start_play(state)


def _start_play(state: HeartsState) -> None:
    """Open trick play: the holder of the 2♣ leads it."""
    state.phase = Phase.PLAY
    state.turn = next(s for s in range(state.n) if state.hands[s] >> TWO_OF_CLUBS & 1)


# ---- trick play ----

def apply_play(state: HeartsState, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """Play one card, closing the trick and the hand when they are complete."""
    if kind_of(action) != _PLAY:
        wrong_phase(state, action)
    if seat != state.turn:
        require_turn(state, seat)
    card = payload_of(action)
    hand = state.hands[seat]
    if card > 51 or not hand >> card & 1:
        reject(Reason.CARD_NOT_IN_HAND,
               f"seat {seat} does not hold {card_name(card) if 0 <= card < 52 else f'card #{card}'}")
    trick = state.trick_cards
    suit = card // 13
    bit = 1 << card
    if not trick:
        if card != TWO_OF_CLUBS and not any(state.tricks):
            reject(HeartsReason.MUST_LEAD_TWO_OF_CLUBS, "the 2C leads the first trick")
        if suit == HEARTS and not state.broken:
            if hand & ~HEART_MASK:
                reject(HeartsReason.HEARTS_NOT_BROKEN, f"{card_name(card)} cannot be led before hearts are broken")
            state.voids |= _ONLY_HEARTS << 4 * seat                # it holds nothing but hearts
    else:
        led = trick[0] // 13
        if suit != led:
            if hand & SUIT_MASKS[led]:
                reject(Reason.MUST_FOLLOW_SUIT,
                       f"{card_name(card)} does not follow {SUIT_LETTERS[led]} and seat {seat} holds one")
            if bit & POINT_CARDS and not any(state.tricks):
                if hand & ~POINT_CARDS:
                    reject(HeartsReason.NO_POINTS_ON_FIRST_TRICK,
                           f"{card_name(card)} counts points: not on the first trick while seat {seat} holds "
                           "another card")
                state.voids |= _NO_DIAMONDS << 4 * seat            # it holds nothing but hearts and the Q♠
            state.voids |= 1 << (4 * seat + led)                   # shown out of the led suit
    if suit == HEARTS:
        state.broken = True
    elif card == QUEEN_OF_SPADES and state.options.queen_breaks_hearts:
        state.broken = True
    state.hands[seat] = hand ^ bit
    state.played[seat] |= bit
    state.trick_seats.append(seat)
    trick.append(card)
    n = state.n
    if len(trick) < n:
        state.turn = seat + 1 if seat + 1 < n else 0
        return None
    cards = sum(map(BITS.__getitem__, trick))               # distinct cards: the sum is their union
    high = cards & SUIT_MASKS[trick[0] // 13]                # no trump: the highest of the led suit
    winner = finish_trick(state, trick.index(high.bit_length() - 1))
    points = hand_points(cards)
    if cards >> JACK_OF_DIAMONDS & 1 and state.options.jack_of_diamonds:
        points += JACK_POINTS
        state.jack = winner
    state.taken[winner] += points
    if not any(state.hands):
        _end_hand(state)
    return None


def _end_hand(state: HeartsState) -> None:
    """Score the hand (the moon as the option says), record it, and end the game or pass the deal."""
    options = state.options
    n = state.n
    points, shooter = hand_score(state.taken, state.jack, options.moon)
    for s in range(n):
        state.scores[s] += points[s]
    offset = pass_offset(state)
    passes = [PassRecord(s, (s + offset) % n, cards_text(state.xgiven[s]), cards_text(state.xgot[s]))
              for s in range(n) if state.xgiven[s] != NO_CARD]
    state.records.append(HeartsHandRecord(
        **record_base(state), points=points, totals=state.scores[:],
        direction=DIRECTION_NAMES[direction_letter(options, state.hand_no)], taken=state.taken[:], moon=shooter,
        passes=passes, jack=state.jack))
    state.winner = hearts_winners(state.scores, options.target)
    end_game_or_pass_deal(state, high_wins=False)


# ---- views, records and the log as a seat may see them ----

_SEATS = (HeartsSeat(False), HeartsSeat(True))

def view(state: HeartsState, seat: Seat | None) -> View:
    """What ``seat`` (None: a spectator) may know of a Hearts game: its own pass, never another's."""
    if seat is None:
        v = table_view(state, None, [], None)
    else:
        v = table_view(state, seat, legal(state, seat), pass_choice(state, seat))
    playing = in_hand(state)
    given = state.xgiven
    for info in v.seats:
        info.rules = _SEATS[playing and given[info.seat] != NO_CARD]
    hand_no = state.hand_no + (state.phase == _DEAL)                 # between hands: the next one's
    direction = DIRECTION_NAMES[direction_letter(state.options, hand_no)]
    if playing:
        mine = given[seat] if seat is not None and given[seat] != NO_CARD else 0
        got = state.xgot[seat] if seat is not None else 0
        jack = state.jack if state.jack != NOBODY else None
        v.rules = HeartsRules(direction, state.broken, state.taken[:], card_list(mine), card_list(got), jack)
    else:
        v.rules = HeartsRules(direction, False, [0] * state.n, [], [])
    return v


def record_for(record: HeartsHandRecord, seat: Seat | None) -> HeartsHandRecord:
    """A hand record as ``seat`` may see it (None: a spectator): of the passes, only its own and
    the one it received (without what that passer got in turn)."""
    passes = [p if p.seat == seat else PassRecord(p.seat, p.to, p.gave, "")
              for p in record.passes if seat is not None and seat in (p.seat, p.to)]
    return replace(record, passes=passes)


APPLY: dict[int, ApplyStep] = {Phase.DEAL: apply_deal, Phase.PASS: apply_pass, Phase.PLAY: apply_play}
LEGAL: dict[int, LegalStep] = {phase: legal for phase in APPLY}


GAME = Game(name=NAME, seats=4, cards=tuple(DECK), options_type=HeartsOptions, state_type=HeartsState,
            record_type=HeartsHandRecord, new_state=new_state, legal=LEGAL, apply=APPLY, view=view,
            hidden=hidden, determinize=determinize, title="Hearts", reasons=HeartsReason, low_score_wins=True,
            words=WORDS, phases=PHASES, seat_setting="players", cards_for=cards_for)
