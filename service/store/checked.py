"""A store that checks every argument once, before the store it wraps sees the call.

The back-ends (``MemoryStore``, ``RedisStore``) take their arguments as given; ``checked`` puts
the port's checks (``service.store.ports.validation``) in front of one: a bad argument (a game id
with a brace, a count out of range, a malformed event, ...) raises ValueError and the back-end is
not called. Checked arguments are handed on in the form the checks return them (sequences as
lists, terms without repeats).

One generic wrapper does it for every method of the port, as ``metered`` times them: ``CHECKS``
maps each parameter name of the port to its check, so a parameter means the same everywhere
(``game_id`` is a game id in every method; ``count`` is a page's size, ``limit`` a bound that may
be 0). ``CheckedStore`` is built once, at import, from the port Protocols' signatures: each of its
methods is made then with the port method's own parameters and defaults, so a call runs its
checks and nothing else (no binding of arguments per call: ``load`` and ``commit`` run on every
move). A parameter annotated ``X | None`` lets None through; ``JOINT`` holds the few checks of
two arguments together. A port method with a parameter ``CHECKS`` does not know fails the
import, so no method goes unchecked. A ``Commit`` checks itself when it is made. ``open_store`` returns a checked store;
``metered`` may wrap it in turn.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, cast

from service.store.port import (
    MAX_COUNT,
    MAX_MS,
    MAX_SEQ,
    SHARDS,
    Commit,
    Store,
    validate_before,
    validate_bucket,
    validate_bytes,
    validate_cursor,
    validate_entries,
    validate_events,
    validate_game_id,
    validate_game_ids,
    validate_int,
    validate_owner,
    validate_rate,
    validate_request_id,
    validate_sweeper,
    validate_sweepers,
    validate_terms,
    validate_terms_of,
)

Check = Callable[[Any], Any]


def _int(name: str, low: int = 0, high: int = MAX_SEQ) -> Check:
    return lambda value: validate_int(name, value, low, high)


def _position(name: str) -> Check:
    """A place in a game's log or hand records, or a number of them: below 0 counts as 0."""
    return _int(name, -MAX_SEQ, MAX_SEQ)


def _ms(name: str) -> Check:
    """A time or a length of time in milliseconds."""
    return _int(name, 0, MAX_MS)


def _commit(change: Commit) -> Commit:
    if not isinstance(change, Commit):
        raise ValueError(f"commit takes a Commit, got {type(change).__name__}")
    return change   # it checked itself when it was made


CHECKS: Mapping[str, Check] = {
    # the games
    "game_id": validate_game_id,
    "game_ids": validate_game_ids,
    "state": lambda state: validate_bytes("state", state),
    "entries": validate_entries,
    "request_id": validate_request_id,
    "retry": lambda retry: validate_bytes("retry", retry),
    "events": validate_events,
    "change": _commit,
    "start": _position("start"),
    "limit": _position("limit"),
    "count": _int("count", 1, MAX_COUNT),
    "version": _position("version"),
    "until": _int("until"),
    # the event streams and the index
    "owner": validate_owner,
    "max_len": _int("max_len", 1),
    "after": validate_cursor,
    "cursor": validate_cursor,
    "block_ms": _int("block_ms", 0, 86_400_000),
    "created_ms": _ms("created_ms"),
    "terms": validate_terms,
    "terms_of": validate_terms_of,
    "before": validate_before,
    # coordination
    "at_ms": _ms("at_ms"),
    "shard": _int("shard", 0, SHARDS - 1),
    "now_ms": _ms("now_ms"),
    "lease_ms": _ms("lease_ms"),
    "claim": _ms("claim"),
    "next_ms": _ms("next_ms"),
    "sweeper": validate_sweeper,
    "sweepers": validate_sweepers,
    "ttl_ms": _int("ttl_ms", 1, 86_400_000),
    "bucket": validate_bucket,
    "rate_per_s": validate_rate,
    "burst": _int("burst", 1),
}


def _sum_within(first: str, second: str) -> tuple[tuple[str, str], Callable[[int, int], object]]:
    return (first, second), lambda a, b: validate_int(f"{first} + {second}", a + b)


# Checks of two arguments together, applied to every method that has both parameters.
JOINT: tuple[tuple[tuple[str, str], Callable[[Any, Any], object]], ...] = (
    _sum_within("now_ms", "lease_ms"),   # a claim's token is a time too
    _sum_within("now_ms", "ttl_ms"),     # so is a membership's end
)


def _optional(annotation: Any) -> bool:
    """Whether a parameter's annotation admits None (``X | None``)."""
    union = typing.get_origin(annotation) in (types.UnionType, typing.Union)
    return union and type(None) in typing.get_args(annotation)


def _or_none(check: Check) -> Check:
    return lambda value: None if value is None else check(value)


def _checking(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    """The CheckedStore method ``name``, made once from the port method's signature (as dataclasses
    make an ``__init__``): a function of the same parameters and defaults that checks each argument
    by the parameter's name (``CHECKS``; None let through where the annotation admits it), runs the
    ``JOINT`` checks that apply, and calls the wrapped store's method with what the checks returned.
    A call costs its checks and nothing more: no binding of arguments at run time. TypeError at
    import for a parameter without a check, or a default its own check refuses."""
    parameters = list(inspect.signature(method, eval_str=True).parameters.values())[1:]   # without self
    namespace: dict[str, Any] = {}
    heads, body, passed = ["self"], [], []
    for parameter in parameters:
        if parameter.kind not in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY):
            raise TypeError(f"Store.{name}: a port method's parameters are named ones ({parameter})")
        check = CHECKS.get(parameter.name)
        if check is None:
            raise TypeError(f"Store.{name}({parameter.name}=...) has no check: add one for "
                            f"{parameter.name!r} to service.store.checked.CHECKS")
        if _optional(parameter.annotation):
            check = _or_none(check)
        namespace[f"check_{parameter.name}"] = check
        if parameter.kind is parameter.KEYWORD_ONLY and "*" not in heads:
            heads.append("*")
        if parameter.default is parameter.empty:
            heads.append(parameter.name)
        else:
            try:
                check(parameter.default)
            except ValueError as exc:
                raise TypeError(f"Store.{name}: the default of {parameter.name!r} fails its own check") from exc
            namespace[f"default_{parameter.name}"] = parameter.default
            heads.append(f"{parameter.name}=default_{parameter.name}")
        body.append(f"{parameter.name} = check_{parameter.name}({parameter.name})")
        passed.append(parameter.name if parameter.kind is parameter.POSITIONAL_OR_KEYWORD
                      else f"{parameter.name}={parameter.name}")
    for n, (names, joint) in enumerate(JOINT):
        if set(names) <= {parameter.name for parameter in parameters}:
            namespace[f"joint_{n}"] = joint
            body.append(f"joint_{n}({', '.join(names)})")
    call = f"self.inner.{name}({', '.join(passed)})"
    if inspect.iscoroutinefunction(method):
        source = [f"async def {name}({', '.join(heads)}):", *body, f"return await {call}"]
    else:   # watch: checked when called, before the generator takes a step
        source = [f"def {name}({', '.join(heads)}):", *body, f"return {call}"]
    exec("\n    ".join(source), namespace)   # the source is made above, from the port's own signature
    made: Callable[..., Any] = namespace[name]
    made.__qualname__ = f"CheckedStore.{name}"
    made.__doc__ = method.__doc__
    return made


PORT_METHODS = tuple(sorted(name for name in dir(Store)
                            if not name.startswith("_") and inspect.isfunction(getattr(Store, name))))


class CheckedStore:
    """Wraps a Store (``inner``): every call checks its arguments (ValueError), then delegates.
    Its methods, one per port method with the port's signature, are made at import (``_checking``)."""

    def __init__(self, inner: Store) -> None:
        """Check the calls to ``inner``."""
        self.inner = inner


for _name in PORT_METHODS:
    setattr(CheckedStore, _name, _checking(_name, getattr(Store, _name)))


def checked(store: Store) -> Store:
    """``store``, with every argument of its calls checked first (once, however often wrapped)."""
    return store if isinstance(store, CheckedStore) else cast(Store, CheckedStore(store))
