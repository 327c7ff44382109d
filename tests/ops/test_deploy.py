"""Deployment files: the Dockerfile, .dockerignore, docker-compose.yml and the Kubernetes manifests.

No Docker engine or cluster is needed. The files are read, and what they run is run outside
Docker: the image's web stage (its COPY instructions from the build context as .dockerignore
leaves it, then its RUN commands) builds the web table, and the image's entry point, with the
environment the Dockerfile and docker-compose.yml give it (ports moved to free ones, Redis to
the tests'), serves gRPC, HTTP (the web table, Connect, gRPC-Web) and metrics, and passes the
image's HEALTHCHECK command. The manifests are validated against the Kubernetes API schemas
bundled with kubernetes-validate (requirements-dev.txt), strictly (unknown fields fail), for the
oldest Kubernetes they are written for and for the newest the validator knows.
"""

from __future__ import annotations

import ast
import http.client
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from cardgame.client import GameClient
from cardgame.v1 import game_service_pb2 as pb
from testkit.launcher import closed_port, free_port
from testkit.processes import stop_process

try:
    import kubernetes_validate
except ImportError as exc:  # never skip: make install puts it in .venv
    raise ImportError("kubernetes-validate is missing: run `make install` (requirements-dev.txt)") from exc

ROOT = Path(__file__).resolve().parents[2]
KUBE = ROOT / "deploy" / "kubernetes"
MANIFESTS = sorted(p for p in KUBE.glob("*.yaml") if p.name != "kustomization.yaml")
KUBERNETES_VERSIONS = ("1.27.0", kubernetes_validate.latest_version())
SECRET = "cardgame-secrets"
PORTS = {"PORT": "grpc", "HTTP_PORT": "http", "METRICS_PORT": "metrics"}  # the image's port settings
START_TIMEOUT_S = 30.0
NPM_TIMEOUT_S = 240


def documents(path: Path) -> list[dict[str, Any]]:
    """The YAML documents of a manifest file."""
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc is not None]


def resource(kind: str) -> dict[str, Any]:
    """The one manifest of ``kind``."""
    found = [doc for path in MANIFESTS for doc in documents(path) if doc["kind"] == kind]
    assert len(found) == 1, f"expected one {kind}, found {len(found)}"
    return found[0]


# --- Kubernetes manifests ---

@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("path", MANIFESTS, ids=[p.name for p in MANIFESTS])
def test_manifest_is_valid(path: Path, version: str) -> None:
    for doc in documents(path):
        kubernetes_validate.validate(doc, version, strict=True)


def test_validator_refuses_unknown_fields() -> None:
    service = json.loads(json.dumps(resource("Service")))
    service["spec"]["ports"][0]["prot"] = 50051
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(service, KUBERNETES_VERSIONS[0], strict=True)


def test_kustomization_lists_every_manifest() -> None:
    kustomization = yaml.safe_load((KUBE / "kustomization.yaml").read_text())
    assert kustomization["kind"] == "Kustomization"
    assert sorted(kustomization["resources"]) == [p.name for p in MANIFESTS]
    assert [image["name"] for image in kustomization["images"]] == ["cardgame"]


def containers() -> dict[str, dict[str, Any]]:
    """The Deployment's containers by name: the server and its gRPC front."""
    return {c["name"]: c for c in resource("Deployment")["spec"]["template"]["spec"]["containers"]}


def test_deployment_probes_resources_security_and_settings() -> None:
    deployment = resource("Deployment")
    pod = deployment["spec"]["template"]["spec"]
    assert list(containers()) == ["cardgame", "grpc-front"]
    container = containers()["cardgame"]
    ports = {port["name"]: port["containerPort"] for port in container["ports"]}
    server_ports = {**PORTS, "PORT": "grpc-server"}   # the Service's grpc port is the front's
    assert ports == {name: int(image_env()[setting]) for setting, name in server_ports.items()}
    assert all(port["protocol"] == "TCP" for port in container["ports"])
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert container[probe]["grpc"] == {"port": 50051}, probe
    for kind in ("requests", "limits"):
        assert set(container["resources"][kind]) == {"cpu", "memory"}
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] == dockerfile_uid()
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert container["securityContext"]["capabilities"]["drop"] == ["ALL"]
    assert container["envFrom"] == [{"configMapRef": {"name": resource("ConfigMap")["metadata"]["name"]}}]
    secrets = {e["name"]: e["valueFrom"]["secretKeyRef"] for e in container["env"]}
    assert secrets["CARDGAME_TOKEN_SECRET"]["name"] == secrets["CARDGAME_API_KEYS"]["name"] == SECRET
    assert "optional" not in secrets["CARDGAME_TOKEN_SECRET"]
    # drain and grace fit in the termination grace period
    settings = resource("ConfigMap")["data"]
    assert float(settings["DRAIN_S"]) + float(settings["GRACE_S"]) < pod["terminationGracePeriodSeconds"]
    assert container["image"] == "cardgame"


def test_the_grpc_front_passes_the_services_grpc_port_to_the_server_beside_it() -> None:
    front, server = containers()["grpc-front"], containers()["cardgame"]
    (port,) = front["ports"]
    assert port["name"] == "grpc" and port["protocol"] == "TCP"
    env = {e["name"]: e["value"] for e in front["env"]}
    server_port = next(p["containerPort"] for p in server["ports"] if p["name"] == "grpc-server")
    assert env == {"CARDGAME_GRPC_UPSTREAM": f"127.0.0.1:{server_port}", "GRPC_FRONT_PORT": str(port["containerPort"])}
    assert front["readinessProbe"]["tcpSocket"]["port"] == port["containerPort"]
    assert front["securityContext"]["allowPrivilegeEscalation"] is False and front["securityContext"]["runAsUser"] != 0
    volumes = {v["name"]: v for v in resource("Deployment")["spec"]["template"]["spec"]["volumes"]}
    mounts = {m["mountPath"]: m["name"] for m in front["volumeMounts"]}
    generated = yaml.safe_load((KUBE / "kustomization.yaml").read_text())["configMapGenerator"]
    (template,) = [g for g in generated if g["name"] == volumes[mounts["/etc/nginx/templates"]]["configMap"]["name"]]
    (entry,) = template["files"]
    name, _, source = entry.partition("=")
    assert name.endswith(".template") and (KUBE / source).is_file()
    assert {"/etc/nginx/conf.d", "/tmp"} <= set(mounts)   # where the image renders it, and its temp files


def test_pods_offer_their_metrics_port_to_prometheus() -> None:
    template = resource("Deployment")["spec"]["template"]
    container = containers()["cardgame"]
    annotations = template["metadata"]["annotations"]
    metrics_port = next(p["containerPort"] for p in container["ports"] if p["name"] == "metrics")
    assert annotations == {"prometheus.io/scrape": "true", "prometheus.io/port": str(metrics_port),
                           "prometheus.io/path": "/metrics"}
    assert str(metrics_port) == resource("ConfigMap")["data"]["METRICS_PORT"]


def test_configmap_holds_only_server_settings() -> None:
    settings = resource("ConfigMap")["data"]
    assert {"REDIS_URL", "REDIS_CLUSTER", "REQUIRE_NOEVICTION"} <= set(settings)
    assert {setting: settings[setting] for setting in PORTS} == {setting: image_env()[setting] for setting in PORTS}
    unknown = set(settings) - server_env_names()
    assert not unknown, f"service/ops/config.py reads no {sorted(unknown)}"
    assert all(isinstance(v, str) for v in settings.values())


def test_service_hpa_and_pdb_point_at_the_deployment() -> None:
    deployment = resource("Deployment")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    service = resource("Service")
    assert service["spec"]["selector"].items() <= labels.items()
    assert [(p["name"], p["port"], p["targetPort"]) for p in service["spec"]["ports"]] == \
        [("grpc", 50051, "grpc"), ("http", 8080, "http")]
    assert resource("PodDisruptionBudget")["spec"]["selector"]["matchLabels"].items() <= labels.items()
    hpa = resource("HorizontalPodAutoscaler")
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment",
                                             "name": deployment["metadata"]["name"]}
    assert 1 < hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]


def server_env_names() -> set[str]:
    """The environment variables service/ops/config.py reads."""
    source = (ROOT / "service" / "ops" / "config.py").read_text()
    return set(re.findall(r'(?:env|_env_bool)\("([A-Z0-9_]+)"', source))


# --- Dockerfile ---

def dockerfile_stages() -> dict[str, list[tuple[str, str]]]:
    """The Dockerfile's stages by name (the last one, unnamed, as "runtime"), each a list of
    (INSTRUCTION, arguments), continuation lines joined."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    stages: list[list[tuple[str, str]]] = []
    names: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        instruction, _, args = line.partition(" ")
        if instruction.upper() == "FROM":
            stages.append([])
            names.append(args.split(" AS ")[1].strip() if " AS " in args else "runtime")
        stages[-1].append((instruction.upper(), " ".join(args.split())))
    assert names[-1] == "runtime" and len(set(names)) == len(names), names
    return dict(zip(names, stages, strict=True))


def final_stage() -> list[tuple[str, str]]:
    return dockerfile_stages()["runtime"]


def instructions(stage: list[tuple[str, str]], name: str) -> list[str]:
    return [args for instruction, args in stage if instruction == name]


def stage_env(stage: list[tuple[str, str]]) -> dict[str, str]:
    """The variables a stage's ENV instructions set (``ENV A=1 B=2`` form)."""
    return dict(pair.split("=", 1) for args in instructions(stage, "ENV") for pair in args.split())


def image_env() -> dict[str, str]:
    """The runtime stage's environment."""
    return stage_env(final_stage())


def dockerfile_uid() -> int:
    (user,) = instructions(final_stage(), "USER")
    return int(user.split(":")[0])


def test_runtime_stage_has_no_code_generator() -> None:
    stages = dockerfile_stages()
    assert list(stages) == ["web", "build", "runtime"]
    runtime_text = " ".join(args for _, args in stages["runtime"])
    assert not re.search(r"grpc[-_]tools|protoc|requirements-dev|npm|node", runtime_text)
    requirements = (ROOT / "requirements.txt").read_text()
    assert not re.search(r"(?im)^grpcio-tools", requirements), "requirements.txt is installed in the image"
    assert ("COPY", "--from=build /opt/venv /opt/venv") in stages["runtime"]
    build_text = " ".join(args for _, args in stages["build"])
    assert "pip wheel" in build_text and "./clients/python" in build_text  # its build generates the stubs


def test_web_stage_builds_what_make_clients_web_builds() -> None:
    web = dockerfile_stages()["web"]
    assert instructions(web, "FROM") == ["node:20-bookworm-slim AS web"]
    runs = instructions(web, "RUN")
    assert runs == ["cd clients/typescript && npm ci", "cd web && npm ci",
                    "cd clients/typescript && npm run generate && npm run typecheck && npm run build",
                    "cd web && npm run build"]
    makefile = (ROOT / "Makefile").read_text()
    for script in ("generate", "typecheck", "build"):  # the scripts `make clients web` runs
        assert f"npm run --silent {script}" in makefile
    (workdir,) = instructions(final_stage(), "WORKDIR")
    (web_workdir,) = instructions(web, "WORKDIR")
    assert f"--from=web {web_workdir}/web/dist web/dist" in instructions(final_stage(), "COPY")
    assert image_env()["WEB_ROOT"] == f"{workdir}/web/dist"


def dockerignored(relative: str, patterns: list[str]) -> bool:
    """Whether .dockerignore leaves ``relative`` (a path in the context) out: it or a directory
    above it matches a pattern (``*`` within a name, ``**`` across directories)."""
    parts = relative.split("/")
    for i in range(1, len(parts) + 1):
        prefix = "/".join(parts[:i])
        for pattern in patterns:
            regex = re.escape(pattern).replace(r"\*\*/", "(?:.*/)?").replace(r"\*", "[^/]*").replace(r"\?", "[^/]")
            if re.fullmatch(regex, prefix):
                return True
    return False


def dockerignore_patterns() -> list[str]:
    lines = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()]
    patterns = [line.rstrip("/") for line in lines if line and not line.startswith("#")]
    assert not any(p.startswith("!") for p in patterns), "dockerignored() has no rule for ! exceptions"
    return patterns


def test_dockerignore_leaves_out_builds_and_keeps_sources() -> None:
    patterns = dockerignore_patterns()
    for left_out in (".venv/bin/python", "web/node_modules/vite/package.json", "web/dist/index.html",
                     "clients/typescript/node_modules/x", "clients/typescript/src/gen/x.ts", "tests/ops/test_deploy.py",
                     "clients/go/vendor/modules.txt", "service/__pycache__/x.pyc", ".git/HEAD"):
        assert dockerignored(left_out, patterns), left_out
    for kept in ("web/src/main.ts", "web/tests/browser.ts", "clients/typescript/src/index.ts", "buf.yaml",
                 "proto/cardgame/v1/view.proto", "service/__main__.py", "clients/typescript/test/client.test.ts"):
        assert not dockerignored(kept, patterns), kept


def copy_from_context(args: str, workdir: Path, patterns: list[str]) -> None:
    """Carry out ``COPY <sources…> <dest>`` from the repository as a build context."""
    *sources, dest = args.split()
    target = workdir / dest
    for source in sources:
        path = ROOT / source.rstrip("/")
        assert path.exists(), f"COPY {source}: not in the build context"
        if path.is_dir():
            for file in path.rglob("*"):
                relative = file.relative_to(ROOT).as_posix()
                if file.is_file() and not dockerignored(relative, patterns):
                    copied = target / file.relative_to(path)
                    copied.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(file, copied)
        else:
            assert not dockerignored(source, patterns), f"COPY {source}: .dockerignore leaves it out"
            into = target / path.name if dest.endswith("/") or len(sources) > 1 else target
            into.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, into)


def test_web_stage_runs_outside_docker(tmp_path: Path) -> None:
    """The web stage, instruction by instruction, in a directory standing for its WORKDIR: what
    it copies from the context (as .dockerignore filters it) is enough to build the web table."""
    if shutil.which("npm") is None:
        pytest.fail("npm is needed to run the image's web stage (Node.js 20, as `make clients` needs)")
    stage = dockerfile_stages()["web"]
    patterns = dockerignore_patterns()
    workdir = tmp_path / "src"
    env = {**os.environ, "npm_config_cache": os.environ.get("npm_config_cache", str(Path.home() / ".npm"))}
    for instruction, args in stage[1:]:
        if instruction == "WORKDIR":
            workdir.mkdir(parents=True, exist_ok=True)
        elif instruction == "ENV":
            env.update(stage_env([(instruction, args)]))
        elif instruction == "COPY":
            copy_from_context(args, workdir, patterns)
        elif instruction == "RUN":
            done = subprocess.run(["sh", "-c", args], cwd=workdir, env=env, capture_output=True, text=True,
                                  timeout=NPM_TIMEOUT_S)
            assert done.returncode == 0, f"RUN {args}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        else:
            pytest.fail(f"the web stage runner does not know {instruction}")
    index = (workdir / "web" / "dist" / "index.html").read_text()
    assert re.search(r'<script type="module"[^>]* src="/assets/[^"]+\.js"', index), index
    scripts = list((workdir / "web" / "dist" / "assets").glob("*.js"))
    assert scripts and any("application/connect+json" in path.read_text() for path in scripts)  # the client's transport


def test_healthcheck_entrypoint_user_and_ports() -> None:
    stage = final_stage()
    (healthcheck,) = instructions(stage, "HEALTHCHECK")
    assert healthcheck.endswith('CMD ["python", "-m", "service.healthcheck"]')
    (entrypoint,) = instructions(stage, "ENTRYPOINT")
    assert json.loads(entrypoint) == ["python", "-m", "service"]
    assert dockerfile_uid() != 0
    env = image_env()
    (exposed,) = instructions(stage, "EXPOSE")
    assert exposed.split() == [env[setting] for setting in PORTS]
    assert env["PORT"] == "50051"


def test_runtime_stage_copies_every_package_the_server_imports() -> None:
    copied = {args.split()[0].rstrip("/") for args in instructions(final_stage(), "COPY")
              if not args.startswith("--from")}
    first_party = {p.name for p in ROOT.iterdir() if (p / "__init__.py").exists()}
    imported: set[str] = set()
    for path in (ROOT / "service").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    missing = (imported & first_party) - copied
    assert not missing, f"the image lacks {sorted(missing)}"
    for source in copied:
        assert (ROOT / source).exists(), source


def test_the_entrypoint_runs_outside_docker() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("PORT", "WEB_ROOT")}
    done = subprocess.run([sys.executable, "-m", "service", "--help"], cwd=ROOT, env={**env, "COLUMNS": "400"},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "(default: 50051)" in done.stdout
    assert f"(WEB_ROOT) (default: {ROOT / 'web' / 'dist'})" in done.stdout  # where `make web` builds it
    done = subprocess.run([sys.executable, "-m", "service.healthcheck", "--help"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr


# --- the image's configuration, run outside Docker ---

def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def container_env(redis_url: str, key_prefix: str) -> tuple[dict[str, str], dict[str, int]]:
    """The environment the server container gets (the image's ENV, then compose's environment),
    made to run here: the ports moved to free ones, paths under the image's WORKDIR to the
    repository, Redis to the tests' with a key prefix of the test's own, the token secret given;
    and the free port of each port setting."""
    (workdir,) = instructions(final_stage(), "WORKDIR")
    env = {k: v for k, v in image_env().items() if k != "PATH"}
    for name, value in compose()["services"]["cardgame"]["environment"].items():
        env[name] = str(value)
    assert env["REDIS_URL"].startswith("redis://redis:6379/")
    env["REDIS_URL"] = redis_url
    env["KEY_PREFIX"] = key_prefix
    assert env["CARDGAME_TOKEN_SECRET"].startswith("${CARDGAME_TOKEN_SECRET:?")
    env["CARDGAME_TOKEN_SECRET"] = "deploy-test-token-secret-of-at-least-32-bytes"
    ports = {setting: free_port() for setting in PORTS}
    env.update({setting: str(port) for setting, port in ports.items()})
    env = {k: str(ROOT / v.removeprefix(workdir + "/")) if v.startswith(workdir + "/") else v for k, v in env.items()}
    return env, ports


def command(exec_form: str) -> list[str]:
    """An exec-form command of the Dockerfile, with this test's Python for ``python``."""
    args = json.loads(exec_form)
    return [sys.executable if args[0] == "python" else args[0], *args[1:]]


def healthcheck(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The image's HEALTHCHECK command, run as Docker runs it (the container's environment)."""
    (line,) = instructions(final_stage(), "HEALTHCHECK")
    return subprocess.run(command(line.split(" CMD ", 1)[1]), cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=30)


def http_call(port: int, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
              ) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request(method, path, body=body or None, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def grpc_web_frames(body: bytes) -> list[tuple[int, bytes]]:
    """The (flags, payload) frames of a gRPC-Web response body."""
    frames = []
    while body:
        flags, length = struct.unpack(">BI", body[:5])
        frames.append((flags, body[5:5 + length]))
        body = body[5 + length:]
    return frames


def metric_samples(port: int) -> dict[tuple[str, frozenset], float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        text = response.read().decode()
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def test_the_image_serves_grpc_http_and_metrics_outside_docker(redis_url: str, redis_prefix: str) -> None:
    env, ports = container_env(redis_url, redis_prefix)
    assert env["WORKERS"] == "2"
    (entrypoint,) = instructions(final_stage(), "ENTRYPOINT")
    if not (Path(env["WEB_ROOT"]) / "index.html").is_file():
        pytest.fail(f"the web table is not built in {env['WEB_ROOT']}: run `make web`", pytrace=False)
    # the container's environment only (as in the image), plus what Python here needs to find its packages
    base = {k: os.environ[k] for k in ("PATH", "HOME", "LANG", "VIRTUAL_ENV") if k in os.environ}
    server = subprocess.Popen(command(entrypoint), cwd=ROOT, env={**base, **env}, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while (checked := healthcheck({**base, **env})).returncode != 0:
            assert server.poll() is None, f"the server exited with {server.returncode}: {server.stderr.read()}"
            assert time.monotonic() < deadline, f"HEALTHCHECK never passed: {checked.stderr}"
            time.sleep(0.2)

        # gRPC: a game with one human seat, the rest bots
        with GameClient(f"127.0.0.1:{ports['PORT']}") as spectator:
            seats = ["me", *((f"Bot {seat}", "basic") for seat in (1, 2, 3))]
            created = spectator.create_game("spades", seats, first_dealer=0)
            token = created.tokens[0]
            view = spectator.with_token(token).act(created.game_id, "deal")
        assert view.hand_number == 1

        # HTTP: the web table, Connect JSON, gRPC-Web
        status, headers, page = http_call(ports["HTTP_PORT"], "GET", "/")
        assert status == 200 and page == (Path(env["WEB_ROOT"]) / "index.html").read_bytes()
        request = json.dumps({"gameId": created.game_id}).encode()
        status, headers, body = http_call(ports["HTTP_PORT"], "POST", "/cardgame.v1.GameService/GetGame", request,
                                          {"content-type": "application/json", "authorization": f"Bearer {token}"})
        assert status == 200 and headers["content-type"].startswith("application/json"), body
        json_view = json.loads(body)["view"]
        assert json_view["gameId"] == created.game_id and json_view["viewerSeat"] == 0
        assert json_view["phase"] == "PHASE_BID" and json_view["turn"] == 0  # the bots have bid
        assert {"kind": "ACTION_KIND_REVEAL", "notation": "reveal", "word": "reveal", "shape": "ACTION_SHAPE_NONE",
                "title": "Look at your cards"} in json_view["legalActions"]
        message = pb.GetGameRequest(game_id=created.game_id).SerializeToString()
        status, headers, body = http_call(ports["HTTP_PORT"], "POST", "/cardgame.v1.GameService/GetGame",
                                          struct.pack(">BI", 0, len(message)) + message,
                                          {"content-type": "application/grpc-web+proto", "x-grpc-web": "1"})
        assert status == 200, body
        (data_flags, data), (trailer_flags, trailer) = grpc_web_frames(body)
        assert data_flags == 0 and pb.GetGameResponse.FromString(data).view.game_id == created.game_id
        assert trailer_flags == 0x80 and b"grpc-status:0" in trailer.replace(b" ", b"")

        # metrics: both workers' calls, summed by the supervisor, over both transports
        samples = metric_samples(ports["METRICS_PORT"])
        handled = {dict(labels)["method"]: value for (name, labels), value in samples.items()
                   if name == "cardgame_rpc_handled_total" and dict(labels)["code"] == "OK"}
        assert handled["CreateGame"] == 1 and handled["Act"] == 1 and handled["GetGame"] == 2, handled
        assert samples[("cardgame_games_created_total", frozenset())] == 1
        assert samples[("cardgame_bot_think_seconds_count", frozenset({("strategy", "basic")}))] >= 1
    finally:
        grace = float(env.get("DRAIN_S", "1")) + float(env.get("GRACE_S", "10")) + 10
        code = stop_process(server, signal.SIGTERM, grace)
        log = server.stderr.read()
    assert code == 0, log[-3000:]
    assert json.loads(log.splitlines()[0])["level"] in {"INFO", "WARNING"}  # JSON log lines on stderr
    with closed_port(ports["PORT"]) as port:  # the stopped server's, unless another test's server took it
        down = healthcheck({**base, **env, "PORT": str(port)})
    assert down.returncode == 1 and "UNAVAILABLE" in down.stderr


# --- docker-compose.yml ---

def test_compose_runs_what_its_comment_says() -> None:
    text = (ROOT / "docker-compose.yml").read_text()
    services = compose()["services"]
    server, redis = services["cardgame"], services["redis"]
    assert server["build"] == "."
    assert server["environment"]["WORKERS"] == "2" and "two worker processes" in text
    assert server["environment"]["REDIS_URL"] == "redis://redis:6379/0"
    env = image_env()
    assert not set(PORTS) & set(server["environment"]), "the image's ports are the ones published"
    assert server["ports"] == [f"{env['HTTP_PORT']}:{env['HTTP_PORT']}"]
    front = services["grpc-front"]   # gRPC goes through the front (deploy/kubernetes/grpc-front.conf.template)
    assert front["ports"] == [f"{env['PORT']}:{env['PORT']}"] and front["depends_on"] == ["cardgame"]
    assert front["environment"] == {"CARDGAME_GRPC_UPSTREAM": f"cardgame:{env['PORT']}", "GRPC_FRONT_PORT": env["PORT"]}
    (mount,) = front["volumes"]
    source, target, mode = mount.split(":")
    assert (ROOT / source).is_file() and target.startswith("/etc/nginx/templates/") and mode == "ro"
    command_line = " ".join(redis["command"])
    assert "--appendonly yes" in command_line and "--maxmemory-policy noeviction" in command_line
    assert "CARDGAME_TOKEN_SECRET" in server["environment"]


def test_compose_keeps_redis_data_on_a_named_volume() -> None:
    """Games live in Redis's append-only file under /data: on a named volume they survive
    `docker compose down` (a container's own layer, or an anonymous volume, goes with it)."""
    spec = compose()
    redis = spec["services"]["redis"]
    assert "--appendonly yes" in " ".join(redis["command"])
    named = [v.split(":") for v in redis.get("volumes", []) if isinstance(v, str) and ":" in v]
    data = [source for source, target, *_ in named if target == "/data"]
    assert len(data) == 1, f"no volume is mounted at /data: {redis.get('volumes')}"
    (source,) = data
    assert not source.startswith((".", "/", "~")), f"{source} is a host path, not a named volume"
    assert source in (spec.get("volumes") or {}), f"{source} is not declared under the top-level volumes"


def test_compose_prometheus_scrapes_the_server_metrics_port() -> None:
    prometheus = compose()["services"]["prometheus"]
    (mount,) = [v for v in prometheus["volumes"] if v.startswith("./")]
    source, target, mode = mount.split(":")
    assert (ROOT / source).is_file() and mode == "ro"
    assert f"--config.file={target}" in prometheus["command"]
    assert prometheus["ports"] == ["9090:9090"] and prometheus["depends_on"] == ["cardgame"]
    config = yaml.safe_load((ROOT / source).read_text())
    (job,) = config["scrape_configs"]
    assert job["job_name"] == "cardgame" and job["metrics_path"] == "/metrics"
    assert job["static_configs"] == [{"targets": [f"cardgame:{image_env()['METRICS_PORT']}"]}]
