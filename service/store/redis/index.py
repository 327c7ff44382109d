"""The index of the Redis store: each owner's games by creation time and by search term.

An owner's keys are under the owner's hash tag ``{<owner>}``, so every index script touches one slot:

- ``P:idx:{owner}:all``     sorted set of the owner's indexed games, scored by creation ms
- ``P:idx:{owner}:t:<term>`` sorted set of the owner's games with that term, the same scores
- ``P:idx:{owner}:terms``   hash, game id -> its terms joined by newlines, so removing a game
  from the index reaches each of its term sets (the scripts derive those keys from it, all on
  the owner's slot); a field lives as long as the game's entry in ``all``
- ``P:owners``              set of every owner that indexed a game (one per API key: small)

These keys have no TTL (a game's own TTL is renewed by each commit, which the index does not
see, so no TTL set at indexing could be right): the entries of games that expired are removed by
``prune_index`` (ListGames, of the games it finds gone) and ``sweep_index`` (the sweeper, and a
key at its game quota), and Redis deletes a sorted set or hash once its last member goes, so an
owner whose games all expired keeps no index key. ``count_index`` is the ZCARD of ``all``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from service.store.port import BadCursor, index_scan_bound
from service.store.redis.base import RedisBase
from service.store.redis.connection import unavailable_on_error

_SCAN_CURSOR = re.compile(r"[1-9][0-9]{0,19}")   # a ZSCAN cursor is an unsigned 64-bit number


class RedisIndex(RedisBase):
    """The index of each owner, kept and read by Lua scripts on the owner's slot."""

    def index_key(self, owner: str, part: str) -> str:
        """Return the key ``<prefix>:idx:{<owner>}:<part>`` of the owner's index (part: ``all``,
        ``terms``, ``t:<term>``)."""
        return f"{self._prefix}:idx:{{{owner}}}:{part}"

    async def index_game(self, owner: str, game_id: str, created_ms: int, terms: Sequence[str]) -> None:
        """Index the game in ``P:idx:{owner}:all`` and each ``P:idx:{owner}:t:<term>`` at ``created_ms``;
        its recorded terms (``P:idx:{owner}:terms``) become exactly ``terms``; the owner joins ``P:owners``."""
        unique = list(dict.fromkeys(terms))
        keys = [self.index_key(owner, "all"), self.index_key(owner, "terms"),
                *(self.index_key(owner, "t:" + term) for term in unique)]
        with unavailable_on_error("index_game"):
            await self._client.sadd(self._owners_key(), owner)  # first: a listed owner may have nothing yet
            await self._run("index", keys=keys, args=[game_id, created_ms, self.index_key(owner, "t:"), *unique])

    async def list_index(
        self, owner: str, terms: Sequence[str], before: tuple[int, str] | None, count: int
    ) -> tuple[list[tuple[int, str]], tuple[int, str] | None]:
        """Page through the owner's games in every term's set, newest first, by one script on the
        owner's slot that walks the smallest set and checks the others with ZSCORE (at most
        ``index_scan_bound(count)`` members scanned); the page and the cursor to go on from."""
        keys = [self.index_key(owner, "t:" + term) for term in dict.fromkeys(terms)] or [self.index_key(owner, "all")]
        args: list[Any] = [count, index_scan_bound(count), *(("1", *before) if before else ("0", 0, ""))]
        with unavailable_on_error("list_index"):
            found, more = await self._run("list_index", keys=keys, args=args)
        page = [(int(found[i]), found[i + 1].decode()) for i in range(0, len(found), 2)]
        return page, (int(more[0]), more[1].decode()) if more else None

    async def prune_index(
        self, owner: str, game_ids: Sequence[str], terms_of: Mapping[str, Sequence[str]] | None = None
    ) -> int:
        """Remove the games from the owner's index (``all``, recorded terms, any in ``terms_of``);
        return how many were in ``all``."""
        given = {game_id: (terms_of or {}).get(game_id, ()) for game_id in game_ids}
        return await self._unindex(owner, given, "prune_index")

    async def sweep_index(self, owner: str, cursor: str, count: int) -> str:
        """ZSCAN about ``count`` members of the owner's ``all`` set from ``cursor`` (a ZSCAN cursor in
        decimal, "" for 0), look up their games' state keys (other slots), and remove the missing
        games from the whole index; return the next ZSCAN cursor ("": the pass is complete)."""
        if cursor and (not _SCAN_CURSOR.fullmatch(cursor) or int(cursor) >= 2**64):
            raise BadCursor(f"an index sweep cursor of this store is a ZSCAN cursor: {cursor!r:.40}")
        key = self.index_key(owner, "all")
        with unavailable_on_error("sweep_index"):
            following, members = await self._client.zscan(key, int(cursor or 0), count=count)
        ids = list(dict.fromkeys(member.decode() for member, _ in members))
        if ids:
            with unavailable_on_error("sweep_index"):
                found = await self._per_game(ids, lambda game_id: self._client.exists(self.key(game_id, "state")))
            gone = [game_id for game_id, exists in zip(ids, found, strict=True) if not exists]
            for first in range(0, len(gone), 1000):
                await self._unindex(owner, {game_id: [] for game_id in gone[first:first + 1000]}, "sweep_index")
        return "" if int(following) == 0 else str(int(following))

    async def count_index(self, owner: str) -> int:
        """Return ZCARD of the owner's ``all`` set (games that expired count until pruned or swept)."""
        with unavailable_on_error("count_index"):
            return int(await self._client.zcard(self.index_key(owner, "all")))

    async def owners(self) -> list[str]:
        """Return every owner in ``P:owners`` (owners that ever indexed a game), sorted."""
        with unavailable_on_error("owners"):
            members = await self._client.smembers(self._owners_key())
        return sorted(member.decode() for member in members)

    def _owners_key(self) -> str:
        """Return the key of the set of owners."""
        return f"{self._prefix}:owners"

    async def _unindex(self, owner: str, terms_of: Mapping[str, Sequence[str]], operation: str) -> int:
        """Run the unindex script on the owner's slot for each game with its given terms."""
        if not terms_of:
            return 0
        args: list[Any] = [self.index_key(owner, "t:")]
        for game_id, terms in terms_of.items():
            args += [game_id, len(terms), *terms]
        keys = [self.index_key(owner, "all"), self.index_key(owner, "terms")]
        with unavailable_on_error(operation):
            return int(await self._run("unindex", keys=keys, args=args))
