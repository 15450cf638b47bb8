"""The ``meuterer`` command line: :mod:`.main` (the parser and the small commands),
:mod:`.play` (the terminal game), :mod:`.simulate` (tournaments). ``meuterer`` and
``python -m meuterer`` run :func:`meuterer.cli.main.main`."""
