"""The golden playthroughs in tests/data/conformance/ are re-checked against the engine."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from meuterer.corpus import check_playthrough

CORPUS = Path(__file__).parent / "data" / "conformance"
FILES = sorted(CORPUS.glob("*.json"))


@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
def test_each_playthrough_agrees_with_the_engine(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == {"name": "meuterer-playthrough", "version": 1}
    assert check_playthrough(data) == []
    assert data["steps"][-1]["legal"] == [] and "action" not in data["steps"][-1]


def test_the_corpus_covers_both_player_counts_and_the_variants() -> None:
    games = [json.loads(f.read_text(encoding="utf-8")) for f in FILES]
    assert {g["players"] for g in games} == {3, 4}
    assert any(g["rules"]["pirates"] for g in games) and any(g["rules"]["ring"] == "shuffled" for g in games)


def test_a_tampered_playthrough_is_caught() -> None:
    data = json.loads(FILES[0].read_text(encoding="utf-8"))
    data["steps"][30]["legal"] = data["steps"][30]["legal"][1:]
    data["steps"][40]["scores"][0] += 1
    data["steps"][50]["view"] = "0" * 64
    assert check_playthrough(data) == ["step 30: legal differs", "step 40: scores differ", "step 50: view differs"]


def test_the_script_reproduces_the_corpus() -> None:
    path = Path(__file__).parent.parent / "scripts" / "make_conformance.py"
    spec = importlib.util.spec_from_file_location("make_conformance", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    expected = module.texts()
    assert sorted(expected) == [f.name for f in FILES]
    for name, text in expected.items():
        assert text == (CORPUS / name).read_text(encoding="utf-8"), f"{name}: run scripts/make_conformance.py"
