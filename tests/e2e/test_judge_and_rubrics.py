"""The advisory judge overlay and pre-registered custom rubrics, through pluggy hooks."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from builders import (
    EXAMPLES,
    MetricsWriter,
    copy_example,
    gate,
    metrics_writer,
    session,
)

DETERMINISTIC = ["verification-evidence", "plan-fidelity", "gate-health", "process-safety", "efficiency-kpis"]


@pytest.fixture
def metrics(project_metrics: MetricsWriter) -> Path:
    return project_metrics(
        [
            session(
                "a",
                "2026-07-20T09:00:00Z",
                "2026-07-20T10:00:00Z",
                total_files_changed=1,
                effectiveness={"completion_rate": 1.0},
                total_token_input=1000,
                total_token_output=200,
            ),
            session(
                "b",
                "2026-07-21T09:00:00Z",
                "2026-07-21T10:00:00Z",
                total_files_changed=1,
                effectiveness={"completion_rate": 0.9},
                total_token_input=900000,
                total_token_output=1,
            ),
        ],
        [gate("2026-07-20T09:30:00Z", 0, "full-gate"), gate("2026-07-21T09:30:00Z", 0, "full-gate")],
    )


JUDGE = """
import json, os
CALLS = os.path.join(os.path.dirname(__file__), "judge-calls.jsonl")

def pytest_sessioneval_judge(record):
    with open(CALLS, "a") as calls:
        calls.write(json.dumps({"session_id": record["session_id"], "dimensions": [d["id"] for d in record["dimensions"]]}) + "\\n")
    if record["session_id"] == "a":
        return [
            {"id": "instruction-adherence", "status": "pass", "evidence": "followed the rules", "method": "deterministic", "advisory": False},
            {"id": "report-quality", "status": "fail", "evidence": "vague summary", "score": 0.2},
        ]
    return [{"id": "report-quality", "status": "not-applicable", "evidence": "nothing reported"}]
"""


def calls(pytester: pytest.Pytester) -> list[dict[str, Any]]:
    path = pytester.path / "judge-calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_the_judge_is_off_by_default(pytester: pytest.Pytester, metrics: Path) -> None:
    pytester.makeconftest(JUDGE)
    result = pytester.runpytest("--session-eval", str(metrics), "--co", "-q")
    assert not any("instruction-adherence" in line for line in result.stdout.lines)
    assert calls(pytester) == []


def test_judge_items_are_advisory_and_never_fail_the_run(pytester: pytest.Pytester, metrics: Path) -> None:
    pytester.makeconftest(JUDGE)
    result = pytester.runpytest(
        "--session-eval", str(metrics), "--session-eval-judge", "-v", "-rxs", "-p", "no:randomly"
    )
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=4 + 4 + 1, skipped=2 + 1, xfailed=1)
    result.stdout.fnmatch_lines_random(
        [
            "*sessions.jsonl::a?instruction-adherence? PASSED*",
            "*sessions.jsonl::a?report-quality? XFAIL*",
            "*sessions.jsonl::b?report-quality? SKIPPED*",
            "*fail (advisory, uncalibrated): vague summary*",
            "*not-applicable (advisory, uncalibrated): session 'b', report-quality: nothing reported*",
            "Advisory judge verdicts (uncalibrated; not part of the evaluation above, never fail the run):",
            "instruction-adherence *1     0               0                 0",
            "report-quality *0     1               1                 0",
            "rubric-v1: 2 session(s) scored",
        ]
    )
    assert calls(pytester) == [{"session_id": s, "dimensions": DETERMINISTIC} for s in ("a", "b")]
    deterministic_only = pytester.runpytest("--session-eval", str(metrics), "--session-eval-judge", "-m", "not judge")
    deterministic_only.assert_outcomes(passed=8, skipped=2)
    runxfail = pytester.runpytest(
        "--session-eval", str(metrics), "--session-eval-judge", "--runxfail", "-m", "judge", "-rs"
    )
    assert runxfail.ret == pytest.ExitCode.OK
    runxfail.assert_outcomes(passed=1, skipped=2)  # a judge's fail is never shown as a pass
    # The skip names the session's place in the data, not a line of this package.
    runxfail.stdout.fnmatch_lines(
        ["SKIPPED [[]1[]] metrics/sessions.jsonl: fail (advisory, uncalibrated, not run under --runxfail): session *"]
    )


@pytest.mark.parametrize(
    ("args", "asked", "deterministic_runs"),
    [
        (("--co",), False, False),
        (("-m", "not judge"), False, True),
        (("-m", "not judge and not nothing"), False, True),
        (("-m", "deterministic"), False, True),
        (("-m", "deterministic and not judge"), False, True),
        (("-m", "not xdist_group"), False, False),  # every item of a session carries it
        (("-m", "judge(_marks=1)"), False, False),  # marker arguments (a syntax error before pytest 8.1)
        (("-m", "judge"), True, False),
        (("-m", "xfail or deterministic"), True, True),  # a judge's fail is marked xfail
        (("-m", "not deterministic"), True, False),
        (("-k", "gate-health"), False, True),
        (("-k", "not judge"), False, True),
        (("-k", "judge(x=1)"), False, False),  # call parameters: pytest refuses them (a syntax error before pytest 8.1)
        (("-k", "report"), True, False),
    ],
)
def test_judges_are_asked_only_when_a_judge_item_can_run(
    pytester: pytest.Pytester, metrics: Path, args: tuple[str, ...], asked: bool, deterministic_runs: bool
) -> None:
    # An LLM judge costs a call per session: none for --co or a run that -m keeps to the
    # deterministic items.
    pytester.makeconftest(JUDGE)
    result = pytester.runpytest(
        "--session-eval",
        str(metrics),
        "--session-eval-judge",
        "--session-eval-journal",
        "eval.jsonl",
        "--session-eval-model-id",
        "m",
        *args,
    )
    assert len(calls(pytester)) == (2 if asked else 0)
    assert result.ret != pytest.ExitCode.INTERNAL_ERROR
    if deterministic_runs and not asked:
        # Said in the summary; records hold the deterministic dimensions alone.
        result.stdout.fnmatch_lines(["judges: not asked, since no judge item runs in this run*"])
        records = [json.loads(line) for line in (pytester.path / "eval.jsonl").read_text().splitlines()]
        assert records and all(d["method"] == "deterministic" for r in records for d in r["dimensions"])


@pytest.mark.parametrize(
    ("args", "asked", "outcomes"),
    [
        (("metrics/sessions.jsonl::a",), ["a"], {"passed": 5, "skipped": 1, "xfailed": 1}),
        (("metrics/sessions.jsonl::a[report-quality]",), ["a"], {"xfailed": 1}),
        (("./metrics/../metrics/sessions.jsonl::b[instruction-adherence]",), ["b"], {}),  # b has no such verdict
        (("metrics/sessions.jsonl::a[gate-health]",), [], {"passed": 1}),  # a deterministic item alone
        (("metrics/sessions.jsonl::a[gate-health]", "metrics/sessions.jsonl::b"), ["b"], {"passed": 5, "skipped": 2}),
        (("metrics/sessions.jsonl::a::x",), [], {}),  # an item has no children: nothing is collected
        (("metrics/sessions.jsonl",), ["a", "b"], {"passed": 9, "skipped": 3, "xfailed": 1}),
        (("metrics",), ["a", "b"], {"passed": 9, "skipped": 3, "xfailed": 1}),
        ((".",), ["a", "b"], {"passed": 10, "skipped": 3, "xfailed": 1}),  # test_other.py too
        (("metrics", "metrics/sessions.jsonl::a"), ["a", "b"], None),  # what is collected differs from pytest 8.0 to 9
        (("test_other.py",), [], {"passed": 1}),  # the ini's data is not collected then
        # --deselect takes node id prefixes, of items, of a session or of the file
        (
            ("metrics", "--deselect", "metrics/sessions.jsonl::a[report-quality]"),
            ["a", "b"],
            {"passed": 9, "skipped": 3},
        ),
        (
            (
                "metrics",
                "--deselect",
                "metrics/sessions.jsonl::a[report-quality]",
                "--deselect",
                "metrics/sessions.jsonl::a[instr",
            ),
            ["b"],
            {"passed": 8, "skipped": 3},
        ),
        (("metrics", "--deselect", "metrics/sessions.jsonl::a"), ["b"], {"passed": 4, "skipped": 2}),
        (("metrics", "--deselect", "metrics/sessions.jsonl"), [], {}),
        (
            ("metrics", "--deselect", "metrics/sessions.jsonl::a[gate-health]"),
            ["a", "b"],
            {"passed": 8, "skipped": 3, "xfailed": 1},
        ),
        (
            ("metrics", "--deselect", "./metrics/sessions.jsonl::a"),
            ["a", "b"],
            {"passed": 9, "skipped": 3, "xfailed": 1},
        ),  # no node id
        (
            ("metrics/sessions.jsonl::a", "--deselect", "metrics/sessions.jsonl::a[report"),
            ["a"],
            {"passed": 5, "skipped": 1},
        ),
        (
            ("--rootdir", "metrics", "--deselect", "sessions.jsonl::b", "metrics"),
            ["a"],
            {"passed": 5, "skipped": 1, "xfailed": 1},
        ),
        (
            ("--rootdir", "run", "--deselect", "../metrics/sessions.jsonl::b", "metrics"),
            ["a"],
            {"passed": 5, "skipped": 1, "xfailed": 1},
        ),
    ],
)
def test_node_ids_ask_judges_only_about_the_sessions_whose_judge_items_they_select(
    pytester: pytest.Pytester, metrics: Path, args: tuple[str, ...], asked: list[str], outcomes: dict[str, int] | None
) -> None:
    # A look at one session must not cost a model call for every session of the file.
    pytester.makeconftest(JUDGE)
    pytester.makeini("[pytest]\nsession_eval_paths = metrics\nsession_eval_judge = true\n")
    pytester.makepyfile(test_other="def test_other():\n    pass\n")
    pytester.mkdir("run")  # a rootdir beside the data
    result = pytester.runpytest("-p", "no:randomly", *args)
    assert [call["session_id"] for call in calls(pytester)] == asked
    if outcomes is not None:
        result.assert_outcomes(**outcomes)
    if not asked:
        result.stdout.fnmatch_lines(["judges: not asked, since no judge item runs in this run*"])
    elif len(asked) == 1:
        result.stdout.fnmatch_lines(
            ["judges: asked about 1 of 2 scored session(s); the paths, node ids, -m, -k and --deselect given*"]
        )
    else:
        result.stdout.no_fnmatch_line("judges:*")


def test_node_ids_select_judged_sessions_by_their_escaped_names_also_under_xdist(
    pytester: pytest.Pytester, project_metrics: MetricsWriter
) -> None:
    project_metrics(
        [session(sid, total_files_changed=1) for sid in ("a[1]", "ä::x", "a")],
        [gate("2026-07-20T09:30:00Z", 0, "full-gate")],
    )
    pytester.makeconftest(JUDGE.replace('== "a"', '.startswith("a")'))
    serial = pytester.runpytest(
        "metrics/sessions.jsonl::a\\x5b1\\x5d",
        "--session-eval",
        "metrics",
        "--session-eval-judge",
        "-p",
        "no:randomly",
        "-v",
    )
    assert [call["session_id"] for call in calls(pytester)] == ["a[1]"]
    serial.assert_outcomes(passed=2, skipped=2, xfailed=3)  # three items judged
    (pytester.path / "judge-calls.jsonl").unlink()
    for run in (("-n", "2"), ()):
        result = pytester.runpytest(
            "metrics/sessions.jsonl::\\xe4:\\x3ax[report-quality]",
            "--session-eval",
            "metrics",
            "--session-eval-judge",
            "-p",
            "no:randomly",
            *run,
        )
        assert [call["session_id"] for call in calls(pytester)] == ["ä::x"]
        result.assert_outcomes(skipped=1)
        (pytester.path / "judge-calls.jsonl").unlink()


# Which sessions' judge items -k (or -m) selects, as pytest itself decides it, in a run that
# asks the judge about every session: what a run with -k (or -m) must have asked about.
TRUTH = """
import json, os
from _pytest.mark import KeywordMatcher, MarkMatcher
from _pytest.mark.expression import Expression

MATCHERS = {
    "K_TRUTH": KeywordMatcher.from_item,
    "M_TRUTH": lambda item: MarkMatcher.from_markers(item.iter_markers()),
}

def pytest_collection_modifyitems(config, items):
    for name, matcher in MATCHERS.items():
        if name in os.environ:
            compiled = Expression.compile(os.environ[name])
            selected = {
                item.evaluation.session_id for item in items
                if item.get_closest_marker("judge") and compiled.evaluate(matcher(item))
            }
            with open(os.path.join(os.path.dirname(__file__), "truth.json"), "w") as out:
                json.dump(sorted(selected), out)
"""


def selection_truth(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, option: str, expression: str, *args: str
) -> list[str]:
    """The sessions whose judge items ``-k`` or ``-m`` (``option``) selects, by pytest (see TRUTH)."""
    (pytester.path / "truth.json").unlink(missing_ok=True)
    monkeypatch.setenv(f"{option[1].upper()}_TRUTH", expression)
    pytester.runpytest(*args, "--session-eval-judge", "-p", "no:randomly")
    monkeypatch.delenv(f"{option[1].upper()}_TRUTH")
    return json.loads((pytester.path / "truth.json").read_text())  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("keywords", "asked"),
    [
        ("b", ["b"]),
        ("a", ["a", "b"]),  # every item's keywords hold an "a": session_eval
        ("b and report", ["b"]),
        ("b and not report", ["b"]),  # b[instruction-adherence], had the judge an opinion on it
        ("b and not judge", []),
        ("not b and adherence", ["a"]),
        ("B[INSTRUCTION", ["b"]),  # any case, any part of the item's name
        ("xfail", ["a", "b"]),  # a judge's fail is marked xfail, whoever the judge fails
        ("metrics", ["a", "b"]),  # the directory of the file
        ("not metrics", []),  # pytest counts every directory below the first it walks through
        ("judgeless", []),
    ],
)
def test_k_asks_judges_only_about_the_sessions_whose_judge_items_it_can_select(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, metrics: Path, keywords: str, asked: list[str]
) -> None:
    pytester.makeconftest(JUDGE)
    result = pytester.runpytest(
        "--session-eval", str(metrics), "--session-eval-judge", "-k", keywords, "-p", "no:randomly"
    )
    assert [call["session_id"] for call in calls(pytester)] == asked
    assert result.ret != pytest.ExitCode.INTERNAL_ERROR
    # No judge item that -k selects is missing from the run.
    (pytester.path / "judge-calls.jsonl").unlink(missing_ok=True)
    pytester.makeconftest(JUDGE + TRUTH)
    assert set(selection_truth(pytester, monkeypatch, "-k", keywords, "--session-eval", str(metrics))) <= set(asked)


@pytest.mark.parametrize(
    ("keywords", "asked"), [("elsewhere", []), ("metrics", ["a", "b"]), ("not elsewhere", ["a", "b"])]
)
def test_k_reads_the_directories_pytest_walks_through_to_data_outside_the_rootdir(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, keywords: str, asked: list[str]
) -> None:
    # pytest starts the walk to a file outside the rootdir below the directories they share:
    # "elsewhere" hangs directly under the session, and is no keyword of the items.
    pytester.makeini("[pytest]\n")
    metrics = metrics_writer(pytester.path.parent / f"elsewhere-{pytester.path.name}")(
        [session("a", total_files_changed=1), session("b", "2026-07-21T09:00:00Z", "2026-07-21T10:00:00Z")], []
    )
    pytester.makeconftest(JUDGE)
    pytester.runpytest(f"--session-eval={metrics}", "--session-eval-judge", "-k", keywords, "-p", "no:randomly")
    assert [call["session_id"] for call in calls(pytester)] == asked
    pytester.makeconftest(JUDGE + TRUTH)
    assert selection_truth(pytester, monkeypatch, "-k", keywords, f"--session-eval={metrics}") == asked


@pytest.mark.skipif(pytest.version_tuple < (8, 1), reason="marker arguments in -m came with pytest 8.1")
@pytest.mark.parametrize(
    ("markers", "asked"),
    [
        ("xfail(run=False)", ["a", "b"]),  # a judge's fail or cannot-determine, whoever gets it
        ("xfail(run=True)", []),
        ("skip(reason='x')", ["a", "b"]),  # the reason is the judge's evidence: not known before
        ("xdist_group(name='session-eval:b')", ["b"]),
        ("judge and not xdist_group(name='session-eval:b')", ["a"]),
        ("deterministic(run=False)", []),
    ],
)
def test_m_with_marker_arguments_asks_about_the_sessions_it_can_select(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, metrics: Path, markers: str, asked: list[str]
) -> None:
    pytester.makeconftest(JUDGE)
    pytester.runpytest("--session-eval", str(metrics), "--session-eval-judge", "-m", markers, "-p", "no:randomly")
    assert [call["session_id"] for call in calls(pytester)] == asked
    pytester.makeconftest(JUDGE + TRUTH)
    assert set(selection_truth(pytester, monkeypatch, "-m", markers, "--session-eval", str(metrics))) <= set(asked)


@pytest.mark.skipif(pytest.version_tuple < (8, 1), reason="call parameters in -k parse from pytest 8.1")
def test_k_reading_that_reaches_call_parameters_leaves_the_other_readings_open(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, metrics: Path
) -> None:
    # Under --pyargs any directory above the file may be a keyword. Read as one, the name of
    # the directory above the rootdir makes "x(y=1)" reached (pytest refuses it); read as
    # none, the expression holds without reaching it, as it does in pytest.
    keywords = f"not {pytester.path.parent.name} or x(y=1)"
    pytester.makeconftest(JUDGE + TRUTH)
    args = ("--pyargs", "--session-eval", str(metrics))
    pytester.runpytest(*args, "--session-eval-judge", "-k", keywords)
    assert [call["session_id"] for call in calls(pytester)] == ["a", "b"]
    assert selection_truth(pytester, monkeypatch, "-k", keywords, *args) == ["a", "b"]


@pytest.mark.parametrize(("keywords", "asked"), [("metrics/sess", ["a", "b"]), (None, [])])
def test_k_reads_the_name_of_a_file_that_hangs_directly_under_the_session(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, metrics: Path, keywords: str | None, asked: list[str]
) -> None:
    # With the confcutdir below the data, the file hangs directly under the session and its
    # node name is its path from the rootdir: no directory above the rootdir is a keyword.
    (metrics / "sub").mkdir()
    keywords = keywords or pytester.path.name
    pytester.syspathinsert()  # the judge is a plugin: the confcutdir leaves out the conftest.py of the rootdir
    pytester.makepyfile(judge_plugin=JUDGE + TRUTH)
    args = ("-p", "judge_plugin", "--session-eval", str(metrics), "--confcutdir", "metrics/sub")
    pytester.runpytest(*args, "--session-eval-judge", "-k", keywords)
    assert [call["session_id"] for call in calls(pytester)] == asked
    assert selection_truth(pytester, monkeypatch, "-k", keywords, *args) == asked


def test_k_reads_every_way_pytest_takes_to_a_file_it_collects_twice(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Through the rootdir the file hangs below the directory "data"; given itself, with the
    # confcutdir below it, directly under the session, named "data/sessions.jsonl".
    metrics_writer(pytester.path)([session("s1", total_files_changed=1)], [], directory="data")
    (pytester.path / "data" / "x").mkdir()
    pytester.makeini("[pytest]\nsession_eval_paths = data\n")
    pytester.syspathinsert()
    pytester.makepyfile(judge_plugin=JUDGE + TRUTH)
    args = (
        "-p",
        "judge_plugin",
        "--keep-duplicates",
        "--confcutdir=data/x",
        ".",
        "data/sessions.jsonl",
    )  # the rootdir, and the data file
    pytester.runpytest("--session-eval-judge", "-k", "data/sess and s1", *args)
    assert [call["session_id"] for call in calls(pytester)] == ["s1"]
    assert selection_truth(pytester, monkeypatch, "-k", "data/sess and s1", *args) == ["s1"]


@pytest.mark.parametrize("args", [("--session-eval", "metrics"), ("--policy-eval", "prompts.jsonl")])
def test_without_pytests_skipping_plugin_a_run_is_a_usage_error(
    pytester: pytest.Pytester, metrics: Path, args: tuple[str, ...]
) -> None:
    # Skips and xfails are markers that plugin carries out: without it they would pass.
    (pytester.path / "prompts.jsonl").write_bytes((EXAMPLES / "policy" / "prompts.jsonl").read_bytes())
    result = pytester.runpytest(*args, "--session-eval-judge", "-p", "no:skipping")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {args[0]}: needs pytest's skipping plugin, which -p no:skipping turns off*"])


def test_judged_sessions_are_read_from_the_paths_collected_whichever_plugin_settles_them(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    # The plugin that sets the paths to collect may be registered by the policy plugin before
    # the session plugin registers its run, so that its session start comes later: simulated
    # here by registering the run again, last. The session plugin reads the paths once they
    # are set: its data replaces testpaths, and both sessions are judged.
    pytester.makeconftest(
        JUDGE
        + """
import pytest

@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    run = config.pluginmanager.get_plugin("session-eval-run")
    config.pluginmanager.unregister(run)
    config.pluginmanager.register(run, "session-eval-run")
"""
    )
    pytester.makeini("[pytest]\ntestpaths = tests\n")
    (pytester.path / "tests").mkdir()
    (pytester.path / "prompts.jsonl").write_bytes((EXAMPLES / "policy" / "prompts.jsonl").read_bytes())
    result = pytester.runpytest(
        "--session-eval", "metrics", "--session-eval-judge", "--policy-eval", "prompts.jsonl", "-p", "no:randomly"
    )
    assert [call["session_id"] for call in calls(pytester)] == ["a", "b"]
    result.stdout.no_fnmatch_line("judges:*")
    assert result.parseoutcomes()["xfailed"] == 1  # a's report-quality


def test_the_firewall_stamps_judge_fields_and_records_carry_them_last(pytester: pytest.Pytester, metrics: Path) -> None:
    pytester.makeconftest(JUDGE)
    pytester.runpytest(
        "--session-eval",
        str(metrics),
        "--session-eval-judge",
        "--session-eval-journal",
        "eval.jsonl",
        "--session-eval-model-id",
        "m",
        "--session-eval-timestamp",
        "2026-08-01T00:00:00Z",
    )
    record = json.loads((pytester.path / "eval.jsonl").read_text().splitlines()[0])
    assert [d["id"] for d in record["dimensions"]] == [*DETERMINISTIC, "instruction-adherence", "report-quality"]
    adherence, quality = record["dimensions"][5:]
    assert adherence == {
        "id": "instruction-adherence",
        "method": "judge",
        "status": "pass",
        "evidence": "followed the rules",
        "advisory": True,
        "calibration_status": "uncalibrated",
    }
    assert quality["score"] == 0.2 and quality["advisory"] is True
    assert all("advisory" not in d for d in record["dimensions"][:5])
    verify = pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl", "-rs")
    verify.assert_outcomes(
        passed=13, skipped=3
    )  # five dimensions and the record's own fields, of two sessions; the seal
    verify.stdout.fnmatch_lines(["*judge dimension: advisory and not re-verifiable*"])


def test_a_session_whose_judge_items_alone_ran_is_journaled_drawn_and_counted(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    pytester.makeconftest(JUDGE)
    result = pytester.runpytest(
        "--session-eval",
        str(metrics),
        "--session-eval-judge",
        "-m",
        "judge",
        "--session-eval-journal",
        "eval.jsonl",
        "--session-eval-model-id",
        "m",
        "--session-eval-timestamp",
        "2026-08-01T00:00:00Z",
        "--session-eval-html",
        "page.html",
    )
    scored = len({json.loads(line)["session_id"] for line in (pytester.path / "eval.jsonl").read_text().splitlines()})
    assert scored > 0
    result.stdout.fnmatch_lines(
        [
            f"rubric-v1: {scored} session(s) scored*",
            "journal eval.jsonl: {scored} record(s) appended*".replace("{scored}", str(scored)),
        ]
    )
    assert "Sessions (0)" not in (pytester.path / "page.html").read_text()


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (
            '[{"id": "plan-fidelity", "status": "pass", "evidence": ""}]',
            "*'plan-fidelity' is a deterministic dimension of rubric-v1*",
        ),
        (
            '[{"id": "vibes", "status": "pass", "evidence": ""}]',
            '*"vibes" is not a judge dimension rubric-v1 pre-registers*',
        ),
        ('[{"id": "report-quality", "status": "great", "evidence": ""}]', '*status "great" is not one of*'),
        ('[{"id": "report-quality", "status": "pass", "evidence": None}]', "*evidence must be a string*"),
        (
            '[{"id": "report-quality", "status": "pass", "evidence": "", "score": "9"}]',
            '*score must be a finite number (integers of at most 64 bits) or null, got "9"*',
        ),
        (
            '[{"id": "report-quality", "status": "pass", "evidence": "", "score": 10**5000}]',
            "*score must be a finite number*got an integer of 16610 bits*",
        ),
        ('{"id": "report-quality"}', "*returned dict; expected a list of verdicts or None*"),
    ],
)
def test_judge_contract_violations_name_the_plugin(
    pytester: pytest.Pytester, metrics: Path, answer: str, message: str
) -> None:
    pytester.makeconftest(f"def pytest_sessioneval_judge(record):\n    return {answer}\n")
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-judge")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines_random(["*--session-eval-judge: judge plugin '*conftest.py'*", message])


@pytest.mark.parametrize("timeout", [(), ("--session-eval-judge-timeout", "5")])
def test_a_judge_that_exits_is_an_infrastructure_failure_too(
    pytester: pytest.Pytester, metrics: Path, timeout: tuple[str, ...]
) -> None:
    pytester.makeconftest("import sys\ndef pytest_sessioneval_judge(record):\n    sys.exit(3)\n")
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-judge", *timeout, "-rx")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*Judge infrastructure failure: judge plugin*raised SystemExit: 3*"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_a_judge_that_raises_or_times_out_is_an_infrastructure_failure(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    pytester.makeconftest(
        "import time\n"
        "def pytest_sessioneval_judge(record):\n"
        "    if record['session_id'] == 'a':\n"
        "        raise ConnectionError('judge endpoint unreachable')\n"
        "    time.sleep(5)\n"
    )
    result = pytester.runpytest(
        "--session-eval", str(metrics), "--session-eval-judge", "--session-eval-judge-timeout", "0.2", "-rx"
    )
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=8, skipped=2, xfailed=4)
    result.stdout.fnmatch_lines_random(
        [
            "*cannot-determine (advisory, uncalibrated): Judge infrastructure failure: judge plugin*raised ConnectionError: judge endpoint unreachable*",
            "*cannot-determine (advisory, uncalibrated): Judge infrastructure failure: judge plugin*timed out after 0.2 s*",
        ]
    )
    for bad in ("soon", "inf", "1e10", "nan", "-1", "1_0", "\uff15", ""):  # (float() takes "1_0" and a full-width 5)
        bad_timeout = pytester.runpytest(
            "--session-eval", str(metrics), "--session-eval-judge", "--session-eval-judge-timeout", bad
        )
        assert bad_timeout.ret == pytest.ExitCode.USAGE_ERROR, bad
        bad_timeout.stderr.fnmatch_lines(["ERROR: --session-eval-judge-timeout: *"])


def test_under_xdist_each_session_is_judged_once(pytester: pytest.Pytester, metrics: Path) -> None:
    pytest.importorskip("xdist")
    pytester.makeconftest(JUDGE)
    result = pytester.runpytest_subprocess("--session-eval", str(metrics), "--session-eval-judge", "-n", "2")
    result.assert_outcomes(passed=9, skipped=3, xfailed=1)
    assert sorted(c["session_id"] for c in calls(pytester)) == ["a", "b"]


def test_the_human_verdict_judge_example(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    judge, metrics = copy_example(pytester.path, "judge"), copy_example(pytester.path, "metrics")
    pytester.syspathinsert(judge)
    result = pytester.runpytest(
        "-p",
        "human_judge",
        "--human-verdicts",
        str(judge / "human-verdicts.jsonl"),
        "--session-eval",
        str(metrics),
        "--session-eval-judge",
        "-m",
        "judge",
        "-v",
    )
    result.assert_outcomes(passed=2, skipped=1, xfailed=2)
    result.stdout.fnmatch_lines_random(
        [
            "*main-2026-07-21-session-1?instruction-adherence? XFAIL*",
            "*main-2026-07-20-session-1?report-quality? PASSED*",
        ]
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--human-verdicts", "missing.jsonl", "--session-eval", "metrics"),
            "ERROR: --human-verdicts: missing.jsonl: cannot be read*",
        ),
        (
            ("--human-verdicts", "list.jsonl", "--session-eval", "metrics"),
            "ERROR: --human-verdicts: list.jsonl:1: not a verdict*",
        ),
        (
            ("--human-verdicts", "id.jsonl", "--session-eval", "metrics"),
            "ERROR: --human-verdicts: id.jsonl:1: not a verdict*",
        ),
        (
            ("--human-verdicts", "deep.jsonl", "--session-eval", "metrics"),
            "ERROR: --human-verdicts: deep.jsonl:1: not a verdict*",
        ),
        (
            ("--human-verdicts", "judge/human-verdicts.jsonl", "--session-eval", "missing"),
            "ERROR: --session-eval: *missing*",
        ),
        (
            (
                "--human-verdicts",
                "judge/human-verdicts.jsonl",
                "--session-eval",
                "metrics",
                "--session-eval-since",
                "2026-13-01",
            ),
            "ERROR: --session-eval-since*",
        ),
    ],
)
def test_the_human_verdict_judge_example_keeps_usage_errors_plain(
    pytester: pytest.Pytester, args: tuple[str, ...], message: str
) -> None:
    pytester.makeini("[pytest]\n")
    (pytester.path / "list.jsonl").write_text("[1, 2]\n")
    (pytester.path / "id.jsonl").write_text('{"session_id": ["x"]}\n')
    (pytester.path / "deep.jsonl").write_text("[" * 100_000 + "]" * 100_000 + "\n")
    copy_example(pytester.path, "metrics")
    pytester.syspathinsert(copy_example(pytester.path, "judge"))
    result = pytester.runpytest("-p", "human_judge", *args, "--session-eval-judge")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def load_token_budget(pytester: pytest.Pytester) -> None:
    pytester.syspathinsert(copy_example(pytester.path, "rubrics"))


def test_the_token_budget_rubric_example(pytester: pytest.Pytester, metrics: Path) -> None:
    load_token_budget(pytester)
    result = pytester.runpytest(
        "-p",
        "token_budget",
        "--session-eval",
        str(metrics),
        "--session-eval-rubric",
        "token-budget-v1",
        "-k",
        "token-budget",
        "-v",
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*b?token-budget? FAILED*", "*900001 tokens (input 900000 + output 1) > budget 300000*"]
    )
    result.stdout.fnmatch_lines(["token-budget-v1: 2 session(s) scored"])


def test_a_journal_of_two_rubric_versions_verifies_each_record_with_its_own(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    load_token_budget(pytester)
    base = (
        "-p",
        "token_budget",
        "--session-eval",
        str(metrics),
        "--session-eval-journal",
        "eval.jsonl",
        "--session-eval-model-id",
        "m",
    )
    pytester.runpytest(*base, "--session-eval-timestamp", "2026-08-01T00:00:00Z")
    pytester.runpytest(
        *base, "--session-eval-timestamp", "2026-08-02T00:00:00Z", "--session-eval-rubric", "token-budget-v1"
    )
    records = [json.loads(line) for line in (pytester.path / "eval.jsonl").read_text().splitlines()]
    assert sorted({r["rubric_version"] for r in records}) == ["rubric-v1", "token-budget-v1"]
    stored = sum(len(r["dimensions"]) for r in records)
    for chosen in ((), ("--session-eval-rubric", "token-budget-v1")):  # whichever the run names
        verify = pytester.runpytest(
            "-p", "token_budget", "--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl", *chosen
        )
        assert verify.ret == pytest.ExitCode.OK, verify.stdout.str()
        verify.assert_outcomes(passed=stored + len(records) + 2)  # and each record's own fields, each run's seal


def test_a_custom_rubric_is_bound_to_its_text_in_the_journal(pytester: pytest.Pytester, metrics: Path) -> None:
    load_token_budget(pytester)
    text = EXAMPLES / "rubrics" / "token-budget-v1.md"
    digest = hashlib.sha256(text.read_bytes()).hexdigest()
    args = (
        "-p",
        "token_budget",
        "--session-eval",
        str(metrics),
        "--session-eval-rubric",
        "token-budget-v1",
        "--session-eval-journal",
        "eval.jsonl",
        "--session-eval-model-id",
        "m",
        "--session-eval-timestamp",
        "2026-08-01T00:00:00Z",
    )
    pytester.runpytest(*args)
    records = [json.loads(line) for line in (pytester.path / "eval.jsonl").read_text().splitlines()]
    assert {(r["rubric_version"], r["provenance"]["rubric_sha256"]) for r in records} == {("token-budget-v1", digest)}
    assert [d["id"] for d in records[0]["dimensions"]] == [*DETERMINISTIC, "token-budget"]
    edited = dict(records[0], run_id="older", provenance={"rubric_sha256": "f" * 64, "engine_commit": None})
    (pytester.path / "eval.jsonl").write_text(json.dumps(edited) + "\n")
    refused = pytester.runpytest(*args)
    assert refused.ret == pytest.ExitCode.TESTS_FAILED
    refused.stdout.fnmatch_lines(
        ["*REFUSED*binds token-budget-v1 to rubric_sha256 ffff*the rubric was edited in place*"]
    )
    verify = pytester.runpytest(
        "-p", "token_budget", "--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl"
    )
    verify.stdout.fnmatch_lines(["*stored rubric_sha256 ffff* differs from the current token-budget-v1 text*"])


RUBRIC_PLUGIN = """
from pathlib import Path
import pytest
from pytest_sessioneval import Dimension, Rubric, Verdict

TEXT = Path(__file__).with_name("r.md")
TEXT.write_text("my rubric")

def pytest_sessioneval_rubrics():
    return [{rubric}]
"""


@pytest.mark.parametrize(
    "report", [("--junitxml=r.md",), ("--json-report", "--json-report-file=r.md"), ("--session-eval-html", "r.md")]
)
def test_no_report_of_the_run_replaces_a_rubric_text(
    pytester: pytest.Pytester, metrics: Path, report: tuple[str, ...]
) -> None:
    # The text's sha256 goes into every record: written over, the next records would not verify.
    pytester.makeconftest(
        RUBRIC_PLUGIN.format(rubric='Rubric("mine", TEXT, (Dimension("x", lambda c: Verdict("pass", "")),))')
    )
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-rubric", "mine", *report)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: *r.md is the text of rubric mine of this run*"])
    assert (pytester.path / "r.md").read_text() == "my rubric"


@pytest.mark.parametrize(
    ("rubric", "message"),
    [
        (
            'Rubric("mine", TEXT, (Dimension("x", lambda c: Verdict("great", "")),))',
            "*scorer of 'x' returned*status among pass, fail, not-applicable, cannot-determine*",
        ),
        ('Rubric("mine", TEXT, (Dimension("x", lambda c: "pass"),))', "*scorer of 'x' returned 'pass'*"),
        (
            'Rubric("mine", TEXT, (Dimension("x", lambda c: None), Dimension("x", lambda c: None)))',
            "*dimension ids collide: x*",
        ),
        ('Rubric("mine", TEXT, (Dimension("x", lambda c: None),), judge_ids=("x",))', "*dimension ids collide: x*"),
        (
            'Rubric("rubric-v1", TEXT, (Dimension("x", lambda c: Verdict("pass", "")),))',
            "*rubric 'rubric-v1' is already registered*",
        ),
        (
            'Rubric("mine", TEXT.with_name("missing.md"), (Dimension("x", lambda c: Verdict("pass", "")),))',
            "*rubric text *missing.md not found*",
        ),
        ('"not a rubric"', "*registered 'not a rubric', not a Rubric*"),
        (
            'Rubric("mine", TEXT, (Dimension("x", lambda c: Verdict("pass", c.record["nope"])),))',
            "*metrics/sessions.jsonl:1 (session 'a'): rubric 'mine': scorer of 'x' raised KeyError: 'nope'*",
        ),
        (
            'Rubric("mine", TEXT, (Dimension("x", lambda c: exec("raise SystemExit(3)")),))',
            "*metrics/sessions.jsonl:1 (session 'a'): rubric 'mine': scorer of 'x' raised SystemExit: 3*",
        ),
        (
            'Rubric("mine", TEXT, (Dimension("x", lambda c: Verdict("pass", "e", score="high"), scored=True),))',
            "*sessions.jsonl:1 (session 'a'): rubric 'mine': scorer of 'x' returned*a finite number or None as score*",
        ),
        (
            'Rubric("mine", TEXT, (Dimension("x", lambda c: Verdict("pass", "e", score=float("inf")), scored=True),))',
            "*sessions.jsonl:1 (session 'a'): rubric 'mine': scorer of 'x' returned*a finite number or None as score*",
        ),
        (
            'Rubric("mine", TEXT, (Dimension("x", lambda c: Verdict("fail", 42)),))',
            "*sessions.jsonl:1 (session 'a'): rubric 'mine': scorer of 'x' returned*evidence text*",
        ),
        # a scorer's exception whose str() raises, an answer whose repr() raises: told, no crash
        (
            'Rubric("mine", TEXT, (Dimension("x", lambda c: (_ for _ in ()).throw(type("Untold", (Exception,), {"__str__": lambda e: 1 / 0})())),))',
            "*sessions.jsonl:1 (session 'a'): rubric 'mine': scorer of 'x' raised Untold: <exception str() failed>*",
        ),
        (
            'Rubric("mine", TEXT, (Dimension("x", lambda c: type("Odd", (), {"__repr__": lambda o: 1 / 0})()),))',
            "*sessions.jsonl:1 (session 'a'): rubric 'mine': scorer of 'x' returned (a value of type Odd that cannot be shown); *",
        ),
        (
            'Rubric("mine", TEXT, (Dimension(5, lambda c: Verdict("pass", "e")),))',
            "*a dimension id must be a string that is not blank, not 5*",
        ),
        ('Rubric("mine", TEXT, [lambda c: None])', "*dimensions must be a tuple of Dimension objects*"),
        ('Rubric("mine", 5, ())', "*text_path must be a path, not 5*"),
        ('Rubric("mine", TEXT, ())', "*rubric 'mine': a rubric needs at least one deterministic dimension*"),
        (
            'Rubric("mine", TEXT, (Dimension("x", lambda c: pytest.skip("later")),))',
            "*sessions.jsonl:1 (session 'a'): rubric 'mine': scorer of 'x' raised Skipped: later*",
        ),
        (
            'Rubric("mine", TEXT, (Dimension("x", lambda c: Verdict("pass", str(c.events.count("orchestrator.quality_gate.passed", c.window)))),))',
            "*scorer of 'x' raised ValueError: count() counts orchestrator.destructive_guard.blocked and orchestrator.loop.warning events, not *",
        ),
        (
            'Rubric("mine", TEXT, (Dimension("x", lambda c: Verdict("pass", "")),))',
            None,
        ),  # (a single Rubric, not a list: see below)
    ],
)
def test_broken_rubrics_are_usage_errors(
    pytester: pytest.Pytester, metrics: Path, rubric: str, message: str | None
) -> None:
    if message is None:  # the hook returns one Rubric instead of a list of them
        pytester.makeconftest(RUBRIC_PLUGIN.format(rubric=rubric).replace(f"return [{rubric}]", f"return {rubric}"))
        message = "*plugin * returned Rubric(*; expected a list of Rubric objects*"
    else:
        pytester.makeconftest(RUBRIC_PLUGIN.format(rubric=rubric))
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-rubric", "mine")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--session-eval-rubric", "rubric-v7"), "*unknown rubric 'rubric-v7' (registered: rubric-v1)*"),
        # typed empty, a value is not left out: it names no rubric, no model source
        (("--session-eval-rubric", ""), "*unknown rubric '' (registered: rubric-v1)*"),
        (
            ("--session-eval-model-source", ""),
            "*--session-eval-model-source: '' is not one of self-report, env, config*",
        ),
    ],
)
def test_an_unknown_rubric_version_or_model_source_is_a_usage_error(
    pytester: pytest.Pytester, metrics: Path, args: tuple[str, str], message: str
) -> None:
    result = pytester.runpytest("--session-eval", str(metrics), *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert (
        pytester.runpytest("--session-eval", str(metrics), "-o", f"{args[0][2:].replace('-', '_')}=").ret
        == pytest.ExitCode.OK
    )  # cleared: the default


def test_a_record_the_schema_refuses_is_named_and_the_others_are_written(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    # A custom scored dimension answering a score beyond 64 bits for one session: its record
    # cannot be written; the run says which, fails, and still appends every other session's record.
    rubric = (
        'Rubric("mine", TEXT, (Dimension("x", lambda c: Verdict("pass", "e", '
        '2**64 if c.record["session_id"] == "b" else 1), scored=True),))'
    )
    pytester.makeconftest(RUBRIC_PLUGIN.format(rubric=rubric))
    result = pytester.runpytest(
        "--session-eval",
        str(metrics),
        "--session-eval-rubric",
        "mine",
        "--session-eval-journal",
        "eval.jsonl",
        "--session-eval-model-id",
        "m",
        "--session-eval-timestamp",
        "2026-08-01T00:00:00Z",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*NOT WRITTEN *sessions.jsonl:*: the record of session 'b' is invalid: dimensions?0?.score: must be an integer of at most 64 bits*"
        ]
    )
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    written = [json.loads(line)["session_id"] for line in (pytester.path / "eval.jsonl").read_text().splitlines()]
    assert written and "b" not in written


def test_huge_or_infinite_custom_scores_never_crash_the_page_or_the_judge(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    for score, extra, message in (
        ("10**5000", ("--session-eval-html", "page.html"), None),
        (
            "2**64",
            ("--session-eval-judge",),
            "*--session-eval-judge: *sessions.jsonl:*: the record of session * which a judge reads, is invalid: dimensions?0?.score: must be an integer of at most 64 bits*",
        ),
        (
            'float("inf")',
            ("--session-eval-judge",),
            "*--session-eval-rubric: *scorer of 'x' returned*a finite number or None as score*",
        ),
    ):
        rubric = f'Rubric("mine", TEXT, (Dimension("x", lambda c: Verdict("pass", "e", {score}), scored=True),), judge_ids=("j",))'
        pytester.makeconftest(
            RUBRIC_PLUGIN.format(rubric=rubric) + "\ndef pytest_sessioneval_judge(record):\n    return []\n"
        )
        result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-rubric", "mine", *extra)
        assert (
            "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
            and "Traceback" not in result.stdout.str() + result.stderr.str()
        )
        if message is None:
            assert result.ret == pytest.ExitCode.OK
            assert "(an integer of about 5000 digits)" in (pytester.path / "page.html").read_text()
        else:
            assert result.ret == pytest.ExitCode.USAGE_ERROR
            result.stderr.fnmatch_lines([message])


def test_a_journal_as_input_counts_each_session_by_its_latest_record_judge_verdicts_included(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    pytester.makeconftest(JUDGE)
    base = ("--session-eval", str(metrics), "--session-eval-journal", "eval.jsonl", "--session-eval-model-id", "m")
    pytester.runpytest(*base, "--session-eval-judge", "--session-eval-timestamp", "2026-08-01T00:00:00Z")
    pytester.runpytest(*base, "--session-eval-timestamp", "2026-08-02T00:00:00Z")  # the latest: no judge
    result = pytester.runpytest("--session-eval", "eval.jsonl")
    result.stdout.fnmatch_lines(["rubric-v1: 2 session(s) scored"])
    assert "Advisory judge verdicts" not in result.stdout.str()


def test_a_rubrics_hook_that_raises_is_a_usage_error(pytester: pytest.Pytester, metrics: Path) -> None:
    pytester.makeconftest("def pytest_sessioneval_rubrics():\n    raise FileNotFoundError('rubrics.toml')\n")
    result = pytester.runpytest("--session-eval", str(metrics))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*its pytest_sessioneval_rubrics raised FileNotFoundError: rubrics.toml*"])


@pytest.mark.parametrize("raising", ["pytest.skip('no API key')", "asyncio.CancelledError()"])
@pytest.mark.parametrize("timeout", [(), ("--session-eval-judge-timeout", "5")])
def test_a_judge_raising_anything_but_an_interrupt_is_an_infrastructure_failure(
    pytester: pytest.Pytester, metrics: Path, raising: str, timeout: tuple[str, ...]
) -> None:
    raise_it = raising if raising.startswith("pytest") else f"raise {raising}"
    pytester.makeconftest(f"import asyncio, pytest\ndef pytest_sessioneval_judge(record):\n    {raise_it}\n")
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-judge", "-m", "judge", "-rx", *timeout)
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines(["*Judge infrastructure failure: judge plugin * raised *"])


@pytest.mark.parametrize("hook", ["pytest_sessioneval_judge(record)", "pytest_sessioneval_rubrics()"])
def test_an_exception_that_cannot_be_told_from_a_judge_or_rubrics_hook_is_no_crash(
    pytester: pytest.Pytester, metrics: Path, hook: str
) -> None:
    pytester.makeconftest(
        f"class Untold(Exception):\n    def __str__(self):\n        raise RuntimeError('no words')\ndef {hook}:\n    raise Untold()\n"
    )
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-judge", "-m", "judge", "-rx")
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    if hook.startswith("pytest_sessioneval_judge"):  # an infrastructure failure of the judge
        assert result.ret == pytest.ExitCode.OK
        result.stdout.fnmatch_lines(
            ["*Judge infrastructure failure: judge plugin * raised Untold: <exception str() failed>*"]
        )
    else:  # a plugin that cannot register its rubrics
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines(["*its pytest_sessioneval_rubrics raised Untold: <exception str() failed>*"])


@pytest.mark.parametrize("answer", ["[Odd()]", "Odd()"])
def test_a_rubrics_answer_that_cannot_be_shown_is_a_usage_error_not_a_crash(
    pytester: pytest.Pytester, metrics: Path, answer: str
) -> None:
    pytester.makeconftest(
        f"class Odd:\n    def __repr__(self):\n        raise RuntimeError('no repr')\ndef pytest_sessioneval_rubrics():\n    return {answer}\n"
    )
    result = pytester.runpytest("--session-eval", str(metrics))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --session-eval-rubric: plugin '*conftest.py' *(a value of type Odd that cannot be shown)*"]
    )


def test_a_judge_answer_that_cannot_be_shown_is_a_contract_error_not_a_crash(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    pytester.makeconftest(
        "class Odd:\n"
        "    def __repr__(self):\n"
        "        raise RuntimeError('no repr')\n"
        "def pytest_sessioneval_judge(record):\n"
        "    return [Odd()]\n"
    )
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-judge")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*judge plugin '*conftest.py', verdict 0: expected a dict with id, status and evidence, got (a value of type Odd that cannot be shown)"
        ]
    )


@pytest.mark.parametrize("wrapper", ["wrapper=True", "hookwrapper=True"])
@pytest.mark.parametrize(
    ("hook", "args", "flag"),
    [
        ("pytest_sessioneval_judge(record)", ("--session-eval-judge",), "--session-eval-judge"),
        ("pytest_sessioneval_rubrics()", (), "--session-eval-rubric"),
    ],
)
def test_a_hook_wrapper_of_the_judge_or_rubrics_hook_is_a_usage_error(
    pytester: pytest.Pytester, metrics: Path, wrapper: str, hook: str, args: tuple[str, ...], flag: str
) -> None:
    # Each implementation is asked on its own: a wrapper would be called as one and answer a generator.
    pytester.makeconftest(f"import pytest\n@pytest.hookimpl({wrapper})\ndef {hook}:\n    return (yield)\n")
    result = pytester.runpytest("--session-eval", str(metrics), *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {flag}: plugin '*conftest.py': its {hook.split('(')[0]} is a hook wrapper*"])


@pytest.mark.parametrize("signature", ["()", "(record=None)", "(**kwargs)"])
def test_a_judge_may_take_its_argument_as_any_hook_may(
    pytester: pytest.Pytester, metrics: Path, signature: str
) -> None:
    given = "kwargs.get('record')" if "kwargs" in signature else "record" if "record" in signature else "{}"
    pytester.makeconftest(
        f"def pytest_sessioneval_judge{signature}:\n"
        f"    assert {given} is not None\n"
        "    return [{'id': 'report-quality', 'status': 'pass', 'evidence': 'fine'}]\n"
    )
    result = pytester.runpytest(
        "--session-eval", str(metrics), "--session-eval-judge", "-m", "judge", "-k", "report-quality"
    )
    outcomes = result.parseoutcomes()
    assert outcomes["passed"] > 0 and "xfailed" not in outcomes and "Error" not in result.stdout.str()


def test_a_rubric_built_wrong_at_import_is_reported_at_the_line_that_builds_it(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    pytester.makefile(".md", rubric="mine")
    pytester.makeconftest(
        "from pathlib import Path\n"
        "from pytest_sessioneval import RUBRIC_V1, Rubric\n"
        "MINE = Rubric('mine', Path(__file__).with_name('rubric.md'), RUBRIC_V1.dimensions, judge_ids=('gate-health',))\n"
        "def pytest_sessioneval_rubrics():\n"
        "    return [MINE]\n"
    )
    result = pytester.runpytest("--session-eval", str(metrics))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    report = result.stdout.str() + result.stderr.str()
    assert "conftest.py:3: in <module>" in report
    assert "E   pytest_sessioneval.core.rubric.RubricError: rubric 'mine': dimension ids collide: gate-health" in report
    assert "rubric.py:" not in report.replace("conftest.py", ""), "the check itself is no part of the report"


def _verification_ids_with_an_extra_dimension(
    pytester: pytest.Pytester, metrics: Path, extra: str, edit: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]
) -> tuple[list[str], int]:
    """The node ids re-verification collects of a journal written with rubric-v1 plus a
    dimension ``extra``, each record's dimensions changed by ``edit``; and how many records."""
    pytester.makefile(".md", extra="extra")
    pytester.makeconftest(
        "from pathlib import Path\n"
        "from pytest_sessioneval import RUBRIC_V1, Dimension, Rubric, Verdict\n"
        f"EXTRA = Rubric('extra-v1', Path(__file__).with_name('extra.md'), (*RUBRIC_V1.dimensions, Dimension({extra!r}, lambda c: Verdict('pass', 'ok'))))\n"
        "def pytest_sessioneval_rubrics():\n"
        "    return [EXTRA]\n"
    )
    pytester.runpytest(
        "--session-eval",
        str(metrics),
        "--session-eval-rubric",
        "extra-v1",
        "--session-eval-journal",
        "eval.jsonl",
        "--session-eval-model-id",
        "m",
    )
    records = [json.loads(line) for line in (pytester.path / "eval.jsonl").read_text().splitlines()]
    for record in records:
        record["dimensions"] = edit(record["dimensions"])
    (pytester.path / "eval.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl", "--co", "-q")
    return [line for line in result.stdout.lines if "::" in line], len(records)


def test_verification_items_have_node_ids_of_their_own_when_a_dimension_is_named_record(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    # The stored records lack the dimension: an item says so, beside the record's own.
    collected, records = _verification_ids_with_an_extra_dimension(
        pytester, metrics, "record", lambda dimensions: [d for d in dimensions if d["id"] != "record"]
    )
    assert len(collected) == len(set(collected)) == records * 7 + 1  # and the run's seal
    assert sum(line.endswith("[record~2]") for line in collected) == records


def test_a_missing_dimension_spelt_like_a_repeated_one_gets_a_node_id_of_its_own(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    # A record repeating gate-health names the repeat "[gate-health~2]"; a dimension the rubric
    # calls "gate-health~2", missing from the record, must not take that name too.
    def repeat_gate_health(dimensions: list[dict[str, Any]]) -> list[dict[str, Any]]:
        kept = [d for d in dimensions if d["id"] != "gate-health~2"]
        return [*kept, next(d for d in kept if d["id"] == "gate-health")]

    collected, records = _verification_ids_with_an_extra_dimension(
        pytester, metrics, "gate-health~2", repeat_gate_health
    )
    assert len(collected) == len(set(collected)) == records * 8 + 1  # and the run's seal
