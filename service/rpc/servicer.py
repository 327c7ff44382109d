"""GameService: each RPC is a few guard clauses and one call to the table or a reader.

Nothing about a game lives in this process between requests, so any number of instances can
serve the same game. Every change of a game is a command handed to the table
(``service.table.Table.transact``), which commits it with the events it caused (bot turns
included) and its idempotency record, atomically, only if the version is still the one read;
a new game is made by ``service.table.creating``. Error mapping, metrics and the request log
wrap every call (``service.rpc.calls``); the lifecycle RPCs live in ``service.rpc.lifecycle_rpcs``.
"""

from __future__ import annotations

from typing import Any

import engine
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from service.errors import InvalidArgument
from service.rpc import catalog, checks, convert, creating, requests, stream_gate, watching
from service.rpc.access import Access
from service.rpc.calls import Call, handled, rpc, send
from service.rpc.game_stream import GameStreams
from service.rpc.lifecycle_rpcs import LifecycleRpcs
from service.rpc.settings import Settings
from service.store import Store
from service.table import creating as table_creating
from service.table import table, tokens

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 500
MOVE_RESPONSES = {"Deal": pb.DealResponse, "Draw": pb.DrawResponse, "RevealHand": pb.RevealHandResponse,
                  "Bid": pb.BidResponse, "Exchange": pb.ExchangeResponse, "Play": pb.PlayResponse,
                  "Act": pb.ActResponse}


class GameServicer(pb_grpc.GameServiceServicer):
    """The cardgame.v1.GameService implementation over a Store."""

    def __init__(self, store: Store, settings: Settings | None = None):
        self.store = store
        self.settings = settings or Settings()
        self.table = table.Table(store, self.settings.events_max_len)
        self.access = Access(self.table, self.settings)
        self.lifecycle = LifecycleRpcs(self.access, self.settings)
        self.streams = stream_gate.StreamGate(self.settings.stream_limits)
        self.games = GameStreams(self.access, self.table, store)   # WatchGame streams share its feeds

    # ---- reading ----

    @rpc
    async def GetGame(self, request, context, call):
        """The caller's view of a game."""
        call.game_id = checks.game_id(request.game_id)
        version, record = await self.access.load(call.game_id)
        call.seat = self.access.viewer(record, context)
        response = pb.GetGameResponse()
        self.access.view(record, call.seat, version, into=response.view)
        return response

    @rpc
    async def GetCatalog(self, request, context, call):
        """Every game the server plays, with its seats, words and settings."""
        return catalog.catalog()

    @rpc
    async def GetScore(self, request, context, call):
        """A page of the finished hands' score records, the totals and the winner."""
        call.game_id = checks.game_id(request.game_id)
        if request.page_size < 0:
            raise InvalidArgument("page_size must not be negative")
        size = min(request.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        start = checks.page_start(request.page_token, call.game_id)
        _, record = await self.access.load(call.game_id)
        call.seat = self.access.viewer(record, context)
        hands = await self.store.hands(call.game_id, start, size + 1)
        record.with_hands(hands[:size])
        response = convert.score_message(record.state, call.seat)
        if len(hands) > size:
            response.next_page_token = checks.page_token(call.game_id, start + size)
        return response

    # ---- creating ----

    @rpc
    async def CreateGame(self, request, context, call):
        """Create a game; returns its id, one token per human seat and the spectator view."""
        caller = self.settings.api_keys.caller(context.invocation_metadata(), "CreateGame")
        new = creating.new_game(request, caller, self.settings)
        created = await table_creating.create(self.table, new, self.settings.create_limits,
                                              checks.request_id(request.request_id),
                                              checks.fingerprint("CreateGame", request), "CreateGame")
        call.game_id = created.record.game_id
        return creating.response(created, self.access)

    # ---- moves: Act serves every move; the six older RPCs are the same path ----

    async def _change(self, request, context, call, method: str, command: table.Command):
        """Hand one command of the caller's seat to the table, exactly once; answer the caller's view."""
        call.game_id = game_id = checks.game_id(request.game_id)
        request_id = checks.request_id(request.request_id)
        fingerprint = checks.fingerprint(method, request) if request_id else ""   # it names a request id's request
        done = await self.table.transact(game_id, command, request_id, fingerprint, method=method)
        assert done is not None
        call.seat = done.seat
        response: Any = MOVE_RESPONSES[method]()   # each move RPC's answer holds one field, its view
        self.access.view(done.record, done.seat, done.version, into=response.view)
        return response

    async def _move(self, request, context, call, method: str, action: table.MoveAction):
        """Hand the caller's seat's ``action`` to the table (at the request's expected version, if any)."""
        expected = request.expected_version if request.HasField("expected_version") else None
        move = table.Move(checks.bearer_token(context.invocation_metadata()), action, expected)
        return await self._change(request, context, call, method, move)

    @rpc
    async def Act(self, request, context, call):
        """Any legal action, by the notation its LegalAction gives ("back" for a seat marked away)."""
        if request.action.strip().lower() == "back":
            expected = request.expected_version if request.HasField("expected_version") else None
            back = table.Back(checks.bearer_token(context.invocation_metadata()), expected)
            return await self._change(request, context, call, "Act", back)
        text = requests.act_text(request.action)
        return await self._move(request, context, call, "Act", lambda state: requests.act_action(text, state))

    @rpc
    async def Deal(self, request, context, call):
        """(deprecated: Act) The dealer deals the next hand (2-player Spades: the first drawer draws)."""
        return await self._move(request, context, call, "Deal", engine.DEAL)

    @rpc
    async def Draw(self, request, context, call):
        """(deprecated: Act) 2-player Spades: keep or discard the offered card."""
        return await self._move(request, context, call, "Draw", requests.draw_action(request))

    @rpc
    async def RevealHand(self, request, context, call):
        """(deprecated: Act) Look at one's cards (gives up Double Nil)."""
        return await self._move(request, context, call, "RevealHand", requests.REVEAL)

    @rpc
    async def Bid(self, request, context, call):
        """(deprecated: Act) Spades bids and Buck Euchre trump / stay / drop calls."""
        return await self._move(request, context, call, "Bid", requests.bid_action(request))

    @rpc
    async def Exchange(self, request, context, call):
        """(deprecated: Act) Double Nil exchange cards, or the Buck Euchre dealer's discard."""
        return await self._move(request, context, call, "Exchange", requests.exchange_action(request))

    @rpc
    async def Play(self, request, context, call):
        """(deprecated: Act) Play one card."""
        return await self._move(request, context, call, "Play", requests.play_action(request))

    # ---- the lifecycle (service.rpc.lifecycle_rpcs) ----

    @rpc
    async def ReissueSeatToken(self, request, context, call):
        """(API key) A human seat's new token; the old one is void."""
        return await self.lifecycle.reissue_seat_token(request, context, call)

    @rpc
    async def ListGames(self, request, context, call):
        """(API key) The caller's games, newest first, filtered."""
        return await self.lifecycle.list_games(request, context, call)

    @rpc
    async def LeaveGame(self, request, context, call):
        """(seat token) The caller's seat leaves the game."""
        return await self.lifecycle.leave_game(request, context, call)

    @rpc
    async def DeleteGame(self, request, context, call):
        """(API key) Remove a game and everything about it."""
        return await self.lifecycle.delete_game(request, context, call)

    @rpc
    async def GetHistory(self, request, context, call):
        """The game's log with chance outcomes, as far as the caller may know them."""
        return await self.lifecycle.get_history(request, context, call)

    @rpc
    async def Rematch(self, request, context, call):
        """(API key) A new game with the same seats, labels and options."""
        return await self.lifecycle.rematch(request, context, call)

    # ---- streams ----

    async def WatchEvents(self, request, context):
        """(API key) Stream the events of the caller's games after ``after_id``."""
        call = Call()
        async with handled("WatchEvents", call, context, self.settings.call_cap):
            checks.check_decoded(request)
            caller = self.settings.api_keys.caller(context.invocation_metadata(), "WatchEvents")
            checks.event_id(request.after_id)   # refused before the stream takes a place
            with self.streams.admit(context.peer(), key=caller):
                async for event in self.lifecycle.events(caller, request.after_id):
                    response = pb.WatchEventsResponse(event=event)
                    self.streams.charge(caller, response.ByteSize())   # EVENT_BYTES_QUOTA past the key's bytes
                    await send(context, response)

    async def WatchGame(self, request, context):
        """Stream the caller's view after every change, from ``from_version`` on; the stream ends
        with the game, or UNAUTHENTICATED once its seat token is void."""
        call = Call()
        async with handled("WatchGame", call, context, self.settings.call_cap):
            checks.check_decoded(request)
            call.game_id = checks.game_id(request.game_id)
            if request.from_version < 0:
                raise InvalidArgument("from_version must not be negative")
            version, record = await self.access.load(call.game_id)
            call.seat = self.access.viewer(record, context)
            if request.from_version > version:
                raise InvalidArgument(f"from_version {request.from_version} is ahead of the game (version {version})")
            token = checks.bearer_token(context.invocation_metadata())
            watcher = watching.Watcher(call.seat, tokens.token_hash(call.game_id, token)
                                       if call.seat is not None and token else None)
            with self.streams.admit(context.peer(), call.game_id):
                async for frame in self.games.frames(record, version, watcher, request.from_version):
                    await send(context, frame.data)
                    if frame.over:
                        break
