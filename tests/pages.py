"""Report data built for tests of the HTML page: rows, verdicts, and hostile text."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from pytest_sessioneval.report import NotScoredRow, ReportData, SessionRow, VerdictCell

DIMENSIONS = ("verification-evidence", "plan-fidelity", "gate-health", "process-safety", "efficiency-kpis")


HOSTILE_ID = '<script>document.title="pwned-by-id"</script>'


HOSTILE_EVIDENCE = "\"><img src=x onerror=\"document.title='pwned'\">'</details><script>alert(1)</script>"


HOSTILE_DIMENSION = 'x" onmouseover="alert(2)'


def cell(
    dimension: str, status: str, evidence: str = "", method: str = "deterministic", score: float | None = None
) -> VerdictCell:
    return VerdictCell(dimension, method, status, evidence or f"{dimension} is {status}", score)


def row(
    session_id: str,
    started_at: str | None,
    statuses: dict[str, str],
    line: int = 1,
    extra: tuple[VerdictCell, ...] = (),
) -> SessionRow:
    verdicts = tuple(cell(dimension, status) for dimension, status in statuses.items())
    return SessionRow(session_id, "metrics/sessions.jsonl", line, started_at, verdicts + extra)


def report(
    sessions: tuple[SessionRow, ...], not_scored: tuple[NotScoredRow, ...] = (), title: str = "Session evaluation"
) -> ReportData:
    return ReportData(
        title=title,
        rubric_version="rubric-v1",
        rubric_sha256="ab" * 32,
        standard_version="aiat-llm-eval/1.0",
        plugin_version="pytest-sessioneval/0.1.0",
        timestamp="2026-08-01T09:00:00Z",
        dimension_order=DIMENSIONS,
        sessions=sessions,
        not_scored=not_scored,
    )


def every(status: str, **overrides: str) -> dict[str, str]:
    statuses = {dimension: status for dimension in DIMENSIONS}
    statuses.update({key.replace("_", "-"): value for key, value in overrides.items()})
    return statuses


def weekly_report() -> ReportData:
    """Sessions in ISO weeks 28 (two), 30 (two) and 31 (one), none in week 29, one undated."""
    return report(
        (
            row("w28-a", "2026-07-06T09:00:00Z", every("pass", efficiency_kpis="not-applicable"), 1),
            row("w28-b", "2026-07-12T23:59:59Z", every("fail", efficiency_kpis="not-applicable"), 2),
            row(
                "w30-a",
                "2026-07-20T00:00:00+00:00",
                every("pass", efficiency_kpis="not-applicable", gate_health="cannot-determine"),
                3,
            ),
            row("w30-b", "2026-07-26T09:00:00Z", every("pass", efficiency_kpis="not-applicable"), 4),
            row("w31-a", "2026-07-27T09:00:00Z", every("fail", efficiency_kpis="not-applicable"), 5),
            row("undated", "yesterday", every("pass", efficiency_kpis="not-applicable"), 6),
        ),
        not_scored=(
            NotScoredRow("abandoned-1", "abandoned session (status is 'abandoned')", "metrics/sessions.jsonl", 7),
        ),
    )


def hostile_report() -> ReportData:
    evil = (
        cell("plan-fidelity", "fail", HOSTILE_EVIDENCE, score=0.5),
        cell(HOSTILE_DIMENSION, "pass", HOSTILE_EVIDENCE),
    )
    statuses = every("pass", plan_fidelity="fail")
    del statuses["plan-fidelity"]
    hostile = report(
        (
            SessionRow(
                HOSTILE_ID,
                "m/<b>sessions</b>.jsonl",
                1,
                '"><script>alert(3)</script>',
                tuple(cell(d, s) for d, s in statuses.items()) + evil,
            ),
            row("plain", "2026-07-20T09:00:00Z", every("pass"), 2),
            row(
                "judged",
                "2026-07-21T09:00:00Z",
                every("fail"),
                3,
                extra=(cell("instruction-adherence", "pass", HOSTILE_EVIDENCE, method="judge"),),
            ),
        ),
        not_scored=(NotScoredRow(HOSTILE_ID, HOSTILE_EVIDENCE, "m/<b>sessions</b>.jsonl", 4),),
        title=HOSTILE_ID,
    )
    return dataclasses.replace(
        hostile,
        rubric_version="<i>rubric</i>",
        rubric_sha256="<i>sha</i>",
        standard_version="<i>standard</i>",
        plugin_version="<i>plugin</i>",
        timestamp="<i>timestamp</i>",
    )


def page_data(page: str) -> dict[str, Any]:
    """The session listing's data, as the page's script reads it (``JSON.parse`` of the
    text of its data block)."""
    found = re.search(r'<script type="application/json" id="session-data">(.*?)</script>', page, re.S)
    assert found is not None, "the page holds no session data"
    data: dict[str, Any] = json.loads(found.group(1))
    return data


@dataclasses.dataclass(frozen=True)
class Listed:
    """One row of the session listing, decoded."""

    session_id: str
    where: str  # the file as shown, with its line
    title: str | None  # the whole path, when shown shortened
    started: str | None
    cells: dict[str, tuple[str, str | None, str]]  # dimension -> (status, evidence or None, score)
    requested: str | None


def listed_rows(page: str) -> list[Listed]:
    data = page_data(page)
    requested = dict(data["requested"])
    rows = []
    for index, (session_id, source, line, started, *refs) in enumerate(data["rows"]):
        shown, title = data["sources"][source]
        cells = {
            dimension: tuple(data["verdicts"][ref])
            for dimension, ref in zip(data["columns"], refs, strict=True)
            if ref >= 0
        }
        rows.append(Listed(session_id, f"{shown}:{line}", title, started, cells, requested.get(index)))  # type: ignore[arg-type]
    return rows


def skipped_rows(page: str) -> list[tuple[str, str, str | None, str]]:
    """The not-scored table's rows, decoded: (session id, file:line as shown, whole path, reason)."""
    data = page_data(page)
    return [
        (session_id, f"{data['sources'][source][0]}:{line}", data["sources"][source][1], data["reasons"][reason])
        for session_id, source, line, reason in data["skipped"]
    ]
