"""API keys: the backend's credential for CreateGame and every administrative RPC.

A key reads ``<key id>.<secret>`` and is sent in the ``x-api-key`` header. The server is told
only hashes: each configured entry is ``<key id>:<SHA-256 of the whole key, hex>``. Several
entries may be configured at once, also several for one key id, so a key can be rotated
without downtime (add the new entry, move the backend over, drop the old entry). The key id
names the caller: rate limits and request ids are kept per key id. Key ids starting with ``_``
are reserved for the server's own owners (the open server keeps its games under ``_open``), so
no key can read or prune what is not a backend's.

With no entry configured the server is open: any caller may create games (development only).

``python -m service.rpc.apikeys <key id>`` prints a new key and the entry that configures it.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import sys
from collections.abc import Iterable

from service.errors import Unauthenticated

HEADER = "x-api-key"
SECRET_BYTES = 32
MAX_KEY_LENGTH = 256
_KEY_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
RESERVED_PREFIX = "_"  # owners of the server's own (lifecycle.OPEN_OWNER = "_open"), never a key id
_HASH = re.compile(r"[0-9a-f]{64}")


def key_hash(key: str) -> str:
    """The configured form of a key: its SHA-256, hex."""
    return hashlib.sha256(key.encode()).hexdigest()


def new_key(key_id: str) -> tuple[str, str]:
    """A fresh key for ``key_id`` and the configuration entry that accepts it."""
    if not _KEY_ID.fullmatch(key_id):
        raise ValueError("a key id is 1 to 64 letters, digits, '-' or '_'")
    if key_id.startswith(RESERVED_PREFIX):
        raise ValueError(f"key ids starting with {RESERVED_PREFIX!r} are reserved for the server's own use")
    key = f"{key_id}.{secrets.token_urlsafe(SECRET_BYTES)}"
    return key, f"{key_id}:{key_hash(key)}"


def split_entries(text: str) -> tuple[str, ...]:
    """The entries of a configuration text: separated by commas, spaces or lines, ``#`` starting
    a comment to the end of its line."""
    return tuple(word for line in text.splitlines() for word in line.partition("#")[0].replace(",", " ").split())


class ApiKeys:
    """The accepted keys, by key id, as hashes."""

    def __init__(self, entries: Iterable[str] = ()):
        """Parse ``<key id>:<sha256 hex>`` entries; ValueError names the first malformed one (and
        one whose key id starts with the reserved ``_``)."""
        self._hashes: dict[str, list[str]] = {}
        for n, entry in enumerate(entries, 1):
            key_id, _, digest = entry.strip().partition(":")
            if not _KEY_ID.fullmatch(key_id) or not _HASH.fullmatch(digest):
                raise ValueError(f"API key entry {n} is not '<key id>:<64 lowercase hex digits>' "
                                 "(python -m service.rpc.apikeys <key id> makes one)")
            if key_id.startswith(RESERVED_PREFIX):
                raise ValueError(f"API key entry {n} ({key_id!r}): key ids starting with {RESERVED_PREFIX!r} "
                                 "are reserved for the server's own use; give this key another id")
            self._hashes.setdefault(key_id, []).append(digest)

    @property
    def required(self) -> bool:
        """Whether callers must send a key (any entry is configured)."""
        return bool(self._hashes)

    def __len__(self) -> int:
        return sum(len(hashes) for hashes in self._hashes.values())

    def caller(self, metadata, method: str) -> str:
        """The key id of the call's ``x-api-key``; "" on an open server; Unauthenticated otherwise."""
        if not self._hashes:
            return ""
        key = next((value for name, value in metadata or () if name == HEADER), None)
        if key is None:
            raise Unauthenticated(f"{method} needs an API key: send it in the {HEADER} header")
        key_id, dot, _ = key.partition(".") if isinstance(key, str) and len(key) <= MAX_KEY_LENGTH else ("", "", "")
        digest = key_hash(key) if dot else ""
        if not any(hmac.compare_digest(digest, known) for known in self._hashes.get(key_id, ())):
            raise Unauthenticated("this API key is not valid")
        return key_id


def main(argv: list[str]) -> int:
    """Print a new key for the key id given and the entry that configures it."""
    if len(argv) != 1:
        print("usage: python -m service.apikeys <key id>", file=sys.stderr)
        return 2
    try:
        key, entry = new_key(argv[0])
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    print(f"API key (give it to the backend, keep it secret): {key}")
    print(f"server entry (CARDGAME_API_KEYS or --api-keys-file): {entry}")
    return 0
