"""A release: one version everywhere, a changelog entry for it, its API kept, and a server that says which it is.

The ``VERSION`` file is the single source: the server reads it (``service.version``), the Python
client's metadata takes it (``clients/python/VERSION`` links to it), and the package.json files
of the TypeScript client and the web table, the lock files, the service's pyproject.toml and
the image tag of the Kubernetes kustomization repeat it, checked here. ``make proto-breaking``
(part of ``make lint``) is run on copies of the proto to show that it passes today, takes a
deprecation and refuses a removal.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import shutil
import subprocess
import sys
import tomllib
import urllib.request
from pathlib import Path

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from service import version
from testkit.launcher import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
VERSION = (ROOT / "VERSION").read_text().strip()
BUF = ROOT / "clients" / "typescript" / "node_modules" / ".bin" / "buf"
RELEASES = ROOT / "proto" / "releases"


def test_the_version_file_holds_one_release_version() -> None:
    assert (ROOT / "VERSION").read_text() == VERSION + "\n"
    assert version.parse(VERSION) == VERSION == version.release()
    for bad in ("", "0.2", "v0.2.0", "0.2.0-dev", "01.2.0", "0.2.0\n0.3.0"):
        with pytest.raises(ValueError, match="MAJOR.MINOR.PATCH"):
            version.parse(bad)


def test_every_package_carries_the_version() -> None:
    found = {"pyproject.toml": tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]}
    for package in ("clients/typescript", "web"):
        found[f"{package}/package.json"] = json.loads((ROOT / package / "package.json").read_text())["version"]
        lock = json.loads((ROOT / package / "package-lock.json").read_text())
        found[f"{package}/package-lock.json"] = lock["version"]
        found[f"{package}/package-lock.json root"] = lock["packages"][""]["version"]
    web_lock = json.loads((ROOT / "web" / "package-lock.json").read_text())
    found["web/package-lock.json client"] = web_lock["packages"]["../clients/typescript"]["version"]
    found["cardgame-client (installed)"] = importlib.metadata.version("cardgame-client")
    pom = (ROOT / "clients" / "kotlin" / "pom.xml").read_text()
    pom_version = re.search(r"<artifactId>cardgame-client</artifactId>\s*<version>([^<]+)</version>", pom)
    found["clients/kotlin/pom.xml"] = pom_version.group(1) if pom_version else "none"
    kustomization = yaml.safe_load((ROOT / "deploy" / "kubernetes" / "kustomization.yaml").read_text())
    (image,) = [i for i in kustomization["images"] if i["name"] == "cardgame"]
    found["deploy/kubernetes/kustomization.yaml newTag"] = image["newTag"]
    drifted = {where: v for where, v in found.items() if v != VERSION}
    assert not drifted, f"VERSION is {VERSION}, but: {drifted}"


def test_the_python_client_takes_its_version_from_the_version_file() -> None:
    client = ROOT / "clients" / "python"
    project = tomllib.loads((client / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"file": "VERSION"}
    assert (client / "VERSION").is_symlink() and (client / "VERSION").resolve() == (ROOT / "VERSION").resolve()
    assert re.search(r"(?m)^include .*\bVERSION\b", (client / "MANIFEST.in").read_text())  # the sdist carries it


def test_the_changelog_describes_this_release_first() -> None:
    text = (ROOT / "CHANGELOG.md").read_text()
    assert text.startswith("# Changelog\n") and "keepachangelog.com" in text
    releases = re.findall(r"(?m)^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", text)
    assert releases[0] == ("Unreleased", ""), releases
    assert releases[1][0] == VERSION and releases[1][1], "the newest release section must be VERSION's, dated"
    assert [r[0] for r in releases[1:]] == sorted((r[0] for r in releases[1:]),
                                                  key=lambda v: tuple(map(int, v.split("."))), reverse=True)
    assert all(date for _, date in releases[1:])
    headings = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
    assert set(re.findall(r"(?m)^### (.+)$", text)) <= headings


def test_every_changelog_release_keeps_its_api() -> None:
    text = (ROOT / "CHANGELOG.md").read_text()
    released = set(re.findall(r"(?m)^## \[(\d+\.\d+\.\d+)\]", text))
    images = {p.name.removeprefix("v").removesuffix(".binpb") for p in RELEASES.glob("v*.binpb")}
    assert released == images, "proto/releases/ holds one image per released version (make proto-release)"


def test_the_image_copies_the_version_file_beside_the_server() -> None:
    stages = [stage for stage in (ROOT / "Dockerfile").read_text().split("\nFROM ") if stage.startswith("python")]
    assert len(stages) == 2, "a Python build stage and the runtime stage"
    for stage in stages:  # the build stage (the client's link) and the runtime stage (the server)
        assert re.search(r"(?m)^COPY (?!--from)[^\n]*\bVERSION\b", stage), stage[:60]


def test_the_server_says_its_version() -> None:
    done = subprocess.run([sys.executable, "-m", "service", "--version"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"cardgame server {VERSION}\n"


def test_a_server_with_workers_reports_its_version_in_logs_and_metrics(redis_url: str, redis_prefix: str) -> None:
    with ServerProcess("--workers", "2", "--metrics-port", "0", redis_url=redis_url,
                       prefix=redis_prefix, env={"LOG_LEVEL": "INFO"}) as server:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.metrics_port}/metrics", timeout=10) as response:
            text = response.read().decode()
        log = server.log_text()
    samples = [s for family in text_string_to_metric_families(text) for s in family.samples
               if s.name == "cardgame_build_info"]
    assert [(s.labels, s.value) for s in samples] == [({"version": VERSION}, 1.0)]
    lines = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    listening = [r for r in lines if r["message"].startswith("cardgame server listening on")]
    assert listening and all(r["version"] == VERSION and f"version {VERSION}" in r["message"] for r in listening)


# --- make proto-breaking on copies of the proto ---

def _breaking(tmp_path: Path, edit: tuple[str, str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``make proto-breaking`` (the Makefile's own rule) on a copy of buf.yaml, proto/ and its
    releases, with ``edit`` (file, old text, new text) applied to the copy first."""
    if not BUF.exists():
        pytest.fail("buf is not installed: run `make clients` (npm ci in clients/typescript)", pytrace=False)
    shutil.copy2(ROOT / "buf.yaml", tmp_path / "buf.yaml")
    shutil.copytree(ROOT / "proto", tmp_path / "proto")
    if edit is not None:
        path = tmp_path / "proto" / "cardgame" / "v1" / edit[0]
        text = path.read_text()
        assert text.count(edit[1]) == 1, f"{edit[1]!r} is not once in {edit[0]}"
        path.write_text(text.replace(edit[1], edit[2]))
    return subprocess.run(["make", "--no-print-directory", "-f", str(ROOT / "Makefile"), "proto-breaking",
                           f"BUF={BUF}", "NPM_DONE="], cwd=tmp_path, capture_output=True, text=True, timeout=120)


def test_the_api_keeps_every_release(tmp_path: Path) -> None:
    done = _breaking(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"--against proto/releases/v{VERSION}.binpb\n" in done.stdout  # FILE rules against the last release
    assert "--against proto/releases/v0.1.0.binpb --config proto/releases/wire.yaml" in done.stdout


def test_deprecating_a_field_keeps_the_releases(tmp_path: Path) -> None:
    done = _breaking(tmp_path, ("view.proto", "bool abandoned = 35;", "bool abandoned = 35 [deprecated = true];"))
    assert done.returncode == 0, done.stdout + done.stderr


def test_removing_a_field_breaks_the_last_release(tmp_path: Path) -> None:
    done = _breaking(tmp_path, ("view.proto", "bool abandoned = 35;", "reserved 35;\n  reserved \"abandoned\";"))
    assert done.returncode != 0
    assert 'Previously present field "35" with name "abandoned" on message "GameView" was deleted' in done.stdout


def test_retyping_a_field_breaks_the_wire(tmp_path: Path) -> None:
    done = _breaking(tmp_path, ("view.proto", "bool abandoned = 35;", "string abandoned = 35;"))
    assert done.returncode != 0
    assert 'Field "35" with name "abandoned" on message "GameView" changed type' in done.stdout
