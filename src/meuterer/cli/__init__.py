"""The ``meuterer`` command line: :mod:`.main` (the parser and the small commands),
:mod:`.play` (the terminal game), :mod:`.simulate` (tournaments)."""

from meuterer.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
