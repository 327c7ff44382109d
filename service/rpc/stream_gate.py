"""The caps on open streams of this process, and the stream quotas of each API key.

A :class:`StreamGate` counts the open WatchGame and WatchEvents streams of the process, of each
connection, of each client address and (WatchGame) of each game, and refuses a stream past any
cap with RESOURCE_EXHAUSTED; the process cap is kept well below the server's RPC cap, so health
checks and moves are answered whatever the streams do. When the server shuts down the gate ends
every open stream at once, and refuses new ones, with UNAVAILABLE ``SHUTTING_DOWN`` (clients
reconnect, to another instance, and resume where they were).

The gate also keeps two quotas of each API key, for its WatchEvents streams, in this process
(with N processes a key may hold N times as much): the streams it holds open at once (past the
cap, RESOURCE_EXHAUSTED ``STREAM_QUOTA``) and the bytes of events they are sent per minute
(:class:`KeyBytes`; past it the stream ends RESOURCE_EXHAUSTED ``EVENT_BYTES_QUOTA`` with a
RetryInfo until the minute is over, and the client resumes from its last event id). Both come
with a google.rpc.QuotaFailure naming the limit, subject the key id.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from service.errors import QuotaExceeded, ResourceExhausted, Unavailable

SHUTTING_DOWN = "server shutting down; reconnect"
BYTES_WINDOW_S = 60.0  # the window of the bytes quota of each key's WatchEvents streams


@dataclass(frozen=True)
class StreamLimits:
    """Caps on open streams (WatchGame and WatchEvents together, WatchGame alone per game,
    WatchEvents alone per API key) and on the bytes of events a key's streams are sent a minute
    (0: no cap, for the last two)."""

    per_process: int = 1000
    per_connection: int = 100
    per_address: int = 200
    per_game: int = 500
    per_key: int = 20
    key_bytes_per_minute: int = 50_000_000


def client_address(peer: str) -> str:
    """The client address of a peer string, without its port ("ipv4:127.0.0.1:5000" → "ipv4:127.0.0.1").

    >>> client_address("ipv6:[::1]:5000"), client_address("http:127.0.0.1:80"), client_address("unix:")
    ('ipv6:[::1]', 'http:127.0.0.1', 'unix:')
    """
    head, sep, port = peer.rpartition(":")
    return head if sep and port.isdigit() and ":" in head else peer


class KeyBytes:
    """The bytes each API key's streams were sent in its current window of ``window_s`` (a fixed
    window per key, starting with the first message after the last one ended): O(1) a message, in
    memory; the entries of windows that are over are dropped at most once a window, so the table
    holds only the keys sent something lately."""

    def __init__(self, limit: int, window_s: float = BYTES_WINDOW_S,
                 clock: Callable[[], float] = time.monotonic):
        self.limit = limit   # 0: no cap
        self.window_s = window_s
        self.clock = clock
        self._windows: dict[str, tuple[float, int]] = {}   # key id → (window start, bytes sent in it)
        self._sweep_at = 0.0

    def __len__(self) -> int:
        return len(self._windows)

    def check(self, key: str) -> None:
        """QuotaExceeded (with the wait until the key's window is over) once the key was sent its
        limit in this window."""
        if not self.limit or key not in self._windows:
            return
        now = self.clock()
        start, sent = self._windows[key]
        if now - start < self.window_s and sent >= self.limit:
            wait = max(0.001, start + self.window_s - now)
            raise QuotaExceeded(f"this API key's event streams were sent their {self.limit} bytes for this minute "
                                f"on this server; reconnect in {wait:.1f} s, resuming from the last event id",
                                "EVENT_BYTES_QUOTA", key,
                                f"at most {self.limit} bytes of WatchEvents a minute per API key and server process",
                                retry_delay_s=wait)

    def charge(self, key: str, size: int) -> None:
        """Count a message of ``size`` bytes about to be sent to one of the key's streams;
        QuotaExceeded instead (nothing counted) once the key was sent its limit in this window: the
        message that crosses the limit still goes, so a message larger than it is sent too."""
        if not self.limit:
            return
        self.check(key)
        now = self.clock()
        if now >= self._sweep_at:
            self._sweep(now)
        start, sent = self._windows.get(key, (now, 0))
        if now - start >= self.window_s:
            start, sent = now, 0
        self._windows[key] = (start, sent + size)

    def _sweep(self, now: float) -> None:
        self._sweep_at = now + self.window_s
        for key in [key for key, (start, _) in self._windows.items() if now - start >= self.window_s]:
            del self._windows[key]


class StreamGate:
    """Open streams counted by process, connection, client address, game and API key, within
    caps, and the bytes of events each API key's streams are sent a minute."""

    def __init__(self, limits: StreamLimits):
        self.limits = limits
        self.event_bytes = KeyBytes(limits.key_bytes_per_minute)
        self.open = 0
        self.closed = False
        self._counts: collections.Counter[tuple[str, str]] = collections.Counter()
        self._tasks: set[asyncio.Task] = set()     # the tasks of the open streams
        self._ended: set[asyncio.Task] = set()     # those close() cancelled

    def close(self) -> int:
        """End every open stream now with UNAVAILABLE (the tasks running them are cancelled, and
        :meth:`admit` turns that cancellation into the status) and refuse new ones from now on;
        returns how many streams were ended."""
        self.closed = True
        for task in self._tasks - self._ended:
            self._ended.add(task)
            task.cancel(SHUTTING_DOWN)
        return len(self._ended)

    def charge(self, key: str, size: int) -> None:
        """Count ``size`` bytes about to be sent to a WatchEvents stream of API key ``key``;
        QuotaExceeded ``EVENT_BYTES_QUOTA`` (with a retry delay) past the key's bytes a minute.
        No quota for "" (an open server's callers, without keys)."""
        if key:
            self.event_bytes.charge(key, size)

    @contextlib.contextmanager
    def admit(self, peer: str, game_id: str | None = None, key: str | None = None) -> Iterator[None]:
        """Hold one stream's place while the block runs; ResourceExhausted past a cap (QuotaExceeded
        past one of the quotas of API key ``key``, a WatchEvents stream's), Unavailable once the
        server is shutting down (:meth:`close`), the block's stream ended then included."""
        if self.closed:
            raise Unavailable(SHUTTING_DOWN, "SHUTTING_DOWN")
        limits = self.limits
        caps = {"connection": limits.per_connection, "address": limits.per_address, "game": limits.per_game}
        if self.open >= limits.per_process:
            raise ResourceExhausted(f"this server holds at most {limits.per_process} open streams; retry later",
                                    "STREAM_LIMIT", 1.0)
        slots = [("connection", peer), ("address", client_address(peer))] + ([("game", game_id)] if game_id else [])
        for slot in slots:
            if self._counts[slot] >= caps[slot[0]]:
                raise ResourceExhausted(f"at most {caps[slot[0]]} open streams per {slot[0]}; close one first",
                                        "STREAM_LIMIT", 1.0)
        if key:
            self._check_key(key)
            if limits.per_key:
                slots.append(("key", key))
        self.open += 1
        for slot in slots:
            self._counts[slot] += 1
        try:
            task = asyncio.current_task()
        except RuntimeError:   # no event loop: nothing close() could cancel
            task = None
        if task is not None:
            self._tasks.add(task)
        try:
            yield
        except asyncio.CancelledError:
            if task is None or task not in self._ended:
                raise
            task.uncancel()   # ended by close(): the stream's status says why, and to reconnect
            raise Unavailable(SHUTTING_DOWN, "SHUTTING_DOWN") from None
        finally:
            if task is not None:
                self._tasks.discard(task)
                self._ended.discard(task)
            self.open -= 1
            for slot in slots:
                self._counts[slot] -= 1
                if not self._counts[slot]:
                    del self._counts[slot]

    def _check_key(self, key: str) -> None:
        """QuotaExceeded when API key ``key`` holds its cap of streams, or was sent its bytes."""
        cap = self.limits.per_key
        if cap and self._counts[("key", key)] >= cap:
            raise QuotaExceeded(f"this API key holds its {cap} open WatchEvents streams on this server; "
                                "close one first", "STREAM_QUOTA", key,
                                f"at most {cap} open WatchEvents streams per API key and server process")
        self.event_bytes.check(key)
