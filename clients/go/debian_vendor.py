"""Write vendor/ for an offline build from Debian's Go source packages (/usr/share/gocode/src).

Debian's golang-*-dev packages install Go sources, not a module cache, so `go build` in module
mode cannot reach them through GOPROXY. This script lists the packages the module imports (a
GOPATH-mode `go list -deps` over this module and Debian's tree), finds the Go module each one
belongs to, links each such module's Debian source directory into vendor/ and writes
vendor/modules.txt. `go build -mod=vendor` then builds without any download. Modules go.mod
requires are labelled with go.mod's versions (so the vendor tree is consistent with it), the
others with their Debian package's upstream version.

Run by the Makefile after the stubs are generated: ``python3 debian_vendor.py [GOCODE]``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SKIP_DIRS = {"vendor", "bin", "testdata"}


def module_path() -> str:
    """This module's path, from go.mod."""
    return re.search(r"(?m)^module\s+(\S+)", (HERE / "go.mod").read_text()).group(1)


def required() -> dict[str, str]:
    """The modules go.mod requires, with their versions."""
    text = (HERE / "go.mod").read_text()
    block = "\n".join(re.findall(r"(?ms)^require\s*\((.*?)^\)", text))
    lines = block.splitlines() + re.findall(r"(?m)^require\s+([^(\s].*)$", text)
    found = {}
    for line in lines:
        parts = line.split("//")[0].split()
        if len(parts) == 2:
            found[parts[0]] = parts[1]
    return found


def own_packages(module: str) -> list[str]:
    """The import paths of this module's packages (directories holding .go files)."""
    found = set()
    for path in HERE.rglob("*.go"):
        relative = path.parent.relative_to(HERE)
        if not SKIP_DIRS.intersection(relative.parts):
            found.add("/".join((module, *relative.parts)))
    return sorted(found)


def imported(module: str, gocode: Path) -> list[tuple[str, Path]]:
    """(import path, directory) of every non-standard package this module's packages import."""
    with tempfile.TemporaryDirectory(prefix="cardgame-gopath-") as gopath:
        link = Path(gopath, "src", module)
        link.parent.mkdir(parents=True)
        link.symlink_to(HERE)
        env = {**os.environ, "GO111MODULE": "off", "GOFLAGS": "", "GOPATH": f"{gopath}:{gocode.parent}"}
        done = subprocess.run(["go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}\t{{.Dir}}{{end}}",
                               *own_packages(module)], env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        sys.exit(f"go list failed (are Debian's golang-google-grpc-dev and golang-google-protobuf-dev "
                 f"installed?):\n{done.stderr}")
    found = []
    for line in done.stdout.splitlines():
        path, _, directory = line.partition("\t")
        if path and path != module and not path.startswith(module + "/"):
            found.append((path, Path(directory)))
    return found


def module_root(directory: Path, gocode: Path) -> tuple[str, Path]:
    """The module (path, source directory) that holds a package directory of Debian's tree."""
    for candidate in (directory, *directory.parents):
        if candidate == gocode or gocode not in candidate.parents:
            break
        if (candidate / "go.mod").is_file():
            name = re.search(r"(?m)^module\s+(\S+)", (candidate / "go.mod").read_text()).group(1)
            return name, candidate
    sys.exit(f"{directory}: no go.mod in it or above it under {gocode}")


def debian_version(directory: Path) -> str:
    """The upstream version of the Debian package that installed ``directory`` as a Go module
    version (v1.2.3), or v0.0.0 when it is not a plain release."""
    owner = subprocess.run(["dpkg-query", "-S", str(directory)], capture_output=True, text=True, check=False)
    package = owner.stdout.split(":", 1)[0].split(",")[0].strip()
    if owner.returncode or not package:
        return "v0.0.0"
    version = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", package], capture_output=True,
                             text=True, check=False).stdout
    upstream = version.split(":")[-1].rsplit("-", 1)[0].split("+")[0]
    return f"v{upstream}" if re.fullmatch(r"\d+\.\d+\.\d+", upstream) else "v0.0.0"


def go_directive(root: Path) -> str | None:
    """The go version a module's go.mod declares."""
    match = re.search(r"(?m)^go\s+(\S+)", (root / "go.mod").read_text())
    return match.group(1) if match else None


def main(gocode: Path) -> None:
    module, requires = module_path(), required()
    modules: dict[str, tuple[Path, list[str]]] = {}
    for package, directory in imported(module, gocode):
        name, root = module_root(directory, gocode)
        modules.setdefault(name, (root, []))[1].append(package)
    missing = set(requires) - set(modules)
    if missing:
        sys.exit(f"go.mod requires {sorted(missing)}, which no package here imports from {gocode}")
    vendor = HERE / "vendor"
    shutil.rmtree(vendor, ignore_errors=True)
    lines = []
    for name in sorted(modules):
        root, packages = modules[name]
        version = requires.get(name) or debian_version(root)
        notes = (["explicit"] if name in requires else []) + ([f"go {v}"] if (v := go_directive(root)) else [])
        lines.append(f"# {name} {version}")
        if notes:
            lines.append("## " + "; ".join(notes))
        lines += sorted(set(packages))
        link = vendor / name
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(root)
    (vendor / "modules.txt").write_text("\n".join(lines) + "\n")
    print(f"vendor/: {len(modules)} modules from {gocode}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/gocode/src").resolve())
