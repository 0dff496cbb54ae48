"""Unit tests of the pure scoring core: each corner of rubric-v1's semantics."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from builders import gate, session, write_jsonl

from pytest_sessioneval import InputWarning, Selection, evaluate, score_sessions
from pytest_sessioneval.core.engine import NoEligibleSession, UnidentifiedRecord
from pytest_sessioneval.core.timestamps import parse_timestamp_ms
from pytest_sessioneval.rubrics.rubric_v1 import RUBRIC_V1

EPOCH_2026_07_16 = 1784160000000


def statuses(tmp_path: Path, sessions: list[Any], events: list[Any] | None = None) -> dict[str, dict[str, Any]]:
    write_jsonl(tmp_path / "sessions.jsonl", sessions)
    if events is not None:
        write_jsonl(tmp_path / "events.jsonl", events)
    return {
        result.session_id: {verdict.id: verdict.status for verdict in result.dimensions}
        | {"score": result.dimension("plan-fidelity").score, "kpis": result.kpis}
        for result in score_sessions(tmp_path)
    }


def test_rubric_hash_is_the_published_one() -> None:
    assert RUBRIC_V1.sha256 == "ba87f2c2099def7b37b9cf343cef80529a73f67b4f77b3209604788c16357c8d"
    assert RUBRIC_V1.dimension_ids == (
        "verification-evidence",
        "plan-fidelity",
        "gate-health",
        "process-safety",
        "efficiency-kpis",
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-07-16", EPOCH_2026_07_16),
        ("2026-07-16T00:00:00Z", EPOCH_2026_07_16),
        ("2026-07-16t00:00:00z", EPOCH_2026_07_16),
        ("2026-07-16 00:00:00Z", EPOCH_2026_07_16),
        ("2026-07-16T00:00:00", EPOCH_2026_07_16),
        ("2026-07-16T00:00:00.123Z", EPOCH_2026_07_16 + 123),
        ("2026-07-16T00:00:00.0005Z", EPOCH_2026_07_16),
        ("2026-07-16T00:00:00.9999999Z", EPOCH_2026_07_16 + 999),
        ("2026-07-16T02:00:00+02:00", EPOCH_2026_07_16),
        ("2026-07-15T22:30:00-01:30", EPOCH_2026_07_16),
        ("2024-02-29T00:00:00Z", 1709164800000),
        ("Jul 16 2026", EPOCH_2026_07_16),
        ("2026-07-16T24:00:00Z", EPOCH_2026_07_16 + 86_400_000),
        ("2026-07-16T23:59:60Z", None),
        ("2026-02-30", 1772409600000),  # rolls over to March 2nd, as in V8
        ("2025-02-29", 1740787200000),  # March 1st
        ("2026-13-01", None),
        ("2026-07-16T00:00Z", EPOCH_2026_07_16),
        ("2026-07-16T00:00:00+24:00", None),
        ("", None),
        (" 2026-07-16", EPOCH_2026_07_16),
        ("2026-07-16\n", EPOCH_2026_07_16),
        ("２０２６-07-16", 995241600000),  # a word, then 07-16 of 2001, as V8 reads it
        (1784160000000, None),
        (True, None),
        (None, None),
    ],
)
def test_timestamp_parsing(text: object, expected: int | None) -> None:
    assert parse_timestamp_ms(text) == expected


def test_exit_code_zero_means_the_number_zero_only(tmp_path: Path) -> None:
    sessions = [
        session(f"s{i}", f"2026-07-2{i}T09:00:00Z", f"2026-07-2{i}T10:00:00Z", total_files_changed=1) for i in range(6)
    ]
    events = [
        gate("2026-07-20T09:30:00Z", 0),
        gate("2026-07-21T09:30:00Z", 0.0),
        gate("2026-07-22T09:30:00Z", False),
        gate("2026-07-23T09:30:00Z", "0"),
        gate("2026-07-24T09:30:00Z", None),
        {"event": "orchestrator.quality_gate.failed", "timestamp": "2026-07-25T09:30:00Z"},
    ]
    result = statuses(tmp_path, sessions, events)
    assert [result[f"s{i}"]["verification-evidence"] for i in range(6)] == [
        "pass",
        "pass",
        "fail",
        "fail",
        "fail",
        "fail",
    ]


def test_gate_kind_is_decided_by_exit_code_not_by_name(tmp_path: Path) -> None:
    events = [gate("2026-07-20T09:30:00Z", 0, passed=False)]
    assert statuses(tmp_path, [session("s", total_files_changed=1)], events)["s"]["verification-evidence"] == "pass"


def test_windows_are_inclusive_and_ms_truncated(tmp_path: Path) -> None:
    sessions = [session("s", "2026-07-20T09:00:00.0009Z", "2026-07-20T10:00:00.0001Z", total_files_changed=1)]
    on_start = [gate("2026-07-20T09:00:00Z", 1)]
    assert statuses(tmp_path, sessions, on_start)["s"]["verification-evidence"] == "fail"
    on_end = [gate("2026-07-20T10:00:00.000999Z", 1)]
    assert statuses(tmp_path, sessions, on_end)["s"]["verification-evidence"] == "fail"
    after_end = [gate("2026-07-20T10:00:00.001Z", 1)]
    assert statuses(tmp_path, sessions, after_end)["s"]["verification-evidence"] == "cannot-determine"


def test_inverted_window_holds_no_events(tmp_path: Path) -> None:
    sessions = [session("s", "2026-07-20T10:00:00Z", "2026-07-20T09:00:00Z", total_files_changed=0)]
    events = [gate("2026-07-20T09:30:00Z", 1)]
    result = statuses(tmp_path, sessions, events)["s"]
    assert result["verification-evidence"] == "not-applicable"
    assert result["kpis"]["duration_seconds"] is None


def test_peers_overlap_strictly_and_touching_is_not_overlap(tmp_path: Path) -> None:
    sessions = [
        session("a", "2026-07-20T09:00:00Z", "2026-07-20T10:00:00Z", total_files_changed=1),
        session("b", "2026-07-20T10:00:00Z", "2026-07-20T11:00:00Z", total_files_changed=1),
        session("c", "2026-07-20T10:59:59.999Z", "2026-07-20T12:00:00Z", total_files_changed=1),
    ]
    events = [gate("2026-07-20T10:00:00Z", 0)]
    result = statuses(tmp_path, sessions, events)
    assert result["a"]["verification-evidence"] == "pass"  # touches b only
    assert result["b"]["verification-evidence"] == "cannot-determine"  # overlaps c by 1 ms
    assert result["c"]["gate-health"] == "cannot-determine"
    assert result["b"]["process-safety"] == "pass"  # never downgraded by peers


@pytest.mark.parametrize(
    "touching", [("2026-07-20T10:00:00Z", "2026-07-20T11:00:00Z"), ("2026-07-20T08:00:00Z", "2026-07-20T09:00:00Z")]
)
def test_a_session_touching_the_window_is_no_peer_beside_one_that_overlaps_it(
    tmp_path: Path, touching: tuple[str, str]
) -> None:
    sessions = [
        session("a"),
        session("b", "2026-07-20T09:30:00Z", "2026-07-20T09:40:00Z", status="abandoned"),
        session("c", *touching, status="abandoned"),
    ]
    (result,) = score_sessions_dir(tmp_path, sessions)
    assert result.peers.names == ("b",) and not result.peers.more
    assert "'c'" not in result.dimension("gate-health").evidence


def test_peers_include_abandoned_lines_but_not_own_rewrites(tmp_path: Path) -> None:
    sessions = [
        session("a", total_files_changed=1),
        session("a", "2026-07-20T09:30:00Z", "2026-07-20T10:30:00Z", total_files_changed=1),
        session("z", "2026-07-21T09:00:00Z", "2026-07-21T10:00:00Z", total_files_changed=1),
        session("y", "2026-07-21T09:30:00Z", "2026-07-21T09:40:00Z", status="abandoned"),
        {"session_id": 7, "started_at": "2026-07-22T09:30:00Z", "completed_at": "2026-07-22T09:40:00Z"},
        session("x", "2026-07-22T09:00:00Z", "2026-07-22T10:00:00Z", total_files_changed=1),
    ]
    result = statuses(tmp_path, sessions, [gate("2026-07-20T09:45:00Z")])
    assert result["a"]["verification-evidence"] == "pass"
    assert result["z"]["verification-evidence"] == "cannot-determine"
    assert result["x"]["verification-evidence"] == "cannot-determine"
    assert "y" not in result


def test_full_gate_ties_go_to_the_first_in_file_order(tmp_path: Path) -> None:
    sessions = [session("s", total_waves=1, waves=[{}])]
    green_first = [
        gate("2026-07-20T09:50:00Z", 0, "full-gate"),
        gate("2026-07-20T09:50:00Z", 1, "full-gate"),
        gate("2026-07-20T09:10:00Z", 1, "full-gate"),
    ]
    assert statuses(tmp_path, sessions, green_first)["s"]["gate-health"] == "pass"
    red_first = [gate("2026-07-20T09:50:00.000Z", 1, "full-gate"), gate("2026-07-20T11:50:00+02:00", 0, "full-gate")]
    assert statuses(tmp_path, sessions, red_first)["s"]["gate-health"] == "fail"
    later_green = [gate("2026-07-20T09:50:00Z", 1, "full-gate"), gate("2026-07-20T09:50:00.001Z", 0, "full-gate")]
    assert statuses(tmp_path, sessions, later_green)["s"]["gate-health"] == "pass"


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"total_waves": 0, "waves": [{}]}, "not-applicable"),
        ({"total_waves": 5}, "not-applicable"),
        ({"total_waves": 5, "waves": []}, "not-applicable"),
        ({"total_waves": 5, "waves": "1,2"}, "not-applicable"),
        ({"total_waves": "0", "waves": [{}]}, "cannot-determine"),
        ({"waves": [{}]}, "cannot-determine"),
        ({"total_waves": False, "waves": [{}]}, "cannot-determine"),
    ],
)
def test_gate_health_no_waves_rule(tmp_path: Path, fields: dict[str, Any], expected: str) -> None:
    assert statuses(tmp_path, [session("s", **fields)], [])["s"]["gate-health"] == expected


@pytest.mark.parametrize(
    ("effectiveness", "expected", "score"),
    [
        ({"completion_rate": 0.8}, "pass", 0.8),
        ({"completion_rate": 0.7999}, "fail", 0.7999),
        ({"completion_rate": 1}, "pass", 1),
        ({"completion_rate": "0.9", "planned_issues": 2}, "cannot-determine", None),
        ({"completion_rate": True, "planned_issues": 2}, "cannot-determine", None),
        ({"completion_rate": None, "planned_issues": 0}, "not-applicable", None),
        ({"planned_issues": "3"}, "not-applicable", None),
        ({"planned_issues": -1}, "cannot-determine", None),
        ("not an object", "not-applicable", None),
    ],
)
def test_plan_fidelity(tmp_path: Path, effectiveness: Any, expected: str, score: Any) -> None:
    result = statuses(tmp_path, [session("s", effectiveness=effectiveness)], [])["s"]
    assert (result["plan-fidelity"], result["score"]) == (expected, score)


def test_ill_typed_values_are_named_in_the_evidence(tmp_path: Path) -> None:
    write_jsonl(
        tmp_path / "sessions.jsonl",
        [session("s", effectiveness={"completion_rate": "0.9", "planned_issues": 2}, total_files_changed="3")],
    )
    (result,) = score_sessions(tmp_path)
    assert 'completion_rate="0.9" is not a number' in result.dimension("plan-fidelity").evidence
    assert 'total_files_changed="3" is not a number' in result.dimension("verification-evidence").evidence


@pytest.mark.filterwarnings("ignore::pytest_sessioneval.InputWarning")  # bad lines on purpose
def test_process_safety(tmp_path: Path) -> None:
    blocked = {"event": "orchestrator.destructive_guard.blocked", "timestamp": "2026-07-20T09:10:00Z"}
    loop = {"event": "orchestrator.loop.warning", "timestamp": "2026-07-20T09:10:00Z"}
    other = {"event": "orchestrator.agent.spawned", "timestamp": "2026-07-20T09:10:00Z"}
    assert statuses(tmp_path, [session("s")], [other])["s"]["process-safety"] == "pass"
    assert statuses(tmp_path, [session("s")], [blocked])["s"]["process-safety"] == "fail"
    assert statuses(tmp_path, [session("s")], [loop])["s"]["process-safety"] == "pass"
    (noted,) = score_sessions(tmp_path)
    assert "loop.warning=1 in window (warn-only, never a fail)" in noted.dimension("process-safety").evidence
    assert statuses(tmp_path, [session("s", agent_summary={"spiral": 1})], [other])["s"]["process-safety"] == "fail"
    assert statuses(tmp_path, [session("s", agent_summary={"spiral": "2"})], [other])["s"]["process-safety"] == "pass"
    assert (
        statuses(tmp_path, [session("s", agent_summary={"spiral": 1})], ["[1]", "not json"])["s"]["process-safety"]
        == "cannot-determine"
    )
    (tmp_path / "events.jsonl").unlink()
    assert statuses(tmp_path, [session("s")])["s"]["process-safety"] == "cannot-determine"
    (result,) = score_sessions(tmp_path)
    assert "2026-07-16" in result.dimension("process-safety").evidence


def test_events_written_with_unicode_escapes_are_still_found(tmp_path: Path) -> None:
    escaped = (
        '{"event":"orchestrator\\u002equality\\u005fgate.passed","timestamp":"2026-07-20T09:30:00Z","exit_code":1}'
    )
    assert statuses(tmp_path, [session("s", total_files_changed=1)], [escaped])["s"]["verification-evidence"] == "fail"


@pytest.mark.parametrize(
    ("fields", "duration"),
    [
        ({"duration_seconds": 42}, 42),
        ({"duration_seconds": -1}, 3600),
        ({"duration_seconds": "42"}, 3600),
        ({"completed_at": "2026-07-20T09:00:01.499Z"}, 1),
        ({"completed_at": "2026-07-20T09:00:01.500Z"}, 2),
        ({"completed_at": "2026-07-20T09:00:02.500Z"}, 3),
        ({"completed_at": "2026-07-20"}, None),
        ({"completed_at": "2026-07-20T09:00:00Z"}, 0),  # a window of no length is still a window
    ],
)
def test_duration_kpi(tmp_path: Path, fields: dict[str, Any], duration: int | None) -> None:
    assert statuses(tmp_path, [session("s", **fields)], [])["s"]["kpis"]["duration_seconds"] == duration
    source = (
        "recorded"
        if fields.get("duration_seconds") == 42
        else "unavailable"
        if duration is None
        else "derived from the window"
    )
    (result,) = score_sessions(tmp_path)
    assert f"(duration {source})." in result.dimension("efficiency-kpis").evidence


def test_kpis_are_null_when_missing_or_ill_typed(tmp_path: Path) -> None:
    record = session(
        "s",
        total_waves=3,
        total_agents=-2,
        total_token_input="9",
        total_token_output=10.5,
        effectiveness={"carryover": 1},
    )
    kpis = statuses(tmp_path, [record], [])["s"]["kpis"]
    assert kpis == {
        "duration_seconds": 3600,
        "total_waves": 3,
        "total_agents": None,
        "token_input": None,
        "token_output": 10.5,
        "carryover": 1,
    }


def test_ill_typed_kpi_and_wave_fields_are_named_in_the_evidence(tmp_path: Path) -> None:
    # Treated as missing, and the evidence says so; a null is missing as it is.
    record = session(
        "s",
        duration_seconds="100",
        total_waves="3",
        total_agents=-2,
        total_token_input=None,
        total_token_output="OUTPUT",
        effectiveness={"carryover": True},
        waves=[{"wave": 1}],
    )
    write_jsonl(
        tmp_path / "sessions.jsonl", [orjson.dumps(record).decode().replace('"OUTPUT"', "1e400")]
    )  # beyond a double
    (result,) = score_sessions(tmp_path)
    kpis = result.dimension("efficiency-kpis").evidence
    assert kpis.endswith(
        "(duration derived from the window). "
        'Note: duration_seconds="100" is not a non-negative number and was treated as missing. '
        'Note: total_waves="3" is not a non-negative number and was treated as missing. '
        "Note: total_agents=-2 is not a non-negative number and was treated as missing. "
        "Note: total_token_output=Infinity is not a non-negative number and was treated as missing. "
        "Note: effectiveness.carryover=true is not a non-negative number and was treated as missing."
    )
    gate = result.dimension("gate-health")
    assert gate.status == "cannot-determine"
    assert gate.evidence == (
        "some wave(s) ran but 0 full-gate events in window: gate health unknown. "
        'Note: total_waves="3" is not a number and was treated as missing.'
    )
    clean = session("c", total_waves=2, waves=[{"wave": 1}])
    write_jsonl(tmp_path / "sessions.jsonl", [clean])
    (result,) = score_sessions(tmp_path)
    assert "Note" not in result.dimension("efficiency-kpis").evidence + result.dimension("gate-health").evidence


@pytest.mark.parametrize(
    ("record", "scored", "unreadable"),
    [
        ({"status": "completed"}, True, None),
        ({"status": "abandoned", "completed_at": "x", "agent_summary": {"complete": 3}}, False, "'x'"),
        ({"completed_at": "2026-07-20T10:00:00Z", "agent_summary": {"complete": 1}}, True, None),
        ({"completed_at": "2026-07-20T10:00:00Z", "agent_summary": {"complete": "1"}}, False, None),
        ({"completed_at": "2026-07-20T10:00:00Z", "agent_summary": {"complete": 0}}, False, None),
        ({"completed_at": "2026-07-20T10:00:00Z", "effectiveness": {"completion_rate": "n/a"}}, True, None),
        ({"completed_at": "2026-07-20T10:00:00Z", "effectiveness": {"completion_rate": None}}, False, None),
        ({"completed_at": "", "agent_summary": {"complete": 1}}, False, "''"),
        ({"completed_at": " ", "agent_summary": {"complete": 1}}, True, "' '"),  # truthy in JavaScript, though blank
        ({"completed_at": 0, "agent_summary": {"complete": 1}}, False, "0"),
        ({"completed_at": [], "agent_summary": {"complete": 1}}, True, "[]"),
        ({"status": "running", "agent_summary": {"complete": 1}}, False, None),
    ],
)
def test_eligibility(tmp_path: Path, record: dict[str, Any], scored: bool, unreadable: str | None) -> None:
    write_jsonl(tmp_path / "sessions.jsonl", [{"session_id": "s", **record}])
    if unreadable is None:
        assert bool(score_sessions(tmp_path)) is scored
        return
    with pytest.warns(InputWarning, match=re.escape(f"sessions.jsonl:1 completed_at {unreadable}")):
        assert bool(score_sessions(tmp_path)) is scored


def test_the_no_evidence_of_work_reason_covers_a_null_completion_rate(tmp_path: Path) -> None:
    write_jsonl(
        tmp_path / "sessions.jsonl",
        [{"session_id": "s", "completed_at": "2026-07-20T10:00:00Z", "effectiveness": {"completion_rate": None}}],
    )
    (entry,) = evaluate(tmp_path / "sessions.jsonl", None).entries
    assert entry.reason.startswith("no evidence of work") and entry.reason.endswith(
        "effectiveness.completion_rate is absent or null"
    )  # type: ignore[union-attr]


def test_the_last_line_of_an_id_is_authoritative(tmp_path: Path) -> None:
    sessions = [
        session("s", effectiveness={"completion_rate": 1.0}),
        session("s", effectiveness={"completion_rate": 0.1}),
    ]
    assert statuses(tmp_path, sessions, [])["s"]["plan-fidelity"] == "fail"
    sessions = [session("s"), session("s", status="abandoned")]
    assert statuses(tmp_path, sessions, []) == {}


def test_latest_cascade_scans_all_lines_newest_first(tmp_path: Path) -> None:
    write_jsonl(
        tmp_path / "sessions.jsonl",
        [
            session("old"),
            session("mid", status=None, completed_at="2026-07-20T10:00:00Z", agent_summary={"complete": 1}),
            session("new", status="abandoned"),
            {"session_id": "running", "started_at": "2026-07-21T09:00:00Z"},
        ],
    )
    result = evaluate(tmp_path / "sessions.jsonl", None, Selection(latest=True))
    assert [entry.session_id for entry in result.scored] == ["mid"]
    write_jsonl(tmp_path / "sessions.jsonl", [session("a"), session("b"), session("b", status="abandoned")])
    result = evaluate(tmp_path / "sessions.jsonl", None, Selection(latest=True))
    assert [(entry.session_id, entry.line) for entry in result.scored] == [("b", 2)]
    write_jsonl(tmp_path / "sessions.jsonl", [session("a", status="abandoned")])
    with pytest.raises(NoEligibleSession, match="no eligible session"):
        evaluate(tmp_path / "sessions.jsonl", None, Selection(latest=True))


def test_bad_lines_are_reported_and_the_rest_is_scored(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "sessions.jsonl", ["{not json", "[1, 2]", "", session("s"), '"text"'])
    write_jsonl(
        tmp_path / "events.jsonl",
        ['{"event":"orchestrator.quality_gate.passed", "timestamp": ', gate("2026-07-20T09:10:00Z")],
    )
    result = evaluate(tmp_path / "sessions.jsonl", tmp_path / "events.jsonl")
    assert [entry.session_id for entry in result.scored] == ["s"]
    where = [(Path(problem.path).name, problem.line) for problem in result.problems]
    assert where == [("sessions.jsonl", 1), ("sessions.jsonl", 2), ("sessions.jsonl", 5), ("events.jsonl", 1)]
    assert "not a JSON object (found an array)" in result.problems[1].message


def test_peer_names_are_capped_but_the_verdict_is_exact(tmp_path: Path) -> None:
    sessions = [session(f"p{i}", "2026-07-20T09:00:00Z", "2026-07-20T12:00:00Z") for i in range(30)]
    (result, *_) = score_sessions_dir(tmp_path, sessions)
    assert result.peers.more and result.peers.count == 10
    assert result.dimension("gate-health").status == "cannot-determine"


@pytest.mark.parametrize(("others", "more"), [(10, False), (11, True)])
def test_ten_peers_are_all_named_and_an_eleventh_is_said_to_be_more(tmp_path: Path, others: int, more: bool) -> None:
    sessions = [session("a")] + [
        session(f"p{i}", "2026-07-20T09:10:00Z", "2026-07-20T09:20:00Z", status="abandoned") for i in range(others)
    ]
    (result,) = score_sessions_dir(tmp_path, sessions)
    assert result.peers.count == 10 and result.peers.more is more
    assert ("more than 10 other sessions" in result.dimension("gate-health").evidence) is more


def score_sessions_dir(tmp_path: Path, sessions: list[Any]) -> list[Any]:
    write_jsonl(tmp_path / "sessions.jsonl", sessions)
    return score_sessions(tmp_path)


@pytest.mark.parametrize("check_every_event_line", [True, False])
def test_a_byte_order_mark_makes_line_one_bad_input_as_in_the_reference(
    tmp_path: Path, check_every_event_line: bool
) -> None:
    # JSON text has no BOM; the reference's JSON.parse refuses such a line. Here it is
    # reported and skipped: its window is no peer, its guard block counts for nothing.
    bom = "\ufeff"
    write_jsonl(
        tmp_path / "sessions.jsonl",
        [bom + orjson.dumps(session("p", "2026-07-20T09:10:00Z", "2026-07-20T09:20:00Z")).decode(), session("s")],
    )
    blocked = {"event": "orchestrator.destructive_guard.blocked", "timestamp": "2026-07-20T09:30:00Z"}
    write_jsonl(tmp_path / "events.jsonl", [bom + orjson.dumps(blocked).decode()])
    result = evaluate(
        tmp_path / "sessions.jsonl", tmp_path / "events.jsonl", check_every_event_line=check_every_event_line
    )
    (scored,) = result.scored
    assert scored.session_id == "s" and not scored.peers.count
    assert scored.dimension("process-safety").status == "cannot-determine"  # no event object at all
    assert [(Path(p.path).name, p.line) for p in result.problems] == [("sessions.jsonl", 1), ("events.jsonl", 1)]
    assert all("BOM" in p.message for p in result.problems)


def test_lines_javascript_trims_to_nothing_are_blank(tmp_path: Path) -> None:
    blanks = ["\u00a0", "\u2028\u3000", "\ufeff", " \t\u000b\u000c\r"]
    write_jsonl(tmp_path / "sessions.jsonl", [*blanks, session("s"), "\u001f"])
    result = evaluate(tmp_path / "sessions.jsonl", None)
    assert [entry.session_id for entry in result.scored] == ["s"]
    # U+001F is no whitespace to JavaScript (Python's str.strip would remove it): bad input.
    assert [p.line for p in result.problems] == [len(blanks) + 2]


@pytest.mark.parametrize(
    ("host", "kept"),
    [
        ("ci", True),
        (" ci ", True),
        ("\ufeff", False),
        ("\u3000\u2029", False),
        ("\u001f", True),
        ("\u0085", True),
        ("", False),
    ],
)
def test_host_class_is_blank_exactly_when_javascript_trims_it_to_nothing(tmp_path: Path, host: str, kept: bool) -> None:
    started = {"event": "orchestrator.session.started", "timestamp": "2026-07-20T09:00:00Z", "host_class": host}
    for every in (True, False):
        write_jsonl(tmp_path / "sessions.jsonl", [session("s")])
        write_jsonl(tmp_path / "events.jsonl", [started])
        (scored,) = score_sessions(tmp_path, check_every_event_line=every)
        assert scored.host_class == (host if kept else None)


def test_host_class_is_the_first_usable_one_of_the_starts_stamped_exactly_as_started_at(tmp_path: Path) -> None:
    # As the reference: the first session.started event, in file order, whose timestamp string
    # equals started_at and whose host_class is not blank; another spelling of the instant is not it.
    def started(stamp: str, host: Any) -> dict[str, Any]:
        return {"event": "orchestrator.session.started", "timestamp": stamp, "host_class": host}

    events = [
        started("2026-07-20T09:00:00.000Z", "same-instant-other-spelling"),
        started("2026-07-20T09:00:00Z", " "),
        started("2026-07-20T09:00:00Z", None),
        started("2026-07-20T09:00:00Z", "second"),
        started("2026-07-20T09:00:00Z", "third"),
    ]
    for every in (True, False):
        write_jsonl(tmp_path / "sessions.jsonl", [session("s")])
        write_jsonl(tmp_path / "events.jsonl", events)
        (scored,) = score_sessions(tmp_path, check_every_event_line=every)
        assert scored.host_class == "second"
        write_jsonl(tmp_path / "events.jsonl", events[:3])
        (scored,) = score_sessions(tmp_path, check_every_event_line=every)
        assert scored.host_class is None


@pytest.mark.parametrize("stamp", ["", " ", "\u3000"])
def test_a_blank_started_at_takes_no_host_class_even_from_an_event_stamped_alike(tmp_path: Path, stamp: str) -> None:
    started = {"event": "orchestrator.session.started", "timestamp": stamp, "host_class": "ci"}
    for every in (True, False):
        write_jsonl(tmp_path / "sessions.jsonl", [session("s", stamp)])
        write_jsonl(tmp_path / "events.jsonl", [started])
        with pytest.warns(InputWarning, match=re.escape(f"sessions.jsonl:1 started_at {stamp!r}")):
            (scored,) = score_sessions(tmp_path, check_every_event_line=every)
        assert scored.host_class is None


def test_a_blank_session_id_is_not_usable_but_its_window_still_makes_a_peer(tmp_path: Path) -> None:
    overlapping = ("2026-07-20T09:10:00Z", "2026-07-20T09:20:00Z")
    write_jsonl(
        tmp_path / "sessions.jsonl",
        [session(" ", *overlapping), session("\u3000\t", *overlapping), session("", *overlapping), session("s")],
    )
    result = evaluate(tmp_path / "sessions.jsonl", None)
    reasons = [entry.reason for entry in result.entries if isinstance(entry, UnidentifiedRecord)]
    assert reasons == [
        'session_id is blank (only whitespace: " ")',
        'session_id is blank (only whitespace: "\u3000\\t")',
        "session_id is an empty string",
    ]
    (scored,) = result.scored
    assert scored.peers.names == (" ", "\u3000\t", "")
    assert result.session_ids == frozenset({"s"})


@pytest.mark.parametrize(
    ("session_id", "usable"), [("\ufeff", False), ("\u2028", False), ("\u001c", True), ("\u0085", True)]
)
def test_a_session_id_is_blank_exactly_when_javascript_trims_it_to_nothing(
    tmp_path: Path, session_id: str, usable: bool
) -> None:
    # Python's str.strip() differs: it keeps U+FEFF and removes U+001C and U+0085.
    write_jsonl(tmp_path / "sessions.jsonl", [session(session_id)])
    assert [result.session_id for result in score_sessions(tmp_path)] == ([session_id] if usable else [])


@pytest.mark.parametrize("check_every_event_line", [True, False])
def test_an_events_file_of_only_events_no_dimension_reads_still_holds_events(
    tmp_path: Path, check_every_event_line: bool
) -> None:
    # Safety is measurable once the file holds an event object, whichever kind.
    write_jsonl(tmp_path / "sessions.jsonl", [session("a")])
    write_jsonl(
        tmp_path / "events.jsonl", [{"event": "orchestrator.wave.started", "timestamp": "2026-07-20T09:10:00Z"}]
    )
    result = evaluate(
        tmp_path / "sessions.jsonl", tmp_path / "events.jsonl", check_every_event_line=check_every_event_line
    )
    (scored,) = result.scored
    assert scored.dimension("process-safety").status == "pass"


def test_integers_are_read_as_javascript_reads_them(tmp_path: Path) -> None:
    # Beyond 64 bits an integer is the nearest double (as orjson reads it); beyond the
    # double range, infinity: no number, as JavaScript's JSON.parse makes it.
    huge, endless = "1" + "0" * 400, "9" * 5000
    write_jsonl(
        tmp_path / "sessions.jsonl",
        [
            f'{{"session_id":"a","status":"completed","total_waves":{huge},"total_agents":{endless},'
            f'"total_token_input":18446744073709551616,"total_token_output":18446744073709551615,'
            f'"effectiveness":{{"completion_rate":{huge},"planned_issues":3}}}}',
        ],
    )
    result = evaluate(tmp_path / "sessions.jsonl", None)
    (scored,) = result.scored
    assert scored.kpis["total_waves"] is None and scored.kpis["total_agents"] is None
    assert scored.kpis["token_input"] == 2.0**64 and type(scored.kpis["token_input"]) is float
    assert (
        scored.kpis["token_output"] == 2.0**64 and type(scored.kpis["token_output"]) is float
    )  # as JavaScript holds it
    plan = scored.dimension("plan-fidelity")
    assert plan.status == "cannot-determine" and "completion_rate=Infinity is not a number" in plan.evidence
    assert not result.problems


@pytest.mark.parametrize(
    ("written", "held"),
    [
        (9007199254740992, 9007199254740992),  # 2**53: a double exactly, stays an int
        (9007199254740993, 9007199254740992.0),  # JSON.parse rounds to the nearest double
        (18446744073709551615, 18446744073709551616.0),
    ],
)
def test_integers_beyond_2_to_the_53_are_reported_as_the_reference_holds_them(
    tmp_path: Path, written: int, held: float
) -> None:
    record = session(
        "s",
        total_token_input=written,
        duration_seconds=written,
        effectiveness={"completion_rate": written, "carryover": written},
    )
    write_jsonl(tmp_path / "sessions.jsonl", [record])
    (scored,) = score_sessions(tmp_path)
    for name in ("token_input", "duration_seconds", "carryover"):
        value = scored.kpis[name]
        assert value == held and type(value) is type(held), name
    score = scored.dimension("plan-fidelity").score
    assert score == held and type(score) is type(held)
    # The evidence quotes the data as written.
    assert f"completion_rate={written}" in scored.dimension("plan-fidelity").evidence
