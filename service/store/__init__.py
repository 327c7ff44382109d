"""Where games live: the store's ports (``port``: ``Store``, the ports in ``ports``), its two back-ends
(``memory``: one process, the default without ``REDIS_URL``; ``redis``: shared by many instances,
a Redis or a Redis Cluster), the wrapper that checks every argument once (``checked``), the
metrics wrapper (``metered``), the shared wait for new events (``event_feed``), the wait a
stream's reads make through a store outage (``outages``), and ``open_store`` (``backends``),
which picks a back-end by URL and checks it.

May import: ``service.errors``, ``service.telemetry``.
"""

from service.store.port import (
    Commit,
    Committed,
    GameExists,
    Loaded,
    Store,
    StoreBusy,
    StoreFull,
    StoreUnavailable,
)

__all__ = ["Commit", "Committed", "GameExists", "Loaded", "Store", "StoreBusy", "StoreFull", "StoreUnavailable"]
