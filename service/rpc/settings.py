"""The server options that change what requests may do (``service.ops`` builds them from the
configuration)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from service.rpc.apikeys import ApiKeys
from service.rpc.calls import CallCap
from service.rpc.stream_gate import StreamLimits
from service.table.creating import DEFAULT_MAX_GAMES, CreateLimits
from service.table.lifecycle import MIN_TURN_TIMEOUT_MS


@dataclass
class Settings:
    """Server options that change what requests may do."""

    allow_prearranged_decks: bool = False
    allow_seeded_shuffle: bool = False
    min_turn_timeout_ms: int = MIN_TURN_TIMEOUT_MS   # lower only in the test mode --allow-short-deadlines
    stream_limits: StreamLimits = field(default_factory=StreamLimits)
    token_secret: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    api_keys: ApiKeys = field(default_factory=ApiKeys)
    create_rate: float = 5.0
    create_burst: int = 100
    max_games_per_key: int = DEFAULT_MAX_GAMES   # 0: no cap
    events_max_len: int = 100_000
    previous_token_secrets: tuple[bytes, ...] = ()   # earlier secrets, for retries of what they derived
    call_cap: CallCap = field(default_factory=CallCap)   # the calls this server handles at once

    @property
    def token_secrets(self) -> tuple[bytes, ...]:
        """The token secret, then the earlier ones still accepted for retries."""
        return (self.token_secret, *self.previous_token_secrets)

    @property
    def create_limits(self) -> CreateLimits:
        """What creating a game needs of these settings: the token secrets and the creation rate."""
        return CreateLimits(self.token_secrets, self.create_rate, self.create_burst, self.max_games_per_key)
