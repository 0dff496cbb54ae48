"""Why a verdict is not decided: each rubric-v1 scorer gives the cause where it decides,
and a window it cannot read names the field."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
from builders import gate, session, write_jsonl, write_raw_lines

from pytest_sessioneval import RUBRIC_V1, InputWarning, evaluate, resolve_inputs, score_sessions
from pytest_sessioneval.rubrics.rubric_v1 import CAUSES

WAVES: dict[str, Any] = {"total_files_changed": 2, "waves": [1]}


def causes(tmp_path: Path, sessions: list[Any], events: list[Any] | None) -> dict[str, dict[str, tuple[str, Any]]]:
    write_jsonl(tmp_path / "sessions.jsonl", sessions)
    if events is not None:
        write_jsonl(tmp_path / "events.jsonl", events)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        scored = score_sessions(tmp_path)
    return {s.session_id: {d.id: (d.status, d.cause) for d in s.dimensions} for s in scored}


def test_every_cause_is_given_where_it_occurs(tmp_path: Path) -> None:
    found = causes(
        tmp_path,
        [
            session("peer", "2026-07-20T09:00:00Z", "2026-07-20T10:00:00Z", **WAVES),
            session("other", "2026-07-20T09:30:00Z", "2026-07-20T10:30:00Z", **WAVES),
            session("no-window", "2026-07-21T09:00:00Z", "soon", **WAVES),
            session("lonely", "2026-07-22T09:00:00Z", "2026-07-22T10:00:00Z", **WAVES),
            session("idle", "2026-07-23T09:00:00Z", "2026-07-23T10:00:00Z", total_files_changed=0, total_waves=0),
            session("planned", "2026-07-24T09:00:00Z", "2026-07-24T10:00:00Z", effectiveness={"planned_issues": 2}),
        ],
        [gate("2026-07-25T09:00:00Z", 0, "full-gate")],
    )
    assert found["peer"]["verification-evidence"] == ("cannot-determine", "peer-overlap")
    assert found["peer"]["gate-health"] == ("cannot-determine", "peer-overlap")
    assert found["no-window"]["verification-evidence"] == ("cannot-determine", "no-window")
    assert found["no-window"]["gate-health"] == ("cannot-determine", "no-window")
    assert found["lonely"]["verification-evidence"] == ("cannot-determine", "no-gate-in-window")
    assert found["lonely"]["gate-health"] == ("cannot-determine", "no-full-gate-in-window")
    assert found["idle"]["verification-evidence"] == ("not-applicable", "no-code-change")
    assert found["idle"]["gate-health"] == ("not-applicable", "no-waves")
    assert found["idle"]["plan-fidelity"] == ("not-applicable", "unplanned")
    assert found["planned"]["plan-fidelity"] == ("cannot-determine", "no-completion-rate")
    assert found["idle"]["efficiency-kpis"] == ("not-applicable", "reported")
    assert found["lonely"]["process-safety"] == ("pass", None)  # a decided verdict has no cause


@pytest.mark.parametrize(
    ("events", "expected"),
    [
        (None, "no-events-file"),
        ([], "no-events"),
        ([{"event": "orchestrator.tool.called", "timestamp": "2026-07-20T09:30:00Z"}], "no-gate-telemetry"),
        ([gate("2026-07-25T09:00:00Z", 0, variant="incremental")], "no-full-gate-telemetry"),
    ],
)
def test_the_events_file_tells_the_telemetry_causes(tmp_path: Path, events: list[Any] | None, expected: str) -> None:
    found = causes(tmp_path, [session("s", **WAVES)], events)["s"]
    gate_cause = "no-gate-in-window" if expected == "no-full-gate-telemetry" else expected
    assert found["verification-evidence"] == ("cannot-determine", gate_cause)
    assert found["gate-health"] == ("cannot-determine", expected)
    if expected in ("no-events-file", "no-events"):
        assert found["process-safety"] == ("cannot-determine", expected)


def test_every_cause_rubric_v1_gives_has_a_phrase() -> None:
    assert RUBRIC_V1.causes == CAUSES
    assert {"peer-overlap", "no-window", "no-events-file", "no-events", "no-gate-telemetry"} <= set(CAUSES)


@pytest.mark.parametrize(
    ("fields", "told"),
    [
        ({"started_at": "2026-13-01T09:00:00Z"}, "started_at '2026-13-01T09:00:00Z' is not a timestamp"),
        ({"started_at": None}, "no started_at"),
        ({"completed_at": 1784192707000}, "completed_at 1784192707000 is not a timestamp"),
        ({"completed_at": "soon"}, "completed_at 'soon' is not a timestamp"),
    ],
)
def test_a_window_it_cannot_read_names_the_field(tmp_path: Path, fields: dict[str, Any], told: str) -> None:
    record = session("s", "2026-07-20T09:00:00Z", "2026-07-20T10:00:00Z", **WAVES)
    record.update(fields)
    if record.get("started_at") is None:
        del record["started_at"]
    write_jsonl(tmp_path / "sessions.jsonl", [record])
    write_jsonl(tmp_path / "events.jsonl", [gate("2026-07-20T09:30:00Z")])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        [scored] = score_sessions(tmp_path)
    evidence = scored.dimension("verification-evidence").evidence
    assert f"window unknown ({told}), so no event can be attributed" in evidence


def test_unreadable_timestamps_are_counted_per_file_and_the_first_named(tmp_path: Path) -> None:
    write_jsonl(
        tmp_path / "sessions.jsonl",
        [
            session("a", "2026-07-20T09:00:00Z", "2026-07-20T10:00:00Z"),
            session("b", "2026-07-21 soon", "2026-07-21T10:00:00Z"),
            session("c", "2026-07-22T09:00:00Z", None),  # unfinished: no completed_at is no bad timestamp
            session("d", "2026-07-23T09:00:00Z", 7),
        ],
    )
    write_raw_lines(
        tmp_path / "events.jsonl",
        '{"event": "orchestrator.quality_gate.passed", "timestamp": "2026-07-20T09:30:00Z", "exit_code": 0}',
        '{"event": "orchestrator.quality_gate.passed", "timestamp": "yesterday", "exit_code": 0}',
        '{"event": "orchestrator.loop.warning"}',
        '{"event": "orchestrator.tool.called", "timestamp": "never read"}',
    )
    for every_line in (True, False):
        result = evaluate(*resolve_inputs(tmp_path), check_every_event_line=every_line)
        sessions_stamps, events_stamps = result.unreadable_timestamps
        assert (sessions_stamps.count, sessions_stamps.named("s")) == (
            2,
            ["s:2 started_at '2026-07-21 soon'", "s:4 completed_at 7"],
        )
        assert (events_stamps.count, events_stamps.named("e")) == (
            2,
            ["e:2 timestamp 'yesterday'", "e:3 timestamp missing"],
        )
    with (
        pytest.warns(InputWarning, match=r"2 timestamp\(s\) cannot be read.*:2 started_at '2026-07-21 soon'"),
        pytest.warns(InputWarning, match=r"2 timestamp\(s\) cannot be read.*:2 timestamp 'yesterday'"),
    ):
        score_sessions(tmp_path)
