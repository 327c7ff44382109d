"""What every call of the API goes through: its log line's facts (:class:`Call`), the mapping of
errors to gRPC statuses (never UNKNOWN or INTERNAL for what a client can send; a store that
failed is UNAVAILABLE, a store whose connections were all busy RESOURCE_EXHAUSTED STORE_BUSY
with RetryInfo, a store out of memory RESOURCE_EXHAUSTED STORE_FULL, counted in
``store_full_total``), its metrics and its one structured log line (:func:`handled`, and
:func:`rpc` around a unary handler), and the writing of stream messages to a caller that may
be gone (:func:`send`). The HTTP port calls the same handlers, so all of it holds for Connect
and gRPC-Web too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from functools import wraps

import grpc

from service.errors import ResourceExhausted, ServiceError, Unavailable, jittered, to_status
from service.rpc import checks
from service.rpc.stream_gate import SHUTTING_DOWN
from service.store import StoreBusy, StoreFull, StoreUnavailable
from service.telemetry import metrics, tracing

log = logging.getLogger("cardgame.requests")

MAX_LOGGED_ID = 256  # characters of a request id that a log line shows
STORE_BUSY_RETRY_S = 0.25  # the RetryInfo delay (jittered) of a call that found the store's connections busy
STORE_FULL_RETRY_S = 5.0  # the RetryInfo delay (jittered) of a call refused by a store out of memory
CAP_RETRY_S = 0.1  # the RetryInfo delay (jittered) of a call refused at the cap on calls in progress
SETTLE_POLL_S = 0.01  # how often a stopping server looks whether its calls in progress have finished
BUSY_LOG_INTERVAL_S = 1.0  # at most one warning a second about a busy pool (each call has its log line)
_busy_logged_at = -BUSY_LOG_INTERVAL_S


class CallCap:
    """The calls of the API one server handles at once (unary calls and open streams, over gRPC
    and HTTP together); beyond ``limit``, RESOURCE_EXHAUSTED with a message and RetryInfo. None
    = no cap (the server sets it from ``--max-concurrent-rpcs``, in its Settings).

    A stopping server closes it (:meth:`close`): every call from then on is refused UNAVAILABLE
    ``SHUTTING_DOWN``, which every client sends again (to another instance), while the calls in
    progress finish (:meth:`settled`). A gRPC server that stops cancels the calls it has received
    and not yet begun; a closed cap has begun and refused them by then, so no client is told
    CANCELLED for a call it did not cancel."""

    __slots__ = ("limit", "active", "closed")

    def __init__(self, limit: int | None = None) -> None:
        self.limit = limit
        self.active = 0
        self.closed = False

    def refusal(self) -> ServiceError:
        """The answer to a call that finds the cap reached (or the cap closed)."""
        if self.closed:
            return Unavailable(SHUTTING_DOWN, "SHUTTING_DOWN")
        return ResourceExhausted(f"this server handles at most {self.limit} calls at once and is at that limit; "
                                 "retry shortly", "CONCURRENCY_LIMIT", jittered(CAP_RETRY_S))

    def close(self) -> None:
        """Refuse every call from now on, UNAVAILABLE ``SHUTTING_DOWN`` (a limit of none at all: the
        calls' one check of the cap is all it costs them)."""
        self.closed = True
        self.limit = 0

    async def settled(self, timeout_s: float) -> bool:
        """Wait, at most ``timeout_s``, until no call is in progress; whether none is. Polled every
        ``SETTLE_POLL_S``: meanwhile the server goes on beginning (and, closed, refusing) the calls
        it receives."""
        deadline = time.monotonic() + timeout_s
        while self.active and time.monotonic() < deadline:
            await asyncio.sleep(SETTLE_POLL_S)
        return not self.active


def store_busy() -> ResourceExhausted:
    """The answer to a call that found every store connection of this process in use."""
    return ResourceExhausted("the store's connections are all busy on this server (it is overloaded, the store "
                             "is fine); retry shortly", "STORE_BUSY", jittered(STORE_BUSY_RETRY_S))


def store_full() -> ResourceExhausted:
    """The answer to a call whose write the store refused for lack of memory (its maxmemory)."""
    return ResourceExhausted("the game store is out of memory and refuses writes (reads still work); retry in a "
                             "few seconds", "STORE_FULL", jittered(STORE_FULL_RETRY_S))


def _log_busy(name: str, exc: StoreBusy) -> None:
    global _busy_logged_at
    now = time.monotonic()
    if now - _busy_logged_at >= BUSY_LOG_INTERVAL_S:
        _busy_logged_at = now
        log.warning("game store connections all busy in %s: %s", name, exc)


class Call:
    """What the request log line reports about one call."""

    __slots__ = ("game_id", "seat", "request_id")

    def __init__(self, request_id: str = ""):
        self.game_id = ""
        self.seat: int | None = None
        self.request_id = request_id[:MAX_LOGGED_ID]


@contextlib.asynccontextmanager
async def handled(name: str, call: Call, context, cap: CallCap):
    """Admit the call under the server's cap on calls in progress (``cap``), map errors to statuses
    (never UNKNOWN for client input), count the call in the metrics and log one line for it."""
    start = time.perf_counter()
    metrics.rpc_started(name)
    code = grpc.StatusCode.OK
    admitted = False
    try:
        if cap.limit is not None and cap.active >= cap.limit:
            raise cap.refusal()
        cap.active += 1
        admitted = True
        yield
    except ServiceError as exc:
        code = exc.code
        if call.seat is None:
            call.seat = exc.seat
        await abort(context, to_status(exc))
    except StoreFull as exc:
        code = grpc.StatusCode.RESOURCE_EXHAUSTED
        metrics.store_full()
        log.warning("game store out of memory in %s: %s", name, exc)   # Redis' reply only: no arguments, no URL
        await abort(context, to_status(store_full()))
    except StoreBusy as exc:
        code = grpc.StatusCode.RESOURCE_EXHAUSTED
        _log_busy(name, exc)
        await abort(context, to_status(store_busy()))
    except StoreUnavailable as exc:
        code = grpc.StatusCode.UNAVAILABLE
        log.warning("game store unavailable in %s: %s", name, exc)  # the details stay in the log
        await abort(context, to_status(Unavailable("the game store is unavailable; retry shortly")))
    except (asyncio.CancelledError, grpc.aio.AbortError):
        code = grpc.StatusCode.CANCELLED
        raise
    except PeerGone:
        code = grpc.StatusCode.CANCELLED  # the caller cancelled or its deadline passed: nobody to answer
    except Exception:
        code = grpc.StatusCode.INTERNAL
        log.exception("internal error in %s", name)
        await abort(context, to_status(ServiceError("internal error")))
    finally:
        if admitted:
            cap.active -= 1
        elapsed = time.perf_counter() - start
        metrics.rpc_finished(name, code.name, elapsed)
        log_request(name, call, code, elapsed, context)


async def abort(context, status: grpc.Status) -> None:
    """End the call with ``status``; when the caller is already gone (cancelled, or its deadline
    passed while the answer was being made) there is nobody to tell, and the call just ends."""
    try:
        await context.abort_with_status(status)
    except grpc.aio.AbortError:
        raise
    except Exception:  # gRPC refuses to send a status on a call that has ended
        raise asyncio.CancelledError() from None


class PeerGone(Exception):
    """A stream's caller is gone (cancelled, deadline passed) while a message was being sent."""


def rpc(method):
    """Wrap a unary handler (a method of an object with ``settings``) with :func:`handled`, under
    its settings' cap on calls in progress."""
    name = method.__name__

    @wraps(method)
    async def handler(self, request, context):
        call = Call(getattr(request, "request_id", ""))
        async with handled(name, call, context, self.settings.call_cap):
            checks.check_decoded(request)
            return await method(self, request, context, call)

    return handler


def log_request(method: str, call: Call, code: grpc.StatusCode, seconds: float, context) -> None:
    """The call's log line (its fields: method, game_id, seat, status, latency_ms, request_id, peer,
    and trace_id when the call is traced); its status goes on its span too."""
    trace_id = tracing.finish_call(code)
    if log.isEnabledFor(logging.INFO):
        fields = {"method": method, "game_id": call.game_id, "seat": call.seat, "status": code.name,
                  "latency_ms": round(seconds * 1000, 3), "request_id": call.request_id or None, "peer": context.peer()}
        if trace_id is not None:
            fields["trace_id"] = trace_id
        log.info("%s %s %.3f ms", method, code.name, seconds * 1000, extra=fields)




async def send(context, message) -> None:
    """Write one message of a stream; PeerGone once the caller is gone."""
    try:
        await context.write(message)
    except Exception as exc:  # gRPC fails a write only once the call has ended
        raise PeerGone(type(exc).__name__) from exc
