"""Date filters and how sessions spread over pytest-xdist workers."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

import pytest
from builders import MetricsWriter, session, write_jsonl, write_raw_lines


@pytest.fixture
def metrics(project_metrics: MetricsWriter) -> Path:
    return project_metrics(
        [
            session("june", "2026-06-30T23:59:59.999Z", "2026-07-01T01:00:00Z"),
            session("july-1", "2026-07-01T00:00:00Z", "2026-07-01T01:00:00Z"),
            session("july-31", "2026-07-31T23:59:59Z", "2026-08-01T01:00:00Z"),
            session("august", "2026-08-01T00:00:00+00:00", "2026-08-01T01:00:00Z"),
            session("no-start", None, "2026-08-01T01:00:00Z") | {"started_at": "unknown"},
        ],
    )


def scored(result: pytest.RunResult) -> list[str]:
    return sorted({line.split("::")[1].split("[")[0] for line in result.stdout.lines if "::" in line})


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([], ["august", "july-1", "july-31", "june", "no-start"]),
        (["--session-eval-since", "2026-07-01"], ["august", "july-1", "july-31"]),
        (["--session-eval-until", "2026-07-31"], ["july-1", "july-31", "june"]),
        (["--session-eval-since", "2026-07-01", "--session-eval-until", "2026-07-31"], ["july-1", "july-31"]),
        (["--session-eval-since", "2026-07-01T00:00:00.001Z"], ["august", "july-31"]),
        (["--session-eval-until", "2026-07-31T23:59:58Z"], ["july-1", "june"]),
        (["--session-eval-until", "2026-07-31T23:59:59Z"], ["july-1", "july-31", "june"]),  # the instant itself is in
    ],
)
def test_since_and_until_filter_on_started_at(
    pytester: pytest.Pytester, metrics: Path, args: list[str], expected: list[str]
) -> None:
    result = pytester.runpytest("--session-eval", str(metrics), "--co", "-q", *args)
    assert scored(result) == expected


def test_since_and_until_as_ini_keys(pytester: pytest.Pytester, metrics: Path) -> None:
    pytester.makeini("[pytest]\nsession_eval_since = 2026-07-01\nsession_eval_until = 2026-07-31\n")
    assert scored(pytester.runpytest("--session-eval", str(metrics), "--co", "-q")) == ["july-1", "july-31"]
    assert scored(
        pytester.runpytest("--session-eval", str(metrics), "--co", "-q", "--session-eval-until", "2026-08-01")
    ) == ["august", "july-1", "july-31"]


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_the_summary_counts_the_sessions_the_date_range_left_out(
    pytester: pytest.Pytester, metrics: Path, workers: tuple[str, ...]
) -> None:
    if workers:
        pytest.importorskip("xdist")
    some = pytester.runpytest(
        "--session-eval",
        str(metrics),
        "--session-eval-since",
        "2026-07-01",
        "--session-eval-until",
        "2026-07-31",
        *workers,
    )
    some.assert_outcomes(skipped=4, xfailed=6)
    some.stdout.fnmatch_lines(
        [
            "rubric-v1: 2 session(s) scored",
            "*metrics/sessions.jsonl: 3 session record(s) left out by the date range since 2026-07-01 until 2026-07-31 "
            "(--session-eval-since, --session-eval-until): they started outside it, or their started_at does not parse",
        ]
    )
    # Every session outside the range: pytest's "no tests ran" alone would not say why.
    none = pytester.runpytest("--session-eval", str(metrics), "--session-eval-since", "2027-01-01", *workers)
    assert none.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    none.stdout.fnmatch_lines(
        [
            "*= session evaluation =*",
            "*metrics/sessions.jsonl: 5 session record(s) left out by the date range since 2027-01-01 (--session-eval-since): *",
        ]
    )
    every = pytester.runpytest("--session-eval", str(metrics), *workers)
    every.stdout.no_fnmatch_line("*left out*")


def test_the_summary_names_what_left_a_sessions_file_without_items(
    pytester: pytest.Pytester, write_metrics: MetricsWriter
) -> None:
    first = write_metrics(
        [session("a"), {"status": "completed", "started_at": "2026-01-01T00:00:00Z"}], [], directory="first"
    )
    second = write_metrics([session("b")], [], directory="second")
    pytester.makeini("[pytest]\nsession_eval_since = 2026-07-01\n")
    # a record without a session id is counted among those the range left out
    dated = pytester.runpytest(f"--session-eval={first}")
    dated.stdout.fnmatch_lines(
        [
            "*first/sessions.jsonl: 1 session record(s) left out by the date range since 2026-07-01 (ini key session_eval_since in *): *"
        ]
    )
    # the sessions named are in another file: that one holds records all the same
    named = pytester.runpytest(f"--session-eval={first}", f"--session-eval={second}", "--session-eval-session", "a")
    named.stdout.fnmatch_lines(["*second/sessions.jsonl: none of its sessions is named by --session-eval-session"])
    named.stdout.no_fnmatch_line("*no session record to score*")


@pytest.mark.parametrize("content", [b"", b"\n\n", b"{broken\n[1]\n"], ids=["empty", "blank", "unusable"])
def test_a_sessions_file_without_a_record_says_so(pytester: pytest.Pytester, content: bytes) -> None:
    pytester.makeini("[pytest]\n")
    (pytester.path / "sessions.jsonl").write_bytes(content)
    result = pytester.runpytest("--session-eval", "sessions.jsonl", "-W", "ignore::pytest.PytestWarning")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(["*= session evaluation =*", "sessions.jsonl: no session record to score"])
    assert ("unusable input line(s) skipped" in result.stdout.str()) == (content.startswith(b"{"))


def test_a_sessions_items_stay_on_one_worker(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    pytester.makeini("[pytest]\n")
    write_jsonl(
        pytester.path / "sessions.jsonl",
        [session(f"s{i:02d}", f"2026-07-{i + 1:02d}T09:00:00Z", f"2026-07-{i + 1:02d}T10:00:00Z") for i in range(12)],
    )
    result = pytester.runpytest_subprocess(
        "--session-eval", "sessions.jsonl", "-n", "2", "--dist", "loadgroup", "-v", "-rA"
    )
    # Reports carry the node ids of a run without xdist: no group tag, no stray bracket.
    summary = [
        line.split(" - ")[0] for line in result.stdout.lines if line.startswith(("PASSED ", "XFAIL ")) and "::" in line
    ]
    assert summary and all(re.fullmatch(r"\w+ sessions\.jsonl::s\d+\[[a-z-]+\]", line) for line in summary), summary[:3]
    workers: dict[str, set[str]] = defaultdict(set)
    for line in result.stdout.lines:
        match = re.match(r"\[(gw\d+)\].*sessions\.jsonl::(s\d+)\[", line)
        if match:
            workers[match.group(2)].add(match.group(1))
    assert len(workers) == 12
    assert all(len(on) == 1 for on in workers.values()), workers
    assert len({w for on in workers.values() for w in on}) == 2


@pytest.mark.parametrize("first", [(), ("-n", "2", "--dist", "loadgroup")], ids=["serial-first", "loadgroup-first"])
def test_last_failed_carries_over_between_serial_and_loadgroup_runs(
    pytester: pytest.Pytester, first: tuple[str, ...]
) -> None:
    pytest.importorskip("xdist")
    pytester.makeini("[pytest]\n")
    write_jsonl(
        pytester.path / "sessions.jsonl",
        [
            session("good", "2026-07-01T09:00:00Z", "2026-07-01T10:00:00Z"),
            session("bad", "2026-07-02T09:00:00Z", "2026-07-02T10:00:00Z")
            | {"effectiveness": {"completion_rate": 0.1}},
        ],
    )
    then = ("-n", "2", "--dist", "loadgroup") if not first else ()
    assert pytester.runpytest_subprocess("--session-eval", "sessions.jsonl", *first).parseoutcomes()["failed"] == 1
    rerun = pytester.runpytest_subprocess("--session-eval", "sessions.jsonl", "--lf", "-rf", *then)
    rerun.assert_outcomes(failed=1)
    rerun.stdout.fnmatch_lines(["FAILED sessions.jsonl::bad?plan-fidelity?*"])
    ordered = pytester.runpytest_subprocess("--session-eval", "sessions.jsonl", "--ff", "-v", "-p", "no:xdist")
    assert next(line for line in ordered.stdout.lines if "::" in line).startswith(
        "sessions.jsonl::bad[plan-fidelity] FAILED"
    )


def test_lone_surrogates_in_the_data_travel_to_and_from_xdist_workers(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    write_raw_lines(
        pytester.path / "m" / "sessions.jsonl",
        '{"session_id":"\\ud800","status":"completed","started_at":"\\udc00"}',
        '{"session_id":"gone\\udfff","status":"abandoned"}',
    )
    (pytester.path / "conftest.py").write_text(
        "def pytest_sessioneval_judge(record):\n"
        "    return [{'id': 'report-quality', 'status': 'pass', 'evidence': 'seen \\ud800'}]\n"
    )
    common = (
        "--session-eval",
        "m",
        "--session-eval-judge",
        "-rA",
        "--session-eval-html",
        "r.html",
        "--session-eval-timestamp",
        "2026-08-01T00:00:00Z",
    )
    serial = pytester.runpytest(*common)
    serial_page = (pytester.path / "r.html").read_text()
    spread = pytester.runpytest(*common, "-n", "2")
    for result in (serial, spread):
        assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
        result.assert_outcomes(passed=1, skipped=4, xfailed=2)
    # The controller matches what the workers ran to its own sessions: the page is the same.
    assert (pytester.path / "r.html").read_text() == serial_page and "Sessions (1)" in serial_page
    spread.stdout.fnmatch_lines(["PASSED m/sessions.jsonl::\\ud800?report-quality?"])


def _lines_not_of_xdist(longrepr: object) -> list[str]:
    """A json-report longrepr's lines, without the "[gw0] linux -- Python ..." line xdist adds."""
    return [line for line in str(longrepr or "").strip().splitlines() if not re.match(r"\[gw\d+\] ", line)]


def test_a_lone_surrogate_in_reported_text_reads_the_same_serially_and_under_xdist(pytester: pytest.Pytester) -> None:
    # A session id with one overlaps another session: the peer's name lands in reasons and
    # failure texts, which xdist carries as the escape's text; a serial run writes the same.
    pytest.importorskip("xdist")
    window = '"started_at":"2026-07-20T09:00:00Z","completed_at":"2026-07-20T10:00:00Z"'
    write_raw_lines(
        pytester.path / "m" / "sessions.jsonl",
        '{"session_id":"a\\ud800","status":"completed",' + window + ',"total_files_changed":1}',
        '{"session_id":"b","status":"completed",' + window + ',"agent_summary":{"spiral":2}}',
    )
    (pytester.path / "m" / "events.jsonl").write_text(
        '{"event":"orchestrator.wave.started","timestamp":"2026-07-20T09:05:00Z"}\n'
    )
    (pytester.path / "conftest.py").write_text(  # a judge's advice, xfailed without running
        "def pytest_sessioneval_judge(record):\n"
        "    return [{'id': 'report-quality', 'status': 'fail', 'evidence': 'vague \\ud800'}]\n"
    )
    texts, longreprs = {}, {}
    for name, extra in (("serial", ()), ("spread", ("-n", "2"))):
        result = pytester.runpytest(
            "--session-eval",
            "m",
            "--session-eval-judge",
            f"--junitxml={name}.xml",
            "-rA",
            "--json-report",
            f"--json-report-file={name}.json",
            *extra,
        )
        assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
        cases = ET.parse(pytester.path / f"{name}.xml").getroot().iter("testcase")
        texts[name] = sorted(
            (case.get("name"), child.tag, child.get("message"), child.text)
            for case in cases
            for child in case
            if child.tag in ("failure", "skipped")
        )
        assert any("overlaps 1 other session (a\\ud800)" in (message or "") for _, _, message, _ in texts[name])
        report = json.loads((pytester.path / f"{name}.json").read_text())
        longreprs[name] = {  # the lines of the longreprs that quote a verdict naming the surrogate
            line.strip()
            for test in report["tests"]
            for stage in ("setup", "call")
            if stage in test
            for line in _lines_not_of_xdist(test[stage].get("longrepr"))
            if ("advisory" in line or "overlaps" in line) and ("ud800" in line or "\ud800" in line)
        }
        assert any("vague \\ud800" in line for line in longreprs[name])
    assert texts["serial"] == texts["spread"]
    assert longreprs["serial"] == longreprs["spread"]


def test_the_latest_session_outside_the_date_range_is_said_so(pytester: pytest.Pytester, metrics: Path) -> None:
    result = pytester.runpytest(
        "--session-eval", str(metrics), "--session-eval-latest", "--session-eval-until", "2000-01-01"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: --session-eval-latest: *sessions.jsonl: the latest eligible session (line *) started outside the selected date range"
        ]
    )


def test_each_sessions_file_gives_its_own_latest_session_and_one_without_is_said_so(
    pytester: pytest.Pytester, project_metrics: MetricsWriter
) -> None:
    project_metrics([session("july", "2026-07-20T09:00:00Z")], directory="july")
    project_metrics([session("june", "2026-06-20T09:00:00Z"), session("gone", status="abandoned")], directory="june")
    both = pytester.runpytest("--session-eval", "july", "--session-eval", "june", "--session-eval-latest", "--co", "-q")
    assert {line.split("::")[1].split("[")[0] for line in both.stdout.lines if "::" in line} == {"july", "june"}
    # The range leaves out June's latest session: July's still runs, and the summary says why June gives none.
    ranged = pytester.runpytest(
        "--session-eval",
        "july",
        "--session-eval",
        "june",
        "--session-eval-latest",
        "--session-eval-since",
        "2026-07-01",
    )
    assert ranged.ret == pytest.ExitCode.OK
    ranged.assert_outcomes(skipped=3, xfailed=2)
    ranged.stdout.fnmatch_lines(
        [
            "june/sessions.jsonl: --session-eval-latest scores none of its sessions: the latest eligible session (line 1) "
            "started outside the selected date range"
        ]
    )
    # None of them has one: a usage error naming each.
    none = pytester.runpytest(
        "--session-eval",
        "july",
        "--session-eval",
        "june",
        "--session-eval-latest",
        "--session-eval-since",
        "2026-08-01",
    )
    assert none.ret == pytest.ExitCode.USAGE_ERROR
    none.stderr.fnmatch_lines(
        [
            "ERROR: --session-eval-latest: *july*sessions.jsonl: the latest eligible session (line 1) started outside*; *june*sessions.jsonl: *"
        ]
    )
