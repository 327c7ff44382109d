"""``publish_outbox`` in three steps, for a back-end that cannot take them in one: read the
game's outbox, ``publish`` it (atomic over the owner's stream and publish record, so racing
callers append each event once) and drop from the outbox the events up to the last one read.

The back-end provides ``outbox(game_id)`` (the events, oldest first) and ``trim_outbox(game_id,
upto_seq)`` (drop the leading events whose seq is at most ``upto_seq``), each atomic over the
outbox, beside the port's ``publish``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from service.store.ports.validation import event_seq


class SteppedOutbox(Protocol):
    """A back-end whose outbox is read and trimmed apart from the publish."""

    async def outbox(self, game_id: str) -> list[bytes]: ...

    async def trim_outbox(self, game_id: str, upto_seq: int) -> int: ...

    async def publish(self, owner: str, game_id: str, events: Sequence[bytes], max_len: int) -> int: ...


async def publish_in_steps(store: SteppedOutbox, owner: str, game_id: str, max_len: int) -> int:
    """Publish the game's outbox to the owner's stream and trim it; how many events were appended."""
    pending = await store.outbox(game_id)
    if not pending:
        return 0
    added = await store.publish(owner, game_id, pending, max_len)
    await store.trim_outbox(game_id, event_seq(pending[-1]))
    return added
