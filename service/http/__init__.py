"""The GameService for browsers: Connect (JSON and binary) and gRPC-Web on an HTTP port, beside gRPC.

Both transports call the same :class:`service.servicer.GameServicer` methods, so validation,
auth, error mapping and request logging exist once; ``service.http.adapter`` gives the servicer
a context that turns its aborts into Connect / gRPC-Web errors with the same code, message and
details. ``service.http.app`` adds CORS and the web table's static files; ``service.http.server``
runs it all on uvicorn inside the gRPC server's event loop.

The HTTP modules load only when an HTTP port is configured.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from service.config import Config
    from service.http.server import HttpServer
    from service.servicer import GameServicer


async def serve_http(servicer: GameServicer, config: Config) -> HttpServer | None:
    """Start serving ``servicer`` over HTTP on ``config.http_port``; None when no HTTP port is set."""
    if config.http_port is None:
        return None
    from service.http.app import build_app
    from service.http.server import HttpServer
    from service.tls import server_tls

    app = build_app(servicer, cors_origins=config.cors_origins, web_root=config.web_root,
                    max_concurrent_calls=config.max_concurrent_rpcs)
    tls = server_tls(config.tls_cert, config.tls_key, config.tls_client_ca)
    server = HttpServer(app, config.host, config.http_port, config.grace_s, tls,
                        header_timeout_s=config.http_header_timeout_s, idle_timeout_s=config.http_idle_timeout_s)
    await server.start()
    return server
