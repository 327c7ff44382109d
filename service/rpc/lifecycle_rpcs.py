"""The lifecycle RPCs of GameService (tokens, listing, leaving, deleting, events, history,
rematch), which the servicer hands these calls to. Changes of a game go through the table
(``service.table``), which owns the transaction; the listing index is a hint, never the
truth: whoever acts on it reads the game first.
"""

from __future__ import annotations

import base64
import contextlib
import logging

import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from service.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied
from service.rpc import checks, lifecycle_messages
from service.rpc import creating as rpc_creating
from service.rpc.access import Access
from service.rpc.settings import Settings
from service.store.event_feed import EventFeed
from service.store.port import BadCursor
from service.table import creating, lifecycle, table, tokens
from service.table.creating import NewGame
from service.table.record import LEFT, GameRecord, UnsupportedRecord
from service.table.table import now_ms

log = logging.getLogger("cardgame.requests")

DEFAULT_LIST_PAGE = 50
MAX_LIST_PAGE = 200
EVENTS_BATCH = 100


def _list_token(owner: str, created_ms: int, game_id: str) -> str:
    return base64.urlsafe_b64encode(f"{owner}\0{created_ms}\0{game_id}".encode()).decode()


def _list_cursor(token: str, owner: str) -> tuple[int, str] | None:
    if not token:
        return None
    try:
        who, created, game_id = base64.urlsafe_b64decode(token.encode()).decode().split("\0")
        if who == owner and created.isdigit() and len(created) <= 15:
            return int(created), checks.game_id(game_id)
    except (ValueError, UnicodeError, InvalidArgument):
        pass
    raise InvalidArgument("page_token is not one that ListGames returned to this caller")


class LifecycleRpcs:
    """The lifecycle RPCs over the table, the caller's access to games and the server's settings."""

    def __init__(self, access: Access, settings: Settings):
        self.access = access
        self.table = access.table
        self.store = access.table.store
        self.settings = settings
        self.event_feed = EventFeed(self.store)   # WatchEvents streams wait on it, not on Redis each

    # ---- the RPCs ----

    async def reissue_seat_token(self, request, context, call):
        """A human seat's new token (random), its old one void at once."""
        call.game_id = game_id = checks.game_id(request.game_id)
        _, record, _ = await self.access.owned(game_id, context, "ReissueSeatToken")
        if not 0 <= request.seat < len(record.seats) or record.seats[request.seat].bot:
            raise InvalidArgument(f"seat {request.seat} is not a human seat of this game")
        if record.seats[request.seat].presence == LEFT:
            raise FailedPrecondition("the seat's player left the game; it has no token", "SEAT_LEFT")
        call.seat = request.seat
        request_id = checks.request_id(request.request_id) or ""
        purpose = f"reissue:{request_id}"
        token = (tokens.derived_token(self.settings.token_secret, game_id, request.seat, purpose)
                 if request_id else tokens.random_token())
        done = await self.table.transact(game_id, table.Reissue(request.seat, tokens.token_hash(game_id, token)),
                                         request_id or None, checks.fingerprint("ReissueSeatToken", request),
                                         method="ReissueSeatToken")
        assert done is not None
        given: str | None = token
        if done.retried:   # a retry's token was derived by the first call, maybe under an earlier secret
            seat = done.record.seats[request.seat]
            given = tokens.recovered_token(self.settings.token_secrets, game_id, request.seat, seat.token_hash, purpose)
            if given is None and seat.reissues > 1:
                raise FailedPrecondition("the seat was given a newer token since (ReissueSeatToken)", "TOKEN_REISSUED")
            if given is None:
                raise FailedPrecondition("this seat's new token was derived from a token secret this server "
                                         "no longer has (--token-secret-previous); it cannot be returned "
                                         "again", "TOKEN_SECRET_CHANGED")
        return pb.ReissueSeatTokenResponse(seat_token=pb.SeatToken(seat=request.seat, token=given))

    async def leave_game(self, request, context, call):
        """The caller's seat leaves: its fallback bot plays on, or the game ends as abandoned."""
        call.game_id = game_id = checks.game_id(request.game_id)
        request_id = checks.request_id(request.request_id)
        token = checks.bearer_token(context.invocation_metadata())
        if token is None:
            raise PermissionDenied("LeaveGame needs the leaving seat's token")
        done = await self.table.transact(game_id, table.Leave(token), request_id,
                                         checks.fingerprint("LeaveGame", request), method="LeaveGame")
        assert done is not None
        call.seat = done.seat
        return pb.LeaveGameResponse(view=self.access.view(done.record, None, done.version))

    async def delete_game(self, request, context, call):
        """Remove a game and everything about it; a delete event goes to the owner's stream."""
        call.game_id = game_id = checks.game_id(request.game_id)
        version, record, caller = await self.access.owned(game_id, context, "DeleteGame")
        owner = lifecycle.owner_of(caller)
        await self.table.publish(game_id, record.owner)  # what the game emitted comes before its deletion
        final = lifecycle.event(record, lifecycle.DELETE, version, now_ms())
        await self.store.prune_index(owner, [game_id], {game_id: lifecycle.terms(record)})
        if await self.store.delete(game_id):
            await self.store.publish(owner, game_id, [final], self.settings.events_max_len)
        await self.store.forget(owner, game_id)
        return pb.DeleteGameResponse()

    async def list_games(self, request, context, call):
        """The caller's games, newest first, filtered by labels, player id and status."""
        caller = self.settings.api_keys.caller(context.invocation_metadata(), "ListGames")
        owner = lifecycle.owner_of(caller)
        labels = lifecycle.check_labels(dict(request.labels), "labels filter")
        player = lifecycle.check_external_id(request.external_player_id, "external_player_id")
        if request.status not in enums.GameStatus.values():
            raise InvalidArgument("status is not a known game status")
        if request.page_size < 0:
            raise InvalidArgument("page_size must not be negative")
        size = min(request.page_size or DEFAULT_LIST_PAGE, MAX_LIST_PAGE)
        cursor = _list_cursor(request.page_token, owner)
        terms = lifecycle.label_terms(labels) + ([f"p:{player}"] if player else [])
        response = pb.ListGamesResponse()
        for _ in range(4):  # a few index pages at most per call; the token continues the rest
            found, cursor = await self.store.list_index(owner, terms, cursor, size - len(response.games))
            loaded = await self.store.loads([game_id for _, game_id in found])
            gone = []
            for (_, game_id), game in zip(found, loaded, strict=True):
                try:
                    record = GameRecord.from_bytes(game.state) if game is not None else None
                except UnsupportedRecord:  # stored by an older release: not listed
                    continue
                if game is None or record is None or record.owner != caller:
                    gone.append(game_id)
                elif not request.status or lifecycle_messages.status(record) == request.status:
                    response.games.append(lifecycle_messages.summary(record, game.version))
            if gone:
                await self.store.prune_index(owner, gone)
            if cursor is None or len(response.games) >= size:
                break
        if cursor is not None:
            response.next_page_token = _list_token(owner, *cursor)
        return response

    async def get_history(self, request, context, call):
        """A page of the game's log with chance outcomes, as far as the caller may know them: the
        entries after the page token's version (or the deprecated ``after_version``), at most
        ``page_size`` (1000 for 0; a larger size than 5000 is taken as 5000, AIP-158)."""
        call.game_id = game_id = checks.game_id(request.game_id)
        default_size, max_size = 1000, 5000  # entries per page, as the proto documents them
        if request.page_size < 0:
            raise InvalidArgument(f"page_size must not be negative, not {request.page_size}")
        size = min(request.page_size or default_size, max_size)
        if request.after_version < 0:
            raise InvalidArgument(f"after_version must not be negative, not {request.after_version}")
        after = checks.page_start(request.page_token, game_id, "GetHistory") if request.page_token \
            else request.after_version
        version, record = await self.access.load(game_id)
        call.seat = self.access.viewer(record, context)
        after = max(after, 1)  # version 1, the creation, has no entry
        last = min(after + size, version)
        until = last if last > after else 1  # hand numbers need the replay from the genesis on
        raw = [entry for _, entry in await self.store.log_after(game_id, 0, until=until)]
        if len(raw) != until:
            raise NotFound(f"game {game_id!r} no longer exists")
        response = lifecycle_messages.history(record, raw, version, after)
        if last < version:
            response.next_after_version = last
            response.next_page_token = checks.page_token(game_id, last, "GetHistory")
        return response

    async def rematch(self, request, context, call):
        """A new game with the same seats, labels and options as the given one."""
        call.game_id = game_id = checks.game_id(request.game_id)
        _, record, caller = await self.access.owned(game_id, context, "Rematch")
        request_id = checks.request_id(request.request_id)
        state = engine.new_game(record.state.variant, record.state.options)
        new = NewGame(caller, state, [seat.fresh() for seat in record.seats], None, record.labels, record.lifecycle,
                      record.spectators)
        created = await creating.create(self.table, new, self.settings.create_limits, request_id,
                                        checks.fingerprint("Rematch", request), "Rematch")
        answer = rpc_creating.response(created, self.access)
        return pb.RematchResponse(game_id=answer.game_id, seat_tokens=answer.seat_tokens, view=answer.view,
                                  spectator_token=answer.spectator_token)

    async def events(self, caller: str, after_id: str):
        """Every event of the caller's games after ``after_id``, as Event messages, waiting for
        new ones while none come (the stream ends only when the caller leaves)."""
        owner = lifecycle.owner_of(caller)
        batches = self.event_feed.follow(owner, checks.event_id(after_id), EVENTS_BATCH)
        async with contextlib.aclosing(batches):
            try:
                async for found in batches:
                    for cursor, _, raw in found:
                        yield lifecycle_messages.event_message(cursor, raw)
            except BadCursor:   # of the form of a cursor, but not one this store made
                raise InvalidArgument(f"after_id {after_id[:40]!r} is not an Event.id this server sent") from None
