"""Steps and checks every game shares: typed rejections, turn order, trick closing."""

from __future__ import annotations

from enum import StrEnum
from typing import NoReturn

from .actions import DUPLICATE_FLAG, Action, payload_of
from .cards import CARD_COUNT, cards_text
from .errors import IllegalAction, Reason
from .table import NOBODY, Phase, Seat, TableState
from .vocabulary import vocabulary_of


def reject(reason: StrEnum, message: str) -> NoReturn:
    """Raise the typed error for a rejected action."""
    raise IllegalAction(reason, message)


def wrong_phase(state: TableState, action: Action) -> NoReturn:
    """Reject an action that has no place in the current phase (both named in the game's words)."""
    if state.phase == Phase.GAME_OVER:
        reject(Reason.WRONG_PHASE, "the game is over")
    words = vocabulary_of(state.variant)
    reject(Reason.WRONG_PHASE, f"{words.name(action)} is not possible in the {phase_name(state)} phase")


def phase_name(state: TableState) -> str:
    """The name of the state's phase in its game's words (its number for one the game lacks)."""
    found = vocabulary_of(state.variant).phase_by_code.get(state.phase)
    return found.name if found is not None else f"#{int(state.phase)}"


def require_turn(state: TableState, seat: Seat) -> None:
    """Reject the action unless it is this seat's turn."""
    if seat != state.turn:
        if state.turn == NOBODY:
            reject(Reason.NOT_YOUR_TURN, f"seat {seat} has nothing to do now")
        reject(Reason.NOT_YOUR_TURN, f"it is seat {state.turn}'s turn, not seat {seat}'s")


def finish_trick(state: TableState, winner_index: int) -> Seat:
    """Close the complete trick: credit its winner, keep it as the last trick, clear the table."""
    winner = state.trick_seats[winner_index]
    state.tricks[winner] += 1
    state.last_trick = [state.trick_seats, state.trick_cards, winner]
    state.trick_seats = []
    state.trick_cards = []
    state.turn = winner
    return winner


_DEAL, _GAME_OVER = Phase.DEAL, Phase.GAME_OVER   # read once: naming an enum's member looks it up each time
MAX_HANDS = 500
"""The most hands a game lasts: after the last, the best score wins (a tie is a draw)."""


def end_game_or_pass_deal(state: TableState, high_wins: bool = True) -> None:
    """After a hand: game over when there is a winner or the game has lasted ``MAX_HANDS`` hands
    (then the side with the best score, the highest unless ``high_wins`` is false, wins, and a
    tie for it leaves the game drawn with no winner); else the deal passes to the left."""
    if not state.winner and state.hand_no >= MAX_HANDS:
        state.winner = best_side(state.scores, list(range(state.sides)), high=high_wins)
        state.phase = _GAME_OVER
        state.turn = NOBODY
        return
    if state.winner:
        state.phase = _GAME_OVER
        state.turn = NOBODY
    else:
        state.dealer = (state.dealer + 1) % state.n
        state.phase = _DEAL
        state.turn = state.dealer


def has(mask: int, card: int) -> bool:
    """Whether a card set holds a card (any int accepted; out-of-range cards are never held)."""
    return 0 <= card < 52 and mask >> card & 1 == 1


def check_cards(state: TableState, seat: Seat, action: Action, low: int, high: int,
                reason: StrEnum = Reason.INVALID_EXCHANGE, verb: str = "choose") -> int:
    """The card set of an action that carries cards (an exchange; a Hearts pass, refused with its
    own ``reason``), checked: no duplicates, all held, ``low..high`` cards."""
    mask = payload_of(action)
    if mask & DUPLICATE_FLAG:
        reject(reason, "a card is listed twice")
    if mask >> CARD_COUNT:
        reject(reason, f"only cards 0..{CARD_COUNT - 1} exist")
    missing = mask & ~state.hands[seat]
    if missing:
        reject(reason, f"seat {seat} does not hold {cards_text(missing)}")
    k = mask.bit_count()
    if not low <= k <= high:
        wanted = str(low) if low == high else f"{low} to {high}"
        reject(reason, f"{verb} {wanted} cards, not {k}")
    return mask


def best_side(scores: list[int], qualified: list[int], high: bool) -> list[int]:
    """The one qualified side with the best score (highest or lowest) as a list; [] on a tie or none."""
    if not qualified:
        return []
    pick = max if high else min
    best = pick(scores[s] for s in qualified)
    leaders = [s for s in qualified if scores[s] == best]
    return leaders if len(leaders) == 1 else []
