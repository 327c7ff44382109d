"""`python -m testkit.bench_server [flags]`: the server exactly as `python -m service` runs it
(the same flags), serving also the benchmark's no-op RPC, ``/cardgame.bench.v1.Bench/Noop``
(``bench.noop``), which `make bench` and the Go load generator's tests compare moves with.

Production has no flag for it: the server takes more handlers only from a program that embeds
it (``Config.more_handlers``), as this one does.
"""

from __future__ import annotations

import dataclasses

from bench import noop
from service.ops.config import parse
from service.ops.server import run


def main() -> None:
    """Parse the server's flags and run it with the no-op RPC."""
    run(dataclasses.replace(parse(), more_handlers=(noop.handlers,)))


if __name__ == "__main__":
    main()
