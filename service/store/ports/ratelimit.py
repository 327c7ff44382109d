"""The rate limits of the Store port: token buckets shared by every server using the store."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class RateLimitStore(Protocol):
    """Token buckets, by name."""

    async def take_token(self, bucket: str, rate_per_s: float, burst: int) -> float:
        """Take one token from a rate-limit bucket that refills ``rate_per_s`` tokens a second up
        to ``burst``; returns 0.0 when taken, else the seconds until a token will be there."""
        ...
