"""OpenTelemetry tracing: a span for every gRPC call the server handles, exported over OTLP.

Off unless ``--otel`` (``OTEL_ENABLED``) is given or an OTLP endpoint is configured
(``OTEL_EXPORTER_OTLP_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``); ``OTEL_SDK_DISABLED=true``
or ``OTEL_TRACES_EXPORTER=none`` keep it off. Everything else is the SDK's standard environment:
``OTEL_EXPORTER_OTLP_PROTOCOL`` (``grpc``, the default, or ``http/protobuf``), the endpoint,
headers, certificate and timeout variables, ``OTEL_TRACES_SAMPLER``, ``OTEL_BSP_*`` for batching,
``OTEL_SERVICE_NAME`` / ``OTEL_RESOURCE_ATTRIBUTES`` (the service name defaults to ``cardgame``).

Spans come from opentelemetry-instrumentation-grpc's asyncio server interceptor: named after the
full method (``/cardgame.v1.GameService/Play``), with the ``rpc.*`` attributes, and continuing
the caller's trace when the call carries W3C ``traceparent`` metadata. What is added here:
server-streaming handlers written with ``context.write`` (WatchGame) are traced too (the
interceptor handles only async-generator streams); a call the servicer ends with
``abort_with_status`` is not recorded as an exception; instead the servicer records each
call's status on its span (:func:`finish_call`), where it also takes the trace id for its
request log line. Health checks are not traced (probes would flood the traces).
"""

from __future__ import annotations

import inspect
import logging
import os
from typing import Any

import grpc
from opentelemetry import trace
from opentelemetry.trace import Status, StatusCode

log = logging.getLogger("cardgame.tracing")

ENDPOINT_ENV = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
DEFAULT_SERVICE_NAME = "cardgame"
# gRPC statuses that mark a server span as failed (OpenTelemetry's semantic conventions for RPC)
SERVER_ERRORS = frozenset({grpc.StatusCode.UNKNOWN, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNIMPLEMENTED,
                           grpc.StatusCode.INTERNAL, grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DATA_LOSS})


def _env_true(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def wanted(flag: bool) -> bool:
    """Whether tracing is on: the flag or an OTLP endpoint in the environment, unless the SDK is disabled."""
    if _env_true("OTEL_SDK_DISABLED") or os.environ.get("OTEL_TRACES_EXPORTER", "").strip().lower() == "none":
        return False
    return flag or any(os.environ.get(name) for name in ENDPOINT_ENV)


class Tracing:
    """This process's tracer provider, exporting in batches, and the server interceptor that uses it."""

    def __init__(self) -> None:
        from opentelemetry.sdk.resources import SERVICE_NAME, Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        resource = Resource.create()
        if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
            resource = resource.merge(Resource({SERVICE_NAME: DEFAULT_SERVICE_NAME}))
        self.provider = TracerProvider(resource=resource)
        self.provider.add_span_processor(BatchSpanProcessor(_exporter()))
        trace.set_tracer_provider(self.provider)

    def interceptor(self) -> grpc.aio.ServerInterceptor:
        """A server interceptor that makes a span of every call but health checks."""
        from opentelemetry.instrumentation.grpc import filters
        from opentelemetry.instrumentation.grpc.version import __version__

        tracer = self.provider.get_tracer("opentelemetry.instrumentation.grpc", __version__,
                                          schema_url="https://opentelemetry.io/schemas/1.11.0")
        return _interceptor_class()(tracer, filter_=filters.negate(filters.health_check()))

    def shutdown(self) -> None:
        """Export the spans still queued and stop."""
        self.provider.shutdown()


def _interceptor_class() -> type:
    """opentelemetry-instrumentation-grpc's asyncio server interceptor, tracing ``context.write``
    streams too, and leaving a call ended by ``abort`` / ``abort_with_status`` out of the span's
    exceptions (its status, recorded by :func:`finish_call`, says how it ended)."""
    from opentelemetry.instrumentation.grpc._aio_server import OpenTelemetryAioServerInterceptor

    class Interceptor(OpenTelemetryAioServerInterceptor):
        def _traced(self, behavior: Any, handler_call_details: Any) -> Any:
            async def traced(request: Any, context: Any) -> Any:
                aborted: grpc.aio.AbortError | None = None
                with self._set_remote_context(context), \
                        self._start_span(handler_call_details, context, set_status_on_exception=False):
                    try:
                        return await behavior(request, context)
                    except grpc.aio.AbortError as exc:
                        aborted = exc
                if aborted is not None:
                    raise aborted
                return None

            return traced

        def _intercept_aio_server_unary(self, behavior: Any, handler_call_details: Any) -> Any:
            return self._traced(behavior, handler_call_details)

        def _intercept_aio_server_stream(self, behavior: Any, handler_call_details: Any) -> Any:
            if inspect.iscoroutinefunction(behavior):  # a stream written with context.write
                return self._traced(behavior, handler_call_details)
            return super()._intercept_aio_server_stream(behavior, handler_call_details)

    return Interceptor


def _exporter() -> Any:
    """The OTLP span exporter of the configured protocol."""
    protocol = (os.environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL")
                or "grpc").strip().lower()
    exporter = os.environ.get("OTEL_TRACES_EXPORTER", "otlp").strip().lower() or "otlp"
    if exporter != "otlp":
        raise SystemExit(f"OTEL_TRACES_EXPORTER={exporter!r} is not supported: use otlp or none")
    if protocol == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter
        return GrpcExporter()
    if protocol == "http/protobuf":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter
        return HttpExporter()
    raise SystemExit(f"OTLP protocol {protocol!r} is not supported: use grpc or http/protobuf")


def start(flag: bool) -> Tracing | None:
    """Start tracing in this process when it is wanted; None otherwise."""
    if not wanted(flag):
        return None
    tracing = Tracing()
    log.info("tracing gRPC calls over OTLP", extra={"endpoint": next(
        (os.environ[name] for name in ENDPOINT_ENV if os.environ.get(name)), "the exporter's default")})
    return tracing


def finish_call(code: grpc.StatusCode) -> str | None:
    """Record a call's status on its span (when it is traced); returns the trace id, or None untraced."""
    span = trace.get_current_span()
    context = span.get_span_context()
    if not context.is_valid:
        return None
    span.set_attribute("rpc.grpc.status_code", code.value[0])
    if code in SERVER_ERRORS:
        span.set_status(Status(StatusCode.ERROR, code.name))
    return format(context.trace_id, "032x")
