"""pytest nodes for eval journals: stored records reported as-is, or re-verified."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..core.engine import SessionEvaluation
from ..core.jsonl import InputProblem
from ..core.naming import escape_name, unique_name
from ..core.rubric import JUDGE, Rubric
from ..core.sessions import eligibility
from ..records.schema import InvalidRecord, validate_record
from ..records.seal import RunCheck
from ..records.verify import (
    Drift,
    diff_dimension,
    diff_record,
    render_drift,
    worded_here,
    written_here,
)
from ._compat import bestrelpath
from .facts import ItemFacts, Kind
from .items import LineFile, LineItem
from .journals import StoredJournal
from .outcomes import VerdictFailed, VerdictUndetermined, markers_for, raise_for

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

__all__ = ["JournalFile"]


class JournalFile(LineFile):
    """An ``eval.jsonl``: one item per stored dimension of every record."""

    def __init__(self, *, journal: StoredJournal, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.journal = journal

    def collect(self) -> Iterator[LineItem]:
        taken: set[str] = set()
        if self.journal.verify:
            yield from self._seal_items(taken)
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
                yield self.child(InvalidRecordItem, f"{where}[invalid-record]", line=line, error=exc)
                continue
            # A run_id another line holds too (journals joined by hand) gets "@line-<N>".
            run = escape_name(record["run_id"])
            base = unique_name(
                taken, lambda n: run if n == 1 else f"{run}@line-{line}" + (f"~{n - 1}" if n > 2 else "")
            )
            if self.journal.verify:
                yield from self._verification_items(line, record, base)
                continue
            for name, dimension in _named(base, record["dimensions"]):
                yield self.child(StoredDimensionItem, name, line=line, record=record, dimension=dimension)
        while pending is not None:
            yield self._unreadable(taken, pending)
            pending = next(unreadable, None)

    def _seal_items(self, taken: set[str]) -> Iterator[LineItem]:
        """Re-verified, one item per line of the journal's seal (``seal-<N>``): that run's
        records are in the journal as sealed, and the line chains from the one before; or
        one item ``seal`` that fails when the seal cannot be read."""
        seal = self.journal.seal_path
        if self.journal.seal_problem is not None:
            name = unique_name(taken, lambda n: "seal" if n == 1 else f"seal~{n - 1}")
            yield self.child(SealItem, name, seal=seal, run=None, problem=self.journal.seal_problem)
            return
        if self.journal.seal is None:
            return
        for run in self.journal.seal.runs:
            label = f"seal-{run.seal_line}"
            name = unique_name(taken, lambda n: label if n == 1 else f"{label}~{n - 1}")
            yield self.child(SealItem, name, seal=seal, run=run, problem=run.problem)

    def _unreadable(self, taken: set[str], problem: InputProblem) -> LineItem:
        where = unique_name(taken, lambda n: f"line-{problem.line}" if n == 1 else f"line-{problem.line}~{n - 1}")
        why = problem.message.removesuffix("; line skipped")  # (as a warning says it; here it fails)
        return self.child(UnreadableRecordItem, f"{where}[unreadable]", line=problem.line, problem=why)

    def _verification_items(self, line: int, record: dict[str, Any], base: str) -> Iterator[LineItem]:
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
                f"session {record['session_id']!r} is not in the current metrics (--session-eval); nothing to re-score"
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
            yield self.child(
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
                    yield self.child(
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
            yield self.child(VerifiedRecordItem, name, line=line, record=record, fresh=fresh)


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
            problems.append(
                (
                    f"dimensions[{index}]",
                    f"{dimension['id']!r} is a deterministic dimension of {rubric.version}, stored as a judge verdict",
                )
            )
        elif dimension["id"] not in rubric.judge_ids:
            problems.append(
                (f"dimensions[{index}]", f"{dimension['id']!r} is not a judge dimension {rubric.version} pre-registers")
            )
    if problems:
        raise InvalidRecord(problems)


def _named(base: str, dimensions: list[dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each stored dimension with its node name, ``<base>[<id>]``; a dimension the record
    repeats is ``<base>[<id>~2]``, ``~3``..., so that every item has a node id of its own."""
    taken: set[str] = set()
    for dimension in dimensions:
        label = escape_name(dimension["id"])
        yield unique_name(taken, lambda n: f"{base}[{label}]" if n == 1 else f"{base}[{label}~{n}]"), dimension


class _StoredItem(LineItem):
    kind: Kind = "stored"

    def __init__(self, *, line: int, record: dict[str, Any], dimension: dict[str, Any], **kwargs: Any) -> None:
        facts = ItemFacts(
            self.kind,
            line,
            run_id=record["run_id"],
            session_id=record["session_id"],
            dimension=dimension["id"],
            method=dimension.get("method"),
            status=dimension.get("status"),
            score=dimension.get("score"),
            evidence=dimension.get("evidence"),
            rubric_version=record["rubric_version"],
            rubric_sha256=record["provenance"]["rubric_sha256"],
        )
        super().__init__(facts=facts, **kwargs)
        self.record = record
        self.dimension = dimension

    def _headline(self) -> str:
        return f"{self.where}: run {self.record['run_id']!r}, {self.dimension['id']}"


class StoredDimensionItem(_StoredItem):
    """A stored verdict reported as it is; judge verdicts are advisory and never fail."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        for marker in markers_for(
            self.dimension["status"],
            self.dimension["evidence"],
            self.dimension["method"],
            runxfail=self.config.option.runxfail,
            about=f"run {self.record['run_id']!r}, {self.dimension['id']}",
        ):
            self.add_marker(marker)

    def runtest(self) -> None:
        raise_for(self.dimension["status"], self.dimension["evidence"], self.dimension["method"])

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, (VerdictFailed, VerdictUndetermined)):
            return self.failure(  # type: ignore[no-any-return]
                f"{self._headline()}: {self.dimension['status']} (stored)", self.dimension["evidence"]
            )
        return super().repr_failure(excinfo, style)


class DriftDetected(Exception):
    """A fresh scoring does not reproduce the stored verdict."""


class VerifiedDimensionItem(_StoredItem):
    """Passes when a fresh scoring of the current metrics reproduces the stored verdict."""

    kind: Kind = "verified"

    def __init__(self, *, fresh: SessionEvaluation | None, problem: str | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fresh = fresh
        self.problem = problem
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
        drifts = diff_dimension(self.dimension, verdict, compare_evidence=worded_here(self.record))
        if drifts:
            raise _drift("verdict", self.fresh, drifts)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, DriftDetected):
            return self.failure(f"{self._headline()}: not reproduced", str(excinfo.value))  # type: ignore[no-any-return]
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


class VerifiedRecordItem(LineItem):
    """Passes when a fresh scoring of the current metrics reproduces the record's own fields:
    its KPIs, ``harness.host_class`` (and ``harness.platform``, for records written here), and
    a ``run_id`` made of its ``session_id`` and ``timestamp``."""

    def __init__(self, *, line: int, record: dict[str, Any], fresh: SessionEvaluation, **kwargs: Any) -> None:
        facts = ItemFacts("verified-record", line, run_id=record["run_id"], session_id=record["session_id"])
        super().__init__(facts=facts, **kwargs)
        self.record = record
        self.fresh = fresh
        self.add_marker(pytest.mark.deterministic)

    def runtest(self) -> None:
        drifts = diff_record(self.record, self.fresh, compare_platform=written_here(self.record))
        if drifts:
            raise _drift("record", self.fresh, drifts)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, DriftDetected):
            return f"{self.where}: run {self.record['run_id']!r}, record: not reproduced\n{excinfo.value}"
        return super().repr_failure(excinfo, style)


class UnreadableRecordItem(LineItem):
    """A journal line re-verification cannot read: a failed item naming why."""

    def __init__(self, *, line: int, problem: str, **kwargs: Any) -> None:
        super().__init__(facts=ItemFacts("unreadable", line, reason=problem), **kwargs)
        self.problem = problem
        self.add_marker(pytest.mark.deterministic)  # a record that may have held deterministic verdicts

    def runtest(self) -> None:
        raise InvalidRecordError(self.problem)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, InvalidRecordError):
            return f"{self.where}: {self.problem}; no record on it can be re-verified"
        return super().repr_failure(excinfo, style)


class InvalidRecordError(Exception):
    """A stored record breaks the schema."""


class SealBroken(Exception):
    """A run's records are not in the journal as its seal line seals them."""


class SealItem(LineItem):
    """One line of the journal's seal: passes when that run's records are in the journal as
    sealed (the same bytes, as many records) and the line chains from the one before."""

    def __init__(self, *, seal: Path, run: RunCheck | None, problem: str | None, **kwargs: Any) -> None:
        line = run.lines[0] if run is not None and run.lines is not None else 1
        facts = ItemFacts("seal", line, reason=problem, seal_line=run.seal_line if run is not None else None)
        super().__init__(facts=facts, **kwargs)
        self.seal = seal
        self.run = run
        self.problem = problem
        self.add_marker(pytest.mark.deterministic)

    def runtest(self) -> None:
        if self.problem is not None:
            raise SealBroken(self.problem)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, SealBroken):
            seal = bestrelpath(self.config.invocation_params.dir, self.seal)
            if self.run is None:
                headline = f"{seal}: the journal's seal cannot be read, so its completeness cannot be checked"
            else:
                headline = f"{seal}:{self.run.seal_line}: {self.run.run}: broken"
            return self.failure(headline, self.problem or "")  # type: ignore[no-any-return]
        return super().repr_failure(excinfo, style)


class InvalidRecordItem(LineItem):
    """A journal line whose record is invalid: a failed item that names the fields."""

    def __init__(self, *, line: int, error: InvalidRecord, **kwargs: Any) -> None:
        super().__init__(facts=ItemFacts("invalid-record", line, invalid=tuple(error.problems)), **kwargs)
        self.error = error
        self.add_marker(pytest.mark.deterministic)  # a record that may hold deterministic verdicts

    def runtest(self) -> None:
        raise InvalidRecordError(str(self.error))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, InvalidRecordError):
            fields = "\n".join(f"  {f}: {m}" for f, m in self.error.problems)
            return f"{self.where}: invalid session-eval record\n{fields}"
        return super().repr_failure(excinfo, style)
