"""The one module that converts between protobuf messages and engine values.

The functions here are generic: they build the common part of every message for any registered
game, naming its phase and actions in the game's own words (its vocabulary: the phase's name and
title, each legal action's word, shape and title), and look the game's wire adapter up by its
registry name (``service.wire.adapter_of``) for what only that game has, the values of the
``Phase`` and ``ActionKind`` enums kept for the games first built in among them. A game without an
adapter (one registered beyond those built in) gets the common part alone: its view without a
``rules`` message, its hand records without a breakdown of their own, its settings as text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, cast

import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import options_pb2, score_pb2, view_pb2
from engine import Shape
from engine.core.cards import CARD_NAMES
from engine.core.views import View
from service.rpc import wire
from service.rpc.wire import SUITS, VARIANT_ENUM
from service.rpc.wire import names as _names

SHAPES = {Shape.NONE: enums.ACTION_SHAPE_NONE, Shape.CARD: enums.ACTION_SHAPE_CARD,
          Shape.NUMBER: enums.ACTION_SHAPE_NUMBER, Shape.SUIT: enums.ACTION_SHAPE_SUIT,
          Shape.CARDS: enums.ACTION_SHAPE_CARDS}
BOTS = {enums.PLAYER_KIND_BOT_RANDOM: "random", enums.PLAYER_KIND_BOT_BASIC: "basic",
        enums.PLAYER_KIND_BOT_STRONG: "strong"}
KIND_OF_BOT = {name: value for value, name in BOTS.items()}
@lru_cache(maxsize=256)
def options_message(variant_name: str, opts: Any) -> options_pb2.RuleOptions:
    """The effective options as a RuleOptions message (cached: options are immutable): the game's
    typed case, if it has one, and every setting it takes by name, as text."""
    message = wire.adapter_of(variant_name).options_message(opts)
    for setting in engine.game_of(variant_name).settings:
        message.settings[setting.name] = setting.text(getattr(opts, setting.name))
    return message


@lru_cache(maxsize=4096)
def legal_action(variant: str, action: int) -> view_pb2.LegalAction:
    """One legal action of the game ``variant`` as a message (cached: copied into each view;
    the actions of a CARDS word are sent as one entry listing the eligible cards instead)."""
    words = engine.game_of(variant).vocabulary
    word = words.word_of(action)
    if word is None:
        raise ValueError(f"{variant} has no word for the action {action}")
    payload = engine.payload_of(action)
    message = view_pb2.LegalAction(kind=cast(enums.ActionKind, wire.adapter_of(variant).action_kinds.get(word.word, 0)),
                                   notation=words.name(action), word=word.word, shape=SHAPES[word.shape],
                                   title=word.title)
    if word.shape is Shape.CARD:
        message.card = CARD_NAMES[payload]
    elif word.shape is Shape.NUMBER:
        message.number = message.tricks = payload
        message.number_name = next((name for name, value in word.numbers.items() if value == payload), "")
    elif word.shape is Shape.SUIT:
        message.suit = SUITS[payload]
    return message


@lru_cache(maxsize=256)
def _phase(variant: str, code: int) -> tuple[int, str, str]:
    """The wire's Phase value, the name and the title of one of a game's phases."""
    phase = engine.game_of(variant).vocabulary.phase(code)
    return wire.adapter_of(variant).phases.get(phase.name, 0), phase.name, phase.title


@lru_cache(maxsize=256)
def _cards_entry(variant: str, code: int) -> dict[str, Any]:
    """The word fields of the one legal-action entry of a CARDS word."""
    word = engine.game_of(variant).vocabulary.by_code[code]
    return {"kind": wire.adapter_of(variant).action_kinds.get(word.word, 0), "notation": word.word,
            "word": word.word, "shape": enums.ACTION_SHAPE_CARDS, "title": word.title}


def view_message(v: View, game_id: str, version: int, players: Sequence[Mapping[str, Any]],
                 into: view_pb2.GameView | None = None) -> view_pb2.GameView:
    """A GameView message from an engine view, filled into ``into`` (an empty GameView, such as a
    response's ``view``, which spares a copy) or into a new message; ``players``: the SeatView
    fields the service knows of each seat's player, by field name (``name`` and ``kind`` at
    least), one mapping per seat."""
    adapter = wire.adapter_of(v.variant)
    m = view_pb2.GameView() if into is None else into
    phase, m.phase_name, m.phase_title = _phase(v.variant, v.phase)
    m.phase = cast(enums.Phase, phase)
    m.game_id, m.variant_name, m.version = game_id, v.variant, version
    m.variant = VARIANT_ENUM.get(v.variant, enums.VARIANT_UNSPECIFIED)
    m.variant_title = engine.game_of(v.variant).title
    m.hand_number, m.dealer, m.hand_visible = v.hand_number, v.dealer, v.hand is not None
    if v.deck_commitment:
        m.deck_commitment = v.deck_commitment
    if v.winner_seats:
        m.winner_seats.extend(v.winner_seats)
    if v.turn is not None:
        m.turn = v.turn
    if v.viewer is not None:
        m.viewer_seat = v.viewer
    seat_rules, add_seat = adapter.seat_rules, m.seats.add
    for s in v.seats:
        seat = add_seat(seat=s.seat, tricks_won=s.tricks_won, card_count=s.card_count, last_call=s.last_call,
                        **seat_rules(s.rules), **players[s.seat])
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
    if v.trick:
        add_play = m.current_trick.plays.add   # made in place: a message built apart is copied in
        for seat_no, c in v.trick:
            add_play(seat=seat_no, card=CARD_NAMES[c])
    if v.last_trick:
        last = m.last_trick
        last.leader = v.last_trick[0][0]
        if v.last_trick_winner is not None:
            last.winner = v.last_trick_winner
        add_play = last.plays.add
        for seat_no, c in v.last_trick:
            add_play(seat=seat_no, card=CARD_NAMES[c])
    add_side = m.scores.add
    for side in v.sides:
        add_side(side=side.side, seats=side.seats, score=side.score, bags=side.bags)
    if len(v.winner_sides) == 1:
        m.winner_side = v.winner_sides[0]
    if v.rules is not None:
        adapter.view_rules(m, v.rules)
    m.options.CopyFrom(options_message(v.variant, v.options))
    if v.legal_actions:
        variant = v.variant
        m.legal_actions.extend([legal_action(variant, a) for a in v.legal_actions])
    if v.exchange is not None:
        m.legal_actions.add(cards=_names(v.exchange.cards), min_cards=v.exchange.fewest, max_cards=v.exchange.most,
                            **_cards_entry(v.variant, v.exchange.kind))
    return m


def hand_score(record: engine.HandRecord, sides: list[list[int]], variant_name: str,
               viewer: int | None) -> score_pb2.HandScore:
    """A HandScore message from a hand record of the game ``variant_name`` (``sides``: the seats of
    each side): the common part, then the game's own breakdown (its wire adapter's), as ``viewer``
    (a seat, None for a spectator, ``wire.EVERY_SEAT`` for the owner) may know it."""
    m = score_pb2.HandScore(hand_number=record.hand, dealer=record.dealer, deck=record.deck,
                            salt=record.salt, commitment=record.commitment)
    for seat, won in enumerate(record.tricks):
        m.seats.add(seat=seat, tricks_won=won)
    for side, seats in enumerate(sides):
        m.sides.add(side=side, seats=seats, tricks=sum(record.tricks[s] for s in seats),
                    hand_points=record.points[side], total_after=record.totals[side])
        if len(seats) == 1:   # a seat that is a side of its own scores the side's points
            m.seats[seats[0]].points = record.points[side]
    wire.adapter_of(variant_name).hand_rules(m, record, viewer)
    return m


def score_message(state: engine.TableState, viewer: int | None = None) -> pb.GetScoreResponse:
    """The GetScore response for a game, as ``viewer`` (a seat; None: a spectator) may know it."""
    result = engine.score(state)
    m = pb.GetScoreResponse(hands=[hand_score(r, result.sides, state.variant, viewer) for r in result.hands])
    for side, seats in enumerate(result.sides):
        m.totals.add(side=side, seats=seats, score=result.totals[side], bags=result.bags[side])
    if len(result.winner_sides) == 1:
        m.winner_side = result.winner_sides[0]
        m.winner_seats.extend(result.sides[m.winner_side])
    return m
