"""The rate limits of the in-process store: token buckets on the store's clock."""

from __future__ import annotations

from service.store.memory.base import MemoryBase


class MemoryRateLimit(MemoryBase):
    """Token buckets, name -> (tokens, when counted, when full again)."""

    async def take_token(self, bucket: str, rate_per_s: float, burst: int) -> float:
        """Take one token from a bucket refilled at ``rate_per_s`` up to ``burst`` (0.0 when taken,
        else seconds to wait); a bucket that has refilled is forgotten by the next sweep."""
        self._check_open()
        now = self._now()
        tokens, at, _ = self._buckets.get(bucket, (float(burst), now, now))
        tokens = min(float(burst), tokens + (now - at) * rate_per_s)
        if tokens < 1.0:
            self._buckets[bucket] = (tokens, now, now + (burst - tokens) / rate_per_s)
            return (1.0 - tokens) / rate_per_s
        tokens -= 1.0
        self._buckets[bucket] = (tokens, now, now + (burst - tokens) / rate_per_s)
        return 0.0
