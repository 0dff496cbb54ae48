"""Building a session-eval record from a scored session: its identity, its harness, and
the record itself, validated against the schema before it leaves."""

from __future__ import annotations

import hashlib
from typing import Any, Final

from .. import __version__
from ..core.rubric import DimensionVerdict, Rubric
from ..core.values import is_blank
from .schema import (
    KPI_FIELDS,
    RECORD_KIND,
    SCHEMA_VERSION,
    STANDARD_VERSION,
    validate_record,
)

__all__ = ["PLUGIN_VERSION", "build_record", "hostname_hash", "recorded_platform", "run_id"]

#: ``harness.plugin_version`` of every record this package writes.
PLUGIN_VERSION: Final = f"pytest-sessioneval/{__version__}"


def recorded_platform(session: dict[str, Any]) -> str:
    """``harness.platform``: the session record's ``platform`` when it is text, else ``unknown``."""
    platform = session.get("platform")
    return platform if isinstance(platform, str) and not is_blank(platform) else "unknown"


def run_id(session_id: str, timestamp: str) -> str:
    """``<session_id>-eval-<timestamp without '-', ':' and '.'>``."""
    return f"{session_id}-eval-{timestamp.replace('-', '').replace(':', '').replace('.', '')}"


def hostname_hash(hostname: str) -> str | None:
    """The first 16 hex characters of sha256(hostname); the hostname itself is never stored."""
    if is_blank(hostname):
        return None
    return hashlib.sha256(hostname.encode()).hexdigest()[:16]


def build_record(
    *,
    session_id: str,
    dimensions: tuple[DimensionVerdict, ...] | list[DimensionVerdict],
    kpis: dict[str, int | float | None],
    rubric: Rubric,
    timestamp: str,
    model: dict[str, str],
    plugin_version: str,
    platform: str,
    host_class: str | None,
    hostname_hash: str | None,
    handle: str | None,
) -> dict[str, Any]:
    """Assemble (and validate) a record; key order follows the standard."""
    record: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "record_kind": RECORD_KIND,
        "run_id": run_id(session_id, timestamp),
        "session_id": session_id,
        "standard_version": STANDARD_VERSION,
        "rubric_version": rubric.version,
        "provenance": {"rubric_sha256": rubric.sha256, "engine_commit": None},
        "model": dict(model),
        "harness": {
            "plugin_version": plugin_version,
            "platform": platform,
            "host_class": host_class,
            "hostname_hash": hostname_hash,
        },
        "kpis": {name: kpis.get(name) for name in KPI_FIELDS},
        "dimensions": [verdict.as_record() for verdict in dimensions],
        "handle": handle,
        "anonymized": handle is None,
        "timestamp": timestamp,
    }
    validate_record(record)
    return record
