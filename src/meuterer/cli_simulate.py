"""Old import path of :mod:`meuterer.cli.simulate` (kept working, also as
``python -m meuterer.cli_simulate -n 100``)."""

import sys

from meuterer.cli.simulate import main, print_summary, register, run_simulate

__all__ = ["main", "print_summary", "register", "run_simulate"]

if __name__ == "__main__":
    sys.exit(main())
