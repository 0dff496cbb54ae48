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
import html
import math
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
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
from ..core.timestamps import parse_timestamp_ms
from .intervals import (
    DimensionRate,
    format_interval,
    format_rate,
    ranking_note,
    wilson_interval,
)

if TYPE_CHECKING:
    from ..core.engine import SessionEvaluation

__all__ = [
    "ADVISORY_HEADING",
    "DOES_NOT_SHOW",
    "ReportData",
    "first_text",
    "is_html_page",
    "html_text",
    "SessionRow",
    "VerdictCell",
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
    """Write ``render_report(report)`` to ``path`` as UTF-8 bytes, with ``\\n`` line ends everywhere."""
    Path(path).write_bytes(render_report(report).encode("utf-8", errors="replace"))


# --------------------------------------------------------------------------- the data


# Characters an HTML page may not hold (C0 controls but tab and newlines, DEL, C1 controls,
# lone surrogates, the noncharacters of every plane), and the bidirectional controls that
# would let one id display as another (U+202E turns what follows around): shown as the
# escapes a node id uses.
_UNPRINTABLE: Final = {
    code: f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
    for code in (
        *(c for c in range(0x20) if c not in (0x09, 0x0A, 0x0D)),
        *range(0x7F, 0xA0),
        *range(0xD800, 0xE000),
        *range(0xFDD0, 0xFDF0),
        *(plane + last for plane in range(0, 0x110000, 0x10000) for last in (0xFFFE, 0xFFFF)),
        0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A),
    )
}


def html_text(value: object) -> str:
    """Escape any value for HTML text and (double- or single-quoted) attribute values;
    characters a page may not hold are shown as escapes (``\\x00``)."""
    return html.escape(str(value).translate(_UNPRINTABLE), quote=True)


_e = html_text


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


@dataclass(frozen=True, slots=True)
class _Week:
    """An ISO week: its label (``2026-W30``) and its Monday."""

    label: str
    monday: date


# Every week between the first and last session is plotted up to this span (ten years).
_MAX_CONTIGUOUS_WEEKS = 522


def _week_of(started_at: str | None) -> _Week | None:
    ms = parse_timestamp_ms(started_at)
    if ms is None:
        return None
    try:
        day = _EPOCH + timedelta(days=ms // _MS_PER_DAY)
        year, week, weekday = day.isocalendar()
        return _Week(f"{year:04d}-W{week:02d}", day - timedelta(days=weekday - 1))
    except OverflowError:  # a week reaching outside years 1 to 9999: no calendar week to plot
        return None


def _weeks(report: ReportData) -> tuple[list[_Week], dict[str, dict[date, Counter[str]]], int]:
    """Every week from the first to the last session start, counts per dimension and week,
    and how many sessions had no parseable start."""
    by_dimension: dict[str, dict[date, Counter[str]]] = {}
    undated = 0
    mondays: set[date] = set()
    for row in report.sessions:
        week = _week_of(row.started_at)
        if week is None:
            undated += 1
            continue
        mondays.add(week.monday)
        for dimension, cell in _cells(row).items():
            by_dimension.setdefault(dimension, {}).setdefault(week.monday, Counter())[cell.status] += 1
    weeks: list[_Week] = []
    if mondays:
        first, last = min(mondays), max(mondays)
        if (last - first).days > 7 * _MAX_CONTIGUOUS_WEEKS:
            shown = sorted(mondays)  # decades apart: only the weeks that hold sessions
        else:
            shown = [first + timedelta(days=7 * n) for n in range((last - first).days // 7 + 1)]
        for monday in shown:
            year, week_number, _ = monday.isocalendar()
            weeks.append(_Week(f"{year:04d}-W{week_number:02d}", monday))
    return weeks, by_dimension, undated


# --------------------------------------------------------------------------- formatting


def _number(value: float) -> str:
    return f"{value:.2f}"


def _score(score: float | int | None) -> str:
    if score is None or isinstance(score, bool):
        return ""
    if isinstance(score, float) and not math.isfinite(score):
        return str(score)
    return show(score)  # as the evidence and the journal write it: 0.7999999 is no 0.8


def _rate_tooltip(label: str, bucket: Counter[str]) -> str:
    """A week's point: its pass rate line, and the verdicts counted beside it."""
    extra = [f"{bucket[status]} {status}" for status in (NOT_APPLICABLE, CANNOT_DETERMINE) if bucket[status]]
    return f"{label}: {format_rate(bucket[PASS], bucket[FAIL])}" + (f"; {', '.join(extra)}" if extra else "")


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


def _interval_bar(rate: DimensionRate) -> str:
    """A 0-to-1 scale with the interval as a bar and the rate as a dot."""
    width, left, right = 180.0, 6.0, 174.0

    def x(value: float) -> str:
        return f"{left + value * (right - left):.1f}"

    parts = [
        f'<svg class="bar" viewBox="0 0 {width:.0f} 18" width="{width:.0f}" height="18" role="img" '
        f'aria-label="{_e(rate.describe())}"><title>{_e(rate.dimension)}: {_e(rate.describe())}</title>',
        f'<line class="scale" x1="{left:.1f}" y1="9" x2="{right:.1f}" y2="9"/>',
        *(f'<line class="tick" x1="{x(v)}" y1="5" x2="{x(v)}" y2="13"/>' for v in (0.0, 0.5, 1.0)),
    ]
    if rate.low is not None and rate.high is not None:
        parts.append(f'<rect class="ci" x="{x(rate.low)}" y="5" width="{(rate.high - rate.low) * (right - left):.1f}" height="8" rx="2"/>')
    if rate.rate is not None:
        parts.append(f'<circle class="rate" cx="{x(rate.rate)}" cy="9" r="3.5"/>')
    parts.append("</svg>")
    return "".join(parts)


# The 0, 0.5 and 1 marks above the interval bars, at the bars' tick positions.
_SCALE_HEAD: Final = (
    '<svg class="bar" viewBox="0 0 180 12" width="180" height="12" role="img" aria-label="scale from 0 to 1">'
    '<text x="6" y="10" text-anchor="middle">0</text><text x="90" y="10" text-anchor="middle">0.5</text>'
    '<text x="174" y="10" text-anchor="middle">1</text></svg>'
)


def _dimension_table(rates: Sequence[DimensionRate]) -> str:
    head = (
        "<thead><tr><th scope=\"col\">Dimension</th>"
        + "".join(f'<th scope="col" class="num">{_e(status)}</th>' for status in STATUSES)
        + '<th scope="col" class="num">n</th><th scope="col" class="num">pass rate</th>'
        '<th scope="col">95% interval</th><th scope="col" class="scale-head">'
        f"{_SCALE_HEAD}</th></tr></thead>"
    )
    rows = []
    for rate in rates:
        counts = (rate.passes, rate.fails, rate.not_applicable, rate.cannot_determine)
        rows.append(
            f'<tr data-dimension="{_e(rate.dimension)}"><th scope="row">{_e(rate.dimension)}</th>'
            + "".join(f'<td class="num">{count}</td>' for count in counts)
            + f'<td class="num">{rate.n}</td>'
            f'<td class="num">{_number(rate.rate) if rate.rate is not None else _DASH}</td>'
            f"<td>{_e(format_interval(rate.passes, rate.fails))}</td><td>{_interval_bar(rate)}</td></tr>"
        )
    return (
        '<table id="dimensions" class="grid">'
        f"{head}<tbody>{''.join(rows)}</tbody></table>"
        f'<p class="note">Pass rate = pass / (pass + fail), over the sessions where the dimension '
        f"was decided; n is that number of sessions. {_e(ranking_note(rates))}</p>"
    )


_CHART_W: Final = 360.0
_CHART_H: Final = 158.0
_PAD_L: Final = 34.0
_PAD_R: Final = 10.0
_INSET: Final = 22.0
_PAD_T: Final = 12.0
_PLOT_H: Final = 110.0
_N_LABELS_MAX_WEEKS: Final = 14


def _chart(dimension: str, weeks: Sequence[_Week], counts: dict[date, Counter[str]]) -> str:
    """One dimension's weekly pass rate: points with 95% whiskers, lines only between adjacent weeks."""
    plot_w = _CHART_W - _PAD_L - _PAD_R
    bottom = _PAD_T + _PLOT_H

    def x(index: int) -> float:
        # Points sit inside the plot, clear of the y-axis labels and of the right edge.
        inner = plot_w - 2 * _INSET
        return _PAD_L + _INSET + (inner / 2 if len(weeks) == 1 else index * inner / (len(weeks) - 1))

    def y(value: float) -> float:
        return bottom - value * _PLOT_H

    parts = [
        f'<svg class="chart" viewBox="0 0 {_CHART_W:.0f} {_CHART_H:.0f}" role="img" '
        f'aria-label="{_e(f"{dimension}: pass rate per ISO week")}">',
    ]
    for value in (0.0, 0.5, 1.0):
        parts.append(
            f'<line class="gridline" x1="{_PAD_L:.1f}" y1="{y(value):.1f}" x2="{_CHART_W - _PAD_R:.1f}" y2="{y(value):.1f}"/>'
            f'<text class="axis" x="{_PAD_L - 6:.1f}" y="{y(value) + 3:.1f}" text-anchor="end">{value:g}</text>'
        )
    step = max(1, math.ceil(len(weeks) / 5))
    show_n = len(weeks) <= _N_LABELS_MAX_WEEKS
    for index, week in enumerate(weeks):
        cx = x(index)
        if index % step == 0:
            parts.append(f'<text class="axis" x="{cx:.1f}" y="{bottom + 14:.1f}" text-anchor="middle">{_e(week.label)}</text>')
        if show_n:
            bucket = counts.get(week.monday, Counter())
            n = bucket[PASS] + bucket[FAIL]
            parts.append(
                f'<text class="n" x="{cx:.1f}" y="{bottom + 28:.1f}" text-anchor="middle">n={n}</text>'
            )

    series = [f'<g class="series" data-dimension="{_e(dimension)}">']
    run: list[str] = []
    points: list[str] = []
    previous: _Week | None = None
    for index, week in enumerate(weeks):
        bucket = counts.get(week.monday, Counter())
        passes, fails = bucket[PASS], bucket[FAIL]
        n = passes + fails
        # A line joins adjacent weeks only: a long span plots only the weeks that hold
        # sessions, and the weeks left out between them are gaps as well.
        adjacent = previous is not None and (week.monday - previous.monday).days == 7
        previous = week
        if n == 0 or not adjacent:
            if len(run) > 1:
                series.append(f'<path class="line" d="{" ".join(run)}"/>')
            run = []
            if n == 0:
                continue
        cx, cy = x(index), y(passes / n)
        run.append(f"{'M' if not run else 'L'}{cx:.1f},{cy:.1f}")
        label = f"{week.label} (week of {week.monday.isoformat()})"
        point = [f'<g class="point"><title>{_e(_rate_tooltip(label, bucket))}</title>']
        if n >= 2:
            low, high = wilson_interval(passes, n) or (0.0, 1.0)
            point.append(
                f'<line class="whisker" x1="{cx:.1f}" y1="{y(low):.1f}" x2="{cx:.1f}" y2="{y(high):.1f}"/>'
                f'<line class="whisker" x1="{cx - 3:.1f}" y1="{y(low):.1f}" x2="{cx + 3:.1f}" y2="{y(low):.1f}"/>'
                f'<line class="whisker" x1="{cx - 3:.1f}" y1="{y(high):.1f}" x2="{cx + 3:.1f}" y2="{y(high):.1f}"/>'
            )
        point.append(f'<circle class="dot" cx="{cx:.1f}" cy="{cy:.1f}" r="3.5"/></g>')
        points.append("".join(point))
    if len(run) > 1:
        series.append(f'<path class="line" d="{" ".join(run)}"/>')
    series.extend(points)
    series.append("</g>")
    parts.extend(series)
    if not points:
        parts.append(
            f'<text class="empty" x="{_PAD_L + plot_w / 2:.1f}" y="{_PAD_T + _PLOT_H / 2:.1f}" '
            'text-anchor="middle">never decided: n = 0 in every week</text>'
        )
    parts.append("</svg>")
    return f'<figure class="chart"><figcaption>{_e(dimension)}</figcaption>{"".join(parts)}</figure>'


def _charts(report: ReportData, dimensions: Sequence[str]) -> str:
    weeks, by_dimension, undated = _weeks(report)
    if not report.sessions:
        return '<p class="note">No session was scored, so there is no weekly chart.</p>'
    if not weeks:
        body = '<p class="note">No session has a parseable started_at, so there is no weekly chart.</p>'
    else:
        body = '<div class="charts">' + "".join(
            _chart(dimension, weeks, by_dimension.get(dimension, {})) for dimension in dimensions
        ) + "</div>"
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
                f"<td>{_e(cell.method)}</td><td>{_badge(cell.status)}</td><td class=\"num\">{_e(score)}</td>"
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
        f'<tbody>{"".join(rows)}</tbody></table></div></section>'
    )


# --------------------------------------------------------------------------- the page

_STYLE: Final = """
:root{--ink:#1f2933;--muted:#616e7c;--line:#d9dee4;--soft:#f5f7fa;--accent:#2f5d8a;
--pass:#1e7a46;--pass-bg:#e3f4ea;--fail:#b3261e;--fail-bg:#fbe7e5;--na:#52606d;--na-bg:#eceff2;
--cd:#8a5a00;--cd-bg:#fdf1d8}
*{box-sizing:border-box}
[hidden]{display:none!important}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:#fff;color:var(--ink);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1200px;margin:0 auto;padding:28px 32px 48px}
header h1{font-size:24px;font-weight:650;margin:0 0 4px}
header p{margin:0 0 16px;color:var(--muted)}
h2{font-size:17px;font-weight:650;margin:32px 0 10px;padding-bottom:6px;border-bottom:1px solid var(--line)}
.provenance{display:grid;grid-template-columns:repeat(auto-fit,minmax(200px,1fr));gap:8px 24px;margin:0;
padding:12px 16px;background:var(--soft);border:1px solid var(--line);border-radius:6px}
.provenance div{min-width:0}
.provenance .wide{grid-column:1/-1}
.provenance dt{font-size:11px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
.provenance dd{margin:0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px;overflow-wrap:anywhere}
table.grid{border-collapse:collapse;width:100%;font-size:13px}
table.grid th,table.grid td{border-bottom:1px solid var(--line);padding:6px 10px;text-align:left;vertical-align:top}
table.grid thead th{background:var(--soft);font-weight:600;font-size:12px;color:var(--muted);white-space:nowrap}
table.grid tbody th{font-weight:600}
.num{text-align:right!important;font-variant-numeric:tabular-nums}
#dimensions td,#dimensions th{vertical-align:middle}
.note{color:var(--muted);font-size:12.5px;margin:8px 0 0}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
svg.bar{display:block}
svg.bar text{fill:var(--muted);font-size:10px}
svg.bar .scale{stroke:var(--line);stroke-width:2}
svg.bar .tick{stroke:#b8c2cc;stroke-width:1}
svg.bar .ci{fill:#c9d8e8}
svg.bar .rate,svg.chart .dot{fill:var(--accent)}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:14px}
figure.chart{margin:0;padding:10px 12px 6px;border:1px solid var(--line);border-radius:6px}
figure.chart figcaption{font-weight:600;font-size:13px}
svg.chart{display:block;width:100%;height:auto}
svg.chart .gridline{stroke:#e4e8ec;stroke-width:1}
svg.chart .axis{fill:var(--muted);font-size:9.5px}
svg.chart .n{fill:#9aa5b1;font-size:8.5px}
svg.chart .line{fill:none;stroke:var(--accent);stroke-width:1.6}
svg.chart .whisker{stroke:#8fb0cf;stroke-width:1.2}
svg.chart .empty{fill:var(--muted);font-size:11px}
svg.chart .point:hover .dot{r:5}
#does-not-show ul{margin:0;padding-left:20px}
#does-not-show li{margin:4px 0}
.filters{display:flex;flex-wrap:wrap;align-items:center;gap:10px 18px;margin:0 0 10px;font-size:13px}
.filters label{display:flex;align-items:center;gap:6px;color:var(--muted)}
.filters input,.filters select{font:inherit;color:var(--ink);padding:4px 8px;border:1px solid #c4cdd5;border-radius:4px;background:#fff}
.filters input{width:240px}
#filter-count{color:var(--muted);margin-left:auto}
.scroll{overflow-x:auto}
table.grid .sid{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;font-weight:500;overflow-wrap:anywhere;min-width:200px}
.sessions .where{display:block;font-size:10.5px;font-weight:400;color:var(--muted);white-space:nowrap;overflow-wrap:normal}
.sessions .when{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:11.5px;color:var(--muted);white-space:nowrap}
table.sessions th,table.sessions td{padding:6px 8px}
.sessions td.verdict{min-width:104px}
details summary{cursor:pointer;list-style:none;white-space:nowrap}
details summary::-webkit-details-marker{display:none}
details[open] summary{margin-bottom:4px}
details summary::after{content:"\\25B8";color:#9aa5b1;font-size:10px;margin-left:5px}
details[open] summary::after{content:"\\25BE"}
.evidence{margin:0;white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px;color:#3e4c59;max-width:34em}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:11.5px;font-weight:600;border:1px solid transparent}
.s-pass{color:var(--pass);background:var(--pass-bg);border-color:#b7dfc6}
.s-fail{color:var(--fail);background:var(--fail-bg);border-color:#f0bfba}
.s-na{color:var(--na);background:var(--na-bg);border-color:#d5dbe1}
.s-cd{color:var(--cd);background:var(--cd-bg);border-color:#f0d9a6}
.s-other{color:var(--ink);background:#fff;border-color:var(--line)}
.score{font-size:11.5px;color:var(--muted);font-variant-numeric:tabular-nums}
.advisory{margin-top:40px;padding:4px 16px 16px;border:1px dashed #c4a14a;border-radius:6px;background:#fffcf3}
.advisory h2{border-bottom-color:#ecdcae}
footer{margin-top:40px;color:var(--muted);font-size:12px}
"""

# Filters the session table by reading the DOM (cell text and data-* attributes); no data lives
# here. The address may preselect filters: report.html#status=fail&dimension=gate-health&q=text
_SCRIPT: Final = """
(function () {
  "use strict";
  var form = document.getElementById("filters");
  var table = document.getElementById("sessions");
  if (!form || !table) { return; }
  var text = document.getElementById("filter-text");
  var status = document.getElementById("filter-status");
  var dimension = document.getElementById("filter-dimension");
  var count = document.getElementById("filter-count");
  var rows = Array.prototype.slice.call(table.tBodies[0].rows);
  // Hovering a verdict shows its evidence: the page holds each evidence text once.
  Array.prototype.forEach.call(table.querySelectorAll("td.verdict details"), function (verdict) {
    var evidence = verdict.querySelector(".evidence");
    if (evidence) { verdict.querySelector("summary").title = evidence.textContent; }
  });
  var columns = Array.prototype.slice.call(table.querySelectorAll("[data-dimension]"));

  function choose(select, value) {
    for (var i = 0; i < select.options.length; i += 1) {
      if (select.options[i].value === value) { select.value = value; return; }
    }
  }

  function apply() {
    var needle = text.value.trim().toLowerCase();
    var wanted = status.value;
    var only = dimension.value;
    var shown = 0;
    columns.forEach(function (cell) {
      cell.hidden = only !== "" && cell.getAttribute("data-dimension") !== only;
    });
    rows.forEach(function (row) {
      var keep = needle === "" || row.textContent.toLowerCase().indexOf(needle) !== -1;
      if (keep && wanted !== "") {
        keep = Array.prototype.some.call(row.querySelectorAll("td[data-dimension]"), function (cell) {
          return (only === "" || cell.getAttribute("data-dimension") === only) &&
            cell.getAttribute("data-status") === wanted;
        });
      }
      row.hidden = !keep;
      if (keep) { shown += 1; }
    });
    count.textContent = "Showing " + shown + " of " + rows.length + " sessions";
  }

  var initial = new URLSearchParams(window.location.hash.slice(1));
  text.value = initial.get("q") || "";
  choose(status, initial.get("status") || "");
  choose(dimension, initial.get("dimension") || "");
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  text.addEventListener("input", apply);
  status.addEventListener("change", apply);
  dimension.addEventListener("change", apply);
  form.hidden = false;
  apply();
})();
"""


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
        '<section id="per-dimension" aria-labelledby="per-dimension-h">'
        '<h2 id="per-dimension-h">Per dimension</h2>',
        _dimension_table(rates) if dimensions else _NO_DIMENSION,
        "</section>",
        '<section id="weekly" aria-labelledby="weekly-h"><h2 id="weekly-h">Pass rate per week</h2>',
        _charts(report, dimensions) if dimensions else _NO_DIMENSION,
        "</section>",
        _does_not_show(),
        '<section id="per-session" aria-labelledby="per-session-h">'
        f'<h2 id="per-session-h">Sessions ({scored})</h2>',
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
