# Three stages.
# - web: Node builds the TypeScript client (clients/typescript: npm ci, stubs generated from
#   proto/ by buf, tsc) and the web table on it (web/: npm ci, typecheck, vite build), as
#   `make clients web` does; only web/dist leaves it.
# - build: installs the runtime requirements into /opt/venv and builds the client package
#   (cardgame-client), whose build generates the cardgame.v1 stubs from proto/ with grpcio-tools
#   in pip's temporary build environment; only /opt/venv leaves it, so the image holds no code
#   generator.
# - runtime: the server as a non-root user, serving gRPC on 50051, HTTP on 8080 (the web table,
#   Connect and gRPC-Web) and Prometheus metrics on 9464 (/metrics).
FROM node:20-bookworm-slim AS web
WORKDIR /src
ENV npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
COPY clients/typescript/package.json clients/typescript/package-lock.json clients/typescript/
RUN cd clients/typescript && npm ci
COPY web/package.json web/package-lock.json web/
RUN cd web && npm ci
COPY buf.yaml ./
COPY proto/ proto/
COPY clients/typescript/ clients/typescript/
RUN cd clients/typescript && npm run generate && npm run typecheck && npm run build
COPY web/ web/
RUN cd web && npm run build

FROM python:3.11-slim AS build
WORKDIR /src
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
COPY requirements.txt ./
RUN python -m venv /opt/venv && /opt/venv/bin/pip install -r requirements.txt
COPY LICENSE VERSION ./
COPY proto/ proto/
COPY clients/python/ clients/python/
RUN /opt/venv/bin/pip wheel --no-deps --wheel-dir /tmp/wheels ./clients/python \
 && /opt/venv/bin/pip install /tmp/wheels/cardgame_client-*.whl

FROM python:3.11-slim
RUN groupadd --system --gid 10001 cardgame && useradd --system --uid 10001 --gid 10001 --home-dir /app cardgame
WORKDIR /app
COPY --from=build /opt/venv /opt/venv
COPY --from=web /src/web/dist web/dist
COPY LICENSE VERSION ./
COPY engine/ engine/
COPY bots/ bots/
COPY service/ service/
# The settings python -m service reads (python -m service --help lists them all); compose and
# the Kubernetes ConfigMap add the Redis URL, the worker count and the secrets.
ENV PATH=/opt/venv/bin:$PATH PYTHONUNBUFFERED=1 \
    PORT=50051 HTTP_PORT=8080 METRICS_PORT=9464 WEB_ROOT=/app/web/dist
USER 10001:10001
# gRPC; HTTP (web table, Connect, gRPC-Web); Prometheus metrics at /metrics
EXPOSE 50051 8080 9464
STOPSIGNAL SIGTERM
# grpc.health.v1 on 127.0.0.1:$PORT: healthy while the server answers SERVING.
HEALTHCHECK --interval=10s --timeout=5s --start-period=15s --retries=3 CMD ["python", "-m", "service.healthcheck"]
# The same entry point as `make run`: python -m service (configured by flags or environment).
ENTRYPOINT ["python", "-m", "service"]
