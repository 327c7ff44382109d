"""The bids of every Spades game as the table's settings allow them (RULES.md §1.1): Double Nil
(on or off, only when behind, only before looking), the bidding rules Suicide, Mirror and Whiz,
the minimum team bid, the refusal of a bid with its reason and message (``bid_refusal``), the
bids open to the seat in turn (``bids_allowed``), and the exchange a partnership's bids call for
(``exchange_size``).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from ..core.actions import Action
from ..core.errors import Reason
from ..core.table import NO_BID, Seat
from .spades_deck import TRUMPS_TABLES
from .spades_scoring import DOUBLE_NIL_BID
from .spades_state import MIRROR, STANDARD, SUICIDE, WHIZ, SpadesOptions, SpadesReason, SpadesState
from .spades_words import DOUBLE_NIL

_TITLES = {SUICIDE: "Suicide", MIRROR: "Mirror", WHIZ: "Whiz"}
_COUNTED = {"jokers": " (the jokers count)", "jokers_deuces": " (the jokers and the 2D count)"}


# ---- Double Nil and the bids the table's settings allow (every Spades game) ----

def side_of(state: SpadesState, seat: Seat) -> int:
    """The scoring side of a seat (four players: its partnership; two or three players: itself)."""
    return seat % state.sides


def trailing(scores: Sequence[int], side: int) -> int:
    """How many points ``side`` trails the highest of the other sides by (negative: it leads them all).

    >>> trailing([100, 250], 0), trailing([100, 250, 40], 2), trailing([300, 250, 40], 0)
    (150, 210, -50)
    """
    return max(score for other, score in enumerate(scores) if other != side) - scores[side]


def deficit(state: SpadesState, seat: Seat) -> int:
    """How many points the seat's side trails the other side (of three players: the highest of the
    other two) by, negative when it leads; the totals do not change during a hand, so this is the
    deficit at the start of the hand."""
    return trailing(state.scores, side_of(state, seat))


def behind_enough(state: SpadesState, seat: Seat) -> bool:
    """Whether the seat's side trails by at least ``blind_nil_when_behind`` (0: always true)."""
    need = state.options.blind_nil_when_behind
    return need == 0 or deficit(state, seat) >= need


def blind_nil_possible(state: SpadesState, seat: Seat) -> bool:
    """Whether nothing known at the deal keeps the seat from Double Nil in this hand (it is on,
    the bidding rule has it, its side is far enough behind); a seat for which it is not possible
    sees its hand from the deal."""
    options = state.options
    return options.double_nil_allowed and options.bidding not in (MIRROR, WHIZ) and behind_enough(state, seat)


def not_behind_message(state: SpadesState, seat: Seat) -> str:
    """Why a side not far enough behind may not bid Double Nil, in a player's words (of three
    players, its gap is to the highest of the other two)."""
    need, gap = state.options.blind_nil_when_behind, deficit(state, seat)
    if state.n == 4:
        who = "a partnership trailing"
        where = f"yours trails by {gap}" if gap > 0 else f"yours leads by {-gap}" if gap < 0 else "yours is level"
    else:
        who = "a player trailing" if state.sides == 2 else "a player trailing the highest of the others"
        where = f"you trail by {gap}" if gap > 0 else f"you lead by {-gap}" if gap < 0 else "you are level"
    return f"Double Nil is allowed only to {who} by at least {need} points at the start of the hand: {where}"


def spades_in_hand(state: SpadesState, seat: Seat) -> int:
    """How many spades the seat holds (jokers, and the 2♦ in ``jokers_deuces``, included); before
    the bidding ends no card has changed hands, so this is its hand as dealt."""
    return (state.hands[seat] & TRUMPS_TABLES[state.options.trumps].spades).bit_count()


def _bid_word(tricks: int) -> str:
    return "Nil" if tricks == 0 else "Double Nil" if tricks == DOUBLE_NIL_BID else str(tricks)


def rule_refusal(options: SpadesOptions, tricks: int, partner: int, spades: int) -> str | None:
    """Why the bidding rule (Suicide, Mirror, Whiz) refuses a bid of ``tricks`` (0: Nil,
    ``DOUBLE_NIL_BID``: Double Nil) by a seat whose partner bid ``partner`` (``NO_BID``: not yet)
    and who holds ``spades`` spades; None when it allows it (as the standard rule always does)."""
    rule = options.bidding
    if rule == SUICIDE and partner != NO_BID:
        if partner > 0 and tricks > 0:
            return f"in Suicide one partner bids Nil: your partner bid {partner}, so you must bid Nil or Double Nil"
        if partner <= 0 and tricks <= 0:
            return (f"in Suicide only one partner bids Nil: your partner bid {_bid_word(partner)}, so you must bid "
                    "a number from 1 to 13")
    elif rule == MIRROR or rule == WHIZ:
        title = _TITLES[rule]
        if tricks == DOUBLE_NIL_BID:
            return f"there is no Double Nil in {title}"
        if tricks != spades and (rule == MIRROR or tricks != 0):
            held = f"you hold {spades} spade{'s' if spades != 1 else ''}" + _COUNTED.get(options.trumps, "")
            if rule == MIRROR:
                return f"in Mirror you bid the spades in your hand: {held}, so bid {_bid_word(spades)}"
            return f"in Whiz you bid Nil or the spades in your hand: {held}, so bid " + (
                "Nil" if spades == 0 else f"Nil or {spades}")
    return None


def minimum_refusal(options: SpadesOptions, tricks: int, partner: int) -> str | None:
    """Why ``min_team_bid`` refuses a bid of ``tricks`` by a seat whose partner bid ``partner``
    (it binds only the partnership's second bidder; Nil and Double Nil count 0); None when it
    does not."""
    minimum = options.min_team_bid
    if not minimum or partner == NO_BID:
        return None
    theirs = max(partner, 0)
    if theirs + max(tricks, 0) >= minimum:
        return None
    return (f"your partnership must bid at least {minimum} in all: your partner bid {_bid_word(partner)}, so bid at "
            f"least {minimum - theirs}")


def allowed_numbers(options: SpadesOptions, partner: int, spades: int, most: int = 13) -> list[int]:
    """The numbers (0: Nil) up to ``most`` a seat may bid, its partner having bid ``partner``
    (``NO_BID``: not yet, or no partner) and it holding ``spades`` spades.

    >>> allowed_numbers(SpadesOptions(bidding="whiz"), NO_BID, 4), allowed_numbers(SpadesOptions(min_team_bid=4), 1, 0)
    ([0, 4], [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13])
    """
    return [t for t in range(most + 1) if rule_refusal(options, t, partner, spades) is None
            and minimum_refusal(options, t, partner) is None]


def partner_bid(state: SpadesState, seat: Seat) -> int:
    """The bid of the seat's partner as the state keeps it (``NO_BID``: not yet, or no partner)."""
    return state.bids[seat ^ 2] if state.n == 4 else NO_BID


def bid_refusal(state: SpadesState, seat: Seat, tricks: int) -> tuple[StrEnum, str] | None:
    """Why the seat in turn may not bid ``tricks`` (0: Nil, ``DOUBLE_NIL_BID``: Double Nil) in
    four-player or Cutthroat Spades, as (reason, message); None when it may. Of several reasons the
    first of INVALID_BID, BID_NOT_ALLOWED, BLIND_NIL_NOT_BEHIND, BLIND_NIL_AFTER_LOOKING,
    BID_BELOW_MINIMUM."""
    options = state.options
    double = tricks == DOUBLE_NIL_BID
    if double:
        if not options.double_nil_allowed:
            return Reason.INVALID_BID, "Double Nil is switched off in this game"
        if state.bids[seat] == DOUBLE_NIL_BID:
            return Reason.INVALID_BID, f"seat {seat} has already declared Double Nil"
    elif not 0 <= tricks <= state.MOST_BID:
        return Reason.INVALID_BID, f"a bid is 0 (Nil) to {state.MOST_BID} tricks, not {tricks}"
    partner = partner_bid(state, seat)
    if options.bidding != STANDARD:
        refused = rule_refusal(options, tricks, partner, spades_in_hand(state, seat))
        if refused is not None:
            return SpadesReason.BID_NOT_ALLOWED, refused
    if double:
        if not behind_enough(state, seat):
            return SpadesReason.BLIND_NIL_NOT_BEHIND, not_behind_message(state, seat)
        if state.looked >> seat & 1:
            return SpadesReason.BLIND_NIL_AFTER_LOOKING, f"seat {seat} has seen its cards"
    refused = minimum_refusal(options, tricks, partner)
    if refused is not None:
        return SpadesReason.BID_BELOW_MINIMUM, refused
    return None


def _plain_bidding(options: SpadesOptions) -> bool:
    """Whether the bids are the rule sheet's: any number, Double Nil as the sheet has it."""
    return options.bidding == STANDARD and not options.min_team_bid and not options.blind_nil_when_behind


def bids_allowed(state: SpadesState, seat: Seat) -> list[Action]:
    """The bids (numbers, then Double Nil) the seat in turn may make (four-player and Cutthroat Spades)."""
    bids = state.BIDS
    if _plain_bidding(state.options):
        out = list(bids)
        if state.options.double_nil_allowed and not state.looked >> seat & 1:
            out.append(DOUBLE_NIL)
        return out
    out = [bids[t] for t in range(state.MOST_BID + 1) if bid_refusal(state, seat, t) is None]
    if bid_refusal(state, seat, DOUBLE_NIL_BID) is None:
        out.append(DOUBLE_NIL)
    return out


def exchange_size(options: SpadesOptions, mine: int, partners: int) -> int:
    """How many cards a partnership with these bids exchanges after the bidding: ``exchange_size``
    when exactly one partner bid Double Nil, else ``nil_exchange`` when exactly one bid Nil, else
    none (both bid Nil or Double Nil, or neither did).

    >>> options = SpadesOptions(nil_exchange=2)
    >>> [exchange_size(options, *bids) for bids in ((DOUBLE_NIL_BID, 4), (DOUBLE_NIL_BID, 0), (0, 4), (0, 0), (5, 4))]
    [3, 3, 2, 0, 0]
    """
    double = (mine == DOUBLE_NIL_BID) + (partners == DOUBLE_NIL_BID)
    if double == 1:
        return options.exchange_size
    if double == 0 and (mine == 0) != (partners == 0):
        return options.nil_exchange
    return 0

