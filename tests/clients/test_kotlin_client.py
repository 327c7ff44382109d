"""The Kotlin client (clients/kotlin) against live servers: its JUnit tests play a whole game of
every game the server plays over Connect (binary and JSON) and gRPC-Web on the HTTP port and
over gRPC on the gRPC port, each human seat acting with its own token from its view's legal
actions while a WatchGame flow follows the game; check refusals (NOT_YOUR_TURN and others) and
that a request id sent twice is answered with the same bytes; and keep a WatchGame flow going
while this test kills its server and starts a new one on the same port and Redis prefix (the
Kotlin test asks for the restart with a file "stop" in CARDGAME_SIGNAL_DIR; this side answers
with "restarted").

The games are the server's (GetCatalog): the Kotlin tests list them with the Kotlin client, and
this side checks that each was played over each protocol. The Kotlin blocks of
clients/kotlin/README.md (and any of docs/clients.md) are the example programs the build
compiles, run here against a live server.

The build is `make -C clients/kotlin test-compile` (Maven, with Maven Central for the plugins
and libraries); here the compiled tests run offline (`mvn -o surefire:test`). Without Java,
Maven or a current build the test fails, saying what is missing: the Kotlin client is part of
what `make test` proves.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from testkit.launcher import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
KOTLIN = ROOT / "clients" / "kotlin"
VERSION = (ROOT / "VERSION").read_text().strip()
MVN_TIMEOUT_S = 240       # below pytest-timeout's 300 s, so a hang still shows Maven's output
RESTART_TIMEOUT_S = 30    # the restart itself: kill, start again, healthy
WIRES = ("Connect binary", "Connect JSON", "gRPC-Web", "gRPC")
POM = "{http://maven.apache.org/POM/4.0.0}"
EXAMPLES = KOTLIN / "src" / "test" / "kotlin"
# Each example of clients/kotlin/README.md (in order) and what it prints; docs/clients.md may show them too.
EXAMPLE_OUTPUT = {"FirstGame.kt": ("refused: failed_precondition WRONG_PHASE", "winner seats: ["),
                  "FollowGame.kt": ("games: ", "views streamed; version", "phase game_over")}
EXAMPLE_PAGES = ("clients/kotlin/README.md", "docs/clients.md")
EXAMPLE_TIMEOUT_S = 60


def _text(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""


def _check_build() -> str:
    """The mvn executable, once Java, Maven and a build of the current sources are there."""
    java, mvn = shutil.which("java"), shutil.which("mvn")
    if java is None or mvn is None:
        pytest.fail("Java 17+ and Maven are needed for the Kotlin client test (Debian: openjdk-17-jdk-headless, "
                    "maven)", pytrace=False)
    stamp = KOTLIN / "target" / ".test-stamp"
    built = (KOTLIN / "target" / "test-classes", KOTLIN / "target" / "test-classpath.txt")
    if not stamp.is_file() or not all(path.exists() for path in built):
        pytest.fail("clients/kotlin is not built: run `make -C clients/kotlin test-compile`", pytrace=False)
    sources = [KOTLIN / "pom.xml", ROOT / "VERSION", *(KOTLIN / "src").rglob("*"),
               *(ROOT / "proto" / "cardgame" / "v1").glob("*.proto")]
    stale = [str(p.relative_to(ROOT)) for p in sources if p.is_file() and p.stat().st_mtime > stamp.stat().st_mtime]
    if stale:
        pytest.fail(f"the build of clients/kotlin is older than {stale[:5]}: run `make -C clients/kotlin test-compile`",
                    pytrace=False)
    return mvn


def _crash_and_restart(server: ServerProcess) -> int:
    """Kill the server (a crash: its streams get no goodbye) and start a new process on the same
    ports and Redis prefix; returns the new process's pid."""
    old = server.proc
    assert old is not None
    old.kill()
    old.wait()
    server.start(timeout_s=RESTART_TIMEOUT_S)
    assert server.proc is not None and server.proc.pid != old.pid
    return server.proc.pid


def _reports() -> dict[str, int]:
    """Tests, failures, errors and skipped tests summed over Surefire's XML reports."""
    totals = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
    for report in (KOTLIN / "target" / "surefire-reports").glob("TEST-*.xml"):
        suite = ET.parse(report).getroot()
        for key in totals:
            totals[key] += int(suite.get(key, "0"))
    return totals


def test_the_kotlin_package_carries_the_version() -> None:
    project = ET.parse(KOTLIN / "pom.xml").getroot()
    assert project.findtext(f"{POM}version") == VERSION, "clients/kotlin/pom.xml's <version> must be VERSION"
    assert (KOTLIN / "target" / f"cardgame-client-{VERSION}.jar").is_file() or pytest.fail(
        "clients/kotlin is not built: run `make -C clients/kotlin test-compile`", pytrace=False)


def test_kotlin_client_against_live_servers(redis_url, redis_run_prefix, tmp_path):
    mvn = _check_build()
    signals = tmp_path / "signals"
    signals.mkdir()
    output = tmp_path / "mvn.log"
    server = ServerProcess("--http-port", "0", redis_url=redis_url, prefix=f"{redis_run_prefix}-kotlin")
    restarted = ServerProcess("--http-port", "0", redis_url=redis_url, prefix=f"{redis_run_prefix}-kotlin-restart")
    shutil.rmtree(KOTLIN / "target" / "surefire-reports", ignore_errors=True)
    try:
        server.start()
        restarted.start()
        with server.channel() as channel:   # what the Kotlin tests must have played: the server's games
            catalog = [game.name for game in pb_grpc.GameServiceStub(channel).GetCatalog(pb.GetCatalogRequest(),
                                                                                           timeout=10).games]
        env = {**os.environ, "CARDGAME_SERVER": f"http://{server.address}",
               "CARDGAME_HTTP_SERVER": f"http://127.0.0.1:{server.http_port}",
               "CARDGAME_RESTART_HTTP_SERVER": f"http://127.0.0.1:{restarted.http_port}",
               "CARDGAME_SIGNAL_DIR": str(signals)}
        started = time.monotonic()
        with output.open("w") as log:
            tests = subprocess.Popen([mvn, "-o", "-q", "-B", "surefire:test"], cwd=KOTLIN, env=env, stdout=log,
                                     stderr=subprocess.STDOUT)
            try:
                restart_done = False
                while tests.poll() is None:
                    if not restart_done and (signals / "stop").exists():
                        (signals / "restarted").write_text(f"{_crash_and_restart(restarted)}\n")
                        restart_done = True
                    if time.monotonic() - started > MVN_TIMEOUT_S:
                        tests.kill()
                        tests.wait()
                        pytest.fail(f"the Kotlin tests did not finish in {MVN_TIMEOUT_S} s\n{_text(output)}\n"
                                    f"{server.log_text()[-3000:]}", pytrace=False)
                    time.sleep(0.05)
            finally:
                if tests.poll() is None:
                    tests.kill()
                    tests.wait()
        elapsed = time.monotonic() - started
        printed = _text(output)
        if tests.returncode != 0:
            pytest.fail(f"mvn surefire:test exited with {tests.returncode} after {elapsed:.1f} s\n{printed}\n"
                        f"--- server log ---\n{server.log_text()[-3000:]}\n"
                        f"--- restarted server log ---\n{restarted.log_text()[-3000:]}", pytrace=False)
    finally:
        restarted.stop()
        server.stop()
    totals = _reports()
    assert totals["tests"] > 0 and totals["failures"] == totals["errors"] == totals["skipped"] == 0, (totals, printed)
    assert restart_done, "the restart test never asked for the restart"
    played = set(re.findall(r"^KOTLIN-GAME (\S+) over ([^:]+):", printed, re.M))
    expected = {(game, wire) for game in catalog for wire in WIRES}
    assert played == expected, f"played {sorted(played)}, not every game over every protocol"
    for line in ("KOTLIN-REFUSED failed_precondition NOT_YOUR_TURN", "KOTLIN-IDEMPOTENT", "KOTLIN-RESTART"):
        assert line in printed, f"no {line!r} in the Kotlin tests' output:\n{printed}"
    print(f"Kotlin tests: {totals['tests']} in {elapsed:.1f} s, {len(played)} games played")


def kotlin_blocks(page: Path) -> list[str]:
    return re.findall(r"^```kotlin\n(.*?)^```$", page.read_text(), re.M | re.S)


def test_the_examples_are_the_compiled_ones_and_run(redis_url, redis_run_prefix):
    """clients/kotlin/README.md's Kotlin blocks are the example programs the build compiles (and so
    may docs/clients.md's be), and they run against a live server."""
    _check_build()
    sources = {name: (EXAMPLES / name).read_text() for name in EXAMPLE_OUTPUT}
    for page in EXAMPLE_PAGES:
        blocks = kotlin_blocks(ROOT / page)
        for block in blocks:
            assert block in sources.values(), f"a Kotlin block of {page} is none of {sorted(sources)}:\n{block}"
        if page == EXAMPLE_PAGES[0]:
            assert blocks == list(sources.values()), f"{page} must show {sorted(sources)}, in order"
    classpath = os.pathsep.join([(KOTLIN / "target" / "test-classpath.txt").read_text().strip(),
                                 str(KOTLIN / "target" / "classes"), str(KOTLIN / "target" / "test-classes")])
    with ServerProcess("--http-port", "0", redis_url=redis_url, prefix=f"{redis_run_prefix}-kotlin-examples") as live:
        for name, expected in EXAMPLE_OUTPUT.items():
            main = name.removesuffix(".kt") + "Kt"
            done = subprocess.run(["java", "-cp", classpath, main, f"http://127.0.0.1:{live.http_port}"],
                                  capture_output=True, text=True, timeout=EXAMPLE_TIMEOUT_S)
            assert done.returncode == 0, f"{main}: {done.stdout}\n{done.stderr}\n{live.log_text()[-3000:]}"
            for text in expected:
                assert text in done.stdout, f"{main} did not print {text!r}:\n{done.stdout}"
