"""The eval journal: record schema, append-only writing, re-verification, journals as input."""

from __future__ import annotations

import copy
import json
import multiprocessing
import re
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from builders import (
    DOCS,
    reference_record,
    reference_rules_accept,
)

from pytest_sessioneval.records import (
    InvalidRecord,
    JournalError,
    append_records,
    hostname_hash,
    project_submission,
    read_journal,
    record_json_schema,
    validate_record,
)
from pytest_sessioneval.records.journal import is_journal
from pytest_sessioneval.records.seal import check_seal, seal_path


def test_a_reference_record_validates_here() -> None:
    validate_record(reference_record())
    assert reference_rules_accept(reference_record())
    for version in (1, 1.0):  # one number in JavaScript, which the reference compares with !== 1
        assert validate_record(reference_record(schema_version=version)).schema_version == 1


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda r: r.update(overall=0.9), "overall"),
        (lambda r: r.update(global_score=1), "global_score"),
        (lambda r: r.update(mean=1), "mean"),
        (lambda r: r.update(total=1), "total"),
        (lambda r: r.pop("run_id"), "run_id"),
        (lambda r: r.update(session_id="  "), "session_id"),
        (lambda r: r.update(schema_version=2), "schema_version"),
        (lambda r: r.update(schema_version=True), "schema_version"),
        (lambda r: r.update(schema_version=None), "schema_version"),
        (lambda r: r["dimensions"][0].update(advisory=None), "dimensions[0]"),
        (lambda r: r["dimensions"][0].update(calibration_status=None), "dimensions[0]"),
        (lambda r: r.update(record_kind="benchmark"), "record_kind"),
        (lambda r: r["provenance"].pop("engine_commit"), "provenance.engine_commit"),
        (lambda r: r["model"].update(source="guess"), "model.source"),
        (lambda r: r["harness"].update(hostname_hash="build-host.local"), "harness.hostname_hash"),
        (lambda r: r["kpis"].pop("carryover"), "kpis.carryover"),
        (lambda r: r["kpis"].update(total_waves=-1), "kpis.total_waves"),
        (lambda r: r["kpis"].update(token_input="12"), "kpis.token_input"),
        (lambda r: r["dimensions"][0].update(status="ok"), "dimensions[0].status"),
        (lambda r: r["dimensions"][0].update(advisory=True), "dimensions[0]"),
        (lambda r: r["dimensions"][5].pop("advisory"), "dimensions[5]"),
        (lambda r: r["dimensions"][5].update(calibration_status="calibrated"), "dimensions[5]"),
        (lambda r: r["dimensions"][1].update(score="1"), "dimensions[1].score"),
        (lambda r: r.update(anonymized="yes"), "anonymized"),
        (lambda r: r.update(handle=""), "handle"),
        (lambda r: r.update(timestamp="tomorrow"), "timestamp"),
    ],
)
def test_invalid_records_name_the_field(change: Any, field: str) -> None:
    record = copy.deepcopy(reference_record())
    change(record)
    assert not reference_rules_accept(record)
    with pytest.raises(InvalidRecord) as excinfo:
        validate_record(record)
    assert field in str(excinfo.value)


def test_a_global_score_is_named_along_with_every_other_wrong_field() -> None:
    record = reference_record(overall=1)
    record["kpis"]["token_input"] = "x"
    with pytest.raises(InvalidRecord) as excinfo:
        validate_record(record)
    assert [field for field, _ in excinfo.value.problems] == ["overall", "kpis.token_input"]


def test_submission_projection_keeps_only_the_whitelist() -> None:
    record = reference_record(secret_path="/home/me/repo", session_id="main-1")
    record["harness"]["hostname"] = "build-host"
    projected = project_submission(record)
    assert set(projected) == {
        "schema_version",
        "record_kind",
        "run_id",
        "standard_version",
        "rubric_version",
        "handle",
        "anonymized",
        "timestamp",
        "provenance",
        "model",
        "harness",
        "kpis",
        "dimensions",
    }
    assert "hostname" not in projected["harness"]
    assert all("evidence" not in d for d in projected["dimensions"])
    assert projected["dimensions"][5] == {
        "id": "instruction-adherence",
        "method": "judge",
        "status": "pass",
        "advisory": True,
        "calibration_status": "uncalibrated",
    }
    assert projected["dimensions"][1]["score"] == 1 and "score" not in projected["dimensions"][0]
    assert projected["kpis"] == record["kpis"]


def test_the_exported_json_schema_is_in_sync() -> None:
    exported = json.loads((DOCS / "eval-record.schema.json").read_text())
    assert exported == json.loads(json.dumps(record_json_schema())), "regenerate docs/eval-record.schema.json"


def test_the_json_schema_says_the_rules_it_can_as_validate_record_keeps_them() -> None:
    """Tools that validate with the exported schema refuse what it can express: its patterns
    agree with validate_record, KPIs are non-negative, the advisory firewall is there."""
    schema = record_json_schema()
    defs = schema["$defs"]
    assert defs["Kpis"]["properties"]["total_waves"]["anyOf"][0] == {"type": "number", "minimum": 0}
    hex_pattern = defs["Harness"]["properties"]["hostname_hash"]["anyOf"][0]["pattern"]
    for value in ["0123abcd", "0123abcdef0123456789", "0123abc", "0123ABCD", "MyLaptop.local", "0123abcg"]:
        accepted = _valid(reference_record(), ("harness", "hostname_hash"), value)
        assert bool(re.search(hex_pattern, value)) == accepted, value
    text_pattern = schema["properties"]["run_id"]["pattern"]
    for value in ["x", "  x ", "   ", "", "\t\n", "\u00a0\u3000"]:
        assert bool(re.search(text_pattern, value)) == _valid(reference_record(), ("run_id",), value), repr(value)
    firewall = defs["DimensionRecord"]
    assert firewall["if"] == {"properties": {"method": {"const": "judge", "type": "string"}}, "required": ["method"]}
    assert set(firewall["then"]["required"]) == {"advisory", "calibration_status"}
    assert firewall["else"] == {"not": {"anyOf": [{"required": ["advisory"]}, {"required": ["calibration_status"]}]}}
    # No date-time format: a validator checking formats would refuse timestamps the plugin reads.
    assert "format" not in schema["properties"]["timestamp"] and validate_record(
        reference_record(timestamp="2026-08-01")
    )


def _valid(record: dict[str, Any], path: tuple[str, ...], value: object) -> bool:
    target = record
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    try:
        validate_record(record)
    except InvalidRecord:
        return False
    return True


def test_a_torn_last_line_never_breaks_the_next_append(tmp_path: Path) -> None:
    journal = tmp_path / "eval.jsonl"
    journal.write_text(json.dumps(reference_record()) + "\n" + '{"record_kind": "session-eval", "run_')
    outcome = append_records(journal, [reference_record(run_id="r2"), reference_record(run_id="r3")])
    assert outcome.written == ["r2", "r3"]
    problems: list[Any] = []
    records = read_journal(journal, problems)
    assert [r["run_id"] for _, r in records] == ["main-2026-07-16-deep-1-eval-20260716T100000000Z", "r2", "r3"]
    assert [p.line for p in problems] == [2]


def test_invalid_records_are_never_written(tmp_path: Path) -> None:
    journal = tmp_path / "eval.jsonl"
    outcome = append_records(journal, [reference_record(overall=1), reference_record(run_id="ok")])
    assert outcome.written == ["ok"] and "global score" in outcome.refused[0]
    assert len(journal.read_text().splitlines()) == 1


def test_an_append_holds_a_digest_per_run_not_the_journal(tmp_path: Path) -> None:
    journal = tmp_path / "eval.jsonl"
    records = (reference_record(run_id=f"r{i}", evidence_pad=f"{i}" * 4000) for i in range(2000))
    journal.write_text("".join(json.dumps(record) + "\n" for record in records))
    size = journal.stat().st_size
    tracemalloc.start()
    try:
        outcome = append_records(
            journal, [reference_record(run_id="r7", evidence_pad="7" * 4000), reference_record(run_id="new")]
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert outcome.unchanged == ["r7"] and outcome.written == ["new"]
    assert peak < size / 20, f"an append of 2 records into a {size:,}-byte journal peaked at {peak:,} bytes"


def _append_many(path: str, worker: int) -> None:
    for i in range(40):
        append_records(Path(path), [reference_record(run_id=f"w{worker}-{i}", evidence_pad="x" * 5000)])


def test_concurrent_writers_never_interleave(tmp_path: Path) -> None:
    journal = tmp_path / "eval.jsonl"
    context = multiprocessing.get_context("spawn")  # fork from a threaded process (xdist) is deprecated
    workers = [context.Process(target=_append_many, args=(str(journal), n)) for n in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    problems: list[Any] = []
    records = read_journal(journal, problems)
    assert not problems
    assert sorted(r["run_id"] for _, r in records) == sorted(f"w{n}-{i}" for n in range(4) for i in range(40))
    # Each append's seal line was written under the same lock: the chain holds every run, in order.
    report = check_seal(journal.read_bytes(), seal_path(journal).read_bytes())
    assert report.intact and len(report.runs) == 160 and not report.unsealed


@pytest.mark.parametrize(
    ("text", "blank"), [("\ufeff", True), ("\u3000 \u2028", True), ("\u001f", False), ("\u0085", False)]
)
def test_blank_text_is_what_javascript_trims_to_nothing(text: str, blank: bool) -> None:
    assert (hostname_hash(text) is None) is blank
    record = reference_record()
    record["model"]["id"] = text
    if blank:
        with pytest.raises(InvalidRecord, match=r"model\.id: must be a non-empty string"):
            validate_record(record)
    else:
        validate_record(record)


def test_a_journal_is_recognised_past_a_header_line(tmp_path: Path) -> None:
    path = tmp_path / "eval.jsonl"
    path.write_text('{"note": "header"}\n' + json.dumps(reference_record()) + "\n")
    assert is_journal(path)
    path.write_text('{"note": "header"}\n{"session_id": "a", "record_kind": null}\n')
    assert is_journal(path)
    path.write_text('{"note": "header"}\n{"session_id": "a"}\n' + json.dumps(reference_record()) + "\n")
    assert not is_journal(path)


def test_without_posix_locking_an_append_is_refused_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "fcntl", None)  # as on Windows: import fcntl fails
    journal = tmp_path / "eval.jsonl"
    with pytest.raises(JournalError, match="need POSIX file locking"):
        append_records(journal, [reference_record()])
    assert not journal.exists()


def test_reading_a_journal_looks_past_other_objects_but_not_damaged_records(tmp_path: Path) -> None:
    path = tmp_path / "eval.jsonl"
    lines = [
        {"note": "header"},  # 1: a note
        reference_record(),  # 2
        {"record_kind": "calibration", "run_id": "c1"},  # 3: a record of another kind
        {"run_id": "r9", "session_id": "a"},  # 4: a record that lost its record_kind
        {"record_kind": None, "note": "x"},  # 5: a kind that is no string
        {"dimensions": []},  # 6: part of a record
        {**reference_record(), "record_kind": "session_eval"},  # 7: a record whose kind is mistyped
        {"record_kind": "v2", "session_id": "a"},  # 8: another kind naming a session
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    problems: list[Any] = []
    looked_past: list[int] = []
    assert [line for line, _ in read_journal(path, problems, looked_past)] == [2, 4, 5, 6, 7, 8]
    assert looked_past == [1, 3] and not problems
