"""What a judge or a custom rubric's scorer answers, however odd: taken as plain values that
travel under pytest-xdist, its faults told as usage errors naming the plugin, and its text
never reaching a report with raw control characters."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter
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

RUBRIC = """
from pathlib import Path
from pytest_sessioneval import Dimension, Rubric, Verdict

TEXT = Path(__file__).with_name("r.md")
TEXT.write_text("my rubric")
CAUSES = {{}}
{code}

def pytest_sessioneval_rubrics():
    return [Rubric("mine", TEXT, {dimensions}, judge_ids=("j",), causes={{"odd": "with an odd cause", **CAUSES}})]
"""

# ---------------------------------------------------------------------------------------------
# str and float subclasses (an enum's status, a numpy-like score) are taken as plain values

SUBCLASSES = """
import enum, sys

class Status(str, enum.Enum):  # a StrEnum before Python 3.11
    PASS = "pass"
    FAIL = "fail"
    CANNOT_DETERMINE = "cannot-determine"

if sys.version_info >= (3, 11):
    StrStatus = enum.StrEnum("StrStatus", {"PASS": "pass"})
    PASSING = StrStatus.PASS
else:
    PASSING = Status.PASS

class Text(str):
    pass

class Score(float):  # as numpy.float64 is
    pass

class Count(int):
    pass
"""


@pytest.mark.parametrize("workers", WORKERS)
def test_a_judge_answering_str_and_float_subclasses_works_also_under_xdist(
    pytester: pytest.Pytester, metrics: Path, workers: tuple[str, ...]
) -> None:
    needs_xdist(workers)
    pytester.makeconftest(
        SUBCLASSES
        + """
def pytest_sessioneval_judge(record):
    return [
        {"id": Text("instruction-adherence"), "status": PASSING, "evidence": Text("kept to it"), "score": Count(3)},
        {"id": "report-quality", "status": Status.FAIL, "evidence": Text("vague"), "score": Score(0.25)},
    ]
"""
    )
    result = pytester.runpytest(
        "--session-eval",
        str(metrics),
        "--session-eval-judge",
        *JOURNAL,
        "--junitxml",
        "junit.xml",
        "-m",
        "judge",
        *workers,
    )
    assert not crashed(result)
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=2, xfailed=2)
    for record in journal(pytester):
        adherence, quality = record["dimensions"][5:]
        assert (adherence["status"], adherence["evidence"], adherence["score"]) == ("pass", "kept to it", 3)
        assert (quality["status"], quality["evidence"], quality["score"]) == ("fail", "vague", 0.25)
    properties = {
        (p.get("name"), p.get("value"))
        for p in ET.parse(pytester.path / "junit.xml").iter("property")
        if p.get("name") in ("status", "dimension")
    }
    assert ("status", "fail") in properties and ("dimension", "report-quality") in properties
    assert not any("Status." in value for _, value in properties)


@pytest.mark.parametrize("workers", WORKERS)
def test_a_scorer_answering_str_and_float_subclasses_works_also_under_xdist(
    pytester: pytest.Pytester, metrics: Path, workers: tuple[str, ...]
) -> None:
    needs_xdist(workers)
    code = (
        SUBCLASSES
        + """
def scored(context):
    return Verdict(PASSING, Text("fine"), Score(0.5))

def undecided(context):
    return Verdict(Status.CANNOT_DETERMINE, Text("unknown"), cause=Text("odd"))
"""
    )
    dimensions = '(Dimension("x", scored, scored=True), Dimension("y", undecided))'
    pytester.makeconftest(RUBRIC.format(code=code, dimensions=dimensions))
    result = pytester.runpytest(
        "--session-eval", str(metrics), "--session-eval-rubric", "mine", *JOURNAL, "--junitxml", "junit.xml", *workers
    )
    assert not crashed(result)
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=2, xfailed=2)
    result.stdout.fnmatch_lines(["*2 with an odd cause*"])
    for record in journal(pytester):
        x, y = record["dimensions"]
        assert (x["status"], x["evidence"], x["score"]) == ("pass", "fine", 0.5)
        assert (y["status"], y["evidence"]) == ("cannot-determine", "unknown")
    causes = [
        p.get("value") for p in ET.parse(pytester.path / "junit.xml").iter("property") if p.get("name") == "cause"
    ]
    assert causes == ["odd", "odd"]


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


# ---------------------------------------------------------------------------------------------
# Odd answers: any fault while checking one is a usage error naming the plugin

ODD = """
class BadEq:
    def __eq__(self, other):
        raise RuntimeError("no eq")
    __hash__ = None

class BadHashText(str):
    def __eq__(self, other):
        raise RuntimeError("no eq")
    def __hash__(self):
        raise RuntimeError("no hash")

class BadGet(dict):
    def get(self, *args):
        raise RuntimeError("no get")

class BadItems(dict):
    def __getitem__(self, key):
        raise RuntimeError("no getitem")
    def get(self, *args):
        raise RuntimeError("no get")

class BadExit(dict):
    def __getitem__(self, key):
        raise SystemExit(3)

class BadIter(list):
    def __iter__(self):
        raise RuntimeError("no iter")

class Clash:  # a key that the lookup of "id" compares, and whose == raises
    def __hash__(self):
        return hash("id")
    def __eq__(self, other):
        raise RuntimeError("no eq")

class Sneaky:  # isinstance() reads __class__, which raises
    @property
    def __class__(self):
        raise RuntimeError("no class")
"""


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ('[{"id": BadEq(), "status": "pass", "evidence": "e"}]', "*is not a judge dimension rubric-v1 pre-registers*"),
        ('[{"id": "report-quality", "status": BadEq(), "evidence": "e"}]', "*status * is not one of*"),
        ('[{"id": "report-quality", "status": "pass", "evidence": "e", "score": BadEq()}]', "*score must be*"),
        (
            '[BadItems(id="report-quality", status="pass", evidence="e")]',
            "*cannot be checked: RuntimeError: no getitem",
        ),
        ('[BadExit(id="report-quality", status="pass", evidence="e")]', "*cannot be checked: SystemExit: 3"),
        ('BadIter([{"id": "report-quality", "status": "pass", "evidence": "e"}])', "*RuntimeError: no iter"),
        ('[{Clash(): 1, "status": "pass", "evidence": "e"}]', "*cannot be checked: RuntimeError: no eq"),
        ("Sneaky()", "*cannot be checked: RuntimeError: no class"),
        ("[Sneaky()]", "*cannot be checked: RuntimeError: no class"),
        # taken as what they hold: a str subclass as its text, a dict subclass by its items
        ('[{"id": BadHashText("report-quality"), "status": BadHashText("pass"), "evidence": "e"}]', None),
        ('[BadGet(id="report-quality", status="pass", evidence="e")]', None),
    ],
)
def test_an_odd_judge_answer_is_a_usage_error_naming_the_plugin(
    pytester: pytest.Pytester, metrics: Path, answer: str, message: str | None
) -> None:
    pytester.makeconftest(ODD + f"\ndef pytest_sessioneval_judge(record):\n    return {answer}\n")
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-judge", *JOURNAL)
    assert not crashed(result)
    if message is None:
        assert result.ret == pytest.ExitCode.OK
        assert {d["status"] for r in journal(pytester) for d in r["dimensions"] if d["id"] == "report-quality"} == {
            "pass"
        }
        return
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --session-eval-judge: judge plugin '*conftest.py'*"])
    result.stderr.fnmatch_lines([message])


@pytest.mark.parametrize(
    ("verdict", "message"),
    [
        ('Verdict(BadEq(), "e")', "*scorer of 'x' returned*"),
        ('Verdict("pass", "e", cause=BadEq())', "*scorer of 'x' returned*"),
        ('Verdict("pass", "e", BadEq())', "*scorer of 'x' returned*"),
        ("Sneaky()", "*the answer of the scorer of 'x' cannot be checked: RuntimeError: no class"),
        ('Verdict(BadHashText("pass"), BadHashText("e"), cause=BadHashText("odd"))', None),
    ],
)
def test_an_odd_scorer_answer_is_a_usage_error_naming_the_plugin(
    pytester: pytest.Pytester, metrics: Path, verdict: str, message: str | None
) -> None:
    code = ODD + f"\ndef odd(context):\n    return {verdict}\n"
    pytester.makeconftest(RUBRIC.format(code=code, dimensions='(Dimension("x", odd, scored=True),)'))
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-rubric", "mine")
    assert not crashed(result)
    if message is None:
        assert result.ret == pytest.ExitCode.OK
        result.assert_outcomes(passed=2)
        return
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --session-eval-rubric: plugin '*conftest.py': *sessions.jsonl:1 (session 'a'): rubric 'mine': *"]
    )
    result.stderr.fnmatch_lines([message])


# ---------------------------------------------------------------------------------------------
# Control characters in a judge's or a scorer's text are shown escaped in every report

HOSTILE = "a\x00b\x1b[31mred\x9b2J\u202eok"
SHOWN = "a\\x00b\\x1b[31mred\\x9b2J\\u202eok"
RAW = ("\x00", "\x1b", "\x9b", "\u202e")


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for key, item in value.items() for s in (*strings(key), *strings(item))]
    if isinstance(value, list):
        return [s for item in value for s in strings(item)]
    return []


@pytest.mark.parametrize("workers", WORKERS)
def test_control_characters_from_a_judge_or_scorer_never_reach_a_report_raw(
    pytester: pytest.Pytester, metrics: Path, workers: tuple[str, ...]
) -> None:
    needs_xdist(workers)
    code = f"""
HOSTILE = {HOSTILE!r}

def failing(context):
    return Verdict("fail", HOSTILE)

def undecided(context):
    return Verdict("cannot-determine", HOSTILE, cause="odd" + HOSTILE)

CAUSES = {{"phrased": "phrased " + HOSTILE}}

def phrased(context):
    return Verdict("not-applicable", HOSTILE, cause="phrased")

def pytest_sessioneval_judge(record):
    return [{{"id": "j", "status": "fail", "evidence": HOSTILE}}]
"""
    dimensions = '(Dimension("x", failing), Dimension("y", undecided), Dimension("z", phrased))'
    pytester.makeconftest(RUBRIC.format(code=code, dimensions=dimensions))
    reports = ("--junitxml", "junit.xml", "--json-report", "--json-report-file", "report.json")
    result = pytester.runpytest(
        "--session-eval",
        str(metrics),
        "--session-eval-rubric",
        "mine",
        "--session-eval-judge",
        "--session-eval-html",
        "page.html",
        *JOURNAL,
        *reports,
        "-rA",
        *workers,
    )
    assert not crashed(result)
    result.assert_outcomes(failed=2, skipped=2, xfailed=4)
    terminal = result.stdout.str() + result.stderr.str()
    junit = (pytester.path / "junit.xml").read_text(encoding="utf-8")
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    page = (pytester.path / "page.html").read_text(encoding="utf-8")
    for name, text in (
        ("terminal", terminal),
        ("JUnit XML", junit),
        ("page", page),
        *(("JSON", s) for s in strings(report)),
    ):
        assert not any(raw in text for raw in RAW), (name, text)
    assert SHOWN in terminal and SHOWN in junit and SHOWN in page
    assert "odd" + SHOWN in terminal and "phrased " + SHOWN in terminal  # a cause code, a cause's phrase
    evidence = [
        test["metadata"]["session_eval"]["evidence"]
        for test in report["tests"]
        if test.get("metadata", {}).get("session_eval", {}).get("evidence") is not None
    ]
    assert Counter(evidence) == {SHOWN: 8}
    assert {d["evidence"] for r in journal(pytester) for d in r["dimensions"]} == {SHOWN}


def test_control_characters_in_a_judges_answer_are_escaped_in_the_usage_error(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    pytester.makeconftest(
        f"def pytest_sessioneval_judge(record):\n    return [{{'id': {HOSTILE!r}, 'status': 'pass', 'evidence': ''}}]\n"
    )
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-judge")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert not any(raw in result.stderr.str() for raw in RAW)
    result.stderr.fnmatch_lines(["*is not a judge dimension*"])


@pytest.mark.parametrize("workers", WORKERS)
def test_control_characters_stored_in_a_journal_never_reach_a_report_raw(
    pytester: pytest.Pytester, metrics: Path, workers: tuple[str, ...]
) -> None:
    # A journal written before evidence was made printable, or by another tool: its stored
    # evidence is data, shown escaped as every report shows data.
    needs_xdist(workers)
    assert pytester.runpytest("--session-eval", str(metrics), *JOURNAL).ret == pytest.ExitCode.OK
    records = journal(pytester)
    for record in records:
        for dimension in record["dimensions"]:
            dimension["evidence"] = HOSTILE
    (pytester.path / "stored.jsonl").write_text("".join(json.dumps(record) + "\n" for record in records))
    reports = ("--junitxml", "junit.xml", "--json-report", "--json-report-file", "report.json")
    result = pytester.runpytest("--session-eval", "stored.jsonl", *reports, "-rA", *workers)
    assert not crashed(result)
    terminal = result.stdout.str() + result.stderr.str()
    junit = (pytester.path / "junit.xml").read_text(encoding="utf-8")
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    for name, text in (("terminal", terminal), ("JUnit XML", junit), *(("JSON", s) for s in strings(report))):
        assert not any(raw in text for raw in RAW), (name, text)
    assert SHOWN in terminal and SHOWN in junit and any(SHOWN in text for text in strings(report))


def test_control_characters_in_a_failing_judges_message_are_escaped_in_its_record(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    pytester.makeconftest(f"def pytest_sessioneval_judge(record):\n    raise ConnectionError({HOSTILE!r})\n")
    result = pytester.runpytest("--session-eval", str(metrics), "--session-eval-judge", *JOURNAL, "-m", "judge", "-rx")
    assert not crashed(result) and result.ret == pytest.ExitCode.OK
    evidence = {d["evidence"] for r in journal(pytester) for d in r["dimensions"] if d["method"] == "judge"}
    assert len(evidence) == 1
    (told,) = evidence
    assert "raised ConnectionError: " + SHOWN in told and not any(raw in told for raw in RAW)
    assert not any(raw in result.stdout.str() for raw in RAW)
