"""Call Whist: a test-only game with words of its own, registered from this file alone.

It proves the open vocabulary: a phase ("call"), action words ("call" a suit, "no-trump") and a
setting (``no_trump_allowed``) that no built-in game has, declared here and nowhere else, then
played through the engine, Act over gRPC and Connect, the Python client and the terminal.

Four players in partnerships (seats 0+2 and 1+3), 52 cards dealt one at a time from the dealer's
left. The player left of the dealer calls trump: a suit, or (when ``no_trump_allowed``) no trump.
Follow suit when able; the highest trump, else the highest card of the suit led, wins; the player
left of the dealer leads. After 13 tricks the side that took more than six scores one point per
trick above six, twice that in no trump; the first side to ``target`` points wins. Importing this
module registers the game (and a server's ``--game-module tests.games.call_whist`` does so).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

import engine
from engine.core.actions import (
    DEAL,
    DEAL_WORD,
    PLAY_CODE,
    PLAY_WORD,
    Action,
    action_of,
    kind_of,
    payload_of,
    play_actions,
)
from engine.core.cards import SUIT_MASKS, card_name
from engine.core.dealing import Chance, deal_round_robin, open_hand
from engine.core.errors import Reason
from engine.core.options import GameOptions, Setting
from engine.core.records import HandRecord, record_base
from engine.core.rules import end_game_or_pass_deal, finish_trick, has, reject, require_turn, wrong_phase
from engine.core.table import Seat, TableState
from engine.core.tricks import TrumpRules
from engine.core.views import View, table_view
from engine.core.vocabulary import Shape, Word, phase_words

NAME = "call_whist"
DECK = list(range(52))
BOOK = 6
NO_TRUMP = 4


class CallPhase(IntEnum):
    """Where a hand of Call Whist stands."""

    DEAL = 1
    CALL = 20      # the player left of the dealer calls trump
    PLAY = 9
    GAME_OVER = 10


class CallCode(IntEnum):
    """The codes of Call Whist's action words."""

    DEAL = DEAL_WORD.code
    CALL = 40        # call this suit trump
    NO_TRUMP = 41    # call no trump
    PLAY = PLAY_WORD.code


WORDS = (DEAL_WORD, Word(CallCode.CALL, "call", Shape.SUIT, "Call trump"),
         Word(CallCode.NO_TRUMP, "no-trump", Shape.NONE, "No trump"), PLAY_WORD)
PHASES = phase_words(CallPhase, {"call": "Calling trump", "game_over": "Game over"})


@dataclass(frozen=True)
class CallWhistOptions(GameOptions):
    """The points a side needs to win, and whether no trump may be called."""

    SETTINGS = (Setting("target", 3, "Target", "The points a side needs to win.", low=1, high=20),
                Setting("no_trump_allowed", True, "No trump", "Whether the caller may call no trump."))

    target: int = 3
    no_trump_allowed: bool = True


class CallWhistState(TableState):
    """The shared table and the hand's trump (-1 before the call, NO_TRUMP for no trump)."""

    __slots__ = ("trump",)

    def reset_hand(self) -> None:
        """Clear the hand's fields, the trump call included."""
        super().reset_hand()
        self.trump = -1

    def seats_of(self, side: int) -> list[Seat]:
        """The seats of a partnership."""
        return [side, side + 2]


@dataclass
class CallWhistHandRecord(HandRecord):
    """A finished hand: the common record and the trump called."""

    trump: str = ""


def legal_deal(state: CallWhistState, seat: Seat) -> Sequence[Action]:
    """DEAL for the dealer."""
    return [DEAL] if seat == state.turn else []


def apply_deal(state: CallWhistState, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """Deal 13 cards each; the player left of the dealer calls trump."""
    deck, chance = open_hand(state, seat, action, DECK, rng, chance)
    deal_round_robin(state, deck, 52)
    state.looked = 15
    state.phase = CallPhase.CALL
    state.turn = (state.dealer + 1) % 4
    return chance


def legal_call(state: CallWhistState, seat: Seat) -> Sequence[Action]:
    """Any suit, and no trump when the options allow it."""
    if seat != state.turn:
        return []
    calls = [action_of(CallCode.CALL, suit) for suit in range(4)]
    return calls + [CallCode.NO_TRUMP] if state.options.no_trump_allowed else calls


def apply_call(state: CallWhistState, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """Settle trump; the caller leads."""
    code = kind_of(action)
    if code not in (CallCode.CALL, CallCode.NO_TRUMP):
        wrong_phase(state, action)
    require_turn(state, seat)
    if code == CallCode.NO_TRUMP:
        if not state.options.no_trump_allowed or payload_of(action):
            reject(Reason.WRONG_PHASE, "no trump may not be called in this game")
        state.trump = NO_TRUMP
    else:
        suit = payload_of(action)
        if not 0 <= suit < 4:
            reject(Reason.WRONG_PHASE, f"there is no suit {suit}")
        state.trump = suit
    state.calls[seat] = action
    state.phase = CallPhase.PLAY
    return None


def legal_play(state: CallWhistState, seat: Seat) -> Sequence[Action]:
    """The cards ``seat`` may play: any when leading, else the led suit when it holds one."""
    if seat != state.turn:
        return []
    hand = state.hands[seat]
    if state.trick_cards:
        hand = hand & SUIT_MASKS[state.trick_cards[0] // 13] or hand
    return play_actions(hand)


def apply_play(state: CallWhistState, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """Play a card; after the fourth, the trick's winner leads; after 13 tricks, score."""
    if kind_of(action) != PLAY_CODE:
        wrong_phase(state, action)
    require_turn(state, seat)
    card, hand = payload_of(action), state.hands[seat]
    if not has(hand, card):
        reject(Reason.CARD_NOT_IN_HAND, f"seat {seat} does not hold that card")
    if state.trick_cards:
        led = state.trick_cards[0] // 13
        if card // 13 != led and hand & SUIT_MASKS[led]:
            reject(Reason.MUST_FOLLOW_SUIT, f"{card_name(card)} does not follow suit and seat {seat} can")
    state.hands[seat] = hand ^ (1 << card)
    state.trick_seats.append(seat)
    state.trick_cards.append(card)
    if len(state.trick_cards) < 4:
        state.turn = (seat + 1) % 4
        return None
    rules = TrumpRules(None if state.trump == NO_TRUMP else state.trump, False)
    finish_trick(state, rules.winner(state.trick_cards)[0])
    if not any(state.hands):
        _end_hand(state)
    return None


def _end_hand(state: CallWhistState) -> None:
    factor = 2 if state.trump == NO_TRUMP else 1
    points = [factor * max(0, state.tricks[side] + state.tricks[side + 2] - BOOK) for side in (0, 1)]
    for side in (0, 1):
        state.scores[side] += points[side]
    trump = "no trump" if state.trump == NO_TRUMP else "CDHS"[state.trump]
    state.records.append(CallWhistHandRecord(**record_base(state), points=points, totals=state.scores[:],
                                             trump=trump))
    state.winner = [side for side in (0, 1) if state.scores[side] >= state.options.target]
    end_game_or_pass_deal(state)


LEGAL = {CallPhase.DEAL: legal_deal, CallPhase.CALL: legal_call, CallPhase.PLAY: legal_play}
APPLY = {CallPhase.DEAL: apply_deal, CallPhase.CALL: apply_call, CallPhase.PLAY: apply_play}


def view(state: CallWhistState, seat: Seat | None) -> View:
    """What ``seat`` (None: a spectator) may know: the common view is all there is."""
    step = LEGAL.get(state.phase)
    legal = step(state, seat) if step is not None and seat is not None else []
    return table_view(state, seat, legal, None)


GAME = engine.register(engine.Game(
    name=NAME, seats=4, cards=tuple(DECK), options_type=CallWhistOptions, state_type=CallWhistState,
    record_type=CallWhistHandRecord, new_state=lambda options, dealer: CallWhistState(NAME, options, 4, 2, dealer),
    legal=LEGAL, apply=APPLY, view=view, words=WORDS, phases=PHASES, title="Call Whist"))
