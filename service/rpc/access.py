"""Who a caller is in a game and what it sees: the game as the caller may read it, the caller's
seat (or a spectator the game's policy admits), the games its API key owns, and its view."""

from __future__ import annotations

import engine
from cardgame.v1 import view_pb2
from service.errors import NotFound
from service.rpc import apikeys, checks, convert, lifecycle_messages
from service.rpc.settings import Settings
from service.table import tokens
from service.table.record import GameRecord
from service.table.table import Table


class Access:
    """Reading games for callers, over one table and the server's settings."""

    def __init__(self, table: Table, settings: Settings):
        self.table = table
        self.settings = settings

    async def load(self, game_id: str) -> tuple[int, GameRecord]:
        """The game's version and record (NotFound when there is none)."""
        return await self.table.load(game_id)

    def view(self, record: GameRecord, seat: int | None, version: int, state: engine.TableState | None = None,
             into: view_pb2.GameView | None = None) -> view_pb2.GameView:
        """The view of ``seat`` (None: a spectator's) of the game at ``version`` (``state``: the
        game's state then, the record's by default), with what the service knows beyond the rules;
        filled into ``into`` (an empty GameView, such as a response's ``view``) if given."""
        message = convert.view_message(engine.view(state or record.state, seat), record.game_id, version,
                                       lifecycle_messages.players(record), into)
        return lifecycle_messages.decorate(message, record, seat)

    def viewer(self, record: GameRecord, context) -> int | None:
        """The caller's seat in the game, or None for a spectator its spectator policy admits
        (Unauthenticated / PermissionDenied otherwise; see ``tokens.viewer``)."""
        metadata = context.invocation_metadata()
        token = checks.bearer_token(metadata)
        return tokens.viewer(record.game_id, token, [s.token_hash for s in record.seats], record.spectators,
                             record.spectator_hash, token is None and self.owner_calls(record, metadata))

    def owner_calls(self, record: GameRecord, metadata) -> bool:
        """Whether the call carries the API key that created the game (servers with API keys only;
        an invalid key is Unauthenticated)."""
        keys = self.settings.api_keys
        if not keys.required or not any(name == apikeys.HEADER for name, _ in metadata or ()):
            return False
        return keys.caller(metadata, "watching a game") == record.owner

    async def owned(self, game_id: str, context, method: str) -> tuple[int, GameRecord, str]:
        """The game, its version and the caller's key id, if the caller's API key created it
        (NotFound otherwise: other games are not even confirmed to exist)."""
        caller = self.settings.api_keys.caller(context.invocation_metadata(), method)
        version, record = await self.load(game_id)
        if record.owner != caller:
            raise NotFound(f"no game {game_id!r}")
        return version, record, caller
