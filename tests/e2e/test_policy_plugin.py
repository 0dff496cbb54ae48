"""Policy evals run as a user runs them: pytest with --policy-eval, outcomes, node ids, messages, reports."""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from builders import NOISY_TEARDOWN, ROOT, scenario

EXAMPLES = ROOT / "examples" / "policy"
SIX = ("conclusion", "evidence", "files_and_lines", "tests_or_checks", "risks", "recommended_parent_action")
SCENARIO_CHECKS = (
    "fields",
    "decision-workers",
    "delegate-min",
    "roles-vs-workers",
    "writers-vs-workers",
    "writer-role",
    "unique-id",
)


def parent_only(scenario_id: str = "explain-snippet", **changes: Any) -> dict[str, Any]:
    return scenario(
        **{
            "id": scenario_id,
            "expected_delegation_decision": "parent-only",
            "expected_worker_count_range": {"min": 0, "max": 0},
            "expected_worker_role": [],
            "expected_writer_count": 0,
            "expected_fallback": "none",
            **changes,
        }
    )


def observation(scenario_id: str = "fix-failing-test", **changes: Any) -> dict[str, Any]:
    return {
        "scenario_id": scenario_id,
        "decision": "delegate",
        "worker_count": 2,
        "worker_roles": ["Spark Worker", "Spark Tester"],
        "writer_count": 1,
        "fallback": "parent-only",
        **changes,
    }


def jsonl(*records: dict[str, Any]) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def write(pytester: pytest.Pytester, name: str, text: str | bytes) -> Path:
    path = pytester.path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def outcomes_by_nodeid(result: pytest.RunResult) -> dict[str, str]:
    """``{nodeid: OUTCOME}`` from the ``-v`` listing."""
    found: dict[str, str] = {}
    for line in result.outlines:
        for outcome in ("PASSED", "FAILED", "SKIPPED", "ERROR"):
            marker = f" {outcome}"
            if "::" in line and marker in line and not line.startswith(outcome):
                found[line.split(marker)[0].strip()] = outcome
    return found


def run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, str]]:
    result = pytester.runpytest("-v", "-p", "no:cacheprovider", *args)
    return result, outcomes_by_nodeid(result)


def test_a_valid_set_becomes_one_item_per_check(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario(), parent_only()))
    write(pytester, "test_unrelated.py", "def test_not_collected(): assert False\n")
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl")
    expected = {
        f"prompts.jsonl::{sid}[{check}]" for sid in ("fix-failing-test", "explain-snippet") for check in SCENARIO_CHECKS
    }
    assert set(outcomes) == expected | {"prompts.jsonl::dataset[manifest]"}
    assert {nodeid: outcome for nodeid, outcome in outcomes.items() if outcome != "PASSED"} == {
        "prompts.jsonl::dataset[manifest]": "SKIPPED"
    }
    result.assert_outcomes(passed=14, skipped=1)
    assert result.ret == pytest.ExitCode.OK


def test_with_test_paths_both_are_collected(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario()))
    write(pytester, "test_other.py", "def test_other(): pass\n")
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl", "test_other.py")
    assert "test_other.py::test_other" in outcomes
    assert "prompts.jsonl::fix-failing-test[fields]" in outcomes
    result.assert_outcomes(passed=8, skipped=1)


@pytest.mark.parametrize(
    ("record", "check", "message"),
    [
        (
            parent_only(expected_worker_count_range={"min": 0, "max": 2}, expected_worker_role=["Spark Explorer"]),
            "decision-workers",
            "prompts.jsonl:2: scenario 'explain-snippet': expected_worker_count_range.max is 2 for a parent-only "
            "scenario; set max to 0 or change expected_delegation_decision (rule: parent-only and disabled "
            "scenarios create no workers (max == 0)).",
        ),
        (
            scenario(id="needs-a-worker", expected_worker_count_range={"min": 0, "max": 2}),
            "delegate-min",
            "prompts.jsonl:2: scenario 'needs-a-worker': expected_worker_count_range.min is 0 for a delegate scenario",
        ),
        (
            parent_only(expected_worker_role=["Spark Explorer"]),
            "roles-vs-workers",
            "prompts.jsonl:2: scenario 'explain-snippet': expected_worker_role lists 'Spark Explorer' although "
            "expected_worker_count_range.max is 0",
        ),
        (
            # Writers beyond max 0 always break a second rule too: here writer-role (no 'Spark Worker').
            parent_only(expected_writer_count=1, expected_worker_role=[]),
            "writers-vs-workers",
            "prompts.jsonl:2: scenario 'explain-snippet': expected_writer_count is 1 but "
            "expected_worker_count_range.max is 0",
        ),
        (
            scenario(id="tester-writes", expected_worker_role=["Spark Tester"]),
            "writer-role",
            "prompts.jsonl:2: scenario 'tester-writes': expected_writer_count is 1 but expected_worker_role does "
            "not list 'Spark Worker'",
        ),
        (
            scenario(id="too-many", expected_worker_count_range={"min": 1, "max": 7}),
            "fields",
            "prompts.jsonl:2: scenario 'too-many': field expected_worker_count_range.max is 7, but it should be "
            "less than or equal to 6 (rule:",
        ),
        (
            scenario(),
            "unique-id",
            "prompts.jsonl:2: scenario 'fix-failing-test' repeats the id of line 1",
        ),
    ],
)
def test_each_rule_fails_its_own_item_naming_line_field_and_rule(
    pytester: pytest.Pytester, record: dict[str, Any], check: str, message: str
) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario(), record))
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl")
    subject = record["id"] if check != "unique-id" else "fix-failing-test@line-2"
    failed = {nodeid for nodeid, outcome in outcomes.items() if outcome == "FAILED"}
    also = {"prompts.jsonl::explain-snippet[writer-role]"} if check == "writers-vs-workers" else set()
    assert failed == {f"prompts.jsonl::{subject}[{check}]"} | also
    assert message in result.stdout.str()
    # The failure is the plugin's own short text, not a traceback into it.
    assert "pytest_sessioneval" not in result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_structural_errors_fail_at_their_line_and_other_lines_are_checked(pytester: pytest.Pytester) -> None:
    good = json.dumps(scenario()).encode()
    huge = b'{"id": "' + b"x" * (1 << 20) + b'"}'
    text = (
        b"\n".join(
            [
                good,
                b"",
                b'{"id": "a", "id": "b"}',
                b"{not json",
                b'{"id": "caf\xe9"}',
                huge,
                json.dumps(parent_only()).encode(),
            ]
        )
        + b"\n"
    )
    write(pytester, "prompts.jsonl", text)
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl")
    assert {nodeid: o for nodeid, o in outcomes.items() if o == "FAILED"} == {
        "prompts.jsonl::line-2[blank-line]": "FAILED",
        "prompts.jsonl::line-3[duplicate-key]": "FAILED",
        "prompts.jsonl::line-4[json]": "FAILED",
        "prompts.jsonl::line-5[utf-8]": "FAILED",
        "prompts.jsonl::line-6[line-length]": "FAILED",
    }
    assert all(outcomes[f"prompts.jsonl::explain-snippet[{check}]"] == "PASSED" for check in SCENARIO_CHECKS)
    out = result.stdout.str()
    assert "prompts.jsonl: line 2 is blank; this format has no blank lines, remove it." in out
    assert "prompts.jsonl: line 3 repeats the key(s) 'id' in one object" in out
    assert "prompts.jsonl: line 4 is not valid JSON: Expecting property name enclosed in double quotes" in out
    assert "prompts.jsonl: line 5 is not valid UTF-8 (byte 0xe9 at column 12)" in out
    assert f"prompts.jsonl: line 6 is {len(huge)} bytes long, over the 1048576-byte limit" in out


def test_reportinfo_points_at_the_record_line(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario(), parent_only(expected_worker_role=["Spark Explorer"])))
    result, _ = run(pytester, "--policy-eval", "prompts.jsonl", "--junitxml=out.xml", "-o", "junit_family=xunit1")
    cases = {case.get("name"): case for case in ET.parse(pytester.path / "out.xml").iter("testcase")}
    failing = cases["explain-snippet[roles-vs-workers]"]
    assert (failing.get("file"), failing.get("line")) == ("prompts.jsonl", "1")  # 0-based: line 2
    assert cases["fix-failing-test[fields]"].get("line") == "0"
    assert "explain-snippet[roles-vs-workers]" in result.stdout.str()


# --- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--policy-eval", "missing.jsonl"], "ERROR: --policy-eval: */missing.jsonl: no such file or directory"),
        (["--policy-eval", "empty-dir"], "ERROR: --policy-eval: */empty-dir: directory holds no prompts.jsonl"),
        # A prompts.jsonl that is there but cannot be read is named as what it is.
        (["--policy-eval", "broken-dir"], "ERROR: --policy-eval: */broken-dir/prompts.jsonl: a broken symbolic link"),
        (["--policy-eval", "nested-dir"], "ERROR: --policy-eval: */nested-dir/prompts.jsonl: not a file"),
        (
            ["--policy-eval", "prompts.jsonl", "--policy-decisions", "nope.jsonl"],
            "ERROR: --policy-decisions: */nope.jsonl: no such file or directory",
        ),
        (
            ["--policy-eval", "prompts.jsonl", "--policy-manifest", "nope.json"],
            "ERROR: --policy-manifest: */nope.json: no such file or directory",
        ),
        (
            ["--policy-decisions", "prompts.jsonl"],
            "ERROR: --policy-decisions: needs an envelope set to check: give --policy-eval PATH too",
        ),
        (
            ["--policy-eval", "prompts.jsonl", "--policy-decisions", "prompts.jsonl"],
            "ERROR: --policy-decisions: */prompts.jsonl is also given as an envelope set (--policy-eval)",
        ),
        (
            ["--policy-eval", "prompts.jsonl", "--policy-eval", "other", "--policy-manifest", "m.json"],
            "ERROR: --policy-manifest: one manifest cannot serve 2 envelope sets*",
        ),
        # Another kind of data given as policy data: named, instead of one failed item per line.
        (
            ["--policy-eval", "sessions.jsonl"],
            "ERROR: --policy-eval: */sessions.jsonl: line 2 names session_id: the file holds session records (give them to --session-eval)",
        ),
        (
            ["--policy-eval", "events.jsonl"],
            "ERROR: --policy-eval: */events.jsonl: line 1 names event: the file holds orchestrator events, not policy data",
        ),
        (
            ["--policy-eval", "decisions.jsonl"],
            "ERROR: --policy-eval: */decisions.jsonl: line 1 names scenario_id: the file holds policy decisions (give them to --policy-decisions)",
        ),
        (
            ["--policy-eval", "golden.json"],
            "ERROR: --policy-eval: */golden.json: holds a JSON document over several lines*",
        ),
        (
            ["--policy-eval", "compact.json"],
            "ERROR: --policy-eval: */compact.json: holds a JSON document over several lines*",
        ),
        (
            ["--policy-eval", "prompts.jsonl", "--policy-decisions", "other/prompts.jsonl"],
            "ERROR: --policy-decisions: */other/prompts.jsonl: line 1 names prompt_or_scenario: the file holds policy envelopes (give them to --policy-eval)",
        ),
    ],
)
def test_bad_arguments_are_usage_errors(pytester: pytest.Pytester, args: list[str], message: str) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario()))
    write(pytester, "sessions.jsonl", '{"note": "a header"}\n{"session_id": "s", "status": "completed"}\n')
    write(pytester, "events.jsonl", '{"event": "orchestrator.session.started", "session_id": "s"}\n')
    write(pytester, "decisions.jsonl", jsonl(observation()))
    write(pytester, "golden.json", '\ufeff[\n  {"id": "a"}\n]\n')  # with a byte order mark
    write(pytester, "compact.json", '[\n{"id": "a", "group": "g"},\n{"id": "b", "group": "g"}\n]\n')  # one case a line
    write(pytester, "other/prompts.jsonl", jsonl(scenario()))
    write(pytester, "m.json", "{}")
    (pytester.path / "empty-dir").mkdir()
    (pytester.path / "broken-dir").mkdir()
    (pytester.path / "broken-dir" / "prompts.jsonl").symlink_to("nowhere.jsonl")
    (pytester.path / "nested-dir" / "prompts.jsonl").mkdir(parents=True)
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in result.stderr.str() + result.stdout.str()


@pytest.mark.parametrize(
    ("report", "target", "what"),
    [
        (("--junitxml",), "prompts.jsonl", "the JUnit XML report (--junitxml) */prompts.jsonl is an envelope set"),
        (
            ("--junitxml",),
            "prompts.manifest.json",
            "the JUnit XML report (--junitxml) */prompts.manifest.json is a manifest",
        ),
        (
            ("--json-report", "--json-report-file"),
            "golden.json",
            "the JSON report (--json-report-file) */golden.json is a golden set",
        ),
        (
            ("--junitxml",),
            "decisions.jsonl",
            "the JUnit XML report (--junitxml) */decisions.jsonl is the decisions file",
        ),
    ],
)
def test_another_report_of_the_run_at_a_policy_input_is_a_usage_error(
    pytester: pytest.Pytester, report: tuple[str, ...], target: str, what: str
) -> None:
    # The tool never rewrites your data: nor does another report of the same run.
    shutil.copytree(EXAMPLES, pytester.path / "p")
    (pytester.path / "elsewhere").mkdir()
    (pytester.path / "p" / "link").symlink_to(pytester.path / "elsewhere")
    before = (pytester.path / "p" / target).read_bytes()
    *flags, last = report
    # Spelled plainly, through a directory not there (yet), and through a link and up.
    for spelled in (f"p/{target}", f"p/nowhere/../{target}", f"p/link/../{target}"):
        if spelled.startswith("p/link") and last != "--junitxml":
            continue  # the system resolves link/.. to the link's parent: that file is no input
        result = pytester.runpytest(
            "--policy-eval", "p", "--policy-decisions", "p/decisions.jsonl", *flags, f"{last}={spelled}"
        )
        assert result.ret == pytest.ExitCode.USAGE_ERROR, spelled
        result.stderr.fnmatch_lines([f"ERROR: {what} of this run: the report would replace it, or be read as it"])
        assert (pytester.path / "p" / target).read_bytes() == before


@pytest.mark.parametrize("opening", ["[1, 2]", "\ufeff[]", '\n[{"id": "a"}]', '["\\ud800"]', "[1e400]"])
def test_an_array_on_the_first_line_is_one_bad_line_not_a_document(pytester: pytest.Pytester, opening: str) -> None:
    # An array closed on its line is a line of JSON Lines that holds no object: that line
    # fails, and every other line is still checked.
    write(pytester, "prompts.jsonl", opening + "\n" + jsonl(scenario()))
    write(pytester, "decisions.jsonl", opening + "\n" + jsonl(observation()))
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl", "--policy-decisions", "decisions.jsonl")
    at = opening.count("\n") + 1
    assert outcomes[f"prompts.jsonl::line-{at}[json]"] == "FAILED"
    assert outcomes[f"decisions.jsonl::line-{at}[json]"] == "FAILED"
    assert all(outcomes[f"prompts.jsonl::fix-failing-test[{check}]"] == "PASSED" for check in SCENARIO_CHECKS)
    assert outcomes["prompts.jsonl::fix-failing-test[forward]"] == "PASSED"
    assert f"prompts.jsonl: line {at} holds an array" in result.stdout.str()


@pytest.mark.parametrize("torn", ['{"id": "a", "prompt_or_scenario": "first part', '{"note": "ends in \\\\\\"'])
def test_a_first_record_torn_by_a_raw_newline_is_two_bad_lines_not_a_document(
    pytester: pytest.Pytester, torn: str
) -> None:
    # JSON text never breaks a line inside a string: a first line that ends inside one is a
    # record a raw newline tore, as it would be on any other line.
    write(pytester, "prompts.jsonl", torn + '\n second part"}\n' + jsonl(scenario()))
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert outcomes["prompts.jsonl::line-1[json]"] == outcomes["prompts.jsonl::line-2[json]"] == "FAILED"
    assert all(outcomes[f"prompts.jsonl::fix-failing-test[{check}]"] == "PASSED" for check in SCENARIO_CHECKS)


@pytest.mark.parametrize(
    "closed", ['{"a": NaN}', '{"id": "x",}', '{"id": "x"}}', "[1, 2,]", '{"a": "{[", "b": -Infinity}', '{"a": "\\"{",}']
)
def test_a_first_line_that_closes_what_it_opens_is_a_bad_line_not_a_document(
    pytester: pytest.Pytester, closed: str
) -> None:
    # Whatever follows it: a line that closes its brackets is a line of JSON Lines, invalid
    # or not, never the opening of a document over several lines.
    write(pytester, "prompts.jsonl", closed + '\n"a string"\nnot json\n' + jsonl(scenario()))
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert outcomes["prompts.jsonl::line-1[json]"] == outcomes["prompts.jsonl::line-2[json]"] == "FAILED"
    assert outcomes["prompts.jsonl::line-3[json]"] == "FAILED"
    assert all(outcomes[f"prompts.jsonl::fix-failing-test[{check}]"] == "PASSED" for check in SCENARIO_CHECKS)


@pytest.mark.parametrize("opening", ["{", '{"records": [', '[{"id": "a",', '{"a": "}]", "b": {'])
def test_a_first_line_that_leaves_a_bracket_open_opens_a_document(pytester: pytest.Pytester, opening: str) -> None:
    write(pytester, "prompts.jsonl", opening + '\n  "id": "a"\n}\n')
    result = pytester.runpytest("-p", "no:cacheprovider", "--policy-eval", "prompts.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --policy-eval: */prompts.jsonl: holds a JSON document over several lines*"])


def test_a_directory_holding_prompts_jsonl_is_accepted(pytester: pytest.Pytester) -> None:
    write(pytester, "data/prompts.jsonl", jsonl(scenario()))
    result, outcomes = run(pytester, "--policy-eval", "data")
    assert "data/prompts.jsonl::fix-failing-test[fields]" in outcomes
    result.assert_outcomes(passed=7, skipped=1)


def test_an_empty_file_has_no_records_and_fails_min_records(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", "")
    write(pytester, "prompts.manifest.json", '{"min_records": 1}')
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl")
    assert outcomes == {"prompts.jsonl::dataset[manifest]": "PASSED", "prompts.jsonl::dataset[min-records]": "FAILED"}
    result.stdout.fnmatch_lines(["*prompts.jsonl holds 0 records, fewer than the 1 that min_records in*"])


# --- collection: only once, and alongside other data -----------------------------------------


def test_each_item_is_collected_once(pytester: pytest.Pytester) -> None:
    write(pytester, "data/prompts.jsonl", jsonl(scenario()))
    result, _ = run(
        pytester, "--policy-eval", "data/prompts.jsonl", "--policy-eval", "data", "data", "data/prompts.jsonl"
    )
    result.assert_outcomes(passed=7, skipped=1)


def test_a_node_id_selects_exactly_its_item(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario(), parent_only()))
    _result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl", "prompts.jsonl::explain-snippet[writer-role]")
    assert outcomes == {"prompts.jsonl::explain-snippet[writer-role]": "PASSED"}


@pytest.mark.parametrize(
    "nodeid",
    [
        "policy/prompts.jsonl::hotfix-two-explorers[writer-role]",
        "policy/decisions.jsonl::bulk-doc-update[worker-contract]",
        "policy/golden.json::dataset[min-records]",
    ],
)
def test_a_node_id_of_any_data_file_selects_only_its_item(pytester: pytest.Pytester, nodeid: str) -> None:
    """No other data file of the run (golden set, decisions, envelope set) is added to a selection."""
    shutil.copytree(EXAMPLES, pytester.path / "policy")
    args = ("--policy-eval", "policy/prompts.jsonl", "--policy-decisions", "policy/decisions.jsonl")
    assert nodeid in run(pytester, *args)[1]
    result, outcomes = run(pytester, *args, nodeid)
    assert list(outcomes) == [nodeid]
    shutil.copytree(EXAMPLES.parent / "metrics", pytester.path / "metrics")
    result, outcomes = run(pytester, *args, "--session-eval", "metrics", nodeid)
    assert list(outcomes) == [nodeid]  # nor a data file of the other plugin
    assert "session evaluation" not in result.stdout.str()  # nothing of it ran: no empty summary


def test_an_id_spelled_like_a_taken_subject_still_gets_a_node_id_of_its_own(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario(id="a")))
    write(pytester, "decisions.jsonl", jsonl(observation("a"), observation("a@line-3"), observation("a")))
    listed = pytester.runpytest("--policy-eval", "prompts.jsonl", "--policy-decisions", "decisions.jsonl", "--co", "-q")
    ids = [line for line in listed.stdout.lines if line.startswith("decisions.jsonl::")]
    assert len(ids) == 9 and len(set(ids)) == 9
    assert "decisions.jsonl::a@line-3@line-3[unique-id]" in ids


def test_escaped_ids_round_trip_as_node_ids(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario(id="a::b[c]")))
    _, outcomes = run(pytester, "--policy-eval", "prompts.jsonl")
    nodeid = "prompts.jsonl::a:\\x3ab\\x5bc\\x5d[fields]"
    assert outcomes[nodeid] == "FAILED"
    _result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl", nodeid)
    assert outcomes == {nodeid: "FAILED"}


def test_data_another_plugin_put_in_place_of_the_default_paths_stays(pytester: pytest.Pytester) -> None:
    """Like --session-eval, a plugin may replace the default paths with its own data file first."""
    write(pytester, "prompts.jsonl", jsonl(scenario()))
    write(pytester, "test_own.py", "def test_own(): pass\n")
    write(pytester, "test_default.py", "def test_default(): pass\n")
    pytester.makeconftest(
        """
        import pytest

        @pytest.hookimpl(tryfirst=True)
        def pytest_configure(config):
            if not config.option.file_or_dir:
                config.args[:] = [str(config.rootpath / "test_own.py")]
        """
    )
    _result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl")
    assert "test_own.py::test_own" in outcomes
    assert "test_default.py::test_default" not in outcomes
    assert "prompts.jsonl::fix-failing-test[fields]" in outcomes


def test_together_with_session_eval(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario()))
    write(pytester, "sessions.jsonl", '{"session_id": "s1"}\n')
    write(pytester, "test_default.py", "def test_default(): pass\n")
    _result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl", "--session-eval", "sessions.jsonl")
    assert any(nodeid.startswith("sessions.jsonl::") for nodeid in outcomes)
    assert "prompts.jsonl::fix-failing-test[fields]" in outcomes
    assert "test_default.py::test_default" not in outcomes


@pytest.mark.parametrize(
    ("output", "target", "what"),
    [
        ("--session-eval-journal", "decisions.jsonl", "the decisions file"),
        ("--session-eval-html", "prompts.jsonl", "an envelope set"),
        ("--session-eval-html", "prompts.manifest.json", "a manifest"),
    ],
)
def test_session_eval_outputs_never_write_to_policy_data(
    pytester: pytest.Pytester, output: str, target: str, what: str
) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario()))
    write(pytester, "decisions.jsonl", jsonl(observation()))
    write(pytester, "sessions.jsonl", '{"session_id": "s1", "status": "completed"}\n')
    before = {path.name: path.read_bytes() for path in pytester.path.iterdir() if path.is_file()}
    result = pytester.runpytest(
        "--policy-eval",
        "prompts.jsonl",
        "--policy-decisions",
        "decisions.jsonl",
        "--session-eval",
        "sessions.jsonl",
        output,
        target,
        "--session-eval-model-id",
        "m",
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {output}: *{target} is {what} of this run; it would be written to"])
    assert {path.name: path.read_bytes() for path in pytester.path.iterdir() if path.is_file()} == before


def test_ini_session_data_stays_out_when_other_data_or_a_test_is_named(pytester: pytest.Pytester) -> None:
    # Named in the ini file, session data is part of the suite as testpaths are: data named on
    # the command line (of the policy plugin too), or a test named, runs without it.
    write(pytester, "metrics/sessions.jsonl", '{"session_id": "s1", "status": "completed"}\n')
    write(pytester, "policy/prompts.jsonl", jsonl(scenario()))
    write(pytester, "tests/test_unit.py", "def test_unit(): pass\n")
    pytester.makeini("[pytest]\ntestpaths = tests\nsession_eval_paths = metrics\n")
    for args, kinds in (
        (("--policy-eval", "policy/prompts.jsonl"), {"policy"}),
        (("tests/test_unit.py::test_unit", "--policy-eval", "policy/prompts.jsonl"), {"policy", "tests"}),
        (("tests/test_unit.py::test_unit",), {"tests"}),
        ((), {"metrics", "tests"}),
    ):
        _, outcomes = run(pytester, *args)
        assert {nodeid.split("/")[0] for nodeid in outcomes} == kinds, args


def test_data_inside_a_directory_given_leaves_the_rest_of_it_collected(pytester: pytest.Pytester) -> None:
    # A data file is no collection argument of its own when a directory given holds it:
    # pytest 8.0 collected nothing else of that directory once it was.
    write(pytester, "tests/data/prompts.jsonl", jsonl(scenario()))
    write(pytester, "tests/test_code.py", "def test_code(): pass\n")
    _, outcomes = run(pytester, "--policy-eval", "tests/data/prompts.jsonl", "tests")
    assert outcomes["tests/test_code.py::test_code"] == "PASSED"
    assert outcomes["tests/data/prompts.jsonl::fix-failing-test[fields]"] == "PASSED"
    pytester.makeini("[pytest]\npolicy_eval_paths = tests/data/prompts.jsonl\n")  # no testpaths: the rootdir
    _, from_ini = run(pytester)
    assert from_ini == outcomes


# --- options from the ini file -----------------------------------------------------------------


def test_ini_keys(pytester: pytest.Pytester) -> None:
    write(pytester, "data/prompts.jsonl", jsonl(scenario()))
    write(pytester, "data/decisions.jsonl", jsonl(observation()))
    write(pytester, "data/m.json", '{"min_records": 2}')
    pytester.makeini(
        """
        [pytest]
        policy_eval_paths = data/prompts.jsonl
        policy_decisions = data/decisions.jsonl
        policy_manifest = data/m.json
        """
    )
    _result, outcomes = run(pytester)
    assert outcomes["data/prompts.jsonl::fix-failing-test[forward]"] == "PASSED"
    assert outcomes["data/decisions.jsonl::fix-failing-test[known-scenario]"] == "PASSED"
    assert outcomes["data/prompts.jsonl::dataset[min-records]"] == "FAILED"
    # The project's own tests (testpaths) still run beside the data the ini file names.
    write(pytester, "tests/test_unit.py", "def test_unit(): pass\n")
    ini = (pytester.path / "tox.ini").read_text()
    (pytester.path / "tox.ini").write_text(ini.replace("[pytest]", "[pytest]\ntestpaths = tests"))
    _, with_tests = run(pytester)
    assert with_tests["tests/test_unit.py::test_unit"] == "PASSED"
    assert set(with_tests) - {"tests/test_unit.py::test_unit"} == set(outcomes)


def test_the_command_line_wins_over_the_ini_file(pytester: pytest.Pytester) -> None:
    write(pytester, "a/prompts.jsonl", jsonl(scenario()))
    write(pytester, "b/prompts.jsonl", jsonl(parent_only()))
    pytester.makeini("[pytest]\npolicy_eval_paths = a/prompts.jsonl\n")
    _result, outcomes = run(pytester, "--policy-eval", "b/prompts.jsonl")
    assert {nodeid.split("::")[0] for nodeid in outcomes} == {"b/prompts.jsonl"}


# --- manifests and golden sets -----------------------------------------------------------------


def test_manifest_beside_the_data(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario(), parent_only()))
    write(
        pytester,
        "prompts.manifest.json",
        json.dumps(
            {
                "min_records": 2,
                "required_ids": ["explain-snippet", "secret-in-prompt"],
                "quotas": {
                    "label_field": "expected_delegation_decision",
                    "per_label": {"delegate": 1, "parent-only": {"min": 2}},
                },
            },
            indent=2,
        ),
    )
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl")
    dataset = {nodeid: o for nodeid, o in outcomes.items() if "::dataset[" in nodeid}
    assert dataset == {
        "prompts.jsonl::dataset[manifest]": "PASSED",
        "prompts.jsonl::dataset[min-records]": "PASSED",
        "prompts.jsonl::dataset[required-ids]": "FAILED",
        "prompts.jsonl::dataset[quota:label=delegate]": "PASSED",
        "prompts.jsonl::dataset[quota:label=parent-only]": "FAILED",
        "prompts.jsonl::dataset[quota:labels-declared]": "PASSED",
    }
    out = result.stdout.str()
    assert (
        "prompts.manifest.json:3: prompts.jsonl lacks 1 of the 2 required id(s): 'secret-in-prompt'; add them, "
        "or remove them from required_ids in prompts.manifest.json."
    ) in out
    assert (
        "prompts.manifest.json:11: prompts.jsonl has 1 record with expected_delegation_decision 'parent-only', "
        "but prompts.manifest.json requires at least 2 (quotas.per_label.parent-only)"
    ) in out


def test_an_explicit_manifest_replaces_the_one_beside(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario()))
    write(pytester, "prompts.manifest.json", '{"min_records": 5}')
    write(pytester, "owner/manifest.json", '{"min_records": 1}')
    _result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl", "--policy-manifest", "owner/manifest.json")
    assert outcomes["prompts.jsonl::dataset[min-records]"] == "PASSED"


def test_an_invalid_manifest_fails_one_item_and_says_where(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario()))
    write(pytester, "prompts.manifest.json", '{\n  "min_records": "3",\n  "quota": {}\n}\n')
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl")
    assert [nodeid for nodeid in outcomes if "dataset" in nodeid] == ["prompts.jsonl::dataset[manifest]"]
    assert outcomes["prompts.jsonl::dataset[manifest]"] == "FAILED"
    result.stdout.fnmatch_lines(
        [
            'prompts.manifest.json:2: min_records is "3", but it should be a valid integer',
            "prompts.manifest.json:3: quota is not a manifest key; remove it or correct its spelling",
        ]
    )


def test_no_manifest_is_a_skip_with_its_reason(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario()))
    result, _ = run(pytester, "--policy-eval", "prompts.jsonl", "-rs")
    result.stdout.fnmatch_lines(
        ["SKIPPED [[]1[]] prompts.jsonl: no manifest: prompts.manifest.json does not exist, so prompts.jsonl*"]
    )


def test_a_golden_set_pytest_cannot_collect_is_blamed_on_the_manifest_that_names_it(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario()))
    write(pytester, "prompts.manifest.json", '{"golden_set": "g[1].json"}')
    write(pytester, "g[1].json", "[]")
    result = pytester.runpytest("--policy-eval", "prompts.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: prompts.manifest.json's golden_set: g[[]1].json: pytest cannot collect a path containing*"]
    )


def test_golden_set_named_by_the_manifest(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario()))
    write(pytester, "prompts.manifest.json", '{"golden_set": "golden/cases.json"}')
    cases = [
        {"id": "p-en", "group": "positive", "locale": "en"},
        {"id": "n-en", "group": "negative", "locale": "en", "rationale": "one reply answers it"},
        {"id": "n-de", "group": "negative", "locale": "de"},
        {"id": "n-de", "group": "negative", "locale": "de", "rationale": "r"},
    ]
    write(pytester, "golden/cases.json", json.dumps(cases, indent=2))
    write(
        pytester,
        "golden/cases.manifest.json",
        json.dumps(
            {
                "min_records": 4,
                "quotas": {"label_field": "group", "locale_field": "locale", "per_locale": {"en": 2, "de": 2}},
                "rationale_required_for": ["negative"],
            }
        ),
    )
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl")
    golden = {nodeid: o for nodeid, o in outcomes.items() if nodeid.startswith("golden/")}
    assert golden == {
        "golden/cases.json::p-en[fields]": "PASSED",
        "golden/cases.json::p-en[unique-id]": "PASSED",
        "golden/cases.json::n-en[fields]": "PASSED",
        "golden/cases.json::n-en[unique-id]": "PASSED",
        "golden/cases.json::n-en[rationale]": "PASSED",
        "golden/cases.json::n-de[fields]": "PASSED",
        "golden/cases.json::n-de[unique-id]": "PASSED",
        "golden/cases.json::n-de[rationale]": "FAILED",
        "golden/cases.json::n-de@line-18[fields]": "PASSED",
        "golden/cases.json::n-de@line-18[unique-id]": "FAILED",
        "golden/cases.json::n-de@line-18[rationale]": "PASSED",
        "golden/cases.json::dataset[manifest]": "PASSED",
        "golden/cases.json::dataset[min-records]": "PASSED",
        "golden/cases.json::dataset[quota:locale=en]": "PASSED",
        "golden/cases.json::dataset[quota:locale=de]": "PASSED",
        "golden/cases.json::dataset[quota:locales-declared]": "PASSED",
    }
    result.stdout.fnmatch_lines(
        ["golden/cases.json:13: case 'n-de': the case is in group 'negative' but has no rationale*"]
    )


# --- forward tests -----------------------------------------------------------------------------


def test_forward_tests(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "prompts.jsonl",
        jsonl(scenario(), parent_only(), parent_only("secret-in-prompt"), scenario(id="unobserved")),
    )
    good = dict.fromkeys(SIX, "x")
    write(
        pytester,
        "decisions.jsonl",
        jsonl(
            observation(worker_results=[good, good]),
            observation("explain-snippet", decision="delegate", worker_count=1, worker_roles=["Spark Worker"]),
            observation(
                "secret-in-prompt",
                decision="parent-only",
                worker_count=0,
                worker_roles=[],
                writer_count=0,
                fallback="none",
                worker_results=[{**good, "notes": "extra"}],
            ),
            observation("ghost"),
        ),
    )
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl", "--policy-decisions", "decisions.jsonl", "-rs")
    assert {n: o for n, o in outcomes.items() if n.endswith("[forward]")} == {
        "prompts.jsonl::fix-failing-test[forward]": "PASSED",
        "prompts.jsonl::explain-snippet[forward]": "FAILED",
        "prompts.jsonl::secret-in-prompt[forward]": "PASSED",
        "prompts.jsonl::unobserved[forward]": "SKIPPED",
    }
    assert {n: o for n, o in outcomes.items() if n.startswith("decisions.jsonl") and o != "PASSED"} == {
        "decisions.jsonl::secret-in-prompt[worker-contract]": "FAILED",
        "decisions.jsonl::ghost[known-scenario]": "FAILED",
    }
    assert outcomes["decisions.jsonl::fix-failing-test[worker-contract]"] == "PASSED"
    result.stdout.fnmatch_lines(
        [
            "prompts.jsonl:2: scenario 'explain-snippet' was observed outside its envelope in 4 of 5 aspects "
            "(decision, worker_count, worker_roles, writer_count), observed at decisions.jsonl:2; fix the "
            "orchestrator, not the envelope:",
            "  aspect        envelope (expected)           observed",
            "  decision      parent-only                   delegate                                    OUTSIDE",
            "  worker_count  0..0                          1                                           OUTSIDE",
            "  worker_roles  any of: (none)                Spark Worker  (not expected: Spark Worker)  OUTSIDE",
            "  writer_count  <= 0                          1                                           OUTSIDE",
            "  fallback      any ('none' in the envelope)  parent-only                                 ok",
        ],
        consecutive=True,
    )
    result.stdout.fnmatch_lines(
        ["SKIPPED [[]1[]] prompts.jsonl: no observation for scenario 'unobserved' in decisions.jsonl"]
    )
    result.stdout.fnmatch_lines(
        [
            "decisions.jsonl:3: observation for scenario 'secret-in-prompt': worker result 1 adds 'notes'; a worker "
            "result has exactly the six fields conclusion, evidence, files_and_lines, tests_or_checks, risks, "
            "recommended_parent_action."
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "decisions.jsonl:4: observation for scenario 'ghost', but no envelope set under test defines that "
            "scenario (prompts.jsonl); correct scenario_id or add the scenario."
        ]
    )


def test_bad_decision_lines_are_failed_items(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario()))
    write(pytester, "decisions.jsonl", b'{"scenario_id": "fix-failing-test", "worker_count": "2"}\n\n\xff\n')
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl", "--policy-decisions", "decisions.jsonl")
    assert {n: o for n, o in outcomes.items() if n.startswith("decisions.jsonl")} == {
        "decisions.jsonl::fix-failing-test[fields]": "FAILED",
        "decisions.jsonl::fix-failing-test[unique-id]": "PASSED",
        "decisions.jsonl::fix-failing-test[known-scenario]": "PASSED",
        "decisions.jsonl::line-2[blank-line]": "FAILED",
        "decisions.jsonl::line-3[utf-8]": "FAILED",
    }
    assert outcomes["prompts.jsonl::fix-failing-test[forward]"] == "SKIPPED"
    result.stdout.fnmatch_lines(
        ['decisions.jsonl:1: observation for scenario *: field worker_count is "2", but it should be a valid integer*']
    )


# --- reports -----------------------------------------------------------------------------------


def test_json_report_metadata(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "prompts.jsonl",
        jsonl(scenario(), scenario(id="tester-writes", expected_worker_role=["Spark Tester"])),
    )
    pytester.runpytest("--policy-eval", "prompts.jsonl", "--json-report", "--json-report-file=report.json")
    report = json.loads((pytester.path / "report.json").read_text())
    tests = {test["nodeid"]: test for test in report["tests"]}
    failed = tests["prompts.jsonl::tester-writes[writer-role]"]
    assert failed["outcome"] == "failed"
    assert failed["lineno"] == 1
    metadata = failed["metadata"]["policy_eval"]
    assert metadata == {
        "file": "prompts.jsonl",
        "subject": "tester-writes",
        "scenario_id": "tester-writes",
        "check": "writer-role",
        "line": 2,
        "outcome": "failed",
        "detail": metadata["detail"],
    }
    assert metadata["detail"].startswith("prompts.jsonl:2: scenario 'tester-writes': expected_writer_count is 1")
    skipped = tests["prompts.jsonl::dataset[manifest]"]
    assert skipped["metadata"]["policy_eval"]["outcome"] == "skipped"
    assert skipped["metadata"]["policy_eval"]["line"] is None


def test_junit_properties(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario()))
    pytester.runpytest("--policy-eval", "prompts.jsonl", "--junitxml=out.xml")
    case = next(
        c for c in ET.parse(pytester.path / "out.xml").iter("testcase") if c.get("name") == "fix-failing-test[fields]"
    )
    properties = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert properties["policy_check"] == "fields"
    assert properties["scenario_id"] == "fix-failing-test"
    assert properties["line"] == "1"
    assert properties["policy_file"] == "prompts.jsonl"
    whole = next(
        c for c in ET.parse(pytester.path / "out.xml").iter("testcase") if c.get("name") == "dataset[manifest]"
    )
    assert {p.get("name"): p.get("value") for p in whole.iter("property")}.keys() == {
        "policy_file",
        "policy_check",
        "detail",
    }


@pytest.mark.parametrize("xdist", [(), ("-n", "2"), ("-n", "2", "--dist", "each")])
def test_terminal_summary_counts_per_check(pytester: pytest.Pytester, xdist: tuple[str, ...]) -> None:
    if xdist:
        pytest.importorskip("xdist")
    write(pytester, "prompts.jsonl", jsonl(scenario(), parent_only(expected_worker_role=["Spark Explorer"])))
    result = pytester.runpytest("--policy-eval", "prompts.jsonl", *xdist)
    # The same rows in the same order, however the reports arrive; an item reported twice counts once.
    result.stdout.fnmatch_lines(
        [
            "*= policy evaluation =*",
            "15 policy check(s)",
            "check               passed  failed  skipped",
            "fields                   2       0        0",
            "decision-workers         2       0        0",
            "delegate-min             2       0        0",
            "roles-vs-workers         1       1        0",
            "writers-vs-workers       2       0        0",
            "writer-role              2       0        0",
            "unique-id                2       0        0",
            "manifest                 0       0        1",
        ],
        consecutive=True,
    )


def test_strict_markers(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario()))
    result = pytester.runpytest("--policy-eval", "prompts.jsonl", "--strict-markers", "-m", "policy_eval")
    result.assert_outcomes(passed=7, skipped=1)


def test_under_xdist_outcomes_are_the_same(pytester: pytest.Pytester) -> None:
    shutil.copytree(EXAMPLES, pytester.path / "policy")
    args = ("--policy-eval", "policy/prompts.jsonl", "--policy-decisions", "policy/decisions.jsonl")
    serial = pytester.runpytest(*args).parseoutcomes()
    parallel = pytester.runpytest(*args, "-n", "2")
    assert parallel.parseoutcomes() == serial
    parallel.stdout.fnmatch_lines(["*= policy evaluation =*", "forward                 10       1        1"])


# --- the examples and the data's integrity ----------------------------------------------------


def test_the_examples_exercise_every_outcome(pytester: pytest.Pytester) -> None:
    shutil.copytree(EXAMPLES, pytester.path / "policy")
    before = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in (pytester.path / "policy").iterdir()}
    result, outcomes = run(
        pytester, "--policy-eval", "policy/prompts.jsonl", "--policy-decisions", "policy/decisions.jsonl"
    )
    assert {n: o for n, o in outcomes.items() if o != "PASSED"} == {
        "policy/prompts.jsonl::hotfix-two-explorers[writer-role]": "FAILED",
        "policy/prompts.jsonl::fix-failing-test[forward]": "FAILED",
        "policy/prompts.jsonl::dependency-audit[forward]": "SKIPPED",
        "policy/decisions.jsonl::bulk-doc-update[worker-contract]": "FAILED",
        "policy/decisions.jsonl::summarize-meeting-notes[known-scenario]": "FAILED",
    }
    assert any(n.startswith("policy/golden.json::dataset[quota:") for n in outcomes)
    assert "policy/prompts.jsonl::dataset[required-ids]" in outcomes
    result.assert_outcomes(passed=173, failed=4, skipped=1)
    # The expected data is never rewritten, whatever the outcome.
    after = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in (pytester.path / "policy").iterdir()}
    assert after == before


def test_a_manifest_that_is_no_regular_file_fails_the_manifest_item_without_hanging(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario()))
    os.mkfifo(pytester.path / "prompts.manifest.json")
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl")
    assert outcomes["prompts.jsonl::dataset[manifest]"] == "FAILED"
    result.stdout.fnmatch_lines(["*prompts.manifest.json: is not a regular file*"])
    (pytester.path / "prompts.manifest.json").unlink()
    (pytester.path / "prompts.manifest.json").symlink_to(pytester.path / "nowhere.json")
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl")
    assert outcomes["prompts.jsonl::dataset[manifest]"] == "FAILED"
    result.stdout.fnmatch_lines(["*prompts.manifest.json: is a broken symbolic link*"])


def test_lone_surrogates_odd_properties_and_deep_values_never_crash_the_run(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    deep = "[" * 973 + "]" * 973
    lines = jsonl(scenario(id="\ud800")) + json.dumps(scenario(id="deep")).replace('"none"', deep) + "\n"
    write(pytester, "prompts.jsonl", lines.encode("utf-8", "surrogatepass").replace(b"\xed\xa0\x80", b"\\ud800"))
    write(pytester, "test_mine.py", "def test_a(request):\n    request.node.user_properties.append(('a', 'b', 'c'))\n")
    for extra in ((), ("-n", "2")):
        result = pytester.runpytest("--policy-eval", "prompts.jsonl", "test_mine.py", *extra)
        assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str(), extra
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        result.stdout.fnmatch_lines(["*policy check(s)*"])


def test_last_failed_finds_policy_items_again(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario(), scenario(id="bad", expected_writer_count=-1)))
    pytester.runpytest("--policy-eval", "prompts.jsonl")
    result = pytester.runpytest("--policy-eval", "prompts.jsonl", "--lf", "-v")
    result.stdout.fnmatch_lines(["*run-last-failure: rerun previous 1 failure*"])
    result.assert_outcomes(failed=1)


def test_the_forward_table_shows_control_characters_escaped(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario()))
    write(pytester, "decisions.jsonl", jsonl(observation(fallback="a\nb\u001b[31mRED")))
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl", "--policy-decisions", "decisions.jsonl")
    assert outcomes["prompts.jsonl::fix-failing-test[forward]"] == "FAILED"
    assert "\x1b" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*fallback*a\\nb\\x1b[31mRED*OUTSIDE*"])


def test_a_golden_set_that_is_another_input_of_the_run_is_a_usage_error(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario()))
    write(pytester, "decisions.jsonl", jsonl(observation()))
    (pytester.path / "dec-link.jsonl").symlink_to(pytester.path / "decisions.jsonl")
    for named, role in (
        ("prompts.jsonl", "an envelope set"),
        ("decisions.jsonl", "the decisions file"),
        ("dec-link.jsonl", "the decisions file"),
    ):
        write(pytester, "prompts.manifest.json", json.dumps({"golden_set": named}))
        result = pytester.runpytest("--policy-eval", "prompts.jsonl", "--policy-decisions", "decisions.jsonl")
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines(
            [
                f"ERROR: --policy-eval: prompts.manifest.json names *{named} as its golden set, but that file is {role} of this run"
            ]
        )


def test_a_blank_scenario_id_names_no_scenario(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario()))
    write(pytester, "decisions.jsonl", jsonl(observation(scenario_id="  ")))
    _, outcomes = run(pytester, "--policy-eval", "prompts.jsonl", "--policy-decisions", "decisions.jsonl")
    decided = {nodeid: outcome for nodeid, outcome in outcomes.items() if nodeid.startswith("decisions.jsonl::")}
    assert decided["decisions.jsonl::line-1[fields]"] == "FAILED"
    assert not any("known-scenario" in nodeid for nodeid in decided), decided


def test_a_data_path_pytest_cannot_collect_is_a_usage_error(pytester: pytest.Pytester) -> None:
    write(pytester, "set::1/prompts.jsonl", jsonl(scenario()))
    result = pytester.runpytest("--policy-eval", "set::1/prompts.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --policy-eval: set::1/prompts.jsonl: pytest cannot collect a path containing*"]
    )


def test_a_typo_in_the_envelope_manifest_does_not_drop_its_golden_set(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario()))
    write(pytester, "prompts.manifest.json", json.dumps({"min_record": 1, "golden_set": "golden.json"}))
    write(pytester, "golden.json", json.dumps([{"id": "neg-en-1", "group": "negative", "locale": "en"}]))
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl")
    assert outcomes["prompts.jsonl::dataset[manifest]"] == "FAILED"
    assert outcomes["golden.json::neg-en-1[rationale]"] == "FAILED"
    result.stdout.fnmatch_lines(["*min_record is not a manifest key*"])


def test_an_unreadable_golden_set_fails_once_and_skips_its_dataset_rules(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario()))
    write(pytester, "prompts.manifest.json", json.dumps({"golden_set": "golden.json"}))
    write(pytester, "golden.json", '[\n{"id": "a", "group": "negative", "locale": "en", "rationale": "r"},,\n]\n')
    write(
        pytester,
        "golden.manifest.json",
        json.dumps({"min_records": 1, "quotas": {"label_field": "group", "per_label": {"negative": 1}}}),
    )
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl", "-rs")
    golden = {n: o for n, o in outcomes.items() if n.startswith("golden.json::")}
    assert golden == {
        "golden.json::line-2[json]": "FAILED",
        "golden.json::dataset[manifest]": "PASSED",
        "golden.json::dataset[min-records]": "SKIPPED",
        "golden.json::dataset[quota:label=negative]": "SKIPPED",
        "golden.json::dataset[quota:labels-declared]": "SKIPPED",
    }
    result.stdout.fnmatch_lines(["*cannot check: golden.json could not be read (line 2, see its json check)*"])


def test_a_line_faulty_for_a_repeated_key_fails_once_not_also_as_a_missing_scenario(pytester: pytest.Pytester) -> None:
    repeated = json.dumps(parent_only("explain-snippet"))[:-1] + ', "expected_fallback": "none"}\n'
    write(pytester, "prompts.jsonl", jsonl(scenario()) + repeated)
    write(pytester, "prompts.manifest.json", json.dumps({"required_ids": ["fix-failing-test", "explain-snippet"]}))
    write(
        pytester,
        "decisions.jsonl",
        jsonl(
            observation(),
            observation(
                "explain-snippet",
                decision="parent-only",
                worker_count=0,
                worker_roles=[],
                writer_count=0,
                fallback="none",
            ),
        ),
    )
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl", "--policy-decisions", "decisions.jsonl", "-rs")
    failed = sorted(n for n, o in outcomes.items() if o == "FAILED")
    assert failed == ["prompts.jsonl::line-2[duplicate-key]"]
    assert outcomes["prompts.jsonl::dataset[required-ids]"] == "PASSED"
    assert outcomes["decisions.jsonl::explain-snippet[known-scenario]"] == "SKIPPED"
    result.stdout.fnmatch_lines(
        ["*cannot check: scenario 'explain-snippet' is named by a faulty line, prompts.jsonl:2 (see its check)*"]
    )


def failed_and_skipped(outcomes: dict[str, str]) -> tuple[list[str], list[str]]:
    return sorted(n for n, o in outcomes.items() if o == "FAILED"), sorted(
        n for n, o in outcomes.items() if o == "SKIPPED"
    )


def example_copy(pytester: pytest.Pytester) -> Path:
    shutil.copytree(EXAMPLES, pytester.path / "policy")
    return pytester.path / "policy"


BASELINE_FAILED = {  # the example's own failures
    "policy/prompts.jsonl::hotfix-two-explorers[writer-role]",
    "policy/prompts.jsonl::fix-failing-test[forward]",
    "policy/decisions.jsonl::bulk-doc-update[worker-contract]",
    "policy/decisions.jsonl::summarize-meeting-notes[known-scenario]",
}


def run_example(pytester: pytest.Pytester) -> tuple[set[str], list[str]]:
    _, outcomes = run(pytester, "--policy-eval", "policy/prompts.jsonl", "--policy-decisions", "policy/decisions.jsonl")
    failed, skipped = failed_and_skipped(outcomes)
    return set(failed) - BASELINE_FAILED, skipped


def test_an_unreadable_line_fails_once_and_the_rules_it_could_change_say_cannot_tell(pytester: pytest.Pytester) -> None:
    data = example_copy(pytester)
    lines = (data / "prompts.jsonl").read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if '"explain-code-snippet"' in line)
    lines[at] = lines[at][:-1] + ",}"  # a trailing comma: the line is no JSON
    (data / "prompts.jsonl").write_text("\n".join(lines) + "\n")
    failed, skipped = run_example(pytester)
    assert failed == {f"policy/prompts.jsonl::line-{at + 1}[json]"}
    assert {"policy/prompts.jsonl::dataset[min-records]", "policy/prompts.jsonl::dataset[required-ids]"} <= set(skipped)
    assert "policy/decisions.jsonl::explain-code-snippet[known-scenario]" in skipped


def test_a_line_that_repeats_a_key_still_counts_toward_the_dataset_rules(pytester: pytest.Pytester) -> None:
    data = example_copy(pytester)
    lines = (data / "prompts.jsonl").read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if '"delegation-disabled-by-config"' in line)
    lines[at] = lines[at][:-1] + ', "expected_fallback": "none"}'
    (data / "prompts.jsonl").write_text("\n".join(lines) + "\n")
    failed, _ = run_example(pytester)
    assert failed == {f"policy/prompts.jsonl::line-{at + 1}[duplicate-key]"}


@pytest.mark.parametrize(
    ("field", "value", "fails"),
    [
        ("expected_delegation_decision", "delgate", "fields"),  # invalid: its fields check fails, no quota does
        ("group", 1, "fields"),
        ("group", "negatve", "dataset[quota:labels-declared]"),  # valid text, no quota: one closure item
    ],
)
def test_one_bad_label_fails_one_item(pytester: pytest.Pytester, field: str, value: Any, fails: str) -> None:
    data = example_copy(pytester)
    if field == "group":
        cases = json.loads((data / "golden.json").read_text())
        index = next(i for i, case in enumerate(cases) if case["group"] == "negative")
        cases[index][field] = value
        (data / "golden.json").write_text(json.dumps(cases, indent=1))
        subject = f"policy/golden.json::{cases[index]['id']}[fields]"
    else:
        records = [json.loads(line) for line in (data / "prompts.jsonl").read_text().splitlines()]
        index = next(i for i, record in enumerate(records) if record[field] == "delegate")
        records[index][field] = value
        (data / "prompts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
        subject = f"policy/prompts.jsonl::{records[index]['id']}[fields]"
    failed, _ = run_example(pytester)
    expected = subject if fails == "fields" else f"policy/golden.json::{fails}"
    assert failed == {expected}


def test_an_invalid_golden_manifest_guesses_no_rationale_rule(pytester: pytest.Pytester) -> None:
    data = example_copy(pytester)
    manifest = json.loads((data / "golden.manifest.json").read_text())
    manifest["min_record"] = manifest.pop("min_records")
    (data / "golden.manifest.json").write_text(json.dumps(manifest))
    cases = json.loads((data / "golden.json").read_text())
    for case in cases:
        case.pop("rationale", None)
    (data / "golden.json").write_text(json.dumps(cases, indent=1))
    failed, skipped = run_example(pytester)
    assert failed == {"policy/golden.json::dataset[manifest]"}
    assert all(n in skipped for n in (f"policy/golden.json::{c['id']}[rationale]" for c in cases))


def test_groups_of_values_that_are_no_strings_match_whatever_the_key_order(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "prompts.jsonl",
        jsonl(parent_only("a"), parent_only("b", expected_worker_count_range={"max": 0, "min": 0})),
    )
    write(
        pytester,
        "prompts.manifest.json",
        json.dumps(
            {"quotas": {"label_field": "expected_worker_count_range", "per_label": {'{"min": 0, "max": 0}': 2}}}
        ),
    )
    _, outcomes = run(pytester, "--policy-eval", "prompts.jsonl")
    # (the quotes of the name are escaped in the node id, as every HTML special is)
    assert outcomes["prompts.jsonl::dataset[quota:label={\\x22min\\x22: 0, \\x22max\\x22: 0}]"] == "PASSED"
    assert outcomes["prompts.jsonl::dataset[quota:labels-declared]"] == "PASSED"


def test_a_grouping_field_that_is_no_record_field_is_reported_at_its_line_beside_other_problems(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario()))
    write(
        pytester,
        "prompts.manifest.json",
        '{\n  "min_records": "3",\n  "quotas": {\n    "label_field": "expected_decision"\n  }\n}\n',
    )
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl")
    assert outcomes["prompts.jsonl::dataset[manifest]"] == "FAILED"
    result.stdout.fnmatch_lines_random(
        [
            "*prompts.manifest.json:2: min_records is*",
            "*prompts.manifest.json:3: quotas: quotas group by 'expected_decision'*",
        ]
    )


NEED_LABEL = "quotas: per_label and per_label_locale quotas need label_field (the field to group by)"
NEED_LOCALE = "quotas: per_locale and per_label_locale quotas need locale_field (the field to group by)"
NO_RECORD_FIELD = "quotas: quotas group by 'lang', which is not a field of a scenario record*"


@pytest.mark.parametrize(
    ("quotas", "told"),
    [
        # a member is invalid: pydantic runs no rule across the members, which are told all the same
        (
            {"label_field": "expected_fallback", "per_label": {"none": "x"}, "per_locale": {"en": 1}},
            ["quotas.per_label.none: a quota is a count*", NEED_LOCALE],
        ),
        (
            {"locale_field": "lang", "per_locale": {"en": -1}, "per_label": {"none": 1}},
            ["quotas.per_locale.en: a count is a whole number >= 0, not -1", NEED_LABEL, NO_RECORD_FIELD],
        ),
        # every member is valid: a group field missing hides no unknown record field
        ({"locale_field": "lang", "per_label": {"none": 1}}, [NEED_LABEL, NO_RECORD_FIELD]),
        ({"label_field": "expected_fallback", "locale_field": "lang", "per_locale": {"en": 1}}, [NO_RECORD_FIELD]),
    ],
)
def test_an_invalid_manifest_tells_every_problem_of_its_quotas(
    pytester: pytest.Pytester, quotas: dict[str, Any], told: list[str]
) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario()))
    write(pytester, "prompts.manifest.json", '{\n  "min_records": 1,\n  "quotas": ' + json.dumps(quotas) + "\n}\n")
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl")
    assert outcomes["prompts.jsonl::dataset[manifest]"] == "FAILED"
    section = result.stdout.str().split("dataset[manifest] _")[1].split("Fix the manifest")[0]
    lines = [line for line in section.splitlines() if line.startswith("prompts.manifest.json:")]
    assert len(lines) == len(told), lines
    assert all(fnmatch.fnmatch(line, f"prompts.manifest.json:3: {pattern}") for line, pattern in zip(lines, told)), (
        lines
    )


def test_an_observation_on_a_faulty_line_is_named_by_the_forward_skip(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario()))
    write(pytester, "decisions.jsonl", json.dumps(observation())[:-1] + ', "fallback": "parent-only"}\n')
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl", "--policy-decisions", "decisions.jsonl", "-rs")
    assert outcomes["prompts.jsonl::fix-failing-test[forward]"] == "SKIPPED"
    result.stdout.fnmatch_lines(
        [
            "*cannot compare: the observation for scenario 'fix-failing-test' is on a faulty line, decisions.jsonl:1 (see its check)*"
        ]
    )


def test_a_line_that_holds_json_but_no_object_is_read_and_explains_no_shortfall(pytester: pytest.Pytester) -> None:
    data = example_copy(pytester)
    (data / "prompts.jsonl").write_text((data / "prompts.jsonl").read_text() + "[]\n")
    manifest = json.loads((data / "prompts.manifest.json").read_text())
    manifest["min_records"] = 13
    (data / "prompts.manifest.json").write_text(json.dumps(manifest))
    failed, _ = run_example(pytester)
    assert failed == {"policy/prompts.jsonl::line-13[json]", "policy/prompts.jsonl::dataset[min-records]"}


@pytest.mark.parametrize("dry_run", ["--co", "--setup-only", "--setup-plan"])
def test_a_run_that_runs_no_item_prints_no_policy_summary(pytester: pytest.Pytester, dry_run: str) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario(), parent_only()))
    write(pytester, "decisions.jsonl", jsonl(observation()))
    result = pytester.runpytest("--policy-eval", "prompts.jsonl", "--policy-decisions", "decisions.jsonl", dry_run)
    assert "policy evaluation" not in result.stdout.str()
    assert (
        "policy evaluation"
        in pytester.runpytest("--policy-eval", "prompts.jsonl", "--policy-decisions", "decisions.jsonl").stdout.str()
    )


def test_two_spellings_of_one_json_group_count_alike_whatever_the_hash_seed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(pytester, "prompts.jsonl", jsonl(parent_only("solo")))
    manifest = {
        "quotas": {
            "label_field": "expected_worker_count_range",
            "locale_field": "expected_writer_count",
            "per_label": {'{"min": 0, "max": 0}': 1},
            "per_label_locale": {'{"min":0,"max":0}': {"0": 1}},
        }
    }
    write(pytester, "prompts.manifest.json", json.dumps(manifest))
    for seed in range(4):  # the order of a set of names once decided which spelling counted
        monkeypatch.setenv("PYTHONHASHSEED", str(seed))
        result = pytester.runpytest_subprocess("--policy-eval", "prompts.jsonl", "-p", "no:cacheprovider")
        assert result.parseoutcomes().get("failed", 0) == 0, (seed, result.stdout.str())


def test_a_label_spelled_like_a_pair_gets_a_quota_item_of_its_own(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(parent_only("solo")))
    manifest = {
        "quotas": {
            "label_field": "expected_fallback",
            "locale_field": "expected_writer_count",
            "per_label": {"none,locale=0": 0},
            "per_label_locale": {"none": {"0": 1}},
        }
    }
    write(pytester, "prompts.manifest.json", json.dumps(manifest))
    ids = [
        line
        for line in pytester.runpytest("--policy-eval", "prompts.jsonl", "--co", "-q").stdout.lines
        if "quota:label=none,locale=0" in line
    ]
    assert ids == [
        "prompts.jsonl::dataset[quota:label=none,locale=0]",
        "prompts.jsonl::dataset[quota:label=none,locale=0~2]",
    ]


def test_an_observation_on_a_line_that_repeats_a_key_still_counts_for_the_forward_test(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario()))
    repeated = json.dumps(observation(worker_count=5))[:-1] + ', "fallback": "parent-only"}'
    write(pytester, "decisions.jsonl", jsonl(observation()) + repeated + "\n")
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl", "--policy-decisions", "decisions.jsonl", "-rs")
    assert outcomes["prompts.jsonl::fix-failing-test[forward]"] == "SKIPPED"
    result.stdout.fnmatch_lines(
        [
            "*2 observations for scenario 'fix-failing-test' in decisions.jsonl (lines 1, 2); a forward test needs exactly one"
        ]
    )


def test_a_key_missing_inside_a_field_is_said_missing(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "prompts.jsonl",
        jsonl(scenario(expected_worker_count_range={"min": 1}), scenario(id="b", expected_worker_count_range=[1, 2])),
    )
    result, _ = run(pytester, "--policy-eval", "prompts.jsonl")
    result.stdout.fnmatch_lines_random(
        [
            "*field expected_worker_count_range.max is missing (rule: *",
            "*field expected_worker_count_range is ?1, 2?, but it should be an object (rule: *",
        ]
    )
    assert "WorkerCountRange" not in result.stdout.str()


def test_a_record_without_a_valid_id_makes_id_checks_cannot_tell_not_fail(pytester: pytest.Pytester) -> None:
    broken = scenario(id="zz")
    broken["idd"] = broken.pop("id")
    write(pytester, "prompts.jsonl", jsonl(broken))
    write(pytester, "prompts.manifest.json", json.dumps({"required_ids": ["zz"], "min_records": 1}))
    write(pytester, "decisions.jsonl", jsonl(observation("zz")))
    _result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl", "--policy-decisions", "decisions.jsonl")
    assert [nodeid for nodeid, outcome in outcomes.items() if outcome == "FAILED"] == ["prompts.jsonl::line-1[fields]"]
    assert outcomes["prompts.jsonl::dataset[required-ids]"] == "SKIPPED"
    assert outcomes["decisions.jsonl::zz[known-scenario]"] == "SKIPPED"


@pytest.mark.parametrize("where", ["record", "repeated-key line"])
def test_an_id_against_the_format_makes_both_id_checks_cannot_tell(pytester: pytest.Pytester, where: str) -> None:
    odd = json.dumps(scenario(id="Fix-Failing-Test"))  # the id pattern wants lower case
    if where == "repeated-key line":
        odd = odd[:-1] + ', "prompt_or_scenario": "again"}'
    write(pytester, "prompts.jsonl", jsonl(parent_only()) + odd + "\n")
    write(pytester, "prompts.manifest.json", json.dumps({"required_ids": ["fix-failing-test"]}))
    write(pytester, "decisions.jsonl", jsonl(observation("fix-failing-test")))
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl", "--policy-decisions", "decisions.jsonl", "-rs")
    assert outcomes["prompts.jsonl::dataset[required-ids]"] == "SKIPPED"
    assert outcomes["decisions.jsonl::fix-failing-test[known-scenario]"] == "SKIPPED"
    assert len([o for o in outcomes.values() if o == "FAILED"]) == 1  # the one mistake: its fields or its repeated key
    result.stdout.fnmatch_lines(["*0 line(s) could not be read and 1 of the records has no valid id*"])


@pytest.mark.parametrize("broken", [1, 5])
def test_cannot_tell_names_a_few_unreadable_lines_and_counts_the_rest(pytester: pytest.Pytester, broken: int) -> None:
    # Every known-scenario check such lines leave open names them; listing all of them in
    # every reason would grow as (lines x observations).
    write(pytester, "prompts.jsonl", jsonl(parent_only()) + '{"id": \n' * broken)
    write(pytester, "decisions.jsonl", jsonl(observation("zz"), observation("yy")))
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl", "--policy-decisions", "decisions.jsonl", "-rs")
    assert (
        outcomes["decisions.jsonl::zz[known-scenario]"] == outcomes["decisions.jsonl::yy[known-scenario]"] == "SKIPPED"
    )
    reasons = [line for line in result.outlines if "[known-scenario]" not in line and "cannot tell: scenario" in line]
    assert len(reasons) == 2
    if broken == 1:
        assert all("(prompts.jsonl:2; see its check)" in reason for reason in reasons)
    else:
        assert all(
            "(prompts.jsonl:2, prompts.jsonl:3, prompts.jsonl:4 and 2 more; see their checks)" in r for r in reasons
        )


@pytest.mark.parametrize("where", ["envelopes", "decisions"])
def test_an_id_first_named_on_a_line_that_repeats_a_key_is_still_taken(pytester: pytest.Pytester, where: str) -> None:
    # Line 1 fails for its repeated key; line 2 then repeats its id, and must say so.
    if where == "envelopes":
        first = json.dumps(scenario(id="dup"))[:-1] + ', "id": "dup"}'
        write(pytester, "prompts.jsonl", first + "\n" + jsonl(scenario(id="dup")))
        write(pytester, "decisions.jsonl", jsonl(observation("dup")))
        repeat = "prompts.jsonl::dup[unique-id]"
    else:
        write(pytester, "prompts.jsonl", jsonl(scenario(id="dup")))
        first = json.dumps(observation("dup"))[:-1] + ', "decision": "delegate"}'
        write(pytester, "decisions.jsonl", first + "\n" + jsonl(observation("dup")))
        repeat = "decisions.jsonl::dup[unique-id]"
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl", "--policy-decisions", "decisions.jsonl")
    assert outcomes[repeat] == "FAILED"
    result.stdout.fnmatch_lines(["*:2: * repeats the id of line 1*"])


def test_cannot_tell_names_unsure_lines_in_line_order(pytester: pytest.Pytester) -> None:
    # A record without a valid id (line 2) comes before an unreadable line (3) and after
    # it another record without one (4): the reason names them as the file has them.
    no_id = json.dumps(scenario(id="Fix-Failing-Test"))
    write(pytester, "prompts.jsonl", jsonl(parent_only()) + no_id + "\n" + '{"id": \n' + no_id + "\n")
    write(pytester, "decisions.jsonl", jsonl(observation("zz")))
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl", "--policy-decisions", "decisions.jsonl", "-rs")
    assert outcomes["decisions.jsonl::zz[known-scenario]"] == "SKIPPED"
    result.stdout.fnmatch_lines(
        ["*cannot tell: scenario 'zz' *(prompts.jsonl:2, prompts.jsonl:3, prompts.jsonl:4; see their checks)*"]
    )


def test_a_policy_run_indexes_the_failure_summary_and_keeps_teardown_sections(pytester: pytest.Pytester) -> None:
    # pytest's own teardown lookup walks every report once per failure: thousands of failing
    # checks would make the summary quadratic. A policy run without sessions indexes it too.
    write(pytester, "prompts.jsonl", jsonl(scenario(), parent_only()))
    write(pytester, "decisions.jsonl", jsonl(observation("zz")))
    pytester.makeconftest(
        """
        import pytest

        def pytest_terminal_summary(terminalreporter):
            print("teardown lookup indexed:", getattr(terminalreporter._get_teardown_reports, "indexed", False))
        """
    )
    pytester.makepyfile(test_own=NOISY_TEARDOWN)
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--policy-eval",
        "prompts.jsonl",
        "--policy-decisions",
        "decisions.jsonl",
        "test_own.py",
    )
    result.stdout.fnmatch_lines(["*_ test_fails _*", "*- Captured stdout teardown -*", "teardown says hello"])
    result.stdout.fnmatch_lines(["*zz*known-scenario*", "teardown lookup indexed: True"])
    assert result.stdout.str().count("teardown says hello") == 1


def test_a_manifest_key_or_golden_path_that_could_forge_text_is_shown_escaped(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario(), parent_only()))
    key = "min_recs\nFAKE.json:9: all good \x1b[31m"
    write(pytester, "prompts.manifest.json", json.dumps({"min_records": 1, key: 1, "golden_set": "a\nb.json"}))
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl")
    assert outcomes["prompts.jsonl::dataset[manifest]"] == "FAILED"
    text = result.stdout.str()
    assert "\x1b[31m" not in text and not any(line.startswith("FAKE.json") for line in result.outlines)
    assert '"min_recs\\nFAKE.json:9: all good \\u001b[31m" is not a manifest key' in text
    assert "golden_set 'a\\nb.json' names no file (\"" in text and '/a\\nb.json")' in text


@pytest.mark.parametrize(("text", "line"), [("[]", 1), ("\n\n  [\n]\n", 3)])
def test_a_manifest_that_is_no_object_is_named_at_its_line(pytester: pytest.Pytester, text: str, line: int) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario(), parent_only()))
    write(pytester, "prompts.manifest.json", text)
    result, _ = run(pytester, "--policy-eval", "prompts.jsonl")
    result.stdout.fnmatch_lines([f"*prompts.manifest.json:{line}: holds an array, but a manifest is a JSON object*"])


def test_an_integer_of_more_digits_than_read_is_named_as_such(pytester: pytest.Pytester) -> None:
    line = json.dumps(scenario())[:-1] + ', "expected_writer_count": ' + "1" * 5000 + "}"
    write(pytester, "prompts.jsonl", jsonl(parent_only()) + line + "\n")
    result, outcomes = run(pytester, "--policy-eval", "prompts.jsonl")
    assert outcomes["prompts.jsonl::line-2[json]"] == "FAILED"
    result.stdout.fnmatch_lines(
        ["*prompts.jsonl: line 2 holds an integer of 5,000 digits; integers of more than 4,300 digits are not read*"]
    )
    assert "set_int_max_str_digits" not in result.stdout.str()


def test_a_lone_surrogate_in_a_golden_path_reads_the_same_under_xdist(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    write(pytester, "prompts.jsonl", jsonl(scenario(), parent_only()))
    write(pytester, "prompts.manifest.json", '{"golden_set": "\\udcff.json"}')
    messages = []
    for extra in ((), ("-n", "2")):
        pytester.runpytest_subprocess(
            "-p", "no:cacheprovider", "--policy-eval", "prompts.jsonl", "--junitxml", "j.xml", *extra
        )
        failures = [
            failure.get("message", "")
            for case in ET.parse(pytester.path / "j.xml").iter("testcase")
            for failure in case.iter("failure")
        ]
        messages.append(failures)
    assert len(messages[0]) == 1 and messages[0] == messages[1]
    assert '\\udcff.json")' in messages[0][0]


def test_a_quota_key_that_could_forge_text_is_shown_escaped_in_its_failure(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario(), parent_only()))
    key = "none\nFAKE.json:9: all good \x1b[31m"
    quotas = {"label_field": "expected_fallback", "allow_undeclared": True, "per_label": {key: 5}}
    write(pytester, "prompts.manifest.json", json.dumps({"quotas": quotas}))
    result, _ = run(pytester, "--policy-eval", "prompts.jsonl", "-rA")
    text = result.stdout.str()
    assert "\x1b[31m" not in text and not any(line.startswith("FAKE.json") for line in result.outlines)
    assert '(quotas.per_label["none\\nFAKE.json:9: all good \\u001b[31m"])' in text


def test_a_session_journal_aimed_at_a_policy_manifest_is_refused_as_such(pytester: pytest.Pytester) -> None:
    write(pytester, "prompts.jsonl", jsonl(scenario()))
    write(pytester, "prompts.manifest.json", json.dumps({"min_records": 1}, indent=2))  # no line is a whole object
    write(pytester, "sessions.jsonl", '{"session_id": "s1", "status": "completed"}\n')
    result = pytester.runpytest(
        "--policy-eval",
        "prompts.jsonl",
        "--session-eval",
        "sessions.jsonl",
        "--session-eval-journal",
        "prompts.manifest.json",
        "--session-eval-model-id",
        "m",
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --session-eval-journal: *prompts.manifest.json is a manifest of this run; it would be written to"]
    )
