"""WatchGame's frames: the caller's view after every change of a game, as encoded bytes.

A stream first catches up from the game's log by itself, then takes its frames from the game's
shared feed in this process (``service.rpc.watching.Feeds``: each version's view encoded once
per audience), and catches up again should it fall behind the feed. Whenever the seats change
(a token reissued, a seat left) the stream checks that its token still holds.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncGenerator

import engine
from service.rpc import watching
from service.rpc.access import Access
from service.store import Store
from service.store.outages import outlasting
from service.table import gamelog
from service.table.record import GameRecord
from service.table.table import Table


class GameStreams:
    """The WatchGame streams of one process over one store."""

    def __init__(self, access: Access, table: Table, store: Store):
        self.access = access
        self.table = table
        self.store = store
        self.feeds = watching.Feeds(store, self.encoded)

    def encoded(self, record: GameRecord, seat: int | None, version: int, state: engine.TableState) -> bytes:
        """The encoded view of ``seat`` (None: a spectator) at ``version``, whose state is ``state``."""
        return watching.encoded_view(self.access.view(record, seat, version, state))

    async def frames(self, record: GameRecord, version: int, watcher: watching.Watcher,
                     last: int) -> AsyncGenerator[watching.Frame, None]:
        """The frames after version ``last`` (from 0: the view at ``version`` first): caught up
        from the log by the stream itself, then shared with the game's other streams through its
        feed, and caught up again should the stream fall behind the feed."""
        game_id, seat = record.game_id, watcher.audience
        if last:
            state = await self.table.state_at(game_id, last)
        else:
            last, state = version, record.state
            yield watching.Frame(version, self.encoded(record, seat, version, state),
                                 state.phase == engine.Phase.GAME_OVER)
        while True:
            feed = await self.feeds.of(game_id)
            while last < feed.version:   # behind the feed: fold the log up to it
                entries = await outlasting(
                    functools.partial(self.store.log_after, game_id, last, feed.version))
                try:
                    for v, raw in entries:
                        gamelog.apply(state, raw)
                        if gamelog.note_of(raw) is not None:  # seats changed: their presence, tokens
                            record = (await self.access.load(game_id))[1]
                            if not watcher.still_holds(record):
                                raise watching.Unauthenticated(
                                    "this seat token is void now (the seat was given a new token, or its "
                                    "player left the game)")
                        record.state = state
                        last = v
                        yield watching.Frame(v, self.encoded(record, seat, v, state),
                                             state.phase == engine.Phase.GAME_OVER)
                except (ValueError, engine.IllegalAction):   # the log no longer fits: resync on the stored game
                    last, record = await self.access.load(game_id)
                    state = record.state
                    yield watching.Frame(last, self.encoded(record, seat, last, state),
                                         state.phase == engine.Phase.GAME_OVER)
                if not entries:
                    break
            feed.join(watcher)
            try:
                while True:
                    frame = await watcher.next()
                    if frame.version > last:
                        last = frame.version
                        yield frame
            except watching.Lagged:
                state = await self.table.state_at(game_id, last)
                watcher = watching.Watcher(watcher.audience, watcher.token_hash)
                record = (await self.access.load(game_id))[1]
            finally:
                feed.leave(watcher)
