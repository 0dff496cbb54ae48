"""Reviewing policy data: every check of every data file, as a list of verdicts.

This is the whole decision of what passes, fails or is skipped; the pytest
layer only turns each :class:`Verdict` into an item named
``<subject>[<check>]``. Subjects are the escaped scenario (or case) id, or
``line-<N>`` for a line without a usable id, or ``dataset`` for the checks of
the whole file; a subject already taken in the file gets ``@line-<N>``
appended, so every item keeps its own node id. Check names are stable and
listed in :data:`CHECKS`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar, Final, Generic, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from ..core.io import BROKEN_LINK, stat_kind
from ..core.naming import escape_name, unique_name
from ..core.text import first_few, is_utf8
from ..core.values import is_blank
from .envelope import INVARIANTS, ScenarioRecord
from .fields import (
    FieldCheck,
    check_fields,
    reason_of,
    show_path,
    show_text,
    show_value,
)
from .golden import GoldenCase, rationale_breach
from .manifest import (
    DEFAULT_GOLDEN_MANIFEST,
    EnvelopeManifest,
    GoldenManifest,
    check_dataset,
    undeclared_group_fields,
    unknown_record_fields,
)
from .observation import (
    FORWARD_FIELDS,
    WORKER_RESULT_FIELDS,
    Observation,
    compare,
    contract_breaches,
    render_diff,
)
from .source import (
    Document,
    DocumentFault,
    LineFault,
    SourceLine,
    describe_json,
    read_json_document,
    read_jsonl,
)

__all__ = [
    "CHECKS",
    "DataFile",
    "DecisionLog",
    "EnvelopeSet",
    "GoldenSet",
    "ManifestLoad",
    "Outcome",
    "Record",
    "Verdict",
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
class DataFile:
    """A file of the dataset and the name messages give it."""

    path: Path
    label: str

    def at(self, line: int | None) -> str:
        """``label:line``, or the label alone for the whole file."""
        return f"{self.label}:{line}" if line else self.label


@dataclass(frozen=True, slots=True)
class Verdict:
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


@dataclass(frozen=True, slots=True)
class Record:
    """A line (or golden-set element) that holds one JSON object, with its fields checked."""

    line: int
    raw: dict[str, Any]
    fields: FieldCheck
    key: str | None  # the record's id, when it is a string that is not blank


_Model = TypeVar("_Model", bound=BaseModel)


def _record(model: type[BaseModel], line: int, raw: dict[str, Any], id_field: str) -> Record:
    return Record(line, raw, check_fields(model, raw), _key(raw, id_field))


def _key(raw: dict[str, Any], id_field: str) -> str | None:
    """The object's id when it is a string that is not blank (a blank id names nothing; its
    fields check says so)."""
    key = raw.get(id_field)
    return key if isinstance(key, str) and key.strip() != "" else None


def _entries(
    model: type[BaseModel], lines: Iterable[SourceLine | LineFault], id_field: str
) -> tuple[Record | LineFault, ...]:
    return tuple(
        entry if isinstance(entry, LineFault) else _record(model, entry.line, entry.value, id_field)
        for entry in lines
    )


@dataclass(frozen=True)
class _Dataset:
    """A data file read whole: its records and the faults of its other lines."""

    file: DataFile
    entries: tuple[Record | LineFault, ...]
    readable: bool = True  # False: the file as a whole is no document of its kind (one fault says why)
    id_field: ClassVar[str] = "id"
    model: ClassVar[type[BaseModel]]  # what each record is checked against

    @cached_property
    def records(self) -> list[Record]:
        return [entry for entry in self.entries if isinstance(entry, Record)]

    @property
    def ids(self) -> set[str]:
        return {record.key for record in self.records if record.key is not None}

    @cached_property
    def unreadable_lines(self) -> list[int]:
        """Lines that could have held a record but cannot be read (not JSON, not UTF-8, too long)."""
        return [entry.line for entry in self.entries if isinstance(entry, LineFault) and entry.unread]

    @cached_property
    def repeated_key_lines(self) -> list[LineFault]:
        """Lines that are no record only because they repeat a key: they still hold their object."""
        return [entry for entry in self.entries if isinstance(entry, LineFault) and entry.value is not None]

    @cached_property
    def repeated_key_fields(self) -> list[FieldCheck]:
        """The field checks of ``repeated_key_lines`` (aligned): their objects count as records."""
        return [check_fields(self.model, entry.value) for entry in self.repeated_key_lines]  # type: ignore[arg-type]

    @cached_property
    def id_unsure_lines(self) -> list[int]:
        """Lines whose object has no valid id (missing, or not as the format wants): any id may
        have been meant, so a check that asks whether an id is defined cannot tell."""
        lines = [record.line for record in self.records if record.fields.invalid(self.id_field)]
        lines += [
            entry.line for entry, fields in zip(self.repeated_key_lines, self.repeated_key_fields)
            if fields.invalid(self.id_field)
        ]
        return sorted(lines)

    @cached_property
    def faulty_lines(self) -> dict[str, list[int]]:
        """Ids of ``repeated_key_lines``: id -> its such lines, in file order."""
        found: dict[str, list[int]] = {}
        for entry in self.repeated_key_lines:
            key = entry.value.get(self.id_field)  # type: ignore[union-attr]
            if isinstance(key, str) and key.strip():
                found.setdefault(key, []).append(entry.line)
        return found

    @cached_property
    def faulty_ids(self) -> dict[str, int]:
        """Ids of ``repeated_key_lines``: id -> its first such line.

        Their fault fails one item; a check that asks whether the id is defined
        must not fail again for it.
        """
        return {key: lines[0] for key, lines in self.faulty_lines.items()}


@dataclass(frozen=True)
class EnvelopeSet(_Dataset):
    """A ``prompts.jsonl``: its scenario records and the faults of its other lines."""

    model: ClassVar[type[BaseModel]] = ScenarioRecord

    @classmethod
    def read(cls, file: DataFile) -> EnvelopeSet:
        """Read and check the file; ``OSError`` if it cannot be read."""
        return cls(file, _entries(cls.model, read_jsonl(file.path), cls.id_field))


@dataclass(frozen=True)
class DecisionLog(_Dataset):
    """A decisions file: one observation per scenario of a real run."""

    id_field: ClassVar[str] = "scenario_id"
    model: ClassVar[type[BaseModel]] = Observation

    @classmethod
    def read(cls, file: DataFile) -> DecisionLog:
        """Read and check the file; ``OSError`` if it cannot be read."""
        return cls(file, _entries(cls.model, read_jsonl(file.path), cls.id_field))

    @cached_property
    def _by_scenario(self) -> dict[str | None, list[Record]]:
        index: dict[str | None, list[Record]] = {}
        for record in self.records:
            index.setdefault(record.key, []).append(record)
        return index

    def for_scenario(self, scenario_id: str) -> list[Record]:
        """The observations of one scenario, in file order."""
        return list(self._by_scenario.get(scenario_id, ()))


@dataclass(frozen=True)
class GoldenSet(_Dataset):
    """A golden set: a JSON array of cases, each located at the line where it starts."""

    model: ClassVar[type[BaseModel]] = GoldenCase

    @classmethod
    def read(cls, file: DataFile) -> GoldenSet:
        """Read and check the file; ``OSError`` if it cannot be read."""
        try:
            document = read_json_document(file.path)
        except DocumentFault as fault:
            return cls(file, (LineFault(fault.line, fault.check, fault.message),), readable=False)
        if type(document.value) is not list:
            return cls(
                file,
                (LineFault(1, "json", f"holds {describe_json(document.value)}, but a golden set is a JSON array of cases"),),
                readable=False,
            )
        repeated: dict[int, list[str]] = defaultdict(list)
        for path, _ in document.repeated:
            repeated[int(path[0])].append(".".join(map(str, path[1:])))
        entries: list[Record | LineFault] = []
        for position, case in enumerate(document.value):
            line = document.line_of(position) or 1
            if type(case) is not dict:
                entries.append(LineFault(line, "json", f"holds {describe_json(case)}, but each case is a JSON object"))
            elif position in repeated:
                keys = ", ".join(map(repr, sorted(set(repeated[position]))))
                entries.append(
                    LineFault(line, "duplicate-key", f"starts a case that repeats the key(s) {keys}; keep exactly one", case)
                )
            else:
                entries.append(_record(cls.model, line, case, cls.id_field))
        return cls(file, tuple(entries))


def _unusable_file(path: Path) -> str | None:
    """Why ``path`` cannot be read as a data file (``"missing"`` when nothing is there), or ``None``."""
    try:
        kind = stat_kind(path)
    except (OSError, ValueError) as exc:
        return f"cannot be used ({getattr(exc, 'strerror', None) or exc})"
    if kind is None:
        return "missing"
    if kind == BROKEN_LINK:
        return "is a broken symbolic link"
    return None if kind == "file" else "is not a regular file"


@dataclass(frozen=True)
class ManifestLoad(Generic[_Model]):
    """A manifest as found: absent, unusable (with the problems), or valid."""

    file: DataFile
    found: bool
    manifest: _Model | None = None
    document: Document | None = None
    problems: tuple[tuple[int | None, str], ...] = ()
    # The golden set an envelope manifest names, read even when another key is invalid:
    # a typo elsewhere must not silently drop the golden set from the run.
    golden_set: str | None = None

    @classmethod
    def read(cls, model: type[_Model], file: DataFile) -> ManifestLoad[_Model]:
        """Read and validate the manifest at ``file``; a missing file is ``found=False``."""
        unusable = _unusable_file(file.path)
        if unusable == "missing":
            return cls(file, False)
        if unusable:
            return cls(file, True, problems=((None, f"{file.label}: {unusable}"),))
        try:
            document = read_json_document(file.path)
        except DocumentFault as fault:
            return cls(file, True, problems=((fault.line, f"{file.label}: line {fault.line} {fault.message}"),))
        except OSError as exc:
            return cls(file, True, problems=((None, f"{file.label}: cannot be read ({exc.strerror or exc})"),))
        problems: list[tuple[int | None, str]] = [
            (line, f"{file.at(line)}: the key {'.'.join(map(str, path))!r} appears twice in one object; keep one")
            for path, line in document.repeated
        ]
        if type(document.value) is not dict:
            start = document.line_of() or 1
            problems.append((start, f"{file.at(start)}: holds {describe_json(document.value)}, but a manifest is a JSON object"))
            return cls(file, True, document=document, problems=tuple(problems))
        golden_set = document.value.get("golden_set") if issubclass(model, EnvelopeManifest) else None
        golden_problems = []
        if not isinstance(golden_set, str) or is_blank(golden_set):
            golden_set = None  # (the manifest's validation says what is wrong with it)
        else:
            golden = file.path.parent / golden_set
            unusable = _unusable_file(golden)
            if unusable:
                line = document.line_of("golden_set")
                why = "names no file" if unusable == "missing" else f"names a path that {unusable}"
                golden_problems.append((line, f"{file.at(line)}: golden_set {golden_set!r} {why} ({show_text(str(golden))})"))
                golden_set = None
        # pydantic stops at a key that is no text (a lone surrogate escape), or takes it for a
        # value, and names no place: each such key is named here, at any depth, and the
        # members that are left are validated.
        bad_keys = _keys_that_are_no_text(document.value)
        for path in bad_keys:
            line = _line_of(document, path)
            problems.append((line, f"{file.at(line)}: the key {show_path(str(path[0]), path[1:])} holds a lone surrogate escape, which is no text; correct it"))
        members = {name: value for name, value in document.value.items() if is_utf8(name)}
        try:
            manifest = model.model_validate(members)
        except ValidationError as exc:
            for error in exc.errors(include_url=False):
                if error["type"] == "string_unicode" and any(error["input"] == path[-1] for path in bad_keys):
                    continue  # that key, named above
                loc = tuple(error["loc"])
                line = _line_of(document, loc)
                what = show_path(str(loc[0]), loc[1:]) if loc else "the manifest"
                if error["type"] == "extra_forbidden":
                    text = f"{what} is not a manifest key; remove it or correct its spelling"
                elif error["type"] == "missing":
                    text = f"{what} is missing"
                elif error["type"] == "value_error":
                    text = f"{what}: {reason_of(error['msg'])}"
                else:
                    text = f"{what} is {show_value(error['input'])}, but {reason_of(error['msg'])}"
                problems.append((line, f"{file.at(line)}: {text}"))
            line = _line_of(document, ("quotas",))
            for text in _unchecked_quota_rules(model, members.get("quotas"), exc.errors(include_url=False)):
                problems.append((line, f"{file.at(line)}: quotas: {text}"))
            problems += golden_problems
            return cls(file, True, document=document, problems=tuple(problems), golden_set=golden_set)
        problems += golden_problems
        if problems:
            return cls(file, True, document=document, problems=tuple(problems), golden_set=golden_set)
        return cls(file, True, manifest, document, golden_set=golden_set)

    @property
    def golden_path(self) -> Path | None:
        """The golden set an envelope manifest names (valid or not), resolved beside the manifest."""
        return None if self.golden_set is None else self.file.path.parent / self.golden_set


def _unchecked_quota_rules(model: type[BaseModel], quotas: Any, errors: list[Any]) -> list[str]:
    """What the rules across the members of ``quotas`` find, when pydantic did not run them:
    it runs the rule of the group fields only when every member is valid, and that of an
    envelope set's record fields only when the group fields' passes too."""
    if type(quotas) is not dict:
        return []
    members_invalid = any(len(error["loc"]) > 1 and error["loc"][0] == "quotas" for error in errors)
    undeclared = undeclared_group_fields(quotas)
    found = undeclared if members_invalid else []  # else pydantic ran that rule, and said what it found
    if issubclass(model, EnvelopeManifest) and (members_invalid or undeclared):
        found += unknown_record_fields(quotas)
    return found


def _keys_that_are_no_text(value: Any) -> list[tuple[str | int, ...]]:
    """The path of every object key, at any depth, that holds a lone surrogate escape (depth
    first: an object's own keys, then those within its members)."""
    found: list[tuple[str | int, ...]] = []
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    while stack:
        node, path = stack.pop()
        if type(node) is dict:
            children = [(child, (*path, name)) for name, child in node.items()]
            found += [child_path for _, child_path in children if not is_utf8(child_path[-1])]  # type: ignore[arg-type]
        elif type(node) is list:
            children = [(child, (*path, index)) for index, child in enumerate(node)]
        else:
            continue
        stack.extend(reversed(children))
    return found


def _line_of(document: Document, path: Sequence[str | int]) -> int | None:
    """The line of the longest prefix of ``path`` the document has."""
    for end in range(len(path), 0, -1):
        line = document.line_of(*path[:end])
        if line is not None:
            return line
    return None


class _Subjects:
    """Hands out the subject of each record: its escaped id, unique within one file."""

    def __init__(self) -> None:
        self._taken: set[str] = set()

    def claim(self, key: str | None, line: int) -> str:
        subject = escape_name(key) if key else f"line-{line}"
        # More than once "@line-<N>" only when an id spells "<id>@line-<N>".
        return unique_name(self._taken, lambda n: subject + f"@line-{line}" * (n - 1))


def _each_record(
    dataset: _Dataset, named: str, unnamed: str, verdicts: list[Verdict], first: dict[str, int]
) -> Iterator[tuple[Record, str, str]]:
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
            verdicts.append(_fault_verdict(dataset.file, subjects.claim(None, entry.line), entry))
            if entry.value is not None and (key := _key(entry.value, dataset.id_field)) is not None:
                first.setdefault(key, entry.line)
            continue
        subject = subjects.claim(entry.key, entry.line)
        who = f"{named} {entry.key!r}" if entry.key else unnamed
        verdicts.append(_fields_verdict(dataset.file, subject, entry, who))
        yield entry, subject, who


def _fault_verdict(file: DataFile, subject: str, fault: LineFault) -> Verdict:
    return Verdict(subject, fault.check, "failed", f"{file.label}: line {fault.line} {fault.message}.", file, fault.line)


def _fields_verdict(file: DataFile, subject: str, record: Record, who: str) -> Verdict:
    where = file.at(record.line)
    if record.fields.ok:
        detail = f"{where}: {who}: every field is present and valid"
        return Verdict(subject, "fields", "passed", detail, file, record.line, record.key)
    detail = "\n".join(f"{where}: {who}: {problem.message}." for problem in record.fields.problems)
    return Verdict(subject, "fields", "failed", detail, file, record.line, record.key)


def _unique_verdict(file: DataFile, subject: str, record: Record, who: str, first: dict[str, int], fix: str) -> Verdict:
    assert record.key is not None
    where = file.at(record.line)
    earlier = first.setdefault(record.key, record.line)
    if earlier == record.line:
        return Verdict(subject, "unique-id", "passed", f"{where}: {who}: the first with this id", file, record.line, record.key)
    detail = f"{where}: {who} repeats the id of line {earlier}; {fix}."
    return Verdict(subject, "unique-id", "failed", detail, file, record.line, record.key)


def _dataset_verdicts(dataset: _Dataset, manifest: ManifestLoad[Any], noun: str) -> list[Verdict]:
    file = dataset.file
    if not manifest.found:
        reason = (
            f"no manifest: {manifest.file.label} does not exist, so {file.label} declares no "
            "dataset-level rules (minimum records, required ids, quotas)"
        )
        return [Verdict("dataset", "manifest", "skipped", reason, file, None)]
    if manifest.manifest is None:
        detail = "\n".join(text for _, text in manifest.problems) + (
            f"\nFix the manifest: until it is valid, no dataset-level rule of {file.label} is checked."
        )
        return [Verdict("dataset", "manifest", "failed", detail, manifest.file, manifest.problems[0][0])]
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
        Verdict("dataset", "manifest", "passed",
                f"{manifest.file.label} is valid and declares {len(findings)} dataset-level rule(s)",
                manifest.file, 1)
    ]
    for finding in findings:
        line = _line_of(document, finding.key)
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
        verdicts.append(Verdict("dataset", finding.check, outcome, text, manifest.file, line))
    return verdicts


def _forward_verdict(file: DataFile, subject: str, record: Record, decisions: DecisionLog) -> Verdict:
    assert record.key is not None
    log = decisions.file
    def verdict(outcome: Outcome, detail: str) -> Verdict:
        return Verdict(subject, "forward", outcome, detail, file, record.line, record.key)

    if record.fields.invalid(*FORWARD_FIELDS):
        return verdict(
            "skipped", f"cannot compare: the envelope's {record.fields.explain_invalid(*FORWARD_FIELDS)} (see the fields check)"
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
) -> list[Verdict]:
    """Every check of an envelope set, in file order, then the dataset-level ones.

    With ``decisions``, each scenario with an id also gets its ``forward`` check.
    """
    file = envelopes.file
    first: dict[str, int] = {}
    verdicts: list[Verdict] = []
    for entry, subject, who in _each_record(envelopes, "scenario", "the record", verdicts, first):
        for invariant in INVARIANTS:
            if entry.fields.invalid(*invariant.reads):
                outcome: Outcome = "skipped"
                detail = f"cannot check: {entry.fields.explain_invalid(*invariant.reads)} (see the fields check)"
            elif (breach := invariant.breach(entry.fields.values)) is not None:
                outcome, detail = "failed", f"{file.at(entry.line)}: {who}: {breach} (rule: {invariant.rule})."
            else:
                outcome, detail = "passed", f"{file.at(entry.line)}: {who}: {invariant.rule}"
            verdicts.append(Verdict(subject, invariant.check, outcome, detail, file, entry.line, entry.key))
        if entry.key is not None:
            verdicts.append(_unique_verdict(
                file, subject, entry, who, first, "ids are unique in the file, so rename one or remove the repeat"
            ))
            if decisions is not None:
                verdicts.append(_forward_verdict(file, subject, entry, decisions))
    verdicts.extend(_dataset_verdicts(envelopes, manifest, "records"))
    return verdicts


def review_decision_log(
    decisions: DecisionLog,
    known: Mapping[str, Sequence[str]],
    faulty: Mapping[str, str] | None = None,
    unreadable: Sequence[str] = (),
) -> list[Verdict]:
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
    verdicts: list[Verdict] = []
    for entry, subject, who in _each_record(decisions, "observation for scenario", "the observation", verdicts, first):
        where = file.at(entry.line)
        if entry.key is not None:
            verdicts.append(_unique_verdict(
                file, subject, entry, who, first, "a decisions file holds one observation per scenario, so remove one"
            ))
            if entry.key in known:
                detail = f"{where}: scenario {entry.key!r} is defined in {', '.join(known[entry.key])}"
                verdicts.append(Verdict(subject, "known-scenario", "passed", detail, file, entry.line, entry.key))
            elif entry.key in faulty:
                detail = f"cannot check: scenario {entry.key!r} is named by a faulty line, {faulty[entry.key]} (see its check)"
                verdicts.append(Verdict(subject, "known-scenario", "skipped", detail, file, entry.line, entry.key))
            elif unreadable:
                detail = (
                    f"cannot tell: scenario {entry.key!r} may be defined on a line that could not be read "
                    f"or has no valid id ({unsure}; see {'its check' if len(unreadable) == 1 else 'their checks'})"
                )
                verdicts.append(Verdict(subject, "known-scenario", "skipped", detail, file, entry.line, entry.key))
            else:
                detail = (
                    f"{where}: {who}, but no envelope set under test defines that scenario "
                    f"({', '.join(sets) or 'they define no usable scenario id'}); correct scenario_id or add the scenario."
                )
                verdicts.append(Verdict(subject, "known-scenario", "failed", detail, file, entry.line, entry.key))
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
            verdicts.append(Verdict(subject, "worker-contract", outcome, detail, file, entry.line, entry.key))
    return verdicts


def review_golden_set(golden: GoldenSet, manifest: ManifestLoad[GoldenManifest]) -> list[Verdict]:
    """Every check of a golden set: each case's fields, id and rationale, then the dataset-level ones."""
    file = golden.file
    first: dict[str, int] = {}
    rules: GoldenManifest = manifest.manifest or DEFAULT_GOLDEN_MANIFEST
    verdicts: list[Verdict] = []
    for entry, subject, who in _each_record(golden, "case", "the case", verdicts, first):
        if entry.key is not None:
            verdicts.append(_unique_verdict(
                file, subject, entry, who, first, "ids are unique in the golden set, so rename one or remove the repeat"
            ))
        group = entry.fields.values.get("group")
        if manifest.found and manifest.manifest is None and group is not None:
            # Which groups need a rationale is the manifest's to say: not guessed from the default.
            detail = (
                f"{file.at(entry.line)}: {who}: cannot tell whether it needs a rationale: "
                f"{manifest.file.label} is invalid (see dataset[manifest])"
            )
            verdicts.append(Verdict(subject, "rationale", "skipped", detail, file, entry.line, entry.key))
            continue
        if group in rules.rationale_required_for:
            if any(problem.field == "rationale" and problem.kind == "invalid" for problem in entry.fields.problems):
                detail = f"{file.at(entry.line)}: {who}: cannot tell: its rationale is invalid (see the fields check)"
                verdicts.append(Verdict(subject, "rationale", "skipped", detail, file, entry.line, entry.key))
                continue
            breach = rationale_breach(entry.fields.values, rules.rationale_required_for)
            outcome: Outcome = "failed" if breach else "passed"
            detail = f"{file.at(entry.line)}: {who}: " + (f"{breach}." if breach else "has a rationale")
            verdicts.append(Verdict(subject, "rationale", outcome, detail, file, entry.line, entry.key))
    verdicts.extend(_dataset_verdicts(golden, manifest, "cases"))
    return verdicts
