"""Monitoring as deployed: a real Prometheus (Debian's `prometheus` package, started here on a
free port with deploy/prometheus/prometheus.yml, its target moved to a test server) scrapes a
server with two workers while games are played, conflicts raced and a turn left to time out, and
its HTTP API returns the server's series. The Grafana dashboard (deploy/grafana/cardgame.json) is
valid JSON whose every query names only series the live server exports, and runs in that
Prometheus with an answer on every panel.

`make test` installs the Debian packages first (`make debian-packages`); without Prometheus the
test fails, saying so.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from cardgame.client import GameClient
from cardgame.v1 import enums_pb2 as enums
from testkit.launcher import ServerProcess, free_port
from testkit.processes import stop_process

ROOT = Path(__file__).resolve().parents[2]
PROMETHEUS_CONFIG = ROOT / "deploy" / "prometheus" / "prometheus.yml"
DASHBOARD = ROOT / "deploy" / "grafana" / "cardgame.json"
SCRAPE_INTERVAL = "1s"
WAIT_S = 60.0
RACES = 20
MAX_MOVES = 200
# Grafana's variables, as Grafana fills them in before a query reaches Prometheus.
GRAFANA_VARIABLES = {"$__rate_interval": "1m", "$instance": ".*"}
MAIN_SERIES = ("cardgame_rpc_handled_total", "cardgame_rpc_duration_seconds_bucket", "cardgame_commit_conflicts_total",
               "cardgame_turn_timeouts_total", "cardgame_bot_think_seconds_bucket")


def wait_for(what: str, check: Callable[[], Any], timeout_s: float = WAIT_S) -> Any:
    """``check()``'s first truthy answer, asked every 0.2 s; the test fails after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if answer := check():
            return answer
        time.sleep(0.2)
    pytest.fail(f"{what}: not within {timeout_s} s")


def scrape(port: int) -> dict[tuple[str, frozenset], float]:
    """Every sample of the server's metrics endpoint: (name, labels) -> value."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        text = response.read().decode()
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


class Prometheus:
    """A Prometheus process with a configuration file and storage of its own, on a free port."""

    def __init__(self, config: dict[str, Any], directory: Path):
        binary = shutil.which("prometheus")
        if binary is None:
            pytest.fail("prometheus not found: run `make debian-packages` (Debian's prometheus package)",
                        pytrace=False)
        self.port = free_port()
        config_file = directory / "prometheus.yml"
        config_file.write_text(yaml.safe_dump(config))
        self.log = directory / "prometheus.log"
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen([binary, f"--config.file={config_file}",
                                          f"--storage.tsdb.path={directory / 'data'}",
                                          f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=warn"],
                                         stdout=log, stderr=subprocess.STDOUT)
        wait_for("Prometheus ready", self.ready, 30)

    def ready(self) -> bool:
        assert self.proc.poll() is None, f"prometheus exited: {self.log.read_text()[-3000:]}"
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/-/ready", timeout=2) as response:
                return response.status == 200
        except OSError:
            return False

    def query(self, expr: str) -> list[dict[str, Any]]:
        """The result vector of an instant query; the test fails if Prometheus refuses it."""
        url = f"http://127.0.0.1:{self.port}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                answer = json.load(response)
        except urllib.error.HTTPError as exc:
            pytest.fail(f"Prometheus refused {expr!r}: {exc.read().decode()}")
        assert answer["status"] == "success", answer
        return answer["data"]["result"]

    def value(self, expr: str) -> float:
        """The single value of an instant query (0 when it has no result)."""
        result = self.query(expr)
        assert len(result) <= 1, result
        return float(result[0]["value"][1]) if result else 0.0

    def stop(self) -> None:
        stop_process(self.proc, timeout_s=15)


def prometheus_config(metrics_port: int) -> dict[str, Any]:
    """deploy/prometheus/prometheus.yml, scraping every second, its target the test server."""
    config = yaml.safe_load(PROMETHEUS_CONFIG.read_text())
    config["global"]["scrape_interval"] = SCRAPE_INTERVAL
    (job,) = config["scrape_configs"]
    (static,) = job["static_configs"]
    assert static["targets"] == ["cardgame:9464"]
    static["targets"] = [f"127.0.0.1:{metrics_port}"]
    return config


def play_a_hand(client: GameClient) -> None:
    """One hand of Spades: seat 0 here (its first legal action each time), bots in the others."""
    seats = ["me", *((f"Bot {seat}", "basic") for seat in (1, 2, 3))]
    created = client.create_game("spades", seats, first_dealer=0)
    seat = client.with_token(created.tokens[0])
    view = seat.get_game(created.game_id)
    for _ in range(MAX_MOVES):
        if view.hand_number > 1 or (view.hand_number == 1 and view.phase == enums.PHASE_DEAL):
            return
        assert view.legal_actions, view
        view = seat.act(view, view.legal_actions[0])
    pytest.fail(f"the hand was not over after {MAX_MOVES} moves")


def refuse_a_move(client: GameClient) -> None:
    """A move out of turn: refused with FAILED_PRECONDITION."""
    created = client.create_game("spades", ["a", "b", "c", "d"], first_dealer=0)
    with pytest.raises(Exception, match="NOT_YOUR_TURN|not your turn|dealer"):
        client.with_token(created.tokens[1]).act(created.game_id, "deal")


def race_reveals(client: GameClient) -> None:
    """Four seats reveal their hands at the same moment until some commits conflict (they race
    for the same version; the losers are retried against the fresh state)."""
    for _ in range(RACES):
        created = client.create_game("spades", ["a", "b", "c", "d"], first_dealer=0)
        seats = [client.with_token(created.tokens[seat]) for seat in range(4)]
        seats[0].act(created.game_id, "deal")
        barrier = threading.Barrier(4)

        def reveal(seat: GameClient, game_id: str = created.game_id, barrier: threading.Barrier = barrier) -> None:
            barrier.wait(10)
            seat.act(game_id, "reveal")

        with futures.ThreadPoolExecutor(4) as pool:
            list(pool.map(reveal, seats))
        yield


def time_out_a_turn(client: GameClient) -> str:
    """A game whose human dealer lets its turn pass the deadline (the shortest allowed)."""
    created = client.create_game("spades", ["me", *((f"Bot {seat}", "basic") for seat in (1, 2, 3))],
                                 first_dealer=0, turn_timeout_ms=1000)
    return created.game_id


@pytest.fixture(scope="module")
def live(redis_url: str, module_prefix: str, tmp_path_factory: pytest.TempPathFactory
         ) -> Iterator[tuple[ServerProcess, int, Prometheus]]:
    """A server with two workers and its metrics port, scraped by Prometheus every second, after
    two hands were played (the second once Prometheus had seen the first's moves), a move was
    refused, reveals raced until commits conflicted and a turn timed out."""
    server = ServerProcess("--workers", "2", "--metrics-port", "0", redis_url=redis_url, prefix=module_prefix)
    server.start()
    metrics_port = server.metrics_port
    prometheus = None
    try:
        prometheus = Prometheus(prometheus_config(metrics_port), tmp_path_factory.mktemp("prometheus"))
        with GameClient(server.address) as client:
            time_out_a_turn(client)
            play_a_hand(client)
            # once Prometheus holds the moves' series, more moves make its rate positive
            wait_for("Prometheus has the moves", lambda: prometheus.query('cardgame_rpc_handled_total{method="Act"}'))
            play_a_hand(client)
            refuse_a_move(client)
            for _ in race_reveals(client):
                if sum(v for (name, _), v in scrape(metrics_port).items() if name == "cardgame_commit_conflicts_total"):
                    break
            else:
                pytest.fail(f"{RACES} races of four reveals never conflicted")
        wait_for("a turn timed out", lambda: scrape(metrics_port).get(("cardgame_turn_timeouts_total", frozenset())))
        yield server, metrics_port, prometheus
    finally:
        if prometheus is not None:
            prometheus.stop()
        server.stop()


def test_prometheus_scrapes_the_server(live):
    server, metrics_port, prometheus = live
    assert wait_for("the target is up", lambda: prometheus.value('up{job="cardgame"}') == 1)
    (target,) = prometheus.query('up{job="cardgame"}')
    assert target["metric"]["instance"] == f"127.0.0.1:{metrics_port}"
    served = scrape(metrics_port)   # the traffic is over: Prometheus catches up with these values
    for name, labels in [("cardgame_games_created_total", {}),
                         ("cardgame_rpc_handled_total", {"method": "Act", "code": "OK"}),
                         ("cardgame_bot_think_seconds_count", {"strategy": "basic"}),
                         ("cardgame_turn_timeouts_total", {})]:
        expected = served[(name, frozenset(labels.items()))]
        assert expected > 0, name
        selector = ",".join(f'{k}="{v}"' for k, v in labels.items())
        wait_for(f"Prometheus has {name}{{{selector}}} = {expected}",
                 lambda name=name, selector=selector, expected=expected:
                 prometheus.value(f'sum({name}{{job="cardgame",{selector}}})') == expected)
    assert prometheus.value('sum(cardgame_commit_conflicts_total{job="cardgame"})') > 0
    assert prometheus.value('sum(rate(cardgame_rpc_handled_total{job="cardgame",method="Act"}[5m]))') > 0


def dashboard_queries() -> list[tuple[str, str]]:
    """(panel title, PromQL) of every query of the dashboard: its panels' targets and its variables."""
    dashboard = json.loads(DASHBOARD.read_text())
    queries = [(panel["title"], target["expr"]) for panel in dashboard["panels"] for target in panel["targets"]]
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            query = re.fullmatch(r"label_values\((\w+), *\w+\)", variable["query"]["query"])
            assert query, variable
            queries.append((f"${variable['name']}", query.group(1)))
    return queries


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression selects (an identifier before a ``{`` selector, or alone)."""
    return set(re.findall(r"\b([a-zA-Z_:][a-zA-Z0-9_:]*)\{", expr)) | (
        {expr} if re.fullmatch(r"[a-zA-Z_:][a-zA-Z0-9_:]*", expr) else set())


def test_dashboard_uses_only_series_the_server_exports(live):
    _, metrics_port, _ = live
    exported = {name for name, _ in scrape(metrics_port)}
    used: set[str] = set()
    for title, expr in dashboard_queries():
        names = metric_names(expr)
        assert names, f"{title}: no metric in {expr!r}"
        assert names <= exported, f"{title}: the server exports no {sorted(names - exported)}"
        used |= names
    assert set(MAIN_SERIES) <= used
    dashboard = json.loads(DASHBOARD.read_text())
    assert len({panel["id"] for panel in dashboard["panels"]}) == len(dashboard["panels"])
    assert {"move", "latency", "conflicts", "timeouts", "bot think"} <= {
        word for panel in dashboard["panels"] for word in ("move", "latency", "conflicts", "timeouts", "bot think")
        if word in panel["title"].lower()}


def test_dashboard_queries_run_in_prometheus(live):
    _, _, prometheus = live
    answered: dict[str, bool] = {}
    wait_for("two scrapes of every series", lambda: min(
        len(series["values"]) for series in prometheus.query('{__name__=~"cardgame_.+", job="cardgame"}[1m]')) >= 2)
    for title, expr in dashboard_queries():
        for variable, value in GRAFANA_VARIABLES.items():
            expr = expr.replace(variable, value)
        assert "$" not in expr, expr
        answered[title] = answered.get(title, False) or bool(prometheus.query(expr))
    assert all(answered.values()), [title for title, ok in answered.items() if not ok]
