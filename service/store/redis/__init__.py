"""The Redis back-end of the Store port (``store``), its change feed (``feed``) and its Lua
scripts (``*.lua`` beside them).

May import: ``service.store``, ``service.errors``, ``service.telemetry``.
"""
