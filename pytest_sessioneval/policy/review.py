"""Reviewing policy data: every check of every data file, as a list of verdicts.

This is the whole decision of what passes, fails or is skipped; the pytest
layer only turns each :class:`CheckResult` into an item named
``<subject>[<check>]``. Subjects are the escaped scenario (or case) id, or
``line-<N>`` for a line without a usable id, or ``dataset`` for the checks of
the whole file; a subject already taken in the file gets ``@line-<N>``
appended, so every item keeps its own node id. Check names are stable and
listed in :data:`CHECKS`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from ..core.naming import escape_name, unique_name
from ..core.text import first_few
from .dataset_checks import check_dataset
from .datasets import (
    DataFile,
    Dataset,
    DecisionLog,
    EnvelopeSet,
    GoldenSet,
    ManifestLoad,
    ParsedLine,
    line_of,
    record_key,
)
from .envelope import INVARIANTS, ScenarioRecord
from .golden import rationale_breach
from .manifest import DEFAULT_GOLDEN_MANIFEST, EnvelopeManifest, GoldenManifest
from .observation import (
    FORWARD_FIELDS,
    WORKER_RESULT_FIELDS,
    Observation,
    compare,
    contract_breaches,
    render_diff,
)
from .source import (
    LineFault,
)

__all__ = [
    "CHECKS",
    "CheckResult",
    "Outcome",
    "review_decision_log",
    "review_envelope_set",
    "review_golden_set",
]

Outcome = Literal["passed", "failed", "skipped"]

#: Every check name an item can carry, and what it checks.
CHECKS: Final[dict[str, str]] = {
    "blank-line": "the line is not blank",
    "utf-8": "the line is valid UTF-8",
    "line-length": "the line is within the length limit of one record",
    "json": "the line (or golden-set element) is one JSON object",
    "duplicate-key": "no JSON object repeats a key",
    "fields": "every field is present, of its type and within its rule; no unknown field (golden cases may add their own)",
    **{invariant.check: invariant.rule for invariant in INVARIANTS},
    "unique-id": "no earlier record in the file has the same id",
    "forward": "the observed decision lies inside the scenario's envelope",
    "known-scenario": "the observation's scenario_id names a scenario of an envelope set",
    "worker-contract": "every worker result has exactly the six contract fields",
    "rationale": "a case of a group that needs a rationale has one",
    "manifest": "the manifest beside the data is valid",
    "min-records": "the file holds at least min_records records",
    "required-ids": "every id in required_ids is present",
    "quota:label=<label>": "the count of records with this label meets its quota",
    "quota:locale=<locale>": "the count of records with this locale meets its quota",
    "quota:label=<label>,locale=<locale>": "the count of records with this label and locale meets its quota",
    "quota:labels-declared": "every label a record carries has a quota in per_label (unless allow_undeclared)",
    "quota:locales-declared": "every locale a record carries has a quota in per_locale (unless allow_undeclared)",
    "quota:label-locales-declared": "every label and locale pair has a quota in per_label_locale (unless allow_undeclared)",
}


@dataclass(frozen=True, slots=True)
class CheckResult:
    """The outcome of one check; one pytest item.

    ``source`` and ``line`` (1-based, ``None`` for a whole file) locate what
    the check is about: the record's line, or the manifest entry declaring a
    dataset-level rule. ``detail`` is the failure message, the skip reason, or
    what held.
    """

    subject: str
    check: str
    outcome: Outcome
    detail: str
    source: DataFile
    line: int | None
    scenario_id: str | None = None

    @property
    def name(self) -> str:
        return f"{self.subject}[{escape_name(self.check)}]"


class _Subjects:
    """Hands out the subject of each record: its escaped id, unique within one file."""

    def __init__(self) -> None:
        self._taken: set[str] = set()

    def claim(self, key: str | None, line: int) -> str:
        subject = escape_name(key) if key else f"line-{line}"
        # More than once "@line-<N>" only when an id spells "<id>@line-<N>".
        return unique_name(self._taken, lambda n: subject + f"@line-{line}" * (n - 1))


def _each_record(
    dataset: Dataset, named: str, unnamed: str, verdicts: list[CheckResult], first: dict[str, int]
) -> Iterator[tuple[ParsedLine, str, str]]:
    """``(record, subject, who)`` for each record of ``dataset``, in file order.

    On the way, a faulty line's verdict and each record's ``fields`` verdict are
    appended to ``verdicts``. ``who`` names the record in messages: ``named`` and
    its id (``"case 'x'"``), or ``unnamed`` when it has no usable id. A line that
    is no record only because it repeats a key still names its id: it goes into
    ``first`` (id -> first line), so a later record with that id repeats it.
    """
    subjects = _Subjects()
    for entry in dataset.entries:
        if isinstance(entry, LineFault):
            verdicts.append(_fault_result(dataset.file, subjects.claim(None, entry.line), entry))
            if entry.value is not None and (key := record_key(entry.value, dataset.id_field)) is not None:
                first.setdefault(key, entry.line)
            continue
        subject = subjects.claim(entry.key, entry.line)
        who = f"{named} {entry.key!r}" if entry.key else unnamed
        verdicts.append(_fields_verdict(dataset.file, subject, entry, who))
        yield entry, subject, who


def _fault_result(file: DataFile, subject: str, fault: LineFault) -> CheckResult:
    return CheckResult(
        subject, fault.check, "failed", f"{file.label}: line {fault.line} {fault.message}.", file, fault.line
    )


def _fields_verdict(file: DataFile, subject: str, record: ParsedLine, who: str) -> CheckResult:
    where = file.at(record.line)
    if record.fields.ok:
        detail = f"{where}: {who}: every field is present and valid"
        return CheckResult(subject, "fields", "passed", detail, file, record.line, record.key)
    detail = "\n".join(f"{where}: {who}: {problem.message}." for problem in record.fields.problems)
    return CheckResult(subject, "fields", "failed", detail, file, record.line, record.key)


def _unique_verdict(
    file: DataFile, subject: str, record: ParsedLine, who: str, first: dict[str, int], fix: str
) -> CheckResult:
    assert record.key is not None
    where = file.at(record.line)
    earlier = first.setdefault(record.key, record.line)
    if earlier == record.line:
        return CheckResult(
            subject, "unique-id", "passed", f"{where}: {who}: the first with this id", file, record.line, record.key
        )
    detail = f"{where}: {who} repeats the id of line {earlier}; {fix}."
    return CheckResult(subject, "unique-id", "failed", detail, file, record.line, record.key)


def _dataset_verdicts(dataset: Dataset, manifest: ManifestLoad[Any], noun: str) -> list[CheckResult]:
    file = dataset.file
    if not manifest.found:
        reason = (
            f"no manifest: {manifest.file.label} does not exist, so {file.label} declares no "
            "dataset-level rules (minimum records, required ids, quotas)"
        )
        return [CheckResult("dataset", "manifest", "skipped", reason, file, None)]
    if manifest.manifest is None:
        detail = "\n".join(text for _, text in manifest.problems) + (
            f"\nFix the manifest: until it is valid, no dataset-level rule of {file.label} is checked."
        )
        return [CheckResult("dataset", "manifest", "failed", detail, manifest.file, manifest.problems[0][0])]
    document = manifest.document
    assert document is not None
    # A line that repeats a key still holds its object: it counts (its fault is its item's),
    # with its fields checked as any record's.
    repeated = [entry.value for entry in dataset.repeated_key_lines if entry.value is not None]
    findings = check_dataset(
        manifest.manifest,
        [*(record.raw for record in dataset.records), *repeated],
        data=file.label,
        manifest_name=manifest.file.label,
        noun=noun,
        invalid_fields=[
            *({problem.field for problem in record.fields.problems} for record in dataset.records),
            *({problem.field for problem in fields.problems} for fields in dataset.repeated_key_fields),
        ],
        unreadable=len(dataset.unreadable_lines),
    )
    verdicts = [
        CheckResult(
            "dataset",
            "manifest",
            "passed",
            f"{manifest.file.label} is valid and declares {len(findings)} dataset-level rule(s)",
            manifest.file,
            1,
        )
    ]
    for finding in findings:
        line = line_of(document, finding.key)
        outcome: Outcome
        if not dataset.readable:  # its one fault fails; counting nothing would only repeat it
            (fault,) = dataset.entries
            assert isinstance(fault, LineFault)
            outcome = "skipped"
            text = f"cannot check: {file.label} could not be read (line {fault.line}, see its {fault.check} check)"
        elif finding.held is None:
            outcome, text = "skipped", f"{manifest.file.at(line)}: {finding.message}"
        else:
            outcome = "passed" if finding.held else "failed"
            text = f"{manifest.file.at(line)}: {finding.message}" + ("." if not finding.held else "")
        verdicts.append(CheckResult("dataset", finding.check, outcome, text, manifest.file, line))
    return verdicts


def _forward_verdict(file: DataFile, subject: str, record: ParsedLine, decisions: DecisionLog) -> CheckResult:
    assert record.key is not None
    log = decisions.file

    def verdict(outcome: Outcome, detail: str) -> CheckResult:
        return CheckResult(subject, "forward", outcome, detail, file, record.line, record.key)

    if record.fields.invalid(*FORWARD_FIELDS):
        return verdict(
            "skipped",
            f"cannot compare: the envelope's {record.fields.explain_invalid(*FORWARD_FIELDS)} (see the fields check)",
        )
    seen = decisions.for_scenario(record.key)
    if not seen and record.key in decisions.faulty_ids:
        return verdict(
            "skipped",
            f"cannot compare: the observation for scenario {record.key!r} is on a faulty line, "
            f"{log.at(decisions.faulty_ids[record.key])} (see its check)",
        )
    if not seen:
        return verdict("skipped", f"no observation for scenario {record.key!r} in {log.label}")
    # A line that only repeats a key still holds an observation: it counts here too.
    at = sorted([observation.line for observation in seen] + decisions.faulty_lines.get(record.key, []))
    if len(at) > 1:
        lines = ", ".join(map(str, at))
        return verdict(
            "skipped",
            f"{len(at)} observations for scenario {record.key!r} in {log.label} (lines {lines}); "
            "a forward test needs exactly one",
        )
    observed = seen[0]
    if not observed.fields.ok:
        return verdict(
            "skipped",
            f"cannot compare: the observation at {log.at(observed.line)} is invalid (see its fields check)",
        )
    envelope = ScenarioRecord.model_construct(**record.fields.values)
    aspects = compare(envelope, Observation.model_validate(observed.raw))
    outside = [aspect.name for aspect in aspects if not aspect.inside]
    if not outside:
        return verdict("passed", f"the observation at {log.at(observed.line)} lies inside the envelope")
    return verdict(
        "failed",
        f"{file.at(record.line)}: scenario {record.key!r} was observed outside its envelope in "
        f"{len(outside)} of {len(aspects)} aspects ({', '.join(outside)}), observed at "
        f"{log.at(observed.line)}; fix the orchestrator, not the envelope:\n{render_diff(aspects)}",
    )


def review_envelope_set(
    envelopes: EnvelopeSet,
    manifest: ManifestLoad[EnvelopeManifest],
    decisions: DecisionLog | None = None,
) -> list[CheckResult]:
    """Every check of an envelope set, in file order, then the dataset-level ones.

    With ``decisions``, each scenario with an id also gets its ``forward`` check.
    """
    file = envelopes.file
    first: dict[str, int] = {}
    verdicts: list[CheckResult] = []
    for entry, subject, who in _each_record(envelopes, "scenario", "the record", verdicts, first):
        for invariant in INVARIANTS:
            if entry.fields.invalid(*invariant.reads):
                outcome: Outcome = "skipped"
                detail = f"cannot check: {entry.fields.explain_invalid(*invariant.reads)} (see the fields check)"
            elif (breach := invariant.breach(entry.fields.values)) is not None:
                outcome, detail = "failed", f"{file.at(entry.line)}: {who}: {breach} (rule: {invariant.rule})."
            else:
                outcome, detail = "passed", f"{file.at(entry.line)}: {who}: {invariant.rule}"
            verdicts.append(CheckResult(subject, invariant.check, outcome, detail, file, entry.line, entry.key))
        if entry.key is not None:
            verdicts.append(
                _unique_verdict(
                    file, subject, entry, who, first, "ids are unique in the file, so rename one or remove the repeat"
                )
            )
            if decisions is not None:
                verdicts.append(_forward_verdict(file, subject, entry, decisions))
    verdicts.extend(_dataset_verdicts(envelopes, manifest, "records"))
    return verdicts


def review_decision_log(
    decisions: DecisionLog,
    known: Mapping[str, Sequence[str]],
    faulty: Mapping[str, str] | None = None,
    unreadable: Sequence[str] = (),
) -> list[CheckResult]:
    """Every check of a decisions file: each observation's fields, id, scenario and worker results.

    ``known`` maps every scenario id of the envelope sets under test to the
    labels of the sets that define it; an observation of any other id fails,
    unless ``faulty`` says where a faulty line names it (``label:line``): then
    its check is skipped, that line's item having failed; and so is the check of
    any other id while ``unreadable`` names lines of the envelope sets that could
    not be read (``label:line``): the scenario may be on one of them.
    """
    faulty = faulty or {}
    file = decisions.file
    first: dict[str, int] = {}
    sets = sorted({label for labels in known.values() for label in labels})
    # Every check it skips names the same lines: a few of them and how many more, so that
    # the text stays short however many lines could not be read.
    unsure = first_few(unreadable)
    verdicts: list[CheckResult] = []
    for entry, subject, who in _each_record(decisions, "observation for scenario", "the observation", verdicts, first):
        where = file.at(entry.line)
        if entry.key is not None:
            verdicts.append(
                _unique_verdict(
                    file,
                    subject,
                    entry,
                    who,
                    first,
                    "a decisions file holds one observation per scenario, so remove one",
                )
            )
            if entry.key in known:
                detail = f"{where}: scenario {entry.key!r} is defined in {', '.join(known[entry.key])}"
                verdicts.append(CheckResult(subject, "known-scenario", "passed", detail, file, entry.line, entry.key))
            elif entry.key in faulty:
                detail = f"cannot check: scenario {entry.key!r} is named by a faulty line, {faulty[entry.key]} (see its check)"
                verdicts.append(CheckResult(subject, "known-scenario", "skipped", detail, file, entry.line, entry.key))
            elif unreadable:
                detail = (
                    f"cannot tell: scenario {entry.key!r} may be defined on a line that could not be read "
                    f"or has no valid id ({unsure}; see {'its check' if len(unreadable) == 1 else 'their checks'})"
                )
                verdicts.append(CheckResult(subject, "known-scenario", "skipped", detail, file, entry.line, entry.key))
            else:
                detail = (
                    f"{where}: {who}, but no envelope set under test defines that scenario "
                    f"({', '.join(sets) or 'they define no usable scenario id'}); correct scenario_id or add the scenario."
                )
                verdicts.append(CheckResult(subject, "known-scenario", "failed", detail, file, entry.line, entry.key))
        if entry.raw.get("worker_results") is not None:
            if not entry.fields.valid("worker_results"):
                outcome: Outcome = "skipped"
                detail = "cannot check: field worker_results is not a list of JSON objects (see the fields check)"
            elif breaches := contract_breaches(entry.fields.values["worker_results"]):
                outcome = "failed"
                detail = (
                    f"{where}: {who}: {'; '.join(breaches)}; a worker result has exactly the six fields "
                    f"{', '.join(WORKER_RESULT_FIELDS)}."
                )
            else:
                outcome = "passed"
                detail = f"{where}: every worker result has exactly the six contract fields"
            verdicts.append(CheckResult(subject, "worker-contract", outcome, detail, file, entry.line, entry.key))
    return verdicts


def review_golden_set(golden: GoldenSet, manifest: ManifestLoad[GoldenManifest]) -> list[CheckResult]:
    """Every check of a golden set: each case's fields, id and rationale, then the dataset-level ones."""
    file = golden.file
    first: dict[str, int] = {}
    rules: GoldenManifest = manifest.manifest or DEFAULT_GOLDEN_MANIFEST
    verdicts: list[CheckResult] = []
    for entry, subject, who in _each_record(golden, "case", "the case", verdicts, first):
        if entry.key is not None:
            verdicts.append(
                _unique_verdict(
                    file,
                    subject,
                    entry,
                    who,
                    first,
                    "ids are unique in the golden set, so rename one or remove the repeat",
                )
            )
        group = entry.fields.values.get("group")
        if manifest.found and manifest.manifest is None and group is not None:
            # Which groups need a rationale is the manifest's to say: not guessed from the default.
            detail = (
                f"{file.at(entry.line)}: {who}: cannot tell whether it needs a rationale: "
                f"{manifest.file.label} is invalid (see dataset[manifest])"
            )
            verdicts.append(CheckResult(subject, "rationale", "skipped", detail, file, entry.line, entry.key))
            continue
        if group in rules.rationale_required_for:
            if any(problem.field == "rationale" and problem.kind == "invalid" for problem in entry.fields.problems):
                detail = f"{file.at(entry.line)}: {who}: cannot tell: its rationale is invalid (see the fields check)"
                verdicts.append(CheckResult(subject, "rationale", "skipped", detail, file, entry.line, entry.key))
                continue
            breach = rationale_breach(entry.fields.values, rules.rationale_required_for)
            outcome: Outcome = "failed" if breach else "passed"
            detail = f"{file.at(entry.line)}: {who}: " + (f"{breach}." if breach else "has a rationale")
            verdicts.append(CheckResult(subject, "rationale", outcome, detail, file, entry.line, entry.key))
    verdicts.extend(_dataset_verdicts(golden, manifest, "cases"))
    return verdicts
