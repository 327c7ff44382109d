"""The gRPC service around the pure engine, in wings by reason to change (lowest first):

- ``errors``: the service's errors and their gRPC statuses (the ground floor);
- ``telemetry/``: logs, metrics and tracing;
- ``store/``: where games live (the Store ports, the in-memory and Redis back-ends);
- ``table/``: the game record and its log, the lifecycle rules, bot turns, the sweeper, and
  :class:`~service.table.Table`, which owns every change of a game;
- ``rpc/``: the gRPC servicer (thin), proto conversion and the per-game wire adapters, API keys,
  request checks, streams, health and reflection;
- ``http/``: Connect, gRPC-Web and the web table over the same servicer;
- ``ops/``: configuration, starting the servers and their worker processes, TLS, CPU quota.

A wing imports only the wings below it (``make lint`` checks it with import-linter); every
wing may import ``engine`` and ``bots``. ``python -m service`` starts a server
(``service.ops``); ``python -m service.healthcheck`` and ``python -m service.apikeys`` are the
image's health check and the API key tool.
"""
