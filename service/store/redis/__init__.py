"""The Redis back-end of the store's ports (``store``: ``RedisStore``, put together from one module
per port: ``games``, ``events``, ``index``, and ``schedule`` and ``ratelimit`` for the coordination
port, on a shared ``base``),
its connections and script runner (``connection``), its change feed (``feed``) and its Lua
scripts (``lua/*.lua``, loaded by ``scripts``).

May import: ``service.store``, ``service.errors``, ``service.telemetry``.
"""
