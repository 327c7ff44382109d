"""The HTTP port's ASGI application: the GameService (Connect, gRPC-Web), the web table, CORS.

- ``POST /cardgame.v1.GameService/<Method>``: the API, in the protocol the request's
  ``content-type`` names: Connect unary (``application/json``, ``application/proto``), Connect
  streaming (``application/connect+json``, ``+proto``) and gRPC-Web (``application/grpc-web``,
  ``+proto``, ``+json``). gRPC itself (``application/grpc``) belongs on the gRPC port and is
  refused here with 415.
- ``GET /…``: the web table's static files (``web_root``, built by ``make web``).
- CORS: browsers on the listed origins may call the API; a preflight gets the headers the
  protocols and the API use (``authorization``, ``x-api-key``), responses expose the gRPC-Web
  status headers. Without origins, only pages of this port's own origin may call it.

A request with a header name or value that is not UTF-8 (HTTP allows any byte from 0x80 in a
value; gRPC metadata and the servicer take text) is refused before the servicer is reached:
an API call with INVALID_ARGUMENT in its own protocol (a Connect error, HTTP 400; the end of a
Connect stream; gRPC-Web's grpc-status 3), any other path with a plain 400.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Sequence
from typing import Any

from connectrpc.code import Code
from connectrpc.compression.gzip import GzipCompression
from connectrpc.errors import ConnectError
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import PlainTextResponse
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from service.http.adapter import BinaryCodec, JsonCodec, game_service_endpoints
from service.rpc.handlers import SERVICE

SERVICE_PATH = f"/{SERVICE.full_name}"
MAX_MESSAGE_BYTES = 1 << 20  # the gRPC port's bound on a request

# The request headers Connect and gRPC-Web clients send, and the API's own credentials.
ALLOW_HEADERS = ("content-type", "connect-protocol-version", "connect-timeout-ms", "connect-accept-encoding",
                 "connect-content-encoding", "grpc-accept-encoding", "grpc-timeout", "x-grpc-web", "x-user-agent",
                 "authorization", "x-api-key")
# The response headers a browser script must be able to read (gRPC-Web status, encodings).
EXPOSE_HEADERS = ("grpc-status", "grpc-message", "grpc-status-details-bin", "content-encoding",
                  "connect-content-encoding")
PREFLIGHT_MAX_AGE_S = 7200
# Names the header that was not UTF-8, in the request handed to RefusingApp (which only ever sees
# requests this module routes to it; HTTP/1.1 cannot carry a header name with a ':').
_INVALID_HEADER = ":invalid-header"


class StableGzip(GzipCompression):
    """gzip whose output depends on the message alone: no time in its header (gzip's default
    writes the current second there), so the same answer is the same bytes whenever it is sent,
    as a retried request's answer must be."""

    def compress(self, data: bytes | bytearray | memoryview) -> bytes:
        """Compress ``data`` with a zero modification time."""
        return gzip.compress(data, compresslevel=6, mtime=0)


class GameServiceApp(ConnectASGIApplication):
    """The GameService methods of a servicer as a connectrpc ASGI application (gzip as
    :class:`StableGzip`)."""

    def __init__(self, servicer: Any, max_unary_calls: int, interceptors: Sequence[Any] = (),
                 call_wait_s: float = 0.0):
        super().__init__(service=servicer,
                         endpoints=lambda svc: game_service_endpoints(svc, max_unary_calls, call_wait_s),
                         interceptors=interceptors, codecs=[BinaryCodec(), JsonCodec()],
                         compressions=[StableGzip()], read_max_bytes=MAX_MESSAGE_BYTES)

    @property
    def path(self) -> str:
        """The URL path the service's methods live under."""
        return SERVICE_PATH


class _RefuseInvalidHeader:
    """A connectrpc metadata interceptor, run before the request body is read and the servicer is
    called: every call fails with INVALID_ARGUMENT, naming the header that was not UTF-8."""

    async def on_start(self, ctx: RequestContext) -> None:
        name = ctx.request_headers.get(_INVALID_HEADER, "")
        raise ConnectError(Code.INVALID_ARGUMENT, f"request header {name} is not valid UTF-8")

    async def on_end(self, token: None, ctx: RequestContext, error: Exception | None, /) -> None:
        return


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return ""


def _utf8(data: bytes) -> bool:
    if data.isascii():
        return True
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return True


def invalid_header(scope: Scope) -> str | None:
    """The name (quoted, at most 64 characters) of the first request header whose name or value is
    not UTF-8; None when every one is."""
    for name, value in scope.get("headers", ()):
        if not (_utf8(name) and _utf8(value)):
            return repr(name.decode("latin-1")[:64])
    return None


def _without_invalid_headers(scope: Scope, name: str) -> Scope:
    """``scope`` without its headers that are not UTF-8, and with the name of the first one."""
    headers = [(k, v) for k, v in scope.get("headers", ()) if _utf8(k) and _utf8(v)]
    return {**scope, "headers": [*headers, (_INVALID_HEADER.encode(), name.encode())]}


def build_app(servicer: Any, *, cors_origins: Sequence[str] = (), web_root: str = "", max_unary_calls: int = 2000,
              call_wait_s: float = 0.0) -> ASGIApp:
    """The HTTP port's application over ``servicer``: at most ``max_unary_calls`` unary calls at
    once, a unary call waiting up to ``call_wait_s`` for room (streams are capped by the servicer,
    over both ports)."""
    rpc = GameServiceApp(servicer, max_unary_calls, call_wait_s=call_wait_s)
    refuse = GameServiceApp(servicer, max_unary_calls, interceptors=[_RefuseInvalidHeader()])
    static = StaticFiles(directory=web_root or None, html=True, check_dir=False) if web_root else None
    not_built = PlainTextResponse(f"The web table is not built (no {web_root or 'web root'}): run `make web`.\n",
                                  status_code=404)
    not_found = PlainTextResponse("Not found\n", status_code=404)
    grpc_here = PlainTextResponse("gRPC is served on the gRPC port; this port speaks Connect and gRPC-Web.\n",
                                  status_code=415)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        invalid = invalid_header(scope)
        if scope["path"].startswith(SERVICE_PATH + "/"):
            content_type = _header(scope, b"content-type")
            if content_type == "application/grpc" or content_type.startswith(("application/grpc+",
                                                                               "application/grpc;")):
                await grpc_here(scope, receive, send)
                return
            if invalid is not None:  # the error in the caller's protocol, from connectrpc
                await refuse(_without_invalid_headers(scope, invalid), receive, send)
                return
            await rpc(scope, receive, send)
            return
        if invalid is not None:
            await PlainTextResponse(f"Request header {invalid} is not valid UTF-8.\n", status_code=400)(
                scope, receive, send)
            return
        if scope["method"] in ("GET", "HEAD") and static is not None:
            if os.path.isdir(web_root):
                try:
                    await static(scope, receive, send)
                except HTTPException as exc:  # StaticFiles' 404 (and 405), outside a Starlette app
                    await PlainTextResponse(f"{exc.detail}\n", status_code=exc.status_code)(scope, receive, send)
            else:
                await not_built(scope, receive, send)
            return
        await not_found(scope, receive, send)

    if not cors_origins:
        return app
    return CORSMiddleware(app, allow_origins=list(cors_origins), allow_methods=("GET", "POST"),
                          allow_headers=ALLOW_HEADERS, expose_headers=EXPOSE_HEADERS, max_age=PREFLIGHT_MAX_AGE_S)
