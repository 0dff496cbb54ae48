"""Policy data as read: a data file, its records (each with its line), and the manifest
that declares what the dataset must hold. Reading never stops at a fault: every fault is
kept, tied to its line, for the review to judge (``review``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from ..core.io import BROKEN_LINK, stat_kind
from ..core.text import is_utf8
from ..core.values import is_blank
from .envelope import ScenarioRecord
from .fields import (
    FieldCheck,
    check_fields,
    reason_of,
    show_path,
    show_text,
    show_value,
)
from .golden import GoldenCase
from .manifest import (
    EnvelopeManifest,
    undeclared_group_fields,
    unknown_record_fields,
)
from .observation import (
    Observation,
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
    "DataFile",
    "Dataset",
    "DecisionLog",
    "EnvelopeSet",
    "GoldenSet",
    "ManifestLoad",
    "ParsedLine",
    "line_of",
    "record_key",
]


@dataclass(frozen=True, slots=True)
class DataFile:
    """A file of the dataset and the name messages give it."""

    path: Path
    label: str

    def at(self, line: int | None) -> str:
        """``label:line``, or the label alone for the whole file."""
        return f"{self.label}:{line}" if line else self.label


@dataclass(frozen=True, slots=True)
class ParsedLine:
    """A line (or golden-set element) that holds one JSON object, with its fields checked."""

    line: int
    raw: dict[str, Any]
    fields: FieldCheck
    key: str | None  # the record's id, when it is a string that is not blank


_Model = TypeVar("_Model", bound=BaseModel)


def _record(model: type[BaseModel], line: int, raw: dict[str, Any], id_field: str) -> ParsedLine:
    return ParsedLine(line, raw, check_fields(model, raw), record_key(raw, id_field))


def record_key(raw: dict[str, Any], id_field: str) -> str | None:
    """The object's id when it is a string that is not blank (a blank id names nothing; its
    fields check says so)."""
    key = raw.get(id_field)
    return key if isinstance(key, str) and key.strip() != "" else None


def _entries(
    model: type[BaseModel], lines: Iterable[SourceLine | LineFault], id_field: str
) -> tuple[ParsedLine | LineFault, ...]:
    return tuple(
        entry if isinstance(entry, LineFault) else _record(model, entry.line, entry.value, id_field) for entry in lines
    )


@dataclass(frozen=True)
class Dataset:
    """A data file read whole: its records and the faults of its other lines."""

    file: DataFile
    entries: tuple[ParsedLine | LineFault, ...]
    readable: bool = True  # False: the file as a whole is no document of its kind (one fault says why)
    id_field: ClassVar[str] = "id"
    model: ClassVar[type[BaseModel]]  # what each record is checked against

    @cached_property
    def records(self) -> list[ParsedLine]:
        return [entry for entry in self.entries if isinstance(entry, ParsedLine)]

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
            entry.line
            for entry, fields in zip(self.repeated_key_lines, self.repeated_key_fields)
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
class EnvelopeSet(Dataset):
    """A ``prompts.jsonl``: its scenario records and the faults of its other lines."""

    model: ClassVar[type[BaseModel]] = ScenarioRecord

    @classmethod
    def read(cls, file: DataFile) -> EnvelopeSet:
        """Read and check the file; ``OSError`` if it cannot be read."""
        return cls(file, _entries(cls.model, read_jsonl(file.path), cls.id_field))


@dataclass(frozen=True)
class DecisionLog(Dataset):
    """A decisions file: one observation per scenario of a real run."""

    id_field: ClassVar[str] = "scenario_id"
    model: ClassVar[type[BaseModel]] = Observation

    @classmethod
    def read(cls, file: DataFile) -> DecisionLog:
        """Read and check the file; ``OSError`` if it cannot be read."""
        return cls(file, _entries(cls.model, read_jsonl(file.path), cls.id_field))

    @cached_property
    def _by_scenario(self) -> dict[str | None, list[ParsedLine]]:
        index: dict[str | None, list[ParsedLine]] = {}
        for record in self.records:
            index.setdefault(record.key, []).append(record)
        return index

    def for_scenario(self, scenario_id: str) -> list[ParsedLine]:
        """The observations of one scenario, in file order."""
        return list(self._by_scenario.get(scenario_id, ()))


@dataclass(frozen=True)
class GoldenSet(Dataset):
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
                (
                    LineFault(
                        1, "json", f"holds {describe_json(document.value)}, but a golden set is a JSON array of cases"
                    ),
                ),
                readable=False,
            )
        repeated: dict[int, list[str]] = defaultdict(list)
        for path, _ in document.repeated:
            repeated[int(path[0])].append(".".join(map(str, path[1:])))
        entries: list[ParsedLine | LineFault] = []
        for position, case in enumerate(document.value):
            line = document.line_of(position) or 1
            if type(case) is not dict:
                entries.append(LineFault(line, "json", f"holds {describe_json(case)}, but each case is a JSON object"))
            elif position in repeated:
                keys = ", ".join(map(repr, sorted(set(repeated[position]))))
                entries.append(
                    LineFault(
                        line, "duplicate-key", f"starts a case that repeats the key(s) {keys}; keep exactly one", case
                    )
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
            problems.append(
                (start, f"{file.at(start)}: holds {describe_json(document.value)}, but a manifest is a JSON object")
            )
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
                golden_problems.append(
                    (line, f"{file.at(line)}: golden_set {golden_set!r} {why} ({show_text(str(golden))})")
                )
                golden_set = None
        # pydantic stops at a key that is no text (a lone surrogate escape), or takes it for a
        # value, and names no place: each such key is named here, at any depth, and the
        # members that are left are validated.
        bad_keys = _keys_that_are_no_text(document.value)
        for path in bad_keys:
            line = line_of(document, path)
            problems.append(
                (
                    line,
                    f"{file.at(line)}: the key {show_path(str(path[0]), path[1:])} holds a lone surrogate escape, which is no text; correct it",
                )
            )
        members = {name: value for name, value in document.value.items() if is_utf8(name)}
        try:
            manifest = model.model_validate(members)
        except ValidationError as exc:
            for error in exc.errors(include_url=False):
                if error["type"] == "string_unicode" and any(error["input"] == path[-1] for path in bad_keys):
                    continue  # that key, named above
                loc = tuple(error["loc"])
                line = line_of(document, loc)
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
            line = line_of(document, ("quotas",))
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
            found += [child_path for _, child_path in children if not is_utf8(child_path[-1])]
        elif type(node) is list:
            children = [(child, (*path, index)) for index, child in enumerate(node)]
        else:
            continue
        stack.extend(reversed(children))
    return found


def line_of(document: Document, path: Sequence[str | int]) -> int | None:
    """The line of the longest prefix of ``path`` the document has."""
    for end in range(len(path), 0, -1):
        line = document.line_of(*path[:end])
        if line is not None:
            return line
    return None
