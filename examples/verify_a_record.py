"""Write a game record, read it back, verify it, and see what verification says about a
tampered copy.

    python examples/verify_a_record.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import meuterer


def main() -> None:
    actions, _ = meuterer.random_game(seed=11, players=3)
    game = meuterer.Game.replay(actions, players=3)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.json"
        meuterer.write_record(game, path, names=("Ann", "Bob", "Cy"))
        record = meuterer.read_record(path)
        print(f"{path.name}: {meuterer.verify(record)}")
        again = meuterer.Game.from_record(record)
        print("final scores:", again.state.scores, "after", len(again.actions), "actions")

        tampered = path.read_text(encoding="utf-8").replace('"scores":[', '"scores":[9', 1)
        print("tampered:", meuterer.verify(tampered))


if __name__ == "__main__":
    main()
