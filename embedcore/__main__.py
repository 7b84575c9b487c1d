"""``python -m embedcore``: the batch steps from a shell (see :mod:`embedcore.cli`)."""

import sys

from embedcore.cli import main

if __name__ == "__main__":
    sys.exit(main())
