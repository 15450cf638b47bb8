"""The driver's findings: :class:`Difference`, :class:`Result`, :class:`Report`, the exit codes
and :func:`summary`, the report as text for people."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import attrs

EXIT_OK: Final = 0
"""Everything checked passed (skipped items allowed)."""
EXIT_FAILED: Final = 1
"""At least one difference, wrong refusal, or engine failure."""
EXIT_USAGE: Final = 2
"""Bad arguments, or an engine that cannot be started or greeted (no ``hello``)."""
EXIT_STALE: Final = 3
"""No failure, but an item listed in ``--expect-fail`` passed: remove it from the list."""


@attrs.define
class Difference:
    """Where an engine first differs from a fixture: at ``step`` (actions applied before it),
    ``what`` (``legal actions``, ``scores``, ``view of p1``, ``applying p0 offer 1``, ...)."""

    step: int
    what: str
    expected: str
    actual: str
    detail: str = ""

    def __str__(self) -> str:
        if self.step < 0:
            text = f"{self.what}: {self.actual}"
        else:
            text = f"step {self.step}, {self.what}: expected {self.expected}, got {self.actual}"
        return text + (f"\n    {self.detail}" if self.detail else "")


@attrs.define
class Result:
    """One checked item: ``kind`` is ``game``, ``refusal``, ``clone`` or ``fuzz``; ``status``
    ``passed``, ``failed``, ``skipped``, ``expected-failure`` or ``unexpected-pass``."""

    kind: str
    ident: str
    status: str
    message: str = ""
    files: list[str] = attrs.Factory(list)

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "id": self.ident,
            "status": self.status,
            "message": self.message,
            "files": self.files,
        }


@attrs.define
class Report:
    """What a run found. ``fuzz_seconds`` is the time the fuzz games took until the first
    difference, ``shrink_seconds`` the time spent shrinking it; ``restarts`` counts the engines
    started again after a failure (a time-out, garbage, death)."""

    engine: dict[str, Any]
    suite_version: str
    results: list[Result] = attrs.Factory(list)
    seconds: float = 0.0
    corpus_seconds: float = 0.0
    fuzz_games: int = 0
    fuzz_seconds: float = 0.0
    shrink_seconds: float = 0.0
    restarts: int = 0
    exit_code: int = EXIT_OK

    def counts(self) -> dict[str, dict[str, int]]:
        table: dict[str, dict[str, int]] = {}
        for result in self.results:
            row = table.setdefault(result.kind, {})
            row[result.status] = row.get(result.status, 0) + 1
        return table

    def as_json(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "suite_version": self.suite_version,
            "exit_code": self.exit_code,
            "counts": self.counts(),
            "seconds": round(self.seconds, 3),
            "corpus_seconds": round(self.corpus_seconds, 3),
            "fuzz_games": self.fuzz_games,
            "fuzz_games_per_second": round(self.fuzz_games / self.fuzz_seconds, 2) if self.fuzz_seconds else None,
            "shrink_seconds": round(self.shrink_seconds, 3),
            "restarts": self.restarts,
            "problems": [r.as_json() for r in self.results if r.status not in ("passed", "skipped")],
            "skipped": [r.as_json() for r in self.results if r.status == "skipped"],
        }


def summary(report: Report, command: Sequence[str]) -> str:
    """The report as text for people."""
    engine = report.engine
    name = f"{engine.get('name', '?')} {engine.get('version', '')} ({engine.get('language', '?')})"
    lines = [f"meuterer conform: {name}, suite {report.suite_version}", f"  command: {' '.join(command)}"]
    labels = {"game": "corpus games", "refusal": "refused actions", "clone": "clone", "fuzz": "fuzzing"}
    counts = report.counts()
    for kind in ("game", "refusal", "clone", "fuzz"):
        row = counts.get(kind)
        if not row:
            continue
        parts = [f"{n} {status}" for status, n in sorted(row.items())]
        extra = ""
        if kind == "fuzz" and report.fuzz_games:
            rate = report.fuzz_games / report.fuzz_seconds if report.fuzz_seconds else 0.0
            extra = f" ({report.fuzz_games} games, {rate:.1f} games/s"
            extra += f"; shrinking {report.shrink_seconds:.1f} s)" if report.shrink_seconds else ")"
        lines.append(f"  {labels[kind]:<16} {', '.join(parts)}{extra}")
    skipped = [r for r in report.results if r.status == "skipped"]
    if skipped:
        reasons: dict[str, int] = {}
        for r in skipped:
            reasons[r.message] = reasons.get(r.message, 0) + 1
        lines.append("  skipped:")
        lines += [f"    {n} x {why}" for why, n in sorted(reasons.items(), key=lambda item: -item[1])[:8]]
    problems = [r for r in report.results if r.status in ("failed", "unexpected-pass")]
    for r in problems[:20]:
        if r.status == "unexpected-pass":
            lines.append(f"PASSED BUT EXPECTED TO FAIL {r.kind} {r.ident}: remove it from the --expect-fail list")
        else:
            lines.append(f"FAILED {r.kind} {r.ident}: {r.message}")
        for path in r.files:
            lines.append(f"  wrote {path}")
    if len(problems) > 20:
        lines.append(f"... and {len(problems) - 20} more (--json lists them all)")
    verdict = {EXIT_OK: "OK", EXIT_FAILED: "FAILED", EXIT_STALE: "STALE EXPECTED FAILURES"}[report.exit_code]
    timing = f"{report.seconds:.1f} s (corpus {report.corpus_seconds:.1f} s)"
    lines.append(f"{verdict} in {timing}; engine restarts: {report.restarts}")
    return "\n".join(lines)
