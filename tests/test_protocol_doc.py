"""The transcript in docs/protocol.md is what `meuterer engine` answers, line for line
(placeholders written `...` in the page are not compared), and the view example in
docs/view-json.md has the digest it claims."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import meuterer
from meuterer.conform.client import rules_data
from meuterer.conform.engine import ReferenceEngine
from meuterer.views import dumps_view, view

DOCS = Path(__file__).parent.parent / "docs"
PAGE = (DOCS / "protocol.md").read_text(encoding="utf-8")
RULES = json.dumps(rules_data(meuterer.Rules()))


def transcript() -> list[tuple[str, str]]:
    """The ``>`` and ``<`` lines of the page's ``text`` blocks, in order."""
    blocks = re.findall(r"```text\n(.*?)```", PAGE.split("## A transcript", 1)[1], re.S)
    return [(line[0], line[2:]) for block in blocks for line in block.splitlines() if line[:2] in ("> ", "< ")]


def matches(expected: Any, actual: Any) -> bool:
    """Equal, where a ``"..."`` string (or a string holding ``...``) in the page stands for anything."""
    if isinstance(expected, str) and "..." in expected:
        return True
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and expected.keys() == actual.keys()
            and all(matches(value, actual[key]) for key, value in expected.items())
        )
    if isinstance(expected, list):
        return isinstance(actual, list) and len(expected) == len(actual) and all(map(matches, expected, actual))
    return bool(expected == actual)


def test_the_transcript_replays_against_the_reference() -> None:
    engine = ReferenceEngine()
    lines = transcript()
    # The deal the prose elides between the two blocks.
    elided = re.findall(r"`(draw p\d \w+)`", PAGE.split("... the deal goes on:", 1)[1].split("```text", 1)[0])
    assert len(elided) == 14
    checked = 0
    reply: dict[str, Any] = {}
    for marker, text in lines:
        if marker == ">":
            if '"id":40' in text:
                for action in elided:
                    assert engine.handle({"id": 0, "cmd": "apply", "game": "g1", "action": action})["status"] == "ok"
            if "{..., " in text:  # rules with one option changed: the pirate variant
                text = text.replace(
                    '{..., "pirates":true, "deck":[4,5,6,7,8,6,1], ...}',
                    json.dumps(rules_data(meuterer.Rules(pirates=True))),
                )
            request = json.loads(text.replace("{...}", RULES))
            reply = engine.handle(request)
        else:
            expected = json.loads(text)
            if expected["status"] == "skipped":  # what an engine without the variant answers
                assert reply["status"] == "ok"
                continue
            if expected.get("implementation"):
                expected["implementation"]["version"] = meuterer.__version__
            assert matches(expected, reply), (text, reply)
            checked += 1
    assert checked >= 25


def test_the_view_example_has_its_digest() -> None:
    page = (DOCS / "view-json.md").read_text(encoding="utf-8")
    actions, _ = meuterer.random_game(seed=3, players=3)
    state = meuterer.Game.replay(actions[:22], players=3).state
    text = dumps_view(view(state, None))
    digest = hashlib.sha256(text.encode()).hexdigest()
    assert f"Its digest is `{digest}`" in page
    shown = re.search(r"```text\n(.*?)```", page, re.S)
    assert shown is not None
    head = shown.group(1).replace("\n", "").split("},...]")[0]
    assert text.startswith(head)
