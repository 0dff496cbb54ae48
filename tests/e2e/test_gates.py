"""Requirement and regression items, the requirements gate, and the summaries CI pages show."""

from __future__ import annotations

import fnmatch
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from builders import DOCS, MetricsWriter, copy_example, gate_health_metrics

REQUIRE = "session-eval::require[gate-health>=0.8]"


def outcomes(result: pytest.RunResult) -> dict[str, str]:
    """Every item's outcome, by node id, as pytest's summary names it."""
    found = {}
    for report in result.reprec.getreports("pytest_runtest_logreport"):  # type: ignore[attr-defined]
        if report.when == "call" or (report.when == "setup" and not report.passed):
            found[report.nodeid] = "xfailed" if hasattr(report, "wasxfail") else report.outcome
    return found


def gate_items(result: pytest.RunResult) -> dict[str, str]:
    return {node_id: outcome for node_id, outcome in outcomes(result).items() if node_id.startswith("session-eval::")}


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        ("ppppf", "passed"),  # 4/5 = 0.8: met, exactly
        ("pppff", "failed"),  # 3/5 = 0.6
        ("uuu", "xfailed"),  # n = 0: cannot be determined
    ],
)
def test_a_requirement_is_met_missed_or_undecidable(
    pytester: pytest.Pytester, project_metrics: MetricsWriter, verdicts: str, expected: str
) -> None:
    metrics = gate_health_metrics(project_metrics, verdicts)
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-require", "gate-health>=0.8", "-rA")
    assert gate_items(result) == {REQUIRE: expected}
    passed, failed = verdicts.count("p"), verdicts.count("f")
    if expected == "failed":
        result.stdout.fnmatch_lines(
            [
                f"{REQUIRE}: missed",
                f"gate-health>=0.8: the pass rate {passed / (passed + failed):.2f} (n = {passed + failed}, 95% CI *) "
                "is below 0.8; failing: metrics/sessions.jsonl::s3[[]gate-health[]], metrics/sessions.jsonl::s4[[]gate-health[]]",
                f"Counted: the gate-health verdicts of all {len(verdicts)} session(s) scored in this run.",
            ]
        )
    if expected == "xfailed":
        result.stdout.fnmatch_lines(
            ["XFAIL session-eval::require*cannot-determine: gate-health>=0.8: no session passed or failed*"]
        )
    result.stdout.fnmatch_lines(
        [
            f"requirement gate-health>=0.8: {dict(passed='met', failed='missed', xfailed='cannot-determine')[expected]}: *"
        ]
    )


def test_the_lower_bound_mode_asks_for_the_requirement_met_with_95_percent_confidence(
    pytester: pytest.Pytester, project_metrics: MetricsWriter
) -> None:
    metrics = gate_health_metrics(project_metrics, "p" * 9 + "f")  # 0.9, 95% CI 0.60-0.98
    args = ["--session-eval", str(metrics), "--session-eval-require", "gate-health>=0.8"]
    assert gate_items(pytester.runpytest(*args)) == {REQUIRE: "passed"}
    lower = pytester.runpytest(*args, "--session-eval-require-bound", "lower")
    assert gate_items(lower) == {REQUIRE: "failed"}
    lower.stdout.fnmatch_lines(
        ["*the 95% lower bound 0.60 of the pass rate 0.90 (n = 10, 95% CI 0.60*0.98) is below 0.8*"]
    )
    pytester.makeini("[pytest]\nsession_eval_require = gate-health>=0.5\nsession_eval_require_bound = lower\n")
    assert gate_items(pytester.runpytest("--session-eval", str(metrics))) == {
        "session-eval::require[gate-health>=0.5]": "passed"
    }


@pytest.mark.parametrize(
    ("requirement", "extra", "exit_status"),
    [
        ("gate-health>=0.6", (), 0),  # met, while sessions fail
        ("gate-health>=0.9", (), 1),  # missed
        ("gate-health>=0.6", ("-x",), 1),  # stopped at the first failed session, before the requirement ran
        ("gate-health>=0.6", ("test_other.py",), 1),  # another test fails
    ],
)
def test_the_requirements_gate_decides_the_exit_status_by_the_requirements(
    pytester: pytest.Pytester,
    project_metrics: MetricsWriter,
    requirement: str,
    extra: tuple[str, ...],
    exit_status: int,
) -> None:
    metrics = gate_health_metrics(project_metrics, "pppf")
    pytester.makepyfile(test_other="def test_other():\n    assert False\n")
    args = ["--session-eval", str(metrics), "--session-eval-require", requirement, *extra]
    reports = ("--junitxml", "junit.xml", "--json-report", "--json-report-file", "report.json")
    gated = pytester.runpytest(*args, "--session-eval-gate", "requirements", *reports)
    assert gated.ret == exit_status, gated.stdout.str()
    assert json.loads((pytester.path / "report.json").read_text())["exitcode"] == exit_status
    assert pytester.runpytest(*args).ret == 1  # the default: any failed item fails the run
    if not extra:
        assert outcomes(gated)["metrics/sessions.jsonl::s3[gate-health]"] == "failed"  # its true outcome, still
        failures = [
            case.get("name")
            for case in ET.parse(pytester.path / "junit.xml").iter("testcase")
            if case.find("failure") is not None
        ]
        assert "s3[gate-health]" in failures
        gated.stdout.fnmatch_lines(
            [
                "gate (--session-eval-gate requirements): exit status 0: the requirement and regression items decide it; *"
            ]
            if exit_status == 0
            else [
                "gate (--session-eval-gate requirements): exit status 1: 1 failed item(s) other than the sessions' decide it"
            ]
        )


def _baseline_run(pytester: pytest.Pytester, metrics: Path) -> None:
    """Journal and summarise ``metrics``: the baseline of the runs that follow."""
    result = pytester.runpytest(
        "--session-eval",
        str(metrics),
        "--session-eval-journal",
        "eval.jsonl",
        "--session-eval-model-id",
        "m",
        "--session-eval-summary",
        "baseline.json",
    )
    assert (pytester.path / "eval.jsonl").exists() and (pytester.path / "baseline.json").exists(), result.stdout.str()


@pytest.mark.parametrize("baseline", ["eval.jsonl", "baseline.json"])
def test_a_baseline_with_the_same_data_passes_and_a_real_drop_fails(
    pytester: pytest.Pytester, project_metrics: MetricsWriter, baseline: str
) -> None:
    before = gate_health_metrics(project_metrics, "p" * 18 + "ff", "before")
    _baseline_run(pytester, before)
    same = pytester.runpytest("--session-eval", str(before), "--session-eval-baseline", baseline)
    assert gate_items(same)["session-eval::regression[gate-health]"] == "passed"
    same.stdout.fnmatch_lines(
        [
            "regression gate-health: no-significant-drop: baseline 0.90 (n = 20); this run 0.90 (n = 20); difference 0.00, 95% CI -0.* to +0.* *"
        ]
    )
    after = gate_health_metrics(project_metrics, "p" * 8 + "f" * 12, "after")
    with (pytester.path / "eval.jsonl").open("a") as journal:
        journal.write('{"record_kind": "session-eval", "run_id": "torn\n')  # skipped, and said
    dropped = pytester.runpytest("--session-eval", str(after), "--session-eval-baseline", baseline, "-rA")
    if baseline == "eval.jsonl":
        dropped.stdout.fnmatch_lines(["*SessionEvalInputWarning: eval.jsonl:21: *"])
    items = gate_items(dropped)
    assert items["session-eval::regression[gate-health]"] == "failed"
    assert items["session-eval::regression[efficiency-kpis]"] == "xfailed"  # never graded: n = 0 on both sides
    assert len(items) == 5  # one per dimension of the rubric
    dropped.stdout.fnmatch_lines(
        [
            "session-eval::regression[[]gate-health[]]: significant-drop",
            "gate-health: baseline 0.90 (n = 20); this run 0.40 (n = 20); difference -0.50, 95% CI -0.* to -0.*: wholly below 0*",
        ]
    )


def test_a_baseline_of_another_rubric_text_is_a_usage_error_naming_both_hashes(
    pytester: pytest.Pytester, project_metrics: MetricsWriter
) -> None:
    metrics = gate_health_metrics(project_metrics, "pf")
    _baseline_run(pytester, metrics)
    summary = json.loads((pytester.path / "baseline.json").read_text())
    ours, theirs = summary["rubric_sha256"], "0" * 64
    (pytester.path / "other.json").write_text(json.dumps({**summary, "rubric_sha256": theirs}))
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-baseline", "other.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: --session-eval-baseline: *other.json: the summary was scored with rubric-v1 of rubric_sha256 {theirs}, but this run scores with rubric_sha256 {ours}*"
        ]
    )


def _run_for_reports(pytester: pytest.Pytester, metrics: Path, *extra: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    for name in ("report.json", "summary.json"):
        (pytester.path / name).unlink(missing_ok=True)
    result = pytester.runpytest(
        "--session-eval",
        str(metrics),
        "--session-eval-require",
        "gate-health>=0.8",
        "--session-eval-require",
        "process-safety>=0.5",
        "--session-eval-baseline",
        "eval.jsonl",
        "--session-eval-summary",
        "summary.json",
        "--session-eval-markdown",
        "summary.md",
        "--json-report",
        "--json-report-file",
        "report.json",
        "--junitxml",
        "junit.xml",
        "--session-eval-timestamp",
        "2026-08-01T00:00:00Z",
        *extra,
    )
    report = json.loads((pytester.path / "report.json").read_text())
    return result, report


def test_requirement_and_regression_items_report_the_same_under_xdist(
    pytester: pytest.Pytester, project_metrics: MetricsWriter
) -> None:
    pytest.importorskip("xdist")
    metrics = gate_health_metrics(project_metrics, "pppfffpu")
    _baseline_run(pytester, gate_health_metrics(project_metrics, "p" * 7 + "f", "before"))
    serial, serial_report = _run_for_reports(pytester, metrics)
    serial_summary, serial_markdown = (
        (pytester.path / "summary.json").read_text(),
        (pytester.path / "summary.md").read_text(),
    )
    xdist, xdist_report = _run_for_reports(pytester, metrics, "-n", "2")

    def gate_tests(report: dict[str, Any]) -> list[Any]:
        return sorted(
            (test["nodeid"], test["outcome"], test["metadata"], test["user_properties"])
            for test in report["tests"]
            if test["nodeid"].startswith("session-eval::")
        )

    assert gate_items(serial) == gate_items(xdist) and len(gate_items(serial)) == 7
    assert gate_tests(serial_report) == gate_tests(xdist_report)
    assert serial_report["session_eval"] == xdist_report["session_eval"]
    assert (pytester.path / "summary.json").read_text() == serial_summary
    assert (pytester.path / "summary.md").read_text() == f"{serial_markdown}\n{serial_markdown}"  # appended
    gated = [line for line in serial.stdout.lines if line.startswith(("requirement ", "regression "))]
    assert gated == [line for line in xdist.stdout.lines if line.startswith(("requirement ", "regression "))]
    assert serial.ret == xdist.ret == 1  # gate-health>=0.8 is missed
    met = ["--session-eval-require", "process-safety>=0.5", "--session-eval-gate", "requirements", "-n", "2"]
    gated_xdist = pytester.runpytest("--session-eval", str(metrics), *met)
    assert gated_xdist.ret == 0 and outcomes(gated_xdist)["metrics/sessions.jsonl::s3[gate-health]"] == "failed"
    assert [line.split(":")[0] for line in gated] == [
        "requirement gate-health>=0.8",
        "requirement process-safety>=0.5",
        *(
            f"regression {d}"
            for d in ("verification-evidence", "plan-fidelity", "gate-health", "process-safety", "efficiency-kpis")
        ),
    ]


def test_the_summaries_ci_pages_show_hold_what_the_run_reported(
    pytester: pytest.Pytester, project_metrics: MetricsWriter
) -> None:
    metrics = gate_health_metrics(project_metrics, "pppfffpu")
    _baseline_run(pytester, metrics)
    (pytester.path / "summary.md").write_text("## Earlier step\n")  # a step summary holds what earlier steps wrote
    pytester.makepyfile(test_other="def test_other():\n    pass\n")
    _, report = _run_for_reports(pytester, metrics, "test_other.py")
    schema = json.loads((DOCS / "eval-summary.schema.json").read_text())
    summary = json.loads((pytester.path / "summary.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(summary)
    assert report["session_eval"] == summary
    by_id = {entry["id"]: entry for entry in summary["dimensions"]}
    assert by_id["gate-health"]["counts"] == {"pass": 4, "fail": 3, "not-applicable": 0, "cannot-determine": 1}
    assert [r["requirement"] for r in by_id["gate-health"]["requirements"]] == ["gate-health>=0.8"]
    assert by_id["gate-health"]["requirements"][0]["result"] == "missed"
    assert by_id["gate-health"]["regression"]["result"] == "no-significant-drop"
    for test in report["tests"]:  # the JSON report's items carry each result too
        if test["nodeid"] == REQUIRE:
            assert test["metadata"]["session_eval"]["requirement"] == by_id["gate-health"]["requirements"][0]
    markdown = (pytester.path / "summary.md").read_text()
    assert markdown.startswith("## Earlier step\n\n### Session evaluation (rubric-v1)\n")
    assert "| gate-health | 4 | 3 | 0 | 1 | 0.57 | 7 |" in markdown
    assert "| gate-health\\>=0.8 | missed | 0.57 |" in markdown


def test_selection_narrows_what_a_requirement_counts_and_says_so(
    pytester: pytest.Pytester, project_metrics: MetricsWriter
) -> None:
    metrics = gate_health_metrics(project_metrics, "ppppf")
    args = ["--session-eval", str(metrics), "--session-eval-require", "gate-health>=0.8", "-rA"]
    narrowed = pytester.runpytest(*args, "--deselect", "metrics/sessions.jsonl::s0[gate-health]")
    assert gate_items(narrowed) == {REQUIRE: "failed"}  # 3 of 4: 0.75
    narrowed.stdout.fnmatch_lines(
        ["Counted: the gate-health verdicts of 4 of the 5 session(s) scored in this run, those whose item is selected*"]
    )
    alone = pytester.runpytest(*args, "-m", "pass_rate")
    assert outcomes(alone) == {REQUIRE: "xfailed"}
    assert gate_items(pytester.runpytest(*args, "-k", "gate-health")) == {REQUIRE: "passed"}
    assert gate_items(pytester.runpytest(*args, "-k", "not session_eval")) == {}
    tests_alone = pytester.makepyfile(test_other="def test_other():\n    pass\n")
    assert outcomes(
        pytester.runpytest(
            str(tests_alone), "-o", f"session_eval_paths={metrics}", "-o", "session_eval_require=gate-health>=0.8"
        )
    ) == {"test_other.py::test_other": "passed"}


def test_a_journal_given_as_input_is_held_to_requirements_by_its_latest_records(
    pytester: pytest.Pytester, project_metrics: MetricsWriter
) -> None:
    args = [
        "--session-eval-require",
        "gate-health>=0.7",
        "--session-eval-model-id",
        "m",
        "--session-eval-journal",
        "eval.jsonl",
    ]
    first = gate_health_metrics(project_metrics, "ppff", "first")
    pytester.runpytest("--session-eval", str(first), *args, "--session-eval-timestamp", "2026-08-01T00:00:00Z")
    again = gate_health_metrics(project_metrics, "pppf", "again")  # the same sessions, scored later: s2 passes
    from_sessions = pytester.runpytest(
        "--session-eval", str(again), *args, "--session-eval-timestamp", "2026-08-02T00:00:00Z"
    )
    from_journal = pytester.runpytest(
        "--session-eval", "eval.jsonl", "--session-eval-require", "gate-health>=0.7", "-rA"
    )
    assert (
        gate_items(from_sessions) == gate_items(from_journal) == {"session-eval::require[gate-health>=0.7]": "passed"}
    )
    from_journal.stdout.fnmatch_lines(["*the pass rate 0.75 (n = 4, 95% CI *) is at least 0.7"])
    missed = pytester.runpytest("--session-eval", "eval.jsonl", "--session-eval-require", "gate-health>=0.8", "-rA")
    missed.stdout.fnmatch_lines(["*is below 0.8; failing: eval.jsonl::s3-eval-20260802T000000Z[[]gate-health[]]"])


def test_the_summaries_carry_the_causes_the_terminal_tells(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    for name in ("metrics", "metrics-pre-telemetry"):  # copies: a run on the checkout's would cache there
        copy_example(pytester.path, name)
    result = pytester.runpytest(
        *("--session-eval", "metrics", "--session-eval", "metrics-pre-telemetry"),
        *("--session-eval-summary", "summary.json", "--json-report", "--json-report-file", "report.json"),
    )
    summary = json.loads((pytester.path / "summary.json").read_text())
    jsonschema.Draft202012Validator(json.loads((DOCS / "eval-summary.schema.json").read_text())).validate(summary)
    assert json.loads((pytester.path / "report.json").read_text())["session_eval"] == summary
    told = []  # the terminal's lines, as the summary's causes tell them
    for entry in summary["dimensions"]:
        statuses = dict.fromkeys(cause["status"] for cause in entry["causes"])
        for status in statuses:
            causes = [cause for cause in entry["causes"] if cause["status"] == status]
            assert sum(cause["count"] for cause in causes) == entry["counts"][status]
            parts = "; ".join(f"{cause['count']} {cause['text']}" for cause in causes)
            told.append(f"  {entry['id']}: {sum(c['count'] for c in causes)} {status}: {parts}")
    lines = result.stdout.lines
    start = lines.index("Why verdicts were not decided:") + 1
    assert len(told) > 5 and lines[start : start + len(told) + 1] == [*told, lines[start + len(told)]]
    assert not lines[start + len(told)].startswith("  ")  # and no other line of causes
    causes = {cause["cause"] for entry in summary["dimensions"] for cause in entry["causes"]}
    assert {"peer-overlap", "no-events-file", "reported"} <= causes


@pytest.mark.parametrize("ci", [True, False], ids=["CI", "terminal"])
@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_the_short_summary_gives_a_failed_gate_items_reason_not_its_node_id(
    pytester: pytest.Pytester,
    project_metrics: MetricsWriter,
    monkeypatch: pytest.MonkeyPatch,
    ci: bool,
    workers: tuple[str, ...],
) -> None:
    if workers:
        pytest.importorskip("xdist")
    _baseline_run(pytester, gate_health_metrics(project_metrics, "p" * 18 + "ff", "before"))
    for name in ("CI", "BUILD_NUMBER"):  # a CI run is given every reason whole; a terminal, as wide as it is
        monkeypatch.delenv(name, raising=False)
    if ci:
        monkeypatch.setenv("CI", "true")
    else:
        monkeypatch.setenv("COLUMNS", "300")
    after = gate_health_metrics(project_metrics, "p" * 8 + "f" * 12, "after")
    args = ("--session-eval-require", "gate-health>=0.8", "--session-eval-baseline", "baseline.json", "-rA")
    result = pytester.runpytest("--session-eval", str(after), *args, *workers)
    failed = {
        node: reason
        for node, _, reason in (line.partition(" - ") for line in result.stdout.lines if line.startswith("FAILED "))
    }
    regression = "session-eval::regression[gate-health]"
    reasons = {node.removeprefix("FAILED "): failed[node] for node in failed if "session-eval::" in node}
    assert {REQUIRE, regression} <= set(reasons), result.stdout.str()
    for node, reason in reasons.items():
        assert reason.startswith(("missed: ", "significant-drop: ")) and node not in reason
    assert fnmatch.fnmatch(
        reasons[REQUIRE], "missed: the pass rate 0.40 (n = 20, 95% CI 0.*–0.*) is below 0.8; failing: after/sessions*"
    )
    assert fnmatch.fnmatch(
        reasons[regression],
        "significant-drop: baseline 0.90 (n = 20); this run 0.40 (n = 20); difference -0.50, 95% CI -0.* to -0.*",
    )
    assert fnmatch.fnmatch(
        failed["FAILED after/sessions.jsonl::s8[gate-health]"],
        "1 full-gate event(s) in window; the last * exit_code=2.",
    )


@pytest.mark.parametrize(
    "extra",
    [(), ("-n", "2"), ("--session-eval-require", "gate-health>=0.5", "--session-eval-gate", "requirements")],
    ids=["serial", "xdist", "gated"],
)
def test_a_run_that_scores_no_session_ends_with_5_and_says_so_last(
    pytester: pytest.Pytester, project_metrics: MetricsWriter, extra: tuple[str, ...]
) -> None:
    if "-n" in extra:
        pytest.importorskip("xdist")
    metrics = project_metrics([{"session_id": "a", "status": "abandoned", "started_at": "2026-07-20T09:00:00Z"}])
    result = pytester.runpytest("--session-eval", str(metrics), *extra)
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    last, final = result.stdout.lines[-2:]  # the section's last line, then pytest's
    assert last.startswith("No session was scored: ") and last.endswith("--session-eval-allow-empty accepts it")
    assert "skipped" in final
    accepted = pytester.runpytest("--session-eval", str(metrics), "--session-eval-allow-empty", *extra)
    assert accepted.ret == pytest.ExitCode.OK
    assert accepted.stdout.lines[-2].endswith("accepted by --session-eval-allow-empty")
