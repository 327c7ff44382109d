"""The games of the Redis store: create, load, compare-and-set, hands, retry records, log, watch,
delete and the outbox.

All keys of one game are under the hash tag ``{<game_id>}`` so a cluster keeps a game on one
shard (``P`` is the prefix):

- ``P:{id}:state``  hash, fields ``v`` (version) and ``s`` (opaque state bytes)
- ``P:{id}:log``    list, the game's log: element ``i`` is the entry of version ``i + 1``
- ``P:{id}:hands``  list of the finished hands' score records, appended by commits
- ``P:{id}:req``    list of pairs ``r<request id>``, ``d<unix ms> <retry record>`` for the
  latest ``max_requests`` request ids (LPOS finds one; LTRIM keeps the list bounded)
- ``P:{id}:outbox`` list of the game's events not yet trimmed (``<seq> <opaque>``, ascending),
  appended by a successful create/commit, at most ``MAX_OUTBOX`` (the oldest dropped)
- channel ``P:{id}:changes``  receives the new version after each create/commit

A create or commit is one Lua script (``lua/create.lua``, ``lua/commit.lua``), so the check, the
writes and the notification are one atomic step. The notification is a PUBLISH on one Redis, and
on a Redis Cluster an SPUBLISH (Redis 7), which stays on the shard of the game it is about
instead of crossing the cluster bus to every node; ``service.store.redis.feed`` reads it back.

TTLs: every key of a game gets the idle TTL on create and on every unfinished commit, and the
finished TTL on a commit with ``finished=True``. A retry record is honoured for ``request_ttl_s``
after it was written (the script compares Redis' own clock), and never outlives the game.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from typing import Any

from service.store.port import MAX_OUTBOX, Commit, Committed, GameExists, Loaded, Watcher
from service.store.redis.base import RedisBase
from service.store.redis.connection import unavailable_on_error

COMMIT_ARGS = 11
"""How many fixed arguments ``lua/commit.lua`` takes before the hands, events and entries (which
``lua/commit_due.lua`` puts its schedule's arguments between)."""


class RedisGames(RedisBase):
    """The games, each in its keys ``P:{<game_id>}:<part>`` (``read_version`` is on the base: the feed reads it)."""

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
        args: list[Any] = [state, self._idle_ttl_ms, self.key(game_id, "changes"), self._request_ttl_ms,
                           self._max_requests, request_id or "", retry or b"", MAX_OUTBOX, len(events),
                           *events, *entries]
        with unavailable_on_error("create"):
            created = await self._run("create", keys=self._keys(game_id), args=args)
        if not created:
            raise GameExists(game_id)

    async def load(self, game_id: str) -> Loaded | None:
        """Return the game's version and state, or None when there is no such game."""
        key = self.key(game_id, "state")
        with unavailable_on_error("load"):
            version, state = await self._execute("HMGET", key, "v", "s")
        if version is None:
            return None
        return Loaded(int(version), state or b"")

    async def loads(self, game_ids: Sequence[str]) -> list[Loaded | None]:
        """Return each game's version and state, None for a missing one, in order (reads of many
        slots, ``states_concurrency`` at a time)."""
        with unavailable_on_error("loads"):
            found = await self._per_game(game_ids, lambda game_id: self._client.hmget(self.key(game_id, "state"),
                                                                                       ["v", "s"]))
        return [None if version is None else Loaded(int(version), bytes(state or b"")) for version, state in found]

    async def commit(self, change: Commit) -> Committed:
        """Replace the state and append log entries (and hand records, and outbox events) if the version
        is still ``change.expected_version``."""
        with unavailable_on_error("commit"):
            reply = await self._run("commit", *self._commit_script(change))
        return committed(reply)

    def _commit_script(self, change: Commit) -> tuple[list[str], list[Any]]:
        """The KEYS and ARGV of ``lua/commit.lua`` for a change: ``COMMIT_ARGS`` fixed arguments,
        then the hands, events and entries."""
        ttl_ms = self._finished_ttl_ms if change.finished else self._idle_ttl_ms
        return self._keys(change.game_id), [
            change.expected_version, change.state, ttl_ms, self.key(change.game_id, "changes"), self._request_ttl_ms,
            self._max_requests, change.request_id or "", change.retry or b"", MAX_OUTBOX, len(change.hands),
            len(change.events), *change.hands, *change.events, *change.entries]

    async def get_retry(self, game_id: str, request_id: str) -> bytes | None:
        """Return the retry record kept for this request id, or None."""
        with unavailable_on_error("get_retry"):
            found = await self._run("recall", keys=[self.key(game_id, "req")], args=[request_id, self._request_ttl_ms])
        return None if found is None else bytes(found)

    async def hands(self, game_id: str, start: int = 0, limit: int | None = None) -> list[bytes]:
        """Return the hand records appended by commits from index ``start`` (at most ``limit`` of
        them, or all the rest), oldest first ([] for no such game)."""
        first = max(start, 0)
        if limit is not None and limit <= 0:
            return []
        key = self.key(game_id, "hands")
        with unavailable_on_error("hands"):
            return await self._client.lrange(key, first, -1 if limit is None else first + limit - 1)

    async def log_after(self, game_id: str, version: int, until: int | None = None) -> list[tuple[int, bytes]]:
        """Return (version, entry) pairs with versions above ``version`` (and at most ``until``), ascending."""
        first = max(version, 0)
        if until is not None and until <= first:
            return []
        key = self.key(game_id, "log")
        with unavailable_on_error("log_after"):
            entries = await self._client.lrange(key, first, -1 if until is None else until - 1)
        return list(enumerate(entries, first + 1))

    async def watch(self, game_id: str) -> AsyncGenerator[int, None]:
        """Yield the game's current version (0 if none) once subscribed, then every newer one.

        Versions come from any process sharing the Redis. A slow reader skips to the newest
        version; after a lost pub/sub connection the current version is re-read and yielded,
        so a reader that re-reads ``log_after`` on each yield misses nothing. A game deleted is
        told as version 0 at once; a game whose keys expired (no message tells that) within
        ``PRESENCE_CHECK_S`` (``presence.Presence``).
        """
        channel = self.key(game_id, "changes").encode()
        watcher = Watcher()
        await self._hub.add(channel, game_id, watcher)
        self._presence.add(game_id, watcher)
        try:
            watcher.notify(await self.read_version(game_id))
            while (version := await watcher.next()) is not None:
                yield version
        finally:
            self._presence.remove(game_id, watcher)
            self._hub.remove(channel, watcher)

    async def delete(self, game_id: str) -> bool:
        """Remove the game's keys (state, log, hands, req, outbox) in one script; True if it existed,
        and then its watchers are told version 0."""
        with unavailable_on_error("delete"):
            return bool(await self._run("delete", keys=self._keys(game_id), args=[self.key(game_id, "changes")]))

    async def outbox(self, game_id: str) -> list[bytes]:
        """Return the game's outbox events, oldest first ([] for no such game)."""
        key = self.key(game_id, "outbox")
        with unavailable_on_error("outbox"):
            return list(await self._client.lrange(key, 0, -1))

    async def trim_outbox(self, game_id: str, upto_seq: int) -> int:
        """Drop the outbox's leading events whose seq is at most ``upto_seq``; return how many."""
        key = self.key(game_id, "outbox")
        with unavailable_on_error("trim_outbox"):
            return int(await self._run("trim_outbox", keys=[key], args=[upto_seq]))

    def _keys(self, game_id: str) -> list[str]:
        """Return the KEYS of a write script: state, log, hands, retry records and outbox."""
        return [self.key(game_id, part) for part in ("state", "log", "hands", "req", "outbox")]


def committed(reply: Any, due_before: int | None = None, due_atomic: bool = False) -> Committed:
    """The outcome of a change from the reply of ``lua/commit.lua`` (ok, version[, retry record]) or
    of ``lua/commit_due.lua`` (ok, version, retry record or nil, the schedule's time before it);
    ``due_before`` and ``due_atomic`` as ``Committed`` holds them."""
    replay = reply[2] if len(reply) > 2 else None
    return Committed(bool(reply[0]), int(reply[1]), None if replay is None else bytes(replay), due_before,
                     due_atomic)
