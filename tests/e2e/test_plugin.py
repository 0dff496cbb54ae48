"""End-to-end: pytest runs with --session-eval as a user would run it."""

from __future__ import annotations

import json
import os
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from builders import (
    EXAMPLES,
    NOISY_TEARDOWN,
    MetricsWriter,
    gate,
    metrics_writer,
    session,
    write_jsonl,
)


@pytest.fixture
def write_metrics(project_metrics: MetricsWriter) -> MetricsWriter:
    return project_metrics


DIMENSIONS = ["verification-evidence", "plan-fidelity", "gate-health", "process-safety", "efficiency-kpis"]


def one_of_each(write_metrics: MetricsWriter) -> Path:
    """s-pass: all graded dimensions pass; s-fail: all fail; s-na: not applicable; s-cd: cannot-determine."""
    sessions = [
        session(
            "s-pass",
            "2026-07-20T09:00:00Z",
            "2026-07-20T10:00:00Z",
            total_files_changed=2,
            total_waves=1,
            waves=[{}],
            effectiveness={"completion_rate": 0.9},
        ),
        session(
            "s-fail",
            "2026-07-21T09:00:00Z",
            "2026-07-21T10:00:00Z",
            total_files_changed=2,
            total_waves=1,
            waves=[{}],
            effectiveness={"completion_rate": 0.2},
        ),
        session("s-na", "2026-07-22T09:00:00Z", "2026-07-22T10:00:00Z", total_files_changed=0, total_waves=0, waves=[]),
        session(
            "s-cd",
            "2026-07-23T09:00:00Z",
            "2026-07-23T10:00:00Z",
            total_files_changed=4,
            total_waves=2,
            waves=[{}, {}],
            effectiveness={"planned_issues": 3},
        ),
    ]
    events = [
        gate("2026-07-20T09:30:00Z", 0, "full-gate"),
        gate("2026-07-21T09:30:00Z", 1, "full-gate", passed=False),
        {"event": "orchestrator.destructive_guard.blocked", "timestamp": "2026-07-21T09:40:00Z"},
    ]
    return write_metrics(sessions, events)


def test_each_status_maps_to_its_pytest_outcome(pytester: pytest.Pytester, write_metrics: MetricsWriter) -> None:
    metrics = one_of_each(write_metrics)
    result = pytester.runpytest("--session-eval", str(metrics), "-v", "-p", "no:randomly")
    result.assert_outcomes(passed=4 + 1 + 1, failed=4, skipped=4 + 3, xfailed=3)
    result.stdout.fnmatch_lines(
        [
            "*sessions.jsonl::s-pass?verification-evidence? PASSED*",
            "*sessions.jsonl::s-fail?gate-health? FAILED*",
            "*sessions.jsonl::s-na?plan-fidelity? SKIPPED*",
            "*sessions.jsonl::s-cd?plan-fidelity? XFAIL*",
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_items_follow_rubric_order_and_node_ids(pytester: pytest.Pytester, write_metrics: MetricsWriter) -> None:
    metrics = write_metrics([session("only")], [])
    result = pytester.runpytest("--session-eval", str(metrics / "sessions.jsonl"), "--co", "-q")
    ids = [line for line in result.stdout.lines if "::" in line]
    assert [i.split("::", 1)[1] for i in ids] == [f"only[{d}]" for d in DIMENSIONS]


def test_runxfail_turns_cannot_determine_into_a_failure(
    pytester: pytest.Pytester, write_metrics: MetricsWriter
) -> None:
    metrics = one_of_each(write_metrics)
    result = pytester.runpytest("--session-eval", str(metrics), "--runxfail", "-k", "s-cd")
    result.assert_outcomes(failed=3, skipped=1, passed=1)
    result.stdout.fnmatch_lines(["*cannot-determine*"])


def test_evidence_is_failure_text_skip_reason_and_xfail_reason(
    pytester: pytest.Pytester, write_metrics: MetricsWriter
) -> None:
    metrics = one_of_each(write_metrics)
    result = pytester.runpytest("--session-eval", str(metrics), "-rsx")
    result.stdout.fnmatch_lines(
        [
            # The evidence first: the short summary and --tb=line show that line.
            "completion_rate=0.2 < 0.8*",
            "*sessions.jsonl:2: session 's-fail', plan-fidelity: fail",
            "SKIPPED*not-applicable: session 's-na', plan-fidelity: No completion_rate and no planned_issues*",
            "XFAIL*s-cd?verification-evidence? - cannot-determine: 0 quality_gate events in window but total_files_changed=4*",
        ]
    )


@pytest.mark.parametrize(
    "session_id",
    [
        "with space",
        "a::b",
        "a:::b::",
        "x[1]",
        "]odd[",
        "quote'\"s",
        "ünïcödé ☃ 🙂",
        "tab\there\nnewline\x00nul",
        "back\\slash\\x5b",
        "plan-fidelity",
        "-k",
    ],
)
def test_printed_node_ids_select_exactly_their_item(
    pytester: pytest.Pytester, write_metrics: MetricsWriter, session_id: str
) -> None:
    decoy = session_id[:-1] if len(session_id) > 1 else session_id + "x"
    metrics = write_metrics([session(session_id), session(decoy)], [])
    listed = pytester.runpytest("--session-eval", str(metrics), "--co", "-q")
    ids = [line for line in listed.stdout.lines if "sessions.jsonl::" in line]
    assert len(ids) == 10 and len(set(ids)) == 10
    for node_id in (ids[1], ids[3]):
        chosen = pytester.runpytest("--session-eval", str(metrics), node_id, "--co", "-q")
        assert [line for line in chosen.stdout.lines if "sessions.jsonl::" in line] == [node_id]


def test_a_node_id_in_one_input_runs_no_other_input(pytester: pytest.Pytester, write_metrics: MetricsWriter) -> None:
    first = write_metrics([session("a")], [], directory="first")
    second = write_metrics([session("b")], [], directory="second")
    pytester.makepyfile(test_mine="def test_mine(): pass\n")
    inputs = ("--session-eval", str(first), "--session-eval", str(second))
    node_id = "first/sessions.jsonl::a[plan-fidelity]"
    chosen = pytester.runpytest(*inputs, node_id, "--co", "-q")
    assert [line for line in chosen.stdout.lines if "::" in line] == [node_id]
    # A test path that is no input: it and every input are collected.
    both = pytester.runpytest(*inputs, "test_mine.py", "--co", "-q")
    assert sum("sessions.jsonl::" in line for line in both.stdout.lines) == 10
    assert "test_mine.py::test_mine" in both.stdout.lines


def test_k_selection_and_last_failed(pytester: pytest.Pytester, write_metrics: MetricsWriter) -> None:
    metrics = one_of_each(write_metrics)
    only = pytester.runpytest("--session-eval", str(metrics), "-k", "plan-fidelity", "--co", "-q")
    assert sum("[plan-fidelity]" in line for line in only.stdout.lines) == 4
    assert not any("[gate-health]" in line for line in only.stdout.lines)
    not_kpis = pytester.runpytest("--session-eval", str(metrics), "-k", "not efficiency-kpis", "--co", "-q")
    assert not any("efficiency-kpis" in line for line in not_kpis.stdout.lines)
    pytester.runpytest("--session-eval", str(metrics))
    last_failed = pytester.runpytest("--session-eval", str(metrics), "--lf", "-v")
    last_failed.assert_outcomes(failed=4)
    assert all("s-fail" in line for line in last_failed.stdout.lines if " FAILED" in line and "::" in line)


def test_reportinfo_points_at_the_record_line(pytester: pytest.Pytester, write_metrics: MetricsWriter) -> None:
    metrics = write_metrics(["", session("a"), session("b", effectiveness={"completion_rate": 0.1})], [])
    items, _ = pytester.inline_genitems("--session-eval", str(metrics))
    by_session = {item.name: item.reportinfo()[1] for item in items}
    assert by_session["a[plan-fidelity]"] == 1 and by_session["b[plan-fidelity]"] == 2
    result = pytester.runpytest("--session-eval", str(metrics), "-k", "b and plan")
    result.stdout.fnmatch_lines(["*sessions.jsonl:3: session 'b', plan-fidelity: fail"])


def test_ineligible_sessions_are_reported_as_skipped(pytester: pytest.Pytester, write_metrics: MetricsWriter) -> None:
    metrics = write_metrics(
        [
            session("gone", status="abandoned"),
            {"session_id": "running", "started_at": "2026-07-20T09:00:00Z"},
            {"session_id": "idle", "completed_at": "2026-07-20T09:00:00Z", "agent_summary": {"complete": 0}},
        ],
        [],
    )
    result = pytester.runpytest("--session-eval", str(metrics), "-rs", "-v")
    result.assert_outcomes(skipped=3)
    result.stdout.fnmatch_lines_random(
        [
            "*sessions.jsonl::gone SKIPPED*",
            "*sessions.jsonl::running SKIPPED*",
            "*not scored: session 'gone': abandoned session*",
            "*not scored: session 'running': unfinished session*",
            "*not scored: session 'idle': no evidence of work*",
        ]
    )


def test_latest_and_session_selection(pytester: pytest.Pytester, write_metrics: MetricsWriter) -> None:
    metrics = write_metrics([session("a"), session("b"), session("c", status="abandoned")], [])
    latest = pytester.runpytest("--session-eval", str(metrics), "--session-eval-latest", "--co", "-q")
    assert {line.split("::")[1].split("[")[0] for line in latest.stdout.lines if "::" in line} == {"b"}
    chosen = pytester.runpytest(
        "--session-eval", str(metrics), "--session-eval-session", "a", "--session-eval-session", "c", "--co", "-q"
    )
    names = [line.split("::")[1] for line in chosen.stdout.lines if "::" in line]
    # A session named is scored whatever its eligibility, as the reference scores it (c is abandoned).
    assert names == [f"a[{d}]" for d in DIMENSIONS] + [f"c[{d}]" for d in DIMENSIONS]
    unknown = pytester.runpytest("--session-eval", str(metrics), "--session-eval-session", "nope")
    assert unknown.ret == pytest.ExitCode.USAGE_ERROR
    unknown.stderr.fnmatch_lines(["*--session-eval-session: unknown session id(s): 'nope'*"])
    assert "Traceback" not in unknown.stderr.str()


def test_latest_does_not_combine_with_named_sessions(pytester: pytest.Pytester, write_metrics: MetricsWriter) -> None:
    # It picked the latest session of the file and then dropped it when another was named:
    # "no tests ran", silently.
    metrics = write_metrics([session("a"), session("b")], [])
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-latest", "--session-eval-session", "a")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --session-eval-latest: *does not combine with --session-eval-session*"])


def test_the_command_line_wins_over_an_ini_selection_and_messages_name_the_ini_key(
    pytester: pytest.Pytester, write_metrics: MetricsWriter
) -> None:
    metrics = write_metrics([session("a"), session("b", start="2026-08-02T09:00:00Z", end="2026-08-02T10:00:00Z")], [])

    def sessions(*args: str) -> set[str]:
        result = pytester.runpytest("--session-eval", str(metrics), "--co", "-q", *args)
        assert result.ret == pytest.ExitCode.OK, result.stderr.str()
        return {line.split("::")[1].split("[")[0] for line in result.stdout.lines if "::" in line}

    pytester.makeini("[pytest]\nsession_eval_latest = true\n")
    assert sessions() == {"b"}
    assert sessions("--session-eval-session", "a") == {"a"}  # the ini's latest gives way
    pytester.makeini("[pytest]\nsession_eval_sessions = a\n")
    assert sessions("--session-eval-latest") == {"b"}  # the ini's sessions give way
    # Given the same way, they contradict; the message names what the user wrote.
    pytester.makeini("[pytest]\nsession_eval_sessions = a\nsession_eval_latest = true\n")
    both = pytester.runpytest("--session-eval", str(metrics))
    assert both.ret == pytest.ExitCode.USAGE_ERROR
    both.stderr.fnmatch_lines(
        [
            "ERROR: ini key session_eval_latest in *tox.ini: picks one session itself, so it does not "
            "combine with ini key session_eval_sessions in *tox.ini: give one of them"
        ]
    )
    pytester.makeini("[pytest]\nsession_eval_since = 2026-08-01\n")
    outside = pytester.runpytest("--session-eval", str(metrics), "--session-eval-session", "a")
    outside.stderr.fnmatch_lines(
        [
            "ERROR: ini key session_eval_since in *tox.ini: session id(s) 'a', named by --session-eval-session, started outside*"
        ]
    )
    pytester.makeini("[pytest]\nsession_eval_since = July\nsession_eval_sessions = nope\n")
    pytester.runpytest("--session-eval", str(metrics)).stderr.fnmatch_lines(
        ["ERROR: ini key session_eval_since in *tox.ini: 'July' is not a date*"]
    )
    pytester.makeini("[pytest]\nsession_eval_sessions = nope\n")
    pytester.runpytest("--session-eval", str(metrics)).stderr.fnmatch_lines(
        ["ERROR: ini key session_eval_sessions in *tox.ini: unknown session id(s): 'nope'*"]
    )
    # -o sets an ini key from the command line: named as given
    pytester.runpytest("--session-eval", str(metrics), "-o", "session_eval_since=July").stderr.fnmatch_lines(
        ["ERROR: -o session_eval_since: 'July' is not a date*"]
    )
    # -o is typed for the run: it wins over the ini file as a flag does, and is named as given
    pytester.makeini("[pytest]\nsession_eval_latest = true\n")
    assert sessions("-o", "session_eval_sessions=a") == {"a"}
    both = pytester.runpytest("--session-eval", str(metrics), "-o", "session_eval_sessions=a", "--session-eval-latest")
    both.stderr.fnmatch_lines(
        [
            "ERROR: --session-eval-latest: picks one session itself, so it does not combine with -o session_eval_sessions*"
        ]
    )
    pytester.runpytest("--session-eval", str(metrics), "-o", "session_eval_latest=garbage").stderr.fnmatch_lines(
        ["ERROR: -o session_eval_latest: *garbage*"]
    )
    # an -o in addopts sets nothing before pytest 9: the value at fault is then the ini file's own
    pytester.makeini("[pytest]\naddopts = -o session_eval_latest=true\nsession_eval_latest = garbage\n")
    via_addopts = pytester.runpytest("--session-eval", str(metrics))
    if pytest.version_tuple < (9,):
        via_addopts.stderr.fnmatch_lines(["ERROR: ini key session_eval_latest in *tox.ini: *garbage*"])
    else:
        assert via_addopts.ret == pytest.ExitCode.OK, via_addopts.stderr.str()
    pytester.makeini("[pytest]\nsession_eval_latest = true\n")
    # a latest pick that finds nothing names how latest was given
    abandoned = pytester.mkdir("abandoned")
    (abandoned / "sessions.jsonl").write_text('{"session_id": "x", "status": "abandoned"}\n')
    none = pytester.runpytest("--session-eval", str(abandoned))
    none.stderr.fnmatch_lines(["ERROR: ini key session_eval_latest in *tox.ini: *no eligible session to score*"])


def test_a_named_session_the_date_range_leaves_out_is_a_usage_error(
    pytester: pytest.Pytester, write_metrics: MetricsWriter
) -> None:
    metrics = write_metrics(
        [
            session("a"),
            session("b", start="2026-08-02T09:00:00Z", end="2026-08-02T10:00:00Z"),
            session("c", start="soon"),
        ],
        [],
    )
    for since, named in (("2026-08-01", ("a",)), ("2026-07-01", ("c", "b"))):
        args = [arg for sid in named for arg in ("--session-eval-session", sid)]
        result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-since", since, *args)
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        outside = "'a'" if named == ("a",) else "'c'"
        result.stderr.fnmatch_lines(
            [f"ERROR: --session-eval-since: session id(s) {outside}, named by --session-eval-session, started outside*"]
        )
    inside = pytester.runpytest(
        "--session-eval",
        str(metrics),
        "--session-eval-until",
        "2026-08-02",
        "--session-eval-session",
        "b",
        "--co",
        "-q",
    )
    assert inside.ret == pytest.ExitCode.OK


def test_latest_with_nothing_eligible_is_a_usage_error(pytester: pytest.Pytester, write_metrics: MetricsWriter) -> None:
    metrics = write_metrics([session("c", status="abandoned")], [])
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-latest")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*no eligible session to score*"])


def test_only_sessions_are_collected_unless_test_paths_are_given(
    pytester: pytest.Pytester, write_metrics: MetricsWriter
) -> None:
    pytester.makepyfile(test_other="def test_other(): pass")
    metrics = write_metrics([session("a")], [])
    alone = pytester.runpytest("--session-eval", str(metrics), "--co", "-q")
    assert not any("test_other" in line for line in alone.stdout.lines)
    both = pytester.runpytest("--session-eval", str(metrics), "test_other.py", "--co", "-q")
    assert any("test_other.py::test_other" in line for line in both.stdout.lines)
    assert sum("sessions.jsonl::" in line for line in both.stdout.lines) == 5
    same_file = pytester.runpytest("--session-eval", str(metrics), str(metrics / "sessions.jsonl"), "--co", "-q")
    assert sum("sessions.jsonl::" in line for line in same_file.stdout.lines) == 5


def test_a_sessions_file_reached_through_a_symbolic_link_too_is_scored_once(
    pytester: pytest.Pytester, write_metrics: MetricsWriter
) -> None:
    metrics = write_metrics([session("a"), session("b")], [])
    (pytester.path / "linked").symlink_to(metrics, target_is_directory=True)
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval", "linked", "-p", "no:cacheprovider")
    result.assert_outcomes(skipped=4, xfailed=6)
    result.stdout.fnmatch_lines(["rubric-v1: 2 session(s) scored*"])
    # Reached beside other events (none here), the same sessions are another source: scored with
    # those, whatever the order, and the events path beside them is no journal either.
    (pytester.path / "bare").mkdir()
    (pytester.path / "bare" / "sessions.jsonl").symlink_to(metrics / "sessions.jsonl")
    write_jsonl(
        metrics / "events.jsonl",
        [{"event": "orchestrator.quality_gate.passed", "timestamp": "2026-07-20T09:30:00Z", "exit_code": 0}],
    )
    orders = [
        ("--session-eval", str(metrics), "--session-eval", "bare"),
        ("--session-eval", "bare", "--session-eval", str(metrics)),
    ]
    assert (
        len(
            {
                tuple(
                    sorted(
                        pytester.runpytest(*order, "-p", "no:cacheprovider", "-p", "no:randomly")
                        .parseoutcomes()
                        .items()
                    )
                )
                for order in orders
            }
        )
        == 1
    )
    journal = pytester.runpytest(
        *orders[0], "--session-eval-journal", "bare/events.jsonl", "--session-eval-model-id", "m"
    )
    assert journal.ret == pytest.ExitCode.USAGE_ERROR
    # Scored once when neither has events, each place given is still an input, in either order.
    (metrics / "events.jsonl").unlink()
    for order in orders:
        for output in ("--session-eval-journal", "--session-eval-html"):
            refused = pytester.runpytest(*order, output, "bare/events.jsonl", "--session-eval-model-id", "m")
            assert refused.ret == pytest.ExitCode.USAGE_ERROR, (order, output)
            refused.stderr.fnmatch_lines(
                [f"ERROR: {output}: *bare/events.jsonl is the events.jsonl beside a sessions file of this run*"]
            )
    assert not (pytester.path / "bare" / "events.jsonl").exists()


def test_a_path_through_a_symbolic_link_and_up_is_read_as_pytest_reads_it(
    pytester: pytest.Pytester, write_metrics: MetricsWriter
) -> None:
    # "lnk/../real" is "real" to pytest, whatever lnk points at: the plugin reads that file too.
    metrics_writer(pytester.path)(
        [session("a", total_files_changed=1)], [gate("2026-07-20T09:30:00Z", 1)], directory="real"
    )
    metrics_writer(pytester.path)([session("elsewhere")], [], directory="deep/real")
    (pytester.path / "deep" / "inner").mkdir()
    (pytester.path / "lnk").symlink_to(pytester.path / "deep" / "inner", target_is_directory=True)
    alone = pytester.runpytest("--session-eval", "real", "-p", "no:cacheprovider").parseoutcomes()
    assert alone["failed"] == 1  # the failing gate is read
    assert (
        pytester.runpytest(
            "--session-eval", "real", "--session-eval", "lnk/../real", "-p", "no:cacheprovider"
        ).parseoutcomes()
        == alone
    )
    assert pytester.runpytest("--session-eval", "lnk/../real", "-p", "no:cacheprovider").parseoutcomes() == alone
    # So are a sessions file, told from a journal, and the events given apart: checked where they are read.
    (pytester.path / "deep" / "s.jsonl").write_text('{"record_kind": "session-eval", "run_id": "x"}\n')
    (pytester.path / "s.jsonl").write_bytes((pytester.path / "real" / "sessions.jsonl").read_bytes())
    by_link = pytester.runpytest(
        "--session-eval", "lnk/../s.jsonl", "--session-eval-events", "real/events.jsonl", "-p", "no:cacheprovider"
    )
    assert by_link.parseoutcomes() == alone
    (pytester.path / "deep" / "ev.jsonl").write_text("")
    missing = pytester.runpytest("--session-eval", "real", "--session-eval-events", "lnk/../ev.jsonl")
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    missing.stderr.fnmatch_lines(
        [f"ERROR: --session-eval-events: {pytester.path / 'ev.jsonl'}: no such file or directory"]
    )


def test_hidden_directories_and_files_outside_the_rootdir(
    pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory
) -> None:
    hidden = pytester.path / ".orchestrator" / "metrics"
    hidden.mkdir(parents=True)
    (hidden / "sessions.jsonl").write_text(json.dumps(session("inside")) + "\n")
    outside = tmp_path_factory.mktemp("elsewhere")
    (outside / "sessions.jsonl").write_text(json.dumps(session("outside")) + "\n")
    result = pytester.runpytest(
        "--session-eval", ".orchestrator/metrics/sessions.jsonl", "--session-eval", str(outside), "-q"
    )
    result.assert_outcomes(skipped=6, xfailed=4)


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_data_outside_the_rootdir_keeps_node_ids_apart(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, workers: tuple[str, ...]
) -> None:
    # pytest names a file outside the rootdir by its path from the argument holding it: empty
    # for the file itself, so two such files gave the same node ids ("::s[gate-health]").
    if workers:
        pytest.importorskip("xdist")
    for name in ("a", "b"):
        pytester.mkdir(name)
        write_jsonl(pytester.path / name / "sessions.jsonl", [session("s", total_files_changed=0)])
        policy = pytester.path / f"policy-{name}"
        policy.mkdir()
        (policy / "prompts.jsonl").write_bytes(
            (EXAMPLES / "policy" / "prompts.jsonl").read_bytes().splitlines(keepends=True)[0]
        )
    run = pytester.mkdir("run")
    (run / "pytest.ini").write_text("[pytest]\n")
    monkeypatch.chdir(run)
    args = (
        "--session-eval=../a/sessions.jsonl",
        "--session-eval=../b",
        "--policy-eval=../policy-a/prompts.jsonl",
        "--policy-eval=../policy-b/prompts.jsonl",
        "-p",
        "no:randomly",
        "--junitxml=out.xml",
        *workers,
    )
    ids = [line for line in pytester.runpytest(*args, "--co", "-q").stdout.lines if "::" in line]
    assert "../a/sessions.jsonl::s[gate-health]" in ids and "../b/sessions.jsonl::s[gate-health]" in ids
    assert not [i for i in ids if i.startswith("::")]
    policy_ids = [i for i in ids if "policy-" in i]
    assert policy_ids and len(policy_ids) % 2 == 0
    assert sorted(i.replace("policy-b", "policy-a") for i in policy_ids) == sorted(
        2 * [i for i in policy_ids if "policy-a" in i]
    )
    # The summaries count every item, and JUnit names each file.
    result = pytester.runpytest(*args)
    result.stdout.fnmatch_lines_random(["rubric-v1: 2 session(s) scored*", f"{len(policy_ids)} policy check(s)"])
    cases = ET.parse(run / "out.xml").getroot().iter("testcase")
    assert all(case.get("classname") for case in cases)
    # A node id copied from the output selects its item, and --deselect leaves one out.
    one = pytester.runpytest(*args, "../b/sessions.jsonl::s[gate-health]")
    one.assert_outcomes(skipped=1)
    rest = pytester.runpytest(*args, "--deselect", "../a/sessions.jsonl::s")
    rest.assert_outcomes(passed=14, skipped=6, xfailed=1)  # of 14, 10 and 2


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_last_failed_reruns_the_failures_of_data_outside_the_rootdir(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, workers: tuple[str, ...]
) -> None:
    # --lf knew their file as "<rootdir>/../data/sessions.jsonl" and, with a test failing too, skipped it.
    if workers:
        pytest.importorskip("xdist")
    (pytester.path / "data").mkdir()
    for name in ("sessions.jsonl", "events.jsonl"):
        (pytester.path / "data" / name).write_bytes((EXAMPLES / "metrics" / name).read_bytes())
    project = pytester.mkdir("project")
    (project / "pytest.ini").write_text("[pytest]\n")
    (project / "tests").mkdir()
    (project / "tests" / "test_a.py").write_text("def test_a():\n    assert 0\n")
    monkeypatch.chdir(project)
    first = pytester.runpytest("--session-eval=../data", "tests", "-p", "no:randomly", *workers)
    first.assert_outcomes(failed=10, passed=27, skipped=18, xfailed=9)
    again = pytester.runpytest("--lf", "--session-eval=../data", "tests", "-p", "no:randomly", *workers)
    again.assert_outcomes(failed=10)


def test_ini_keys(pytester: pytest.Pytester, write_metrics: MetricsWriter) -> None:
    metrics = write_metrics([session("a"), session("b")], [])
    pytester.makeini(f"[pytest]\nsession_eval_paths = {metrics}\nsession_eval_sessions = b\n")
    result = pytester.runpytest("--co", "-q")
    names = [line.split("::")[1] for line in result.stdout.lines if "::" in line]
    assert names == [f"b[{d}]" for d in DIMENSIONS]


def test_data_named_in_the_ini_file_joins_the_test_suite(
    pytester: pytest.Pytester, write_metrics: MetricsWriter
) -> None:
    metrics = write_metrics([session("a")], [])
    pytester.mkdir("tests")
    (pytester.path / "tests" / "test_unit.py").write_text("def test_unit(): pass\n")
    pytester.makeini(f"[pytest]\ntestpaths = tests\nsession_eval_paths = {metrics}\n")

    def collected(*args: str) -> list[str]:
        return [line for line in pytester.runpytest("--co", "-q", *args).stdout.lines if "::" in line]

    everything = collected()
    assert "tests/test_unit.py::test_unit" in everything and len(everything) == 1 + len(DIMENSIONS)
    # Named on the command line, the data is what runs; a test path given runs with it.
    assert "tests/test_unit.py::test_unit" not in collected("--session-eval", str(metrics))
    assert collected("tests", "--session-eval", str(metrics)) == everything
    # Named in the ini file, it is part of the suite as testpaths are: paths given select
    # what runs (one test alone), and hold the data where they hold its files.
    assert collected("tests") == collected("tests/test_unit.py::test_unit") == ["tests/test_unit.py::test_unit"]
    assert sorted(collected(".")) == sorted(everything)


def test_a_value_apart_from_its_flag_that_made_pytest_miss_the_ini_file_is_warned_about(
    pytester: pytest.Pytester,
) -> None:
    # pytest picks its ini file before plugin options are known: data outside the project given
    # apart from its flag is taken for a test path then, and the project's ini file goes unread.
    outside = metrics_writer(pytester.path.parent / f"data-{pytester.path.name}")([session("a")], [])
    (outside.parent / "prompts.jsonl").write_bytes((EXAMPLES / "policy" / "prompts.jsonl").read_bytes())
    project = pytester.mkdir("project")
    (project / "pytest.ini").write_text("[pytest]\nsession_eval_journal = eval.jsonl\nsession_eval_model_id = m\n")
    (project / "metrics").mkdir()
    (project / "metrics" / "sessions.jsonl").write_text(json.dumps(session("b")) + "\n")
    os.chdir(project)
    missed = pytester.runpytest("--session-eval", str(outside), "-p", "no:randomly")
    missed.stdout.fnmatch_lines(
        [
            f"*pytest.ini:1: PytestConfigWarning: --session-eval {outside}: pytest took {outside} for a test path when "
            f"it looked for its ini file, and so read no ini file instead of this one; write --session-eval={outside}"
        ]
    )
    assert not (project / "eval.jsonl").exists()  # what the warning is about
    policy = pytester.runpytest("--policy-eval", str(outside.parent / "prompts.jsonl"), "-p", "no:randomly")
    policy.stdout.fnmatch_lines(["*PytestConfigWarning: --policy-eval *: pytest took * write --policy-eval=*"])
    # Written with "=", or data inside the project (the same ini file either way): no warning.
    for args in (
        [f"--session-eval={outside}"],
        ["--session-eval", "metrics"],
        ["--session-eval", str(project / "metrics")],
    ):
        result = pytester.runpytest(*args, "-p", "no:randomly")
        result.stdout.no_fnmatch_line("*PytestConfigWarning*")
        result.stdout.fnmatch_lines(["journal eval.jsonl: 1 record(s) appended*"])
    # A usage error stops the run before warnings are shown: it says so itself, the missed
    # ini file being maybe what it is about.
    for args in (
        ["--session-eval", str(outside), "--session-eval-session", "nope"],
        ["--policy-decisions", str(outside.parent / "prompts.jsonl")],
    ):
        stopped = pytester.runpytest(*args)
        assert stopped.ret == pytest.ExitCode.USAGE_ERROR
        stopped.stderr.fnmatch_lines(
            [
                "ERROR: --*",
                f"(note: {args[0]} {args[1]}: pytest took {args[1]} for a test path when it looked for its ini "
                f"file, and so read no ini file instead of {project / 'pytest.ini'}; write {args[0]}={args[1]})",
            ]
        )
    assert (
        "(note:" not in pytester.runpytest(f"--session-eval={outside}", "--session-eval-session", "nope").stderr.str()
    )
    # A usage error of several messages keeps each on a line of its own, the note after the last.
    (project / "conftest.py").write_text(
        "import pytest\ndef pytest_configure(config):\n    raise pytest.UsageError('first problem', 'second problem')\n"
    )
    several = pytester.runpytest("--session-eval", str(outside))
    several.stderr.fnmatch_lines(["ERROR: first problem", "ERROR: second problem", "(note: --session-eval *)"])
    (project / "conftest.py").unlink()
    # Nor where no ini file would be read without the value: it finds the data's own project.
    (outside.parent / "pytest.ini").write_text("[pytest]\n")
    os.chdir(pytester.path)
    pytester.runpytest("--session-eval", str(outside), "-p", "no:randomly").stdout.no_fnmatch_line(
        "*PytestConfigWarning*"
    )


def test_data_in_a_hidden_directory_is_collected_with_the_directory_around_it(pytester: pytest.Pytester) -> None:
    metrics_writer(pytester.path)([session("a")], [], directory=".orchestrator/metrics")
    (pytester.path / ".orchestrator" / "metrics" / "test_beside.py").write_text("def test_beside(): pass\n")
    (pytester.path / ".orchestrator" / "tools").mkdir()
    (pytester.path / ".orchestrator" / "tools" / "test_tool.py").write_text("def test_tool(): pass\n")
    pytester.mkdir("tests")
    (pytester.path / "tests" / "test_unit.py").write_text("def test_unit(): pass\n")
    expected = {"tests/test_unit.py::test_unit", *(f".orchestrator/metrics/sessions.jsonl::a[{d}]" for d in DIMENSIONS)}

    def collected(*args: str) -> set[str]:
        return {line for line in pytester.runpytest("--co", "-q", *args).stdout.lines if "::" in line}

    pytester.makeini("[pytest]\n")
    assert collected("--session-eval", ".orchestrator/metrics", ".") == expected
    pytester.makeini("[pytest]\nsession_eval_paths = .orchestrator/metrics\n")
    assert collected() == expected  # the rootdir and the data: nothing else of the hidden directory
    assert collected(".") == expected  # the directory given holds the data
    assert collected("tests") == {"tests/test_unit.py::test_unit"}


@pytest.mark.parametrize(
    ("ini", "message"),
    [
        (
            "[tool.pytest.ini_options]\nsession_eval_paths = 'metrics'\nsession_eval_sessions = [1, 'b']\n",
            "*ini key session_eval_sessions in *pyproject.toml: expected a list of strings, got [[]1, 'b'[]]",
        ),
        (
            "[tool.pytest.ini_options]\nsession_eval_paths = 'metrics'\nsession_eval_sessions = [[1]]\n",
            "*ini key session_eval_sessions in *pyproject.toml: expected a list of strings*",
        ),
        (
            "[tool.pytest.ini_options]\nsession_eval_paths = ['metrics', 3]\n",
            "*ini key session_eval_paths in *pyproject.toml: *",
        ),
        (
            "[tool.pytest.ini_options]\nsession_eval_paths = 'metrics'\nsession_eval_latest = 'maybe'\n",
            "*ini key session_eval_latest in *pyproject.toml: *maybe*",
        ),
    ],
)
def test_an_ill_typed_ini_value_is_a_usage_error_naming_the_key(
    pytester: pytest.Pytester, ini: str, message: str
) -> None:
    metrics_writer(pytester.path)([session("a")], [])
    pytester.makefile(".toml", pyproject=ini)
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])


@pytest.mark.parametrize(
    ("ini", "message"),
    [
        # checked as the run is configured
        (
            "session_eval_paths = metrics\nsession_eval_rubric = nope",
            "ini key session_eval_rubric in *tox.ini: unknown rubric 'nope'*",
        ),
        (
            "session_eval_paths = empty",
            "ini key session_eval_paths in *tox.ini: */empty: holds no sessions.jsonl, nor does any directory below it",
        ),
        (
            "session_eval_paths = metrics\nsession_eval_judge = true\nsession_eval_judge_timeout = -1",
            "ini key session_eval_judge_timeout in *tox.ini: '-1' is not a positive number of seconds",
        ),
        (
            "session_eval_paths = metrics\nsession_eval_html = metrics/events.jsonl",
            "ini key session_eval_html in *tox.ini: */metrics/events.jsonl is an events file of this run*",
        ),
        (
            "policy_eval_paths = empty",
            "ini key policy_eval_paths in *tox.ini: */empty: directory holds no prompts.jsonl",
        ),
        ("policy_decisions = decisions.jsonl", "ini key policy_decisions in *tox.ini: needs an envelope set to check*"),
        (
            "policy_eval_paths = policy\nsession_eval_paths = metrics\nsession_eval_html = policy/prompts.jsonl",
            "ini key session_eval_html in *tox.ini: */policy/prompts.jsonl is an envelope set of this run; it would be written to",
        ),
        # checked as the session starts
        (
            "session_eval_paths = metrics\nsession_eval_model_id = m\nsession_eval_journal = notes.txt",
            "ini key session_eval_journal in *tox.ini: */notes.txt: exists and is not an eval journal*",
        ),
    ],
)
def test_a_usage_error_about_an_ini_value_names_its_key_and_file(
    pytester: pytest.Pytester, ini: str, message: str
) -> None:
    # usage.md: messages about a value from the ini file name its key and the file (or -o and the key).
    metrics_writer(pytester.path)([session("a")], [gate("2026-07-20T09:30:00Z")])
    (pytester.path / "empty").mkdir()
    (pytester.path / "notes.txt").write_text("some notes\n")
    (pytester.path / "decisions.jsonl").write_text("")
    shutil.copytree(EXAMPLES / "policy", pytester.path / "policy")
    pytester.makeini(f"[pytest]\n{ini}\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])
    key, value = ini.splitlines()[-1].split(" = ")
    overridden = pytester.runpytest("-o", f"{key}={value}")
    overridden.stderr.fnmatch_lines([f"ERROR: -o {key}: *"])


@pytest.mark.skipif(pytest.version_tuple < (9,), reason="the [tool.pytest] table of TOML values is pytest 9's")
def test_a_toml_value_pytest_refuses_names_the_key_and_the_file_once(pytester: pytest.Pytester) -> None:
    # An unquoted date is a TOML date, not the string the key takes: pytest's own message
    # names the file, which the key's source already does.
    metrics_writer(pytester.path)([session("a")], [])
    pytester.makefile(
        ".toml", pyproject="[tool.pytest]\nsession_eval_paths = ['metrics']\nsession_eval_since = 2026-07-01\n"
    )
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: ini key session_eval_since in *pyproject.toml: config option 'session_eval_since' expects a string, got date*"
        ]
    )
    assert result.stderr.str().count("pyproject.toml") == 1


@pytest.mark.parametrize("flag", ["--help", "--markers"])
def test_help_is_shown_whatever_the_inputs_in_the_ini_file(pytester: pytest.Pytester, flag: str) -> None:
    pytester.makeini("[pytest]\nsession_eval_paths = .orchestrator/metrics\npolicy_eval_paths = gone.jsonl\n")
    result = pytester.runpytest(flag)
    assert result.ret == pytest.ExitCode.OK
    assert "session-eval" in result.stdout.str() or "deterministic" in result.stdout.str()
    assert pytester.runpytest().ret == pytest.ExitCode.USAGE_ERROR


def test_events_option_overrides_the_file_beside(
    pytester: pytest.Pytester, write_metrics: MetricsWriter, tmp_path: Path
) -> None:
    metrics = write_metrics([session("a", total_files_changed=1)], [gate("2026-07-20T09:30:00Z", 0)])
    other = tmp_path / "other-events.jsonl"
    other.write_text(json.dumps(gate("2026-07-20T09:30:00Z", 1)) + "\n")
    beside = pytester.runpytest("--session-eval", str(metrics), "-k", "verification")
    beside.assert_outcomes(passed=1)
    overridden = pytester.runpytest(
        "--session-eval", str(metrics), "--session-eval-events", str(other), "-k", "verification"
    )
    overridden.assert_outcomes(failed=1)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--session-eval", "missing.jsonl"], "*--session-eval: *missing.jsonl: no such file or directory*"),
        (
            ["--session-eval", "emptydir"],
            "*--session-eval: *emptydir: holds no sessions.jsonl, nor does any directory below it*",
        ),
        (
            ["--session-eval", "metrics", "--session-eval-events", "nope.jsonl"],
            "*--session-eval-events: *nope.jsonl: no such file or directory*",
        ),
        (
            ["--session-eval", "metrics", "--session-eval-events", "emptydir"],
            "*--session-eval-events: *emptydir: not a file*",
        ),
        (
            ["--session-eval", "metrics", "--session-eval-timestamp", "yesterday"],
            "*--session-eval-timestamp: 'yesterday' is not a UTC date-time*",
        ),
        # a run_id keeps the digits alone: "-01:00" and ".0100" would give one run_id
        (
            ["--session-eval", "metrics", "--session-eval-timestamp", "2026-08-01T00:00:00-01:00"],
            "*--session-eval-timestamp: '2026-08-01T00:00:00-01:00' is not a UTC date-time such as 2026-08-01T00:00:00Z*",
        ),
        (
            ["--session-eval", "metrics", "--session-eval-timestamp", "2026-08-01T00:00:00.0100"],
            "*is not a UTC date-time*",
        ),
        (["--session-eval", "metrics", "--session-eval-timestamp", "2026-08-01"], "*is not a UTC date-time*"),
        # (February 30th is no error: V8 reads it as March 2nd, as every timestamp is read)
        (["--session-eval", "metrics", "--session-eval-timestamp", "2026-02-32T00:00:00Z"], "*is not a UTC date-time*"),
        (["--session-eval", "metrics", "--session-eval-since", "July"], "*--session-eval-since: 'July' is not a date*"),
    ],
)
def test_usage_errors_name_the_path_and_exit_4(pytester: pytest.Pytester, args: list[str], message: str) -> None:
    (pytester.path / "emptydir").mkdir()
    (pytester.path / "metrics").mkdir()
    (pytester.path / "metrics" / "sessions.jsonl").write_text(json.dumps(session("a")) + "\n")
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in result.stderr.str() + result.stdout.str()


@pytest.mark.parametrize(
    "silenced", [(), ("-p", "no:warnings"), ("-W", "ignore::pytest_sessioneval.SessionEvalInputWarning")]
)
def test_skipped_lines_are_counted_in_the_summary_even_with_warnings_silenced(
    pytester: pytest.Pytester, project_metrics: MetricsWriter, silenced: tuple[str, ...]
) -> None:
    project_metrics(
        ["{truncated", session("a"), "garbage", *[f"bad {i}" for i in range(3)]],
        ['{"event": "orchestrator.quality_gate.passed",'],
    )
    line = "6 unusable input line(s) skipped (metrics/sessions.jsonl:1, metrics/sessions.jsonl:3, metrics/sessions.jsonl:4 and 3 more); each is a SessionEvalInputWarning"
    pytester.runpytest("--session-eval", "metrics", *silenced).stdout.fnmatch_lines([line])
    # Also when none of the items ran: the lines are skipped all the same.
    pytester.runpytest("--session-eval", "metrics", "-k", "nothing_matches", *silenced).stdout.fnmatch_lines([line])


def test_bad_lines_warn_with_file_and_line_and_the_rest_is_scored(
    pytester: pytest.Pytester, write_metrics: MetricsWriter
) -> None:
    metrics = write_metrics(
        ["{truncated", session("a"), "[]", {"session_id": ["x"], "status": "completed"}],
        ['{"event": "orchestrator.quality_gate.passed",'],
    )
    result = pytester.runpytest("--session-eval", str(metrics), "-v", "-rf")
    result.assert_outcomes(failed=1, skipped=3, xfailed=2)
    result.stdout.fnmatch_lines_random(
        [
            "*SessionEvalInputWarning: metrics/sessions.jsonl:1: not valid JSON*",
            "*SessionEvalInputWarning: metrics/sessions.jsonl:3: not a JSON object (found an array)*",
            "*SessionEvalInputWarning: metrics/events.jsonl:1: not valid JSON*",
            "*sessions.jsonl::line-4?no-session-id? FAILED*",
            '*sessions.jsonl:4: record has no usable session_id (session_id is not a string (found ?"x"?))*',
        ]
    )


def test_a_session_named_like_a_line_keeps_its_node_id_apart_from_the_record_without_an_id(
    pytester: pytest.Pytester, write_metrics: MetricsWriter
) -> None:
    metrics = write_metrics(
        [
            {"session_id": "line-2", "status": "abandoned"},
            {"status": "completed", "started_at": "2024-06-01T00:00:00Z"},
            session("line-3"),
            {"session_id": 5, "started_at": "2024-06-01T00:00:00Z"},
        ],
        [],
    )
    listed = [
        line for line in pytester.runpytest("--session-eval", str(metrics), "--co", "-q").stdout.lines if "::" in line
    ]
    assert "metrics/sessions.jsonl::line-2" in listed and "metrics/sessions.jsonl::line-2~1[no-session-id]" in listed
    assert (
        "metrics/sessions.jsonl::line-3[gate-health]" in listed
        and "metrics/sessions.jsonl::line-4[no-session-id]" in listed
    )
    # A node id copied from the output selects its own items, and only those.
    pytester.runpytest("--session-eval", str(metrics), "metrics/sessions.jsonl::line-2").assert_outcomes(skipped=1)
    pytester.runpytest("--session-eval", str(metrics), "metrics/sessions.jsonl::line-2~1").assert_outcomes(failed=1)
    # The name never depends on the selection: the date range leaves session "line-2" out.
    dated = [
        line
        for line in pytester.runpytest(
            "--session-eval", str(metrics), "--session-eval-until", "2025-01-01", "--co", "-q"
        ).stdout.lines
        if "::" in line
    ]
    assert dated == ["metrics/sessions.jsonl::line-2~1[no-session-id]", "metrics/sessions.jsonl::line-4[no-session-id]"]


def run_reports(
    pytester: pytest.Pytester, metrics: Path, *extra: str
) -> tuple[dict[str, Any], dict[str, dict[str, str]], pytest.RunResult]:
    report, junit = pytester.path / "report.json", pytester.path / "junit.xml"
    result = pytester.runpytest_subprocess(
        "--session-eval",
        str(metrics),
        "--json-report",
        f"--json-report-file={report}",
        f"--junitxml={junit}",
        "--session-eval-timestamp",
        "2026-08-01T00:00:00Z",
        "-p",
        "no:randomly",
        *extra,
    )
    tests = {test["nodeid"]: test for test in json.loads(report.read_text())["tests"]}
    cases = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        outcome = next((child.tag for child in case if child.tag in ("failure", "skipped", "error")), "passed")
        cases[f"{case.get('classname')}::{case.get('name')}"] = {**props, "outcome": outcome}
    return tests, cases, result


def test_json_report_metadata_and_junit_properties(pytester: pytest.Pytester, write_metrics: MetricsWriter) -> None:
    metrics = one_of_each(write_metrics)
    tests, cases, _ = run_reports(pytester, metrics)
    fail_pf = next(t for nodeid, t in tests.items() if nodeid.endswith("s-fail[plan-fidelity]"))
    assert fail_pf["outcome"] == "failed"
    assert fail_pf["metadata"]["session_eval"] == {
        "session_id": "s-fail",
        "dimension": "plan-fidelity",
        "method": "deterministic",
        "status": "fail",
        "score": 0.2,
        "evidence": fail_pf["metadata"]["session_eval"]["evidence"],
        "cause": None,
        "scored_on_request": None,
        "line": 2,
    }
    statuses = {t["metadata"]["session_eval"]["status"] for t in tests.values()}
    assert statuses == {"pass", "fail", "not-applicable", "cannot-determine"}
    assert all(t["metadata"]["session_eval"]["score"] is None for n, t in tests.items() if "plan-fidelity" not in n)
    case = next(c for name, c in cases.items() if name.endswith("s-cd[gate-health]"))
    assert case["status"] == "cannot-determine" and case["dimension"] == "gate-health"
    assert case["rubric_version"] == "rubric-v1"
    assert case["rubric_sha256"] == "ba87f2c2099def7b37b9cf343cef80529a73f67b4f77b3209604788c16357c8d"
    assert case["line"] == "4" and "total_files_changed=4" not in case["evidence"]
    assert case["cause"] == "no-full-gate-in-window"  # why it is undecided, as the scorer says
    # A property with no value is left out (JUnit XML would write Python's "None").
    assert "score" not in case and "None" not in case.values()
    assert next(c for name, c in cases.items() if name.endswith("s-fail[plan-fidelity]"))["score"] == "0.2"


@pytest.mark.parametrize("dist", ["load", "loadgroup"])
def test_xdist_gives_the_same_outcomes_and_reports(
    pytester: pytest.Pytester, write_metrics: MetricsWriter, dist: str
) -> None:
    pytest.importorskip("xdist")
    metrics = one_of_each(write_metrics)
    serial_tests, serial_cases, _ = run_reports(pytester, metrics)
    parallel_tests, parallel_cases, result = run_reports(pytester, metrics, "-n", "2", "--dist", dist)
    assert "2 workers" in result.stdout.str()
    strip = lambda tests: {n: (t["outcome"], t["metadata"]) for n, t in tests.items()}  # noqa: E731
    assert strip(parallel_tests) == strip(serial_tests)
    assert parallel_cases == serial_cases


def test_xdist_gives_the_same_reports_for_text_with_a_lone_surrogate(
    pytester: pytest.Pytester, write_metrics: MetricsWriter
) -> None:
    pytest.importorskip("xdist")
    lone = '{"session_id":"s-\\ud800-x","status":"completed","started_at":"2026-07-20T09:00:00Z","completed_at":"2026-07-20T10:00:00Z"}'
    metrics = write_metrics([lone, session("peer", "2026-07-20T09:30:00Z", "2026-07-20T11:00:00Z")], [])
    serial_tests, serial_cases, _ = run_reports(pytester, metrics)
    parallel_tests, parallel_cases, _ = run_reports(pytester, metrics, "-n", "2")
    strip = lambda tests: {n: (t["outcome"], t["metadata"]) for n, t in tests.items()}  # noqa: E731
    assert strip(parallel_tests) == strip(serial_tests)
    assert parallel_cases == serial_cases
    assert any(t["metadata"]["session_eval"]["session_id"] == "s-\\ud800-x" for t in serial_tests.values())


def test_terminal_summary_counts_per_dimension_and_never_a_global_score(
    pytester: pytest.Pytester, write_metrics: MetricsWriter
) -> None:
    metrics = one_of_each(write_metrics)
    result = pytester.runpytest("--session-eval", str(metrics))
    result.stdout.fnmatch_lines(
        [
            "*= session evaluation =*",
            "rubric-v1: 4 session(s) scored",
            "dimension * pass  fail  not-applicable  cannot-determine  pass rate",
            "verification-evidence * 1     1               1                 1  0.50 (n = 2, 95% CI 0.09–0.91)",
            "plan-fidelity * 1     1               1                 1  0.50 (n = 2, 95% CI 0.09–0.91)",
            "gate-health * 1     1               1                 1  0.50 (n = 2, 95% CI 0.09–0.91)",
            "process-safety * 3     1               0                 0  0.75 (n = 4, 95% CI 0.30–0.95)",
            "efficiency-kpis * 0     0               4                 0  n = 0, no pass rate",
            "Pass rate = pass / (pass + fail), over the sessions where the dimension applied.",
            "No two dimensions are ranked: every pair of 95% intervals overlaps*",
        ]
    )
    one = pytester.runpytest("--session-eval", str(metrics), "-k", "s-pass")
    one.stdout.fnmatch_lines(["plan-fidelity * 1     0               0                 0  1.00 (n = 1, no interval)"])
    summary = result.stdout.str().split("session evaluation", 1)[1].lower()
    assert not re.search(r"\b(overall|mean|average|global score:|total score)\b", summary)


def test_failure_summary_keeps_teardown_sections(pytester: pytest.Pytester, write_metrics: MetricsWriter) -> None:
    """The indexed teardown lookup shows exactly what pytest's own lookup shows."""
    metrics = one_of_each(write_metrics)
    pytester.makepyfile(test_own=NOISY_TEARDOWN)
    with_sessions = pytester.runpytest("--session-eval", str(metrics), "test_own.py", "-p", "no:randomly")
    alone = pytester.runpytest("test_own.py", "-p", "no:randomly")
    for result in (with_sessions, alone):
        result.stdout.fnmatch_lines(["*_ test_fails _*", "*- Captured stdout teardown -*", "teardown says hello"])
    assert (
        with_sessions.stdout.str().count("teardown says hello") == alone.stdout.str().count("teardown says hello") == 1
    )


def test_unusable_lines_are_warned_once_capped_and_shown_escaped(
    pytester: pytest.Pytester, write_metrics: MetricsWriter
) -> None:
    bad = ["{bad \x1b[2J" + "x" * 300] * 25
    metrics = write_metrics([session("a"), *bad, "[" * 1500 + "]" * 1500])
    for extra in ((), ("-n", "2")):
        # A process of its own each time: the excerpts must not come from an earlier run's cache.
        result = pytester.runpytest_subprocess("--session-eval", str(metrics), *extra)
        out = result.stdout.str()
        assert "\x1b" not in out and "x" * 100 not in out
        assert out.count("SessionEvalInputWarning: metrics/sessions.jsonl:") == 20 + 1, extra
        result.stdout.fnmatch_lines(
            ["*{bad \\x1b[2Jxxxx* ...", "*metrics/sessions.jsonl: 6 more unusable line(s), skipped (lines 22 to 27)*"]
        )
        assert "INTERNALERROR" not in out


def test_warnings_as_errors_make_a_bad_line_a_usage_error_naming_it(
    pytester: pytest.Pytester, write_metrics: MetricsWriter
) -> None:
    clean = write_metrics([session("a")], directory="clean")
    metrics = write_metrics([session("b"), "not json"], ["[" * 1500 + "]" * 1500])
    for extra in ((), ("-n", "2")):
        result = pytester.runpytest("--session-eval", str(clean), "--session-eval", str(metrics), "-W", "error", *extra)
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines(
            ["ERROR: metrics/sessions.jsonl:2: not valid JSON*(a warning made an error by -W or filterwarnings)"]
        )
        assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_input_warnings_survive_last_failed(pytester: pytest.Pytester, write_metrics: MetricsWriter) -> None:
    metrics = write_metrics([session("a"), "garbage"])
    pytester.makepyfile(test_u="def test_u():\n    assert False\n")
    pytester.runpytest("--session-eval", str(metrics), "test_u.py")
    result = pytester.runpytest("--session-eval", str(metrics), "test_u.py", "--lf")
    result.stdout.fnmatch_lines(["*SessionEvalInputWarning: metrics/sessions.jsonl:2: not valid JSON*"])


def test_a_path_the_system_refuses_to_look_at_is_a_usage_error(pytester: pytest.Pytester) -> None:
    for flag in ("--session-eval", "--session-eval-html", "--session-eval-journal"):
        args = ["--session-eval", "a" * 300] if flag == "--session-eval" else ["--session-eval", "x", flag, "b" * 300]
        (pytester.path / "x").mkdir(exist_ok=True)
        (pytester.path / "x" / "sessions.jsonl").write_text(json.dumps(session("a")) + "\n")
        result = pytester.runpytest(*args, "--session-eval-model-id", "m")
        assert result.ret == pytest.ExitCode.USAGE_ERROR, flag
        result.stderr.fnmatch_lines([f"ERROR: {flag}: *: cannot be used (File name too long)"])


def test_other_tests_properties_are_not_counted_as_sessions(
    pytester: pytest.Pytester, write_metrics: MetricsWriter
) -> None:
    metrics = write_metrics([session("a")])
    pytester.makepyfile(
        test_mine="""
        def test_speed(record_property):
            record_property("dimension", ["speed"])
            record_property("status", "fast")
            record_property("session_id", "x")
            record_property("reason", "mine")
        """
    )
    # Even in a directory named like the plugin's item keyword, it is not taken for a session.
    (pytester.path / "session_eval").mkdir()
    (pytester.path / "test_mine.py").rename(pytester.path / "session_eval" / "test_mine.py")
    for extra in ((), ("-n", "2")):
        result = pytester.runpytest("--session-eval", str(metrics), "session_eval", *extra)
        result.assert_outcomes(passed=1, skipped=3, xfailed=2)
        result.stdout.fnmatch_lines(["rubric-v1: 1 session(s) scored"])
        out = result.stdout.str()
        assert (
            "INTERNALERROR" not in out
            and "speed" not in out.split("session evaluation")[-1]
            and "without a usable" not in out
        )


def test_an_events_file_beside_that_cannot_be_read_is_a_usage_error(
    pytester: pytest.Pytester, write_metrics: MetricsWriter
) -> None:
    metrics = write_metrics([session("a")])
    (metrics / "events.jsonl").mkdir()
    result = pytester.runpytest("--session-eval", str(metrics))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --session-eval: *events.jsonl: not a file"])
    (metrics / "events.jsonl").rmdir()
    (metrics / "events.jsonl").symlink_to(metrics / "nowhere.jsonl")
    result = pytester.runpytest("--session-eval", str(metrics))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --session-eval: *events.jsonl: a broken symbolic link"])


def test_an_until_before_the_since_is_a_usage_error(pytester: pytest.Pytester, write_metrics: MetricsWriter) -> None:
    metrics = write_metrics([session("a")])
    result = pytester.runpytest(
        "--session-eval", str(metrics), "--session-eval-since", "2026-08-01", "--session-eval-until", "2026-07-01"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: --session-eval-until: 2026-07-01 is before --session-eval-since 2026-08-01: no session could be selected"
        ]
    )


@pytest.mark.parametrize("xdist", [(), ("-n", "2")])
def test_a_data_path_pytest_cannot_collect_is_a_usage_error_naming_the_option(
    pytester: pytest.Pytester, write_metrics: MetricsWriter, xdist: tuple[str, ...]
) -> None:
    write_metrics([session("a")], [], directory="run[1]")
    result = pytester.runpytest("--session-eval", "run[1]", *xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --session-eval: run[[]1]/sessions.jsonl: pytest cannot collect a path containing '[' or '::'*"]
    )


@pytest.mark.parametrize("xdist", [(), ("-n", "2")])
def test_a_data_path_that_is_not_utf8_is_a_usage_error_naming_the_option(
    pytester: pytest.Pytester, write_metrics: MetricsWriter, xdist: tuple[str, ...]
) -> None:
    if xdist:
        pytest.importorskip("xdist")
    metrics = write_metrics([session("a")], [])
    odd = os.fsdecode(b"d\xff")  # a name of bytes that are no UTF-8: a lone surrogate in Python's text
    try:
        metrics.rename(pytester.path / odd)
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system takes only UTF-8 names")
    (pytester.path / "ok").mkdir()
    (pytester.path / odd / "sessions.jsonl").rename(pytester.path / "ok" / "sessions.jsonl")
    for option, value in [
        ("--session-eval", odd),
        ("--session-eval-events", f"{odd}/events.jsonl"),
        ("--session-eval-journal", f"{odd}/eval.jsonl"),
        ("--session-eval-html", f"{odd}/page.html"),
    ]:
        data = (
            ()
            if option == "--session-eval"
            else ("--session-eval", "ok/sessions.jsonl", "--session-eval-model-id", "m")
        )
        result = pytester.runpytest_subprocess(*data, option, value, "--junitxml", "j.xml", *xdist)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, option
        result.stderr.fnmatch_lines([f"ERROR: {option}: *d\\udcff*: the path is not valid UTF-8*"])
        assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_brackets_above_the_directory_pytest_runs_in_do_not_matter(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    from builders import metrics_writer

    project = pytester.path / "project[1]"
    project.mkdir()
    (project / "pytest.ini").write_text("[pytest]\n")
    metrics_writer(project)([session("a")], [])
    monkeypatch.chdir(project)
    for xdist in ((), ("-n", "2")):
        result = pytester.runpytest("--session-eval", "metrics", *xdist)
        assert result.ret == pytest.ExitCode.OK, result.stdout.str() + result.stderr.str()
        result.assert_outcomes(skipped=3, xfailed=2)


def test_a_started_at_nested_deep_breaks_no_reporter(pytester: pytest.Pytester, write_metrics: MetricsWriter) -> None:
    deep = "[" * 2000 + "]" * 2000
    line = '{"session_id":"a","status":"completed","completed_at":"2026-07-20T10:00:00Z","started_at":' + deep + "}"
    metrics = write_metrics([line], [])
    for extra in ((), ("-n", "2"), ("--junitxml", "out.xml"), ("--json-report", "--json-report-file", "out.json")):
        result = pytester.runpytest("--session-eval", str(metrics), *extra)
        assert result.ret == pytest.ExitCode.OK, (extra, result.stdout.str()[-2000:])
        result.assert_outcomes(skipped=3, xfailed=2)


def test_fixtures_per_test_collects_only_the_data(pytester: pytest.Pytester, write_metrics: MetricsWriter) -> None:
    metrics = write_metrics([session("a")], [])
    pytester.makepyfile(test_broken="import a_module_that_does_not_exist\n")
    for mode in ("--fixtures-per-test", "--fixtures"):
        result = pytester.runpytest("--session-eval", str(metrics), mode)
        assert result.ret == pytest.ExitCode.OK, result.stdout.str()
        assert "test_broken" not in result.stdout.str()


def test_an_events_file_given_as_the_sessions_is_a_usage_error(
    pytester: pytest.Pytester, write_metrics: MetricsWriter
) -> None:
    metrics = write_metrics([session("a")], [gate("2026-07-20T09:30:00Z")])
    pytester.mkdir("renamed")
    write_jsonl(
        pytester.path / "renamed" / "ev.jsonl",
        [{"note": "header"}, {"event": "orchestrator.session.started", "session_id": "a"}],
    )
    for args, message in (
        (
            ("--session-eval", str(metrics / "events.jsonl")),
            "ERROR: --session-eval: *: is the events file of this run too*",
        ),
        (
            ("--session-eval", str(metrics), "--session-eval-events", str(metrics / "sessions.jsonl")),
            "ERROR: --session-eval-events: *sessions.jsonl: is the sessions file of this run; give the events file",
        ),
        # under another name, known by what it holds (a session start names a session too)
        (
            ("--session-eval", "renamed/ev.jsonl"),
            "ERROR: --session-eval: *ev.jsonl: line 2 names event: the file holds orchestrator events; give the sessions file*",
        ),
    ):
        result = pytester.runpytest(*args)
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines([message])
