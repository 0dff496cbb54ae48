"""The HTML report: one self-contained page people read, rendered from plain data.

``render_report`` turns a ``ReportData`` (``page_data``) into one HTML5 document with
inline CSS, inline SVG charts, a block of JSON data (``listing``) and a small inline script
that draws the session and not-scored tables from that data, 100 rows to a page, and
filters them. The page loads nothing (its Content-Security-Policy allows only its own
style and script, by hash); its figures need no script.

What the page holds, in order: provenance; per deterministic dimension, the
verdict counts and the pass rate over the sessions where the dimension was
decided, with n and a 95% Wilson interval, and why verdicts were not decided
(each cause counted, in the rubric's words); each dimension's pass rate per
ISO week; what the figures do not show; the sessions with their verdicts and
their evidence; the sessions that were not scored; and, apart from all of
that, any advisory judge verdicts. Only verdicts with method ``deterministic``
enter the tables and charts. There is no figure across dimensions.

The listing's data keeps within ``LISTED_BYTES`` whatever the number of
sessions (``listing.listed`` says what it keeps first); every figure counts every
session.

Every value from the data is escaped (``html.escape`` with ``quote=True``) in
the markup; in the JSON, ``<``, ``>`` and ``&`` are ``\\u`` escapes, and the
script sets every value as text. Rendering is deterministic: the same
``ReportData`` gives the same string (no clock, no random ids, ordering from
the input alone).

Pure: no pytest, no clock; ``write_report`` is the only function that writes.
"""

from __future__ import annotations

import base64
import hashlib
from collections import Counter
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import Final

from ..core.rubric import (
    CANNOT_DETERMINE,
    FAIL,
    NOT_APPLICABLE,
    PASS,
    STATUSES,
)
from .charts import SCALE_HEAD, chart, interval_bar, weekly_counts
from .escape import html_text as _e
from .intervals import (
    DimensionRate,
    format_interval,
    ranking_note,
)
from .listing import Listing, listed
from .output import replace_file
from .page_data import (
    ReportData,
    deterministic_cells,
    dimension_rates,
    is_deterministic,
    score_text,
    shown_dimensions,
    where_shown,
)
from .summary import cause_text, ordered_causes

__all__ = [
    "ADVISORY_HEADING",
    "DOES_NOT_SHOW",
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


def write_report(report: ReportData, path: str | Path) -> None:
    """Write ``render_report(report)`` to ``path`` as UTF-8 bytes, with ``\\n`` line ends
    everywhere; whole or not at all (``output.replace_file``)."""
    replace_file(Path(path), render_report(report).encode("utf-8", errors="replace"))


# --------------------------------------------------------------------------- formatting


def _number(value: float) -> str:
    return f"{value:.2f}"


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


def _causes(report: ReportData, dimensions: Sequence[str]) -> str:
    """Per dimension, why its verdicts were not decided: each cause counted, in the rubric's
    words, most frequent first (as the terminal summary tells them)."""
    counts: dict[str, Counter[tuple[str, str | None]]] = {dimension: Counter() for dimension in dimensions}
    for row in report.sessions:
        for dimension, cell in deterministic_cells(row).items():
            if cell.status in (CANNOT_DETERMINE, NOT_APPLICABLE):
                counts[dimension][(cell.status, cell.cause)] += 1
    rows = []
    for dimension in dimensions:
        by_status: dict[str, list[tuple[str | None, int]]] = {}
        for status, code, count in ordered_causes(counts[dimension]):
            by_status.setdefault(status, []).append((code, count))
        for status, found in by_status.items():
            told = "".join(
                f'<li><span class="count">{count}</span> {_e(cause_text(code, report.causes))}</li>'
                for code, count in found
            )
            rows.append(
                f'<tr data-dimension="{_e(dimension)}" data-status="{_e(status)}"><th scope="row">{_e(dimension)}</th>'
                f'<td>{_badge(status)}</td><td class="num">{sum(count for _, count in found)}</td>'
                f'<td><ul class="causes">{told}</ul></td></tr>'
            )
    if not rows:
        return ""
    return (
        '<h3 id="causes-h">Why verdicts were not decided</h3>'
        '<table id="causes" class="grid"><thead><tr><th scope="col">Dimension</th><th scope="col">Verdict</th>'
        '<th scope="col" class="num">Sessions</th><th scope="col">Why: sessions</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _charts(report: ReportData, dimensions: Sequence[str]) -> str:
    weeks, by_dimension, undated = weekly_counts(
        (row.started_at, {d: c.status for d, c in deterministic_cells(row).items()}) for row in report.sessions
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


def _record_cell(source: str, line: int) -> str:
    shown, title = where_shown(source)
    title_attr = f' title="{_e(title)}:{_e(line)}"' if title is not None else ""
    return f'<span class="where"{title_attr}>{_e(shown)}:{_e(line)}</span>'


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


def _listing_note(report: ReportData, listing: Listing) -> str:
    """What the listing leaves out, when it cannot hold everything: said above the table."""
    total = len(report.sessions)
    said = []
    if listing.listed < total:
        said.append(
            f"The table lists {listing.listed:,} of the {total:,} sessions: those with a fail or "
            "cannot-determine verdict, in file order, as many as the page holds; the others are "
            "counted in every figure above. The eval journal and the JUnit XML report hold every "
            "session."
        )
    if not listing.all_evidence:
        megabytes = listing.budget / 1_000_000
        said.append(
            "Only the evidence of fail and cannot-determine verdicts is kept: with every evidence "
            f"text the page would outgrow {megabytes:g} MB."
        )
    return f'<p class="note" id="listing-note">{_e(" ".join(said))}</p>' if said else ""


def _on_request(report: ReportData) -> str:
    requested = [row for row in report.sessions if row.on_request is not None]
    if not requested:
        return ""
    items = "".join(
        f'<li><span class="sid">{_e(row.session_id)}</span> {_record_cell(row.source, row.line)}: '
        f"{_e(row.on_request)}</li>"
        for row in requested
    )
    return (
        f'<div id="on-request"><p class="note">Scored on request ({len(requested)}), although the '
        f"eligibility rule would leave them out (the session was named for scoring):</p><ul>{items}</ul></div>"
    )


_NO_SCRIPT: Final = (
    '<noscript><p class="note">This table is drawn by the page\'s script: allow scripts to see '
    "it. Every figure above is in the page itself.</p></noscript>"
)


def _session_table(report: ReportData, dimensions: Sequence[str], listing: Listing) -> str:
    if not report.sessions:
        return '<p class="note">No session was scored.</p>'
    return (
        f"{_on_request(report)}{_listing_note(report, listing)}{_filters(dimensions)}{_NO_SCRIPT}"
        '<div class="scroll"><table id="sessions" class="grid sessions"></table></div>'
        '<nav id="pages" class="pages" aria-label="Pages of sessions" hidden></nav>'
        '<p class="note">Open a verdict to read its evidence (or hover it). Choose a status to '
        "see the evidence of every verdict of that status.</p>"
    )


def _not_scored(report: ReportData, listing: Listing) -> str:
    if not report.not_scored:
        return ""
    reasons = Counter(entry.reason for entry in report.not_scored)
    counted = "".join(
        f'<li><span class="count">{count}</span> {_e(reason)}</li>'
        for reason, count in sorted(reasons.items(), key=lambda pair: (-pair[1], pair[0]))
    )
    total = len(report.not_scored)
    left_out = (
        f'<p class="note" id="not-scored-note">The table lists the first {listing.skipped:,} of them, '
        "as many as the page holds.</p>"
        if listing.skipped < total
        else ""
    )
    return (
        '<section id="not-scored" aria-labelledby="not-scored-h">'
        f'<h2 id="not-scored-h">Not scored ({total})</h2>'
        '<p class="note">Abandoned or unfinished sessions: no verdict, and not counted in any figure above.</p>'
        f'<ul class="causes" id="not-scored-reasons">{counted}</ul>{left_out}{_NO_SCRIPT}'
        '<table id="not-scored-table" class="grid"></table>'
        '<nav id="not-scored-pages" class="pages" aria-label="Pages of sessions not scored" hidden></nav>'
        "</section>"
    )


def _data(listing: Listing) -> str:
    """The data block the page's script draws its tables from: JSON, never run."""
    return f'<script type="application/json" id="session-data">{listing.data}</script>'


def _advisory(report: ReportData) -> str:
    rows = []
    for row in report.sessions:
        for cell in row.verdicts:
            if is_deterministic(cell):
                continue
            score = score_text(cell.score)
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

# Draws the session and not-scored tables from the page's JSON data and filters them; no data
# lives here. The address may preselect filters: report.html#status=fail&dimension=gate-health&q=text
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
    dimensions = shown_dimensions(report)
    rates = dimension_rates(report, dimensions)
    listing = listed(report, dimensions)
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
        _causes(report, dimensions),
        "</section>",
        '<section id="weekly" aria-labelledby="weekly-h"><h2 id="weekly-h">Pass rate per week</h2>',
        _charts(report, dimensions) if dimensions else _NO_DIMENSION,
        "</section>",
        _does_not_show(),
        f'<section id="per-session" aria-labelledby="per-session-h"><h2 id="per-session-h">Sessions ({scored})</h2>',
        _session_table(report, dimensions, listing),
        "</section>",
        _not_scored(report, listing),
        _data(listing) if report.sessions or report.not_scored else "",
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
