"""The table: every change of a game, as a command value handed to ``Table.transact``.

Holds the stored game (``record``) and its log (``gamelog``), seat and spectator tokens
(``tokens``), retry records (``retries``), the lifecycle rules (``lifecycle``: deadlines,
status, events), bot turns and their worker processes (``bot_turns``), the sweeper (``sweeper``)
and the transaction itself (``table``). Knows nothing of gRPC: the RPC layer, the HTTP port and
the sweeper call it, and it never calls back up.

May import: ``engine``, ``bots``, ``service.errors``, ``service.telemetry``, ``service.store``.
"""
