"""The limits and defaults of the Store port, shared by both back-ends and the argument checks."""

from __future__ import annotations

DEFAULT_IDLE_TTL_S = 7 * 86400
DEFAULT_FINISHED_TTL_S = 86400
DEFAULT_REQUEST_TTL_S = 86400
DEFAULT_MAX_REQUESTS = 64
MAX_ID_LENGTH = 256
MAX_OUTBOX = 1000  # events kept in a game's outbox (the oldest are dropped)
SHARDS = 16  # schedule shards: P:due:{0} .. P:due:{15}
MAX_OWNER_LENGTH = 128
MAX_TERM_LENGTH = 300
MAX_TERMS = 64  # terms per index_game / list_index call
MAX_BATCH = 1000  # game ids per loads / prune_index call, events per publish or write
MAX_COUNT = 10_000  # entries per read_events / claim_due / list_index / sweep_index / hands call
MAX_CURSOR_LENGTH = 64  # characters of an opaque cursor (read_events, sweep_index), printable ASCII
MAX_MS = 2**53 - 1  # millisecond values stay exact as a Redis score (a double)
MAX_SEQ = 2**53 - 1
DEFAULT_EVENT_SEQ_TTL_S = 30 * 86400  # an owner's publish record outlives its last publish this long
INDEX_SCAN_MIN = 1000  # list_index scans at most max(10 * count, INDEX_SCAN_MIN) members a call
