"""The one module that converts between protobuf messages and engine values."""

from __future__ import annotations

from dataclasses import fields
from functools import lru_cache

import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import options_pb2, score_pb2, view_pb2
from engine.cards import CARD_NAMES
from engine.state import DOUBLE_NIL_BID, NO_TRUMP, Variant
from engine.views import View
from service.errors import InvalidArgument

VARIANTS = {enums.VARIANT_SPADES: Variant.SPADES, enums.VARIANT_SPADES_TWO_PLAYER: Variant.SPADES2,
            enums.VARIANT_BUCK_EUCHRE: Variant.BUCK_EUCHRE}
VARIANT_ENUM = {name: value for value, name in VARIANTS.items()}
BOTS = {enums.PLAYER_KIND_BOT_RANDOM: "random", enums.PLAYER_KIND_BOT_BASIC: "basic"}
KIND_OF_BOT = {name: value for value, name in BOTS.items()}
MAX_NAME_LENGTH = 64
MAX_CARD_TEXT = 4


BadRequest = InvalidArgument  # malformed input; the message says what is wrong


def variant(value: int) -> str:
    """The engine variant of a proto Variant; BadRequest when unspecified or unknown."""
    if value not in VARIANTS:
        raise BadRequest("variant must be SPADES, SPADES_TWO_PLAYER or BUCK_EUCHRE")
    return VARIANTS[value]


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


def options(variant_name: str, message: options_pb2.RuleOptions) -> engine.SpadesOptions | engine.BuckEuchreOptions:
    """Engine options from the request's RuleOptions (unset fields take the sheets' defaults)."""
    which = message.WhichOneof("variant")
    spades = variant_name != Variant.BUCK_EUCHRE
    if which is None:
        return engine.SpadesOptions() if spades else engine.BuckEuchreOptions()
    if (which == "spades") != spades:
        raise BadRequest(f"options.{which} do not apply to {variant_name}")
    sub = getattr(message, which)
    cls = engine.SpadesOptions if spades else engine.BuckEuchreOptions
    values = {f.name: getattr(sub, f.name) for f in fields(cls) if sub.HasField(f.name)}
    result = cls(**values)
    try:
        result.validate()
    except ValueError as exc:
        raise BadRequest(str(exc)) from None
    return result


@lru_cache(maxsize=256)
def options_message(opts) -> options_pb2.RuleOptions:
    """The effective options as a RuleOptions message (cached: options are immutable)."""
    values = vars(opts)
    if isinstance(opts, engine.SpadesOptions):
        return options_pb2.RuleOptions(spades=options_pb2.SpadesOptions(**values))
    return options_pb2.RuleOptions(buck_euchre=options_pb2.BuckEuchreOptions(**values))


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
        if not 0 <= request.tricks <= 99:
            raise BadRequest("tricks must be 0 (Nil) to 13")
        return engine.bid(request.tricks)
    if kind == pb.BID_KIND_NAME_SUIT:
        if request.suit == enums.SUIT_UNSPECIFIED or request.suit not in enums.Suit.values():
            raise BadRequest("suit must be CLUBS, DIAMONDS, HEARTS or SPADES to name a suit")
        return engine.name_suit(request.suit - 1)
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


@lru_cache(maxsize=4096)
def legal_action(action: int) -> view_pb2.LegalAction:
    """One legal action as a message (cached: copied into each view; exchanges are sent as one
    entry listing the eligible cards instead)."""
    kind, payload = action & 15, action >> 4
    message = view_pb2.LegalAction(kind=kind, notation=engine.action_name(action))
    if kind == engine.Kind.PLAY:
        message.card = CARD_NAMES[payload]
    elif kind == engine.Kind.BID:
        message.tricks = payload
    elif kind == engine.Kind.NAME_SUIT:
        message.suit = payload + 1
    return message


def view_message(v: View, game_id: str, version: int, names: list[str], kinds: list[int]) -> view_pb2.GameView:
    """A GameView message from an engine view."""
    m = view_pb2.GameView(
        game_id=game_id, variant=VARIANT_ENUM[v.variant], version=version, phase=int(v.phase),
        hand_number=v.hand_number, dealer=v.dealer, hand_visible=v.hand is not None,
        spades_broken=v.spades_broken, winner_seats=v.winner_seats,
        no_trump=v.no_trump, turn_up_turned_down=v.turn_up_turned_down, stock_count=v.stock_count,
        deck_commitment=v.deck_commitment,
    )
    if v.turn is not None:
        m.turn = v.turn
    if v.viewer is not None:
        m.viewer_seat = v.viewer
    for s in v.seats:
        seat = m.seats.add(seat=s.seat, name=names[s.seat], kind=kinds[s.seat], double_nil=s.double_nil,
                           tricks_won=s.tricks_won, card_count=s.card_count, has_looked=s.has_looked,
                           dropped_out=s.dropped_out, exchange_done=s.exchange_done, last_call=s.last_call)
        if s.bid is not None:
            seat.bid_tricks = s.bid
    if v.hand:
        m.hand.extend([CARD_NAMES[c] for c in v.hand])
    if v.trick_leader is not None:
        m.current_trick.leader = v.trick_leader
    for seat, c in v.trick:
        m.current_trick.plays.add(seat=seat, card=CARD_NAMES[c])
    if v.last_trick:
        m.last_trick.leader = v.last_trick[0][0]
        m.last_trick.winner = v.last_trick_winner
        for seat, c in v.last_trick:
            m.last_trick.plays.add(seat=seat, card=CARD_NAMES[c])
    for side in v.sides:
        m.scores.add(side=side.side, seats=side.seats, score=side.score, bags=side.bags)
    if len(v.winner_sides) == 1:
        m.winner_side = v.winner_sides[0]
    if v.trump is not None:
        m.trump = v.trump + 1
    if v.turn_up is not None:
        m.turn_up = CARD_NAMES[v.turn_up]
    if v.maker is not None:
        m.maker = v.maker
    if v.offered is not None:
        m.offered_card = CARD_NAMES[v.offered]
    m.seen_discards.extend([CARD_NAMES[c] for c in v.seen_discards])
    m.exchange_given.extend([CARD_NAMES[c] for c in v.exchange_given])
    m.exchange_received.extend([CARD_NAMES[c] for c in v.exchange_received])
    m.options.CopyFrom(options_message(v.options))
    m.legal_actions.extend([legal_action(a) for a in v.legal_actions])
    if v.exchange is not None:
        m.legal_actions.add(kind=engine.Kind.EXCHANGE, cards=[CARD_NAMES[c] for c in v.exchange.cards],
                            min_cards=v.exchange.fewest, max_cards=v.exchange.most, notation="exchange")
    return m


_NIL = {"none": score_pb2.NIL_RESULT_NONE, "made": score_pb2.NIL_RESULT_MADE, "failed": score_pb2.NIL_RESULT_FAILED}


def hand_score(record: dict) -> score_pb2.HandScore:
    """A HandScore message from an engine hand record."""
    m = score_pb2.HandScore(hand_number=record["hand"], dealer=record["dealer"], deck=record["deck"],
                            salt=record["salt"], commitment=record["commitment"])
    bids, tricks = record["bids"], record["tricks"]
    nil_by_seat = {}
    for side in record.get("sides", []):
        m.sides.add(side=side["side"], seats=side["seats"], contract=side["contract"], tricks=side["tricks"],
                    contract_points=side["contract_points"], bags_gained=side["bags_gained"],
                    nil_points=side["nil_points"], bag_penalty=-side["bag_penalty"],
                    hand_points=side["hand_points"], total_after=side["total_after"],
                    bags_after=side["bags_after"])
        for nil in side["nils"]:
            nil_by_seat[nil["seat"]] = nil
    euchre = {s["seat"]: s for s in record.get("seats", [])}
    for seat in range(len(bids)):
        s = m.seats.add(seat=seat, double_nil=bids[seat] == DOUBLE_NIL_BID, tricks_won=tricks[seat])
        if bids[seat] >= 0:
            s.bid_tricks = bids[seat]
        nil = nil_by_seat.get(seat)
        if nil is not None:
            s.nil_result = _NIL[nil["result"]]
            s.nil_points = nil["points"]
        e = euchre.get(seat)
        if e is not None:
            s.dropped_out = not e["active"]
            s.is_maker = e["is_maker"]
            s.penalty = e["penalty"]
            s.points = e["change"]
            m.sides.add(side=seat, seats=[seat], contract=e["requirement"], tricks=e["tricks"],
                        hand_points=e["change"], total_after=e["total_after"])
    if "turn_up" in record:
        trump = record["trump"]
        if 0 <= trump < 4:
            m.trump = trump + 1
        m.no_trump = trump == NO_TRUMP
        m.turn_up = record["turn_up"]
        if record["maker"] >= 0:
            m.maker = record["maker"]
        if record["swept_by"] >= 0:
            m.swept_by = record["swept_by"]
    return m


def score_message(state: engine.GameState) -> pb.GetScoreResponse:
    """The GetScore response for a game."""
    result = engine.score(state)
    m = pb.GetScoreResponse(hands=[hand_score(r) for r in result["hands"]])
    for side, seats in enumerate(result["sides"]):
        m.totals.add(side=side, seats=seats, score=result["totals"][side], bags=result["bags"][side])
    if len(result["winner_sides"]) == 1:
        m.winner_side = result["winner_sides"][0]
        m.winner_seats.extend(result["sides"][m.winner_side])
    return m


