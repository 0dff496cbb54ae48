"""A baseline: the verdict counts of an earlier run (main's, say) that this run's pass rates
are compared with, read from its eval journal or from its JSON summary.

From a journal, each session counts once, by its latest record (the last line) among the
valid records of the rubric version this run scores with; its deterministic dimensions are
counted, judge verdicts never. A summary gives its counts as written. Either way the
rubric text must be the one this run scores with (the same ``rubric_sha256``): pass rates
of two rubric texts do not compare.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..core.io import max_line_bytes, read_bytes
from ..core.jsonl import InputProblem, first_named, opens_json_document
from ..core.text import byte_size
from ..records.journal import foreign_to_journal, read_journal
from ..records.schema import InvalidRecord, validate_record
from .summary import SUMMARY_KIND, InvalidSummary, read_summary

__all__ = ["Baseline", "BaselineError", "read_baseline"]


class BaselineError(ValueError):
    """The file cannot serve as a baseline; the message says why, naming the file."""


@dataclass(frozen=True)
class Baseline:
    """Counts per dimension and status of an earlier run; ``sessions``: how many sessions (for a
    journal) they count; ``problems``: the journal lines that could not be counted."""

    path: Path
    kind: Literal["journal", "summary"]
    counts: dict[str, Counter[str]]
    sessions: int | None = None
    problems: list[InputProblem] = field(default_factory=list)

    def pass_fail(self, dimension: str) -> tuple[int, int]:
        counts = self.counts.get(dimension, Counter())
        return counts["pass"], counts["fail"]


def read_baseline(path: Path, rubric_version: str, rubric_sha256: str) -> Baseline:
    """The baseline in ``path`` (a journal or a summary, plain or gzipped). Raises
    ``BaselineError`` when it cannot serve (another rubric text, no record of this rubric, no
    journal nor summary) and ``OSError`` when it cannot be read."""
    if opens_json_document(path) or first_named(path, ("summary_kind", "record_kind")).key == "summary_kind":
        return _from_summary(path, rubric_version, rubric_sha256)
    what = foreign_to_journal(path)
    if what is not None:
        raise BaselineError(f"{path}: is neither an eval journal nor a summary ({what})")
    return _from_journal(path, rubric_version, rubric_sha256)


def _other_rubric(path: Path, where: str, version: str, digest: object, rubric_sha256: str) -> BaselineError:
    return BaselineError(
        f"{path}: {where} was scored with {version} of rubric_sha256 {digest}, but this run scores with "
        f"rubric_sha256 {rubric_sha256}: pass rates of two rubric texts do not compare; give a baseline "
        "scored with the same rubric text"
    )


def _from_summary(path: Path, rubric_version: str, rubric_sha256: str) -> Baseline:
    limit = max_line_bytes()
    raw = read_bytes(path, limit + 1)  # a summary is small: never more than the line limit is held
    if len(raw) > limit:
        raise BaselineError(
            f"{path}: is over {byte_size(limit)}, more than a summary holds (--session-eval-max-line-bytes)"
        )
    try:
        summary = read_summary(raw)
    except InvalidSummary as exc:
        raise BaselineError(f"{path}: is no {SUMMARY_KIND} (--session-eval-summary writes one): {exc}") from None
    if summary.rubric_version != rubric_version or summary.rubric_sha256 != rubric_sha256:
        raise _other_rubric(path, "the summary", summary.rubric_version, summary.rubric_sha256, rubric_sha256)
    counts = {
        entry.id: Counter({status: value for status, value in entry.counts.model_dump(by_alias=True).items() if value})
        for entry in summary.dimensions
    }
    return Baseline(path, "summary", counts)


def _from_journal(path: Path, rubric_version: str, rubric_sha256: str) -> Baseline:
    problems: list[InputProblem] = []
    latest: dict[str, dict[str, Any]] = {}  # session id -> its latest record of this rubric
    versions: set[str] = set()
    for line, record in read_journal(path, problems):
        try:
            validate_record(record)
        except InvalidRecord as exc:
            problems.append(InputProblem(str(path), line, f"invalid record, not counted in the baseline: {exc}"))
            continue
        version, digest = record["rubric_version"], record["provenance"]["rubric_sha256"]
        versions.add(version)
        if version != rubric_version:
            continue
        if digest != rubric_sha256:
            raise _other_rubric(path, f"the record on line {line}", version, digest, rubric_sha256)
        latest.pop(record["session_id"], None)  # a later record replaces the session's earlier ones
        latest[record["session_id"]] = record
    if not latest:
        held = f" (its records are of {', '.join(sorted(versions))})" if versions else ""
        raise BaselineError(f"{path}: holds no valid {rubric_version} record to compare with{held}")
    counts: dict[str, Counter[str]] = {}
    for record in latest.values():
        # A dimension a record repeats counts once, by its last entry (as a journal given as input).
        statuses = {d["id"]: d["status"] for d in record["dimensions"] if d["method"] == "deterministic"}
        for dimension, status in statuses.items():
            counts.setdefault(dimension, Counter())[status] += 1
    return Baseline(path, "journal", counts, sessions=len(latest), problems=problems)
