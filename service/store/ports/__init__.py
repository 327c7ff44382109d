"""The Store port by concern: the games (``games``), their events (``events``), the schedule
(``schedule``), the per-owner index (``index``) and rate limits (``ratelimit``); the limits
(``limits``), value types (``values``) and argument checks (``validation``) they share.

``service.store.port`` re-exports all of it and adds ``Store``, the whole port; import from there.
"""
