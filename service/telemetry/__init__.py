"""Telemetry: the request log and its JSON format (``logs``), Prometheus metrics (``metrics``)
and OpenTelemetry tracing (``tracing``).

May import: ``service.errors``, and nothing else of the service.
"""
