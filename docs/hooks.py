"""MkDocs hooks, run at docs build time only (the Markdown sources stay as they are).

Pages that cite "SPEC section N" (the project's specification, which readers of the site
do not have) get links to the same part of the rules page instead, as the API page does.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    """Link each "SPEC section N" of a page to the rules page."""
    if "SPEC section" not in markdown:
        return markdown
    spec = importlib.util.spec_from_file_location("griffe_doctests", Path(__file__).with_name("griffe_doctests.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text: str = module.link_spec(markdown)
    return text
