"""`python -m service`: the entry point of `make run` and of the Docker image."""

from service.ops.config import parse
from service.ops.server import run

if __name__ == "__main__":
    run(parse())
