"""Build of cardgame-client: the ``cardgame.v1`` stubs are generated from the .proto files while building.

The .proto files are read from ``proto/`` beside this file: in the repository a symbolic link
to the repository's ``proto/`` (the one contract, never copied by hand), in an sdist a real
directory (``MANIFEST.in`` puts the files in). So ``pip install clients/python``,
``pip install -e clients/python`` and ``python -m build clients/python`` (an sdist, then a
wheel built from the unpacked sdist) all generate the same stubs with the grpcio-tools of the
build environment.

- A wheel gets the stubs (``*_pb2.py``, ``*_pb2.pyi``, ``*_pb2_grpc.py``) in its build
  directory; the source tree is not written to.
- An editable install imports from ``src/``, so the stubs are generated there, and only when
  they are missing or older than a .proto file (``make proto`` writes the same files).
- Generated code refuses to import beside a protobuf or grpcio older than its generator, so
  the package requires at least the versions this build's grpcio-tools generates for.
"""

from __future__ import annotations

import re
import tempfile
from importlib import resources
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
PROTO_ROOT = HERE / "proto"
PACKAGE = "cardgame/v1"
SOURCE_ROOT = HERE / "src"
DEPENDENCIES = ["grpcio-status>=1.66", "rich>=13"]
GENERATED_SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py")
PROTOBUF_CHECK = re.compile(r"ValidateProtobufRuntimeVersion\(\s*_runtime_version\.Domain\.PUBLIC,\s*"
                            r"(\d+),\s*(\d+),\s*(\d+),")
GRPC_CHECK = re.compile(r"GRPC_GENERATED_VERSION = '([0-9.]+)'")


def proto_files() -> list[Path]:
    """The package's .proto files, or a clear error when the proto directory is missing."""
    files = sorted((PROTO_ROOT / PACKAGE).glob("*.proto"))
    if not files:
        raise SystemExit(f"no .proto files in {PROTO_ROOT / PACKAGE}: build cardgame-client from the "
                         "repository (clients/python/proto links to its proto/) or from its sdist")
    return files


def generate(out: Path, protos: list[Path] | None = None) -> None:
    """Run protoc (grpcio-tools) on ``protos`` (default: all), writing Python stubs, type stubs
    and gRPC stubs under ``out``."""
    from grpc_tools import protoc

    protos = proto_files() if protos is None else protos
    well_known = resources.files("grpc_tools") / "_proto"
    out.mkdir(parents=True, exist_ok=True)
    args = ["grpc_tools.protoc", f"-I{PROTO_ROOT}", f"-I{well_known}", f"--python_out={out}",
            f"--pyi_out={out}", f"--grpc_python_out={out}", *(str(p) for p in protos)]
    if protoc.main(args) != 0:
        raise SystemExit(f"protoc failed on {', '.join(p.name for p in protos)}")


def expected_stubs(root: Path) -> list[Path]:
    """Every file ``generate`` writes under ``root``."""
    return [root / PACKAGE / f"{proto.stem}{suffix}" for proto in proto_files() for suffix in GENERATED_SUFFIXES]


def stubs_current(root: Path) -> bool:
    """Whether every stub under ``root`` exists and is at least as new as every .proto file."""
    newest_proto = max(p.stat().st_mtime for p in proto_files())
    return all(p.exists() and p.stat().st_mtime >= newest_proto for p in expected_stubs(root))


def runtime_requirements() -> list[str]:
    """The protobuf and grpcio releases that accept stubs of this build's grpcio-tools: generated
    code checks at import that its runtime is at least as new as its generator."""
    probe = PROTO_ROOT / PACKAGE / "game_service.proto"
    with tempfile.TemporaryDirectory() as out:
        generate(Path(out), [probe])
        messages = (Path(out) / PACKAGE / f"{probe.stem}_pb2.py").read_text()
        services = (Path(out) / PACKAGE / f"{probe.stem}_pb2_grpc.py").read_text()
    protobuf = PROTOBUF_CHECK.search(messages)
    grpcio = GRPC_CHECK.search(services)
    if protobuf is None or grpcio is None:
        raise SystemExit("the generated stubs carry no runtime version check: grpcio-tools is too old")
    major, minor, patch = (int(g) for g in protobuf.groups())
    return [f"protobuf>={major}.{minor}.{patch},<{major + 1}", f"grpcio>={grpcio.group(1)},<2"]


class BuildPyWithStubs(build_py):
    """build_py that also generates the ``cardgame.v1`` stubs (see the module docstring)."""

    def run(self) -> None:
        if self.editable_mode:
            if not stubs_current(SOURCE_ROOT):
                generate(SOURCE_ROOT)
            super().run()
            return
        super().run()  # copies the sources, stale stubs of an earlier `make proto` included
        generate(Path(self.build_lib))  # ... which the fresh stubs then replace

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        if self.editable_mode:
            return outputs
        return sorted(set(outputs) | {str(p) for p in expected_stubs(Path(self.build_lib))})


setup(cmdclass={"build_py": BuildPyWithStubs}, install_requires=[*DEPENDENCIES, *runtime_requirements()])
