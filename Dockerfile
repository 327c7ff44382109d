# Two stages. The build stage installs the runtime requirements into /opt/venv and builds the
# client package (cardgame-client), whose build generates the cardgame.v1 stubs from proto/ with
# grpcio-tools in pip's temporary build environment; only /opt/venv reaches the runtime stage,
# so the image holds no code generator. The runtime stage runs as a non-root user.
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
COPY LICENSE VERSION ./
COPY engine/ engine/
COPY bots/ bots/
COPY service/ service/
ENV PATH=/opt/venv/bin:$PATH PYTHONUNBUFFERED=1 PORT=50051
USER 10001:10001
EXPOSE 50051
STOPSIGNAL SIGTERM
# grpc.health.v1 on 127.0.0.1:$PORT: healthy while the server answers SERVING.
HEALTHCHECK --interval=10s --timeout=5s --start-period=15s --retries=3 CMD ["python", "-m", "service.healthcheck"]
# The same entry point as `make run`: python -m service (configured by flags or environment).
ENTRYPOINT ["python", "-m", "service"]
