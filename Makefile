# Two commands do all set-up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
GEN    := clients/python/src/cardgame/v1
PROTOS := $(wildcard proto/cardgame/v1/*.proto)
ARGS   ?=

.PHONY: run test test-fast bench bench-scale bench-bots soak proto clients lint install clean web chromium

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

$(VENV)/.client-installed: $(GEN)/.stamp clients/python/pyproject.toml clients/python/setup.py VERSION
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
	if [ -n "$$HTTP_PORT" ]; then echo "make run: play in the browser at http://localhost:$$HTTP_PORT/" \
		"or run \`.venv/bin/cardgame play spades\` in another terminal (Ctrl-C stops the server)"; \
	else echo "make run: run \`.venv/bin/cardgame play spades\` in another terminal (Ctrl-C stops the server)"; fi; \
	exec $(PY) -m service $(ARGS)

# Test files run in parallel (pytest-xdist, one file per worker at a time: each file's servers,
# ports and Redis key prefix are its own), one worker more than the cores since many tests wait on
# servers and sockets; TEST_JOBS=0 runs them in this process.
TEST_JOBS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
test: install clients
	$(PY) -m pytest -n $(TEST_JOBS) --dist loadfile $(ARGS)

# The edit loop: the engine, bots and unit tests, with a tenth of the property tests' examples
# (under a minute; no server, no Redis).
FAST_TESTS := tests/engine tests/bots/test_bots.py tests/bots/test_bots_search.py tests/bots/test_bots_hearts.py \
	tests/table/test_table.py tests/rpc/test_wire_conversion.py tests/table/test_records_and_tokens.py tests/rpc/test_apikeys.py tests/table/test_bot_turns.py tests/clients/test_render.py \
	tests/clients/test_render_hearts.py tests/clients/test_cli.py engine bots
test-fast: install
	CARDGAME_TEST_FAST=1 $(PY) -m pytest -n $(TEST_JOBS) --dist loadfile -m "not redis" $(FAST_TESTS) $(ARGS)

bench: install debian-packages
	$(PY) -m pip install -q -r requirements-bench.txt
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

TS_GEN     := $(TS)/src/gen/.stamp
TS_SRC     := $(filter-out $(TS)/src/gen/%,$(wildcard $(TS)/src/*.ts $(TS)/src/*/*.ts))
TS_CHECKED := $(TS)/node_modules/.typechecked
TS_DIST    := $(TS)/dist/index.js

$(TS_GEN): $(PROTOS) buf.yaml $(TS)/buf.gen.yaml $(NPM_DONE)
	cd $(TS) && npm run --silent generate
	touch $@

# tsc checks the sources and the tests (`make clients`, `make test`), and builds dist/ (the Node
# entry index.js and the browser entry web.js that `npm pack` ships; the web table is built on it)
# afresh; each only when one of its inputs changed, so `make run` and `make test` start without
# rebuilding an unchanged client.
$(TS_CHECKED): $(TS_SRC) $(wildcard $(TS)/test/*.ts) $(TS_GEN) $(TS)/tsconfig.json
	cd $(TS) && npm run --silent typecheck
	touch $@

$(TS_DIST): $(TS_SRC) $(TS_GEN) $(TS)/tsconfig.json $(TS)/tsconfig.build.json
	cd $(TS) && npm run --silent build
	touch $@

clients: proto $(TS_CHECKED) $(TS_DIST) kotlin

# The Kotlin client (clients/kotlin, Maven): the jar and the compiled tests, which
# tests/clients/test_kotlin_client.py runs offline; nothing is rebuilt while its sources are unchanged.
.PHONY: kotlin
kotlin:
	$(MAKE) -C clients/kotlin all test-compile

# The web table (web/): `make web` builds web/dist, which the server's HTTP port serves.
WEB      := web
WEB_NPM  := $(WEB)/node_modules/.installed
WEB_DIST := $(WEB)/dist/index.html

$(WEB_NPM): $(WEB)/package.json $(WEB)/package-lock.json
	cd $(WEB) && npm ci --no-audit --no-fund
	touch $@

# Built again only when its sources or the client's dist/ changed.
$(WEB_DIST): $(WEB_NPM) $(wildcard $(WEB)/src/*.ts $(WEB)/src/*.css $(WEB)/src/*/*.ts $(WEB)/tests/*.ts) \
		$(WEB)/index.html $(WEB)/vite.config.ts $(wildcard $(WEB)/tsconfig.json $(WEB)/tests/tsconfig.json) $(TS_DIST)
	cd $(WEB) && npm run --silent build
	touch $@

web: $(WEB_DIST)

# Debian's packages that `make test` needs: redis-server for the tests' private Redis servers and
# clusters (tests/conftest.py starts them when neither REDIS_URL nor 127.0.0.1:6379 answers),
# Chromium for the browser tests (tests/web, driven by playwright-core), Prometheus for the
# monitoring test (tests/ops/test_monitoring.py), nginx for the gRPC front's test
# (tests/ops/test_rapid_reset.py) and protoc with the well-known types (libprotobuf-dev) for
# docs/clients.md's C++ and Java example;
# `make bench` also counts instructions under valgrind's callgrind (bench/instructions.py).
# Go is not one of them: the Go client (clients/go) needs Go 1.26 or newer on PATH, which Debian 12
# does not ship, and takes its modules from the Go module proxy; the Kotlin client needs a JDK 17
# and Maven, which take theirs from Maven Central.
# `make debian-packages` installs the missing ones (one apt-get update, noninteractive).
DEBIAN_PACKAGES := redis-server chromium prometheus nginx protobuf-compiler libprotobuf-dev valgrind
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: debian-packages
debian-packages:
	@missing=; for package in $(DEBIAN_PACKAGES); do \
		[ "$$(dpkg-query -W -f='$${db:Status-Status}' $$package 2>/dev/null)" = installed ] || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	fi

chromium: debian-packages

# `make test` plays the web table in Chromium; `make run` serves it, with the HTTP port on 8080
# and CORS open to its development server (npm run dev in web/); the environment overrides both.
test: web debian-packages
run: web
run: export HTTP_PORT ?= 8080
run: export CORS_ORIGINS ?= http://localhost:5173,http://127.0.0.1:5173

# The API's releases (proto/releases/v<version>.binpb, `make proto-release`): the proto must keep
# the last one's generated code compiling (buf.yaml's FILE rules: nothing removed, renamed or
# retyped; deprecating is fine) and every one's wire and JSON forms (wire.yaml: WIRE_JSON).
RELEASES      = $(shell ls proto/releases/v*.binpb | sort -V)
LAST_RELEASE  = $(lastword $(RELEASES))

.PHONY: proto-breaking
proto-breaking: $(NPM_DONE)
	$(BUF) breaking --against $(LAST_RELEASE)
	$(foreach image,$(filter-out $(LAST_RELEASE),$(RELEASES)),$(BUF) breaking --against $(image) --config proto/releases/wire.yaml &&) true

lint: install $(NPM_DONE) proto-breaking
	$(BUF) lint
	$(BUF) format --diff --exit-code
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports --no-cache
	$(VENV)/bin/mypy

# docs/api.md's settings table, generated from the games' declarations (a test checks it is current).
.PHONY: docs-tables
docs-tables: install
	$(PY) -m engine.settings_table docs/api.md

# A release: VERSION and CHANGELOG.md say what it is; this keeps its API, as a buf image, for
# `make lint` to check later changes of the proto against.
.PHONY: proto-release
proto-release: $(NPM_DONE)
	$(BUF) build --exclude-source-info -o proto/releases/v$$(cat VERSION).binpb
	@echo "wrote proto/releases/v$$(cat VERSION).binpb: commit it with VERSION and CHANGELOG.md"

clean:
	rm -rf $(VENV) $(GEN) clients/typescript/node_modules clients/typescript/src/gen clients/typescript/dist \
		web/node_modules web/dist test-artifacts clients/go/bin clients/go/.bin clients/kotlin/target
