"""The committed state-machine diagram is the one the machine draws."""

from __future__ import annotations

from pathlib import Path

import pytest

from meuterer.__main__ import main
from meuterer.diagram import mermaid
from meuterer.machine import TRANSITIONS
from meuterer.state import Step

PAGE = Path(__file__).parent.parent / "docs" / "state-machine.md"


def test_the_docs_show_the_generated_diagram() -> None:
    page = PAGE.read_text(encoding="utf-8")
    block = page.split("```mermaid\n", 1)[1].split("```", 1)[0]
    assert block == mermaid(), "docs/state-machine.md is stale: paste the output of `meuterer diagram`"


def test_the_diagram_has_every_step_and_transition() -> None:
    text = mermaid()
    for step in Step:
        assert f'state "{step.value}" as {step.value}' in text
    for t in TRANSITIONS:
        if t["source"] == t["dest"]:
            assert f"  {t['source']} --> {t['dest']}\n" in text
            box = next(line for line in text.splitlines() if line.startswith(f"  {t['source']} : ↻ "))
            assert t["trigger"] in box.split()
        else:
            assert f"{t['source']} --> {t['dest']}: " in text
        assert all(g.__name__ in text for g in t["conditions"])


def test_the_diagram_command_prints_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagram"]) == 0
    assert capsys.readouterr().out == mermaid()


def test_each_start_and_end_is_drawn_once() -> None:
    lines = mermaid().splitlines()
    for edge in ("[*] --> ring", "[*] --> deal", "game_over --> [*]"):
        assert [line.strip() for line in lines].count(edge) == 1, edge
