"""What a judge answers, however odd: kept to its own session under pytest-xdist."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from builders import MetricsWriter, gate, session, write_raw_lines

WORKERS = [pytest.param((), id="serial"), pytest.param(("-n", "2"), id="xdist")]


@pytest.fixture
def metrics(project_metrics: MetricsWriter) -> Path:
    return project_metrics(
        [
            session("a", total_files_changed=1, effectiveness={"completion_rate": 1.0}),
            session("b", "2026-07-21T09:00:00Z", "2026-07-21T10:00:00Z", total_files_changed=1),
        ],
        [gate("2026-07-20T09:30:00Z", 0, "full-gate"), gate("2026-07-21T09:30:00Z", 0, "full-gate")],
    )


def needs_xdist(workers: tuple[str, ...]) -> None:
    if workers:
        pytest.importorskip("xdist")


def crashed(result: pytest.RunResult) -> bool:
    text = result.stdout.str() + result.stderr.str()
    return "INTERNALERROR" in text or "Traceback" in text or "DumpError" in text


def journal(pytester: pytest.Pytester) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (pytester.path / "eval.jsonl").read_text().splitlines()]


JOURNAL = ("--session-eval-journal", "eval.jsonl", "--session-eval-model-id", "m")

# ---------------------------------------------------------------------------------------------
# Two sessions whose ids only a lone surrogate tells apart keep their own judge verdicts


@pytest.mark.parametrize("workers", WORKERS)
def test_judge_verdicts_of_sessions_told_apart_by_a_lone_surrogate_stay_their_own(
    pytester: pytest.Pytester, workers: tuple[str, ...]
) -> None:
    needs_xdist(workers)
    pytester.makeini("[pytest]\n")
    lone, spelt = "x\ud800", "x\\ud800"  # a lone surrogate, and the text of its escape
    write_raw_lines(
        pytester.path / "metrics" / "sessions.jsonl",
        *(json.dumps(session(sid, total_files_changed=1)) for sid in (lone, spelt)),
    )
    write_raw_lines(
        pytester.path / "metrics" / "events.jsonl", json.dumps(gate("2026-07-20T09:30:00Z", 0, "full-gate"))
    )
    pytester.makeconftest(
        "def pytest_sessioneval_judge(record):\n"
        "    status = 'fail' if record['session_id'] == 'x\\ud800' else 'pass'\n"
        "    return [{'id': 'report-quality', 'status': status, 'evidence': status}]\n"
    )
    result = pytester.runpytest(
        "--session-eval",
        "metrics",
        "--session-eval-judge",
        *JOURNAL,
        "-m",
        "judge",
        "-rA",
        "-p",
        "no:randomly",
        *workers,
    )
    assert not crashed(result)
    result.assert_outcomes(passed=1, xfailed=1)
    # The journal says what the terminal says: one pass, one fail.
    statuses = {
        record["session_id"]: [d["status"] for d in record["dimensions"] if d["id"] == "report-quality"]
        for record in journal(pytester)
    }
    assert statuses == {lone: ["fail"], spelt: ["pass"]}
    result.stdout.fnmatch_lines_random(["report-quality *1     1               0                 0"])
    # Each item shows its own session's verdict: the escaped surrogate fails, the escaped backslash passes.
    result.stdout.fnmatch_lines_random(
        ["XFAIL *sessions.jsonl::x\\ud800?report-quality?*", "PASSED *sessions.jsonl::x\\\\ud800?report-quality?*"]
    )
