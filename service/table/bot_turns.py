"""Bot turns for the servicer: fast bots choose in the request, slow ones in a process pool.

A bot marked ``slow`` (the search bot) thinks for up to a few hundred milliseconds per move; run
inside a request it would hold the server's asyncio event loop, and every other call of the
process, for that long. Its turns go to a pool of worker processes instead (processes, not
threads: the search is pure Python and holds the GIL), one per CPU this process may use. A turn
travels as the state's stored bytes, the seat and the strategy; the worker rebuilds the state,
and the bot decides there from the seat's view and legal actions (``bots.choose_action``), as
it would in the request. The random stream goes along and comes back, so a seeded game makes
the same moves whichever process chose them, and the caller applies the action and logs it in
the same atomic commit as before. A move with a single legal action is taken at once.

The pool starts (``spawn``, never ``fork``: the server runs gRPC threads) on the first slow
turn, and each worker imports every game module the server has registered and gives the strong
bot the server's think time (``configure``, from ``--strong-bot-ms``).
"""

from __future__ import annotations

import asyncio
import importlib
import multiprocessing
import os
import random
import threading
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import bots
import engine
from bots.search import SearchBot
from engine import Action, TableState

_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None
_think: float | None = SearchBot().budget.seconds   # the strong bot's clock in the workers
_processes: int | None = None                       # worker processes (None: one per CPU of the affinity)


def configure(think_seconds: float | None, processes: int | None = None) -> None:
    """Give the strong bot ``think_seconds`` a decision in the workers (None: no clock, only its
    sample budget), in ``processes`` worker processes (None: one per CPU this process may run
    on); a pool already running is replaced."""
    global _think, _processes
    _think, _processes = think_seconds, processes
    _reset()


def is_slow(strategy: str, variant: str) -> bool:
    """Whether this bot thinks long enough to run off the event loop."""
    return bool(getattr(bots.bot_of(strategy, variant), "slow", False))


async def choose_action(strategy: str, state: TableState, seat: int, rng: random.Random,
                        legal: Sequence[Action] | None = None) -> Action:
    """The bot's action for ``seat`` (as ``bots.choose_action``; ``legal``: the seat's legal
    actions when the caller has them already), a slow bot's chosen in the pool.

    ``rng`` is advanced exactly as if the bot had chosen in this process.
    """
    if not is_slow(strategy, state.variant):
        return bots.choose_action(strategy, state, seat, rng, legal)
    if legal is None:
        legal = engine.legal_actions(state, seat)
    if len(legal) <= 1:
        return bots.choose_action(strategy, state, seat, rng, legal)
    seeded = type(rng) is random.Random   # a system rng has no state to carry over
    raw, rng_state = state.to_bytes(), (rng.getstate() if seeded else None)
    loop = asyncio.get_running_loop()
    for attempt in (0, 1):
        try:
            action, after = await loop.run_in_executor(pool(), choose_in_worker, strategy, raw, seat, rng_state)
            break
        except BrokenProcessPool:
            _reset()              # a worker died (killed, out of memory): start a fresh pool once
            if attempt:
                raise
    if after is not None:
        rng.setstate(after)
    return action


def choose_in_worker(strategy: str, raw: bytes, seat: int, rng_state: tuple | None) -> tuple[Action, tuple | None]:
    """In a worker: the bot's action for ``seat`` in the stored state ``raw``, and the rng state after it."""
    state = engine.state_from_bytes(raw)
    if rng_state is None:
        return bots.choose_action(strategy, state, seat, random.SystemRandom()), None
    rng = random.Random()
    rng.setstate(rng_state)
    return bots.choose_action(strategy, state, seat, rng), rng.getstate()


def pool() -> ProcessPoolExecutor:
    """The worker pool, started on first use."""
    global _pool
    with _lock:
        if _pool is None:
            modules = sorted({game.view.__module__ for game in engine.GAMES.values()})
            processes = _processes or len(os.sched_getaffinity(0))
            _pool = ProcessPoolExecutor(max_workers=processes, mp_context=multiprocessing.get_context("spawn"),
                                        initializer=_start_worker, initargs=(modules, _think))
        return _pool


def _start_worker(modules: list[str], think_seconds: float | None) -> None:
    """Register the server's games in a new worker (built-in ones register on import), and set
    the strong bot's clock."""
    for name in modules:
        importlib.import_module(name)
    bots.BOTS["strong"] = SearchBot().clocked(think_seconds)


def _reset() -> None:
    global _pool
    with _lock:
        old, _pool = _pool, None
    if old is not None:
        old.shutdown(wait=False, cancel_futures=True)


def shutdown() -> None:
    """Stop the worker pool (it starts again on the next slow turn)."""
    _reset()
