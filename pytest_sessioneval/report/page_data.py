"""What the HTML page shows, as plain data: the report, its sessions and their verdicts.

``ReportData`` holds everything the page shows; ``SessionRow`` and ``NotScoredRow`` are
made from the engine's results. The functions here say what the page reads from them: only
deterministic verdicts (the advisory firewall), the dimensions in the rubric's order, a
score and a sessions file as the page shows them.

Pure: no pytest, no clock, nothing written.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from ..core.engine import Evaluation, SessionEvaluation, SkippedSession
from ..core.rubric import DETERMINISTIC, Rubric
from ..core.text import show
from ..records.build import PLUGIN_VERSION
from ..records.schema import STANDARD_VERSION
from .intervals import DimensionRate

__all__ = [
    "NotScoredRow",
    "ReportData",
    "SessionRow",
    "VerdictCell",
    "deterministic_cells",
    "dimension_rates",
    "is_deterministic",
    "score_text",
    "shown_dimensions",
    "where_shown",
]


@dataclass(frozen=True, slots=True)
class VerdictCell:
    """One dimension's verdict for one session, as the report shows it."""

    dimension: str
    method: str
    status: str
    evidence: str
    score: float | int | None = None
    cause: str | None = None  # why it is not-applicable or cannot-determine: one of the rubric's causes


@dataclass(frozen=True, slots=True)
class SessionRow:
    """One scored session: where its record is, when it started, and its verdicts.

    ``source`` names its sessions file: relative to the project, or absolute when it is
    outside (the page shows such a path shortened). ``on_request``: the eligibility rule's
    reason to leave out a session that was scored because it was named."""

    session_id: str
    source: str
    line: int
    started_at: str | None
    verdicts: tuple[VerdictCell, ...]
    on_request: str | None = None

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
                VerdictCell(verdict.id, verdict.method, verdict.status, verdict.evidence, verdict.score, verdict.cause)
                for verdict in (*evaluation.dimensions, *evaluation.judge)
                if shown is None or verdict.id in shown
            ),
            on_request=evaluation.on_request,
        )


@dataclass(frozen=True, slots=True)
class NotScoredRow:
    """A session that was not scored: why, and where its record is (``source`` as in ``SessionRow``)."""

    session_id: str
    reason: str
    source: str = ""
    line: int = 0

    @classmethod
    def from_skipped(cls, entry: SkippedSession, source: str) -> NotScoredRow:
        return cls(entry.session_id, entry.reason, source, entry.line)


@dataclass(frozen=True, slots=True)
class ReportData:
    """Everything the report shows; ``causes`` is the rubric's phrase for each cause code
    (``Rubric.causes``), in which the page tells why verdicts were not decided."""

    title: str
    rubric_version: str
    rubric_sha256: str
    standard_version: str
    plugin_version: str
    timestamp: str
    dimension_order: tuple[str, ...]
    sessions: tuple[SessionRow, ...]
    not_scored: tuple[NotScoredRow, ...] = ()
    causes: Mapping[str, str] = field(default_factory=dict, compare=False)

    @classmethod
    def of_evaluation(
        cls, evaluation: Evaluation, rubric: Rubric, *, title: str, source: str, timestamp: str
    ) -> ReportData:
        """The page of every entry of one evaluated sessions file (``source``: its name as shown)."""
        return cls(
            title=title,
            rubric_version=rubric.version,
            rubric_sha256=rubric.sha256,
            standard_version=STANDARD_VERSION,
            plugin_version=PLUGIN_VERSION,
            timestamp=timestamp,
            dimension_order=rubric.dimension_ids,
            sessions=tuple(
                SessionRow.from_evaluation(entry, source)
                for entry in evaluation.entries
                if isinstance(entry, SessionEvaluation)
            ),
            not_scored=tuple(
                NotScoredRow.from_skipped(entry, source)
                for entry in evaluation.entries
                if isinstance(entry, SkippedSession)
            ),
            causes=rubric.causes,
        )


def is_deterministic(cell: VerdictCell) -> bool:
    # The advisory firewall: only deterministic verdicts reach the tables and charts.
    return cell.method == DETERMINISTIC


def shown_dimensions(report: ReportData) -> tuple[str, ...]:
    """Rubric order first, then any other deterministic dimension seen, sorted."""
    seen = {cell.dimension for row in report.sessions for cell in row.verdicts if is_deterministic(cell)}
    order = list(dict.fromkeys(report.dimension_order))
    return (*order, *sorted(seen - set(order)))


def deterministic_cells(row: SessionRow) -> dict[str, VerdictCell]:
    """A session's deterministic verdicts by dimension (the first one, should a dimension repeat)."""
    cells: dict[str, VerdictCell] = {}
    for cell in row.verdicts:
        if is_deterministic(cell):
            cells.setdefault(cell.dimension, cell)
    return cells


def dimension_rates(report: ReportData, dimensions: Sequence[str]) -> list[DimensionRate]:
    """Each dimension's verdict counts and pass rate, over every scored session."""
    counts: dict[str, Counter[str]] = {dimension: Counter() for dimension in dimensions}
    for row in report.sessions:
        for dimension, cell in deterministic_cells(row).items():
            counts[dimension][cell.status] += 1
    return [DimensionRate.from_counts(dimension, counts[dimension]) for dimension in dimensions]


def score_text(score: float | int | None) -> str:
    """A verdict's score as the page shows it ("" for none)."""
    if score is None or isinstance(score, bool):
        return ""
    if isinstance(score, float) and not math.isfinite(score):
        return str(score)
    return show(score)  # as the evidence and the journal write it: 0.7999999 is no 0.8


def where_shown(source: str) -> tuple[str, str | None]:
    """A sessions file as the page shows it, and its title: as given inside the project; a
    path outside it (absolute) as its directory and file name, the whole path as the title."""
    if not (source.startswith(("/", "\\\\")) or re.match(r"[A-Za-z]:[\\/]", source)):
        return source, None
    parts = [part for part in re.split(r"[\\/]+", source) if part]
    return "/".join(parts[-2:]), source
