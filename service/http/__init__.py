"""The GameService for browsers: Connect (JSON and binary) and gRPC-Web on an HTTP port, beside gRPC.

Both transports call the same :class:`service.servicer.GameServicer` methods, so validation,
auth, error mapping and request logging exist once; ``service.http.adapter`` gives the servicer
a context that turns its aborts into Connect / gRPC-Web errors with the same code, message and
details. ``service.http.app`` adds CORS and the web table's static files; ``service.http.server``
runs it all on uvicorn inside the gRPC server's event loop.

The HTTP modules load only when an HTTP port is configured (``service.ops.server``), but
``service.http.sockets``, the shared-port sockets that ``service.ops.workers`` uses too.

May import: ``service.rpc`` and the wings below it; the TLS settings it is handed come from
``service.ops.tls`` (named for type checking only).
"""
