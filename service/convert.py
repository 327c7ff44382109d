"""The one module that converts between protobuf messages and engine values.

Every mapping between an engine enum and a proto enum is an explicit table here (pinned by
tests). A game registered beyond the three built in gets the common part of every message:
its view without a ``rules`` message, its hand records without a breakdown of their own, and
its default options.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from functools import lru_cache
from typing import Any

import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import options_pb2, score_pb2, view_pb2
from engine import Kind, Phase
from engine.core.cards import CARD_NAMES
from engine.core.views import View
from engine.games.buck_euchre import NO_TRUMP, BuckEuchreHandRecord, BuckEuchreRules, BuckEuchreSeat
from engine.games.spades import SpadesHandRecord, SpadesRules, SpadesSeat
from engine.games.spades2 import Spades2Rules
from engine.games.spades_scoring import DOUBLE_NIL_BID, NilScore
from service.errors import InvalidArgument

VARIANTS: dict[enums.Variant, str] = {enums.VARIANT_SPADES: "spades", enums.VARIANT_SPADES_TWO_PLAYER: "spades2",
            enums.VARIANT_BUCK_EUCHRE: "buck_euchre"}
VARIANT_ENUM = {name: value for value, name in VARIANTS.items()}
PHASES = {Phase.DEAL: enums.PHASE_DEAL, Phase.DRAW: enums.PHASE_DRAW, Phase.BID: enums.PHASE_BID,
          Phase.EXCHANGE: enums.PHASE_EXCHANGE, Phase.ORDER_UP: enums.PHASE_ORDER_UP,
          Phase.DEALER_DISCARD: enums.PHASE_DEALER_DISCARD, Phase.NAME_TRUMP: enums.PHASE_NAME_TRUMP,
          Phase.DROP_OUT: enums.PHASE_DROP_OUT, Phase.PLAY: enums.PHASE_PLAY, Phase.GAME_OVER: enums.PHASE_GAME_OVER}
ACTION_KINDS = {Kind.DEAL: enums.ACTION_KIND_DEAL, Kind.REVEAL: enums.ACTION_KIND_REVEAL,
                Kind.DRAW_KEEP: enums.ACTION_KIND_DRAW_KEEP, Kind.DRAW_DISCARD: enums.ACTION_KIND_DRAW_DISCARD,
                Kind.BID: enums.ACTION_KIND_BID, Kind.DOUBLE_NIL: enums.ACTION_KIND_DOUBLE_NIL,
                Kind.EXCHANGE: enums.ACTION_KIND_EXCHANGE, Kind.ORDER_UP: enums.ACTION_KIND_ORDER_UP,
                Kind.PASS: enums.ACTION_KIND_PASS, Kind.NAME_SUIT: enums.ACTION_KIND_NAME_SUIT,
                Kind.STAY_IN: enums.ACTION_KIND_STAY_IN, Kind.DROP_OUT: enums.ACTION_KIND_DROP_OUT,
                Kind.PLAY: enums.ACTION_KIND_PLAY}
SUITS = (enums.SUIT_CLUBS, enums.SUIT_DIAMONDS, enums.SUIT_HEARTS, enums.SUIT_SPADES)
OPTION_FIELDS = {"spades": ("spades", options_pb2.SpadesOptions), "spades2": ("spades", options_pb2.SpadesOptions),
                 "buck_euchre": ("buck_euchre", options_pb2.BuckEuchreOptions)}
BOTS = {enums.PLAYER_KIND_BOT_RANDOM: "random", enums.PLAYER_KIND_BOT_BASIC: "basic",
        enums.PLAYER_KIND_BOT_STRONG: "strong"}
KIND_OF_BOT = {name: value for value, name in BOTS.items()}
MAX_NAME_LENGTH = 64
MAX_CARD_TEXT = 4
MAX_ACTION_TEXT = 80

BadRequest = InvalidArgument  # malformed input; the message says what is wrong


def variant(value: enums.Variant, name: str = "") -> str:
    """The engine game of a request's ``variant`` and ``variant_name``; BadRequest when unknown."""
    if value:
        if value not in VARIANTS:
            raise BadRequest("variant must be SPADES, SPADES_TWO_PLAYER or BUCK_EUCHRE")
        if name and name != VARIANTS[value]:
            raise BadRequest(f"variant_name {name!r} does not agree with variant {VARIANTS[value]!r}")
        return VARIANTS[value]
    if not name:
        raise BadRequest("set variant (or variant_name, for a game registered on this server)")
    if name not in engine.GAMES:
        raise BadRequest(f"unknown variant_name {name[:MAX_ACTION_TEXT]!r} (one of {', '.join(sorted(engine.GAMES))})")
    return name


def card(text: str, what: str = "card") -> int:
    """The engine card named by ``text`` (``AS``, ``10H``); BadRequest when malformed."""
    if not text:
        raise BadRequest(f"{what} is empty")
    if len(text) > MAX_CARD_TEXT:
        raise BadRequest(f"{what} is too long to be a card")
    try:
        return engine.parse_card(text)
    except ValueError as exc:
        raise BadRequest(str(exc)) from None


def options(variant_name: str, message: options_pb2.RuleOptions) -> Any:
    """Engine options from the request's RuleOptions (unset fields take the sheets' defaults)."""
    game = engine.game_of(variant_name)
    which = message.WhichOneof("variant")
    if which is None:
        return game.options_type()
    expected = OPTION_FIELDS.get(variant_name, (None, None))[0]
    if which != expected:
        raise BadRequest(f"options.{which} do not apply to {variant_name}")
    sub = getattr(message, which)
    cls = game.options_type
    values = {f.name: getattr(sub, f.name) for f in fields(cls) if sub.HasField(f.name)}
    result = cls(**values)
    try:
        result.validate()
    except ValueError as exc:
        raise BadRequest(str(exc)) from None
    return result


@lru_cache(maxsize=256)
def options_message(variant_name: str, opts: Any) -> options_pb2.RuleOptions:
    """The effective options as a RuleOptions message (cached: options are immutable)."""
    if variant_name not in OPTION_FIELDS:
        return options_pb2.RuleOptions()
    name, cls = OPTION_FIELDS[variant_name]
    return options_pb2.RuleOptions(**{name: cls(**vars(opts))})


def deck(message: pb.Deck, variant_name: str, index: int) -> list[int]:
    """A prearranged deck from its message, checked against the variant; BadRequest if wrong."""
    cards = [card(text, f"decks[{index}] card") for text in message.cards]
    try:
        engine.check_deck(variant_name, cards, index)
    except ValueError as exc:
        raise BadRequest(str(exc)) from None
    return cards


def bid_action(request: pb.BidRequest) -> int:
    """The engine action of a Bid request."""
    kind = request.kind
    if kind == pb.BID_KIND_TRICKS:
        return engine.bid(request.tricks)  # any count: the rules refuse one outside 0..13 (INVALID_BID)
    if kind == pb.BID_KIND_NAME_SUIT:
        if request.suit not in SUITS:
            raise BadRequest("suit must be CLUBS, DIAMONDS, HEARTS or SPADES to name a suit")
        return engine.name_suit(SUITS.index(request.suit))
    simple = {pb.BID_KIND_DOUBLE_NIL: engine.DOUBLE_NIL, pb.BID_KIND_ORDER_UP: engine.ORDER_UP,
              pb.BID_KIND_PASS: engine.PASS, pb.BID_KIND_STAY_IN: engine.STAY_IN,
              pb.BID_KIND_DROP_OUT: engine.DROP_OUT}
    if kind not in simple:
        raise BadRequest("kind must be one of TRICKS, DOUBLE_NIL, ORDER_UP, PASS, NAME_SUIT, STAY_IN, DROP_OUT")
    return simple[kind]


def draw_action(request: pb.DrawRequest) -> int:
    """The engine action of a Draw request."""
    if request.choice == pb.DRAW_CHOICE_KEEP:
        return engine.DRAW_KEEP
    if request.choice == pb.DRAW_CHOICE_DISCARD:
        return engine.DRAW_DISCARD
    raise BadRequest("choice must be KEEP or DISCARD")


def exchange_action(request: pb.ExchangeRequest) -> int:
    """The engine action of an Exchange request (a card listed twice makes it invalid)."""
    if len(request.cards) > 13:
        raise BadRequest("at most 13 cards can be listed")
    return engine.exchange_of([card(text, "cards[]") for text in request.cards])


def act_action(text: str) -> int:
    """The engine action of an Act request's notation (as a LegalAction lists it); BadRequest if none."""
    if not text:
        raise BadRequest("action is empty: send a legal action's notation, e.g. 'play AS'")
    if len(text) > MAX_ACTION_TEXT:
        raise BadRequest(f"action is longer than {MAX_ACTION_TEXT} characters")
    word, _, rest = text.strip().partition(" ")
    if word.lower() == "exchange":
        names = rest.replace(",", " ").split()
        if len(names) > 13:
            raise BadRequest("at most 13 cards can be listed")
        return engine.exchange_of([card(name, "exchange card") for name in names])
    try:
        return engine.parse_action(text)
    except ValueError as exc:
        raise BadRequest(f"{exc}; send a legal action's notation, e.g. 'play AS', 'bid 4', 'pass'") from None


@lru_cache(maxsize=4096)
def legal_action(action: int) -> view_pb2.LegalAction:
    """One legal action as a message (cached: copied into each view; exchanges are sent as one
    entry listing the eligible cards instead)."""
    kind, payload = action & 15, action >> 4
    message = view_pb2.LegalAction(kind=ACTION_KINDS[Kind(kind)], notation=engine.action_name(action))
    if kind == Kind.PLAY:
        message.card = CARD_NAMES[payload]
    elif kind == Kind.BID:
        message.tricks = payload
    elif kind == Kind.NAME_SUIT:
        message.suit = SUITS[payload]
    return message


def _names(cards: list[int]) -> list[str]:
    return [CARD_NAMES[c] for c in cards]


def _spades_rules(m: view_pb2.GameView, r: SpadesRules) -> None:
    m.spades.SetInParent()
    m.spades.spades_broken = r.spades_broken
    m.spades.exchange_given.extend(_names(r.exchange_given))
    m.spades.exchange_received.extend(_names(r.exchange_received))


def _spades2_rules(m: view_pb2.GameView, r: Spades2Rules) -> None:
    sub = m.spades_two_player
    sub.SetInParent()
    sub.spades_broken = r.spades_broken
    if r.offered is not None:
        sub.offered_card = CARD_NAMES[r.offered]
    sub.seen_discards.extend(_names(r.seen_discards))
    sub.stock_count = r.stock_count
    sub.exchange_given.extend(_names(r.exchange_given))
    sub.exchange_received.extend(_names(r.exchange_received))


def _buck_euchre_rules(m: view_pb2.GameView, r: BuckEuchreRules) -> None:
    sub = m.buck_euchre
    sub.SetInParent()
    if r.trump is not None:
        sub.trump = SUITS[r.trump]
    sub.no_trump = r.no_trump
    if r.turn_up is not None:
        sub.turn_up = CARD_NAMES[r.turn_up]
    sub.turn_up_turned_down = r.turn_up_turned_down
    if r.maker is not None:
        sub.maker = r.maker
    if r.dealer_discard is not None:   # the engine shows it to the dealer alone, once it discarded
        sub.dealer_discard = CARD_NAMES[r.dealer_discard]


VIEW_RULES: dict[type, Callable[[view_pb2.GameView, Any], None]] = {
    SpadesRules: _spades_rules, Spades2Rules: _spades2_rules, BuckEuchreRules: _buck_euchre_rules}
"""How each game's own view facts fill the GameView ``rules`` oneof, by their engine type."""


@lru_cache(maxsize=64)
def _spades_seat(facts: SpadesSeat) -> view_pb2.SpadesSeatView:
    return view_pb2.SpadesSeatView(double_nil=facts.double_nil, has_looked=facts.has_looked,
                                   exchange_done=facts.exchange_done)


@lru_cache(maxsize=8)
def _buck_euchre_seat(facts: BuckEuchreSeat) -> view_pb2.BuckEuchreSeatView:
    return view_pb2.BuckEuchreSeatView(dropped_out=facts.dropped_out)


def _seat_rules(r: Any) -> dict[str, Any]:
    """The SeatView ``rules`` case for a game's per-seat facts (cached messages: few combinations)."""
    if type(r) is SpadesSeat:
        return {"spades": _spades_seat(r)}
    if type(r) is BuckEuchreSeat:
        return {"buck_euchre": _buck_euchre_seat(r)}
    return {}


def view_message(v: View, game_id: str, version: int, names: list[str], kinds: list[int]) -> view_pb2.GameView:
    """A GameView message from an engine view."""
    m = view_pb2.GameView(
        game_id=game_id, variant=VARIANT_ENUM.get(v.variant, enums.VARIANT_UNSPECIFIED), variant_name=v.variant,
        version=version, phase=PHASES[v.phase], hand_number=v.hand_number, dealer=v.dealer,
        hand_visible=v.hand is not None, winner_seats=v.winner_seats, deck_commitment=v.deck_commitment,
    )
    if v.turn is not None:
        m.turn = v.turn
    if v.viewer is not None:
        m.viewer_seat = v.viewer
    for s in v.seats:
        seat = m.seats.add(seat=s.seat, name=names[s.seat], kind=kinds[s.seat], tricks_won=s.tricks_won,
                           card_count=s.card_count, last_call=s.last_call, **_seat_rules(s.rules))
        if s.bid is not None:
            seat.bid_tricks = s.bid
        if s.played:
            seat.played_cards.extend(_names(s.played))
        if s.void_suits:
            seat.void_suits.extend([SUITS[suit] for suit in s.void_suits])
    if v.hand:
        m.hand.extend(_names(v.hand))
    if v.trick_leader is not None:
        m.current_trick.leader = v.trick_leader
    for seat_no, c in v.trick:
        m.current_trick.plays.add(seat=seat_no, card=CARD_NAMES[c])
    if v.last_trick:
        m.last_trick.leader = v.last_trick[0][0]
        if v.last_trick_winner is not None:
            m.last_trick.winner = v.last_trick_winner
        for seat_no, c in v.last_trick:
            m.last_trick.plays.add(seat=seat_no, card=CARD_NAMES[c])
    for side in v.sides:
        m.scores.add(side=side.side, seats=side.seats, score=side.score, bags=side.bags)
    if len(v.winner_sides) == 1:
        m.winner_side = v.winner_sides[0]
    rules = VIEW_RULES.get(type(v.rules))
    if rules is not None:
        rules(m, v.rules)
    m.options.CopyFrom(options_message(v.variant, v.options))
    m.legal_actions.extend([legal_action(a) for a in v.legal_actions])
    if v.exchange is not None:
        m.legal_actions.add(kind=enums.ACTION_KIND_EXCHANGE, cards=_names(v.exchange.cards),
                            min_cards=v.exchange.fewest, max_cards=v.exchange.most, notation="exchange")
    return m


_NIL = {"none": score_pb2.NIL_RESULT_NONE, "made": score_pb2.NIL_RESULT_MADE, "failed": score_pb2.NIL_RESULT_FAILED}


def _spades_hand(m: score_pb2.HandScore, record: SpadesHandRecord) -> None:
    nil_by_seat: dict[int, NilScore] = {}
    for side in record.sides:
        m.sides.add(side=side.side, seats=side.seats or [], contract=side.contract, tricks=side.tricks,
                    contract_points=side.contract_points, bags_gained=side.bags_gained,
                    nil_points=side.nil_points, bag_penalty=-side.bag_penalty,
                    hand_points=side.hand_points, total_after=side.total_after, bags_after=side.bags_after)
        for nil in side.nils:
            nil_by_seat[nil.seat] = nil
    for seat, s in enumerate(m.seats):
        bid = record.bids[seat]
        s.double_nil = bid == DOUBLE_NIL_BID
        if bid >= 0:
            s.bid_tricks = bid
        found = nil_by_seat.get(seat)
        if found is not None:
            s.nil_result = _NIL[found.result]
            s.nil_points = found.points


def _buck_euchre_hand(m: score_pb2.HandScore, record: BuckEuchreHandRecord) -> None:
    for e in record.seats:
        s = m.seats[e.seat]
        s.dropped_out, s.is_maker, s.penalty, s.points = not e.active, e.is_maker, e.penalty, e.change
        m.sides.add(side=e.seat, seats=[e.seat], contract=e.requirement, tricks=e.tricks,
                    hand_points=e.change, total_after=e.total_after)
    if 0 <= record.trump < 4:
        m.trump = SUITS[record.trump]
    m.no_trump = record.trump == NO_TRUMP
    m.turn_up = record.turn_up
    if record.maker >= 0:
        m.maker = record.maker
    if record.swept_by >= 0:
        m.swept_by = record.swept_by


HAND_DETAILS: dict[type, Callable[[score_pb2.HandScore, Any], None]] = {
    SpadesHandRecord: _spades_hand, BuckEuchreHandRecord: _buck_euchre_hand}
"""How each game's own hand record fills in a HandScore, by its engine type."""


def hand_score(record: engine.HandRecord, sides: list[list[int]]) -> score_pb2.HandScore:
    """A HandScore message from an engine hand record (``sides``: the seats of each side)."""
    m = score_pb2.HandScore(hand_number=record.hand, dealer=record.dealer, deck=record.deck,
                            salt=record.salt, commitment=record.commitment)
    for seat, won in enumerate(record.tricks):
        m.seats.add(seat=seat, tricks_won=won)
    details = HAND_DETAILS.get(type(record))
    if details is not None:
        details(m, record)
    else:
        for side, seats in enumerate(sides):
            m.sides.add(side=side, seats=seats, tricks=sum(record.tricks[s] for s in seats),
                        hand_points=record.points[side], total_after=record.totals[side])
    return m


def score_message(state: engine.TableState) -> pb.GetScoreResponse:
    """The GetScore response for a game."""
    result = engine.score(state)
    m = pb.GetScoreResponse(hands=[hand_score(r, result.sides) for r in result.hands])
    for side, seats in enumerate(result.sides):
        m.totals.add(side=side, seats=seats, score=result.totals[side], bags=result.bags[side])
    if len(result.winner_sides) == 1:
        m.winner_side = result.winner_sides[0]
        m.winner_seats.extend(result.sides[m.winner_side])
    return m
