"""Plain Whist, a fourth trick-taking game written only from the engine's shared core.

Four players in partnerships (seats 0+2 and 1+3), 52 cards dealt one at a time from the
dealer's left, spades always trump, follow suit when able, the player left of the dealer
leads. After 13 tricks the side that took more than six scores one point per trick above six;
the first side to ``target`` points wins. Importing this module registers the game.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import engine
from engine.core import actions as A
from engine.core.actions import PLAY_CODE, Action, kind_of, payload_of
from engine.core.cards import SUIT_MASKS, card_name
from engine.core.dealing import Chance, deal_round_robin, open_hand
from engine.core.errors import Reason
from engine.core.options import GameOptions, Setting
from engine.core.records import HandRecord, record_base
from engine.core.rules import end_game_or_pass_deal, finish_trick, has, reject, require_turn, wrong_phase
from engine.core.table import Phase, Seat, TableState
from engine.core.tricks import SPADES_RULES
from engine.core.views import View, table_view

NAME = "whist"
DECK = list(range(52))
BOOK = 6


@dataclass(frozen=True)
class WhistOptions(GameOptions):
    """The points a side needs to win."""

    SETTINGS = (Setting("target", 5, "Target", "The points a side needs to win.", low=1, high=100),)

    target: int = 5


class WhistState(TableState):
    """The shared table is all Whist needs."""

    __slots__ = ()

    def seats_of(self, side: int) -> list[Seat]:
        """The seats of a partnership."""
        return [side, side + 2]


@dataclass
class WhistHandRecord(HandRecord):
    """A finished hand: the common record is all Whist keeps."""


def legal_deal(state: WhistState, seat: Seat) -> Sequence[Action]:
    """DEAL for the dealer."""
    return [A.DEAL] if seat == state.turn else []


def apply_deal(state: WhistState, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """The dealer deals 13 cards each; the player on the dealer's left leads."""
    deck, chance = open_hand(state, seat, action, DECK, rng, chance)
    deal_round_robin(state, deck, 52)
    state.looked = 15
    state.phase = Phase.PLAY
    state.turn = (state.dealer + 1) % 4
    return chance


def legal_play(state: WhistState, seat: Seat) -> Sequence[Action]:
    """The cards ``seat`` may play: any card when leading, else the led suit when it holds one."""
    if seat != state.turn:
        return []
    hand = state.hands[seat]
    if state.trick_cards:
        hand = hand & SUIT_MASKS[state.trick_cards[0] // 13] or hand
    return A.play_actions(hand)


def apply_play(state: WhistState, seat: Seat, action: Action, rng: random.Random,
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
    finish_trick(state, SPADES_RULES.winner(state.trick_cards)[0])
    if not any(state.hands):
        _end_hand(state)
    return None


def _end_hand(state: WhistState) -> None:
    points = [max(0, state.tricks[side] + state.tricks[side + 2] - BOOK) for side in (0, 1)]
    for side in (0, 1):
        state.scores[side] += points[side]
    state.records.append(WhistHandRecord(**record_base(state), points=points, totals=state.scores[:]))
    state.winner = [side for side in (0, 1) if state.scores[side] >= state.options.target]
    end_game_or_pass_deal(state)


LEGAL = {Phase.DEAL: legal_deal, Phase.PLAY: legal_play}
APPLY = {Phase.DEAL: apply_deal, Phase.PLAY: apply_play}


def view(state: WhistState, seat: Seat | None) -> View:
    """What ``seat`` (None: a spectator) may know: the common view is all there is."""
    step = LEGAL.get(state.phase)
    legal = step(state, seat) if step is not None and seat is not None else []
    return table_view(state, seat, legal, None)


GAME = engine.register(engine.Game(
    name=NAME, seats=4, cards=tuple(DECK), options_type=WhistOptions, state_type=WhistState,
    record_type=WhistHandRecord, new_state=lambda options, dealer: WhistState(NAME, options, 4, 2, dealer),
    legal=LEGAL, apply=APPLY, view=view))
