"""The cluster's change feed keeps a channel's node only while the channel has watchers."""

from __future__ import annotations

import asyncio

import pytest

from service.store.port import StoreUnavailable
from service.store.redis.feed import ShardedFeed

NODE = ("127.0.0.1", 1)


class _Watcher:
    def notify(self, version: int) -> None:
        pass


def test_a_watch_that_fails_leaves_no_channel_behind():
    async def scenario() -> None:
        feed = ShardedFeed(None, watch_timeout_s=1.0, liveness_s=5.0)
        feed.node_of = lambda channel: NODE   # type: ignore[method-assign]
        feed._hub(NODE)._closed = True        # the node's hub refuses every new watch
        for n in range(3):
            with pytest.raises(StoreUnavailable):
                await feed.add(f"ch{n}".encode(), f"g{n}", _Watcher())
        assert feed._where == {}

    asyncio.run(scenario())
