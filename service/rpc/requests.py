"""Requests into engine values: the game a request names, cards, options, prearranged decks,
and each move RPC's action (Act's notation, and the deprecated per-kind requests). Every bad
value is InvalidArgument with a message that says what is wrong; ``service.rpc.convert`` goes
the other way, engine values into messages.
"""

from __future__ import annotations

import re
from typing import Any

import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import options_pb2
from service.errors import InvalidArgument
from service.rpc import wire
from service.rpc.wire import SUITS, VARIANTS

MAX_NAME_LENGTH = 64
MAX_CARD_TEXT = 4
MAX_ACTION_TEXT = 80




def game(value: enums.Variant, name: str = "") -> engine.Game:
    """The game a request's ``variant`` and ``variant_name`` name (a game's registry name, title or
    alias, as ``engine.find_game`` reads them), resolved once at the edge; InvalidArgument when
    unknown or when the two disagree."""
    if value:
        if value not in VARIANTS:
            known = [enums.Variant.Name(v).removeprefix("VARIANT_") for v in sorted(VARIANTS)]
            raise InvalidArgument(f"variant must be {', '.join(known[:-1])} or {known[-1]}")
        found = engine.game_of(VARIANTS[value])
        if name and engine.find_game(name) is not found:
            raise InvalidArgument(f"variant_name {name[:MAX_ACTION_TEXT]!r} does not agree with variant "
                                  f"{found.name!r}")
        return found
    if not name:
        raise InvalidArgument("set variant (or variant_name, for a game registered on this server)")
    named = engine.find_game(name)
    if named is None:
        raise InvalidArgument(f"unknown variant_name {name[:MAX_ACTION_TEXT]!r} "
                              f"(one of {', '.join(sorted(engine.GAMES))})")
    return named


def card(text: str, what: str = "card") -> int:
    """The engine card named by ``text`` (``AS``, ``10H``); InvalidArgument when malformed."""
    if not text:
        raise InvalidArgument(f"{what} is empty")
    if len(text) > MAX_CARD_TEXT:
        raise InvalidArgument(f"{what} is too long to be a card")
    try:
        return engine.parse_card(text)
    except ValueError as exc:
        raise InvalidArgument(str(exc)) from None


def options(game: engine.Game, message: options_pb2.RuleOptions) -> Any:
    """Engine options of ``game`` from the request's RuleOptions (unset fields take the sheets'
    defaults), checked; InvalidArgument names what is out of range."""
    which = message.WhichOneof("variant")
    if which is None:
        return game.options_type()
    adapter = wire.adapter_of(game.name)
    if which != adapter.options_case:
        raise InvalidArgument(f"options.{which} do not apply to {game.name}")
    result = adapter.read_options(getattr(message, which), game.options_type)
    try:
        result.validate()
    except ValueError as exc:
        raise InvalidArgument(str(exc)) from None
    return result


def deck(message: pb.Deck, index: int) -> list[int]:
    """The cards of a prearranged deck, top first (InvalidArgument for a card name that is none);
    the engine checks it against the game when it makes the game."""
    return [card(text, f"decks[{index}] card") for text in message.cards]


def bid_action(request: pb.BidRequest) -> int:
    """The engine action of a Bid request."""
    kind = request.kind
    if kind == pb.BID_KIND_TRICKS:
        return engine.bid(request.tricks)  # any count: the rules refuse one outside 0..13 (INVALID_BID)
    if kind == pb.BID_KIND_NAME_SUIT:
        if request.suit not in SUITS:
            raise InvalidArgument("suit must be CLUBS, DIAMONDS, HEARTS or SPADES to name a suit")
        return engine.name_suit(SUITS.index(request.suit))
    simple = {pb.BID_KIND_DOUBLE_NIL: engine.DOUBLE_NIL, pb.BID_KIND_ORDER_UP: engine.ORDER_UP,
              pb.BID_KIND_PASS: engine.PASS, pb.BID_KIND_STAY_IN: engine.STAY_IN,
              pb.BID_KIND_DROP_OUT: engine.DROP_OUT}
    if kind not in simple:
        raise InvalidArgument("kind must be one of TRICKS, DOUBLE_NIL, ORDER_UP, PASS, NAME_SUIT, STAY_IN, DROP_OUT")
    return simple[kind]


def draw_action(request: pb.DrawRequest) -> int:
    """The engine action of a Draw request."""
    if request.choice == pb.DRAW_CHOICE_KEEP:
        return engine.DRAW_KEEP
    if request.choice == pb.DRAW_CHOICE_DISCARD:
        return engine.DRAW_DISCARD
    raise InvalidArgument("choice must be KEEP or DISCARD")


def exchange_action(request: pb.ExchangeRequest) -> int:
    """The engine action of an Exchange request (a card listed twice makes it invalid)."""
    if len(request.cards) > 13:
        raise InvalidArgument("at most 13 cards can be listed")
    return engine.exchange_of([card(text, "cards[]") for text in request.cards])


_NEGATIVE_BID = re.compile(r"bid\s+(-[1-9][0-9]*)")


def act_action(text: str) -> int:
    """The engine action of an Act request's notation (as a LegalAction lists it); InvalidArgument if none.

    A bid of a negative number of tricks ("bid -1") is a bid the rules refuse (INVALID_BID), as
    the Bid RPC's, not malformed notation.
    """
    if not text:
        raise InvalidArgument("action is empty: send a legal action's notation, e.g. 'play AS'")
    if len(text) > MAX_ACTION_TEXT:
        raise InvalidArgument(f"action is longer than {MAX_ACTION_TEXT} characters")
    word, _, rest = text.strip().partition(" ")
    if word.lower() == "exchange":
        names = rest.replace(",", " ").split()
        if len(names) > 13:
            raise InvalidArgument("at most 13 cards can be listed")
        return engine.exchange_of([card(name, "exchange card") for name in names])
    negative = _NEGATIVE_BID.fullmatch(text.strip().lower())
    if negative is not None:
        return engine.bid(int(negative.group(1)))
    try:
        return engine.parse_action(text)
    except ValueError as exc:
        raise InvalidArgument(f"{exc}; send a legal action's notation, e.g. 'play AS', 'bid 4', 'pass'") from None
