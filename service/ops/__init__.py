"""Running the service: configuration from flags and environment (``config``), starting the gRPC
and HTTP servers with their background tasks (``server``), worker processes (``workers``), TLS
(``tls``), the CPU quota (``cpus``) and the image's health check (``healthcheck``).

May import every wing of the service; nothing imports it but the entry points.
"""
