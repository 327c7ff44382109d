"""`python -m service.healthcheck`: the image's HEALTHCHECK (``service.ops.healthcheck``)."""

import sys

from service.ops.healthcheck import main

if __name__ == "__main__":
    sys.exit(main())
