"""Spades for two players: the draw instead of a deal, Double Nil declared during the first
draw turn with an exchange against the discards, then the Spades bidding, play and scoring."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..core.actions import DEAL, Action, kind_of, payload_of
from ..core.cards import SUIT_MASKS, card_list, to_set
from ..core.dealing import Chance, open_hand
from ..core.errors import Reason
from ..core.hidden import Hidden, Place, filled, mask, public_cards, shown_out
from ..core.rules import check_cards, reject, require_turn, wrong_phase
from ..core.table import NO_BID, NO_CARD, Seat
from ..core.views import View
from ..game import ApplyStep, Game, LegalStep
from .spades import exchange_actions_for, exchanged, spades_view, start_play
from .spades_bidding import behind_enough, not_behind_message
from .spades_determinize import FULL_DECK, restore_spades
from .spades_play import apply_play, legal_play
from .spades_scoring import DOUBLE_NIL_BID
from .spades_state import BIDS, DECK, SpadesHandRecord, SpadesOptions, SpadesReason, SpadesRules, SpadesState
from .spades_words import DOUBLE_NIL, DRAW_DISCARD, DRAW_KEEP, PHASES_TWO_PLAYER, WORDS_TWO_PLAYER, SpadesCode
from .spades_words import SpadesPhase as Phase

NAME = "spades2"
# Looked up once: reading an enum member costs more than the comparison in a legal or draw step.
_PLAYING, _DRAWING, _BIDDING, _DEALING, _EXCHANGING = Phase.PLAY, Phase.DRAW, Phase.BID, Phase.DEAL, Phase.EXCHANGE
_KEEP = int(SpadesCode.DRAW_KEEP)
MAX_PUT_ASIDE = 3


class Spades2State(SpadesState):
    """A two-player Spades game: the Spades state plus the draw."""

    __slots__ = ("pos", "offered", "discards", "seen", "discarded", "draw_turns")

    def reset_hand(self) -> None:
        """Clear everything that belongs to one hand, the draw included."""
        super().reset_hand()
        n = self.n
        self.pos = 0                  # next card of the stock
        self.offered = NO_CARD
        self.discards = 0
        self.seen = [0] * n           # every card that passed through each seat's hands
        self.discarded = [0] * n      # the cards each seat discarded or put aside
        self.draw_turns = [0] * n

    def seats_of(self, side: int) -> list[Seat]:
        """Each player is a side of its own."""
        return [side]


@dataclass
class Spades2Rules(SpadesRules):
    """What a two-player Spades view shows beyond the common part."""

    offered: int | None
    seen_discards: list[int]
    stock_count: int



def legal(state: Spades2State, seat: Seat) -> Sequence[Action]:
    """Every action open to ``seat`` now in two-player Spades."""
    phase = state.phase
    if phase == _PLAYING:
        return legal_play(state, seat)
    if seat != state.turn:
        return []
    if phase == _DRAWING:
        out = [DRAW_KEEP, DRAW_DISCARD]
        if (state.options.double_nil_allowed and state.draw_turns[seat] == 0
                and state.bids[seat] != DOUBLE_NIL_BID and behind_enough(state, seat)):
            out.append(DOUBLE_NIL)
        return out
    if phase == _BIDDING:
        return BIDS[:]
    if phase == _DEALING:
        return [DEAL]
    if phase == _EXCHANGING:
        return exchange_actions_for(exchange_choice(state, seat))
    return []


def exchange_choice(state: Spades2State, seat: Seat) -> tuple[int, int, int, int] | None:
    """(eligible cards, fewest, most, the exchange's code) this seat may put aside, or None."""
    if state.phase != Phase.EXCHANGE or seat != state.turn:
        return None
    return state.hands[seat], 0, min(MAX_PUT_ASIDE, state.options.exchange_size), SpadesCode.EXCHANGE


def apply_deal(state: Spades2State, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """The first drawer shuffles the stock and is offered its top card."""
    _, chance = open_hand(state, seat, action, DECK, rng, chance)
    state.looked = 3
    state.phase = Phase.DRAW
    _offer(state, seat)
    return chance


def _offer(state: Spades2State, seat: Seat) -> None:
    card = state.deck[state.pos]
    state.pos += 1
    state.turn = seat
    state.offered = card
    state.seen[seat] |= 1 << card


def apply_draw(state: Spades2State, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """Keep the offered card (the next is discarded) or discard it (the next is kept)."""
    kind = kind_of(action)
    if action == DOUBLE_NIL:
        require_turn(state, seat)
        if not state.options.double_nil_allowed:
            reject(Reason.INVALID_BID, "Double Nil is switched off in this game")
        if state.bids[seat] == DOUBLE_NIL_BID:
            reject(Reason.INVALID_BID, f"seat {seat} has already declared Double Nil")
        if not behind_enough(state, seat):
            reject(SpadesReason.BLIND_NIL_NOT_BEHIND, not_behind_message(state, seat))
        if state.draw_turns[seat] > 0:
            reject(SpadesReason.BLIND_NIL_AFTER_LOOKING, "Double Nil is declared before the first draw choice")
        state.bids[seat] = DOUBLE_NIL_BID
        state.calls[seat] = action
        return None
    if action != DRAW_KEEP and action != DRAW_DISCARD:
        wrong_phase(state, action)
    require_turn(state, seat)
    nxt = state.deck[state.pos]
    state.pos += 1
    state.seen[seat] |= 1 << nxt
    kept, dropped = (state.offered, nxt) if kind == _KEEP else (nxt, state.offered)
    state.hands[seat] |= 1 << kept
    state.discards |= 1 << dropped
    state.discarded[seat] |= 1 << dropped
    state.offered = NO_CARD
    state.draw_turns[seat] += 1
    if state.pos < len(state.deck):
        _offer(state, 1 - seat)
        return None
    state.xneed = sum(1 << s for s in (0, 1) if state.bids[s] == DOUBLE_NIL_BID)
    if state.xneed and state.options.exchange_size > 0:
        state.phase = Phase.EXCHANGE
        state.turn = state.dealer if state.xneed >> state.dealer & 1 else 1 - state.dealer
    else:
        state.xneed = 0
        _start_bidding(state)
    return None


def apply_exchange(state: Spades2State, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """Put up to three cards aside, each replaced by a random card from the discards."""
    if kind_of(action) != SpadesCode.EXCHANGE:
        wrong_phase(state, action)
    require_turn(state, seat)
    choice = exchange_choice(state, seat)
    assert choice is not None  # the seat in turn in the EXCHANGE phase always has one
    _, low, high, _ = choice
    mask = check_cards(state, seat, action, low, high)
    pile = card_list(state.discards)
    k = mask.bit_count()
    if chance is None:
        chance = Chance(tuple(rng.sample(pile, k)))
    elif len(chance.cards) != k or not set(chance.cards) <= set(pile):
        raise ValueError(f"a recorded draw of {len(chance.cards)} cards does not fit an exchange of {k}")
    replacements = chance.cards
    got = 0
    for c in replacements:
        got |= 1 << c
    state.hands[seat] = state.hands[seat] & ~mask | got
    state.discards = state.discards & ~got | mask
    state.seen[seat] |= got
    state.discarded[seat] |= mask
    state.xgiven[seat] = mask
    state.xgot[seat] = got
    state.xneed &= ~(1 << seat)
    if state.xneed:
        state.turn = 1 - seat
    else:
        _start_bidding(state)
    return chance


def _start_bidding(state: Spades2State) -> None:
    second = 1 - state.dealer
    order = [s for s in (second, state.dealer) if state.bids[s] == NO_BID]
    if order:
        state.phase = Phase.BID
        state.turn = order[0]
    else:
        start_play(state, second)


def apply_bid(state: Spades2State, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """Bid 0..13 in turn: the second player first, then the first player."""
    kind = kind_of(action)
    if action == DOUBLE_NIL:
        require_turn(state, seat)
        if not state.options.double_nil_allowed:
            reject(Reason.INVALID_BID, "Double Nil is switched off in this game")
        if not behind_enough(state, seat):
            reject(SpadesReason.BLIND_NIL_NOT_BEHIND, not_behind_message(state, seat))
        reject(SpadesReason.BLIND_NIL_AFTER_LOOKING, "Double Nil is declared during the first draw turn")
    if kind != SpadesCode.BID:
        wrong_phase(state, action)
    require_turn(state, seat)
    tricks = payload_of(action)
    if not 0 <= tricks <= 13:
        reject(Reason.INVALID_BID, f"a bid is 0 (Nil) to 13 tricks, not {tricks}")
    state.bids[seat] = tricks
    state.calls[seat] = action
    other = 1 - seat
    if seat == 1 - state.dealer and state.bids[other] == NO_BID:
        state.turn = other
    else:
        start_play(state, 1 - state.dealer)
    return None


def view(state: Spades2State, seat: Seat | None) -> View:
    """What ``seat`` (None: a spectator) may know of a two-player Spades game."""
    if seat is None:
        v = spades_view(state, None, [], None)
    else:
        v = spades_view(state, seat, LEGAL[state.phase](state, seat) if state.phase in LEGAL else [],
                        exchange_choice(state, seat))
    drawing = state.phase == Phase.DRAW
    v.rules = Spades2Rules(
        state.broken, *exchanged(state, seat),
        offered=state.offered if drawing and seat is not None and seat == state.turn else None,
        seen_discards=card_list(state.discarded[seat]) if seat is not None else [],
        stock_count=len(state.deck) - state.pos if drawing else 0)
    return v


# ---- determinizing: the hidden cards of a seat's view, and states built from a view ----

def hidden(view: View) -> Hidden:
    """The cards the viewer cannot see: the other player's hand, its discards, the stock (in
    order) and the card offered to it. The viewer's own discards stay in the pile unless the other
    player's Double Nil exchange may have drawn them (then up to three of them may be in its hand)."""
    me = view.viewer
    assert me is not None
    if view.phase in (Phase.DEAL, Phase.GAME_OVER):
        return Hidden(0, ())
    opp = 1 - me
    rules: Spades2Rules = view.rules
    hand = mask(view.hand)
    known = hand | public_cards(view) | (1 << rules.offered if rules.offered is not None else 0)
    mine = mask(rules.seen_discards) & ~known            # my discards, still in the pile ...
    count = view.seats[opp].card_count
    allowed = ~shown_out(view, opp, SUIT_MASKS)
    if view.phase == Phase.DRAW:
        unknown = FULL_DECK & ~known & ~mine
        places = [Place("hand", opp, count, unknown), Place("discards", opp, count, unknown),
                  Place("stock", -1, rules.stock_count, unknown)]
        if view.turn == opp:
            places.append(Place("offered", opp, 1, unknown))
        return Hidden(unknown, tuple(p for p in places if p.size))
    drew = min(MAX_PUT_ASIDE, view.options.exchange_size, count) if view.seats[opp].rules.exchange_done else 0
    unknown = FULL_DECK & ~known & ~(mine if not drew else 0)   # ... unless it may have drawn them
    places = [Place("drawn", opp, drew, unknown & allowed), Place("hand", opp, count - drew, unknown & allowed & ~mine),
              Place("pile", -1, unknown.bit_count() - count, unknown)]
    return Hidden(unknown, tuple(p for p in places if p.size))


def determinize(view: View, places: Hidden, fills: Sequence[Sequence[int]]) -> Spades2State:
    """The two-player Spades state of ``view`` with the places of ``places`` (its ``hidden``) holding ``fills``."""
    me = view.viewer
    assert me is not None
    opp = 1 - me
    state = restore_spades(new_state(view.options, view.dealer), view)
    rules: Spades2Rules = view.rules
    hand = mask(view.hand)
    state.hands[me] = hand
    state.discarded[me] = seen = mask(rules.seen_discards)   # between hands: the last hand's
    if view.phase in (Phase.DEAL, Phase.GAME_OVER):
        _restore_exchanges(state, view)
        return state
    got = filled(places, fills)
    mine = seen & ~hand & ~public_cards(view)
    state.hands[opp] = mask(got.get(("hand", opp))) | mask(got.get(("drawn", opp)))
    if view.phase == Phase.DRAW:
        state.discarded[opp] = mask(got.get(("discards", opp)))
        state.discards = mine | state.discarded[opp]
        state.offered = rules.offered if rules.offered is not None else got[("offered", opp)][0]
        stock = got.get(("stock", -1), [])
        state.pos = 52 - len(stock)
        dealt = [c for c in range(52) if c != state.offered and not to_set(stock) >> c & 1]   # drawn before: any order
        state.deck = dealt + [state.offered] + stock
        state.draw_turns = [info.card_count for info in view.seats]
        assert view.turn is not None     # the draw always has a seat to draw
        state.seen[view.turn] |= 1 << state.offered
    else:
        # my discards are placed by the fills only when the other player may have drawn them
        state.discards = mask(got.get(("pile", -1))) | (0 if ("drawn", opp) in got else mine)
        state.discarded[opp] = state.discards & ~seen
        state.deck = list(range(52))
        state.pos = 52
        state.draw_turns = [13, 13]
    state.seen[me] |= hand | seen
    state.seen[opp] |= state.hands[opp] | state.discarded[opp]
    _restore_exchanges(state, view)
    if view.phase == Phase.EXCHANGE:
        state.xneed = sum(1 << s for s in (0, 1) if state.bids[s] == DOUBLE_NIL_BID
                          and not view.seats[s].rules.exchange_done)
    return state


def _restore_exchanges(state: Spades2State, view: View) -> None:
    """The cards put aside and drawn in Double Nil exchanges: the viewer's own, and an empty
    exchange standing for the other player's (which cards it was is never shown)."""
    rules: Spades2Rules = view.rules
    for info in view.seats:
        if info.rules.exchange_done:
            s = info.seat
            own = s == view.viewer
            state.xgiven[s] = mask(rules.exchange_given) if own else 0
            state.xgot[s] = mask(rules.exchange_received) if own else 0


APPLY: dict[int, ApplyStep] = {Phase.DEAL: apply_deal, Phase.DRAW: apply_draw, Phase.EXCHANGE: apply_exchange,
         Phase.BID: apply_bid, Phase.PLAY: apply_play}
LEGAL: dict[int, LegalStep] = {phase: legal for phase in APPLY}
LEGAL[Phase.PLAY] = legal_play


def new_state(options: SpadesOptions, first_dealer: Seat) -> Spades2State:
    """A two-player Spades game before its first draw; ValueError for options only four players take."""
    options.validate_two_player()
    return Spades2State(NAME, options, 2, 2, first_dealer)


GAME = Game(name=NAME, seats=2, cards=tuple(DECK), options_type=SpadesOptions, state_type=Spades2State,
            record_type=SpadesHandRecord, new_state=new_state, legal=LEGAL, apply=APPLY, view=view,
            bags=lambda state: state.bags[:], hidden=hidden, determinize=determinize,
            title="Two-player Spades", aliases=("spades_two_player",), reasons=SpadesReason,
            words=WORDS_TWO_PLAYER, phases=PHASES_TWO_PLAYER)
