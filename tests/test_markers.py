"""The ``slow``, ``browser`` and ``training`` marks: registered, and run only with ``MEUTERER_SLOW=1``."""

from __future__ import annotations

from typing import Any, cast

import pytest
from conftest import GATED, gated_skip


class _Item:
    def __init__(self, *marks: str) -> None:
        self.marks = marks

    def get_closest_marker(self, name: str) -> Any:
        return getattr(pytest.mark, name).mark if name in self.marks else None


def _skip(marks: tuple[str, ...], environ: dict[str, str]) -> pytest.MarkDecorator | None:
    return gated_skip(cast(pytest.Item, _Item(*marks)), environ)


def test_the_marks_are_registered(pytestconfig: pytest.Config) -> None:
    registered = {line.split(":")[0] for line in pytestconfig.getini("markers")}
    assert set(GATED) <= registered


@pytest.mark.parametrize("mark", GATED)
def test_a_marked_test_runs_only_with_meuterer_slow(mark: str) -> None:
    skip = _skip((mark,), {})
    assert skip is not None and skip.name == "skip" and "MEUTERER_SLOW=1" in skip.kwargs["reason"]
    assert mark in skip.kwargs["reason"]
    assert _skip((mark,), {"MEUTERER_SLOW": "1"}) is None
    assert _skip((mark,), {"MEUTERER_SLOW": "0"}) is not None


def test_an_unmarked_test_always_runs() -> None:
    assert _skip((), {}) is None
    assert _skip(("parametrize",), {}) is None
