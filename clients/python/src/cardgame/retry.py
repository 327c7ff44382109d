"""The gRPC retry policy the client's channel carries (its ``grpc.service_config``).

gRPC itself retries a call that a server refused as UNAVAILABLE (a busy or restarting server, a
stream refused on a full connection) or RESOURCE_EXHAUSTED (a cap on calls in progress, a busy
store connection pool), each attempt after an exponential backoff with full jitter: a random
wait between 0 and ``initial_backoff_s * multiplier ** (n - 1)``, at most ``max_backoff_s``,
within the call's own deadline, for at most ``max_attempts`` attempts in all. The defaults wait
0.3 s at most in all (0.02 + 0.04 + 0.08 + 0.16): the channel rides out a burst, and a longer
outage is left to the client's own retries, each with a fresh deadline. It waits as long
as the server's retry pushback (``grpc-retry-pushback-ms``, sent with the RetryInfo delay) says,
and does not retry at all when the pushback is negative: the cardgame server sends that for a
RESOURCE_EXHAUSTED that waiting does not cure (a per-connection cap the caller must free) and
for a RetryInfo delay too long to wait within a call, which the client's own retries (``retries``
of GameClient) honour or hand to the caller.

Retrying is safe: every mutating call the client makes carries a request id (GameClient.send
gives one to each request that has the field, the same on every attempt), so the server applies
it once. DeleteGame, which has no request id, is left out of the policy: GameClient.delete_game
retries it itself, counting a retry's NOT_FOUND as done.

>>> import json
>>> config = json.loads(service_config(RetryPolicy(max_attempts=3)))
>>> config["methodConfig"][0]["retryPolicy"]["maxAttempts"], config["methodConfig"][0]["retryPolicy"]["initialBackoff"]
(3, '0.02s')
>>> config["methodConfig"][1]
{'name': [{'service': 'cardgame.v1.GameService', 'method': 'DeleteGame'}]}
>>> channel_options(None)
[('grpc.enable_retries', 0)]
"""

from __future__ import annotations

import json
from dataclasses import dataclass

SERVICE = "cardgame.v1.GameService"
MAX_ATTEMPTS = 5  # gRPC's own bound on maxAttempts: larger values are treated as 5
NOT_RETRIED = ("DeleteGame",)  # no request id: its retries are the client's own, see GameClient.delete_game


@dataclass(frozen=True)
class RetryPolicy:
    """A gRPC retry policy: attempts in all (2 to 5), the backoff before the first retry, its
    growth factor and cap, and the status codes retried."""

    max_attempts: int = 5
    initial_backoff_s: float = 0.02
    max_backoff_s: float = 0.5
    multiplier: float = 2.0
    codes: tuple[str, ...] = ("UNAVAILABLE", "RESOURCE_EXHAUSTED")

    def __post_init__(self) -> None:
        if not 2 <= self.max_attempts <= MAX_ATTEMPTS:
            raise ValueError(f"max_attempts must be between 2 and {MAX_ATTEMPTS}, got {self.max_attempts!r}")
        if not 0 < self.initial_backoff_s <= self.max_backoff_s:
            raise ValueError("backoffs must be above 0, the initial one at most max_backoff_s")
        if not self.multiplier > 0:
            raise ValueError(f"multiplier must be above 0, got {self.multiplier!r}")
        if not self.codes:
            raise ValueError("a retry policy needs at least one status code")


DEFAULT_RETRY_POLICY = RetryPolicy()


def _seconds(value: float) -> str:
    return f"{value:.9f}".rstrip("0").rstrip(".") + "s"


RETRY_THROTTLING = {"maxTokens": 10, "tokenRatio": 0.1}
"""gRPC's retry throttling per server: once failures outnumber successes (each failure takes a token,
each success gives back a tenth) the channel stops retrying, so retries never multiply a server's
overload."""


def service_config(policy: RetryPolicy) -> str:
    """The JSON service config that applies ``policy`` to every GameService method but those of
    NOT_RETRIED."""
    retry = {"maxAttempts": policy.max_attempts, "initialBackoff": _seconds(policy.initial_backoff_s),
             "maxBackoff": _seconds(policy.max_backoff_s), "backoffMultiplier": policy.multiplier,
             "retryableStatusCodes": list(policy.codes)}
    return json.dumps({"methodConfig": [
        {"name": [{"service": SERVICE}], "retryPolicy": retry},
        {"name": [{"service": SERVICE, "method": method} for method in NOT_RETRIED]},
    ], "retryThrottling": RETRY_THROTTLING})


def channel_options(policy: RetryPolicy | None) -> list[tuple[str, str | int]]:
    """Channel options that give a channel ``policy``, or turn gRPC's retries off (None)."""
    if policy is None:
        return [("grpc.enable_retries", 0)]
    return [("grpc.enable_retries", 1), ("grpc.service_config", service_config(policy))]
