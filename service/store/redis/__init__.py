"""The Redis back-end of the Store port (``store``: ``RedisStore``, put together from one module
per concern: ``games``, ``events``, ``schedule``, ``index``, ``ratelimit`` on a shared ``base``),
its connections and script runner (``connection``), its change feed (``feed``) and its Lua
scripts (``lua/*.lua``, loaded by ``scripts``).

May import: ``service.store``, ``service.errors``, ``service.telemetry``.
"""
