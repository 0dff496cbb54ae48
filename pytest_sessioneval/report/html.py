"""The HTML report: one self-contained page people read, rendered from plain data.

``render_report`` turns a ``ReportData`` into one HTML5 document with inline
CSS, inline SVG charts and a small inline script that filters the session
table. The page loads nothing (its Content-Security-Policy allows only its own
style and script, by hash) and works without the script too.

What the page holds, in order: provenance; per deterministic dimension, the
verdict counts and the pass rate over the sessions where the dimension was
decided, with n and a 95% Wilson interval; each dimension's pass rate per ISO
week; what the figures do not show; every session with its verdicts and their
evidence; the sessions that were not scored; and, apart from all of that, any
advisory judge verdicts. Only verdicts with method ``deterministic`` enter the
tables and charts. There is no figure across dimensions.

Every value from the data is escaped (``html.escape`` with ``quote=True``),
in text and in attributes alike, and no data is placed inside the script.
Rendering is deterministic: the same ``ReportData`` gives the same string (no
clock, no random ids, ordering from the input alone).

Pure: no pytest, no clock; ``write_report`` is the only function that writes.
"""

from __future__ import annotations

import base64
import hashlib
import math
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import date
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Final

from ..core.rubric import (
    CANNOT_DETERMINE,
    DETERMINISTIC,
    FAIL,
    NOT_APPLICABLE,
    PASS,
    STATUSES,
)
from ..core.text import show
from .charts import SCALE_HEAD, chart, interval_bar, weekly_counts
from .escape import html_text as _e
from .intervals import (
    DimensionRate,
    format_interval,
    ranking_note,
)
from .output import replace_file

if TYPE_CHECKING:
    from ..core.engine import SessionEvaluation

__all__ = [
    "ADVISORY_HEADING",
    "DOES_NOT_SHOW",
    "ReportData",
    "SessionRow",
    "VerdictCell",
    "first_text",
    "is_html_page",
    "render_report",
    "write_report",
]

ADVISORY_HEADING: Final = "Advisory (uncalibrated) judge verdicts"

DOES_NOT_SHOW: Final[tuple[tuple[str, str], ...]] = (
    (
        "No global score.",
        "Each dimension stands alone. There is no overall, combined or mean figure across "
        "dimensions, on purpose (aiat-llm-eval/1.0): a pass on one dimension does not make up "
        "for a fail on another.",
    ),
    (
        "n per figure.",
        "Every pass rate is taken over the sessions where the dimension was decided (pass or "
        "fail) and is shown with that n and a 95% Wilson interval. A rate over few sessions "
        "says little: n = 1 gets no interval, and two dimensions whose intervals overlap are "
        "not ranked. Not-applicable and cannot-determine verdicts are counted beside the "
        "rate, never folded into it.",
    ),
    (
        "Reproducibility means the scoring replays.",
        "Scoring the same recorded data with the same rubric gives the same verdicts. That "
        "says nothing about the model: the model is not deterministic, and the same task run "
        "again may produce a different session.",
    ),
    (
        "Self-evaluation.",
        "A team scoring its own orchestrator's sessions is evaluating itself. This report is "
        "a self-evaluation, not an independent audit.",
    ),
)

_DASH: Final = "\u2014"
_STATUS_CLASS: Final = {PASS: "s-pass", FAIL: "s-fail", NOT_APPLICABLE: "s-na", CANNOT_DETERMINE: "s-cd"}
_MS_PER_DAY: Final = 86_400_000
_EPOCH: Final = date(1970, 1, 1)


@dataclass(frozen=True, slots=True)
class VerdictCell:
    """One dimension's verdict for one session, as the report shows it."""

    dimension: str
    method: str
    status: str
    evidence: str
    score: float | int | None = None


@dataclass(frozen=True, slots=True)
class SessionRow:
    """One scored session: where its record is, when it started, and its verdicts."""

    session_id: str
    source: str
    line: int
    started_at: str | None
    verdicts: tuple[VerdictCell, ...]

    @classmethod
    def from_evaluation(
        cls, evaluation: SessionEvaluation, source: str, shown: Collection[str] | None = None
    ) -> SessionRow:
        """The row of a scored session; ``source`` names its sessions file as the report shows it.

        ``shown``: the dimension ids to show (those whose items ran), default all.
        """
        started = evaluation.record.get("started_at")
        return cls(
            session_id=evaluation.session_id,
            source=source,
            line=evaluation.line,
            started_at=started if isinstance(started, str) else None,
            verdicts=tuple(
                VerdictCell(verdict.id, verdict.method, verdict.status, verdict.evidence, verdict.score)
                for verdict in (*evaluation.dimensions, *evaluation.judge)
                if shown is None or verdict.id in shown
            ),
        )


@dataclass(frozen=True, slots=True)
class ReportData:
    """Everything the report shows; ``not_scored`` is ``(session_id, reason)`` per session."""

    title: str
    rubric_version: str
    rubric_sha256: str
    standard_version: str
    plugin_version: str
    timestamp: str
    dimension_order: tuple[str, ...]
    sessions: tuple[SessionRow, ...]
    not_scored: tuple[tuple[str, str], ...] = ()


def write_report(report: ReportData, path: str | Path) -> None:
    """Write ``render_report(report)`` to ``path`` as UTF-8 bytes, with ``\\n`` line ends
    everywhere; whole or not at all (``output.replace_file``)."""
    replace_file(Path(path), render_report(report).encode("utf-8", errors="replace"))


# --------------------------------------------------------------------------- the data


def _deterministic(cell: VerdictCell) -> bool:
    # The advisory firewall: only deterministic verdicts reach the tables and charts.
    return cell.method == DETERMINISTIC


def _dimensions(report: ReportData) -> tuple[str, ...]:
    """Rubric order first, then any other deterministic dimension seen, sorted."""
    seen = {cell.dimension for row in report.sessions for cell in row.verdicts if _deterministic(cell)}
    order = list(dict.fromkeys(report.dimension_order))
    return (*order, *sorted(seen - set(order)))


def _cells(row: SessionRow) -> dict[str, VerdictCell]:
    """A session's deterministic verdicts by dimension (the first one, should a dimension repeat)."""
    cells: dict[str, VerdictCell] = {}
    for cell in row.verdicts:
        if _deterministic(cell):
            cells.setdefault(cell.dimension, cell)
    return cells


def _rates(report: ReportData, dimensions: Sequence[str]) -> list[DimensionRate]:
    counts: dict[str, Counter[str]] = {dimension: Counter() for dimension in dimensions}
    for row in report.sessions:
        for dimension, cell in _cells(row).items():
            counts[dimension][cell.status] += 1
    return [DimensionRate.from_counts(dimension, counts[dimension]) for dimension in dimensions]


# --------------------------------------------------------------------------- formatting


def _number(value: float) -> str:
    return f"{value:.2f}"


def _score(score: float | int | None) -> str:
    if score is None or isinstance(score, bool):
        return ""
    if isinstance(score, float) and not math.isfinite(score):
        return str(score)
    return show(score)  # as the evidence and the journal write it: 0.7999999 is no 0.8


def _badge(status: str) -> str:
    return f'<span class="badge {_STATUS_CLASS.get(status, "s-other")}">{_e(status)}</span>'


# --------------------------------------------------------------------------- sections


def _provenance(report: ReportData) -> str:
    items = (
        ("Rubric", report.rubric_version, ""),
        ("Standard", report.standard_version, ""),
        ("Plugin", report.plugin_version, ""),
        ("Evaluated at", report.timestamp, ""),
        ("Rubric sha256", report.rubric_sha256, ' class="wide"'),
    )
    cells = "".join(f"<div{wide}><dt>{_e(name)}</dt><dd>{_e(value)}</dd></div>" for name, value, wide in items)
    return f'<section id="provenance" aria-label="Provenance"><dl class="provenance">{cells}</dl></section>'


def _dimension_table(rates: Sequence[DimensionRate]) -> str:
    head = (
        '<thead><tr><th scope="col">Dimension</th>'
        + "".join(f'<th scope="col" class="num">{_e(status)}</th>' for status in STATUSES)
        + '<th scope="col" class="num">n</th><th scope="col" class="num">pass rate</th>'
        '<th scope="col">95% interval</th><th scope="col" class="scale-head">'
        f"{SCALE_HEAD}</th></tr></thead>"
    )
    rows = []
    for rate in rates:
        counts = (rate.passes, rate.fails, rate.not_applicable, rate.cannot_determine)
        rows.append(
            f'<tr data-dimension="{_e(rate.dimension)}"><th scope="row">{_e(rate.dimension)}</th>'
            + "".join(f'<td class="num">{count}</td>' for count in counts)
            + f'<td class="num">{rate.n}</td>'
            f'<td class="num">{_number(rate.rate) if rate.rate is not None else _DASH}</td>'
            f"<td>{_e(format_interval(rate.passes, rate.fails))}</td><td>{interval_bar(rate)}</td></tr>"
        )
    return (
        '<table id="dimensions" class="grid">'
        f"{head}<tbody>{''.join(rows)}</tbody></table>"
        f'<p class="note">Pass rate = pass / (pass + fail), over the sessions where the dimension '
        f"was decided; n is that number of sessions. {_e(ranking_note(rates))}</p>"
    )


def _charts(report: ReportData, dimensions: Sequence[str]) -> str:
    weeks, by_dimension, undated = weekly_counts(
        (row.started_at, {d: c.status for d, c in _cells(row).items()}) for row in report.sessions
    )
    if not report.sessions:
        return '<p class="note">No session was scored, so there is no weekly chart.</p>'
    if not weeks:
        body = '<p class="note">No session has a parseable started_at, so there is no weekly chart.</p>'
    else:
        body = (
            '<div class="charts">'
            + "".join(chart(dimension, weeks, by_dimension.get(dimension, {})) for dimension in dimensions)
            + "</div>"
        )
    sessions = "session" if undated == 1 else "sessions"
    undated_note = (
        f"{undated} {sessions} without a parseable started_at (or one outside the years 1 to 9999): "
        "counted in the tables, not in the charts."
        if undated
        else "Every session has a parseable started_at."
    )
    return (
        f"{body}"
        '<p class="note">Each point is one ISO week (UTC, by started_at): the pass rate over that '
        "week's sessions where the dimension was decided, with its 95% Wilson interval as a whisker "
        "(none at n = 1). A gap is a week with n = 0. Hover a point for its numbers. "
        f"{_e(undated_note)}</p>"
    )


def _does_not_show() -> str:
    items = "".join(f"<li><strong>{_e(head)}</strong> {_e(text)}</li>" for head, text in DOES_NOT_SHOW)
    return (
        '<section id="does-not-show" aria-labelledby="does-not-show-h">'
        f'<h2 id="does-not-show-h">What this does not show</h2><ul>{items}</ul></section>'
    )


def _verdict_cell(dimension: str, cell: VerdictCell | None) -> str:
    if cell is None:
        return f'<td class="verdict" data-dimension="{_e(dimension)}" data-status="">{_DASH}</td>'
    score = _score(cell.score)
    score_html = f' <span class="score">{_e(score)}</span>' if score else ""
    return (
        f'<td class="verdict" data-dimension="{_e(dimension)}" data-status="{_e(cell.status)}">'
        # The evidence is written once: the script makes it the summary's tooltip too.
        f"<details><summary>{_badge(cell.status)}{score_html}</summary>"
        f'<p class="evidence">{_e(cell.evidence)}</p></details></td>'
    )


def _filters(dimensions: Sequence[str]) -> str:
    statuses = "".join(f'<option value="{_e(status)}">{_e(status)}</option>' for status in STATUSES)
    options = "".join(f'<option value="{_e(dimension)}">{_e(dimension)}</option>' for dimension in dimensions)
    return (
        '<form id="filters" class="filters" hidden>'
        '<label>Search <input id="filter-text" type="search" placeholder="session, file or evidence" '
        'autocomplete="off"></label>'
        f'<label>Status <select id="filter-status"><option value="">any status</option>{statuses}</select></label>'
        f'<label>Dimension <select id="filter-dimension"><option value="">every dimension</option>{options}</select></label>'
        '<output id="filter-count" for="filter-text filter-status filter-dimension"></output>'
        "</form>"
    )


def _session_table(report: ReportData, dimensions: Sequence[str]) -> str:
    head = (
        '<thead><tr><th scope="col">Session and record</th><th scope="col">Started</th>'
        + "".join(f'<th scope="col" data-dimension="{_e(dimension)}">{_e(dimension)}</th>' for dimension in dimensions)
        + "</tr></thead>"
    )
    rows = []
    for row in report.sessions:
        cells = _cells(row)
        started = _e(row.started_at) if row.started_at is not None else _DASH
        rows.append(
            f'<tr><th scope="row" class="sid">{_e(row.session_id)}'
            f'<span class="where">{_e(row.source)}:{_e(row.line)}</span></th><td class="when">{started}</td>'
            + "".join(_verdict_cell(dimension, cells.get(dimension)) for dimension in dimensions)
            + "</tr>"
        )
    if not rows:
        return '<p class="note">No session was scored.</p>'
    return (
        f"{_filters(dimensions)}"
        f'<div class="scroll"><table id="sessions" class="grid sessions">{head}<tbody>{"".join(rows)}</tbody></table></div>'
        '<p class="note">Open a verdict to read its evidence (or hover it, where scripts run).</p>'
    )


def _not_scored(report: ReportData) -> str:
    if not report.not_scored:
        return ""
    rows = "".join(
        f'<tr><th scope="row" class="sid">{_e(session_id)}</th><td>{_e(reason)}</td></tr>'
        for session_id, reason in report.not_scored
    )
    return (
        '<section id="not-scored" aria-labelledby="not-scored-h">'
        f'<h2 id="not-scored-h">Not scored ({len(report.not_scored)})</h2>'
        '<p class="note">Abandoned or unfinished sessions: no verdict, and not counted in any figure above.</p>'
        '<table id="not-scored-table" class="grid"><thead><tr><th scope="col">Session</th>'
        f'<th scope="col">Reason</th></tr></thead><tbody>{rows}</tbody></table></section>'
    )


def _advisory(report: ReportData) -> str:
    rows = []
    for row in report.sessions:
        for cell in row.verdicts:
            if _deterministic(cell):
                continue
            score = _score(cell.score)
            rows.append(
                f'<tr><th scope="row" class="sid">{_e(row.session_id)}</th><td>{_e(cell.dimension)}</td>'
                f'<td>{_e(cell.method)}</td><td>{_badge(cell.status)}</td><td class="num">{_e(score)}</td>'
                f'<td class="evidence">{_e(cell.evidence)}</td></tr>'
            )
    if not rows:
        return ""
    return (
        '<section id="advisory" class="advisory" aria-labelledby="advisory-h">'
        f'<h2 id="advisory-h">{_e(ADVISORY_HEADING)}</h2>'
        '<p class="note">These verdicts come from a model acting as judge. They are uncalibrated and '
        "advisory: they are not counted in any table or chart above, and they decide no outcome.</p>"
        '<div class="scroll"><table id="advisory-table" class="grid"><thead><tr><th scope="col">Session</th>'
        '<th scope="col">Dimension</th><th scope="col">Method</th><th scope="col">Verdict</th>'
        '<th scope="col" class="num">Score</th><th scope="col">Evidence</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div></section>"
    )


# --------------------------------------------------------------------------- the page

# The page's style and script, shipped as files beside this module (read once, at import).
_STYLE: Final = (files("pytest_sessioneval.report") / "page.css").read_text(encoding="utf-8")

# Filters the session table by reading the DOM (cell text and data-* attributes); no data lives
# here. The address may preselect filters: report.html#status=fail&dimension=gate-health&q=text
_SCRIPT: Final = (files("pytest_sessioneval.report") / "page.js").read_text(encoding="utf-8")


def _csp_hash(source: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode("ascii") + "'"


# Nothing may load: only this page's own style and script run, pinned by their hashes.
_CSP: Final = (
    f"default-src 'none'; style-src {_csp_hash(_STYLE)}; script-src {_csp_hash(_SCRIPT)}; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)


_NO_DIMENSION: Final = (
    '<p class="note">No item of a deterministic dimension ran (only judge items, or none, were '
    "selected), so there is nothing to count here.</p>"
)


def render_report(report: ReportData) -> str:
    """The report as one self-contained HTML5 document (a ``str``; ``write_report`` writes it)."""
    dimensions = _dimensions(report)
    rates = _rates(report, dimensions)
    scored = len(report.sessions)
    summary = f"{scored} session{'' if scored == 1 else 's'} scored against {report.rubric_version}"
    if report.not_scored:
        summary += f", {len(report.not_scored)} not scored"
    summary += ". Each dimension stands alone."
    body = [
        f"<header><h1>{_e(report.title)}</h1><p>{_e(summary)}</p></header>",
        _provenance(report),
        '<section id="per-dimension" aria-labelledby="per-dimension-h"><h2 id="per-dimension-h">Per dimension</h2>',
        _dimension_table(rates) if dimensions else _NO_DIMENSION,
        "</section>",
        '<section id="weekly" aria-labelledby="weekly-h"><h2 id="weekly-h">Pass rate per week</h2>',
        _charts(report, dimensions) if dimensions else _NO_DIMENSION,
        "</section>",
        _does_not_show(),
        f'<section id="per-session" aria-labelledby="per-session-h"><h2 id="per-session-h">Sessions ({scored})</h2>',
        _session_table(report, dimensions),
        "</section>",
        _not_scored(report),
        _advisory(report),
        f"<footer>{_e(report.plugin_version)} \u00b7 {_e(report.rubric_version)} \u00b7 "
        f"{_e(report.standard_version)} \u00b7 {_e(report.timestamp)}</footer>",
    ]
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_e(_CSP)}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e(report.title)}</title>\n"
        f"<style>{_STYLE}</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(part for part in body if part)
        + f"\n</main>\n<script>{_SCRIPT}</script>\n</body>\n</html>\n"
    )


def first_text(chunk: bytes) -> bytes:
    """``chunk`` from its first text on: past whitespace and byte order marks."""
    return chunk.lstrip(_NO_TEXT)


_NO_TEXT: Final = b" \t\n\r\x0b\x0c\xef\xbb\xbf"  # whitespace, and the bytes of a UTF-8 byte order mark


def is_html_page(head: bytes) -> bool:
    """Whether a file beginning with ``head`` is an HTML document (a page this report, or
    another tool, wrote): its first text is a doctype or an ``<html>`` tag."""
    return first_text(head).lower().startswith((b"<!doctype html", b"<html"))
