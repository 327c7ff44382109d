"""Where games live: the Store port (``port``), its two back-ends (``memory``: one process, the
default without ``REDIS_URL``; ``redis``: shared by many instances, a Redis or a Redis Cluster),
the metrics wrapper (``metered``), the shared wait for new events (``event_feed``), and
``open_store``, which picks a back-end by URL.

May import: ``service.errors``, ``service.telemetry``.
"""

from service.store.port import (
    Commit,
    Committed,
    GameExists,
    Loaded,
    Store,
    StoreUnavailable,
)

__all__ = ["Commit", "Committed", "GameExists", "Loaded", "Store", "StoreUnavailable"]
