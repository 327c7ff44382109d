"""The gRPC API: the servicer (``servicer``, ``lifecycle_rpcs``: thin, each RPC a few guard
clauses and a call to the table), the calls' error mapping and log line (``calls``), who a
caller is and what it sees (``access``), requests into engine values (``requests``), engine
values into messages (``convert``) with the per-game wire adapters (``wire``), CreateGame
(``creating``), API keys (``apikeys``), request checks (``checks``), WatchGame and WatchEvents
streams (``watching``, ``game_stream``), method handlers (``handlers``), health (``health``)
and reflection (``reflection``).

May import: ``engine``, ``bots``, the generated ``cardgame.v1`` messages, and the wings below:
``service.errors``, ``service.telemetry``, ``service.store``, ``service.table``.
"""
