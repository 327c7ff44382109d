"""RedisStore: the Store contract on Redis (or a Redis Cluster), shared by many server processes.

The store is put together from one class per port, each in its module with the keys it keeps:
``games`` (state, log, hands, retry records, outbox, change channel), ``events`` (the owners'
event streams and publish records), ``index`` (each owner's index, the set of owners), and for
the coordination port ``schedule`` (the due sets, the sweepers' memberships, leases and presence
channels) and ``ratelimit`` (token buckets). They share ``base``: the
clients, the key prefix and hash tags, TTLs and limits, the Lua scripts (``lua/*.lua``, loaded by
``scripts``) and the change feed (``feed``). ``connection`` makes the clients, runs the scripts
(by SHA, sent whole where unknown) and turns every Redis failure into StoreUnavailable.

Arguments are taken as given: wrap the store with ``service.store.checked.checked`` (as
``open_store`` does) to have them checked once, before any command is sent.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging

from redis.exceptions import RedisError

from service.store.outbox import publish_in_steps
from service.store.port import Commit, Committed
from service.store.redis.connection import DEFAULT_MAX_CONNECTIONS, connect, connect_cluster, unavailable_on_error
from service.store.redis.events import RedisEvents
from service.store.redis.games import COMMIT_ARGS, RedisGames, committed
from service.store.redis.index import RedisIndex
from service.store.redis.ratelimit import RedisRateLimit
from service.store.redis.schedule import RedisSchedule, due_time

__all__ = ["DEFAULT_MAX_CONNECTIONS", "RedisStore", "connect", "connect_cluster", "unavailable_on_error"]

log = logging.getLogger(__name__)


class RedisStore(RedisGames, RedisEvents, RedisIndex, RedisSchedule, RedisRateLimit):
    """Store on Redis: atomic Lua compare-and-set, the game's log as a list, shared pub/sub watch."""

    async def commit(self, change: Commit) -> Committed:
        """The game's commit, scheduled at ``change.due_ms`` when it has one: on one Redis in the
        commit's own script (``lua/commit_due.lua``: one atomic step, ``due_atomic``), on a cluster
        (the schedule's shard is another slot) by the schedule script first."""
        if not change.due_ms:
            return await RedisGames.commit(self, change)
        if self._direct is None:
            before = await self.schedule(change.game_id, change.due_ms)
            return dataclasses.replace(await RedisGames.commit(self, change), due_before=before)
        keys, args = self._commit_script(change)
        (due, claims), (game_id, at_ms, channel) = self._schedule_script(change.game_id, change.due_ms)
        with unavailable_on_error("commit"):
            reply = await self._run("commit_due", keys=[*keys, due, claims],
                                    args=[*args[:COMMIT_ARGS], game_id, at_ms, channel, *args[COMMIT_ARGS:]])
        return committed(reply, due_time(reply[3]), due_atomic=True)

    async def publish_outbox(self, owner: str, game_id: str, max_len: int) -> int:
        """Publish the game's outbox to the owner's stream and empty it: on one Redis in one script
        (``lua/publish_outbox.lua``), on a cluster (the outbox and the stream are in different
        slots) by reading the outbox, publishing and trimming it (``service.store.outbox``)."""
        if self._direct is None:
            return await publish_in_steps(self, owner, game_id, max_len)
        stream = self.events_key(owner)
        with unavailable_on_error("publish_outbox"):
            return int(await self._run("publish_outbox", keys=[self.key(game_id, "outbox"), stream, stream + ":seq"],
                                       args=[game_id, max_len, self._event_seq_ttl_ms]))

    async def ping(self) -> None:
        """Raise StoreUnavailable unless Redis answers PING, sent on the ping's own connection
        (outside the pool commands share, so a busy pool does not fail it)."""
        with unavailable_on_error("ping"):
            await self._ping_client.ping()

    async def configuration_warnings(self) -> list[str]:
        """Warn of a ``maxmemory-policy`` (any node's, in a cluster) other than ``noeviction``: under
        memory pressure Redis then deletes keys, games in play among them. Nothing when CONFIG GET
        is not allowed (a managed Redis may refuse it)."""
        try:
            reply = await self._client.config_get("maxmemory-policy")
        except (RedisError, OSError) as exc:
            log.info("cannot read the Redis eviction policy: %s", exc)
            return []
        value = reply.get("maxmemory-policy") or reply.get(b"maxmemory-policy")
        policy = value.decode() if isinstance(value, bytes) else value
        if policy is None or policy == "noeviction":
            return []
        return [f"Redis maxmemory-policy is {policy!r}: under memory pressure it deletes games in play; "
                "run Redis with maxmemory-policy noeviction"]

    async def close(self) -> None:
        """End all watches, drop the pub/sub connection and close the client if owned."""
        await self._presence.close()
        await self._hub.close()
        if self._owns_client:
            clients = (self._client, self._pubsub_client, self._ping_client)
            for client in {id(c): c for c in clients}.values():
                with contextlib.suppress(RedisError, OSError):
                    await client.aclose()
