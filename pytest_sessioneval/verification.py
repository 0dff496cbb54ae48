"""Re-verification: does a fresh scoring of the current metrics reproduce a stored verdict?

Pure comparison of one stored dimension (a dict read from the journal) with a
fresh ``DimensionVerdict``. Status and score are always compared; evidence only
for records this plugin wrote (other engines word their evidence differently).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from . import __version__
from .rubric import DimensionVerdict

__all__ = ["PLUGIN_VERSION", "Drift", "diff_dimension", "written_here"]

PLUGIN_VERSION: Final = f"pytest-sessioneval/{__version__}"


@dataclass(frozen=True, slots=True)
class Drift:
    """One field whose stored value differs from the fresh one."""

    field: str
    stored: Any
    fresh: Any


def written_here(record: dict[str, Any]) -> bool:
    """Whether this plugin wrote the record (its harness names this plugin)."""
    harness = record.get("harness")
    version = harness.get("plugin_version") if isinstance(harness, dict) else None
    return isinstance(version, str) and version.startswith("pytest-sessioneval/")


def diff_dimension(stored: dict[str, Any], fresh: DimensionVerdict, compare_evidence: bool) -> list[Drift]:
    """The fields that drifted; empty when the fresh scoring reproduces the stored one."""
    drifts = []
    if stored.get("status") != fresh.status:
        drifts.append(Drift("status", stored.get("status"), fresh.status))
    stored_score = stored.get("score")
    fresh_score = fresh.score if fresh.scored else None
    if stored_score != fresh_score or type(stored_score) is bool:
        drifts.append(Drift("score", stored_score, fresh_score))
    if compare_evidence and stored.get("evidence") != fresh.evidence:
        drifts.append(Drift("evidence", stored.get("evidence"), fresh.evidence))
    return drifts


def render_drift(drifts: list[Drift]) -> str:
    """A stored-vs-fresh table, one field per block."""
    lines = []
    for drift in drifts:
        lines.append(f"  {drift.field}:")
        lines.append(f"    stored: {drift.stored!r}")
        lines.append(f"    fresh:  {drift.fresh!r}")
    return "\n".join(lines)
