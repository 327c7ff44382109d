"""Waiting out a store outage (a failover, a restart) in a read that a stream depends on."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from service.store.port import StoreUnavailable

T = TypeVar("T")

OUTAGE_S = 10.0   # how long a stream waits out a store outage before it ends with UNAVAILABLE


async def outlasting(read: Callable[[], Awaitable[T]], within_s: float = OUTAGE_S) -> T:
    """``read()``, tried again while the store is unavailable for up to ``within_s`` (pauses from
    50 ms, doubling up to 1 s); then StoreUnavailable, which ends the stream with UNAVAILABLE."""
    deadline = time.monotonic() + within_s
    pause = 0.05
    while True:
        try:
            return await read()
        except StoreUnavailable:
            if time.monotonic() + pause > deadline:
                raise
        await asyncio.sleep(pause)
        pause = min(pause * 2, 1.0)
