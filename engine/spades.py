"""Spades for four players in two partnerships (seats 0+2 and 1+3), and the Spades rules
that two-player Spades shares: bidding values, trick play, spades broken, hand scoring."""

from __future__ import annotations

import random
from collections.abc import Sequence

from . import actions as A
from .actions import PLAYS_BY_SUIT, Action, Kind
from .cards import SPADES, SUIT_MASKS, card_name, cards_text
from .choices import ExchangeChoices
from .common import (check_cards, deal_round_robin, finish_trick, hand_record_base, reject, require_turn, start_hand,
                     wrong_phase)
from .errors import Reason
from .scoring import spades_side, spades_winners
from .state import DOUBLE_NIL_BID, NO_BID, NO_CARD, NOBODY, GameState, Phase, Seat
from .tricks import SPADES_RULES

DECK = list(range(52))
BIDS = [A.bid(n) for n in range(14)]
SPADE_MASK = SUIT_MASKS[SPADES]
NON_SPADES = SUIT_MASKS[0] | SUIT_MASKS[1] | SUIT_MASKS[2]
_CLUB_PLAYS, _DIAMOND_PLAYS, _HEART_PLAYS, _SPADE_PLAYS = PLAYS_BY_SUIT
_PLAY = int(Kind.PLAY)


# ---- trick play (both Spades variants) ----

def legal_play(state: GameState, seat: Seat) -> list[Action]:
    """PLAY actions open to a seat (the hot path of every simulation, so written out flat)."""
    if seat != state.turn:
        return []
    hand = state.hands[seat]
    trick = state.trick_cards
    if trick:
        mask = hand & SUIT_MASKS[trick[0] // 13] or hand
    elif state.broken:
        mask = hand
    else:
        mask = hand & NON_SPADES or hand
    return [*_CLUB_PLAYS[mask & 8191], *_DIAMOND_PLAYS[mask >> 13 & 8191], *_HEART_PLAYS[mask >> 26 & 8191],
            *_SPADE_PLAYS[mask >> 39]]


def apply_play(state: GameState, seat: Seat, action: Action, rng: random.Random) -> None:
    """Play one card, closing the trick and the hand when they are complete."""
    if action & 15 != _PLAY:
        wrong_phase(state, A.action_name(action))
    if seat != state.turn:
        require_turn(state, seat)
    card = action >> 4
    hand = state.hands[seat]
    if card > 51 or not hand >> card & 1:
        reject(Reason.CARD_NOT_IN_HAND, f"seat {seat} does not hold {_name(card)}")
    suit = card // 13
    trick = state.trick_cards
    if trick:
        led = trick[0] // 13
        if suit != led and hand & SUIT_MASKS[led]:
            reject(Reason.MUST_FOLLOW_SUIT,
                   f"{card_name(card)} does not follow {'CDHS'[led]} and seat {seat} holds one")
        if suit == SPADES and led != SPADES:
            state.broken = True
    elif suit == SPADES and not state.broken:
        if hand & ~SPADE_MASK:
            reject(Reason.SPADES_NOT_BROKEN, f"{card_name(card)} cannot be led before spades are broken")
        state.broken = True
    state.hands[seat] = hand ^ (1 << card)
    state.trick_seats.append(seat)
    trick.append(card)
    n = state.n
    if len(trick) < n:
        state.turn = (seat + 1) % n
        return
    finish_trick(state, SPADES_RULES.winner(trick)[0])
    if not any(state.hands):
        end_hand(state)


def _name(card: int) -> str:
    return card_name(card) if 0 <= card < 52 else f"card #{card}"


# ---- scoring and the next hand (both Spades variants) ----

def end_hand(state: GameState) -> None:
    """Score the finished hand, record it, and either end the game or pass the deal."""
    record = hand_record_base(state)
    record["exchanges"] = [
        {"seat": s, "gave": _text(state.xgiven[s]), "got": _text(state.xgot[s])}
        for s in range(state.n) if state.xgiven[s] != NO_CARD
    ]
    sides = []
    for side in range(state.sides):
        seats = state.seats_of(side)
        result = spades_side([state.bids[s] for s in seats], [state.tricks[s] for s in seats],
                             state.scores[side], state.bags[side], state.options)
        for nil, s in zip(result["nils"], seats):
            nil["seat"] = s
        result["side"], result["seats"] = side, seats
        state.scores[side] = result["total_after"]
        state.bags[side] = result["bags_after"]
        sides.append(result)
    record["sides"] = sides
    state.records.append(record)
    state.winner = spades_winners(state.scores, state.options.target_score)
    if state.winner:
        state.phase = Phase.GAME_OVER
        state.turn = NOBODY
    else:
        state.dealer = (state.dealer + 1) % state.n
        state.phase = Phase.DEAL
        state.turn = state.dealer


def _text(mask: int) -> str:
    return cards_text(mask) if mask >= 0 else ""


# ---- four-player flow ----

def legal_bid(state: GameState, seat: Seat) -> list[Action]:
    """Looking (any seat that has not bid) and bidding (the seat in turn)."""
    out = []
    looked = state.looked >> seat & 1
    if not looked and state.bids[seat] == NO_BID:
        out.append(A.REVEAL)
    if seat == state.turn:
        out.extend(BIDS)
        if state.options.double_nil_allowed and not looked:
            out.append(A.DOUBLE_NIL)
    return out


def legal_deal(state: GameState, seat: Seat) -> list[Action]:
    """DEAL for the dealer."""
    return [A.DEAL] if seat == state.turn else []


def exchange_choice(state: GameState, seat: Seat) -> tuple[int, int, int] | None:
    """(eligible cards, fewest, most) this seat may give in the exchange, or None."""
    if state.phase != Phase.EXCHANGE or not state.xneed >> seat & 1:
        return None
    k = state.options.exchange_size
    return state.hands[seat], k, k


def exchange_actions(state: GameState, seat: Seat) -> Sequence[Action]:
    """Every EXCHANGE action open to a seat, one per choice of cards."""
    return exchange_actions_for(exchange_choice(state, seat))


def exchange_actions_for(choice: tuple[int, int, int] | None) -> Sequence[Action]:
    """The EXCHANGE actions allowed by an (eligible, fewest, most) rule, as a lazy sequence."""
    if choice is None:
        return []
    return ExchangeChoices(*choice)


def apply_deal(state: GameState, seat: Seat, action: Action, rng: random.Random) -> None:
    """The dealer shuffles and deals 13 cards to each player; bidding starts left of the dealer."""
    if action != A.DEAL:
        wrong_phase(state, A.action_name(action))
    require_turn(state, seat)
    deck = start_hand(state, rng, DECK)
    deal_round_robin(state, deck, 52)
    state.phase = Phase.BID
    state.turn = (state.dealer + 1) % 4


def apply_bid(state: GameState, seat: Seat, action: Action, rng: random.Random) -> None:
    """Look at one's hand, or bid in turn (a number, Nil, or Double Nil before looking)."""
    kind = action & 15
    if action == A.REVEAL:
        reveal(state, seat)
        return
    if kind != Kind.BID and action != A.DOUBLE_NIL:
        wrong_phase(state, A.action_name(action))
    require_turn(state, seat)
    if kind == Kind.BID:
        tricks = action >> 4
        if not 0 <= tricks <= 13:
            reject(Reason.INVALID_BID, f"a bid is 0 (Nil) to 13 tricks, not {tricks}")
        state.bids[seat] = tricks
        state.looked |= 1 << seat
    else:
        check_double_nil(state, seat)
        state.bids[seat] = DOUBLE_NIL_BID
    state.calls[seat] = action
    state.turn = (seat + 1) % 4
    if state.turn == (state.dealer + 1) % 4:
        end_bidding(state)


def reveal(state: GameState, seat: Seat) -> None:
    """Show a seat its hand during the bidding (it can no longer bid Double Nil)."""
    if not 0 <= seat < state.n:
        reject(Reason.NOT_YOUR_TURN, f"there is no seat {seat}")
    if state.looked >> seat & 1 or state.bids[seat] != NO_BID:
        reject(Reason.WRONG_PHASE, f"seat {seat} already sees its hand")
    state.looked |= 1 << seat


def check_double_nil(state: GameState, seat: Seat) -> None:
    """Reject Double Nil when the options forbid it or the seat has seen its cards."""
    if not state.options.double_nil_allowed:
        reject(Reason.INVALID_BID, "Double Nil is switched off in this game")
    if state.bids[seat] == DOUBLE_NIL_BID:
        reject(Reason.INVALID_BID, f"seat {seat} has already declared Double Nil")
    if state.looked >> seat & 1:
        reject(Reason.BLIND_NIL_AFTER_LOOKING, f"seat {seat} has seen its cards")


def end_bidding(state: GameState) -> None:
    """Show every hand, then open the Double Nil exchanges or start play."""
    state.looked = 15
    state.turn = NOBODY
    bids = state.bids
    if state.options.exchange_size > 0:
        for a in (0, 1):
            if (bids[a] == DOUBLE_NIL_BID) != (bids[a + 2] == DOUBLE_NIL_BID):
                state.xneed |= 1 << a | 1 << (a + 2)
    if state.xneed:
        state.phase = Phase.EXCHANGE
    else:
        start_play(state, (state.dealer + 1) % 4)


def apply_exchange(state: GameState, seat: Seat, action: Action, rng: random.Random) -> None:
    """Choose the cards to give one's partner; the swap happens once both have chosen."""
    if action & 15 != Kind.EXCHANGE:
        wrong_phase(state, A.action_name(action))
    if not state.xneed >> seat & 1:
        if state.xgiven[seat] != NO_CARD:
            reject(Reason.NOT_YOUR_TURN, f"seat {seat} has already chosen its cards")
        reject(Reason.NOT_YOUR_TURN, f"seat {seat} takes no part in this exchange")
    k = state.options.exchange_size
    mask = check_cards(state, seat, action, k, k)
    state.xgiven[seat] = mask
    state.xneed &= ~(1 << seat)
    partner = seat ^ 2
    if state.xgiven[partner] != NO_CARD:
        theirs = state.xgiven[partner]
        state.hands[seat] = state.hands[seat] & ~mask | theirs
        state.hands[partner] = state.hands[partner] & ~theirs | mask
        state.xgot[seat], state.xgot[partner] = theirs, mask
    if not state.xneed:
        start_play(state, (state.dealer + 1) % 4)


def start_play(state: GameState, leader: Seat) -> None:
    """Open trick play with ``leader`` to lead."""
    state.phase = Phase.PLAY
    state.turn = leader


APPLY = {Phase.DEAL: apply_deal, Phase.BID: apply_bid, Phase.EXCHANGE: apply_exchange,
         Phase.PLAY: apply_play}
LEGAL = {Phase.DEAL: legal_deal, Phase.BID: legal_bid, Phase.EXCHANGE: exchange_actions,
         Phase.PLAY: legal_play}
