"""The store's ports: the games (``games``: ``GameStore``), the owners' event streams
(``events``: ``EventStreams``), the owner index (``index``: ``GameIndex``) and what server
processes coordinate through (``coordination``: ``Coordination``: schedule, leases, presence,
wake-ups, rate limits); the limits (``limits``), value types (``values``) and argument checks
(``validation``) they share.

``service.store.port`` re-exports all of it and adds ``Store``, the whole port; import from there.
"""
