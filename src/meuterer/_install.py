"""How to install an optional extra, said the same way by every message that needs one.

meuterer is installed from a checkout (or a wheel built from one), not from PyPI, so the
hint names the extra and installs it from the checkout:

>>> install_hint("gym")
'the gym extra: pip install ".[gym]" in a checkout of meuterer'
"""

from __future__ import annotations


def install_hint(extra: str) -> str:
    """The words that tell how to install the optional ``extra``."""
    return f'the {extra} extra: pip install ".[{extra}]" in a checkout of meuterer'
