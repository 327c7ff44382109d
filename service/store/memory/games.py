"""The games of the in-process store: create, load, compare-and-set, hands, retry records, log,
watch, delete and the outbox, each game one ``Game`` that expires lazily."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence

from service.store.memory.base import MemoryBase
from service.store.memory.structures import Game
from service.store.port import MAX_OUTBOX, Commit, Committed, GameExists, Loaded, Watcher, event_seq


class MemoryGames(MemoryBase):
    """The games, with their retry records, outboxes and watchers."""

    async def create(
        self,
        game_id: str,
        state: bytes,
        entries: Sequence[bytes],
        request_id: str | None = None,
        retry: bytes | None = None,
        *,
        events: Sequence[bytes] = (),
    ) -> None:
        """Store a new game with its first log entries (version = their count) and its first outbox
        events; GameExists if taken."""
        self._check_open()
        now = self._now()
        if self._live_game(game_id, now) is not None:
            raise GameExists(game_id)
        game = self._games[game_id] = Game(len(entries), state, list(entries), now + self._idle_ttl_s,
                                           outbox=list(events)[-MAX_OUTBOX:])
        if request_id is not None:
            self._remember(game, request_id, retry, now)
        self._notify(game_id, game.version)

    async def load(self, game_id: str) -> Loaded | None:
        """Return the game's version and state, or None when there is no such game."""
        self._check_open()
        game = self._live_game(game_id, self._now())
        return None if game is None else Loaded(game.version, game.state)

    async def loads(self, game_ids: Sequence[str]) -> list[Loaded | None]:
        """Return each game's version and state, None for a missing one, in order."""
        self._check_open()
        now = self._now()
        games = [self._live_game(game_id, now) for game_id in game_ids]
        return [None if game is None else Loaded(game.version, game.state) for game in games]

    async def commit(self, change: Commit) -> Committed:
        """Replace the state and append log entries (and hand records, and outbox events) if the version
        is still ``change.expected_version``."""
        game_id, request_id, events = change.game_id, change.request_id, change.events
        self._check_open()
        now = self._now()
        game = self._live_game(game_id, now)
        current = 0 if game is None else game.version
        if game is not None and request_id is not None:
            replay = self._recall(game, request_id, now)
            if replay is not None:
                return Committed(False, current, replay)
        if game is None or current != change.expected_version:
            return Committed(False, current, None)
        game.log.extend(change.entries)
        game.version += len(change.entries)
        game.state = change.state
        game.hands.extend(change.hands)
        if events:
            game.outbox.extend(events)
            del game.outbox[:-MAX_OUTBOX]
        game.expires_at = now + (self._finished_ttl_s if change.finished else self._idle_ttl_s)
        if request_id is not None:
            self._remember(game, request_id, change.retry, now)
        self._notify(game_id, game.version)
        return Committed(True, game.version, None)

    async def get_retry(self, game_id: str, request_id: str) -> bytes | None:
        """Return the retry record kept for this request id, or None."""
        self._check_open()
        now = self._now()
        game = self._live_game(game_id, now)
        return None if game is None else self._recall(game, request_id, now)

    async def hands(self, game_id: str, start: int = 0, limit: int | None = None) -> list[bytes]:
        """Return the hand records appended by commits from index ``start`` (at most ``limit`` of
        them, or all the rest), oldest first ([] for no such game)."""
        self._check_open()
        game = self._live_game(game_id, self._now())
        if game is None:
            return []
        return game.hands[max(start, 0):None if limit is None else max(start, 0) + max(limit, 0)]

    async def log_after(self, game_id: str, version: int, until: int | None = None) -> list[tuple[int, bytes]]:
        """Return (version, entry) pairs with versions above ``version`` (and at most ``until``), ascending."""
        self._check_open()
        game = self._live_game(game_id, self._now())
        if game is None:
            return []
        first = max(version, 0)
        entries = game.log[first:until]
        return list(enumerate(entries, first + 1))

    async def watch(self, game_id: str) -> AsyncGenerator[int, None]:
        """Yield the game's current version (0 if none), then every newer version, and 0 when the
        game is deleted."""
        self._check_open()
        watcher = Watcher()
        group = self._watchers.setdefault(game_id, set())
        group.add(watcher)
        try:
            game = self._live_game(game_id, self._now())
            watcher.notify(0 if game is None else game.version)
            while (version := await watcher.next()) is not None:
                yield version
        finally:
            group.discard(watcher)
            if not group and self._watchers.get(game_id) is group:
                del self._watchers[game_id]

    async def delete(self, game_id: str) -> bool:
        """Remove the game (state, log, hands, retry records, outbox); True if it existed."""
        self._check_open()
        existed = self._live_game(game_id, self._now()) is not None
        self._games.pop(game_id, None)
        if existed:
            self._notify(game_id, 0)
        return existed

    async def outbox(self, game_id: str) -> list[bytes]:
        """Return the game's outbox events, oldest first ([] for no such game)."""
        self._check_open()
        game = self._live_game(game_id, self._now())
        return [] if game is None else list(game.outbox)

    async def trim_outbox(self, game_id: str, upto_seq: int) -> int:
        """Drop the outbox's leading events whose seq is at most ``upto_seq``; return how many."""
        self._check_open()
        game = self._live_game(game_id, self._now())
        if game is None:
            return 0
        dropped = 0
        while dropped < len(game.outbox) and event_seq(game.outbox[dropped]) <= upto_seq:
            dropped += 1
        del game.outbox[:dropped]
        return dropped

    def _recall(self, game: Game, request_id: str, now: float) -> bytes | None:
        """Return the game's retry record for this request id unless missing or expired."""
        kept = game.retries.get(request_id)
        return None if kept is None or now - kept[0] >= self._request_ttl_s else kept[1]

    def _remember(self, game: Game, request_id: str, retry: bytes | None, now: float) -> None:
        """Keep a retry record, dropping the game's oldest beyond ``max_requests``."""
        game.retries[request_id] = (now, retry or b"")
        while len(game.retries) > self._max_requests:
            game.retries.popitem(last=False)

    def _notify(self, game_id: str, version: int) -> None:
        """Tell every watcher of the game about the new version."""
        group = self._watchers.get(game_id)
        if group is not None:
            for watcher in group:
                watcher.notify(version)
