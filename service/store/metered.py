"""A game store that times every call of the store it wraps, for the Prometheus metrics.

Every coroutine method of the :class:`service.store.Store` protocol (a method added to the
protocol later included) is timed in ``cardgame_store_duration_seconds{operation}``, and its
failures (StoreUnavailable) counted in ``cardgame_store_errors_total{operation}``; a ``create``
that stored a game counts in ``cardgame_games_created_total``, a ``commit`` that wrote a game's
end in ``cardgame_games_finished_total``. A read that may wait (``read_events`` with ``block_ms``)
is timed wait included. Everything else (``watch``) passes through unchanged.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable
from functools import wraps
from typing import Any, cast

from service.store.port import Committed, Store, StoreUnavailable
from service.telemetry import metrics

TIMED = frozenset(name for name in dir(Store)   # every port's methods: Store derives from them
                  if not name.startswith("_") and inspect.iscoroutinefunction(getattr(Store, name)))


def _timed(name: str, method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    duration, errors = metrics.STORE_DURATION.labels(name), metrics.STORE_ERRORS.labels(name)

    @wraps(method)
    async def call(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            result = await method(*args, **kwargs)
        except StoreUnavailable:
            errors.inc()
            raise
        finally:
            duration.observe(time.perf_counter() - start)
        if name == "create":
            metrics.GAMES_CREATED.inc()
        elif name == "commit" and isinstance(result, Committed) and result.ok and args[0].finished:
            metrics.GAMES_FINISHED.inc()
        return result

    return call


class MeteredStore:
    """Wraps a Store; its timed methods are made once, on first use."""

    def __init__(self, store: Store):
        self._store = store

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._store, name)
        if name in TIMED:
            attribute = _timed(name, attribute)
            setattr(self, name, attribute)  # found on the instance from now on, without __getattr__
        return attribute


def metered(store: Store) -> Store:
    """``store``, with its calls timed and counted."""
    return cast(Store, MeteredStore(store))
