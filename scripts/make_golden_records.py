"""Regenerate the golden records in tests/data/records/.

    python scripts/make_golden_records.py

The records are the designer's worked example round (SPEC section 7) and seeded random
complete games for 3 and 4 players, each with per-step digests (and results when the game
is over). CI re-verifies them and checks that this script reproduces them exactly; a change
that alters them must say why in CHANGELOG.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # for tests.test_worked_example (the worked example's script)

from tests.test_worked_example import SCRIPT  # noqa: E402

import meuterer  # noqa: E402

OUT = ROOT / "tests" / "data" / "records"
NAMES = {3: ("Ann", "Bob", "Cy"), 4: ("Jenő", "Anita", "Péter", "Krisztina")}
SEEDS = {3: 2026, 4: 2000}


def golden() -> dict[str, str]:
    """File name to record text, for every golden record."""
    records = {"worked-example-round-1.json": meuterer.write_record(meuterer.Game.replay(SCRIPT), names=NAMES[4])}
    for players, seed in SEEDS.items():
        actions, _ = meuterer.random_game(seed=seed, players=players, first_captain=seed % players)
        game = meuterer.Game.replay(actions, players=players, first_captain=seed % players)
        records[f"random-{players}p-seed{seed}.json"] = meuterer.write_record(game, names=NAMES[players])
    return records


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, text in golden().items():
        (OUT / name).write_text(text, encoding="utf-8")
        print(f"wrote {OUT / name}")


if __name__ == "__main__":
    main()
