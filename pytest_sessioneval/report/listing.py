"""The page's listing: the session and not-scored rows as the compact JSON its script draws.

The listing's data keeps within ``LISTED_BYTES`` whatever the number of sessions:
``listed`` says what it keeps first (every row with all its evidence; else the evidence
of fails and cannot-determine verdicts only; else only the sessions with such a verdict).
Each distinct verdict, reason and sessions file is held once and rows refer to it by
index. In the JSON, ``<``, ``>`` and ``&`` are ``\\u`` escapes, so it may stand inside a
``<script>`` element.

Pure: no pytest, no clock, nothing written.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ..core.rubric import CANNOT_DETERMINE, FAIL
from .escape import shown_text
from .page_data import ReportData, deterministic_cells, score_text, where_shown

__all__ = ["LISTED_BYTES", "Listing", "listed"]

# The most the session listing's data may take in the page (UTF-8 bytes): what a browser
# opens at once, whatever the number of sessions.
LISTED_BYTES: Final = 7_000_000
# What the page keeps first when it cannot keep every row and every evidence text.
_KEPT_FIRST: Final = frozenset((FAIL, CANNOT_DETERMINE))


def _json_in_page(value: object) -> str:
    """Compact JSON that may stand inside a ``<script>`` element: no ``<``, ``>`` or ``&``
    (only strings can hold them, and there they are ``\\u`` escapes)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


@dataclass(frozen=True, slots=True)
class Listing:
    """What the page lists, as its data, and what that leaves out."""

    data: str  # the JSON the page's script draws the session and not-scored tables from
    listed: int  # how many scored sessions it holds
    all_evidence: bool  # the evidence of every verdict, or of fails and cannot-determine only
    skipped: int  # how many sessions not scored it holds
    budget: int  # the bytes it was kept within (``LISTED_BYTES``)


def _size(text: str) -> int:
    return len(text.encode("utf-8", "replace"))


class _Sources:
    """Each sessions file once, as JSON ``[shown, title]``; rows refer to it by index."""

    def __init__(self) -> None:
        self.held: dict[str, tuple[int, str]] = {}

    def ref(self, source: str) -> tuple[int, str]:
        """Its index, and its JSON when it is not held yet (else "")."""
        held = self.held.get(source)
        if held is not None:
            return held[0], ""
        shown, title = where_shown(source)
        return len(self.held), _json_in_page([shown_text(shown), shown_text(title) if title is not None else None])

    def add(self, source: str, ref: int, text: str) -> None:
        if text:
            self.held[source] = (ref, text)

    def json(self) -> str:
        return ",".join(text for _, text in self.held.values())


def _not_scored_listing(report: ReportData, sources: _Sources, limit: int) -> tuple[list[str], list[str], int]:
    """The sessions not scored as rows ``[id, file, line, reason]`` (each reason held once),
    as many as fit in ``limit`` bytes; and the bytes they take."""
    reasons: dict[str, int] = {}
    rows: list[str] = []
    size = 0
    for entry in report.not_scored:
        ref, source = sources.ref(entry.source)
        reason = reasons.get(entry.reason)
        said = _json_in_page(shown_text(entry.reason)) if reason is None else ""
        text = _json_in_page([shown_text(entry.session_id), ref, entry.line, len(reasons) if said else reason])
        cost = _size(text) + _size(source) + _size(said) + 3
        if size + cost > limit:
            break
        size += cost
        sources.add(entry.source, ref, source)
        if said:
            reasons[entry.reason] = len(reasons)
        rows.append(text)
    return rows, [_json_in_page(shown_text(reason)) for reason in reasons], size


def _listing(
    report: ReportData, dimensions: Sequence[str], picked: Sequence[int], all_evidence: bool, limit: int
) -> Listing:
    """The rows ``picked`` (indexes into ``report.sessions``, in order) as the page's data, as
    many as fit in ``limit`` bytes with the sessions not scored (which take at most half of
    it). Each distinct verdict (status, evidence, score), reason and sessions file is held
    once; rows refer to them by index (-1: no verdict)."""
    sources = _Sources()
    verdicts: dict[str, int] = {}  # JSON [status, evidence, score] -> index
    said: dict[tuple[str, str | None, str], str] = {}  # the JSON of each verdict seen, made once
    rows: list[str] = []
    requested: list[str] = []
    columns = _json_in_page([shown_text(d) for d in dimensions])
    skeleton = '{"columns":,"sources":[],"verdicts":[],"rows":[],"requested":[],"skipped":[],"reasons":[]}'
    size = _size(columns) + len(skeleton)
    skipped, reasons, taken = _not_scored_listing(report, sources, (limit - size) // 2)
    size += taken
    for index in picked:
        row = report.sessions[index]
        cells = deterministic_cells(row)
        new: list[str] = []
        refs = []
        for dimension in dimensions:
            cell = cells.get(dimension)
            if cell is None:
                refs.append(-1)
                continue
            verdict = (
                cell.status,
                cell.evidence if all_evidence or cell.status in _KEPT_FIRST else None,
                score_text(cell.score),
            )
            key = said.get(verdict)
            if key is None:
                status, evidence, score = verdict
                key = said[verdict] = _json_in_page(
                    [shown_text(status), shown_text(evidence) if evidence is not None else None, score]
                )
            ref = verdicts.get(key)
            if ref is None:
                if key not in new:
                    new.append(key)
                ref = len(verdicts) + new.index(key)
            refs.append(ref)
        source_ref, source = sources.ref(row.source)
        started = shown_text(row.started_at) if row.started_at is not None else None
        text = _json_in_page([shown_text(row.session_id), source_ref, row.line, started, *refs])
        note = _json_in_page([len(rows), shown_text(row.on_request)]) if row.on_request is not None else ""
        cost = _size(text) + _size(note) + _size(source) + sum(_size(key) + 1 for key in new) + 3
        if size + cost > limit:
            break
        size += cost
        for key in new:
            verdicts[key] = len(verdicts)
        sources.add(row.source, source_ref, source)
        rows.append(text)
        if note:
            requested.append(note)
    data = (
        f'{{"columns":{columns}'
        f',"sources":[{sources.json()}]'
        f',"verdicts":[{",".join(verdicts)}]'
        f',"rows":[{",".join(rows)}]'
        f',"requested":[{",".join(requested)}]'
        f',"skipped":[{",".join(skipped)}]'
        f',"reasons":[{",".join(reasons)}]}}'
    )
    return Listing(data, len(rows), all_evidence, len(skipped), limit)


def listed(report: ReportData, dimensions: Sequence[str]) -> Listing:
    """What the page lists: every session with all its evidence when that fits in
    ``LISTED_BYTES``; else every session with the evidence of its fails and cannot-determine
    verdicts; else only the sessions with such a verdict (and that evidence), as many as fit."""
    everyone = range(len(report.sessions))
    for all_evidence in (True, False):
        listing = _listing(report, dimensions, everyone, all_evidence, LISTED_BYTES)
        if listing.listed == len(everyone):  # all of them fit
            return listing
    flagged = [
        index
        for index in everyone
        if any(cell.status in _KEPT_FIRST for cell in deterministic_cells(report.sessions[index]).values())
    ]
    return _listing(report, dimensions, flagged, False, LISTED_BYTES)
