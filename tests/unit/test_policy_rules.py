"""Unit tests of the pure core of policy evals: reading, record rules, forward tests, manifests, review."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from builders import DOCS, scenario
from pydantic import ValidationError

from pytest_sessioneval.policy.dataset_checks import DatasetFinding, check_dataset
from pytest_sessioneval.policy.datasets import (
    DataFile,
    DecisionLog,
    EnvelopeSet,
    GoldenSet,
    ManifestLoad,
)
from pytest_sessioneval.policy.envelope import INVARIANTS, ScenarioRecord
from pytest_sessioneval.policy.fields import check_fields, show_path, show_value
from pytest_sessioneval.policy.golden import GoldenCase
from pytest_sessioneval.policy.manifest import (
    CountRange,
    EnvelopeManifest,
    GoldenManifest,
    describe_quota,
    quota_admits,
)
from pytest_sessioneval.policy.observation import (
    Observation,
    compare,
    contract_breaches,
    render_diff,
)
from pytest_sessioneval.policy.review import (
    CHECKS,
    CheckResult,
    review_decision_log,
    review_envelope_set,
    review_golden_set,
)
from pytest_sessioneval.policy.source import (
    MAX_LINE_BYTES,
    DocumentFault,
    LineFault,
    SourceLine,
    parse_document,
    read_jsonl,
)

SIX = ("conclusion", "evidence", "files_and_lines", "tests_or_checks", "risks", "recommended_parent_action")


def parent_only(**changes: Any) -> dict[str, Any]:
    base = scenario(
        id="explain-snippet",
        expected_delegation_decision="parent-only",
        expected_worker_count_range={"min": 0, "max": 0},
        expected_worker_role=[],
        expected_writer_count=0,
        expected_fallback="none",
    )
    base.update(changes)
    return base


def observation(**changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "scenario_id": "fix-failing-test",
        "decision": "delegate",
        "worker_count": 2,
        "worker_roles": ["Spark Worker", "Spark Tester"],
        "writer_count": 1,
        "fallback": "parent-only",
    }
    record.update(changes)
    return record


def write_jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def by_name(verdicts: list[CheckResult]) -> dict[str, CheckResult]:
    names = [verdict.name for verdict in verdicts]
    assert len(names) == len(set(names)), f"duplicate item names: {names}"
    return {verdict.name: verdict for verdict in verdicts}


def no_manifest(tmp_path: Path, name: str = "prompts.manifest.json") -> ManifestLoad[Any]:
    return ManifestLoad.read(EnvelopeManifest, DataFile(tmp_path / name, name))


# --- reading -----------------------------------------------------------------------------------


class TestReadJsonl:
    def test_objects_with_their_lines(self, tmp_path: Path) -> None:
        path = tmp_path / "p.jsonl"
        path.write_bytes(b'{"a": 1}\n{"b": 2}\n')
        assert read_jsonl(path) == [SourceLine(1, {"a": 1}), SourceLine(2, {"b": 2})]

    @pytest.mark.parametrize(
        ("raw", "check", "fragment"),
        [
            (b"\n", "blank-line", "is blank"),
            (b"   \r\n", "blank-line", "is blank"),
            (b'{"a": 1,}\n', "json", "not valid JSON"),
            (b"[1, 2]\n", "json", "holds an array, not a JSON object"),
            (b"null\n", "json", "holds null"),
            (b'{"a": NaN}\n', "json", "not plain JSON"),
            (b'{"id": "x", "id": "y"}\n', "duplicate-key", "'id'"),
            (b'{"r": {"min": 0, "min": 1}}\n', "duplicate-key", "'r.min'"),
            (b'{"id": "caf\xe9"}\n', "utf-8", "byte 0xe9 at column 12"),
        ],
    )
    def test_faults_at_their_line_and_the_rest_still_read(
        self, tmp_path: Path, raw: bytes, check: str, fragment: str
    ) -> None:
        path = tmp_path / "p.jsonl"
        path.write_bytes(b'{"first": 1}\n' + raw + b'{"last": 3}\n')
        first, fault, last = read_jsonl(path)
        assert first == SourceLine(1, {"first": 1})
        assert last == SourceLine(3, {"last": 3})
        assert isinstance(fault, LineFault)
        assert (fault.line, fault.check) == (2, check)
        assert fragment in fault.message

    def test_a_trailing_blank_line_is_a_fault(self, tmp_path: Path) -> None:
        path = tmp_path / "p.jsonl"
        path.write_bytes(b'{"a": 1}\n\n')
        assert [type(entry) for entry in read_jsonl(path)] == [SourceLine, LineFault]

    def test_last_line_without_newline_and_bom_and_crlf(self, tmp_path: Path) -> None:
        path = tmp_path / "p.jsonl"
        path.write_bytes(b'\xef\xbb\xbf{"a": 1}\r\n{"b": 2}')
        assert read_jsonl(path) == [SourceLine(1, {"a": 1}), SourceLine(2, {"b": 2})]

    def test_a_huge_line_is_reported_not_parsed(self, tmp_path: Path) -> None:
        path = tmp_path / "p.jsonl"
        huge = b'{"id": "' + b"x" * (MAX_LINE_BYTES + 10) + b'"}\n'
        path.write_bytes(huge + b'{"after": 1}\n')
        fault, after = read_jsonl(path)
        assert isinstance(fault, LineFault) and fault.check == "line-length" and fault.line == 1
        assert f"{len(huge) - 1} bytes long" in fault.message
        assert after == SourceLine(2, {"after": 1})

    @pytest.mark.parametrize(("size", "read"), [(MAX_LINE_BYTES, True), (MAX_LINE_BYTES + 1, False)])
    @pytest.mark.parametrize("newline", [b"\n", b"\r\n", b""])
    @pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
    def test_the_limit_excludes_the_newline_and_a_bom(
        self, tmp_path: Path, size: int, read: bool, newline: bytes, bom: bytes
    ) -> None:
        path = tmp_path / "p.jsonl"
        body = b'{"id": "' + b"x" * (size - 10) + b'"}'
        assert len(body) == size
        path.write_bytes(bom + body + newline + (b'{"after": 1}\n' if newline else b""))
        entry, *after = read_jsonl(path)
        assert isinstance(entry, SourceLine) is read
        if not read:
            assert isinstance(entry, LineFault) and f"is {size} bytes long" in entry.message
        assert after == ([SourceLine(2, {"after": 1})] if newline else [])

    def test_deep_nesting_is_a_fault_not_a_crash(self, tmp_path: Path) -> None:
        path = tmp_path / "p.jsonl"
        path.write_bytes(b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n")
        (fault,) = read_jsonl(path)
        assert isinstance(fault, LineFault) and fault.check == "json"


class TestParseDocument:
    def test_lines_of_members_and_elements(self) -> None:
        document = parse_document('[\n  {"id": "a"},\n  {\n    "id": "b",\n    "x": [1,\n 2]\n  }\n]\n')
        assert document.line_of(0) == 2
        assert document.line_of(1) == 3
        assert document.line_of(1, "id") == 4
        assert document.line_of(1, "x", 1) == 6
        assert document.repeated == []

    def test_repeated_keys_with_their_lines(self) -> None:
        document = parse_document('{\n "a": 1,\n "b": {"c": 1,\n "c": 2}\n}')
        assert document.repeated == [(("b", "c"), 4)]

    def test_syntax_error_line(self) -> None:
        with pytest.raises(DocumentFault) as caught:
            parse_document('{\n "a": 1\n "b": 2\n}')
        assert caught.value.line == 3 and caught.value.check == "json"


# --- scenario records ---------------------------------------------------------------------------


class TestScenarioFields:
    def test_a_valid_record(self) -> None:
        check = check_fields(ScenarioRecord, scenario())
        assert check.ok
        assert ScenarioRecord.model_validate(scenario()).expected_worker_count_range.max == 2

    @pytest.mark.parametrize(
        ("changes", "field", "fragment"),
        [
            ({"id": "Fix_Test"}, "id", "should match pattern"),
            ({"id": "fix--test"}, "id", "should match pattern"),
            ({"id": 7}, "id", "valid string"),
            ({"prompt_or_scenario": "  "}, "prompt_or_scenario", "it is blank"),
            ({"expected_delegation_decision": "maybe"}, "expected_delegation_decision", "'conditional'"),
            ({"expected_worker_count_range": {"min": 0, "max": 7}}, "expected_worker_count_range", "max is 7"),
            ({"expected_worker_count_range": {"min": -1, "max": 0}}, "expected_worker_count_range", "min is -1"),
            (
                {"expected_worker_count_range": {"min": 2, "max": 1}},
                "expected_worker_count_range",
                "min 2 is greater than max 1",
            ),
            ({"expected_worker_count_range": {"min": 0, "max": 1, "step": 1}}, "expected_worker_count_range", "step"),
            ({"expected_worker_count_range": {"min": 0, "max": True}}, "expected_worker_count_range", "valid integer"),
            ({"expected_worker_count_range": {"min": 0, "max": 1.0}}, "expected_worker_count_range", "valid integer"),
            ({"expected_worker_count_range": [0, 1]}, "expected_worker_count_range", "max"),
            ({"expected_worker_role": ["Spark Boss"]}, "expected_worker_role", "expected_worker_role[0]"),
            (
                {"expected_worker_role": ["Spark Worker", "Spark Worker"]},
                "expected_worker_role",
                "'Spark Worker' more than once",
            ),
            ({"expected_writer_count": 2}, "expected_writer_count", "less than or equal to 1"),
            ({"expected_writer_count": True}, "expected_writer_count", "valid integer"),
            ({"expected_parent_responsibility": []}, "expected_parent_responsibility", "at least 1 item"),
            ({"expected_parent_responsibility": ["ok", ""]}, "expected_parent_responsibility", "[1]"),
            ({"expected_fallback": ""}, "expected_fallback", "blank"),
            ({"expected_safety_behavior": "one writer"}, "expected_safety_behavior", "valid list"),
            ({"expected_fallback": None}, "expected_fallback", "is missing"),
            ({"notes": "x"}, "notes", "not part of the format"),
        ],
    )
    def test_each_field_rule(self, changes: dict[str, Any], field: str, fragment: str) -> None:
        check = check_fields(ScenarioRecord, scenario(**changes))
        assert [problem.field for problem in check.problems] == [field]
        assert fragment in check.problems[0].message
        assert field not in check.values
        # Every other field is still validated and usable by the cross-field rules.
        assert set(check.values) == set(ScenarioRecord.model_fields) - {field}


def test_a_field_with_thousands_of_bad_items_tells_five_and_counts_the_rest() -> None:
    check = check_fields(ScenarioRecord, scenario(expected_worker_role=["x"] * 50_000))
    messages = [problem.message for problem in check.problems]
    assert len(messages) == 6 and all(p.field == "expected_worker_role" for p in check.problems)
    assert "expected_worker_role[0]" in messages[0] and "expected_worker_role[4]" in messages[4]
    assert messages[5] == "field expected_worker_role has 49995 more problem(s) like these"


def breach(check: str, record: dict[str, Any]) -> str | None:
    invariant = next(invariant for invariant in INVARIANTS if invariant.check == check)
    fields = check_fields(ScenarioRecord, record)
    assert fields.valid(*invariant.reads), fields.problems
    return invariant.breach(fields.values)


class TestInvariants:
    def test_the_check_names_are_stable(self) -> None:
        assert [invariant.check for invariant in INVARIANTS] == [
            "decision-workers",
            "delegate-min",
            "roles-vs-workers",
            "writers-vs-workers",
            "writer-role",
        ]

    @pytest.mark.parametrize("decision", ["parent-only", "disabled"])
    def test_decision_workers(self, decision: str) -> None:
        record = parent_only(expected_delegation_decision=decision)
        assert breach("decision-workers", record) is None
        record["expected_worker_count_range"] = {"min": 0, "max": 1}
        message = breach("decision-workers", record)
        assert message and "max is 1" in message and decision in message

    def test_decision_workers_ignores_delegating_decisions(self) -> None:
        for decision in ("delegate", "conditional"):
            assert breach("decision-workers", scenario(expected_delegation_decision=decision)) is None

    def test_delegate_min(self) -> None:
        assert breach("delegate-min", scenario()) is None
        message = breach("delegate-min", scenario(expected_worker_count_range={"min": 0, "max": 2}))
        assert message and "min is 0" in message
        conditional = scenario(
            expected_delegation_decision="conditional", expected_worker_count_range={"min": 0, "max": 2}
        )
        assert breach("delegate-min", conditional) is None

    def test_roles_vs_workers(self) -> None:
        assert breach("roles-vs-workers", scenario()) is None
        assert breach("roles-vs-workers", parent_only()) is None
        roles_without_workers = parent_only(expected_worker_role=["Spark Explorer"])
        assert "'Spark Explorer'" in (breach("roles-vs-workers", roles_without_workers) or "")
        workers_without_roles = scenario(expected_worker_role=[], expected_writer_count=0)
        assert "is empty" in (breach("roles-vs-workers", workers_without_roles) or "")

    def test_writers_vs_workers(self) -> None:
        assert breach("writers-vs-workers", scenario()) is None
        message = breach("writers-vs-workers", parent_only(expected_writer_count=1))
        assert message and "expected_writer_count is 1" in message and "max is 0" in message

    def test_writer_role(self) -> None:
        assert breach("writer-role", scenario()) is None
        assert breach("writer-role", scenario(expected_worker_role=["Spark Tester"], expected_writer_count=0)) is None
        message = breach("writer-role", scenario(expected_worker_role=["Spark Tester"]))
        assert message and "'Spark Worker'" in message


# --- forward tests and the worker contract -----------------------------------------------------


def aspects_outside(record: dict[str, Any], observed: dict[str, Any]) -> list[str]:
    aspects = compare(ScenarioRecord.model_validate(record), Observation.model_validate(observed))
    return [aspect.name for aspect in aspects if not aspect.inside]


class TestForward:
    def test_inside(self) -> None:
        assert aspects_outside(scenario(), observation()) == []

    @pytest.mark.parametrize(
        ("observed", "outside"),
        [
            ({"decision": "parent-only"}, ["decision"]),
            ({"worker_count": 3}, ["worker_count"]),
            ({"worker_count": 0}, ["worker_count"]),
            ({"worker_roles": ["Spark Explorer"]}, ["worker_roles"]),
            ({"writer_count": 2}, ["writer_count"]),
            ({"fallback": "retry"}, ["fallback"]),
            ({"decision": "parent-only", "worker_count": 0, "worker_roles": []}, ["decision", "worker_count"]),
        ],
    )
    def test_each_aspect(self, observed: dict[str, Any], outside: list[str]) -> None:
        assert aspects_outside(scenario(), observation(**observed)) == outside

    def test_roles_are_a_subset_and_may_repeat(self) -> None:
        assert aspects_outside(scenario(), observation(worker_roles=["Spark Worker", "Spark Worker"])) == []
        assert aspects_outside(scenario(), observation(worker_roles=[])) == []

    @pytest.mark.parametrize(("decision", "inside"), [("parent-only", True), ("delegate", True), ("disabled", False)])
    def test_conditional_admits_parent_only_or_delegate(self, decision: str, inside: bool) -> None:
        record = scenario(expected_delegation_decision="conditional", expected_worker_count_range={"min": 0, "max": 2})
        observed = observation(decision=decision, worker_count=0, worker_roles=[], writer_count=0)
        assert aspects_outside(record, observed) == ([] if inside else ["decision"])

    def test_fallback_none_admits_any_fallback(self) -> None:
        record = scenario(expected_fallback="none")
        assert aspects_outside(record, observation(fallback="retry")) == []
        assert aspects_outside(scenario(), observation(fallback="none")) == ["fallback"]

    def test_an_observation_cannot_be_conditional(self) -> None:
        with pytest.raises(ValidationError):
            Observation.model_validate(observation(decision="conditional"))

    def test_diff_is_side_by_side(self) -> None:
        record = ScenarioRecord.model_validate(scenario())
        text = render_diff(compare(record, Observation.model_validate(observation(worker_count=5))))
        header, *rows = text.splitlines()
        assert header.split() == ["aspect", "envelope", "(expected)", "observed"]
        worker_row = next(row for row in rows if row.split()[0] == "worker_count")
        assert worker_row.split() == ["worker_count", "1..2", "5", "OUTSIDE"]
        assert all(row.rstrip().endswith("ok") for row in rows if row is not worker_row)


class TestWorkerContract:
    def test_exactly_six_fields(self) -> None:
        assert contract_breaches([dict.fromkeys(SIX, "x")]) == []

    def test_missing_extra_and_renamed(self) -> None:
        missing = {k: "x" for k in SIX if k != "risks"}
        extra = {**dict.fromkeys(SIX, "x"), "notes": "x"}
        renamed = {("file_and_lines" if k == "files_and_lines" else k): "x" for k in SIX}
        good = dict.fromkeys(SIX, "x")
        assert contract_breaches([good, missing, extra, renamed]) == [
            "worker result 2 lacks 'risks'",
            "worker result 3 adds 'notes'",
            "worker result 4 renames 'files_and_lines' to 'file_and_lines'",
        ]


# --- manifests ---------------------------------------------------------------------------------


class TestManifest:
    def test_quotas_need_their_grouping_fields(self) -> None:
        with pytest.raises(ValidationError, match="need label_field"):
            GoldenManifest.model_validate({"quotas": {"per_label": {"a": 1}}})
        with pytest.raises(ValidationError, match="need locale_field"):
            GoldenManifest.model_validate({"quotas": {"label_field": "group", "per_label_locale": {"a": {"en": 1}}}})

    def test_envelope_quotas_group_by_record_fields(self) -> None:
        with pytest.raises(ValidationError, match="'locale', which is not a field of a scenario record"):
            EnvelopeManifest.model_validate({"quotas": {"locale_field": "locale", "per_locale": {"en": 1}}})

    def test_unknown_keys_and_wrong_types_are_rejected(self) -> None:
        for bad in ({"min_record": 3}, {"min_records": "3"}, {"min_records": -1}, {"required_ids": ["a", "a"]}):
            with pytest.raises(ValidationError):
                EnvelopeManifest.model_validate(bad)

    @pytest.mark.parametrize(
        ("quota", "admitted", "refused", "words"),
        [
            (3, [3], [2, 4], "exactly 3"),
            ({"min": 2}, [2, 9], [1], "at least 2"),
            ({"max": 2}, [0, 2], [3], "at most 2"),
            ({"min": 1, "max": 2}, [1, 2], [0, 3], "between 1 and 2"),
        ],
    )
    def test_quota_kinds(self, quota: Any, admitted: list[int], refused: list[int], words: str) -> None:
        parsed = GoldenManifest.model_validate(
            {"quotas": {"label_field": "group", "per_label": {"a": quota}}}
        ).quotas.per_label["a"]  # type: ignore[union-attr]
        assert describe_quota(parsed) == words
        assert all(quota_admits(parsed, n) for n in admitted)
        assert not any(quota_admits(parsed, n) for n in refused)

    @pytest.mark.parametrize(
        ("quota", "message"),
        [
            (-1, "a count is a whole number >= 0, not -1"),
            (4.0, 'a quota is a count (a whole number >= 0) or a count range {"min": n, "max": m}, not 4.0'),
            (True, "not true"),
            ("4", 'not "4"'),
            (None, "not null"),
            ({}, 'a count range needs "min", "max" or both'),
            ({"min": None}, 'a count range needs "min", "max" or both'),
            ({"min": 5, "max": 2}, "min 5 is greater than max 2"),
            ({"min": 1, "maximum": 4}, 'a count range has only "min" and "max", not \'maximum\''),
            ({"max": 2.5}, '"max" of a count range is a whole number >= 0, not 2.5'),
        ],
    )
    def test_a_bad_quota_gets_one_plain_message(self, quota: Any, message: str) -> None:
        with pytest.raises(ValidationError) as caught:
            GoldenManifest.model_validate({"quotas": {"label_field": "group", "per_label": {"a": quota}}})
        (error,) = caught.value.errors(include_url=False)
        assert error["loc"] == ("quotas", "per_label", "a")
        assert message in error["msg"]

    def test_a_count_range_needs_a_bound(self) -> None:
        with pytest.raises(ValidationError, match="needs"):
            CountRange.model_validate({})

    def test_quotas_group_by_the_json_text_of_values_that_are_no_strings(self) -> None:
        manifest = EnvelopeManifest.model_validate(
            {"quotas": {"label_field": "expected_writer_count", "per_label": {"1": 2, "0": 1}}}
        )
        records = [
            scenario(expected_writer_count=1),
            scenario(expected_writer_count=1),
            scenario(expected_writer_count=0),
        ]
        findings = {f.check: f.held for f in check_dataset(manifest, records, data="p", manifest_name="m")}
        assert findings == {"quota:label=1": True, "quota:label=0": True, "quota:labels-declared": True}
        roles = EnvelopeManifest.model_validate(
            {"quotas": {"label_field": "expected_worker_role", "per_label": {'["Spark Worker"]': 1}}}
        )
        found = check_dataset(
            roles,
            [scenario(expected_worker_role=["Spark Worker"]), scenario(expected_worker_role=[])],
            data="p",
            manifest_name="m",
        )
        assert {f.check: f.held for f in found} == {
            'quota:label=["Spark Worker"]': True,
            "quota:labels-declared": False,
        }
        assert "'[]' (1)" in found[1].message

    def test_cannot_tell_only_when_the_files_own_faults_could_explain_it(self) -> None:
        def held(manifest: dict[str, Any], records: list[dict[str, Any]], **kw: Any) -> dict[str, bool | None]:
            found = check_dataset(GoldenManifest.model_validate(manifest), records, data="g", manifest_name="m", **kw)
            return {f.check: f.held for f in found}

        # A case without an optional grouping field is in no group: a shortfall is certain.
        optional = {
            "quotas": {"label_field": "difficulty", "per_label": {"hard": {"min": 2}}, "allow_undeclared": True}
        }
        assert held(optional, [{"id": "a", "difficulty": "hard"}, {"id": "b"}])["quota:label=hard"] is False
        # ...but an invalid one (its fields check fails) could be in it.
        assert (
            held(
                optional,
                [{"id": "a", "difficulty": "hard"}, {"id": "b", "difficulty": 3}],
                invalid_fields=[(), ("difficulty",)],
            )["quota:label=hard"]
            is None
        )
        # One unreadable line holds at most one required id.
        required = {"required_ids": ["a", "x", "y"]}
        assert held(required, [{"id": "a"}], unreadable=1)["required-ids"] is False
        assert held(required, [{"id": "a"}], unreadable=2)["required-ids"] is None
        # Group names: a string value matches the name as written, any other value its JSON text.
        versions = {
            "quotas": {"label_field": "version", "per_label": {"1.10": 2, "NaN": {"max": 3}, "1e400": {"max": 1}}}
        }
        assert held(versions, [{"version": "1.10"}, {"version": "1.10"}]) == {
            "quota:label=1.10": True,
            "quota:label=NaN": True,
            "quota:label=1e400": True,
            "quota:labels-declared": True,
        }
        numbers = {"quotas": {"label_field": "version", "per_label": {"1.10": 2}}}
        assert held(numbers, [{"version": 1.1}, {"version": 1.10}])["quota:label=1.10"] is True
        # The string "1" is no number: a name that spells the number 1 (" 1") does not count it.
        spaced = {"quotas": {"label_field": "version", "per_label": {"1": 2, " 1": 1}}}
        found = check_dataset(
            GoldenManifest.model_validate(spaced), [{"version": "1"}, {"version": 1}], data="g", manifest_name="m"
        )
        assert [(f.check, f.held, f.message.split(" with ")[0]) for f in found[:2]] == [
            ("quota:label=1", True, "g has 2 records"),
            ("quota:label= 1", True, "g has 1 record"),
        ]

    def test_check_dataset(self) -> None:
        manifest = GoldenManifest.model_validate(
            {
                "min_records": 4,
                "required_ids": ["a", "z"],
                "quotas": {
                    "label_field": "group",
                    "locale_field": "locale",
                    "per_label": {"neg": 2, "pos": {"min": 2}},
                    "per_locale": {"en": 2},
                    "per_label_locale": {"neg": {"en": 1, "de": 1}},
                },
            }
        )
        records = [
            {"id": "a", "group": "neg", "locale": "en"},
            {"id": "b", "group": "neg", "locale": "en"},
            {"id": "c", "group": "pos", "locale": "de"},
        ]
        findings = {
            f.check: f for f in check_dataset(manifest, records, data="g.json", manifest_name="g.manifest.json")
        }
        assert {check: f.held for check, f in findings.items()} == {
            "min-records": False,
            "required-ids": False,
            "quota:label=neg": True,
            "quota:label=pos": False,
            "quota:locale=en": True,
            "quota:label=neg,locale=en": False,
            "quota:label=neg,locale=de": False,
            # Every group a record falls in must be declared: 'de' has no per_locale quota. The
            # pair ('pos', 'de') has none either, but its locale is reported already: one mistake,
            # one failure.
            "quota:labels-declared": True,
            "quota:locales-declared": False,
            "quota:label-locales-declared": True,
        }
        assert findings["quota:locales-declared"].message == (
            "g.json has 1 record whose locale has no quota in quotas.per_locale of g.manifest.json: 'de' (1); "
            "relabel them, declare a quota for it, or set quotas.allow_undeclared"
        )
        en_only = [*records[:2], {"id": "c", "group": "pos", "locale": "en"}]
        pair = {f.check: f for f in check_dataset(manifest, en_only, data="g.json", manifest_name="g.manifest.json")}
        assert pair["quota:locales-declared"].held is True and pair["quota:locale=en"].held is False  # 3, not 2
        assert pair["quota:label-locales-declared"].held is False
        assert "'pos' and 'en' (1)" in pair["quota:label-locales-declared"].message
        opened = manifest.model_copy(update={"quotas": manifest.quotas.model_copy(update={"allow_undeclared": True})})  # type: ignore[union-attr]
        checks = [f.check for f in check_dataset(opened, records, data="g.json", manifest_name="g.manifest.json")]
        assert not [check for check in checks if check.endswith("-declared")]
        assert findings["min-records"].message.startswith("g.json holds 3 records, fewer than the 4")
        assert "'z'" in findings["required-ids"].message and "'a'" not in findings["required-ids"].message
        assert (
            "has 1 record with group 'pos', but g.manifest.json requires at least 2"
            in findings["quota:label=pos"].message
        )
        assert findings["quota:label=neg,locale=en"].key == ("quotas", "per_label_locale", "neg", "en")

    def test_a_record_without_the_field_quotas_group_by_is_in_no_declared_group(self) -> None:
        # A mistyped label_field leaves every record without it: the quotas could not pass
        # for want of records and their declared-check say so, a minimum cannot tell.
        manifest = GoldenManifest.model_validate(
            {"quotas": {"label_field": "gruop", "per_label": {"neg": {"max": 2}, "pos": {"min": 1}}}}
        )
        records = [{"id": str(n), "group": "neg"} for n in range(4)]
        findings = {
            f.check: f for f in check_dataset(manifest, records, data="g.json", manifest_name="g.manifest.json")
        }
        assert {check: f.held for check, f in findings.items()} == {
            "quota:label=neg": True,  # 0, at most 2
            "quota:label=pos": None,  # 0 of at least 1, and 4 records that could be
            "quota:labels-declared": False,
        }
        assert findings["quota:labels-declared"].message == (
            "g.json has 4 records without gruop, which quotas.per_label of g.manifest.json groups by; "
            "give each record gruop (or correct the field's name), or set quotas.allow_undeclared"
        )
        opened = manifest.model_copy(update={"quotas": manifest.quotas.model_copy(update={"allow_undeclared": True})})  # type: ignore[union-attr]
        allowed = {
            f.check: f.held for f in check_dataset(opened, records, data="g.json", manifest_name="g.manifest.json")
        }
        assert allowed == {"quota:label=neg": True, "quota:label=pos": False}
        # With pairs too, the missing label is reported once, by the labels' check.
        paired = GoldenManifest.model_validate(
            {
                "quotas": {
                    "label_field": "gruop",
                    "locale_field": "locale",
                    "per_label": {"neg": {"max": 9}},
                    "per_label_locale": {"neg": {"en": {"max": 9}}},
                }
            }
        )
        both = {
            f.check: f.held
            for f in check_dataset(
                paired, [r | {"locale": "en"} for r in records], data="g.json", manifest_name="g.manifest.json"
            )
        }
        assert both["quota:labels-declared"] is False and both["quota:label-locales-declared"] is True

    def test_a_declared_check_judges_the_values_it_can_read_and_counts_the_others(self) -> None:
        # A record whose grouping field is invalid or missing fails its own fields check, and a
        # line that cannot be read fails its own item: the declared checks do not judge them
        # again, but say how many they could not read rather than claim every record.
        manifest = EnvelopeManifest.model_validate(
            {"quotas": {"label_field": "expected_delegation_decision", "per_label": {"delegate": {"min": 1}}}}
        )
        records = [scenario(), scenario(id="b", expected_delegation_decision=5)]

        def declared(unreadable: int, faults: list[tuple[str, ...]]) -> DatasetFinding:
            (found,) = [
                f
                for f in check_dataset(
                    manifest, records, data="p", manifest_name="m", invalid_fields=faults, unreadable=unreadable
                )
                if f.check == "quota:labels-declared"
            ]
            return found

        assert declared(0, [(), ()]).held is False  # 5 is a value no quota names
        found = declared(0, [(), ("expected_delegation_decision",)])
        assert found.held is True
        assert found.message == (
            "every expected_delegation_decision that could be read has a quota in quotas.per_label; "
            "1 of the records holds an invalid or missing expected_delegation_decision (see their checks)"
        )
        assert declared(2, [(), ("expected_delegation_decision",)]).message.endswith(
            "; 1 of the records holds an invalid or missing expected_delegation_decision and 2 line(s) could "
            "not be read (see their checks)"
        )
        records.pop()
        assert declared(1, [()]).message.endswith("; 1 line(s) could not be read (see their checks)")
        assert (
            declared(0, [()]).message
            == "every expected_delegation_decision of the records has a quota in quotas.per_label"
        )
        # Pairs name both fields, whichever of them is invalid, and whatever the other kinds declare.
        paired = GoldenManifest.model_validate(
            {
                "quotas": {
                    "label_field": "group",
                    "locale_field": "locale",
                    "per_label": {"neg": 1},
                    "per_locale": {"en": 1},
                    "per_label_locale": {"neg": {"en": 1}},
                }
            }
        )
        cases = [{"id": "a", "group": "neg", "locale": "en"}, {"id": "b", "group": "neg", "locale": 3}]
        pairs = {
            f.check: f
            for f in check_dataset(paired, cases, data="g", manifest_name="m", invalid_fields=[(), ("locale",)])
        }["quota:label-locales-declared"]
        assert (pairs.held, pairs.message) == (
            True,
            "every pair of group and locale that could be read has a quota in quotas.per_label_locale; "
            "1 of the records holds an invalid or missing group or locale (see their checks)",
        )


# --- review: verdicts per data file -----------------------------------------------------------


class TestReviewEnvelopeSet:
    def test_items_per_scenario_and_outcomes(self, tmp_path: Path) -> None:
        path = write_jsonl(
            tmp_path / "prompts.jsonl",
            [scenario(), parent_only(), scenario(expected_worker_role=["Spark Tester"])],
        )
        file = DataFile(path, "prompts.jsonl")
        verdicts = by_name(review_envelope_set(EnvelopeSet.read(file), no_manifest(tmp_path)))
        assert [name for name in verdicts if name.startswith("explain-snippet[")] == [
            "explain-snippet[fields]",
            "explain-snippet[decision-workers]",
            "explain-snippet[delegate-min]",
            "explain-snippet[roles-vs-workers]",
            "explain-snippet[writers-vs-workers]",
            "explain-snippet[writer-role]",
            "explain-snippet[unique-id]",
        ]
        failed = {name for name, v in verdicts.items() if v.outcome == "failed"}
        assert failed == {"fix-failing-test@line-3[writer-role]", "fix-failing-test@line-3[unique-id]"}
        assert verdicts["fix-failing-test@line-3[unique-id]"].detail == (
            "prompts.jsonl:3: scenario 'fix-failing-test' repeats the id of line 1; "
            "ids are unique in the file, so rename one or remove the repeat."
        )
        assert verdicts["dataset[manifest]"].outcome == "skipped"

    def test_invalid_fields_skip_only_the_rules_that_read_them(self, tmp_path: Path) -> None:
        path = write_jsonl(tmp_path / "prompts.jsonl", [scenario(expected_writer_count=5)])
        verdicts = by_name(review_envelope_set(EnvelopeSet.read(DataFile(path, "p")), no_manifest(tmp_path)))
        outcomes = {name: v.outcome for name, v in verdicts.items() if name != "dataset[manifest]"}
        assert outcomes == {
            "fix-failing-test[fields]": "failed",
            "fix-failing-test[decision-workers]": "passed",
            "fix-failing-test[delegate-min]": "passed",
            "fix-failing-test[roles-vs-workers]": "passed",
            "fix-failing-test[writers-vs-workers]": "skipped",
            "fix-failing-test[writer-role]": "skipped",
            "fix-failing-test[unique-id]": "passed",
        }
        assert "field expected_writer_count is missing or invalid" in verdicts["fix-failing-test[writer-role]"].detail

    def test_names_survive_any_id_and_missing_ids(self, tmp_path: Path) -> None:
        path = write_jsonl(
            tmp_path / "prompts.jsonl", [scenario(id="a::b[c]"), scenario(id=None), scenario(id="line-2")]
        )
        verdicts = by_name(review_envelope_set(EnvelopeSet.read(DataFile(path, "p")), no_manifest(tmp_path)))
        subjects = {v.subject for v in verdicts.values()}
        assert subjects == {"a:\\x3ab\\x5bc\\x5d", "line-2", "line-2@line-3", "dataset"}
        assert "line-2[unique-id]" not in verdicts  # a record without an id has no id to compare

    def test_forward_outcomes(self, tmp_path: Path) -> None:
        prompts = write_jsonl(
            tmp_path / "prompts.jsonl",
            [
                scenario(),
                parent_only(),
                scenario(id="no-observation"),
                scenario(id="twice"),
                scenario(id="bad-observation"),
                scenario(id="bad-envelope", expected_fallback=""),
            ],
        )
        decisions = write_jsonl(
            tmp_path / "decisions.jsonl",
            [
                observation(),
                observation(scenario_id="explain-snippet"),
                observation(scenario_id="twice"),
                observation(scenario_id="twice"),
                observation(scenario_id="bad-observation", worker_count="2"),
                observation(scenario_id="bad-envelope"),
            ],
        )
        log = DecisionLog.read(DataFile(decisions, "decisions.jsonl"))
        verdicts = by_name(
            review_envelope_set(EnvelopeSet.read(DataFile(prompts, "prompts.jsonl")), no_manifest(tmp_path), log)
        )
        forward = {name: v for name, v in verdicts.items() if name.endswith("[forward]")}
        assert {name: v.outcome for name, v in forward.items()} == {
            "fix-failing-test[forward]": "passed",
            "explain-snippet[forward]": "failed",
            "no-observation[forward]": "skipped",
            "twice[forward]": "skipped",
            "bad-observation[forward]": "skipped",
            "bad-envelope[forward]": "skipped",
        }
        assert forward["no-observation[forward]"].detail == (
            "no observation for scenario 'no-observation' in decisions.jsonl"
        )
        assert "2 observations" in forward["twice[forward]"].detail
        assert "decisions.jsonl:5 is invalid" in forward["bad-observation[forward]"].detail
        assert "field expected_fallback" in forward["bad-envelope[forward]"].detail
        failure = forward["explain-snippet[forward]"].detail
        assert failure.startswith(
            "prompts.jsonl:2: scenario 'explain-snippet' was observed outside its envelope in 4 of 5 aspects "
            "(decision, worker_count, worker_roles, writer_count), observed at decisions.jsonl:2"
        )
        assert "OUTSIDE" in failure and "parent-only" in failure


class TestReviewDecisionLog:
    def test_observation_checks(self, tmp_path: Path) -> None:
        good = dict.fromkeys(SIX, "x")
        path = write_jsonl(
            tmp_path / "decisions.jsonl",
            [
                observation(worker_results=[good]),
                observation(scenario_id="ghost"),
                observation(worker_results=[{**good, "extra": 1}]),
                observation(scenario_id="other", worker_results="none"),
                {"decision": "delegate"},
            ],
        )
        with path.open("a") as stream:
            stream.write("\n")
        log = DecisionLog.read(DataFile(path, "decisions.jsonl"))
        verdicts = by_name(
            review_decision_log(log, {"fix-failing-test": ["prompts.jsonl"], "other": ["prompts.jsonl"]})
        )
        assert {name: v.outcome for name, v in verdicts.items()} == {
            "fix-failing-test[fields]": "passed",
            "fix-failing-test[unique-id]": "passed",
            "fix-failing-test[known-scenario]": "passed",
            "fix-failing-test[worker-contract]": "passed",
            "ghost[fields]": "passed",
            "ghost[unique-id]": "passed",
            "ghost[known-scenario]": "failed",
            "fix-failing-test@line-3[fields]": "passed",
            "fix-failing-test@line-3[unique-id]": "failed",
            "fix-failing-test@line-3[known-scenario]": "passed",
            "fix-failing-test@line-3[worker-contract]": "failed",
            "other[fields]": "failed",
            "other[unique-id]": "passed",
            "other[known-scenario]": "passed",
            "other[worker-contract]": "skipped",
            "line-5[fields]": "failed",
            "line-6[blank-line]": "failed",
        }
        assert verdicts["ghost[known-scenario]"].detail == (
            "decisions.jsonl:2: observation for scenario 'ghost', but no envelope set under test defines "
            "that scenario (prompts.jsonl); correct scenario_id or add the scenario."
        )
        assert "worker result 1 adds 'extra'" in verdicts["fix-failing-test@line-3[worker-contract]"].detail


class TestReviewGoldenSet:
    def cases(self) -> list[dict[str, Any]]:
        return [
            {"id": "p-en", "group": "positive", "locale": "en", "prompt": "x"},
            {"id": "p-de", "group": "positive", "locale": "de"},
            {"id": "n-en", "group": "negative", "locale": "en", "rationale": "nothing to delegate"},
            {"id": "n-de", "group": "negative", "locale": "de"},
        ]

    def test_cases_rationale_and_quotas(self, tmp_path: Path) -> None:
        golden = tmp_path / "golden.json"
        golden.write_text(json.dumps(self.cases(), indent=2))
        manifest = tmp_path / "golden.manifest.json"
        manifest.write_text(
            json.dumps(
                {
                    "min_records": 4,
                    "quotas": {
                        "label_field": "group",
                        "locale_field": "locale",
                        "per_label_locale": {"positive": {"en": 1, "de": 1}, "negative": {"en": 2}},
                    },
                },
                indent=2,
            )
        )
        load = ManifestLoad.read(GoldenManifest, DataFile(manifest, "golden.manifest.json"))
        verdicts = by_name(review_golden_set(GoldenSet.read(DataFile(golden, "golden.json")), load))
        failed = sorted(name for name, v in verdicts.items() if v.outcome == "failed")
        assert failed == [
            "dataset[quota:label-locales-declared]",
            "dataset[quota:label=negative,locale=en]",
            "n-de[rationale]",
        ]
        assert "'negative' and 'de' (1)" in verdicts["dataset[quota:label-locales-declared]"].detail
        assert "p-en[rationale]" not in verdicts  # only the groups that need one
        assert verdicts["n-de[rationale]"].line == 19  # where the case's object starts
        quota = verdicts["dataset[quota:label=negative,locale=en]"]
        assert (quota.source.label, quota.line) == ("golden.manifest.json", 12)
        assert quota.detail.startswith("golden.manifest.json:12: golden.json has 1 case with group 'negative'")

    def test_an_invalid_rationale_is_not_also_called_missing(self, tmp_path: Path) -> None:
        golden = tmp_path / "golden.json"
        golden.write_text(json.dumps([{"id": "n-en", "group": "negative", "locale": "en", "rationale": 3}]))
        (tmp_path / "golden.manifest.json").write_text("{}")
        load = ManifestLoad.read(GoldenManifest, DataFile(tmp_path / "golden.manifest.json", "golden.manifest.json"))
        verdicts = by_name(review_golden_set(GoldenSet.read(DataFile(golden, "golden.json")), load))
        assert verdicts["n-en[fields]"].outcome == "failed"
        assert verdicts["n-en[rationale]"].outcome == "skipped"
        assert "its rationale is invalid (see the fields check)" in verdicts["n-en[rationale]"].detail

    def test_structural_faults_of_a_golden_set(self, tmp_path: Path) -> None:
        golden = tmp_path / "golden.json"
        golden.write_text('[\n {"id": "a", "group": "g", "locale": "en"},\n 3,\n {"id": "b", "id": "c"}\n]\n')
        verdicts = by_name(review_golden_set(GoldenSet.read(DataFile(golden, "g")), no_manifest(tmp_path, "x")))
        assert {name: v.outcome for name, v in verdicts.items()} == {
            "a[fields]": "passed",
            "a[unique-id]": "passed",
            "line-3[json]": "failed",
            "line-4[duplicate-key]": "failed",
            "dataset[manifest]": "skipped",
        }

    @pytest.mark.parametrize(
        ("raw", "check", "line"),
        [(b'{"id": 1}', "json", 1), (b"[\n{}\n,,]", "json", 3), (b'[\n{"id": "\xff"}]', "utf-8", 2)],
    )
    def test_an_unreadable_golden_set_is_one_failed_item(
        self, tmp_path: Path, raw: bytes, check: str, line: int
    ) -> None:
        golden = tmp_path / "golden.json"
        golden.write_bytes(raw)
        verdicts = review_golden_set(GoldenSet.read(DataFile(golden, "g")), no_manifest(tmp_path, "x"))
        assert [(v.check, v.outcome, v.line) for v in verdicts if v.check != "manifest"] == [(check, "failed", line)]


class TestManifestLoad:
    def test_problems_point_at_the_manifest_line(self, tmp_path: Path) -> None:
        path = tmp_path / "prompts.manifest.json"
        path.write_text(
            '{\n  "min_records": 2,\n  "quotas": {\n    "label_fld": "x"\n  },\n  "golden_set": "nope.json"\n}\n'
        )
        load = ManifestLoad.read(EnvelopeManifest, DataFile(path, "m.json"))
        assert load.found and load.manifest is None
        assert [text for _, text in load.problems] == [
            "m.json:4: quotas.label_fld is not a manifest key; remove it or correct its spelling",
            f"m.json:6: golden_set 'nope.json' names no file ({tmp_path / 'nope.json'})",
        ]
        assert load.golden_path is None

    def test_an_invalid_manifest_still_names_its_golden_set(self, tmp_path: Path) -> None:
        (tmp_path / "golden.json").write_text("[]")
        path = tmp_path / "prompts.manifest.json"
        path.write_text('{"min_record": 2, "golden_set": "golden.json"}')
        load = ManifestLoad.read(EnvelopeManifest, DataFile(path, "m.json"))
        assert load.manifest is None and load.problems
        assert load.golden_path == tmp_path / "golden.json"

    def test_a_missing_golden_set_is_a_problem(self, tmp_path: Path) -> None:
        path = tmp_path / "prompts.manifest.json"
        path.write_text('{\n  "golden_set": "nope.json"\n}\n')
        load = ManifestLoad.read(EnvelopeManifest, DataFile(path, "m.json"))
        assert load.problems[0][0] == 2 and "golden_set 'nope.json' names no file" in load.problems[0][1]

    def test_repeated_keys(self, tmp_path: Path) -> None:
        path = tmp_path / "m.json"
        path.write_text('{\n "min_records": 1,\n "min_records": 2\n}')
        load = ManifestLoad.read(EnvelopeManifest, DataFile(path, "m.json"))
        assert load.problems == ((3, "m.json:3: the key 'min_records' appears twice in one object; keep one"),)

    def test_every_key_that_is_no_text_is_named_at_its_line_and_the_rest_is_still_checked(self, tmp_path: Path) -> None:
        # pydantic stops at the first such key without naming where it is.
        path = tmp_path / "m.json"
        path.write_text('{\n "\\ud800": 1,\n "min_records": "two",\n "x\\udc00y": 2\n}')
        load = ManifestLoad.read(EnvelopeManifest, DataFile(path, "m.json"))
        assert load.manifest is None
        assert load.problems == (
            (2, 'm.json:2: the key "\\ud800" holds a lone surrogate escape, which is no text; correct it'),
            (4, 'm.json:4: the key "x\\udc00y" holds a lone surrogate escape, which is no text; correct it'),
            (3, 'm.json:3: min_records is "two", but it should be a valid integer'),
        )
        # Within a member, where pydantic took the key for a value of the member.
        path.write_text('{\n "min_records": 1,\n "quotas": {\n  "\\ud800": 1\n }\n}')
        load = ManifestLoad.read(EnvelopeManifest, DataFile(path, "m.json"))
        assert load.problems == (
            (4, 'm.json:4: the key quotas["\\ud800"] holds a lone surrogate escape, which is no text; correct it'),
        )


def test_every_check_name_is_in_the_catalogue(tmp_path: Path) -> None:
    """The documented catalogue names every check the review can emit (quota names by pattern)."""
    prompts = write_jsonl(tmp_path / "prompts.jsonl", [scenario()])
    decisions = write_jsonl(tmp_path / "decisions.jsonl", [observation(worker_results=[])])
    log = DecisionLog.read(DataFile(decisions, "d"))
    emitted = {
        v.check for v in review_envelope_set(EnvelopeSet.read(DataFile(prompts, "p")), no_manifest(tmp_path), log)
    }
    emitted |= {v.check for v in review_decision_log(log, {"fix-failing-test": ["p"]})}
    assert emitted <= set(CHECKS)
    assert {"fields", "unique-id", "forward", "known-scenario", "worker-contract", "manifest"} <= emitted


def test_golden_case_allows_the_owners_own_fields() -> None:
    assert check_fields(GoldenCase, {"id": "a", "group": "g", "locale": "en", "prompt": "p"}).ok


def test_the_maintainers_page_documents_every_check() -> None:
    page = (DOCS / "policy-envelopes.md").read_text(encoding="utf-8")
    undocumented = [check for check in CHECKS if f"| `{check}` |" not in page]
    assert undocumented == []


@pytest.mark.parametrize(
    ("loc", "shown"),
    [
        (("per_label", "none"), "quotas.per_label.none"),
        (("roles", 2), "quotas.roles[2]"),
        (("per_label", ""), 'quotas.per_label[""]'),
        (("per_label", "a.b"), 'quotas.per_label["a.b"]'),
        (("per_label", "x]"), 'quotas.per_label["x]"]'),
        (("per_label", "a\nFAKE.json:9: ok"), 'quotas.per_label["a\\nFAKE.json:9: ok"]'),
        (("per_label", "\x1b[31m"), 'quotas.per_label["\\u001b[31m"]'),
        (("per_label", "\ud800"), 'quotas.per_label["\\ud800"]'),
        (("per_label", "négatif"), "quotas.per_label.négatif"),
    ],
)
def test_a_field_path_shows_every_key_so_that_none_can_be_misread(loc: tuple[str | int, ...], shown: str) -> None:
    assert show_path("quotas", loc) == shown


def test_a_number_beyond_the_double_range_is_named_as_written_not_as_infinity() -> None:
    # JSON has no Infinity: only 1e400 and the like read as one.
    assert show_value(float("inf")) == "a number beyond the double range (such as 1e400)"
    assert show_value(float("-inf")) == "a negative number beyond the double range (such as -1e400)"
    assert show_value(2.5) == "2.5"
    assert show_value(json.loads("1e400")) == show_value(float("inf"))
    # Nested, as JSON that reads back as the same value; a string saying Infinity stays as it is.
    assert (
        show_value(json.loads('{"x": -1e400, "y": "Infinity \\"", "z": [1e400]}'))
        == '{"x": -1e400, "y": "Infinity \\"", "z": [1e400]}'
    )
