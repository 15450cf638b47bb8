"""``python -m meuterer``: the command line of :mod:`meuterer.cli`."""

import sys

from meuterer.cli.main import build_parser, main

__all__ = ["build_parser", "main"]

if __name__ == "__main__":
    sys.exit(main())
