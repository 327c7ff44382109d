# Two commands do all set-up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
GEN    := clients/python/src/cardgame/v1
PROTOS := $(wildcard proto/cardgame/v1/*.proto)
ARGS   ?=

.PHONY: run test bench bench-scale bench-bots soak proto clients lint install clean web chromium

$(STAMP): requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements-dev.txt
	touch $@

# Generated Python stubs live in the client package (one generated package, never edited).
$(GEN)/.stamp: $(PROTOS) $(STAMP)
	mkdir -p $(GEN)
	rm -f $(GEN)/*_pb2*.py $(GEN)/*_pb2*.pyi
	$(PY) -m grpc_tools.protoc -Iproto --python_out=clients/python/src --pyi_out=clients/python/src \
		--grpc_python_out=clients/python/src $(PROTOS)
	touch clients/python/src/cardgame/__init__.py $(GEN)/__init__.py
	touch $@

proto: $(GEN)/.stamp

$(VENV)/.client-installed: $(GEN)/.stamp clients/python/pyproject.toml clients/python/setup.py
	$(PY) -m pip install -q --no-deps -e clients/python
	touch $@

install: $(STAMP) $(VENV)/.client-installed

# A development token secret, made once per checkout; production sets CARDGAME_TOKEN_SECRET.
DEV_SECRET := $(VENV)/dev-token-secret
$(DEV_SECRET): $(STAMP)
	$(PY) -c "import secrets; print(secrets.token_urlsafe(32))" > $@

run: install $(DEV_SECRET)
	@if [ -z "$$CARDGAME_TOKEN_SECRET$$CARDGAME_TOKEN_SECRET_FILE" ]; then \
		echo "make run: seat tokens use the development token secret in $(DEV_SECRET)" \
		     "(set CARDGAME_TOKEN_SECRET in production)"; \
		export CARDGAME_TOKEN_SECRET_FILE=$(DEV_SECRET); fi; \
	exec $(PY) -m service $(ARGS)

test: install clients
	$(PY) -m pytest $(ARGS)

bench: install
	$(PY) -m bench

# Moves per second with 1, 2 and 4 server processes on one private Redis and with 2 on a private
# three-master Redis Cluster, and the CPU each part used (SCALE_SECONDS per run, 8): about 3 minutes.
bench-scale: install
	$(PY) -m bench.scale

# The strong bot against the basic one (win rates over duplicate deals) and its think time;
# long (BENCH_BOTS_* set the game counts): run it under nice on a shared machine.
bench-bots: install
	$(PY) -m bench.bots

# Contested play across three instances while servers and Redis are killed (SOAK_SECONDS, 120).
soak: install
	$(PY) -m bench.soak

# TypeScript client (clients/typescript): its node_modules also provide buf for `lint`.
TS       := clients/typescript
BUF      := $(TS)/node_modules/.bin/buf
NPM_DONE := $(TS)/node_modules/.installed

$(NPM_DONE): $(TS)/package.json $(TS)/package-lock.json
	cd $(TS) && npm ci --no-audit --no-fund
	touch $@

$(TS)/src/gen/.stamp: $(PROTOS) buf.yaml $(TS)/buf.gen.yaml $(NPM_DONE)
	cd $(TS) && npm run --silent generate
	touch $@

# Builds dist/ too: the Node entry (index.js) and the browser entry (web.js) that `npm pack` ships.
clients: proto $(TS)/src/gen/.stamp
	cd $(TS) && npm run --silent typecheck && npm run --silent build

# The web table (web/): `make web` builds web/dist, which the server's HTTP port serves.
WEB      := web
WEB_NPM  := $(WEB)/node_modules/.installed
WEB_DIST := $(WEB)/dist/index.html

$(WEB_NPM): $(WEB)/package.json $(WEB)/package-lock.json
	cd $(WEB) && npm ci --no-audit --no-fund
	touch $@

$(WEB_DIST): $(WEB_NPM) $(wildcard $(WEB)/src/*.ts $(WEB)/src/*.css $(WEB)/src/*/*.ts $(WEB)/tests/*.ts) $(WEB)/index.html $(WEB)/vite.config.ts $(wildcard $(TS)/src/*.ts) $(TS)/src/gen/.stamp | clients
	cd $(WEB) && npm run --silent build

web: $(WEB_DIST)

# Chromium for the browser tests (tests/web): Debian's package, driven by playwright-core.
CHROMIUM := /usr/bin/chromium
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

$(CHROMIUM):
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium

chromium: $(CHROMIUM)

# `make test` plays the web table in Chromium; `make run` serves it, with the HTTP port on 8080
# and CORS open to its development server (npm run dev in web/); the environment overrides both.
test: web chromium
run: web
run: export HTTP_PORT ?= 8080
run: export CORS_ORIGINS ?= http://localhost:5173,http://127.0.0.1:5173

lint: install $(NPM_DONE)
	$(BUF) lint
	$(BUF) format --diff --exit-code
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports --no-cache
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) $(GEN) clients/typescript/node_modules clients/typescript/src/gen clients/typescript/dist \
		web/node_modules web/dist test-artifacts
