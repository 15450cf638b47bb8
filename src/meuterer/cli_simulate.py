"""Old import path of :mod:`meuterer.cli.simulate` (kept working)."""

from meuterer.cli.simulate import main, print_summary, register, run_simulate

__all__ = ["main", "print_summary", "register", "run_simulate"]
