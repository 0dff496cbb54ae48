"""Test data built from plain values: metrics files, session and event records, policy
scenarios, eval records; and where the project's files are."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Final

import orjson

MetricsWriter = Callable[..., Path]

ROOT: Final = Path(__file__).resolve().parent.parent
DOCS: Final = ROOT / "docs"
EXAMPLES: Final = ROOT / "examples"


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


def session(
    session_id: str, start: str = "2026-07-20T09:00:00Z", end: str | None = "2026-07-20T10:00:00Z", **fields: Any
) -> dict[str, Any]:
    """A completed session record with a window; keyword fields are added or override."""
    record: dict[str, Any] = {"session_id": session_id, "status": "completed", "started_at": start}
    if end is not None:
        record["completed_at"] = end
    record.update(fields)
    return record


def gate_health_metrics(write: MetricsWriter, verdicts: str, directory: str = "metrics") -> Path:
    """One session a day per letter of ``verdicts``, whose gate-health is ``p`` pass (its last
    full gate exits 0), ``f`` fail (exits 2) or ``u`` cannot-determine (waves ran, no full
    gate); sessions ``s0``, ``s1``... -> the metrics directory."""
    sessions, events = [], []
    for number, verdict in enumerate(verdicts):
        day = f"2026-{7 + number // 28:02d}-{1 + number % 28:02d}"
        sessions.append(session(f"s{number}", f"{day}T09:00:00Z", f"{day}T10:00:00Z", total_files_changed=2, waves=[1]))
        if verdict != "u":
            events.append(gate(f"{day}T09:30:00Z", 0 if verdict == "p" else 2, variant="full-gate"))
    return write(sessions, events, directory)


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


SHA = "ba87f2c2099def7b37b9cf343cef80529a73f67b4f77b3209604788c16357c8d"


def reference_record(**changes: Any) -> dict[str, Any]:
    """A record in the shape the reference engine writes to its eval.jsonl."""
    record: dict[str, Any] = {
        "record_kind": "session-eval",
        "run_id": "main-2026-07-16-deep-1-eval-20260716T100000000Z",
        "session_id": "main-2026-07-16-deep-1",
        "standard_version": "aiat-llm-eval/1.0",
        "rubric_version": "rubric-v1",
        "provenance": {"rubric_sha256": SHA, "engine_commit": "d92c2ca"},
        "model": {"id": "claude-opus-4", "source": "self-report"},
        "harness": {
            "plugin_version": "3.4.0",
            "platform": "claude-code",
            "host_class": None,
            "hostname_hash": "9f86d081884c7d65",
        },
        "kpis": {
            "duration_seconds": 5400,
            "total_waves": 3,
            "total_agents": 6,
            "token_input": None,
            "token_output": None,
            "carryover": 0,
        },
        "dimensions": [
            {
                "id": "verification-evidence",
                "method": "deterministic",
                "status": "pass",
                "evidence": "attribution: time-window. 3 quality_gate event(s) in window, all exit_code=0.",
            },
            {
                "id": "plan-fidelity",
                "method": "deterministic",
                "status": "pass",
                "score": 1,
                "evidence": "completion_rate=1 (v1 threshold: pass iff completion_rate >= 0.8)",
            },
            {
                "id": "gate-health",
                "method": "deterministic",
                "status": "pass",
                "evidence": "attribution: time-window. 1 full-gate event(s) in window; last exit_code=0.",
            },
            {"id": "process-safety", "method": "deterministic", "status": "pass", "evidence": "no adverse signals."},
            {
                "id": "efficiency-kpis",
                "method": "deterministic",
                "status": "not-applicable",
                "evidence": "REPORTED, not graded.",
            },
            {
                "id": "instruction-adherence",
                "method": "judge",
                "status": "pass",
                "evidence": "followed the rules",
                "advisory": True,
                "calibration_status": "uncalibrated",
            },
        ],
        "handle": None,
        "anonymized": True,
        "timestamp": "2026-07-16T10:00:00.000Z",
        "schema_version": 1,
    }
    record.update(changes)
    return record


def reference_rules_accept(record: dict[str, Any]) -> bool:
    """The reference validator's rules, restated: what a record must be for its reader."""

    def text(v: Any) -> bool:
        return isinstance(v, str) and bool(v.strip())

    def number_or_null(v: Any) -> bool:
        return v is None or (type(v) in (int, float) and v == v and abs(v) != float("inf"))

    if any(k in record for k in ("overall", "total", "mean", "global_score")):
        return False
    version = record.get("schema_version", 1)
    if type(version) is bool or version != 1 or record.get("record_kind") != "session-eval":  # true !== 1
        return False
    required = [
        "record_kind",
        "run_id",
        "session_id",
        "standard_version",
        "rubric_version",
        "provenance",
        "model",
        "harness",
        "kpis",
        "dimensions",
        "anonymized",
        "timestamp",
    ]
    if any(k not in record for k in required) or not all(
        text(record[k]) for k in ("run_id", "session_id", "standard_version", "rubric_version", "timestamp")
    ):
        return False
    if not re.fullmatch(
        r"\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?)?", record["timestamp"]
    ):
        return False
    p, m, h, k = record["provenance"], record["model"], record["harness"], record["kpis"]
    if (
        not text(p.get("rubric_sha256"))
        or "engine_commit" not in p
        or not (p["engine_commit"] is None or text(p["engine_commit"]))
    ):
        return False
    if not text(m.get("id")) or m.get("source") not in ("self-report", "env", "config"):
        return False
    if not text(h.get("plugin_version")) or not text(h.get("platform")):
        return False
    if not (h.get("host_class") is None or text(h.get("host_class"))):
        return False
    if h.get("hostname_hash") is not None and not re.fullmatch(r"[a-f0-9]{8,}", h["hostname_hash"]):
        return False
    for name in ("duration_seconds", "total_waves", "total_agents", "token_input", "token_output", "carryover"):
        if name not in k or not number_or_null(k[name]) or (k[name] is not None and k[name] < 0):
            return False
    for d in record["dimensions"]:
        if (
            not text(d.get("id"))
            or d.get("method") not in ("deterministic", "judge")
            or not isinstance(d.get("evidence"), str)
        ):
            return False
        if d.get("status") not in ("pass", "fail", "not-applicable", "cannot-determine"):
            return False
        if "score" in d and not number_or_null(d["score"]):
            return False
        if d["method"] == "judge" and (d.get("advisory") is not True or d.get("calibration_status") != "uncalibrated"):
            return False
        if d["method"] == "deterministic" and ("advisory" in d or "calibration_status" in d):
            return False
    return isinstance(record["anonymized"], bool) and (record.get("handle") is None or text(record.get("handle")))


def copy_example(destination: Path, name: str) -> Path:
    """The shipped example ``examples/<name>`` copied into ``destination`` (a test's own
    directory), so that a run over it reads its own copy and writes nothing into the checkout."""
    return Path(shutil.copytree(EXAMPLES / name, destination / name, ignore=shutil.ignore_patterns("__pycache__")))
