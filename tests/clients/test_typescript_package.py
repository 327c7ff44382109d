"""The TypeScript client as npm publishes it: the tarball's contents, and the tarball installed
into a project of its own, where Node imports both entry points, resolves the ``node`` and
``browser`` conditions, type-checks against the shipped declarations and plays against a server.

``npm pack --ignore-scripts`` packs the ``dist/`` that ``make clients`` built (the ``prepack``
script, which builds afresh, is what ``npm publish`` runs). The project installs the tarball with
``npm install --prefer-offline``: its dependencies come from npm's cache, which ``npm ci`` in
clients/typescript filled, and from the registry only when the cache lacks one.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from testkit.launcher import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "clients" / "typescript"
TSC = TS / "node_modules" / "typescript" / "bin" / "tsc"
VERSION = (ROOT / "VERSION").read_text().strip()
TIMEOUT_S = 180


def run(*args: str | Path, cwd: Path, timeout: float = TIMEOUT_S) -> str:
    """Run a command, failing the test with its output when it fails; returns its stdout."""
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        pytest.fail(f"{' '.join(map(str, args))} exited {done.returncode}:\n{done.stdout[-3000:]}\n"
                    f"{done.stderr[-3000:]}", pytrace=False)
    return done.stdout


def npm() -> str:
    found = shutil.which("npm")
    if found is None or shutil.which("node") is None:
        pytest.fail("Node.js and npm are needed for the TypeScript package tests", pytrace=False)
    if not (TS / "dist" / "index.js").is_file() or not TSC.is_file():
        pytest.fail("clients/typescript is not built: run `make clients`", pytrace=False)
    return found


def test_the_tarball_holds_the_built_modules_their_types_readme_and_license() -> None:
    (packed,) = json.loads(run(npm(), "pack", "--dry-run", "--json", "--ignore-scripts", cwd=TS))
    files = {entry["path"] for entry in packed["files"]}
    built = {p.relative_to(TS).as_posix() for p in (TS / "dist").rglob("*")
             if p.name.endswith((".js", ".d.ts"))}
    assert files == built | {"package.json", "README.md", "LICENSE"}, files ^ (built | {"package.json"})
    assert {"dist/index.js", "dist/index.d.ts", "dist/web.js", "dist/web.d.ts",
            "dist/gen/cardgame/v1/game_service_pb.js", "dist/gen/cardgame/v1/game_service_pb.d.ts"} <= files
    assert (packed["name"], packed["version"]) == ("@cardgame/client", VERSION)
    assert (TS / "LICENSE").read_text() == (ROOT / "LICENSE").read_text()
    package = json.loads((TS / "package.json").read_text())
    assert "private" not in package and package["license"] == "Apache-2.0"
    targets = set()
    for entry in package["exports"].values():
        stack = [entry]
        while stack:
            value = stack.pop()
            if isinstance(value, dict):
                stack.extend(value.values())
            else:
                targets.add(value.removeprefix("./"))
    assert targets <= files, targets - files


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project with the packed tarball installed (and nothing else of this repository)."""
    tmp = tmp_path_factory.mktemp("ts-package")
    (packed,) = json.loads(run(npm(), "pack", "--json", "--ignore-scripts", "--pack-destination", tmp, cwd=TS))
    tarball = tmp / packed["filename"]
    project = tmp / "project"
    project.mkdir()
    (project / "package.json").write_text(json.dumps({"name": "uses-cardgame", "private": True, "type": "module"}))
    run(npm(), "install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball, cwd=project)
    return project


def node(project: Path, script: str, *flags: str) -> str:
    return run("node", *flags, "--input-type=module", "-e", script, cwd=project)


def test_node_imports_both_entry_points_of_the_installed_package(project: Path) -> None:
    installed = project / "node_modules" / "@cardgame" / "client"
    assert not installed.is_symlink() and not (installed / "src").exists()
    script = """
        import { createRequire } from "node:module";
        import * as client from "@cardgame/client";
        import * as web from "@cardgame/client/web";
        const { version } = createRequire(import.meta.url)("@cardgame/client/package.json");
        console.log(JSON.stringify({
          main: import.meta.resolve("@cardgame/client"), web: import.meta.resolve("@cardgame/client/web"),
          version, create: typeof client.createClient, webCreate: typeof web.createClient,
          variant: client.Variant.BUCK_EUCHRE, same: client.Phase === web.Phase,
        }));
    """
    seen = json.loads(node(project, script))
    assert seen["main"].endswith("/node_modules/@cardgame/client/dist/index.js")
    assert seen["web"].endswith("/node_modules/@cardgame/client/dist/web.js")
    assert seen["version"] == VERSION
    assert seen["create"] == seen["webCreate"] == "function" and seen["variant"] == 3 and seen["same"] is True
    browser = node(project, 'console.log(import.meta.resolve("@cardgame/client"))', "--conditions=browser")
    assert browser.strip().endswith("/node_modules/@cardgame/client/dist/web.js")


def test_the_installed_package_plays_against_a_server(project: Path) -> None:
    script = """
        import { PlayerKind, createClient } from "@cardgame/client";
        const client = createClient(`http://${process.argv[1]}`);
        const seats = ["Ann", "B", "C", "D"].map(
          (name, i) => ({ name, kind: i ? PlayerKind.BOT_BASIC : PlayerKind.HUMAN }));
        const created = await client.createGame({ variantName: "hearts", seats });
        const view = (await client.getGame({ gameId: created.gameId })).view;
        console.log(view.variantName, created.seatTokens.length);
    """
    with ServerProcess() as server:
        out = run("node", "--input-type=module", "-e", script, server.address, cwd=project, timeout=60)
    assert out.split() == ["hearts", "1"]


def _resolved(project: Path, *options: str) -> str:
    """Type-check a file using both entry points with ``options``; returns where tsc found the
    declarations of ``@cardgame/client``."""
    (project / "check.ts").write_text(
        'import { type GameView, Variant, createClient } from "@cardgame/client";\n'
        'import { createClient as createWebClient } from "@cardgame/client/web";\n'
        'export const node = createClient("http://127.0.0.1:50051", { protocol: "connect", retries: 1 });\n'
        'export const web = createWebClient("http://127.0.0.1:8080", { protocol: "grpc-web" });\n'
        "export const variant: Variant = Variant.SPADES;\n"
        "export const title = (view: GameView): string => view.variantTitle;\n"
    )
    trace = run("node", TSC, "--noEmit", "--strict", "--skipLibCheck", "--target", "es2022",
                "--traceResolution", *options, "check.ts", cwd=project)
    marker = "Module name '@cardgame/client' was successfully resolved to '"
    (found,) = {line.split(marker)[1].split("'")[0] for line in trace.splitlines() if marker in line}
    return found


def test_typescript_finds_the_types_of_each_condition(project: Path) -> None:
    nodenext = _resolved(project, "--module", "nodenext", "--moduleResolution", "nodenext")
    assert nodenext.endswith("/node_modules/@cardgame/client/dist/index.d.ts"), nodenext
    bundled = _resolved(project, "--module", "esnext", "--moduleResolution", "bundler",
                        "--customConditions", "browser")
    assert bundled.endswith("/node_modules/@cardgame/client/dist/web.d.ts"), bundled
