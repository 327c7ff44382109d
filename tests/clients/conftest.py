"""Client tests: a real server process on Redis (prearranged decks and seeded shuffles allowed)."""

from __future__ import annotations

import pytest

from cardgame.client import GameClient


@pytest.fixture
def client(server):
    """A spectator GameClient on ``server`` (``with_token`` gives seat clients on its channel)."""
    with GameClient(server.address) as game_client:
        yield game_client
