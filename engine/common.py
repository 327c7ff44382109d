"""Steps every game shares: starting a hand, turn order, checks that raise typed errors."""

from __future__ import annotations

import math
import random

from .actions import DUPLICATE_FLAG, Action
from .cards import BITS, Card, cards_text, deck_text
from .errors import IllegalAction, Reason
from .fairness import commitment
from .state import NOBODY, GameState, Phase, Seat


def reject(reason: Reason, message: str) -> None:
    """Raise the typed error for a rejected action."""
    raise IllegalAction(reason, message)


def wrong_phase(state: GameState, what: str) -> None:
    """Reject an action that has no place in the current phase."""
    if state.phase == Phase.GAME_OVER:
        reject(Reason.WRONG_PHASE, "the game is over")
    reject(Reason.WRONG_PHASE, f"{what} is not possible in the {state.phase.name} phase")


def require_turn(state: GameState, seat: Seat) -> None:
    """Reject the action unless it is this seat's turn."""
    if seat != state.turn:
        if state.turn == NOBODY:
            reject(Reason.NOT_YOUR_TURN, f"seat {seat} has nothing to do now")
        reject(Reason.NOT_YOUR_TURN, f"it is seat {state.turn}'s turn, not seat {seat}'s")


_ORDERINGS = {n: math.factorial(n) for n in (24, 52)}


def shuffled(cards: list[Card], rng: random.Random) -> list[Card]:
    """The cards in a uniformly random order, drawn from a single random integer.

    An integer uniform in ``[0, n!)`` (rejection-sampled from ``getrandbits``) is read as a
    Lehmer code, which maps it one-to-one onto the orderings of ``n`` cards. One draw instead
    of one per card is faster, and far faster with ``secrets.SystemRandom``.
    """
    n = len(cards)
    orderings = _ORDERINGS.get(n) or math.factorial(n)
    bits = orderings.bit_length()
    code = rng.getrandbits(bits)
    while code >= orderings:
        code = rng.getrandbits(bits)
    rest = list(cards)
    deck = []
    for remaining in range(n, 0, -1):
        code, index = divmod(code, remaining)
        deck.append(rest.pop(index))
    return deck


def start_hand(state: GameState, rng: random.Random, cards: list[Card]) -> list[Card]:
    """Reset the per-hand fields, take the next deck (prearranged or shuffled) and return it."""
    deck = state.decks.pop(0) if state.decks else shuffled(cards, rng)
    state.reset_hand()
    state.hand_no += 1
    state.deck = deck
    state.salt = f"{rng.getrandbits(128):032x}"
    state.commitment = commitment(state.salt, deck)
    return deck


def deal_round_robin(state: GameState, deck: list[Card], count: int) -> None:
    """Deal the first ``count`` cards one at a time clockwise, starting left of the dealer."""
    n, first = state.n, state.dealer + 1
    for k in range(n):
        # seat first+k gets deck[k], deck[k+n], …; distinct bits, so their sum is their union
        state.hands[(first + k) % n] |= sum(map(BITS.__getitem__, deck[k:count:n]))


def finish_trick(state: GameState, winner_index: int) -> Seat:
    """Close the complete trick: credit its winner, keep it as the last trick, clear the table."""
    winner = state.trick_seats[winner_index]
    state.tricks[winner] += 1
    state.last_trick = [state.trick_seats, state.trick_cards, winner]
    state.trick_seats = []
    state.trick_cards = []
    state.turn = winner
    return winner


def hand_record_base(state: GameState) -> dict:
    """The fields every hand record starts with, the deck and its salt revealed."""
    return {
        "hand": state.hand_no, "dealer": state.dealer, "bids": state.bids[:],
        "tricks": state.tricks[:], "deck": deck_text(state.deck), "salt": state.salt,
        "commitment": state.commitment,
    }


def has(mask: int, card: Card) -> bool:
    """Whether a card set holds a card (any int accepted; out-of-range cards are never held)."""
    return 0 <= card < 52 and mask >> card & 1 == 1



def check_cards(state: GameState, seat: Seat, action: Action, low: int, high: int) -> int:
    """The card set of an EXCHANGE action, checked: no duplicates, all held, ``low..high`` cards."""
    mask = action >> 4
    if mask & DUPLICATE_FLAG:
        reject(Reason.INVALID_EXCHANGE, "a card is listed twice")
    if mask >> 52:
        reject(Reason.INVALID_EXCHANGE, "only cards 0..51 exist")
    missing = mask & ~state.hands[seat]
    if missing:
        reject(Reason.INVALID_EXCHANGE, f"seat {seat} does not hold {cards_text(missing)}")
    k = mask.bit_count()
    if not low <= k <= high:
        wanted = str(low) if low == high else f"{low} to {high}"
        reject(Reason.INVALID_EXCHANGE, f"choose {wanted} cards, not {k}")
    return mask
