"""Each rule id of docs/rules.md is held by tests marked ``@pytest.mark.rule(id)``, and
every mark names a rule id of the table (issue 40, item 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import load_script

ROOT = Path(__file__).resolve().parent.parent


_script = load_script


trace = _script("traceability")
IDS = [row["id"] for row in trace.rule_rows()]
TAGGED = trace.tagged_tests()


@pytest.mark.parametrize("ident", IDS)
def test_each_rule_id_has_a_tagged_test(ident: str) -> None:
    assert TAGGED.get(ident), f"no test is marked @pytest.mark.rule({ident!r})"


def test_every_mark_names_a_rule_id() -> None:
    assert set(TAGGED) - set(IDS) == set()


def test_marks_are_read_from_the_source_as_pytest_sees_them(tmp_path: Path) -> None:
    (tmp_path / "test_example.py").write_text(
        "import pytest\n\n"
        '@pytest.mark.rule("p4.tie", "p4.strength")\n'
        '@pytest.mark.parametrize("n", [1, 2])\n'
        "def test_a(n): ...\n\n"
        "class TestB:\n"
        '    @pytest.mark.rule("p4.tie")\n'
        "    def test_c(self): ...\n\n"
        "def test_untagged(): ...\n",
        encoding="utf-8",
    )
    found = trace.tagged_tests(tmp_path)
    prefix = f"{tmp_path.name}/test_example.py"
    assert found == {"p4.tie": [f"{prefix}::test_a", f"{prefix}::TestB::test_c"], "p4.strength": [f"{prefix}::test_a"]}


def test_a_mark_with_a_computed_id_is_refused(tmp_path: Path) -> None:
    (tmp_path / "test_bad.py").write_text(
        'import pytest\n\nTIE = "p4.tie"\n\n@pytest.mark.rule(TIE)\ndef test_a(): ...\n', encoding="utf-8"
    )
    with pytest.raises(ValueError, match="string literals"):
        trace.tagged_tests(tmp_path)
