"""`python -m service.apikeys <key id>`: a new API key and its server entry (``service.rpc.apikeys``)."""

import sys

from service.rpc.apikeys import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
