"""Health that tells the truth: NOT_SERVING while the game store cannot be reached.

A background task pings the store every ``interval_s``; ``failures`` failed pings in a row turn
the server's health NOT_SERVING, and ``successes`` good ones in a row turn it back to SERVING
(hysteresis, so one slow ping does not make a load balancer flap).

Only a store failure counts: the Redis store pings on a connection of its own, outside the pool
the calls share, and a ping that still finds no free connection (StoreBusy: this process is
overloaded, the store is fine) neither fails nor passes, so a busy instance is not drained as if
its store were down.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from grpc_health.v1 import health_pb2
from grpc_health.v1._async import HealthServicer

from service.store.port import Store, StoreBusy, StoreUnavailable

log = logging.getLogger("cardgame.health")

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


async def follow_store(store: Store, health: HealthServicer, names: Sequence[str], serving: bool = True,
                       interval_s: float = 1.0, failures: int = 2, successes: int = 2) -> None:
    """Keep the health of ``names`` (now SERVING or not, as ``serving`` says) in step with the store's
    reachability until cancelled."""
    streak = 0
    while True:
        await asyncio.sleep(interval_s)
        try:
            await store.ping()
            ok = True
        except StoreBusy as exc:
            log.info("game store ping found no free connection (this process is busy): %s", exc)
            continue
        except StoreUnavailable as exc:
            ok = False
            if serving:
                log.warning("game store ping failed: %s", exc)
        streak = streak + 1 if ok != serving else 0
        if streak >= (successes if ok else failures):
            serving, streak = ok, 0
            log.warning("game store %s: health %s", "reachable again" if ok else "unreachable",
                        "SERVING" if ok else "NOT_SERVING")
            for name in names:
                await health.set(name, SERVING if ok else NOT_SERVING)
