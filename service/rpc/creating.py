"""A CreateGame request, checked into the table's :class:`~service.table.creating.NewGame`, and a
created game as the answer's message (CreateGame and Rematch)."""

from __future__ import annotations

import random
from typing import Any

import bots
import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from service.errors import InvalidArgument, PermissionDenied
from service.rpc import convert, lifecycle_messages, requests
from service.rpc.access import Access
from service.rpc.settings import Settings
from service.table import lifecycle
from service.table.creating import Created, NewGame
from service.table.record import Seat

MAX_DECKS = 200


def new_game(request: pb.CreateGameRequest, owner: str, settings: Settings) -> NewGame:
    """The game a CreateGame request asks for, every part checked (InvalidArgument, or
    PermissionDenied for what this server does not allow); the game is resolved once, here."""
    game = requests.game(request.variant, request.variant_name)
    options = requests.options(game, request.options)
    count = game.seats_for(options)
    if len(request.seats) != count:
        raise InvalidArgument(seat_count_message(game, options, len(request.seats)))
    seats = [seat(i, cfg, game.name) for i, cfg in enumerate(request.seats)]
    if all(s.bot for s in seats):
        raise InvalidArgument("at least one seat must be human")
    if request.HasField("first_dealer") and not 0 <= request.first_dealer < count:
        raise InvalidArgument(f"first_dealer must be a seat from 0 to {count - 1}")
    if request.decks and not settings.allow_prearranged_decks:
        raise PermissionDenied("this server does not accept prearranged decks")
    if len(request.decks) > MAX_DECKS:
        raise InvalidArgument(f"at most {MAX_DECKS} prearranged decks")
    seed = None
    if request.HasField("shuffle_seed"):
        if not settings.allow_seeded_shuffle:
            raise PermissionDenied("this server does not accept shuffle seeds")
        seed = request.shuffle_seed
    if request.spectators not in pb.SpectatorPolicy.values():
        raise InvalidArgument("spectators is not a known SpectatorPolicy")
    rng = random.Random(f"{seed}:0") if seed is not None else None
    first = request.first_dealer if request.HasField("first_dealer") else None
    try:   # the engine checks the options' values and every deck against the game, once
        state = engine.new_game(game.name, options, rng, first,
                                [requests.deck(d, i) for i, d in enumerate(request.decks)])
    except ValueError as exc:
        raise InvalidArgument(str(exc)) from None
    return NewGame(owner, state, seats, seed, lifecycle.check_labels(dict(request.labels)),
                   lifecycle_messages.lifecycle_of(request.lifecycle, settings.min_turn_timeout_ms),
                   request.spectators or pb.SPECTATOR_POLICY_ANYONE)


def seat_count_message(game: engine.Game, options: Any, given: int) -> str:
    """Why ``given`` seats do not fit a game of ``game`` with ``options``: how many it needs, and
    for a game of several seat counts, the setting that chooses them.

    >>> hearts = engine.game_of("hearts")
    >>> seat_count_message(hearts, hearts.options_type(players=3), 4)
    'hearts with players=3 needs exactly 3 seats, not 4 (it takes 3 or 4 seats: set players to match)'
    >>> seat_count_message(engine.game_of("spades"), engine.SpadesOptions(), 3)
    'spades needs exactly 4 seats, not 3'
    """
    count = game.seats_for(options)
    if not game.seat_setting:
        return f"{game.name} needs exactly {count} seats, not {given}"
    *fewer, most = game.seat_counts
    takes = f"{', '.join(map(str, fewer))} or {most}" if fewer else str(most)
    return (f"{game.name} with {game.seat_setting}={count} needs exactly {count} seats, not {given} "
            f"(it takes {takes} seats: set {game.seat_setting} to match)")


def seat(i: int, cfg: pb.SeatConfig, variant: str) -> Seat:
    """Seat ``i`` of a CreateGame request, checked."""
    if len(cfg.name) > requests.MAX_NAME_LENGTH:
        raise InvalidArgument(f"seats[{i}].name is longer than {requests.MAX_NAME_LENGTH} characters")
    if cfg.kind not in enums.PlayerKind.values() or cfg.fallback not in enums.PlayerKind.values():
        raise InvalidArgument(f"seats[{i}] names a player kind that does not exist")
    kind = cfg.kind or enums.PLAYER_KIND_HUMAN
    bot = convert.BOTS.get(kind)
    if cfg.fallback:
        fallback = convert.BOTS.get(cfg.fallback)
        if fallback is None:
            raise InvalidArgument(f"seats[{i}].fallback must be a bot kind")
    else:  # the basic bot where it plays the game, else the random one, which plays every game
        fallback = "basic" if bots.BOTS["basic"].plays(variant) else "random"
    for what, name in (("kind", bot), ("fallback", fallback)):
        if name is not None:
            try:
                bots.bot_of(name, variant)
            except ValueError as exc:
                raise InvalidArgument(f"seats[{i}].{what}: {exc}") from None
    external = lifecycle.check_external_id(cfg.external_player_id, f"seats[{i}].external_player_id")
    return Seat(cfg.name or f"Seat {i}", kind, bot, "", external, fallback)


def response(created: Created, access: Access) -> pb.CreateGameResponse:
    """The CreateGame answer of a created game: its id, the spectator view, the tokens."""
    record = created.record
    message = pb.CreateGameResponse(game_id=record.game_id, view=access.view(record, None, created.version),
                                    spectator_token=created.spectator_token)
    message.seat_tokens.extend(pb.SeatToken(seat=i, token=t) for i, t in sorted(created.seat_tokens.items()))
    return message
