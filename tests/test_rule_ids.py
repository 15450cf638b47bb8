"""docs/rules.md gives every rule and ruling a stable id with its source (issue 40, item 1).

The table is the one list of rule ids: each id is unique and well formed, each source cites
the rulebook ([HU] with a section and paragraph, or [CA]) or says "open point" or
"decided", every option it names is a field of ``Rules``, and every field of ``Rules``
belongs to at least one rule.
"""

from __future__ import annotations

import re
from pathlib import Path

import attrs
import pytest

from meuterer.rules import Rules

RULES_MD = Path(__file__).parent.parent / "docs" / "rules.md"
ROW = re.compile(r"^\| `(?P<id>[^`]+)` \| (?P<rule>[^|]+) \| (?P<source>[^|]+) \|(?P<options>[^|]*)\|$", re.M)


def rows() -> list[dict[str, str]]:
    """The rows of the table under "## Rule ids"."""
    text = RULES_MD.read_text(encoding="utf-8").split("\n## Rule ids\n", 1)[1].split("\n## ", 1)[0]
    return [{k: v.strip() for k, v in m.groupdict().items()} for m in ROW.finditer(text)]


def test_the_table_is_there_and_every_id_is_unique_and_well_formed() -> None:
    ids = [row["id"] for row in rows()]
    assert len(ids) >= 40
    assert len(ids) == len(set(ids))
    for ident in ids:
        assert re.fullmatch(r"(setup|p(10|[1-9])|end|pirates|hidden|rules)\.[a-z]+(-[a-z]+)*", ident), ident


@pytest.mark.parametrize("row", rows(), ids=lambda row: row["id"])
def test_each_rule_cites_the_rulebook_or_says_why_not(row: dict[str, str]) -> None:
    source = row["source"]
    cited = re.search(r"\[HU\] [a-z0-9 ]+ ¶\d|\[HU\] sale example|\[CA\] [a-z]+", source)
    assert cited or "open point" in source or "decided" in source, source
    if "open point" in source:
        assert row["options"], f"{row['id']}: an open point names its option"


def test_every_option_named_is_a_rule_option_and_every_option_has_a_rule() -> None:
    fields = {field.name for field in attrs.fields(Rules)}
    named = {name.strip("` ") for row in rows() for name in row["options"].split(",") if name.strip()}
    assert named <= fields, named - fields
    assert fields <= named, fields - named
