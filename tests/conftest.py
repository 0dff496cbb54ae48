"""Shared fixtures: write metrics directories from plain dicts."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Final

import orjson
import pytest

MetricsWriter = Callable[..., Path]


# A test file whose failing test prints in its fixture's teardown: the failure summary
# must show that teardown section whichever lookup finds it.
NOISY_TEARDOWN: Final = """
import pytest

@pytest.fixture
def noisy():
    yield
    print("teardown says hello")

def test_fails(noisy):
    assert False

def test_passes(noisy):
    pass
"""


def write_raw_lines(path: Path, *lines: str) -> Path:
    """Write JSON lines exactly as spelled (escapes such as a lone surrogate's kept as text)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="ascii")
    return path


def write_jsonl(path: Path, rows: Iterable[Any]) -> Path:
    """Write rows (dicts, or raw strings written as they are) one per line."""
    lines = [row if isinstance(row, str) else orjson.dumps(row).decode() for row in rows]
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def metrics_writer(base: Path) -> MetricsWriter:
    """``write(sessions, events=None, directory="metrics")`` under ``base`` -> the metrics directory."""

    def write(sessions: Iterable[Any], events: Iterable[Any] | None = None, directory: str = "metrics") -> Path:
        target = base / directory
        target.mkdir(parents=True, exist_ok=True)
        write_jsonl(target / "sessions.jsonl", sessions)
        if events is not None:
            write_jsonl(target / "events.jsonl", events)
        return target

    return write


@pytest.fixture
def write_metrics(tmp_path: Path) -> MetricsWriter:
    """Metrics in the test's temporary directory."""
    return metrics_writer(tmp_path)


@pytest.fixture
def project_metrics(pytester: pytest.Pytester) -> MetricsWriter:
    """Metrics inside the pytester directory, made the rootdir (as in a real project)."""
    pytester.makeini("[pytest]\n")
    return metrics_writer(pytester.path)


def session(session_id: str, start: str = "2026-07-20T09:00:00Z", end: str | None = "2026-07-20T10:00:00Z", **fields: Any) -> dict[str, Any]:
    """A completed session record with a window; keyword fields are added or override."""
    record: dict[str, Any] = {"session_id": session_id, "status": "completed", "started_at": start}
    if end is not None:
        record["completed_at"] = end
    record.update(fields)
    return record


def gate(timestamp: str, exit_code: Any = 0, variant: str | None = None, passed: bool = True) -> dict[str, Any]:
    event: dict[str, Any] = {
        "event": "orchestrator.quality_gate.passed" if passed else "orchestrator.quality_gate.failed",
        "timestamp": timestamp,
        "exit_code": exit_code,
    }
    if variant is not None:
        event["variant"] = variant
    return event


def scenario(**changes: Any) -> dict[str, Any]:
    """A valid delegate scenario record, with ``changes`` applied (``None`` removes a field)."""
    record: dict[str, Any] = {
        "id": "fix-failing-test",
        "prompt_or_scenario": "One unit test fails after a dependency bump; fix it.",
        "expected_delegation_decision": "delegate",
        "expected_worker_count_range": {"min": 1, "max": 2},
        "expected_worker_role": ["Spark Worker", "Spark Tester"],
        "expected_writer_count": 1,
        "expected_parent_responsibility": ["review the diff"],
        "expected_fallback": "parent-only",
        "expected_safety_behavior": ["one writer at a time"],
    }
    for key, value in changes.items():
        if value is None:
            record.pop(key, None)
        else:
            record[key] = value
    return record
