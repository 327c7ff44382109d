"""The Go client (clients/go), a Go module built with `go` and the Go module proxy alone:

- its committed stubs (gen/) are what the protos generate: `make -C clients/go check-gen` runs
  buf with the pinned protoc-gen-go and protoc-gen-go-grpc into a temporary folder and compares;
- `go test ./...` passes against a live server on Redis (CARDGAME_SERVER, with
  CARDGAME_REQUIRE_SERVER so that a live test can only pass by playing): a whole game of every
  game, refused moves and their reason codes, a retried request id, WatchGame;
- the first game of clients/go/README.md (and of docs/clients.md's Go section, once it has
  one) builds in a module of its own that requires the client, as a `go get` user's does, and
  plays a game;
- the build from a clean tree (README's command), and its example program (cmd/playhand) plays
  one hand of every game, its moves taken from the view's legal actions; what it reports is
  checked through the Python client.

Go (go.mod's version or newer) must be on PATH, and the module proxy reachable or the module
cache filled: without them these tests fail, saying so, since the Go client is part of what
`make test` proves. check-gen also needs buf (clients/typescript/node_modules, `make clients`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bench.loadgen import build_lock
from cardgame.client import GameClient
from cardgame.games import GAMES as DECLARED_GAMES
from service.rpc import apikeys
from testkit.launcher import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
GO_CLIENT = ROOT / "clients" / "go"
README = GO_CLIENT / "README.md"          # clients/go/README.md
DOCS = ROOT / "docs" / "clients.md"       # docs/clients.md
PLAYHAND = GO_CLIENT / "bin" / "playhand"
MODULE = "github.com/cardgame-rules/cardgame/clients/go"
BUILD_TIMEOUT_S = 280
GO_TEST_TIMEOUT_S = 240    # go test's own -timeout; the subprocess gets a little more, under 300
RUN_TIMEOUT_S = 90
# The live tests of client/live_test.go: each must pass (none may skip) when a server is given.
LIVE_TESTS = ("TestPlaysEveryGameToTheEnd", "TestARefusedMoveSaysWhyAndChangesNothing",
              "TestARetriedRequestIDAppliesOnce", "TestWatchGameStreamsTheMoves")
# (game, seats, first dealer): every game, each with a first dealer other than the player's seat 0
# but one, to show that the fixed dealer is the one the hand is dealt by.
GAMES = [("spades", 4, 2), ("spades2", 2, 1), ("buck_euchre", 4, 0), ("hearts", 4, 3)]


def go_mod_version() -> tuple[int, ...]:
    """The Go version go.mod's `go` line requires."""
    found = re.search(r"(?m)^go (\d+(?:\.\d+)*)$", (GO_CLIENT / "go.mod").read_text())
    assert found, "go.mod has no go line"
    return tuple(int(part) for part in found.group(1).split("."))


@pytest.fixture(scope="module")
def go() -> str:
    """The go command, checked to be new enough for go.mod."""
    path = shutil.which("go")
    required = ".".join(map(str, go_mod_version()))
    if path is None:
        pytest.fail(f"go not found on PATH: the Go client (clients/go) needs Go {required} or newer "
                    "(https://go.dev/dl/), and the Go module proxy or a filled module cache", pytrace=False)
    done = subprocess.run([path, "env", "GOVERSION"], cwd=GO_CLIENT, capture_output=True, text=True, timeout=120)
    found = re.match(r"go(\d+(?:\.\d+)*)", done.stdout.strip())
    if done.returncode or not found or tuple(int(p) for p in found.group(1).split(".")) < go_mod_version():
        pytest.fail(f"{path} is {done.stdout.strip() or done.stderr.strip()}: clients/go needs Go {required} "
                    "or newer (go.mod)", pytrace=False)
    return path


def run_go(go: str, *args: str, env: dict[str, str] | None = None, cwd: Path = GO_CLIENT,
           timeout: float = BUILD_TIMEOUT_S) -> subprocess.CompletedProcess[str]:
    return subprocess.run([go, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def readme_blocks(page: Path, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", page.read_text(), re.M | re.S)


# --- the module and its generated stubs ---

def test_gen_is_what_the_protos_generate(go):
    """The committed gen/ is byte for byte what buf and the pinned plugins make of proto/ (so the
    stubs a `go get` brings can never lag the protos)."""
    with build_lock():   # `make clean` (the playhand fixture) removes the plugins check-gen installs
        done = subprocess.run(["make", "-s", "-C", str(GO_CLIENT), "check-gen"], capture_output=True, text=True,
                              timeout=BUILD_TIMEOUT_S)
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-5000:]
    assert "gen/ is up to date" in done.stdout


def test_gen_names_the_pinned_plugins_and_is_committed():
    """gen/'s headers name the plugin versions the Makefile pins, protoc-gen-go's being go.mod's
    google.golang.org/protobuf; git tracks gen/ (no .gitignore leaves it out) and go.sum."""
    makefile = (GO_CLIENT / "Makefile").read_text()
    pins = dict(re.findall(r"(?m)^(PROTOC_GEN_GO(?:_GRPC)?_VERSION)\s*:=\s*(\S+)$", makefile))
    protobuf = re.search(r"google\.golang\.org/protobuf (v\S+)", (GO_CLIENT / "go.mod").read_text())
    assert protobuf and pins["PROTOC_GEN_GO_VERSION"] == protobuf.group(1), (pins, protobuf)
    generated = sorted((GO_CLIENT / "gen" / "cardgame" / "v1").glob("*.go"))
    protos = sorted((ROOT / "proto" / "cardgame" / "v1").glob("*.proto"))
    assert {p.name.removesuffix(".pb.go") for p in generated if not p.name.endswith("_grpc.pb.go")} == \
        {p.stem for p in protos}
    for path in generated:
        head = path.read_text()[:400]
        plugin = "protoc-gen-go-grpc" if path.name.endswith("_grpc.pb.go") else "protoc-gen-go"
        version = pins["PROTOC_GEN_GO_GRPC_VERSION" if plugin == "protoc-gen-go-grpc" else "PROTOC_GEN_GO_VERSION"]
        assert re.search(rf"{plugin} {re.escape(version)}\n", head), f"{path.name}: {head}"
        assert "\npackage cardgamev1\n" in head
    for path in (*generated, GO_CLIENT / "go.sum"):
        ignored = subprocess.run(["git", "check-ignore", "-q", str(path)], cwd=ROOT, check=False)
        assert ignored.returncode == 1, f"{path.relative_to(ROOT)} is ignored by git: it must be committed"
    assert not (GO_CLIENT / "debian_vendor.py").exists()


def test_go_mod_is_tidy(go):
    """go.mod and go.sum say exactly what the packages import (`go mod tidy` would change nothing)."""
    done = run_go(go, "mod", "tidy", "-diff")
    assert done.returncode == 0, done.stdout + done.stderr


# --- go test ./... against a live server ---

def go_test(go: str, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {key: value for key, value in os.environ.items()
             if key not in {"CARDGAME_SERVER", "CARDGAME_REQUIRE_SERVER"}}
    return subprocess.run([go, "test", "-mod=readonly", "-count=1", "-v", f"-timeout={GO_TEST_TIMEOUT_S}s", *args],
                          cwd=GO_CLIENT, capture_output=True, text=True, timeout=GO_TEST_TIMEOUT_S + 40,
                          env={**clean, **env})


def test_go_test_passes_against_a_live_server(go, server):
    done = go_test(go, "./...", env={"CARDGAME_SERVER": server.address, "CARDGAME_REQUIRE_SERVER": "1"})
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-8000:] + server.log_text()[-3000:]
    assert "--- SKIP" not in output, output
    for name in LIVE_TESTS:
        assert f"--- PASS: {name} " in output, f"{name} did not pass:\n{output[-8000:]}"
    for game in DECLARED_GAMES:   # the Go client reads the same catalog from its descriptors
        assert f"--- PASS: TestPlaysEveryGameToTheEnd/{game.name} " in output, output[-8000:]


def test_live_tests_skip_without_a_server_unless_one_is_required(go):
    """A user's plain `go test ./...` passes without a server, saying why the live tests
    skipped; with CARDGAME_REQUIRE_SERVER a missing CARDGAME_SERVER fails them."""
    only = f"-run=^({'|'.join(LIVE_TESTS)})$"
    skipped = go_test(go, only, "./client", env={})
    assert skipped.returncode == 0, skipped.stdout + skipped.stderr
    assert skipped.stdout.count("--- SKIP") == len(LIVE_TESTS), skipped.stdout
    assert "CARDGAME_SERVER is not set: set it to a cardgame server's gRPC address" in skipped.stdout
    failed = go_test(go, only, "./client", env={"CARDGAME_REQUIRE_SERVER": "1"})
    assert failed.returncode != 0 and failed.stdout.count("--- FAIL") == len(LIVE_TESTS), failed.stdout
    assert "CARDGAME_SERVER is not set, and CARDGAME_REQUIRE_SERVER says a server is required" in failed.stdout


# --- the first game, as a program of another module ---

def first_games() -> list[tuple[str, str]]:
    """(page, program) of every complete Go program in clients/go/README.md and in docs/clients.md."""
    found = []
    for page in (README, DOCS):
        for block in readme_blocks(page, "go"):
            if block.startswith("package main\n"):
                found.append((str(page.relative_to(ROOT)), block))
    return found


FIRST_GAMES = first_games()


def test_the_readme_has_a_first_game():
    assert any(page == "clients/go/README.md" for page, _ in FIRST_GAMES)


@pytest.mark.parametrize(("page", "program"), FIRST_GAMES, ids=[page for page, _ in FIRST_GAMES])
def test_first_game_builds_as_a_dependency_and_plays(go, server, tmp_path, page, program):
    """The page's program in a module of its own that requires the client as `go get` would add
    it (the requirement replaced by this checkout), against the server."""
    assert "localhost:50051" in program, page
    (tmp_path / "main.go").write_text(program.replace("localhost:50051", server.address))
    (tmp_path / "go.mod").write_text(f"module example.com/first\n\ngo {'.'.join(map(str, go_mod_version()))}\n\n"
                                     f"require {MODULE} v0.0.0\n\nreplace {MODULE} => {GO_CLIENT}\n")
    tidy = run_go(go, "mod", "tidy", cwd=tmp_path)
    assert tidy.returncode == 0, tidy.stderr
    done = run_go(go, "run", ".", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr + server.log_text()[-3000:]
    assert "refused: FailedPrecondition WRONG_PHASE\n" in done.stdout, done.stdout
    assert re.search(r"^winner seats: \[[\d ]+\] after \d+ hands$", done.stdout, re.M), done.stdout


# --- the build from a clean tree, and playhand ---

@pytest.fixture(scope="module")
def playhand(go) -> Path:
    """The example program, built from a clean tree by README's build command."""
    (build,) = [block for block in readme_blocks(README, "sh") if block.startswith("make -C clients/go\n")]
    with build_lock():   # the load generator's tests build and run from the same tree
        subprocess.run(["make", "-C", str(GO_CLIENT), "clean"], check=True, capture_output=True, timeout=60)
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", build], cwd=ROOT, capture_output=True, text=True,
                              timeout=BUILD_TIMEOUT_S)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "go vet" in done.stdout and PLAYHAND.is_file()
    return PLAYHAND


def run_playhand(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(PLAYHAND), *args], capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                          env={**os.environ, **(env or {})})


@pytest.mark.parametrize(("game", "seats", "dealer"), GAMES, ids=[g for g, _, _ in GAMES])
def test_playhand_plays_a_hand(playhand, server, game, seats, dealer):
    done = run_playhand("-server", server.address, "-game", game, "-seats", str(seats),
                        "-first-dealer", str(dealer), "-seed", "7")
    assert done.returncode == 0, done.stdout + done.stderr + server.log_text()[-3000:]
    game_id = re.search(r"^game (\S+): .*first dealer seat (\d+), playing seat 0$", done.stdout, re.M)
    assert game_id and int(game_id.group(2)) == dealer, done.stdout
    moves = re.findall(r"^move \d+: (.+) \(now version (\d+), (\w+)\)$", done.stdout, re.M)
    assert moves, done.stdout
    versions = [int(v) for _, v, _ in moves]
    assert versions == sorted(set(versions))  # every move a new version, bots' turns in between
    with GameClient(server.address) as spectator:
        score = spectator.get_score(game_id.group(1))
    first = score.hands[0]
    assert first.hand_number == 1 and first.dealer == dealer
    reported = re.findall(r"^side (\d+) \(seats \[([\d ]+)\]\): (-?\d+) tricks, (-?\d+) points, total (-?\d+)$",
                          done.stdout, re.M)
    assert [(int(s), [int(x) for x in seats_.split()], int(t), int(p), int(total))
            for s, seats_, t, p, total in reported] == \
        [(s.side, list(s.seats), s.tricks, s.hand_points, s.total_after) for s in first.sides]
    if game == "spades":  # seat 2's bot deals and seat 3's bids: seat 0's first decision is in the bidding
        assert moves[0][0].split()[0] in {"bid", "reveal", "double-nil"}, moves


def test_playhand_refuses_bad_flags_and_reports_failed_calls(playhand, server):
    done = run_playhand("-server", server.address, "-bot", "clever")
    assert done.returncode == 1 and 'playhand: -bot must be random, basic or strong, not "clever"' in done.stderr
    done = run_playhand("-server", server.address, "-game", "chess")
    assert done.returncode == 1
    assert "playhand: CreateGame: rpc error: code = InvalidArgument" in done.stderr, done.stderr


def test_playhand_sends_the_api_key(playhand, redis_url, redis_run_prefix):
    key, entry = apikeys.new_key("go-client")
    with ServerProcess(redis_url=redis_url, prefix=f"{redis_run_prefix}-go-keyed",
                       env={"CARDGAME_API_KEYS": entry}) as keyed:
        refused = run_playhand("-server", keyed.address, env={"CARDGAME_API_KEY": ""})
        assert refused.returncode == 1
        assert "CreateGame: rpc error: code = Unauthenticated" in refused.stderr, refused.stderr
        done = run_playhand("-server", keyed.address, env={"CARDGAME_API_KEY": key})
        assert done.returncode == 0, done.stderr + keyed.log_text()[-3000:]
        assert re.search(r"^hand 1 scored \(dealer seat 0\)$", done.stdout, re.M), done.stdout


def test_readme_playhand_command_runs(playhand, server):
    (play,) = [block for block in readme_blocks(README, "sh") if block.startswith("clients/go/bin/playhand ")]
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", play.replace("127.0.0.1:50051", server.address)],
                          cwd=ROOT, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    assert done.returncode == 0, f"{play}\n{done.stdout}\n{done.stderr}"
    assert re.search(r"^hand 1 scored \(dealer seat 0\)$", done.stdout, re.M), done.stdout
