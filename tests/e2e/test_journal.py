"""The eval journal: record schema, append-only writing, re-verification, journals as input."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import resource
import signal
import socket
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from builders import (
    SHA,
    MetricsWriter,
    gate,
    reference_record,
    reference_rules_accept,
    session,
    write_jsonl,
)

from pytest_sessioneval import score_sessions
from pytest_sessioneval.records import (
    validate_record,
)

STAMP = "2026-08-01T00:00:00.000Z"


@pytest.fixture
def metrics(project_metrics: MetricsWriter) -> Path:
    return project_metrics(
        [
            session(
                "a",
                "2026-07-20T09:00:00Z",
                "2026-07-20T10:00:00Z",
                platform="codex",
                total_files_changed=1,
                effectiveness={"completion_rate": 0.9},
            ),
            session(
                "b",
                "2026-07-21T09:00:00Z",
                "2026-07-21T10:00:00Z",
                total_files_changed=1,
                effectiveness={"completion_rate": 0.5},
            ),
            session("gone", "2026-07-25T09:00:00Z", "2026-07-25T10:00:00Z", status="abandoned"),
        ],
        [
            {"event": "orchestrator.session.started", "timestamp": "2026-07-20T09:00:00Z", "host_class": "laptop"},
            gate("2026-07-20T09:30:00Z", 0),
            gate("2026-07-21T09:30:00Z", 1),
        ],
    )


def journal_run(pytester: pytest.Pytester, metrics: Path, *extra: str, stamp: str = STAMP) -> pytest.RunResult:
    return pytester.runpytest(
        "--session-eval",
        str(metrics),
        "--session-eval-journal",
        "eval.jsonl",
        "--session-eval-timestamp",
        stamp,
        "--session-eval-model-id",
        "claude-opus-4",
        *extra,
    )


def journal_lines(pytester: pytest.Pytester) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (pytester.path / "eval.jsonl").read_text().splitlines()]


def test_one_valid_record_per_scored_session(
    pytester: pytest.Pytester, metrics: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_MODEL", raising=False)
    result = journal_run(pytester, metrics, "--session-eval-handle", "team-blue")
    result.stdout.fnmatch_lines(["journal eval.jsonl: 2 record(s) appended, 0 already present"])
    records = journal_lines(pytester)
    assert [r["session_id"] for r in records] == ["a", "b"]
    a = records[0]
    validate_record(a)
    assert reference_rules_accept(a)
    assert a["run_id"] == "a-eval-20260801T000000000Z"
    assert a["provenance"] == {"rubric_sha256": SHA, "engine_commit": None}
    assert a["model"] == {"id": "claude-opus-4", "source": "self-report"}
    assert a["harness"]["platform"] == "codex" and records[1]["harness"]["platform"] == "unknown"
    assert a["harness"]["host_class"] == "laptop" and records[1]["harness"]["host_class"] is None
    assert a["harness"]["hostname_hash"] == hashlib.sha256(socket.gethostname().encode()).hexdigest()[:16]
    assert socket.gethostname() not in json.dumps(a)
    assert (a["handle"], a["anonymized"]) == ("team-blue", False)
    assert [d["id"] for d in a["dimensions"]] == [
        "verification-evidence",
        "plan-fidelity",
        "gate-health",
        "process-safety",
        "efficiency-kpis",
    ]
    assert [("score" in d) for d in a["dimensions"]] == [False, True, False, False, False]
    assert a["kpis"]["duration_seconds"] == 3600 and set(a["kpis"]) == {
        "duration_seconds",
        "total_waves",
        "total_agents",
        "token_input",
        "token_output",
        "carryover",
    }
    assert not {"overall", "total", "mean", "global_score"} & set(a)


def test_environment_model_wins(pytester: pytest.Pytester, metrics: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_MODEL", "claude-env-model")
    journal_run(pytester, metrics, "--session-eval-model-source", "config")
    assert journal_lines(pytester)[0]["model"] == {"id": "claude-env-model", "source": "env"}


def test_a_journal_needs_a_model(pytester: pytest.Pytester, metrics: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_MODEL", raising=False)
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-journal", "eval.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--session-eval-model-id*"])
    bad_source = journal_run(pytester, metrics, "--session-eval-model-source", "guess")
    assert bad_source.ret == pytest.ExitCode.USAGE_ERROR


def test_rerunning_does_not_duplicate_and_a_new_timestamp_appends(pytester: pytest.Pytester, metrics: Path) -> None:
    journal_run(pytester, metrics)
    again = journal_run(pytester, metrics)
    again.stdout.fnmatch_lines(["journal eval.jsonl: 0 record(s) appended, 2 already present"])
    assert len(journal_lines(pytester)) == 2
    journal_run(pytester, metrics, stamp="2026-08-02T00:00:00Z")
    assert len(journal_lines(pytester)) == 4


def test_a_different_record_under_an_existing_run_id_is_refused(pytester: pytest.Pytester, metrics: Path) -> None:
    journal_run(pytester, metrics)
    before = (pytester.path / "eval.jsonl").read_bytes()
    sessions = (metrics / "sessions.jsonl").read_text().replace("0.9", "0.95")
    (metrics / "sessions.jsonl").write_text(sessions)
    result = journal_run(pytester, metrics, "metrics/sessions.jsonl::a[plan-fidelity]")
    assert result.ret != 0
    result.stdout.fnmatch_lines(
        [
            "*REFUSED a-eval-20260801T000000000Z: the journal already holds a different record under this run_id (line 1)*"
        ]
    )
    assert (pytester.path / "eval.jsonl").read_bytes() == before


def test_a_note_or_another_kind_under_a_run_id_blocks_no_append(pytester: pytest.Pytester, metrics: Path) -> None:
    # Only records hold their run_id, as reading the journal back counts them: a note that
    # names a run does not, and a record whose kind is mistyped (a damaged record) does.
    notes = [
        {"record_kind": "note", "run_id": "a-eval-20260801T000000000Z", "text": "rerun after fixing the gate"},
        {"record_kind": "session-evl", "run_id": "b-eval-20260801T000000000Z", "session_id": "b", "dimensions": []},
    ]
    (pytester.path / "eval.jsonl").write_text("".join(json.dumps(note) + "\n" for note in notes))
    result = journal_run(pytester, metrics)
    result.stdout.fnmatch_lines(
        [
            "journal eval.jsonl: 1 record(s) appended, 0 already present",
            "REFUSED b-eval-20260801T000000000Z: the journal already holds a different record under this run_id (line 2)*",
        ]
    )
    assert [line.get("session_id") for line in journal_lines(pytester)] == [None, "b", "a"]


def test_a_refused_record_never_hides_an_interrupted_run(pytester: pytest.Pytester, metrics: Path) -> None:
    journal_run(pytester, metrics)
    (metrics / "sessions.jsonl").write_text((metrics / "sessions.jsonl").read_text().replace("0.9", "0.95"))
    pytester.makeconftest(
        "def pytest_runtest_call(item):\n    if item.name == 'b[plan-fidelity]':\n        raise KeyboardInterrupt\n"
    )
    result = pytester.runpytest_subprocess(  # an interrupt in-process would stop this run too
        "--session-eval",
        str(metrics),
        "--session-eval-journal",
        "eval.jsonl",
        "--session-eval-timestamp",
        STAMP,
        "--session-eval-model-id",
        "claude-opus-4",
    )
    result.stdout.fnmatch_lines(["*REFUSED a-eval-20260801T000000000Z*"])
    assert result.ret == pytest.ExitCode.INTERRUPTED


def test_pre_registration_guard_refuses_an_edited_rubric(pytester: pytest.Pytester, metrics: Path) -> None:
    edited = reference_record(provenance={"rubric_sha256": "0" * 64, "engine_commit": None})
    (pytester.path / "eval.jsonl").write_text(json.dumps(edited) + "\n")
    result = journal_run(pytester, metrics)
    assert result.ret != 0
    result.stdout.fnmatch_lines(
        [
            "*REFUSED*binds rubric-v1 to rubric_sha256 0000* (line 1)*the rubric was edited in place*mint a new rubric version*"
        ]
    )
    assert len(journal_lines(pytester)) == 1


@pytest.mark.parametrize(
    "stray",
    [
        {"rubric_version": "rubric-v1", "provenance": {"rubric_sha256": "not-a-hash"}},
        {"record_kind": "note", "run_id": "x", "rubric_version": "rubric-v1", "provenance": {"rubric_sha256": "TODO"}},
    ],
)
def test_a_stray_line_binds_no_rubric(pytester: pytest.Pytester, metrics: Path, stray: dict[str, Any]) -> None:
    (pytester.path / "eval.jsonl").write_text(json.dumps(stray) + "\n")
    result = journal_run(pytester, metrics)
    assert "REFUSED" not in result.stdout.str()
    assert len(journal_lines(pytester)) > 1


def test_xdist_appends_each_record_once(pytester: pytest.Pytester, metrics: Path) -> None:
    pytest.importorskip("xdist")
    result = pytester.runpytest_subprocess(
        "--session-eval",
        str(metrics),
        "--session-eval-journal",
        "eval.jsonl",
        "--session-eval-model-id",
        "m",
        "-n",
        "2",
    )
    assert "2 workers" in result.stdout.str()
    records = journal_lines(pytester)
    assert sorted(r["session_id"] for r in records) == ["a", "b"]
    assert len({r["timestamp"] for r in records}) == 1


@pytest.mark.parametrize(
    ("journal", "message"),
    [
        ("missing-dir/eval.jsonl", "*directory*missing-dir does not exist*"),
        ("metrics", "*metrics: not a file*"),
        ("link.jsonl", "*link.jsonl: directory *nowhere does not exist*"),  # a link into a missing directory
    ],
)
def test_an_unusable_journal_path_is_a_usage_error(
    pytester: pytest.Pytester, metrics: Path, journal: str, message: str
) -> None:
    (pytester.path / "link.jsonl").symlink_to(pytester.path / "nowhere" / "eval.jsonl")
    result = pytester.runpytest(
        "--session-eval", str(metrics), "--session-eval-journal", journal, "--session-eval-model-id", "m"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_a_journal_that_cannot_be_written_fails_the_run(pytester: pytest.Pytester, metrics: Path) -> None:
    (pytester.path / "out").mkdir()
    pytester.makeconftest("import shutil\ndef pytest_collection_finish(session):\n    shutil.rmtree('out')\n")
    result = pytester.runpytest(
        "--session-eval",
        str(metrics),
        "--session-eval-journal",
        "out/eval.jsonl",
        "--session-eval-model-id",
        "m",
        "metrics/sessions.jsonl::a[verification-evidence]",
    )
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*ERROR: cannot open the journal*out/eval.jsonl*"])


def test_verify_reproduces_and_reports_drift(pytester: pytest.Pytester, metrics: Path) -> None:
    journal_run(pytester, metrics)
    same = pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl", "-v")
    same.assert_outcomes(passed=13)  # five dimensions and the record's own fields, of two sessions; the run's seal
    same.stdout.fnmatch_lines(
        [
            "*eval.jsonl::a-eval-20260801T000000000Z?plan-fidelity? PASSED*",
            "re-verification: 10 stored verdict(s) reproduced, 0 not reproduced*",
        ]
    )
    write_jsonl(metrics / "events.jsonl", [gate("2026-07-20T09:30:00Z", 3)])
    drift = pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl")
    drift.assert_outcomes(passed=10, failed=3)  # and a's record: its host class came from the events replaced
    drift.stdout.fnmatch_lines(
        [
            "*eval.jsonl:1: run 'a-eval-20260801T000000000Z', verification-evidence: not reproduced",
            "*  status:",
            "*    stored: 'pass'",
            "*    fresh:  'fail'",
        ]
    )


def test_verify_fails_clearly_on_another_rubric_text_or_a_missing_session(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    other_text = reference_record(
        session_id="a", run_id="x1", provenance={"rubric_sha256": "1" * 64, "engine_commit": None}
    )
    missing = reference_record(session_id="nobody", run_id="x2")
    unknown = reference_record(session_id="a", run_id="x3", rubric_version="rubric-v9")
    write_jsonl(pytester.path / "eval.jsonl", [other_text, missing, unknown])
    pytester.makeini("[pytest]\n")
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl", "-rs")
    result.assert_outcomes(failed=15, skipped=3)
    result.stdout.fnmatch_lines_random(
        [
            "*stored rubric_sha256 1111* differs from the current rubric-v1 text*",
            "*session 'nobody' is not in the current metrics*",
            "*'rubric-v9', which is not registered here*",
            "*judge dimension: advisory and not re-verifiable*",
        ]
    )


def test_reference_records_verify_on_status_and_score_only(pytester: pytest.Pytester, metrics: Path) -> None:
    # Its own fields as the standard defines them: the KPIs and host class of the metrics, a
    # run_id of session_id and timestamp (its platform, worded by another engine, is not compared).
    fresh = {entry.session_id: entry for entry in score_sessions(metrics)}["a"]
    stored = reference_record(session_id="a", run_id="a-eval-20260716T100000000Z", kpis=dict(fresh.kpis))
    stored["harness"]["host_class"] = fresh.host_class
    stored["dimensions"][1]["score"] = 0.9
    stored["dimensions"][2]["status"] = "not-applicable"
    write_jsonl(pytester.path / "eval.jsonl", [stored])
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl")
    result.assert_outcomes(passed=6, skipped=1)
    stored["dimensions"][1]["score"] = 0.8
    write_jsonl(pytester.path / "eval.jsonl", [stored])
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl")
    result.assert_outcomes(passed=5, failed=1, skipped=1)
    result.stdout.fnmatch_lines(["*score:*", "*stored: 0.8*", "*fresh:  0.9*"])


@pytest.mark.parametrize(
    ("field", "value", "drift"),
    [
        (("kpis", "duration_seconds"), 1, "kpis.duration_seconds:"),
        (("kpis", "token_input"), 5, "kpis.token_input:"),
        (("harness", "host_class"), "server", "harness.host_class:"),
        (("run_id",), "totally-different", "run_id (from session_id and timestamp):"),
        (("timestamp",), "2026-08-02T00:00:00.000Z", "run_id (from session_id and timestamp):"),
        (("harness", "platform"), "other", "harness.platform:"),
    ],
)
def test_a_record_whose_own_fields_no_longer_reproduce_fails_its_record_item(
    pytester: pytest.Pytester, metrics: Path, field: tuple[str, ...], value: Any, drift: str
) -> None:
    journal_run(pytester, metrics)
    records = journal_lines(pytester)
    target = records[0]
    for key in field[:-1]:
        target = target[key]
    target[field[-1]] = value
    write_jsonl(pytester.path / "eval.jsonl", records)
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl")
    result.assert_outcomes(passed=11, failed=2)  # the record's item, and its run's seal: the record was edited
    result.stdout.fnmatch_lines(
        [
            f"*{drift}*",
            "re-verification: 10 stored verdict(s) reproduced, * 1 record(s) whose KPIs, host class and run_id reproduced, "
            "1 not; 0 sealed run(s) intact, 1 not",
            f"FAILED eval.jsonl::{records[0]['run_id']}[[]record[]]*",
        ]
    )


def test_a_journal_line_that_cannot_be_read_fails_re_verification(pytester: pytest.Pytester, metrics: Path) -> None:
    journal_run(pytester, metrics)
    (pytester.path / "eval.jsonl.seal").unlink()  # (lines damaged as a crash leaves them, not as sealed)
    lines = (pytester.path / "eval.jsonl").read_text().splitlines()
    # Line 3 is a record a crashed writer left torn, closed by a newline (as the next append
    # closes it); a last line without one is still being written, and is not read.
    (pytester.path / "eval.jsonl").write_text("{" + lines[0] + "\n" + lines[1] + "\n" + '{"record_kind": "session-ev\n')
    result = pytester.runpytest(
        "--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl", "-p", "no:randomly"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=6, failed=2)  # failed items, not warnings of lines skipped
    assert "unusable input line" not in result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "eval.jsonl:1: not valid JSON (*); no record on it can be re-verified",
            "eval.jsonl:3: not valid JSON (*); no record on it can be re-verified",
            "re-verification: 5 stored verdict(s) reproduced, 0 not reproduced, 0 not re-verifiable (judge); "
            "1 record(s) whose KPIs, host class and run_id reproduced, 0 not; 2 journal line(s) unreadable",
        ]
    )
    assert "line skipped" not in "".join(line for line in result.stdout.lines if "no record on it" in line)
    deterministic = pytester.runpytest(
        "--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl", "-m", "deterministic"
    )
    deterministic.assert_outcomes(passed=6, failed=2)
    assert [line.split(" ")[1] for line in result.stdout.lines if line.startswith("FAILED")] == [
        "eval.jsonl::line-1[unreadable]",
        "eval.jsonl::line-3[unreadable]",
    ]
    # Given as input, the journal is reported as it is: an unreadable line is a warning there.
    shown = pytester.runpytest("--session-eval", "eval.jsonl")
    assert "[unreadable]" not in shown.stdout.str() and "SessionEvalInputWarning" in shown.stdout.str()


def test_a_drift_says_when_the_sessions_last_line_is_no_longer_scored(pytester: pytest.Pytester, metrics: Path) -> None:
    journal_run(pytester, metrics)
    with open(metrics / "sessions.jsonl", "a") as sessions:
        sessions.write(json.dumps(session("a", status="abandoned")) + "\n")
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "fresh scoring of the current metrics differs from the stored verdict (sessions line 4, which a scoring run "
            "would not score now: abandoned session (status is 'abandoned'): abandoned sessions are never scored):"
        ]
    )


def test_one_evaluation_time_however_spelt_gives_one_run_id(pytester: pytest.Pytester, metrics: Path) -> None:
    for stamp in ("2026-08-01T00:00:00.5Z", "2026-08-01T00:00:00.500Z", "2026-08-01T00:00:00.5000000Z"):
        journal_run(pytester, metrics, stamp=stamp)
    records = journal_lines(pytester)
    assert [record["run_id"] for record in records] == ["a-eval-20260801T000000500Z", "b-eval-20260801T000000500Z"]
    assert {record["timestamp"] for record in records} == {
        "2026-08-01T00:00:00.500Z"
    }  # in milliseconds, as the clock writes it
    # Without a fraction it is kept as given: run_ids of journals written so stay the same.
    journal_run(pytester, metrics, stamp="2026-08-02T00:00:00Z")
    assert journal_lines(pytester)[-1]["run_id"] == "b-eval-20260802T000000Z"


def test_a_session_in_two_sessions_files_of_one_run(pytester: pytest.Pytester, metrics: Path) -> None:
    # A copy scores the same: one record. Scored differently, the second cannot share the
    # first's run_id: it is not written, and re-verification, whatever the order of the files,
    # cannot tell which the record scored.
    copy = pytester.path / "copy"
    copy.mkdir()
    for name in ("sessions.jsonl", "events.jsonl"):
        (copy / name).write_bytes((metrics / name).read_bytes())
    journal_run(pytester, metrics, "--session-eval", str(copy))
    assert len(journal_lines(pytester)) == 2
    changed = pytester.path / "changed"
    changed.mkdir()
    write_jsonl(
        changed / "sessions.jsonl",
        [
            session(
                "a",
                "2026-07-20T09:00:00Z",
                "2026-07-20T10:00:00Z",
                total_files_changed=1,
                effectiveness={"completion_rate": 0.1},
            )
        ],
    )
    (changed / "events.jsonl").write_bytes((metrics / "events.jsonl").read_bytes())
    for name in ("eval.jsonl", "eval.jsonl.seal"):  # a new journal, and its seal
        (pytester.path / name).unlink()
    result = journal_run(pytester, metrics, "--session-eval", str(changed))
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "NOT WRITTEN changed/sessions.jsonl:1: session 'a' is scored from metrics/sessions.jsonl:1 too in this run, with another result, *"
        ]
    )
    assert [record["session_id"] for record in journal_lines(pytester)] == ["a", "b"]
    outcomes = []
    for order in ((metrics, changed), (changed, metrics)):
        verify = pytester.runpytest(
            "--session-eval", str(order[0]), "--session-eval", str(order[1]), "--session-eval-verify", "eval.jsonl"
        )
        verify.stdout.fnmatch_lines(
            [
                "session 'a' is in more than one sessions file given, scored differently (*), and a record does not say which it scored*"
            ]
        )
        outcomes.append(verify.parseoutcomes())
    assert outcomes[0] == outcomes[1] == {"failed": 5, "passed": 7}  # the run's seal passes


def test_a_run_that_appends_no_record_creates_no_journal(pytester: pytest.Pytester, metrics: Path) -> None:
    result = journal_run(pytester, metrics, "-k", "no-such-session")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(["journal eval.jsonl: 0 record(s) appended"])
    assert not (pytester.path / "eval.jsonl").exists()


def test_a_session_no_longer_eligible_in_one_of_two_files_is_re_verified_from_the_other(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    # As journaling scored it: the file whose last line of the session is eligible.
    later = pytester.path / "later"
    later.mkdir()
    (later / "sessions.jsonl").write_text(
        (metrics / "sessions.jsonl").read_text()
        + json.dumps(session("a", status="abandoned", duration_seconds=7))
        + "\n"
    )
    (later / "events.jsonl").write_bytes((metrics / "events.jsonl").read_bytes())
    written = journal_run(pytester, metrics, "--session-eval", str(later))
    assert "NOT WRITTEN" not in written.stdout.str() and len(journal_lines(pytester)) == 2
    verify = pytester.runpytest(
        "--session-eval", str(metrics), "--session-eval", str(later), "--session-eval-verify", "eval.jsonl"
    )
    verify.assert_outcomes(passed=13)  # and the run's seal


def test_evidence_drift_counts_for_records_written_here(pytester: pytest.Pytester, metrics: Path) -> None:
    journal_run(pytester, metrics)
    records = journal_lines(pytester)
    records[0]["dimensions"][3]["evidence"] = "rewritten by hand"
    write_jsonl(pytester.path / "eval.jsonl", records)
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl")
    result.assert_outcomes(passed=11, failed=2)  # the verdict, and its run's seal: the record was edited
    result.stdout.fnmatch_lines(["*evidence:*", "*stored: 'rewritten by hand'*"])


def test_evidence_of_another_version_of_the_plugin_is_not_compared(pytester: pytest.Pytester, metrics: Path) -> None:
    journal_run(pytester, metrics)
    (pytester.path / "eval.jsonl.seal").unlink()  # (the records stand for another version's, unsealed)
    records = journal_lines(pytester)
    records[0]["harness"]["plugin_version"] = "pytest-sessioneval/0.0.1"  # worded by an older version
    records[0]["dimensions"][3]["evidence"] = "worded otherwise"
    write_jsonl(pytester.path / "eval.jsonl", records)
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl")
    result.assert_outcomes(passed=12)
    records[0]["dimensions"][3]["status"] = "fail"  # its status still counts
    write_jsonl(pytester.path / "eval.jsonl", records)
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl")
    result.assert_outcomes(passed=11, failed=1)


def test_a_journal_as_input_is_reported_as_is(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    judged = reference_record(run_id="judged")
    judged["dimensions"][0]["status"] = "fail"
    judged["dimensions"][5].update(status="fail", evidence="skipped a gate")
    judged["dimensions"].append(
        {
            "id": "report-quality",
            "method": "judge",
            "status": "cannot-determine",
            "evidence": "judge timed out",
            "advisory": True,
            "calibration_status": "uncalibrated",
        }
    )
    invalid = reference_record(run_id="bad")
    invalid["dimensions"][0]["advisory"] = True
    write_jsonl(pytester.path / "eval.jsonl", [judged, invalid])
    result = pytester.runpytest("--session-eval", "eval.jsonl", "-v", "-rx")
    result.assert_outcomes(passed=3, failed=2, skipped=1, xfailed=2)
    result.stdout.fnmatch_lines_random(
        [
            "*eval.jsonl::judged?verification-evidence? FAILED*",
            "*eval.jsonl::judged?instruction-adherence? XFAIL*",
            "*eval.jsonl::line-2?invalid-record? FAILED*",
            "*advisory, uncalibrated*skipped a gate*",
            "*eval.jsonl:2: invalid session-eval record*",
            "*dimensions[[]0[]]: advisory is only valid on a judge dimension*",
        ]
    )
    deterministic_only = pytester.runpytest("--session-eval", "eval.jsonl", "-m", "not judge")
    deterministic_only.assert_outcomes(passed=3, failed=2, skipped=1)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--session-eval-journal", "metrics/sessions.jsonl"),
            "*--session-eval-journal: *sessions.jsonl is a sessions file of this run*",
        ),
        (
            ("--session-eval-journal", "metrics/events.jsonl"),
            "*--session-eval-journal: *events.jsonl is an events file of this run*",
        ),
        (
            ("--session-eval-html", "metrics/./sessions.jsonl"),
            "*--session-eval-html: *sessions.jsonl is a sessions file of this run*",
        ),
        (
            ("--session-eval-journal", "j.jsonl", "--session-eval-html", "j.jsonl"),
            "*--session-eval-html: *j.jsonl is the --session-eval-journal of this run*",
        ),
        (("--session-eval-html", "link.jsonl"), "*--session-eval-html: *link.jsonl is a sessions file of this run*"),
        (("--session-eval-html", "hard.jsonl"), "*--session-eval-html: *hard.jsonl is an events file of this run*"),
        (
            ("--session-eval-journal", "hard.jsonl"),
            "*--session-eval-journal: *hard.jsonl is an events file of this run*",
        ),
    ],
)
def test_an_output_never_overwrites_an_input(
    pytester: pytest.Pytester, project_metrics: MetricsWriter, args: tuple[str, ...], message: str
) -> None:
    metrics = project_metrics([session("a")], [gate("2026-07-20T09:30:00Z")])
    (pytester.path / "link.jsonl").symlink_to(metrics / "sessions.jsonl")
    os.link(metrics / "events.jsonl", pytester.path / "hard.jsonl")
    before = (metrics / "sessions.jsonl").read_bytes(), (metrics / "events.jsonl").read_bytes()
    result = pytester.runpytest("--session-eval", "metrics", "--session-eval-model-id", "m", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert ((metrics / "sessions.jsonl").read_bytes(), (metrics / "events.jsonl").read_bytes()) == before


@pytest.mark.parametrize(
    "dry_run", ["--co", "--setup-plan", "--setup-only", "--fixtures", "--fixtures-per-test", "--cache-show"]
)
def test_a_run_that_runs_no_item_writes_neither_journal_nor_page(
    pytester: pytest.Pytester, metrics: Path, dry_run: str
) -> None:
    result = journal_run(pytester, metrics, dry_run, "--session-eval-html", "report.html")
    assert result.ret == pytest.ExitCode.OK
    assert not (pytester.path / "eval.jsonl").exists() and not (pytester.path / "report.html").exists()
    if dry_run != "--co":
        assert "session(s) scored" not in result.stdout.str()  # no item ran: no tally to show


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ("--session-eval-handle", " \u3000"),
            "ERROR: --session-eval-handle: is blank; leave it out for an anonymised record",
        ),
        (("--session-eval-handle", "h\udcff"), "ERROR: --session-eval-handle: 'h\\udcff' is not valid UTF-8 text"),
        (("--session-eval-model-id", "m\udcff"), "ERROR: --session-eval-model-id: 'm\\udcff' is not valid UTF-8 text"),
    ],
)
def test_record_options_are_checked_before_anything_runs(
    pytester: pytest.Pytester, metrics: Path, monkeypatch: pytest.MonkeyPatch, extra: tuple[str, ...], message: str
) -> None:
    monkeypatch.delenv("ANTHROPIC_MODEL", raising=False)
    result = journal_run(pytester, metrics, *extra)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert not (pytester.path / "eval.jsonl").exists()


def test_verify_needs_the_metrics_not_the_journal_twice(pytester: pytest.Pytester, metrics: Path) -> None:
    journal_run(pytester, metrics)
    result = pytester.runpytest("--session-eval", "eval.jsonl", "--session-eval-verify", "eval.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --session-eval: *eval.jsonl: a journal; re-verification needs the metrics (sessions.jsonl)*"]
    )


def test_re_verification_appends_nothing_so_a_journal_typed_beside_it_is_a_usage_error(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    journal_run(pytester, metrics)
    typed = pytester.runpytest(
        "--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl", "--session-eval-journal", "other.jsonl"
    )
    assert typed.ret == pytest.ExitCode.USAGE_ERROR
    typed.stderr.fnmatch_lines(
        [
            "ERROR: --session-eval-journal: re-verification appends no record; append in a run without --session-eval-verify"
        ]
    )
    # Set in the ini file (the journal the project appends to), it is left out: nothing is written.
    pytester.makeini("[pytest]\nsession_eval_journal = eval.jsonl\n")
    before = (pytester.path / "eval.jsonl").read_bytes()
    from_ini = pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl")
    assert from_ini.ret == pytest.ExitCode.OK
    assert (pytester.path / "eval.jsonl").read_bytes() == before
    assert "record(s) appended" not in from_ini.stdout.str()
    assert not (pytester.path / "other.jsonl").exists()


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (
            '{"note": "a header"}\n{"session_id": "x", "status": "completed"}\n',
            "it holds session records: line 2 names session_id",
        ),
        ('{"event": "orchestrator.session.started", "session_id": "x"}\n', "it holds events: line 1 names event"),
        ("<!DOCTYPE html>\n<html></html>\n", "it holds no JSON object line"),
    ],
)
def test_re_verification_refuses_a_file_that_is_no_journal(
    pytester: pytest.Pytester, metrics: Path, content: str, why: str
) -> None:
    (pytester.path / "other.jsonl").write_text(content)
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "other.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --session-eval-verify: *other.jsonl: is not an eval journal ({why})*"])


def test_an_odd_model_variable_matters_only_to_a_run_that_writes_records(
    pytester: pytest.Pytester, metrics: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_MODEL", "m\udcff")
    assert pytester.runpytest("--session-eval", str(metrics)).ret == pytest.ExitCode.TESTS_FAILED
    result = journal_run(pytester, metrics)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: ANTHROPIC_MODEL: 'm\\udcff' is not valid UTF-8 text"])


@pytest.mark.parametrize(
    "select", [("-k", "not second"), ("first/sessions.jsonl::same",), ("--deselect", "second/sessions.jsonl::same")]
)
def test_only_the_file_whose_items_ran_is_journaled_when_two_files_share_a_session_id(
    pytester: pytest.Pytester, project_metrics: MetricsWriter, select: tuple[str, ...]
) -> None:
    first = project_metrics([session("same", effectiveness={"completion_rate": 0.9})], [], directory="first")
    second = project_metrics([session("same", effectiveness={"completion_rate": 0.1})], [], directory="second")
    result = pytester.runpytest(
        "--session-eval",
        str(first),
        "--session-eval",
        str(second),
        *select,
        "--session-eval-journal",
        "eval.jsonl",
        "--session-eval-timestamp",
        STAMP,
        "--session-eval-model-id",
        "m",
        "--session-eval-html",
        "report.html",
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines(
        ["rubric-v1: 1 session(s) scored", "journal eval.jsonl: 1 record(s) appended, 0 already present"]
    )
    (record,) = journal_lines(pytester)
    plan = next(d for d in record["dimensions"] if d["id"] == "plan-fidelity")
    assert plan["status"] == "pass"  # the first file's session, not the second's
    page = (pytester.path / "report.html").read_text()
    assert "first/sessions.jsonl" in page and "second/sessions.jsonl" not in page


def test_a_session_id_with_a_lone_surrogate_is_journaled_as_its_escape(
    pytester: pytest.Pytester, project_metrics: MetricsWriter
) -> None:
    metrics = project_metrics(
        [
            '{"session_id":"\\ud800lone","status":"completed","started_at":"2026-07-20T09:00:00Z","completed_at":"2026-07-20T10:00:00Z"}'
        ],
        [],
    )
    for _ in range(2):  # the second run finds the same record already present
        result = journal_run(pytester, metrics)
        assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines(["journal eval.jsonl: 0 record(s) appended, 1 already present"])
    raw = (pytester.path / "eval.jsonl").read_bytes()
    assert raw.isascii() and b'"session_id":"\\ud800lone"' in raw
    (record,) = journal_lines(pytester)
    assert record["session_id"] == "\ud800lone" and record["run_id"] == "\ud800lone-eval-20260801T000000000Z"
    verify = pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl")
    assert verify.ret == pytest.ExitCode.OK


def test_a_journal_line_nested_deep_blocks_no_append(pytester: pytest.Pytester, metrics: Path) -> None:
    deep = "[" * 5000 + "]" * 5000
    (pytester.path / "eval.jsonl").write_text('{"record_kind":"x","run_id":"r","junk":' + deep + "}\n")
    result = journal_run(pytester, metrics)
    result.stdout.fnmatch_lines(["journal eval.jsonl: 2 record(s) appended, 0 already present"])
    assert len((pytester.path / "eval.jsonl").read_text().splitlines()) == 3


def test_verification_of_a_line_whose_rubric_version_is_no_text_fails_that_line(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    (pytester.path / "eval.jsonl").write_text(json.dumps(reference_record(rubric_version=["rubric-v1"])) + "\n")
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*invalid-record*"])


def test_a_verify_journal_pytest_cannot_collect_is_named_by_its_option(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    (pytester.path / "ev[1].jsonl").write_text(json.dumps(reference_record()) + "\n")
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "ev[1].jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --session-eval-verify: ev[[]1].jsonl: pytest cannot collect*"])


def test_verification_writes_no_empty_page_and_says_so(pytester: pytest.Pytester, metrics: Path) -> None:
    journal_run(pytester, metrics)
    result = pytester.runpytest(
        "--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl", "--session-eval-html", "page.html"
    )
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["HTML report: not written: re-verification (--session-eval-verify) scores no session to show"]
    )
    assert not (pytester.path / "page.html").exists()


def test_a_journal_as_input_counts_each_session_once_by_its_latest_record(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    for day in ("01", "02", "03"):
        journal_run(pytester, metrics, stamp=f"2026-08-{day}T00:00:00Z")
    assert len(journal_lines(pytester)) == 6
    result = pytester.runpytest("--session-eval", "eval.jsonl", "--session-eval-html", "page.html")
    result.stdout.fnmatch_lines(
        [
            "rubric-v1: 2 session(s) scored",
            "plan-fidelity * 1     1               0                 0  0.50 (n = 2,*",
            "HTML report: the journals given as input are not drawn; the page shows the sessions scored in this run",
        ]
    )


def test_any_dimension_id_of_a_stored_record_makes_a_node_id_of_its_own(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    records = []
    for run, odd in (("r1", "\ud800"), ("r2", "a]b::c[d"), ("r3", "x\ny")):
        record = reference_record(run_id=run)
        record["dimensions"][0]["id"] = odd
        records.append(record)
    (pytester.path / "eval.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    for extra in ((), ("-n", "2")):
        result = pytester.runpytest("--session-eval", "eval.jsonl", "-v", "-p", "no:randomly", *extra)
        output = result.stdout.str() + result.stderr.str()
        assert "INTERNALERROR" not in output and "Traceback" not in output
        result.assert_outcomes(passed=15, skipped=3)
        result.stdout.fnmatch_lines_random(
            [
                "*eval.jsonl::r1?\\ud800?*",
                "*eval.jsonl::r2?a\\x5db:\\x3ac\\x5bd?*",
                "*eval.jsonl::r3?x\\x0ay?*",
            ]
        )
    # Each node id selects exactly its item; the summary keeps one line per dimension.
    selected = pytester.runpytest("--session-eval", "eval.jsonl", "eval.jsonl::r2[a\\x5db:\\x3ac\\x5bd]")
    selected.assert_outcomes(passed=1)
    assert not any(line == "y" or line.startswith("y ") for line in selected.stdout.lines)


def test_an_item_reported_twice_is_counted_once(pytester: pytest.Pytester, metrics: Path) -> None:
    pytest.importorskip("xdist")
    once = pytester.runpytest("--session-eval", str(metrics), "-p", "no:randomly")
    table = [line for line in once.stdout.lines if "n = " in line or "scored" in line]
    assert table
    for extra in (("-n", "2", "--dist", "each"), (str(metrics / "sessions.jsonl"), "--keep-duplicates")):
        again = pytester.runpytest("--session-eval", str(metrics), "-p", "no:randomly", *extra)
        assert [line for line in again.stdout.lines if "n = " in line or "scored" in line] == table


def test_a_dimension_a_stored_record_repeats_gets_a_node_id_of_its_own(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    record = reference_record(run_id="r1")
    record["dimensions"].insert(3, dict(record["dimensions"][2], status="fail"))
    (pytester.path / "eval.jsonl").write_text(json.dumps(record) + "\n")
    result = pytester.runpytest("--session-eval", "eval.jsonl", "--co", "-q")
    ids = [line for line in result.stdout.lines if "::" in line]
    assert len(ids) == len(set(ids)) == 7
    assert "eval.jsonl::r1[gate-health~2]" in ids
    pytester.runpytest("--session-eval", "eval.jsonl", "eval.jsonl::r1[gate-health~2]").assert_outcomes(failed=1)


def test_a_file_named_sessions_jsonl_is_sessions_whatever_its_first_record_holds(
    pytester: pytest.Pytester, project_metrics: MetricsWriter
) -> None:
    metrics = project_metrics([session("a") | {"record_kind": "backfill"}, session("b")])
    by_file = pytester.runpytest("--session-eval", str(metrics / "sessions.jsonl"), "--co", "-q")
    by_directory = pytester.runpytest("--session-eval", str(metrics), "--co", "-q")
    assert [line for line in by_file.stdout.lines if "::" in line] == [
        line for line in by_directory.stdout.lines if "::" in line
    ]
    assert any("::a[" in line for line in by_file.stdout.lines)


@pytest.mark.parametrize(
    "selection",
    [
        ("--session-eval-session", "a"),
        ("--session-eval-latest",),
        ("--session-eval-since", "2026-01-01"),
        ("--session-eval-until", "2026-12-31"),
    ],
)
def test_a_session_selection_given_to_re_verification_is_a_usage_error(
    pytester: pytest.Pytester, metrics: Path, selection: tuple[str, ...]
) -> None:
    journal_run(pytester, metrics)
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl", *selection)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"ERROR: {selection[0]}: does not apply to re-verification*select records with -k or a node id"]
    )


@pytest.mark.parametrize(
    "selection",
    [("--session-eval-latest",), ("--session-eval-since", "2026-01-01"), ("--session-eval-until", "2026-12-31")],
)
def test_a_session_selection_does_not_pass_over_a_journal_given_as_input_silently(
    pytester: pytest.Pytester, metrics: Path, selection: tuple[str, ...]
) -> None:
    journal_run(pytester, metrics)
    alone = pytester.runpytest("--session-eval", "eval.jsonl", *selection)
    assert alone.ret == pytest.ExitCode.USAGE_ERROR
    alone.stderr.fnmatch_lines(
        [
            f"ERROR: {selection[0]}: selects sessions of sessions files, and *eval.jsonl is a journal, "
            "whose every record is shown; select records with -k or a node id"
        ]
    )
    beside = pytester.runpytest("--session-eval", str(metrics), "--session-eval", "eval.jsonl", *selection)
    beside.stdout.fnmatch_lines(
        [
            f"{selection[0]} selected sessions of the sessions files only: the journal(s) given as input show every record"
        ]
    )


def test_an_ini_selection_gives_way_to_a_journal_given_alone_and_a_note_names_what_selected(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    journal_run(pytester, metrics)
    pytester.makeini("[pytest]\nsession_eval_since = 2026-07-01\nsession_eval_latest = true\n")
    alone = pytester.runpytest("--session-eval", "eval.jsonl")  # as in re-verification: the ini keys are left out
    assert alone.ret == pytest.ExitCode.TESTS_FAILED, alone.stderr.str()  # its records, shown
    alone.stdout.no_fnmatch_line("*selected sessions*")
    beside = pytester.runpytest(
        "--session-eval", str(metrics), "--session-eval", "eval.jsonl", "--session-eval-session", "a"
    )
    beside.stdout.fnmatch_lines(
        [
            "--session-eval-session, ini key session_eval_since in *tox.ini selected sessions of the "
            "sessions files only: the journal(s) given as input show every record"
        ]
    )
    typed = pytester.runpytest("--session-eval", "eval.jsonl", "--session-eval-session", "a")
    assert typed.ret == pytest.ExitCode.USAGE_ERROR
    typed.stderr.fnmatch_lines(
        ["ERROR: --session-eval-session: selects sessions of sessions files, and *eval.jsonl is a journal*"]
    )
    overridden = pytester.runpytest("--session-eval", "eval.jsonl", "-o", "session_eval_since=2027-01-01")
    overridden.stderr.fnmatch_lines(["ERROR: -o session_eval_since: selects sessions of sessions files*"])
    reverified = pytester.runpytest(
        "--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl", "-o", "session_eval_latest=true"
    )
    reverified.stderr.fnmatch_lines(["ERROR: -o session_eval_latest: does not apply to re-verification*"])
    # -o clearing a key selects nothing: no refusal
    for cleared in ("session_eval_latest=false", "session_eval_since=", "session_eval_sessions="):
        assert pytester.runpytest("--session-eval", "eval.jsonl", "-o", cleared).ret == pytest.ExitCode.TESTS_FAILED
        assert (
            pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl", "-o", cleared).ret
            == pytest.ExitCode.OK
        )
    # ini keys are left out whatever they hold: a range that selects nothing, a value no date, keys at odds
    for ini in (
        "session_eval_until = 2026-07-01\nsession_eval_since = 2026-08-01",
        "session_eval_since = soon",
        "session_eval_latest = true\nsession_eval_sessions = x",
    ):
        pytester.makeini(f"[pytest]\n{ini}\n")
        shown = pytester.runpytest("--session-eval", "eval.jsonl")
        assert shown.ret == pytest.ExitCode.TESTS_FAILED, shown.stderr.str()
        reverify = pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl")
        assert reverify.ret == pytest.ExitCode.OK, reverify.stderr.str()
    # also a value of another type in pytest 9's own [tool.pytest] table (a TOML date)
    (pytester.path / "tox.ini").unlink()
    (pytester.path / "pyproject.toml").write_text("[tool.pytest]\nsession_eval_since = 2026-07-25\n")
    assert pytester.runpytest("--session-eval", "eval.jsonl").ret == pytest.ExitCode.TESTS_FAILED
    assert (
        pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl").ret
        == pytest.ExitCode.OK
    )


def test_re_verification_refuses_another_journal_given_as_input(pytester: pytest.Pytester, metrics: Path) -> None:
    journal_run(pytester, metrics)
    (pytester.path / "other.jsonl").write_bytes((pytester.path / "eval.jsonl").read_bytes())
    result = pytester.runpytest(
        "--session-eval", str(metrics), "--session-eval", "other.jsonl", "--session-eval-verify", "eval.jsonl"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: --session-eval: *other.jsonl: a journal given as input; re-verification shows only the "
            "journal it re-verifies (--session-eval-verify): show this one in a run of its own"
        ]
    )
    # The journal re-verified, given as input too (by any spelling), is that same journal.
    (pytester.path / "link.jsonl").symlink_to(pytester.path / "eval.jsonl")
    for spelled in ("eval.jsonl", "link.jsonl"):
        same = pytester.runpytest(
            "--session-eval", str(metrics), "--session-eval", spelled, "--session-eval-verify", "eval.jsonl"
        )
        assert same.ret == pytest.ExitCode.OK, same.stderr.str()
    # A journal the ini file lists is left out, as its selection keys are: not even read.
    with (pytester.path / "other.jsonl").open("a") as other:
        other.write('{"broken\n')
    pytester.makeini(f"[pytest]\nsession_eval_paths = {metrics} other.jsonl\n")
    listed = pytester.runpytest("--session-eval-verify", "eval.jsonl", "-W", "error")
    assert listed.ret == pytest.ExitCode.OK, listed.stderr.str()
    assert "other.jsonl" not in listed.stdout.str()
    # and it stays an input, which no report of the run may overwrite
    overwrite = pytester.runpytest("--session-eval-verify", "eval.jsonl", "--junitxml", "other.jsonl")
    assert overwrite.ret == pytest.ExitCode.USAGE_ERROR
    overwrite.stderr.fnmatch_lines(
        ["ERROR: *--junitxml*other.jsonl is a journal given to ini key session_eval_paths in *tox.ini of this run*"]
    )
    # Typed with -o, it is refused, named as given.
    pytester.makeini("[pytest]\n")
    overridden = pytester.runpytest(
        "--session-eval-verify", "eval.jsonl", "-o", f"session_eval_paths={metrics} other.jsonl"
    )
    overridden.stderr.fnmatch_lines(
        [
            "ERROR: -o session_eval_paths: *other.jsonl: a journal given as input; re-verification shows "
            "only the journal it re-verifies (--session-eval-verify)*"
        ]
    )


def test_records_sharing_a_run_id_are_items_of_their_own_and_each_is_counted(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    journal_run(pytester, metrics)
    first, *_ = (pytester.path / "eval.jsonl").read_text().splitlines()
    drifted = json.loads(first)
    drifted["dimensions"][1]["status"] = "pass" if drifted["dimensions"][1]["status"] != "pass" else "fail"
    (pytester.path / "joined.jsonl").write_text(json.dumps(drifted) + "\n" + first + "\n")  # journals joined by hand
    collected = [
        line
        for line in pytester.runpytest(
            "--session-eval", str(metrics), "--session-eval-verify", "joined.jsonl", "--co", "-q"
        ).stdout.lines
        if "::" in line
    ]
    assert len(collected) == len(set(collected)) == 12
    assert any("@line-2[" in line for line in collected)
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "joined.jsonl")
    result.assert_outcomes(passed=11, failed=1)
    result.stdout.fnmatch_lines(
        [
            "re-verification: 9 stored verdict(s) reproduced, 1 not reproduced, 0 not re-verifiable (judge); 2 record(s)* reproduced, 0 not"
        ]
    )


@pytest.mark.parametrize("output", ["--session-eval-journal", "--session-eval-html"])
def test_an_output_never_lands_where_the_events_file_is_looked_for(
    pytester: pytest.Pytester, project_metrics: MetricsWriter, output: str
) -> None:
    metrics = project_metrics([session("a")])  # no events file yet
    result = pytester.runpytest(
        "--session-eval", "metrics", "--session-eval-model-id", "m", output, "metrics/events.jsonl"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{output}: *events.jsonl is the events.jsonl beside a sessions file of this run*"])
    assert not (metrics / "events.jsonl").exists()


def test_a_deterministic_verdict_stored_as_a_judge_verdict_is_an_invalid_record(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    journal_run(pytester, metrics)
    first, second = (json.loads(line) for line in (pytester.path / "eval.jsonl").read_text().splitlines())
    first["dimensions"][1].update(
        method="judge", advisory=True, calibration_status="uncalibrated"
    )  # plan-fidelity hidden as advice
    second["dimensions"].append(
        {
            "id": "vibes",
            "method": "judge",
            "status": "pass",
            "evidence": "",
            "advisory": True,
            "calibration_status": "uncalibrated",
        }
    )
    (pytester.path / "altered.jsonl").write_text(json.dumps(first) + "\n" + json.dumps(second) + "\n")
    for args in (
        ("--session-eval", "altered.jsonl"),
        ("--session-eval", str(metrics), "--session-eval-verify", "altered.jsonl"),
    ):
        result = pytester.runpytest(*args, "-rf")
        result.assert_outcomes(failed=2)
        result.stdout.fnmatch_lines_random(
            [
                "*altered.jsonl::line-1?invalid-record?*",
                "*altered.jsonl::line-2?invalid-record?*",
            ]
        )
        assert result.ret == pytest.ExitCode.TESTS_FAILED
    detail = pytester.runpytest("--session-eval", "altered.jsonl")
    detail.stdout.fnmatch_lines_random(
        [
            "*dimensions[[]1[]]: 'plan-fidelity' is a deterministic dimension of rubric-v1, stored as a judge verdict*",
            "*dimensions[[]5[]]: 'vibes' is not a judge dimension rubric-v1 pre-registers*",
        ]
    )


def test_a_journal_as_input_is_summed_up_under_the_rubric_its_records_name(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    journal_run(pytester, metrics)
    records = [json.loads(line) for line in (pytester.path / "eval.jsonl").read_text().splitlines()]
    later = [dict(record, run_id=record["run_id"] + "-later", rubric_version="rubric-v9") for record in records]
    (pytester.path / "mixed.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [*records, *later]))
    pytester.runpytest("--session-eval", "mixed.jsonl").stdout.fnmatch_lines(["rubric-v9: 2 session(s) scored"])
    pytester.runpytest("--session-eval", "mixed.jsonl", "--session-eval", str(metrics)).stdout.fnmatch_lines(
        ["rubric-v1, rubric-v9: 4 session(s) scored*"]
    )


def test_a_rubric_version_from_a_journal_is_one_line_of_the_summary(pytester: pytest.Pytester, metrics: Path) -> None:
    journal_run(pytester, metrics)
    record = json.loads((pytester.path / "eval.jsonl").read_text().splitlines()[0])
    record["rubric_version"] = "rubric-v1: 999 session(s) scored\nfake"
    (pytester.path / "odd.jsonl").write_text(json.dumps(record) + "\n")
    result = pytester.runpytest("--session-eval", "odd.jsonl")
    result.stdout.fnmatch_lines(["rubric-v1: 999 session(s) scored\\x0afake: 1 session(s) scored"])
    assert not any(line.startswith("fake") for line in result.stdout.lines)


def test_the_plugins_load_where_fcntl_is_missing_and_a_journal_run_says_why_it_cannot_append(
    pytester: pytest.Pytester, metrics: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads = "import sys; sys.modules['fcntl'] = None; import pytest_sessioneval.plugin.hooks, pytest_sessioneval.policy.plugin.hooks"
    assert subprocess.run([sys.executable, "-c", loads], capture_output=True, text=True).stderr == ""
    monkeypatch.setitem(sys.modules, "fcntl", None)
    result = pytester.runpytest(
        "--session-eval", str(metrics), "--session-eval-journal", "eval.jsonl", "--session-eval-model-id", "m"
    )
    result.stdout.fnmatch_lines(["*need POSIX file locking (fcntl)*"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED and "Traceback" not in result.stdout.str() + result.stderr.str()


def test_an_invalid_record_and_a_run_id_spelling_its_name_get_node_ids_of_their_own(pytester: pytest.Pytester) -> None:
    spelled = reference_record(
        run_id="line-2",
        dimensions=[{"id": "invalid-record", "method": "deterministic", "status": "pass", "evidence": "e"}],
    )
    (pytester.path / "eval.jsonl").write_text(json.dumps(spelled) + "\n" + '{"record_kind": "session-eval"}\n')
    result = pytester.runpytest("-p", "no:cacheprovider", "--session-eval", "eval.jsonl", "-v")
    ids = [line.split(" ")[0] for line in result.outlines if line.startswith("eval.jsonl::")]
    assert sorted(ids) == ["eval.jsonl::line-2[invalid-record]", "eval.jsonl::line-2~1[invalid-record]"]
    result.assert_outcomes(passed=1, failed=1)


@pytest.mark.parametrize("mode", ["--session-eval-verify", "--session-eval"])
def test_notes_in_a_journal_are_no_items_and_are_named_in_the_summary(
    pytester: pytest.Pytester, metrics: Path, mode: str
) -> None:
    # A journal takes records after notes and records of other kinds; reading it back
    # must not turn those into failed items.
    (pytester.path / "eval.jsonl").write_text('{"note": "hello"}\n{"record_kind": "other", "run_id": "x"}\n')
    journal_run(pytester, metrics)
    args = (
        ["--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl"]
        if mode == "--session-eval-verify"
        else ["--session-eval", "eval.jsonl"]
    )
    result = pytester.runpytest(*args)
    if mode == "--session-eval-verify":
        result.assert_outcomes(passed=13)  # and the run's seal: the notes before it are no part of it
    else:
        result.assert_outcomes(passed=4, failed=2, skipped=4)  # as scored, b failing two dimensions
    assert "invalid-record" not in result.stdout.str()
    result.stdout.fnmatch_lines(["eval.jsonl: 2 line(s) holding no session-eval record (*) looked past: lines 1, 2"])


@pytest.mark.parametrize(("content", "looked_past"), [("", False), ("\n\n", False), ('{"note": "hello"}\n', True)])
def test_re_verifying_a_journal_without_a_record_says_so(
    pytester: pytest.Pytester, metrics: Path, content: str, looked_past: bool
) -> None:
    # Nothing to re-verify collects nothing: the summary says why, not pytest's bare "no tests ran".
    (pytester.path / "eval.jsonl").write_text(content)
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(["*= session evaluation =*", "eval.jsonl: no session-eval record to re-verify"])
    assert ("looked past: line 1" in result.stdout.str()) is looked_past


@pytest.mark.parametrize(
    ("content", "refused"),
    [
        ("<!doctype html><html></html>\n", True),  # a page, say, left at the path given
        ('{"session_id": "x"}\n', True),  # a sessions file of another run
        ('{"event": "orchestrator.wave.started"}\n', True),  # an events file of another run
        ('{"id": "a", "prompt_or_scenario": "p"}\n', True),  # a policy envelope set
        ('{"scenario_id": "a", "decision": "delegate"}\n', True),  # policy decisions
        ('[\n  {\n    "id": "a"\n  }\n]\n', True),  # a golden set: a JSON array over lines
        ('\n{\n  "min_records": 2\n}\n', True),  # a manifest: an object over lines
        ('[\n{"id": "a", "group": "g"},\n{"id": "b", "group": "g"}\n]\n', True),  # a golden set, a case a line
        ('{"min_records": 2,\n "description": "x"\n}\n', True),  # a manifest opening with a key
        ('{"record_kind":"session-eval","run_id":"x\n{"note": "after a torn record"}\n', False),
        ('{"note": "kept by hand"}\n', False),  # a journal begun with a note
        ('{"record_kind":"session-eval","run_id":"x', False),  # a journal of one record a crash left torn
        ("", False),
        ("\n\n", False),
        ("torn line\n" + json.dumps(reference_record()) + "\n", False),  # a journal with a torn first line
    ],
)
def test_records_are_appended_only_to_a_journal_or_a_new_file(
    pytester: pytest.Pytester, metrics: Path, content: str, refused: bool
) -> None:
    (pytester.path / "out.txt").write_text(content)
    result = pytester.runpytest(
        "--session-eval", str(metrics), "--session-eval-journal", "out.txt", "--session-eval-model-id", "m"
    )
    if refused:
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines(["ERROR: --session-eval-journal: *out.txt: exists and is not an eval journal*"])
        assert (pytester.path / "out.txt").read_text() == content
    else:
        assert result.ret == pytest.ExitCode.TESTS_FAILED  # session b fails plan-fidelity
        assert (pytester.path / "out.txt").read_text().startswith(content + ("\n" if content.endswith("x") else ""))
        records = [line for line in (pytester.path / "out.txt").read_text().splitlines() if line.startswith("{")]
        assert sum('"session_id":"a"' in line for line in records) == 1


# A process that takes the journal's lock (as `flock eval.jsonl sleep 40` does), says so, and keeps it.
_HOLDER = """
import fcntl, sys, time
with open(sys.argv[1], "a") as held:
    fcntl.flock(held, fcntl.LOCK_EX)
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def _hold_lock(path: Path, seconds: float) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(path), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
    return holder


def _journal_state(pytester: pytest.Pytester) -> tuple[bytes, bytes]:
    return tuple((pytester.path / name).read_bytes() for name in ("eval.jsonl", "eval.jsonl.seal"))  # type: ignore[return-value]


def test_a_journal_lock_held_elsewhere_is_waited_for_then_the_run_fails_with_nothing_appended(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    journal_run(pytester, metrics)
    before = _journal_state(pytester)
    holder = _hold_lock(pytester.path / "eval.jsonl", 60)
    try:
        result = journal_run(
            pytester, metrics, "--session-eval-journal-lock-timeout", "1.5", "-q", stamp="2026-08-02T00:00:00Z"
        )
    finally:
        holder.kill()
        holder.wait()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*[[]100%[]]",  # the progress (-q names no file on its line), then on a line of its own:
            "session evaluation: waiting for the lock on the journal eval.jsonl, which another process holds "
            "(up to 1.5 s: --session-eval-journal-lock-timeout)",
            "ERROR: cannot append to the journal *eval.jsonl: another process held its lock for 1.5 s; nothing was "
            "appended (--session-eval-journal-lock-timeout sets how long to wait)",
        ]
    )
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    assert _journal_state(pytester) == before


def test_a_journal_lock_released_in_time_lets_the_run_append(pytester: pytest.Pytester, metrics: Path) -> None:
    pytester.makeini("[pytest]\nsession_eval_journal_lock_timeout = 20\n")
    holder = _hold_lock(pytester.path / "eval.jsonl", 3)  # (the run waits once it has scored: over a second)
    try:
        result = journal_run(pytester, metrics)
    finally:
        holder.wait()
    result.stdout.fnmatch_lines(
        [
            "*waiting for the lock on the journal eval.jsonl, which another process holds (up to 20 s: ini key "
            "session_eval_journal_lock_timeout in *tox.ini)",
            "journal eval.jsonl: 2 record(s) appended, 0 already present",
        ]
    )


@pytest.mark.parametrize("value", ["-1", "soon", "nan", "86401"])
def test_a_journal_lock_timeout_that_is_no_number_of_seconds_is_a_usage_error(
    pytester: pytest.Pytester, metrics: Path, value: str
) -> None:
    result = journal_run(pytester, metrics, "--session-eval-journal-lock-timeout", value)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --session-eval-journal-lock-timeout: '{value}' is not a number of seconds*"])


_FULL_DISK = """
import errno, os

_write = os.write


def _full(fd, data):
    if os.path.basename(os.readlink(f"/proc/self/fd/{fd}")) == "eval.jsonl":
        if len(data) > 1:
            _write(fd, bytes(data[: len(data) // 2]))  # part of it fits
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return _write(fd, data)


def pytest_collection_finish(session):
    os.write = _full
"""


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="names descriptors through /proc")
def test_a_full_disk_fails_the_run_and_leaves_the_journal_as_it_was(pytester: pytest.Pytester, metrics: Path) -> None:
    journal_run(pytester, metrics)
    before = _journal_state(pytester)
    pytester.makeconftest(_FULL_DISK)
    result = pytester.runpytest_subprocess(
        "--session-eval",
        str(metrics),
        "--session-eval-journal",
        "eval.jsonl",
        "--session-eval-model-id",
        "m",
        "--session-eval-timestamp",
        "2026-08-02T00:00:00Z",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "ERROR: cannot append to the journal *eval.jsonl: [[]Errno 28[]] No space left on device; nothing was appended*"
        ]
    )
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    assert _journal_state(pytester) == before


def _verify(pytester: pytest.Pytester, metrics: Path, *extra: str) -> pytest.RunResult:
    return pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl", *extra)


def test_each_run_is_sealed_and_verified_by_an_item_and_the_chain_head_is_shown(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    first = journal_run(pytester, metrics)
    second = journal_run(pytester, metrics, stamp="2026-08-02T00:00:00Z")
    seal = (pytester.path / "eval.jsonl.seal").read_bytes().splitlines(keepends=True)
    heads = [hashlib.sha256(b"".join(seal[:n][-1:])).hexdigest() for n in (1, 2)]
    first.stdout.fnmatch_lines([f"eval.jsonl.seal: line 1 seals them; chain head {heads[0]}"])
    second.stdout.fnmatch_lines([f"eval.jsonl.seal: line 2 seals them; chain head {heads[1]}"])
    result = _verify(pytester, metrics, "-v")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "eval.jsonl::seal-1 PASSED*",
            "eval.jsonl::seal-2 PASSED*",
            "re-verification: * 2 sealed run(s) intact, 0 not",
            f"eval.jsonl.seal: 2 sealed run(s); chain head {heads[1]}, of line 2 "
            "(sed -n 2p eval.jsonl.seal | sha256sum gives it*",
        ]
    )


def test_a_record_deleted_from_a_sealed_run_fails_that_runs_seal_item(pytester: pytest.Pytester, metrics: Path) -> None:
    journal_run(pytester, metrics)
    journal_run(pytester, metrics, stamp="2026-08-02T00:00:00Z")
    lines = (pytester.path / "eval.jsonl").read_bytes().splitlines(keepends=True)
    (pytester.path / "eval.jsonl").write_bytes(lines[0] + b"".join(lines[2:]))  # run 1 loses session b
    result = _verify(pytester, metrics)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=19, failed=1)  # the first run's seal; every verdict left reproduces
    result.stdout.fnmatch_lines(
        [
            "eval.jsonl.seal:1: seal line 1, the run of 2026-08-01T00:00:00.000Z, 2 record(s): broken",
            "*the journal holds 1 line(s) (line 1) for 2 sealed record(s): a record was deleted",
            "FAILED eval.jsonl::seal-1*",
        ]
    )


def test_a_copy_of_a_sealed_record_after_the_last_run_is_named_and_fails_its_run(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    journal_run(pytester, metrics)
    lines = (pytester.path / "eval.jsonl").read_bytes().splitlines(keepends=True)
    with open(pytester.path / "eval.jsonl", "ab") as journal:
        journal.write(lines[1])
    result = _verify(pytester, metrics)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*(line 3 repeats line 2): a record was duplicated",
            "eval.jsonl: 1 line(s) no seal covers (appended by another tool, or after the last sealed run), whose "
            "completeness cannot be checked: line 3; of them, a copy of a sealed record: line 3 repeats 2",
        ]
    )


def test_records_another_tool_appended_are_unsealed_not_tampering(pytester: pytest.Pytester, metrics: Path) -> None:
    journal_run(pytester, metrics)
    # Another tool appends records of its own between two sealed runs (and a note).
    other = journal_run(pytester, metrics, stamp="2026-08-03T00:00:00Z")
    assert other.ret == pytest.ExitCode.TESTS_FAILED  # (b fails its dimensions; written all the same)
    lines = (pytester.path / "eval.jsonl").read_bytes().splitlines(keepends=True)
    seal = (pytester.path / "eval.jsonl.seal").read_bytes().splitlines(keepends=True)
    (pytester.path / "eval.jsonl.seal").write_bytes(seal[0])  # as if another tool had written lines 3 and 4
    with open(pytester.path / "eval.jsonl", "ab") as journal:
        journal.write(b'{"note": "by hand"}\n')
    journal_run(pytester, metrics, stamp="2026-08-02T00:00:00Z")
    assert len(lines) == 4
    result = _verify(pytester, metrics)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "re-verification: * 2 sealed run(s) intact, 0 not",
            "eval.jsonl: 3 line(s) no seal covers (*), whose completeness cannot be checked: lines 3, 4, 5",
        ]
    )


def test_a_journal_without_a_seal_verifies_as_before_with_a_note(pytester: pytest.Pytester, metrics: Path) -> None:
    journal_run(pytester, metrics)
    (pytester.path / "eval.jsonl.seal").unlink()
    result = _verify(pytester, metrics)
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=12)
    result.stdout.fnmatch_lines(
        ["eval.jsonl: no seal (eval.jsonl.seal), so a record deleted or duplicated cannot be told: its completeness*"]
    )


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_a_seal_path_that_is_no_file_is_said_clearly_and_never_waited_on(
    pytester: pytest.Pytester, metrics: Path, kind: str
) -> None:
    journal_run(pytester, metrics)
    seal = pytester.path / "eval.jsonl.seal"
    seal.unlink()
    if kind == "fifo":
        os.mkfifo(seal)
    else:
        seal.mkdir()
    result = _verify(pytester, metrics)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=12, failed=1)
    result.stdout.fnmatch_lines(
        [
            "eval.jsonl.seal: the journal's seal cannot be read, so its completeness cannot be checked",
            "*eval.jsonl.seal: not a file",
            "FAILED eval.jsonl::seal *",
        ]
    )
    appended = journal_run(pytester, metrics, stamp="2026-08-02T00:00:00Z")
    assert appended.ret == pytest.ExitCode.USAGE_ERROR
    appended.stderr.fnmatch_lines(["ERROR: --session-eval-journal: *eval.jsonl.seal: not a file; the journal's seal*"])
    assert "Traceback" not in appended.stdout.str() + appended.stderr.str()


def test_a_gzip_journal_is_verified_but_never_appended_to(pytester: pytest.Pytester, metrics: Path) -> None:
    journal_run(pytester, metrics)
    plain = pytester.path / "eval.jsonl"
    packed = pytester.path / "packed.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    (pytester.path / "packed.jsonl.gz.seal").write_bytes((pytester.path / "eval.jsonl.seal").read_bytes())
    before = packed.read_bytes()
    verified = pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "packed.jsonl.gz")
    assert verified.ret == pytest.ExitCode.OK
    verified.stdout.fnmatch_lines(["re-verification: *; 1 sealed run(s) intact, 0 not"])
    result = pytester.runpytest(
        *("--session-eval", str(metrics), "--session-eval-journal", "packed.jsonl.gz"),
        *("--session-eval-model-id", "claude-opus-4", "--session-eval-timestamp", "2026-08-02T00:00:00Z"),
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --session-eval-journal: *packed.jsonl.gz: a gzip-compressed journal; records are appended only to*"]
    )
    assert packed.read_bytes() == before


def test_ctrl_c_while_the_journal_lock_is_waited_for_appends_nothing_and_says_so(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    journal_run(pytester, metrics)
    before = _journal_state(pytester)
    holder = _hold_lock(pytester.path / "eval.jsonl", 60)
    run = subprocess.Popen(
        [
            *(sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--session-eval", str(metrics)),
            *("--session-eval-journal", "eval.jsonl", "--session-eval-model-id", "m"),
        ],
        cwd=pytester.path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert run.stdout is not None
        seen = []
        for line in run.stdout:  # until it says it waits
            seen.append(line)
            if "waiting for the lock" in line:
                break
        run.send_signal(signal.SIGINT)
        out = "".join(seen) + run.stdout.read()
        assert run.wait(timeout=30) == pytest.ExitCode.INTERRUPTED, out
    finally:
        run.kill()
        holder.kill()
        holder.wait()
    assert "ERROR: interrupted while appending to the journal eval.jsonl; nothing was appended" in out, out
    assert "Traceback" not in out
    assert _journal_state(pytester) == before


def _limit_file_size(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead


def test_a_file_size_limit_fails_the_run_and_leaves_the_journal_as_it_was(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    journal_run(pytester, metrics)
    before = _journal_state(pytester)
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--session-eval", str(metrics)),
            *("--session-eval-journal", "eval.jsonl", "--session-eval-model-id", "m"),
        ],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        preexec_fn=partial(_limit_file_size, len(before[0]) + 1000),  # room for part of the records
    )
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout + done.stderr
    assert (
        "ERROR: cannot append to the journal" in done.stdout
        and "[Errno 27] File too large; nothing was appended" in done.stdout
    )
    assert "Traceback" not in done.stdout + done.stderr
    assert _journal_state(pytester) == before
