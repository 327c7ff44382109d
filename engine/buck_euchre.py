"""Buck Euchre: four players each for themselves, 24 cards, a turn-up, two trump rounds,
staying in or dropping out, and scores counting down from 25 to 0."""

from __future__ import annotations

import random

from . import actions as A
from .actions import Action, Kind
from .cards import CLUBS, EUCHRE_DECK, SUIT_LETTERS, SUITS, card_list, card_name, cards_text
from .common import (check_cards, deal_round_robin, finish_trick, hand_record_base, has, reject, require_turn,
                     start_hand, wrong_phase)
from .errors import Reason
from .scoring import buck_euchre_seat, buck_euchre_winners
from .state import NO_CARD, NO_TRUMP, NOBODY, GameState, Phase, Seat
from .tricks import euchre_rules

DECK = card_list(EUCHRE_DECK)
HAND_SIZE = 5


def legal(state: GameState, seat: Seat) -> list[Action]:
    """Every action open to ``seat`` now in Buck Euchre."""
    if seat != state.turn:
        return []
    phase = state.phase
    if phase == Phase.PLAY:
        rules = euchre_rules(state.trump)
        hand = state.hands[seat]
        mask = rules.follow(hand, rules.suit[state.trick_cards[0]]) if state.trick_cards else hand
        return A.play_actions(mask)
    if phase == Phase.DEAL:
        return [A.DEAL]
    if phase == Phase.ORDER_UP:
        return [A.ORDER_UP, A.PASS]
    if phase == Phase.DEALER_DISCARD:
        return [A.exchange(1 << c) for c in card_list(state.hands[seat])]
    if phase == Phase.NAME_TRUMP:
        return [A.PASS] + [A.name_suit(s) for s in SUITS if _may_name(state, s)]
    if phase == Phase.DROP_OUT:
        return [A.STAY_IN, A.DROP_OUT]
    return []


def exchange_choice(state: GameState, seat: Seat) -> tuple[int, int, int] | None:
    """(eligible cards, fewest, most) for the dealer's discard, or None."""
    if state.phase != Phase.DEALER_DISCARD or seat != state.turn:
        return None
    return state.hands[seat], 1, 1


def _may_name(state: GameState, suit: int) -> bool:
    return suit != state.turnup // 13 or state.options.turned_down_suit_may_be_named


def _next_active(state: GameState, seat: Seat) -> Seat:
    for i in range(1, 5):
        s = (seat + i) % 4
        if state.active >> s & 1:
            return s
    return NOBODY


def apply_deal(state: GameState, seat: Seat, action: Action, rng: random.Random) -> None:
    """Deal five cards each and turn up the 21st; a club turn-up makes clubs trump at once."""
    if action != A.DEAL:
        wrong_phase(state, A.action_name(action))
    require_turn(state, seat)
    deck = start_hand(state, rng, DECK)
    deal_round_robin(state, deck, 20)
    state.looked = 15
    state.turnup = deck[20]
    state.kitty = sum(1 << c for c in deck[21:])
    if state.turnup // 13 == CLUBS and state.options.club_turn_up_forces_clubs:
        state.clubs = True
        _take_turnup(state, CLUBS)
    else:
        state.phase = Phase.ORDER_UP
        state.turn = (state.dealer + 1) % 4


def _take_turnup(state: GameState, trump: int) -> None:
    state.trump = trump
    state.hands[state.dealer] |= 1 << state.turnup
    state.phase = Phase.DEALER_DISCARD
    state.turn = state.dealer


def _wrong_phase(state: GameState, action: Action) -> None:
    """Reject an action foreign to this phase, naming the club rule when it forbids dropping out."""
    if action == A.DROP_OUT and state.clubs and state.phase != Phase.DEAL:
        reject(Reason.CANNOT_DROP_ON_CLUBS, "nobody may drop out when the turn-up is a club")
    wrong_phase(state, A.action_name(action))


def apply_order_up(state: GameState, seat: Seat, action: Action, rng: random.Random) -> None:
    """First round: order the turn-up's suit as trump, or pass."""
    if action != A.ORDER_UP and action != A.PASS:
        wrong_phase(state, A.action_name(action))
    require_turn(state, seat)
    state.calls[seat] = action
    if action == A.ORDER_UP:
        state.maker = seat
        _take_turnup(state, state.turnup // 13)
    elif seat == state.dealer:
        state.turned_down = True
        state.phase = Phase.NAME_TRUMP
        state.turn = (seat + 1) % 4
    else:
        state.turn = (seat + 1) % 4


def apply_dealer_discard(state: GameState, seat: Seat, action: Action, rng: random.Random) -> None:
    """The dealer, holding six cards, discards one face down."""
    if action & 15 != Kind.EXCHANGE:
        _wrong_phase(state, action)
    require_turn(state, seat)
    mask = check_cards(state, seat, action, 1, 1)
    state.hands[seat] &= ~mask
    state.dealer_discard = mask.bit_length() - 1
    if state.clubs:
        _start_play(state)
    else:
        _start_drop_round(state)


def apply_name_trump(state: GameState, seat: Seat, action: Action, rng: random.Random) -> None:
    """Second round: name a suit other than the turned-down one, or pass."""
    kind = action & 15
    if kind != Kind.NAME_SUIT and action != A.PASS:
        wrong_phase(state, A.action_name(action))
    require_turn(state, seat)
    if kind == Kind.NAME_SUIT:
        suit = action >> 4
        if suit not in SUITS:
            reject(Reason.INVALID_BID, f"there is no suit #{suit}")
        if not _may_name(state, suit):
            reject(Reason.SUIT_TURNED_DOWN, f"{SUIT_LETTERS[suit]} was turned down and cannot be named")
        state.calls[seat] = action
        state.trump = suit
        state.maker = seat
        _start_drop_round(state)
        return
    state.calls[seat] = action
    if seat == state.dealer:
        state.trump = NO_TRUMP
        _start_drop_round(state)
    else:
        state.turn = (seat + 1) % 4


def _drop_order(state: GameState) -> list[Seat]:
    return [s for s in ((state.dealer + i) % 4 for i in range(1, 5)) if s != state.maker]


def _start_drop_round(state: GameState) -> None:
    state.phase = Phase.DROP_OUT
    state.turn = _drop_order(state)[0]


def apply_drop_round(state: GameState, seat: Seat, action: Action, rng: random.Random) -> None:
    """Each player but the maker, in turn, stays in or drops out of the hand."""
    if action != A.STAY_IN and action != A.DROP_OUT:
        wrong_phase(state, A.action_name(action))
    if action == A.DROP_OUT and seat == state.maker:
        reject(Reason.MAKER_CANNOT_DROP, f"seat {seat} made trump and must play")
    require_turn(state, seat)
    state.calls[seat] = action
    if action == A.DROP_OUT:
        state.active &= ~(1 << seat)
    order = _drop_order(state)
    i = order.index(seat)
    if i + 1 < len(order):
        state.turn = order[i + 1]
        return
    players = state.active.bit_count()
    if players >= 2:
        _start_play(state)
    else:
        if players == 1:
            state.tricks[state.active.bit_length() - 1] = HAND_SIZE
        _end_hand(state)


def _start_play(state: GameState) -> None:
    state.phase = Phase.PLAY
    state.turn = _next_active(state, state.dealer)


def apply_play(state: GameState, seat: Seat, action: Action, rng: random.Random) -> None:
    """Play a card; follow the led suit (the left bower counts as trump) when possible."""
    if action & 15 != Kind.PLAY:
        _wrong_phase(state, action)
    require_turn(state, seat)
    card = action >> 4
    hand = state.hands[seat]
    if not has(hand, card):
        reject(Reason.CARD_NOT_IN_HAND, f"seat {seat} does not hold {card_name(card) if 0 <= card < 52 else card}")
    rules = euchre_rules(state.trump)
    if state.trick_cards:
        led = rules.suit[state.trick_cards[0]]
        if rules.suit[card] != led and hand & rules.masks[led]:
            reject(Reason.MUST_FOLLOW_SUIT,
                   f"{card_name(card)} does not follow {SUIT_LETTERS[led]} and seat {seat} holds one")
    state.hands[seat] = hand ^ (1 << card)
    state.trick_seats.append(seat)
    state.trick_cards.append(card)
    if len(state.trick_cards) < state.active.bit_count():
        state.turn = _next_active(state, seat)
        return
    finish_trick(state, rules.winner(state.trick_cards)[0])
    if sum(state.tricks) == HAND_SIZE:
        _end_hand(state)


def _end_hand(state: GameState) -> None:
    contested = state.active.bit_count() >= 2
    record = hand_record_base(state)
    record.update({
        "turn_up": card_name(state.turnup), "trump": state.trump, "maker": state.maker,
        "clubs": state.clubs, "contested": contested,
        "dealer_discard": card_name(state.dealer_discard) if state.dealer_discard != NO_CARD else "",
        "kitty": cards_text(state.kitty),
    })
    seats = []
    for s in range(4):
        active = bool(state.active >> s & 1)
        result = buck_euchre_seat(state.tricks[s], active, s == state.maker, state.options)
        state.scores[s] += result["change"]
        result.update({"seat": s, "tricks": state.tricks[s], "active": active,
                       "is_maker": s == state.maker, "total_after": state.scores[s]})
        seats.append(result)
    record["seats"] = seats
    if contested and HAND_SIZE in state.tricks:
        state.swept = state.tricks.index(HAND_SIZE)
    record["swept_by"] = state.swept
    state.records.append(record)
    state.winner = [state.swept] if state.swept != NOBODY else buck_euchre_winners(state.scores)
    state.hands = [0] * 4
    if state.winner:
        state.phase = Phase.GAME_OVER
        state.turn = NOBODY
    else:
        state.dealer = (state.dealer + 1) % 4
        state.phase = Phase.DEAL
        state.turn = state.dealer


APPLY = {Phase.DEAL: apply_deal, Phase.ORDER_UP: apply_order_up,
         Phase.DEALER_DISCARD: apply_dealer_discard, Phase.NAME_TRUMP: apply_name_trump,
         Phase.DROP_OUT: apply_drop_round, Phase.PLAY: apply_play}
LEGAL = {phase: legal for phase in APPLY}

