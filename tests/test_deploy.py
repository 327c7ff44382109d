"""Deployment files read statically: the Dockerfile, docker-compose.yml and the Kubernetes manifests.

No Docker engine or cluster is needed. The manifests are validated against the Kubernetes API
schemas bundled with kubernetes-validate (requirements-dev.txt), strictly (unknown fields
fail), for the oldest Kubernetes they are written for and for the newest the validator knows.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

try:
    import kubernetes_validate
except ImportError as exc:  # never skip: make install puts it in .venv
    raise ImportError("kubernetes-validate is missing: run `make install` (requirements-dev.txt)") from exc

ROOT = Path(__file__).resolve().parents[1]
KUBE = ROOT / "deploy" / "kubernetes"
MANIFESTS = sorted(p for p in KUBE.glob("*.yaml") if p.name != "kustomization.yaml")
KUBERNETES_VERSIONS = ("1.27.0", kubernetes_validate.latest_version())
SECRET = "cardgame-secrets"


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


def test_deployment_probes_resources_security_and_settings() -> None:
    deployment = resource("Deployment")
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert {"name": "grpc", "containerPort": 50051, "protocol": "TCP"} in container["ports"]
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


def test_configmap_holds_only_server_settings() -> None:
    settings = resource("ConfigMap")["data"]
    assert {"REDIS_URL", "REDIS_CLUSTER", "REQUIRE_NOEVICTION"} <= set(settings)
    unknown = set(settings) - server_env_names()
    assert not unknown, f"service/ops/config.py reads no {sorted(unknown)}"
    assert all(isinstance(v, str) for v in settings.values())


def test_service_hpa_and_pdb_point_at_the_deployment() -> None:
    deployment = resource("Deployment")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    service = resource("Service")
    assert service["spec"]["selector"].items() <= labels.items()
    assert service["spec"]["ports"][0]["targetPort"] == "grpc"
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

def dockerfile_stages() -> list[list[tuple[str, str]]]:
    """The Dockerfile's stages, each a list of (INSTRUCTION, arguments), continuation lines joined."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    stages: list[list[tuple[str, str]]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        instruction, _, args = line.partition(" ")
        if instruction.upper() == "FROM":
            stages.append([])
        stages[-1].append((instruction.upper(), args.strip()))
    return stages


def final_stage() -> list[tuple[str, str]]:
    return dockerfile_stages()[-1]


def dockerfile_uid() -> int:
    (user,) = [args for instruction, args in final_stage() if instruction == "USER"]
    return int(user.split(":")[0])


def test_runtime_stage_has_no_code_generator() -> None:
    build, runtime = dockerfile_stages()
    runtime_text = " ".join(args for _, args in runtime)
    assert not re.search(r"grpc[-_]tools|protoc|requirements-dev", runtime_text)
    requirements = (ROOT / "requirements.txt").read_text()
    assert not re.search(r"(?im)^grpcio-tools", requirements), "requirements.txt is installed in the image"
    assert ("COPY", "--from=build /opt/venv /opt/venv") in runtime
    build_text = " ".join(args for _, args in build)
    assert "pip wheel" in build_text and "./clients/python" in build_text  # its build generates the stubs


def test_healthcheck_entrypoint_and_user() -> None:
    stage = final_stage()
    (healthcheck,) = [args for instruction, args in stage if instruction == "HEALTHCHECK"]
    assert healthcheck.endswith('CMD ["python", "-m", "service.healthcheck"]')
    (entrypoint,) = [args for instruction, args in stage if instruction == "ENTRYPOINT"]
    assert json.loads(entrypoint) == ["python", "-m", "service"]
    assert dockerfile_uid() != 0
    assert ("EXPOSE", "50051") in stage


def test_runtime_stage_copies_every_package_the_server_imports() -> None:
    copied = {args.split()[0].rstrip("/") for instruction, args in final_stage()
              if instruction == "COPY" and not args.startswith("--from")}
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
    env = {k: v for k, v in os.environ.items() if k != "PORT"}
    done = subprocess.run([sys.executable, "-m", "service", "--help"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "(default: 50051)" in done.stdout
    done = subprocess.run([sys.executable, "-m", "service.healthcheck", "--help"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr


# --- docker-compose.yml ---

def test_compose_runs_what_its_comment_says() -> None:
    text = (ROOT / "docker-compose.yml").read_text()
    compose = yaml.safe_load(text)
    server, redis = compose["services"]["cardgame"], compose["services"]["redis"]
    assert server["build"] == "."
    assert server["environment"]["WORKERS"] == "2" and "two worker processes" in text
    assert server["environment"]["REDIS_URL"] == "redis://redis:6379/0"
    assert server["ports"] == ["50051:50051"]
    command = " ".join(redis["command"])
    assert "--appendonly yes" in command and "--maxmemory-policy noeviction" in command
    assert "CARDGAME_TOKEN_SECRET" in server["environment"]
