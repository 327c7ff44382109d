"""The coordination port: what the server processes sharing a store share besides the games.

**The schedule**: when each game is due next (a bot's turn, a timeout), and which sweeper attends
to which part of it. ``SHARDS`` sets of game ids ordered by epoch milliseconds (the caller's
clock), a game in shard ``shard_of(game_id)``: ``schedule`` only ever moves a game's time earlier,
``claim_due`` leases due games (their time becomes the lease's end, which is the claim token) and
``settle`` reschedules or drops a game only if its time is still that token. ``next_due`` reads a
shard's earliest time. A write that makes a shard's earliest time earlier (``schedule``,
``settle``) wakes the sweeper following that shard.

**Leases and presence**: the shards are leased to sweepers (one per server process):
``lease_shards`` keeps a sweeper a member for a while (by the caller's clock), drops members whose
membership ended or, where the store can tell, whose process is gone (their ``sweep_watch`` is no
longer open), frees their shards, and gives the caller every free shard and, up to its fair share
(``ceil(SHARDS / members)``), shards of the member holding the most above that share, whose watch
is told (``Wakes.leases``). So each shard has one sweeper at a time, and a gone sweeper's shards
pass to whichever member calls next. ``sweepers_present`` is the cheap look between two such
calls: whether the named sweepers' watches are still open. ``release_shards`` gives a sweeper's
shards up at once.

**Wake-ups**: a sweeper's watch (``sweep_watch``: ``ScheduleWatch``) is its presence while open,
and hears when a followed shard's earliest time got earlier or another member took its shards.

**Rate limits**: ``take_token`` takes from token buckets shared by every server using the store.

Atomicity: each of ``schedule``, ``claim_due``, ``settle`` is one atomic step over its shard;
``lease_shards`` and ``release_shards`` one atomic step over every membership and lease;
``take_token`` over its bucket. The wake-ups are hints (a sweeper also sleeps only until its next
look), the schedule is a hint too: whoever acts on a due game reads the game first.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Collection, Sequence
from typing import NamedTuple, Protocol, runtime_checkable

from service.store.ports.values import StoreUnavailable


class ShardLeases(NamedTuple):
    """What ``lease_shards`` returns: the caller's shards (ascending), the other sweepers holding
    shards, and how many members there are (the caller included)."""

    held: list[int]
    holders: list[str]
    members: int


class Wakes(NamedTuple):
    """What a sweeper's watch heard: the followed shards whose earliest time got earlier (or that
    may have, after a lost connection), and whether another member took some of its shards."""

    shards: set[int]
    leases: bool


@runtime_checkable
class ScheduleWatch(Protocol):
    """A sweeper's presence (while open) and its wake-ups from the shards it follows."""

    async def follow(self, shards: Collection[int]) -> None:
        """Be woken by the schedule of exactly these shards from now on (subscribed on return)."""
        ...

    async def wait(self, timeout_s: float) -> Wakes:
        """Wait up to ``timeout_s`` for a wake-up; return what was heard since the last call
        (nothing on timeout). A lost and re-made connection wakes every followed shard."""
        ...

    async def close(self) -> None:
        """End the presence and every wake-up."""
        ...


class WakeSignals:
    """What a sweeper's watch heard since it last asked, for the stores' ScheduleWatch: the shards
    woken among those it follows (``_followed``, set by the store's ``follow``), whether another
    sweeper took shards of its own, and whether the store ended the watch."""

    def __init__(self, ended: str) -> None:
        self._followed: Collection[int] = ()
        self._woken: set[int] = set()
        self._leases = False
        self._event = asyncio.Event()
        self._ended = False
        self._ended_message = ended

    def woke(self, shard: int) -> None:
        """The shard's earliest time became earlier (heard only for a followed shard)."""
        if shard in self._followed:
            self._woken.add(shard)
            self._event.set()

    def robbed(self) -> None:
        """Another sweeper took some of this sweeper's shards."""
        self._leases = True
        self._event.set()

    def end(self) -> None:
        """The store closed under the watch."""
        self._ended = True
        self._event.set()

    async def wait(self, timeout_s: float) -> Wakes:
        """What was heard since the last call, waiting up to ``timeout_s`` for something;
        StoreUnavailable once the store ended the watch."""
        if not self._woken and not self._leases and not self._ended:
            self._event.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._event.wait(), max(0.0, timeout_s))
        if self._ended:
            raise StoreUnavailable(self._ended_message)
        heard = Wakes(self._woken, self._leases)
        self._woken, self._leases = set(), False
        return heard


@runtime_checkable
class Coordination(Protocol):
    """Due times of games, claimed by leases; the shards leased to sweepers, their presence and
    wake-ups; rate limits."""

    async def schedule(self, game_id: str, at_ms: int) -> int | None:
        """Make the game due at ``at_ms`` unless it is already due earlier (a score only goes down);
        wake the shard's sweeper when that is the shard's earliest time now. While the game is
        claimed, ``at_ms`` is also kept for the claim's ``settle`` (even a time after the claim's
        end, which the score does not take). Returns the game's time before (a due time or a
        claim's end), None when it was not scheduled."""
        ...

    async def claim_due(self, shard: int, now_ms: int, lease_ms: int, count: int) -> list[tuple[str, int]]:
        """Lease up to ``count`` games of the shard due at ``now_ms`` (earliest first): each becomes
        due again at ``now_ms + lease_ms``, which is returned with it as the claim token."""
        ...

    async def settle(self, game_id: str, claim: int, next_ms: int | None) -> bool:
        """If the game is still due at ``claim`` (nobody scheduled it earlier since), make it due at
        the earlier of ``next_ms`` and the times scheduled during the claim, or unschedule it when
        there is neither; return whether the claim still held. Wakes the shard's sweeper when that
        time is the shard's earliest now."""
        ...

    async def next_due(self, shard: int) -> int | None:
        """Return the shard's earliest time (a game's due time or a claim's end), None when empty."""
        ...

    async def lease_shards(self, sweeper: str, now_ms: int, ttl_ms: int) -> ShardLeases:
        """Keep ``sweeper`` a member until ``now_ms + ttl_ms``, drop the members gone, settle the
        leases; return the sweeper's shards, the other holders and the member count (see the module)."""
        ...

    async def sweepers_present(self, sweepers: Sequence[str]) -> bool | None:
        """Whether every named sweeper's watch is still open; None when the store cannot tell."""
        ...

    async def release_shards(self, sweeper: str) -> None:
        """End the sweeper's membership and free its shards."""
        ...

    async def sweep_watch(self, sweeper: str) -> ScheduleWatch:
        """Open the sweeper's watch: its presence for ``lease_shards`` and its wake-ups."""
        ...

    async def take_token(self, bucket: str, rate_per_s: float, burst: int) -> float:
        """Take one token from a rate-limit bucket that refills ``rate_per_s`` tokens a second up
        to ``burst``; returns 0.0 when taken, else the seconds until a token will be there."""
        ...
