"""The rate limits of the Redis store: token buckets timed by Redis' own clock.

- ``P:ratelimit:{<bucket>}``  hash, fields ``t`` (tokens) and ``at`` (Redis ms) of a token
  bucket; it expires once it would be full again
"""

from __future__ import annotations

from service.store.redis.base import RedisBase
from service.store.redis.connection import unavailable_on_error


class RedisRateLimit(RedisBase):
    """Token buckets, one hash each, taken from by one script."""

    async def take_token(self, bucket: str, rate_per_s: float, burst: int) -> float:
        """Take one token from a bucket refilled at ``rate_per_s`` up to ``burst``, timed by Redis'
        clock so every instance shares it (0.0 when taken, else seconds to wait)."""
        key = f"{self._prefix}:ratelimit:{{{bucket}}}"
        with unavailable_on_error("take_token"):
            wait_ms = await self._run("take_token", keys=[key], args=[repr(float(rate_per_s)), burst])
        return int(wait_ms) / 1000
