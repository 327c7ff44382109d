# Multi-stage build: generate the stubs and install everything in a builder, run as non-root.
FROM python:3.11-slim AS build
WORKDIR /src
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
COPY requirements.txt ./
RUN python -m venv /opt/venv && /opt/venv/bin/pip install -r requirements.txt
COPY proto/ proto/
COPY clients/python/ clients/python/
RUN /opt/venv/bin/python -m grpc_tools.protoc -Iproto \
        --python_out=clients/python/src --pyi_out=clients/python/src --grpc_python_out=clients/python/src \
        proto/cardgame/v1/*.proto \
 && /opt/venv/bin/pip install --no-deps ./clients/python

FROM python:3.11-slim
RUN useradd --system --uid 10001 --home-dir /app cardgame
WORKDIR /app
COPY --from=build /opt/venv /opt/venv
COPY engine/ engine/
COPY service/ service/
ENV PATH=/opt/venv/bin:$PATH PYTHONUNBUFFERED=1 PORT=50051
USER cardgame
EXPOSE 50051
STOPSIGNAL SIGTERM
# The same entry point as `make run`: python -m service (configured by flags or environment).
ENTRYPOINT ["python", "-m", "service"]
