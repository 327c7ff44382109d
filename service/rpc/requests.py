"""Requests into engine values: the game a request names, cards, options, prearranged decks,
and each move RPC's action (Act's notation, and the deprecated per-kind requests). Every bad
value is InvalidArgument with a message that says what is wrong; ``service.rpc.convert`` goes
the other way, engine values into messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import options_pb2
from engine.core.cards import FULL_DECK
from engine.core.errors import Reason
from engine.core.vocabulary import DUPLICATE_FLAG, VOCABULARIES, Vocabulary, card_set_of
from service.errors import IllegalMove, InvalidArgument
from service.rpc import wire
from service.rpc.wire import SUITS, VARIANTS

MAX_NAME_LENGTH = 64
MAX_CARD_TEXT = 4
MAX_ACTION_TEXT = 80
MAX_LISTED_CARDS = 13




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


def card(text: str, what: str = "card", jokers: bool = False) -> int:
    """The engine card named by ``text`` (``AS``, ``10H``; with ``jokers``, ``BJ`` and ``LJ`` too);
    InvalidArgument when malformed."""
    if not text:
        raise InvalidArgument(f"{what} is empty")
    if len(text) > MAX_CARD_TEXT:
        raise InvalidArgument(f"{what} is too long to be a card")
    try:
        return engine.parse_card(text, jokers=jokers)
    except ValueError as exc:
        raise InvalidArgument(str(exc)) from None


def options(game: engine.Game, message: options_pb2.RuleOptions) -> Any:
    """Engine options of ``game`` from the request's RuleOptions: its typed case (a game first built
    in has one) and its ``settings`` by name, the others at the sheets' defaults, checked;
    InvalidArgument names the setting and what it takes."""
    given: dict[str, str] = dict(message.settings)
    which = message.WhichOneof("variant")
    if which is not None:
        adapter = wire.adapter_of(game.name)
        if which != adapter.options_case:
            raise InvalidArgument(f"options.{which} do not apply to {game.name}")
        typed = getattr(message, which)
        declared = {s.name: s for s in game.settings}
        for field in typed.DESCRIPTOR.fields:
            if not typed.HasField(field.name):
                continue
            if field.name not in declared:   # a setting of another game of the same message (Spades' for four)
                raise InvalidArgument(f"option {field.name} does not apply to {game.name}")
            text = declared[field.name].text(getattr(typed, field.name))
            if given.setdefault(field.name, text) != text:
                raise InvalidArgument(f"option {field.name} is {text!r} in options.{which} but "
                                      f"{given[field.name]!r} in options.settings")
    try:
        return game.options_type.from_settings(game.name, given)
    except ValueError as exc:
        raise InvalidArgument(str(exc)) from None


def deck(message: pb.Deck, index: int) -> list[int]:
    """The cards of a prearranged deck, top first (InvalidArgument for a card name that is none; the
    jokers are names here); the engine checks it against the game and its options when it makes
    the game."""
    return [card(text, f"decks[{index}] card", jokers=True) for text in message.cards]


@dataclass(frozen=True)
class LegacyAction:
    """The action of a deprecated per-kind request (Deal, Draw, RevealHand, Bid, Exchange, Play):
    an ``ActionKind`` and its payload, which only the game at hand turns into one of its words
    (its wire adapter's ``action_kinds``). Called with the game's name once the game is loaded;
    IllegalMove (WRONG_PHASE) for a kind the game has no word for, as Act answers another game's word."""

    kind: int
    payload: int = 0
    request: str = ""

    def __call__(self, state: engine.TableState) -> int:
        variant = state.variant
        game = engine.game_of(variant)
        for word, kind in wire.adapter_of(variant).action_kinds.items():
            if kind == self.kind and word in game.vocabulary.by_word:
                action = engine.action_of(game.vocabulary.by_word[word].code, self.payload)
                return _at_this_table(game, state, action)
        raise IllegalMove(f"{self.request} is not possible in {game.name}: send Act with a legal action's notation",
                          Reason.WRONG_PHASE.value)


_SIMPLE_BIDS = {pb.BID_KIND_DOUBLE_NIL: enums.ACTION_KIND_DOUBLE_NIL, pb.BID_KIND_ORDER_UP: enums.ACTION_KIND_ORDER_UP,
                pb.BID_KIND_PASS: enums.ACTION_KIND_PASS, pb.BID_KIND_STAY_IN: enums.ACTION_KIND_STAY_IN,
                pb.BID_KIND_DROP_OUT: enums.ACTION_KIND_DROP_OUT}


def bid_action(request: pb.BidRequest) -> LegacyAction:
    """The action of a Bid request."""
    kind = request.kind
    if kind == pb.BID_KIND_TRICKS:  # any count: the rules refuse one outside their range (INVALID_BID)
        return LegacyAction(enums.ACTION_KIND_BID, request.tricks, "Bid with BID_KIND_TRICKS")
    if kind == pb.BID_KIND_NAME_SUIT:
        if request.suit not in SUITS:
            raise InvalidArgument("suit must be CLUBS, DIAMONDS, HEARTS or SPADES to name a suit")
        return LegacyAction(enums.ACTION_KIND_NAME_SUIT, SUITS.index(request.suit), "Bid with BID_KIND_NAME_SUIT")
    if kind not in _SIMPLE_BIDS:
        raise InvalidArgument("kind must be one of TRICKS, DOUBLE_NIL, ORDER_UP, PASS, NAME_SUIT, STAY_IN, DROP_OUT")
    return LegacyAction(_SIMPLE_BIDS[kind], 0, f"Bid with {pb.BidKind.Name(kind)}")


def draw_action(request: pb.DrawRequest) -> LegacyAction:
    """The action of a Draw request."""
    if request.choice == pb.DRAW_CHOICE_KEEP:
        return LegacyAction(enums.ACTION_KIND_DRAW_KEEP, 0, "Draw")
    if request.choice == pb.DRAW_CHOICE_DISCARD:
        return LegacyAction(enums.ACTION_KIND_DRAW_DISCARD, 0, "Draw")
    raise InvalidArgument("choice must be KEEP or DISCARD")


def exchange_action(request: pb.ExchangeRequest) -> LegacyAction:
    """The action of an Exchange request (a card listed twice makes it invalid)."""
    if len(request.cards) > MAX_LISTED_CARDS:
        raise InvalidArgument(f"at most {MAX_LISTED_CARDS} cards can be listed")
    cards = card_set_of([card(text, "cards[]", jokers=True) for text in request.cards])
    return LegacyAction(enums.ACTION_KIND_EXCHANGE, cards, "Exchange")


def play_action(request: pb.PlayRequest) -> LegacyAction:
    """The action of a Play request (a joker, ``BJ`` or ``LJ``, is a card at a table with jokers)."""
    return LegacyAction(enums.ACTION_KIND_PLAY, card(request.card, jokers=True), "Play")


REVEAL = LegacyAction(enums.ACTION_KIND_REVEAL, 0, "RevealHand")
"""The action of a RevealHand request."""


def act_text(text: str) -> str:
    """An Act request's notation, checked for what any game's notation must be; InvalidArgument if not."""
    if not text.strip():
        raise InvalidArgument("action is empty: send a legal action's notation, e.g. 'play AS'")
    if len(text) > MAX_ACTION_TEXT:
        raise InvalidArgument(f"action is longer than {MAX_ACTION_TEXT} characters")
    return text


def _parses(words: Vocabulary, text: str) -> bool:
    """Whether ``text`` is notation in ``words``."""
    try:
        words.parse(text)
    except ValueError:
        return False
    return True


def act_action(text: str, state: engine.TableState) -> int:
    """The action of an Act request's notation (as a LegalAction lists it) in the words of the
    game ``state`` is a game of; InvalidArgument if it is none of them, or if it names a card that
    exists only at other tables of the game (a joker where the table plays none).

    A card listed twice, or a number the rules do not allow (a bid of -1 tricks), gives an action
    the rules refuse with their reason, not malformed notation; so does another game's word
    (IllegalMove, WRONG_PHASE: it is no move of this game), and a standard card that left this
    table's deck (CARD_NOT_IN_HAND).
    """
    act_text(text)
    variant = state.variant
    game = engine.game_of(variant)
    words = game.vocabulary
    head, _, rest = text.strip().partition(" ")
    word = words.by_word.get(head.lower())
    if word is not None and word.shape is engine.Shape.CARDS and len(rest.replace(",", " ").split()) > MAX_LISTED_CARDS:
        raise InvalidArgument(f"at most {MAX_LISTED_CARDS} cards can be listed")
    try:
        action = words.parse(text)
    except ValueError as exc:
        if word is None and any(_parses(other, text) for other in VOCABULARIES.values()):
            # another game's well-formed notation: no move of this game (as the rules refuse it)
            raise IllegalMove(f"{head.lower()} is not possible in {variant}", Reason.WRONG_PHASE.value) from None
        raise InvalidArgument(f"{exc}; send a legal action's notation, e.g. 'play AS'") from None
    return _at_this_table(game, state, action)


def _at_this_table(game: engine.Game, state: engine.TableState, action: int) -> int:
    """The action, unless it names a card that exists only at other tables of the game (a joker
    where the table plays none: InvalidArgument). A standard card that left this table's deck is
    the rules' to refuse (CARD_NOT_IN_HAND)."""
    foreign = _cards_named(game.vocabulary, action) & ~game.deck_for(state.options) & ~FULL_DECK
    if foreign:
        raise InvalidArgument(f"{engine.cards_text(foreign)} is no card at this table; send a legal action's "
                              "notation, e.g. 'play AS'")
    return action


def _cards_named(words: Vocabulary, action: int) -> int:
    """The cards an action names, as a set (none for an action that names no card)."""
    word = words.word_of(action)
    if word is None:
        return 0
    payload = engine.payload_of(action)
    if word.shape is engine.Shape.CARD:
        return 1 << payload
    return payload & ~DUPLICATE_FLAG if word.shape is engine.Shape.CARDS else 0   # the cards, not the flag
