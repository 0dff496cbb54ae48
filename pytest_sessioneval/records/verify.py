"""Re-verification: does a fresh scoring of the current metrics reproduce a stored record?

Pure comparisons of what a journal holds (dicts read back) with a fresh
scoring. Per dimension, status and score are always compared; evidence only for
records this plugin wrote (other engines word their evidence differently). Per
record, the fields it derives from the metrics (the KPIs, ``harness.host_class``)
and its ``run_id``; ``harness.platform`` too for records this plugin wrote.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.engine import SessionEvaluation
from ..core.rubric import DimensionVerdict
from .build import PLUGIN_VERSION, recorded_platform, run_id
from .schema import KPI_FIELDS

__all__ = ["Drift", "diff_dimension", "diff_record", "worded_here", "written_here"]


@dataclass(frozen=True, slots=True)
class Drift:
    """One field whose stored value differs from the fresh one."""

    field: str
    stored: Any
    fresh: Any


def written_here(record: dict[str, Any]) -> bool:
    """Whether this plugin wrote the record (its harness names this plugin)."""
    version = _writer(record)
    return isinstance(version, str) and version.startswith("pytest-sessioneval/")


def worded_here(record: dict[str, Any]) -> bool:
    """Whether this version of the plugin wrote the record: evidence is worded the same only
    then (a later version may say more, or say it better)."""
    return _writer(record) == PLUGIN_VERSION


def _writer(record: dict[str, Any]) -> object:
    harness = record.get("harness")
    return harness.get("plugin_version") if isinstance(harness, dict) else None


def diff_dimension(stored: dict[str, Any], fresh: DimensionVerdict, compare_evidence: bool) -> list[Drift]:
    """The fields that drifted; empty when the fresh scoring reproduces the stored one."""
    drifts = []
    if stored.get("status") != fresh.status:
        drifts.append(Drift("status", stored.get("status"), fresh.status))
    stored_score = stored.get("score")
    fresh_score = fresh.score if fresh.scored else None
    if _differs(stored_score, fresh_score):
        drifts.append(Drift("score", stored_score, fresh_score))
    if compare_evidence and stored.get("evidence") != fresh.evidence:
        drifts.append(Drift("evidence", stored.get("evidence"), fresh.evidence))
    return drifts


def _differs(stored: Any, fresh: Any) -> bool:
    """Whether a stored JSON value is not the fresh one (``true`` is never ``1``)."""
    return stored != fresh or type(stored) is bool or type(fresh) is bool


def diff_record(stored: dict[str, Any], fresh: SessionEvaluation, compare_platform: bool) -> list[Drift]:
    """The record-level fields that drifted; ``stored`` is a valid record (``validate_record``)."""
    drifts = []
    expected_run_id = run_id(stored["session_id"], stored["timestamp"])
    if stored["run_id"] != expected_run_id:
        drifts.append(Drift("run_id (from session_id and timestamp)", stored["run_id"], expected_run_id))
    for name in KPI_FIELDS:
        if _differs(stored["kpis"].get(name), fresh.kpis.get(name)):
            drifts.append(Drift(f"kpis.{name}", stored["kpis"].get(name), fresh.kpis.get(name)))
    if _differs(stored["harness"].get("host_class"), fresh.host_class):
        drifts.append(Drift("harness.host_class", stored["harness"].get("host_class"), fresh.host_class))
    if compare_platform:
        platform = recorded_platform(fresh.record)
        if stored["harness"].get("platform") != platform:
            drifts.append(Drift("harness.platform", stored["harness"].get("platform"), platform))
    return drifts


def render_drift(drifts: list[Drift]) -> str:
    """A stored-vs-fresh table, one field per block."""
    lines = []
    for drift in drifts:
        lines.append(f"  {drift.field}:")
        lines.append(f"    stored: {drift.stored!r}")
        lines.append(f"    fresh:  {drift.fresh!r}")
    return "\n".join(lines)
