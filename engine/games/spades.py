"""Spades for four players in two partnerships (seats 0+2 and 1+3): the flow of a hand (the deal,
the bidding with its looking step, the partners' exchange after a Double Nil or a Nil, then the
play), the view of a seat, and the game's registration (``GAME``). The flow is written for any
number of seats, each side a partnership of two (four players) or one player (Cutthroat Spades,
three players: ``engine.games.cutthroat_spades``, which runs it); the size of a hand, the bids it
allows and the cards dealt come from the state's class (:class:`SpadesState`).

The rest of Spades, which two-player and Cutthroat Spades share, has modules of its own: the
options, the state and the records (``engine.games.spades_state``), the deck with jokers
(``engine.games.spades_deck``), the bids the table's settings allow
(``engine.games.spades_bidding``), trick play and scoring (``engine.games.spades_play``) and
the states built from a view (``engine.games.spades_determinize``).

The table settings (RULES.md §1.1) are rule options like the others: jokers in the deck
(``trumps``), a minimum team bid, Suicide, Mirror and Whiz bidding, an exchange for Nil, failed
Nil tricks counting for the partner, Double Nil only when behind and a losing score. At their
defaults the game plays as the rule sheet says.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..core.actions import CODE_BITS, CODE_MASK, DEAL, Action
from ..core.cards import card_list
from ..core.choices import ExchangeChoices
from ..core.dealing import Chance, deal_round_robin, open_hand
from ..core.errors import Reason
from ..core.hidden import mask
from ..core.rules import check_cards, reject, require_turn, wrong_phase
from ..core.table import NO_BID, NO_CARD, NOBODY, Seat
from ..core.views import View, table_view
from ..game import ApplyStep, Game, LegalStep
from .spades_bidding import bid_refusal, bids_allowed, blind_nil_possible, exchange_size
from .spades_deck import TRUMPS_CARDS, TRUMPS_TABLES, cards_for
from .spades_determinize import determinize, hidden
from .spades_play import apply_play, legal_play
from .spades_scoring import DOUBLE_NIL_BID
from .spades_state import (
    DECK,
    NAME,
    STANDARD,
    SpadesHandRecord,
    SpadesOptions,
    SpadesReason,
    SpadesRules,
    SpadesSeat,
    SpadesState,
)
from .spades_words import DOUBLE_NIL, PHASES, REVEAL, WORDS, SpadesCode
from .spades_words import SpadesPhase as Phase

_BID = int(SpadesCode.BID)
_BID_PHASE, _EXCHANGE_PHASE, _PLAY_PHASE, _EXCHANGE_CODE = Phase.BID, Phase.EXCHANGE, Phase.PLAY, SpadesCode.EXCHANGE
"""Read once: an enum's member costs an attribute look-up on its class each time it is named."""


# ---- the flow of four-player (and Cutthroat) Spades: deal, look and bid, exchange, play ----

def legal_bid(state: SpadesState, seat: Seat) -> list[Action]:
    """Looking (any seat that has not bid) and bidding (the seat in turn)."""
    looked = state.looked >> seat & 1
    may_look = not looked and state.bids[seat] == NO_BID
    if seat != state.turn:
        return [REVEAL] if may_look else []
    options = state.options
    if options.bidding == STANDARD and not options.min_team_bid and not options.blind_nil_when_behind:
        bids = state.BIDS                              # the sheet's bidding (as bids_allowed gives it)
        if options.double_nil_allowed and not looked:
            return [REVEAL, *bids, DOUBLE_NIL] if may_look else [*bids, DOUBLE_NIL]
        return [REVEAL, *bids] if may_look else list(bids)
    out = [REVEAL] if may_look else []
    out.extend(bids_allowed(state, seat))
    return out


def legal_deal(state: SpadesState, seat: Seat) -> list[Action]:
    """DEAL for the dealer."""
    return [DEAL] if seat == state.turn else []


def exchange_choice(state: SpadesState, seat: Seat) -> tuple[int, int, int, int] | None:
    """(eligible cards, fewest, most, the exchange's code) this seat may give in the exchange, or None."""
    if state.phase != _EXCHANGE_PHASE or not state.xneed >> seat & 1:
        return None
    k = exchange_size(state.options, state.bids[seat], state.bids[seat ^ 2])
    return state.hands[seat], k, k, _EXCHANGE_CODE


def exchange_actions(state: SpadesState, seat: Seat) -> Sequence[Action]:
    """Every EXCHANGE action open to a seat, one per choice of cards."""
    return exchange_actions_for(exchange_choice(state, seat))


def exchange_actions_for(choice: tuple[int, int, int, int] | None) -> Sequence[Action]:
    """The EXCHANGE actions allowed by an (eligible, fewest, most, code) rule, as a lazy sequence."""
    if choice is None:
        return []
    return ExchangeChoices(*choice)


def apply_deal(state: SpadesState, seat: Seat, action: Action, rng: random.Random,
               chance: Chance | None = None) -> Chance | None:
    """The dealer shuffles and deals the whole deck (13 cards each; Cutthroat Spades: 17 each),
    jokers included at a table with them; bidding starts left of the dealer. A seat that may not
    bid Double Nil this hand sees its cards at once."""
    options = state.options
    cards = state.CARDS if options.trumps == STANDARD else TRUMPS_CARDS[options.trumps]
    deck, chance = open_hand(state, seat, action, cards, rng, chance)
    deal_round_robin(state, deck, len(deck))
    n = state.n
    state.phase = _BID_PHASE
    state.turn = (state.dealer + 1) % n
    if not options.double_nil_allowed or options.bidding != STANDARD or options.blind_nil_when_behind:
        state.looked = sum(1 << s for s in range(n) if not blind_nil_possible(state, s))
    return chance


def apply_bid(state: SpadesState, seat: Seat, action: Action, rng: random.Random,
              chance: Chance | None = None) -> Chance | None:
    """Look at one's hand, or bid in turn (a number, Nil, or Double Nil before looking), as the
    table's settings allow."""
    if action == REVEAL:
        reveal(state, seat)
        return None
    kind = action & CODE_MASK
    if kind != _BID and action != DOUBLE_NIL:
        wrong_phase(state, action)
    if seat != state.turn:
        require_turn(state, seat)
    tricks = action >> CODE_BITS if kind == _BID else DOUBLE_NIL_BID
    options = state.options
    plain = options.bidding == STANDARD and not options.min_team_bid and not options.blind_nil_when_behind
    if not (plain and kind == _BID and 0 <= tricks <= state.MOST_BID):   # the sheet's bidding takes any number
        refusal = bid_refusal(state, seat, tricks)
        if refusal is not None:
            reject(*refusal)
        if not plain and len(bids_allowed(state, seat)) == 1:
            state.forced |= 1 << seat
    state.bids[seat] = tricks
    if kind == _BID:
        state.looked |= 1 << seat
    state.calls[seat] = action
    n = state.n
    state.turn = (seat + 1) % n
    if state.turn == (state.dealer + 1) % n:
        end_bidding(state)
    return None


def reveal(state: SpadesState, seat: Seat) -> None:
    """Show a seat its hand during the bidding (it can no longer bid Double Nil)."""
    if not 0 <= seat < state.n:
        reject(Reason.NOT_YOUR_TURN, f"there is no seat {seat}")
    if state.looked >> seat & 1 or state.bids[seat] != NO_BID:
        reject(Reason.WRONG_PHASE, f"seat {seat} already sees its hand")
    state.looked |= 1 << seat


def end_bidding(state: SpadesState) -> None:
    """Show every hand, then open the partners' exchanges (Double Nil, and Nil with
    ``nil_exchange``) or start play (Cutthroat Spades has no partners: it always starts play)."""
    n = state.n
    state.looked = (1 << n) - 1
    state.turn = NOBODY
    bids, options = state.bids, state.options
    if n == 4:
        for a in (0, 1):
            mine, partners = bids[a], bids[a + 2]
            if (mine <= 0 or partners <= 0) and exchange_size(options, mine, partners) > 0:   # a Nil or Double Nil
                state.xneed |= 1 << a | 1 << (a + 2)
    if state.xneed:
        state.phase = _EXCHANGE_PHASE
    else:
        start_play(state, (state.dealer + 1) % n)


def apply_exchange(state: SpadesState, seat: Seat, action: Action, rng: random.Random,
                   chance: Chance | None = None) -> Chance | None:
    """Choose the cards to give one's partner; the swap happens once both have chosen."""
    if action & CODE_MASK != _EXCHANGE_CODE:
        wrong_phase(state, action)
    if not state.xneed >> seat & 1:
        if state.xgiven[seat] != NO_CARD:
            reject(Reason.NOT_YOUR_TURN, f"seat {seat} has already chosen its cards")
        reject(Reason.NOT_YOUR_TURN, f"seat {seat} takes no part in this exchange")
    k = exchange_size(state.options, state.bids[seat], state.bids[seat ^ 2])
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
    return None


def start_play(state: SpadesState, leader: Seat) -> None:
    """Open trick play with ``leader`` to lead."""
    state.phase = _PLAY_PHASE
    state.turn = leader


def spades_seat(state: SpadesState, s: Seat) -> SpadesSeat:
    """The Spades facts about seat ``s`` that every viewer may see."""
    return SpadesSeat(state.bids[s] == DOUBLE_NIL_BID, bool(state.looked >> s & 1), state.xgiven[s] != NO_CARD,
                      bool(state.forced >> s & 1))


def spades_view(state: SpadesState, seat: Seat | None, legal: Sequence[Action],
                exchange: tuple[int, int, int, int] | None) -> View:
    """The common view with the Spades per-seat facts, before the variant's own part; at a table
    with jokers the viewer's hand is listed spades first, each suit from its highest card."""
    v = table_view(state, seat, legal, exchange, state.bids, state.bags)
    for info in v.seats:
        info.rules = spades_seat(state, info.seat)
    if v.hand and state.options.trumps != STANDARD:
        v.hand = TRUMPS_TABLES[state.options.trumps].in_view_order(mask(v.hand))
    return v


def exchanged(state: SpadesState, seat: Seat | None) -> tuple[list[int], list[int]]:
    """The cards ``seat`` gave and got in this hand's exchange (nothing for a spectator)."""
    if seat is None or state.xgiven[seat] == NO_CARD:
        return [], []
    return card_list(state.xgiven[seat]), card_list(state.xgot[seat])


def view(state: SpadesState, seat: Seat | None) -> View:
    """What ``seat`` (None: a spectator) may know of a four-player (or Cutthroat) Spades game."""
    if seat is None:
        v = spades_view(state, None, [], None)
    else:
        step = LEGAL.get(state.phase)
        v = spades_view(state, seat, step(state, seat) if step else [], exchange_choice(state, seat))
    v.rules = SpadesRules(state.broken, *exchanged(state, seat))
    return v


APPLY: dict[int, ApplyStep] = {Phase.DEAL: apply_deal, Phase.BID: apply_bid, Phase.EXCHANGE: apply_exchange,
         Phase.PLAY: apply_play}
LEGAL: dict[int, LegalStep] = {Phase.DEAL: legal_deal, Phase.BID: legal_bid, Phase.EXCHANGE: exchange_actions,
         Phase.PLAY: legal_play}


def new_state(options: SpadesOptions, first_dealer: Seat) -> SpadesState:
    """A four-player Spades game before its first deal."""
    return SpadesState(NAME, options, 4, 2, first_dealer)


GAME = Game(name=NAME, seats=4, cards=tuple(DECK), options_type=SpadesOptions, state_type=SpadesState,
            record_type=SpadesHandRecord, new_state=new_state, legal=LEGAL, apply=APPLY, view=view,
            bags=lambda state: state.bags[:], hidden=hidden, determinize=determinize, title="Spades",
            reasons=SpadesReason, words=WORDS, phases=PHASES, cards_for=cards_for)
