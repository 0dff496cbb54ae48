"""The per-dimension summary (JSON, its schema, Markdown), requirements and regressions as
judged from counts, and baselines read from journals and summaries."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from builders import DOCS, SHA, reference_record, write_jsonl

from pytest_sessioneval.report.baseline import BaselineError, read_baseline
from pytest_sessioneval.report.gates import (
    judge_regression,
    judge_requirement,
    parse_requirement,
    regression_text,
    requirement_text,
)
from pytest_sessioneval.report.intervals import newcombe_interval, wilson_interval
from pytest_sessioneval.report.summary import (
    EvalSummary,
    InvalidSummary,
    dimension_summary,
    ordered_causes,
    read_summary,
    summary_json,
    summary_json_schema,
    summary_markdown,
    told_causes,
)


def test_the_exported_summary_schema_is_in_sync() -> None:
    exported = json.loads((DOCS / "eval-summary.schema.json").read_text())
    assert exported == json.loads(json.dumps(summary_json_schema())), "regenerate docs/eval-summary.schema.json"


@pytest.mark.parametrize(
    ("text", "dimension", "minimum"),
    [("gate-health>=0.8", "gate-health", 0.8), (" plan-fidelity >= .75 ", "plan-fidelity", 0.75), ("x>=1", "x", 1)],
)
def test_a_requirement_reads_dim_at_least_rate(text: str, dimension: str, minimum: float) -> None:
    requirement = parse_requirement(text)
    assert (requirement.dimension, float(requirement.minimum)) == (dimension, minimum)
    assert requirement.text == text.replace(" ", "")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("gate-health", "is not DIM>=RATE"),
        (">=0.8", "is not DIM>=RATE"),
        ("gate-health>0.8", "is not DIM>=RATE"),
        ("gate-health>=80%", "is not DIM>=RATE"),
        ("gate-health>=1.5", "is above 1"),
    ],
)
def test_a_requirement_that_is_no_requirement_says_so(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_requirement(text)


@pytest.mark.parametrize(("passed", "failed"), [(4, 1), (3, 1), (8, 2), (1, 0), (0, 3)])
def test_a_requirement_judges_the_pass_rate_exactly(passed: int, failed: int) -> None:
    result = judge_requirement(parse_requirement("d>=0.8"), "estimate", passed, failed, [], "n")
    assert result.judged == passed / (passed + failed)
    assert result.result == ("met" if passed * 5 >= (passed + failed) * 4 else "missed")  # 4/5 meets 0.8 exactly


def test_the_lower_bound_mode_judges_the_lower_bound_of_the_wilson_interval() -> None:
    requirement = parse_requirement("d>=0.8")
    estimate = judge_requirement(requirement, "estimate", 9, 1, ["a[d]"], "n")
    lower = judge_requirement(requirement, "lower", 9, 1, ["a[d]"], "n")
    assert estimate.result == "met" and lower.result == "missed"
    assert lower.judged == wilson_interval(9, 10)[0]  # type: ignore[index]
    assert "95% lower bound 0.60" in requirement_text(lower) and "below 0.8; failing: a[d]" in requirement_text(lower)
    many = judge_requirement(parse_requirement("d>=0.5"), "lower", 99, 1, [], "n")
    assert many.result == "met"


def test_a_requirement_without_a_decided_session_cannot_be_determined() -> None:
    result = judge_requirement(parse_requirement("d>=0.8"), "lower", 0, 0, [], "n")
    assert (result.result, result.judged) == ("cannot-determine", None)
    assert "n = 0" in requirement_text(result)


def test_a_missed_requirement_names_its_first_failing_sessions() -> None:
    failing = [f"m/sessions.jsonl::s{i}[d]" for i in range(8)]
    result = judge_requirement(parse_requirement("d>=0.9"), "estimate", 2, 8, failing, "n")
    assert result.failing == tuple(failing[:5]) and result.failing_total == 8
    assert requirement_text(result).endswith("m/sessions.jsonl::s4[d] and 3 more")


def test_a_real_drop_is_a_significant_drop_and_the_same_data_is_none() -> None:
    dropped = judge_regression("d", "n", (18, 2), (8, 12))
    assert dropped.result == "significant-drop"
    assert (dropped.low, dropped.high) == newcombe_interval(8, 20, 18, 20)
    assert dropped.high is not None and dropped.high < 0
    assert "baseline 0.90 (n = 20); this run 0.40 (n = 20)" in regression_text(dropped)
    same = judge_regression("d", "n", (18, 2), (18, 2))
    assert same.result == "no-significant-drop" and same.difference == 0
    assert same.low is not None and same.high is not None and same.low < 0 < same.high
    better = judge_regression("d", "n", (8, 12), (18, 2))
    assert better.result == "no-significant-drop"
    assert judge_regression("d", "n", (0, 0), (3, 1)).result == "cannot-determine"


def _summary() -> EvalSummary:
    requirement = judge_requirement(
        parse_requirement("gate-health>=0.8"), "estimate", 6, 1, ["m::a|b[gate-health]"], "r"
    )
    regression = judge_regression("gate-health", "g", (9, 1), (6, 1))
    return EvalSummary(
        rubric_version="rubric-v1",
        rubric_sha256=SHA,
        timestamp="2026-08-01T00:00:00Z",
        gate="requirements",
        dimensions=(
            dimension_summary("verification-evidence", {"pass": 5, "fail": 3, "not-applicable": 2}),
            dimension_summary("gate-health", {"pass": 6, "fail": 1, "cannot-determine": 5}, [requirement], regression),
            dimension_summary("plan-fidelity", {"pass": 1}),
            dimension_summary("efficiency-kpis", {"not-applicable": 14}),
        ),
    )


def _schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((DOCS / "eval-summary.schema.json").read_text())
    return schema


def test_the_json_summary_is_valid_by_its_schema_and_reads_back() -> None:
    summary = _summary()
    written = json.loads(summary_json(summary))
    jsonschema.Draft202012Validator(_schema()).validate(written)
    assert read_summary(summary_json(summary)) == summary
    assert written["dimensions"][1]["counts"] == {"pass": 6, "fail": 1, "not-applicable": 0, "cannot-determine": 5}
    assert (written["dimensions"][2]["pass_rate"], written["dimensions"][2]["low"]) == (1.0, None)  # n = 1: no interval


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda s: s.update(overall=0.7), "overall"),
        (lambda s: s["dimensions"][0].update(n=9), "n must be pass + fail"),
        (lambda s: s["dimensions"][0]["counts"].update({"pass": -1}), "dimensions[0].counts.pass"),
        (lambda s: s.update(summary_kind="session-eval"), "summary_kind"),
        (lambda s: s.pop("rubric_sha256"), "rubric_sha256"),
    ],
)
def test_a_summary_the_schema_refuses_is_refused_naming_the_field(change: Any, field: str) -> None:
    written = json.loads(summary_json(_summary()))
    change(written)
    with pytest.raises(InvalidSummary, match=re.escape(field)):
        read_summary(json.dumps(written).encode())
    if field != "n must be pass + fail":  # (a rule the schema leaves to the plugin)
        assert not jsonschema.Draft202012Validator(_schema()).is_valid(written)


def _tables(markdown: str) -> list[list[list[str]]]:
    """The Markdown's tables, each a list of rows of cells (escapes undone), header first."""
    tables: list[list[list[str]]] = []
    rows: list[list[str]] = []
    for line in [*markdown.splitlines(), ""]:
        if line.startswith("|"):
            cells = re.split(r"(?<!\\)\|", line.strip()[1:-1])
            row = [re.sub(r"\\(.)", r"\1", cell.strip()) for cell in cells]
            if not set("".join(row)) <= set("-: "):
                rows.append(row)
        elif rows:
            tables.append(rows)
            rows = []
    return tables


def test_the_markdown_tables_show_what_the_json_summary_holds() -> None:
    summary = _summary()
    written = json.loads(summary_json(summary))
    jsonschema.Draft202012Validator(_schema()).validate(written)
    dimensions, requirements, regressions = _tables(summary_markdown(summary))
    assert dimensions[0] == [
        "dimension",
        "pass",
        "fail",
        "not-applicable",
        "cannot-determine",
        "pass rate",
        "n",
        "95% CI",
    ]
    for row, entry in zip(dimensions[1:], written["dimensions"], strict=True):
        counts = entry["counts"]
        assert row[:7] == [
            entry["id"],
            *(str(counts[s]) for s in ("pass", "fail", "not-applicable", "cannot-determine")),
            "" if entry["pass_rate"] is None else f"{entry['pass_rate']:.2f}",
            str(entry["n"]),
        ]
        interval = "" if entry["low"] is None else f"{entry['low']:.2f}\u2013{entry['high']:.2f}"
        assert row[7] == (interval or ("n = 1, no interval" if entry["n"] == 1 else ""))
    required = written["dimensions"][1]["requirements"][0]
    assert requirements[1] == [
        required["requirement"],
        required["result"],
        f"{required['judged']:.2f}",
        "m::a|b[gate-health]",
    ]
    regression = written["dimensions"][1]["regression"]
    assert regressions[1][:2] == ["gate-health", regression["result"]]
    assert regressions[1][4:] == [
        f"{regression['difference']:+.2f}",
        f"{regression['low']:+.2f} to {regression['high']:+.2f}",
    ]
    assert "no global score" in summary_markdown(summary)


def test_a_markdown_summary_without_requirements_or_regressions_holds_one_table() -> None:
    summary = EvalSummary.model_validate(
        {**_summary().model_dump(), "dimensions": [dimension_summary("d", {"pass": 2})]}
    )
    assert len(_tables(summary_markdown(summary))) == 1


def _record(session_id: str, line_status: str, **changes: Any) -> dict[str, Any]:
    record = reference_record(session_id=session_id, run_id=f"{session_id}-eval-{line_status}", **changes)
    record["dimensions"][2]["status"] = line_status  # gate-health
    return record


def test_a_journal_baseline_counts_the_latest_record_of_each_session(tmp_path: Path) -> None:
    journal = write_jsonl(
        tmp_path / "eval.jsonl",
        [
            _record("a", "fail"),
            _record("b", "pass"),
            _record("a", "pass"),  # a's latest: pass
            _record(
                "c", "fail", rubric_version="rubric-v2", provenance={"rubric_sha256": "0" * 64, "engine_commit": None}
            ),
            "{not json",
            {**_record("d", "fail"), "anonymized": "no"},
            {"note": "a header"},
        ],
    )
    baseline = read_baseline(journal, "rubric-v1", SHA)
    assert baseline.pass_fail("gate-health") == (2, 0)
    assert baseline.sessions == 2
    assert baseline.pass_fail("instruction-adherence") == (0, 0)  # a judge dimension never counts
    assert [problem.line for problem in baseline.problems] == [5, 6]  # not JSON; a record the schema refuses
    assert baseline.problems[1].message.startswith("invalid record, not counted in the baseline: anonymized")


def test_a_baseline_scored_with_another_rubric_text_names_both_hashes(tmp_path: Path) -> None:
    other = "f" * 64
    journal = write_jsonl(
        tmp_path / "eval.jsonl", [_record("a", "pass", provenance={"rubric_sha256": other, "engine_commit": None})]
    )
    with pytest.raises(BaselineError, match=f"{other}.*{SHA}"):
        read_baseline(journal, "rubric-v1", SHA)
    summary = tmp_path / "summary.json"
    summary.write_bytes(summary_json(_summary()))
    with pytest.raises(BaselineError, match=f"{SHA}.*{other}"):
        read_baseline(summary, "rubric-v1", other)


def test_a_summary_baseline_gives_its_counts(tmp_path: Path) -> None:
    path = tmp_path / "summary.json"
    path.write_bytes(summary_json(_summary()))
    baseline = read_baseline(path, "rubric-v1", SHA)
    assert (baseline.kind, baseline.pass_fail("gate-health"), baseline.pass_fail("efficiency-kpis")) == (
        "summary",
        (6, 1),
        (0, 0),
    )
    path.write_bytes(json.dumps(json.loads(summary_json(_summary()))).encode())  # on one line
    assert read_baseline(path, "rubric-v1", SHA).pass_fail("gate-health") == (6, 1)


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([{"session_id": "a", "status": "completed"}], "neither an eval journal nor a summary"),
        ([{"note": "nothing yet"}], "holds no valid rubric-v1 record"),
        (
            [_record("c", "pass", rubric_version="rubric-v2")],
            r"holds no valid rubric-v1 record .*\(its records are of rubric-v2\)",
        ),
        (['{"summary_kind": "session-eval-summary", "dimensions": 3}'], r"is no session-eval-summary.*dimensions"),
    ],
)
def test_a_file_that_cannot_serve_as_a_baseline_says_why(tmp_path: Path, lines: list[Any], message: str) -> None:
    path = write_jsonl(tmp_path / "baseline.jsonl", lines)
    with pytest.raises(BaselineError, match=message):
        read_baseline(path, "rubric-v1", SHA)


CAUSE_COUNTS: dict[tuple[str, str | None], int] = {
    ("not-applicable", "no-waves"): 2,
    ("cannot-determine", "no-events-file"): 1,
    ("cannot-determine", None): 1,
    ("cannot-determine", "peer-overlap"): 3,
    ("cannot-determine", "unknown-code"): 1,
}


def test_causes_are_ordered_cannot_determine_first_then_the_most_frequent() -> None:
    assert ordered_causes(CAUSE_COUNTS) == [
        ("cannot-determine", "peer-overlap", 3),
        ("cannot-determine", "no-events-file", 1),
        ("cannot-determine", "unknown-code", 1),
        ("cannot-determine", None, 1),
        ("not-applicable", "no-waves", 2),
    ]
    phrases = {"peer-overlap": "whose window overlaps", "no-events-file": "without an events file", "no-waves": "idle"}
    assert told_causes(CAUSE_COUNTS, phrases) == [
        (
            "cannot-determine",
            6,
            "3 whose window overlaps; 1 without an events file; 1 unknown-code; 1 with no cause given",
        ),
        ("not-applicable", 2, "2 idle"),
    ]


def test_the_json_summary_carries_each_cause_counted_and_told() -> None:
    phrases = {"peer-overlap": "whose window overlaps"}
    entry = dimension_summary(
        "gate-health", {"pass": 1, "cannot-determine": 6, "not-applicable": 2}, causes=CAUSE_COUNTS, phrases=phrases
    )
    summary = _summary().model_copy(update={"dimensions": (entry,)})
    written = json.loads(summary_json(summary))
    jsonschema.Draft202012Validator(_schema()).validate(written)
    assert read_summary(summary_json(summary)) == summary
    assert written["dimensions"][0]["causes"][0] == {
        "status": "cannot-determine",
        "cause": "peer-overlap",
        "count": 3,
        "text": "whose window overlaps",
    }
    assert [(c["status"], c["cause"], c["count"]) for c in written["dimensions"][0]["causes"]] == ordered_causes(
        CAUSE_COUNTS
    )
    assert written["dimensions"][0]["causes"][3] == {
        "status": "cannot-determine",
        "cause": None,
        "count": 1,
        "text": "with no cause given",
    }
    for change in ({"count": 0}, {"status": "pass"}, {"text": ""}):
        refused = json.loads(summary_json(summary))
        refused["dimensions"][0]["causes"][0].update(change)
        assert not jsonschema.Draft202012Validator(_schema()).is_valid(refused)
        with pytest.raises(InvalidSummary, match=re.escape("dimensions[0].causes[0]")):
            read_summary(json.dumps(refused).encode())
    earlier = json.loads(summary_json(_summary()))  # a summary written before causes were: read as without any
    for dimension in earlier["dimensions"]:
        del dimension["causes"]
    assert read_summary(json.dumps(earlier).encode()) == _summary()
