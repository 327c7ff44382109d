"""The release this server is: one version number for the API, the server and both clients.

It is read from the ``VERSION`` file at the root of the source tree (the Docker image copies it
beside ``service/``), the one place a release changes it: the Python client's package metadata
and the TypeScript client's package.json carry the same number (tests/ops/test_release.py fails when
they drift). The server reports it in its "listening on" log line (``version``), in
``python -m service --version`` and as the ``cardgame_build_info{version}`` metric.

A version is MAJOR.MINOR.PATCH, which npm's semver and Python's PEP 440 read alike.

>>> parse("0.2.0\\n")
'0.2.0'
>>> parse("0.2")
Traceback (most recent call last):
...
ValueError: a release version is MAJOR.MINOR.PATCH, e.g. 0.2.0; got '0.2'
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

VERSION_FILE = Path(__file__).resolve().parents[1] / "VERSION"
_FORM = re.compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)")


def parse(text: str) -> str:
    """The version a VERSION file's ``text`` holds (one line; surrounding whitespace ignored)."""
    version = text.strip()
    if not _FORM.fullmatch(version):
        raise ValueError(f"a release version is MAJOR.MINOR.PATCH, e.g. 0.2.0; got {version!r}")
    return version


@functools.cache
def release() -> str:
    """This server's release version, from ``VERSION_FILE``; exits with a clear message when the
    file is missing or malformed (an image built without it)."""
    try:
        return parse(VERSION_FILE.read_text())
    except OSError as exc:
        raise SystemExit(f"cannot read the release version from {VERSION_FILE}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise SystemExit(f"{VERSION_FILE}: {exc}") from None
