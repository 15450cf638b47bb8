"""Regenerate the golden playthroughs in tests/data/conformance/ (see docs/conformance.md).

python scripts/make_conformance.py
"""

from __future__ import annotations

import json
from pathlib import Path

import meuterer
from meuterer.corpus import playthrough

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "conformance"
GAMES = {
    "base-4p-seed1.json": (1, 4, 0, meuterer.Rules()),
    "base-3p-seed2.json": (2, 3, 1, meuterer.Rules()),
    "pirates-4p-seed3.json": (3, 4, 2, meuterer.Rules(pirates=True, reshuffle="when_empty")),
    "shuffled-3p-seed4.json": (
        4,
        3,
        0,
        meuterer.Rules(ring="shuffled", withholding=True, sale_order="round_captain", discard_pool="hand"),
    ),
}


def texts() -> dict[str, str]:
    """File name to file text, for every golden playthrough."""
    return {
        name: json.dumps(playthrough(*args), ensure_ascii=False, separators=(",", ":")) + "\n"
        for name, args in GAMES.items()
    }


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, text in texts().items():
        (OUT / name).write_text(text, encoding="utf-8")
        print(f"wrote {OUT / name}")


if __name__ == "__main__":
    main()
