"""pytest nodes for eval journals: stored records reported as-is, or re-verified."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from _pytest._code.code import TerminalRepr

from ..core.engine import SessionEvaluation
from ..core.jsonl import InputProblem
from ..core.naming import escape_name, unique_name
from ..core.rubric import JUDGE, Rubric
from ..core.sessions import eligibility
from ..records.schema import InvalidRecord, validate_record
from ..records.verify import (
    Drift,
    diff_dimension,
    diff_record,
    render_drift,
    written_here,
)
from .outcomes import VerdictFailed, VerdictUndetermined, markers_for, raise_for
from .sessions_file import _RecordItem

__all__ = ["JournalFile", "StoredJournal"]


@dataclass
class StoredJournal:
    """A journal's records, read once, and (for re-verification) the fresh evaluations."""

    path: Path
    records: list[tuple[int, dict[str, Any]]]
    problems: list[InputProblem] = field(default_factory=list)
    looked_past: list[int] = field(default_factory=list)  # lines of other objects (notes, other kinds)
    verify: bool = False
    fresh: dict[tuple[str, str], SessionEvaluation] = field(default_factory=dict)  # (rubric version, session id)
    # The same key -> file:line of each scoring, for a session that sessions files given score differently.
    scored_apart: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    rubrics: dict[str, Rubric] = field(default_factory=dict)


class JournalFile(pytest.File):
    """An ``eval.jsonl``: one item per stored dimension of every record."""

    def __init__(self, *, journal: StoredJournal, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.journal = journal

    def _child(self, kind: type[_RecordItem], name: str, **kwargs: Any) -> _RecordItem:
        return kind.from_parent(self, name=name, nodeid=f"{self.nodeid}::{name}", **kwargs)

    def collect(self) -> Iterator[_RecordItem]:
        taken: set[str] = set()
        # Re-verified, a line that holds no readable record is one that cannot be: it fails
        # (as input, it is a warning, as any unusable line of the metrics is).
        unreadable = iter(self.journal.problems if self.journal.verify else [])
        pending = next(unreadable, None)
        for line, record in self.journal.records:
            while pending is not None and pending.line < line:
                yield self._unreadable(taken, pending)
                pending = next(unreadable, None)
            try:
                validate_record(record)
                _judged_as_registered(record, self.journal.rubrics.get(record["rubric_version"]))
            except InvalidRecord as exc:
                # Its name is taken like a run_id's: a record whose run_id spells "line-N" keeps its own.
                where = unique_name(taken, lambda n: f"line-{line}" if n == 1 else f"line-{line}~{n - 1}")
                yield self._child(InvalidRecordItem, f"{where}[invalid-record]", line=line, error=exc)
                continue
            # A run_id another line holds too (journals joined by hand) gets "@line-<N>".
            run = escape_name(record["run_id"])
            base = unique_name(taken, lambda n: run if n == 1 else f"{run}@line-{line}" + (f"~{n - 1}" if n > 2 else ""))
            if self.journal.verify:
                yield from self._verification_items(line, record, base)
                continue
            for name, dimension in _named(base, record["dimensions"]):
                yield self._child(StoredDimensionItem, name, line=line, record=record, dimension=dimension)
        while pending is not None:
            yield self._unreadable(taken, pending)
            pending = next(unreadable, None)

    def _unreadable(self, taken: set[str], problem: InputProblem) -> _RecordItem:
        where = unique_name(taken, lambda n: f"line-{problem.line}" if n == 1 else f"line-{problem.line}~{n - 1}")
        why = problem.message.removesuffix("; line skipped")  # (as a warning says it; here it fails)
        return self._child(UnreadableRecordItem, f"{where}[unreadable]", line=problem.line, problem=why)

    def _verification_items(self, line: int, record: dict[str, Any], base: str) -> Iterator[_RecordItem]:
        rubric = self.journal.rubrics.get(record["rubric_version"])
        fresh = self.journal.fresh.get((record["rubric_version"], record["session_id"]))
        problem = None
        if rubric is None:
            problem = (
                f"the record was scored with {record['rubric_version']!r}, which is not registered "
                f"here (known: {', '.join(sorted(self.journal.rubrics))}); it cannot be re-scored"
            )
        elif record["provenance"]["rubric_sha256"] != rubric.sha256:
            problem = (
                f"the stored rubric_sha256 {record['provenance']['rubric_sha256']} differs from the "
                f"current {rubric.version} text ({rubric.sha256}): the record was scored against "
                "another text, so its verdicts cannot be re-verified against this one"
            )
        elif fresh is None:
            problem = (
                f"session {record['session_id']!r} is not in the current metrics "
                "(--session-eval); nothing to re-score"
            )
        elif places := self.journal.scored_apart.get((record["rubric_version"], record["session_id"])):
            problem = (
                f"session {record['session_id']!r} is in more than one sessions file given, scored differently "
                f"({', '.join(places)}), and a record does not say which it scored: re-verify it against that file alone"
            )
        stored_ids = []
        names = set()
        for name, dimension in _named(base, record["dimensions"]):
            names.add(name)
            stored_ids.append(dimension["id"])
            yield self._child(
                VerifiedDimensionItem,
                name,
                line=line,
                record=record,
                dimension=dimension,
                fresh=fresh,
                problem=problem,
            )
        if problem is None and fresh is not None:
            for verdict in fresh.dimensions:
                if verdict.id not in stored_ids:
                    label = escape_name(verdict.id)
                    name = unique_name(names, lambda n: f"{base}[{label}]" if n == 1 else f"{base}[{label}~{n}]")
                    yield self._child(
                        VerifiedDimensionItem,
                        name,
                        line=line,
                        record=record,
                        dimension={"id": verdict.id, "method": verdict.method},
                        fresh=fresh,
                        problem=f"{verdict.id} is scored now ({verdict.status}) but missing from the stored record",
                    )
            # The record's own fields that a fresh scoring gives too (KPIs, host class, run_id),
            # under a name no dimension's item holds.
            name = unique_name(names, lambda n: f"{base}[record]" if n == 1 else f"{base}[record~{n}]")
            yield self._child(VerifiedRecordItem, name, line=line, record=record, fresh=fresh)


def _judged_as_registered(record: dict[str, Any], rubric: Rubric | None) -> None:
    """The advisory firewall, on records read back: a judge dimension must be one the record's
    rubric pre-registers as such (when that rubric is registered here). A deterministic
    dimension stored as a judge verdict would turn a failure into an advisory note.
    Raises ``InvalidRecord`` naming each such dimension."""
    if rubric is None:
        return
    problems = []
    for index, dimension in enumerate(record["dimensions"]):
        if dimension["method"] != JUDGE:
            continue
        if dimension["id"] in rubric.dimension_ids:
            problems.append((f"dimensions[{index}]", f"{dimension['id']!r} is a deterministic dimension of {rubric.version}, stored as a judge verdict"))
        elif dimension["id"] not in rubric.judge_ids:
            problems.append((f"dimensions[{index}]", f"{dimension['id']!r} is not a judge dimension {rubric.version} pre-registers"))
    if problems:
        raise InvalidRecord(problems)


def _named(base: str, dimensions: list[dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each stored dimension with its node name, ``<base>[<id>]``; a dimension the record
    repeats is ``<base>[<id>~2]``, ``~3``..., so that every item has a node id of its own."""
    taken: set[str] = set()
    for dimension in dimensions:
        label = escape_name(dimension["id"])
        yield unique_name(taken, lambda n: f"{base}[{label}]" if n == 1 else f"{base}[{label}~{n}]"), dimension


class _StoredItem(_RecordItem):
    def __init__(self, *, line: int, record: dict[str, Any], dimension: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.line = line
        self.record = record
        self.dimension = dimension
        self.add_properties(
            ("run_id", record["run_id"]),
            ("session_id", record["session_id"]),
            ("dimension", dimension["id"]),
            ("method", dimension.get("method")),
            ("status", dimension.get("status")),
            ("score", dimension.get("score")),
            ("line", line),
            ("rubric_version", record["rubric_version"]),
            ("rubric_sha256", record["provenance"]["rubric_sha256"]),
        )

    def metadata(self) -> dict[str, Any]:
        return {
            "run_id": self.record["run_id"],
            "session_id": self.record["session_id"],
            "dimension": self.dimension["id"],
            "method": self.dimension.get("method"),
            "status": self.dimension.get("status"),
            "score": self.dimension.get("score"),
            "evidence": self.dimension.get("evidence"),
            "line": self.line,
        }

    def _headline(self) -> str:
        return f"{self.where}: run {self.record['run_id']!r}, {self.dimension['id']}"


class StoredDimensionItem(_StoredItem):
    """A stored verdict reported as it is; judge verdicts are advisory and never fail."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        for marker in markers_for(
            self.dimension["status"], self.dimension["evidence"], self.dimension["method"], runxfail=self.config.option.runxfail
        ):
            self.add_marker(marker)

    def runtest(self) -> None:
        raise_for(self.dimension["status"], self.dimension["evidence"], self.dimension["method"])

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, (VerdictFailed, VerdictUndetermined)):
            return f"{self._headline()}: {self.dimension['status']} (stored)\n{self.dimension['evidence']}"
        return super().repr_failure(excinfo, style)


class DriftDetected(Exception):
    """A fresh scoring does not reproduce the stored verdict."""


class VerifiedDimensionItem(_StoredItem):
    """Passes when a fresh scoring of the current metrics reproduces the stored verdict."""

    def __init__(self, *, fresh: SessionEvaluation | None, problem: str | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fresh = fresh
        self.problem = problem
        self.user_properties.append(("verification", True))
        self.add_marker(pytest.mark.judge if self.dimension.get("method") == JUDGE else pytest.mark.deterministic)
        if self.dimension.get("method") == JUDGE:
            self.add_marker(
                pytest.mark.skip(reason="judge dimension: advisory and not re-verifiable, only deterministic ones are")
            )

    def runtest(self) -> None:
        if self.problem is not None:
            raise DriftDetected(self.problem)
        assert self.fresh is not None
        verdicts = {verdict.id: verdict for verdict in self.fresh.dimensions}
        verdict = verdicts.get(self.dimension["id"])
        if verdict is None:
            raise DriftDetected(f"{self.dimension['id']} is stored but the rubric scores no such dimension")
        drifts = diff_dimension(self.dimension, verdict, compare_evidence=written_here(self.record))
        if drifts:
            raise _drift("verdict", self.fresh, drifts)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, DriftDetected):
            return f"{self._headline()}: not reproduced\n{excinfo.value}"
        return super().repr_failure(excinfo, style)


def _drift(stored: str, fresh: SessionEvaluation, drifts: list[Drift]) -> DriftDetected:
    """The failure of a stored ``verdict`` or ``record`` that the fresh scoring does not reproduce.

    It also says when a scoring run would now leave the session's last line out: the fresh
    scoring is of that line all the same, as the reference re-scores it.
    """
    reason = eligibility(fresh.record)
    not_scored_now = "" if reason is None else f", which a scoring run would not score now: {reason}"
    return DriftDetected(
        f"fresh scoring of the current metrics differs from the stored {stored} "
        f"(sessions line {fresh.line}{not_scored_now}):\n{render_drift(drifts)}"
    )


class VerifiedRecordItem(_RecordItem):
    """Passes when a fresh scoring of the current metrics reproduces the record's own fields:
    its KPIs, ``harness.host_class`` (and ``harness.platform``, for records written here), and
    a ``run_id`` made of its ``session_id`` and ``timestamp``."""

    def __init__(self, *, line: int, record: dict[str, Any], fresh: SessionEvaluation, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.line = line
        self.record = record
        self.fresh = fresh
        self.add_properties(("run_id", record["run_id"]), ("session_id", record["session_id"]), ("line", line))
        self.user_properties.append(("verification", "record"))
        self.add_marker(pytest.mark.deterministic)

    def metadata(self) -> dict[str, Any]:
        return {"run_id": self.record["run_id"], "session_id": self.record["session_id"], "line": self.line, "checked": "record"}

    def runtest(self) -> None:
        drifts = diff_record(self.record, self.fresh, compare_platform=written_here(self.record))
        if drifts:
            raise _drift("record", self.fresh, drifts)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, DriftDetected):
            return f"{self.where}: run {self.record['run_id']!r}, record: not reproduced\n{excinfo.value}"
        return super().repr_failure(excinfo, style)


class UnreadableRecordItem(_RecordItem):
    """A journal line re-verification cannot read: a failed item naming why."""

    def __init__(self, *, line: int, problem: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.line = line
        self.problem = problem
        self.user_properties.extend([("line", line), ("unreadable", problem), ("verification", "unreadable")])
        self.add_marker(pytest.mark.deterministic)  # a record that may have held deterministic verdicts

    def metadata(self) -> dict[str, Any]:
        return {"line": self.line, "unreadable": self.problem}

    def runtest(self) -> None:
        raise InvalidRecordError(self.problem)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, InvalidRecordError):
            return f"{self.where}: {self.problem}; no record on it can be re-verified"
        return super().repr_failure(excinfo, style)


class InvalidRecordError(Exception):
    """A stored record breaks the schema."""


class InvalidRecordItem(_RecordItem):
    """A journal line whose record is invalid: a failed item that names the fields."""

    def __init__(self, *, line: int, error: InvalidRecord, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.line = line
        self.error = error
        self.user_properties.extend([("line", line), ("invalid", str(error))])
        self.add_marker(pytest.mark.deterministic)  # a record that may hold deterministic verdicts

    def metadata(self) -> dict[str, Any]:
        return {"line": self.line, "invalid": [{"field": f, "message": m} for f, m in self.error.problems]}

    def runtest(self) -> None:
        raise InvalidRecordError(str(self.error))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, InvalidRecordError):
            fields = "\n".join(f"  {f}: {m}" for f, m in self.error.problems)
            return f"{self.where}: invalid session-eval record\n{fields}"
        return super().repr_failure(excinfo, style)
