"""Regenerate the OpenSpiel playthroughs in tests/data/playthroughs with OpenSpiel's own tool.

    PYTHONPATH=src python scripts/make_playthroughs.py

``tests/test_openspiel.py`` replays each file with ``generate_playthrough.replay``, as
OpenSpiel's ``integration_tests/playthrough_test.py`` does for its games.
"""

from __future__ import annotations

from pathlib import Path

from open_spiel.python.algorithms import generate_playthrough

import meuterer.openspiel  # noqa: F401 - registers python_meuterer

PLAYTHROUGHS = {
    "python_meuterer.txt": "python_meuterer(players=3,rounds=1)",
    "python_meuterer_variants.txt": (
        "python_meuterer(players=4,rounds=1,pirates=True,ring=shuffled,reward=turn,utility=relative)"
    ),
}

if __name__ == "__main__":
    folder = Path(__file__).resolve().parent.parent / "tests" / "data" / "playthroughs"
    folder.mkdir(parents=True, exist_ok=True)
    for name, game in PLAYTHROUGHS.items():
        text = generate_playthrough.playthrough(game, None, seed=7)
        (folder / name).write_text(text, encoding="utf-8")
        print(f"{name}: {len(text.splitlines())} lines")
