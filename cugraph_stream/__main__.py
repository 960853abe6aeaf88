"""``python -m cugraph_stream``: the ``cugraph-stream`` command line."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
