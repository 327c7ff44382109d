"""The Go client (clients/go) against live servers: `make -C clients/go` generates its stubs from
proto/ with Debian's protoc and Go plugins and builds it offline from Debian's Go packages, then
its example program (cmd/playhand) plays one hand of every game against a server on Redis, its
moves taken from the view's legal actions; what it reports is checked through the Python client.

`make test` installs the Debian packages first (`make debian-packages`); without Go, protoc or
the plugins the test fails, saying what is missing: the Go client is part of what `make test`
proves.
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
from service.rpc import apikeys
from testkit.launcher import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
GO_CLIENT = ROOT / "clients" / "go"
PLAYHAND = GO_CLIENT / "bin" / "playhand"
TOOLS = ("go", "protoc", "protoc-gen-go", "protoc-gen-go-grpc")
BUILD_TIMEOUT_S = 280
RUN_TIMEOUT_S = 90
# (game, seats, first dealer): every game, each with a first dealer other than the player's seat 0
# but one, to show that the fixed dealer is the one the hand is dealt by.
GAMES = [("spades", 4, 2), ("spades2", 2, 1), ("buck_euchre", 4, 0), ("hearts", 4, 3)]


@pytest.fixture(scope="module")
def playhand() -> Path:
    """The example program, built by clients/go's Makefile from a clean tree."""
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        pytest.fail(f"{', '.join(missing)} not found: run `make debian-packages` (Debian's golang-go, "
                    "protobuf-compiler, protoc-gen-go, protoc-gen-go-grpc, golang-google-grpc-dev, "
                    "golang-google-protobuf-dev)", pytrace=False)
    with build_lock():   # the load generator's tests build and run from the same tree
        subprocess.run(["make", "-C", str(GO_CLIENT), "clean"], check=True, capture_output=True, timeout=60)
        done = subprocess.run(["make", "-C", str(GO_CLIENT)], capture_output=True, text=True,
                              timeout=BUILD_TIMEOUT_S, env={**os.environ, "GOFLAGS": "", "GOPROXY": "off"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert (GO_CLIENT / "gen" / "cardgame" / "v1" / "game_service_grpc.pb.go").is_file()
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


def readme_blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", (GO_CLIENT / "README.md").read_text(), re.M | re.S)


def test_readme_commands_run_and_its_example_is_the_compiled_one(playhand, server):
    build, play = readme_blocks("sh")
    for block in (build, play.replace("127.0.0.1:50051", server.address)):
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=ROOT, capture_output=True, text=True,
                              timeout=BUILD_TIMEOUT_S)
        assert done.returncode == 0, f"{block}\n{done.stdout}\n{done.stderr}"
    assert re.search(r"^hand 1 scored \(dealer seat 0\)$", done.stdout, re.M), done.stdout
    (example,) = readme_blocks("go")
    source = (GO_CLIENT / "client" / "example_test.go").read_text()
    body = source[source.index("func Example() {\n") + len("func Example() {\n"):source.rindex("}")]
    assert "".join(line.removeprefix("\t") + "\n" for line in body.splitlines()) == example
