"""A sessions file is a ``pytest.File``; each (session, dimension) an item."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from ..core.engine import (
    Evaluation,
    SessionEvaluation,
    SkippedSession,
)
from ..core.naming import escape_name, unique_name
from ..core.rubric import DimensionVerdict
from .facts import ItemFacts
from .items import LineFile, LineItem
from .outcomes import VerdictFailed, VerdictUndetermined, markers_for, raise_for
from .xdist import group_name

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

__all__ = ["DimensionItem", "SessionsFile", "SkippedSessionItem", "UnidentifiedRecordItem"]


class SessionsFile(LineFile):
    """A ``sessions.jsonl``: yields the items of its already-scored sessions."""

    def __init__(self, *, evaluation: Evaluation, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.evaluation = evaluation

    def collect(self) -> Iterator[LineItem]:
        rubric = self.evaluation.rubric
        # A session named "line-<N>" keeps its name: the record without a usable id on line N
        # becomes "line-<N>~1[...]", or a node id copied from the output would select both.
        # Every session of the file counts, selected or not, so that the name never depends
        # on the selection (a node id copied, or cached for --lf, names the same record).
        taken = {escape_name(session_id) for session_id in self.evaluation.session_ids}
        for entry in self.evaluation.entries:
            if isinstance(entry, SessionEvaluation):
                base = escape_name(entry.session_id)
                started = entry.record.get("started_at")  # decoded once for the session's items
                if type(started) is not str:  # no timestamp; and a deep list would break the reporters
                    started = None
                for verdict in (*entry.dimensions, *entry.judge):
                    facts = ItemFacts(
                        "verdict",
                        entry.line,
                        session_id=entry.session_id,
                        dimension=verdict.id,
                        method=verdict.method,
                        status=verdict.status,
                        score=verdict.score,
                        evidence=verdict.evidence,
                        cause=verdict.cause,
                        scored_on_request=entry.on_request,
                        started_at=started,
                        rubric_version=rubric.version,
                        rubric_sha256=rubric.sha256,
                    )
                    name = f"{base}[{escape_name(verdict.id)}]"
                    yield self.child(DimensionItem, name, evaluation=entry, verdict=verdict, facts=facts)
            elif isinstance(entry, SkippedSession):
                facts = ItemFacts("not-scored", entry.line, session_id=entry.session_id, reason=entry.reason)
                yield self.child(SkippedSessionItem, escape_name(entry.session_id), facts=facts)
            else:
                line = entry.line
                where = unique_name(taken, lambda n: f"line-{line}" if n == 1 else f"line-{line}~{n - 1}")
                facts = ItemFacts("no-session-id", line, reason=entry.reason)  # no session_id: none usable
                yield self.child(UnidentifiedRecordItem, f"{where}[no-session-id]", facts=facts)


class DimensionItem(LineItem):
    """One dimension's verdict for one session; its outcome is set by markers at collection."""

    def __init__(self, *, evaluation: SessionEvaluation, verdict: DimensionVerdict, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.evaluation = evaluation
        self.verdict = verdict
        # The evidence, and for a session scored because it was named, that the eligibility rule
        # would have left it out.
        self.told = verdict.evidence
        if evaluation.on_request is not None:
            self.told += f" (Scored on request; the eligibility rule would leave it out: {evaluation.on_request}.)"
        about = f"session {evaluation.session_id!r}, {verdict.id}"
        runxfail = self.config.option.runxfail
        for marker in markers_for(verdict.status, self.told, verdict.method, runxfail=runxfail, about=about):
            self.add_marker(marker)
        self.add_marker(pytest.mark.xdist_group(name=group_name(evaluation.session_id)))

    def runtest(self) -> None:
        raise_for(self.verdict.status, self.told, self.verdict.method)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, (VerdictFailed, VerdictUndetermined)):
            return self.failure(  # type: ignore[no-any-return]
                self.told,
                f"{self.where}: session {self.evaluation.session_id!r}, {self.verdict.id}: {self.verdict.status}",
            )
        return super().repr_failure(excinfo, style)


class SkippedSessionItem(LineItem):
    """A session that is not scored: reported as skipped with the reason, never dropped."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_marker(pytest.mark.skip(reason=f"not scored: session {self.facts.session_id!r}: {self.facts.reason}"))

    def runtest(self) -> None:  # pragma: no cover - always skipped by its marker
        pass


class UnidentifiedRecordError(Exception):
    """A record without a usable session_id."""


class UnidentifiedRecordItem(LineItem):
    """A record that has no usable session_id: a failed item naming the line, never dropped."""

    def runtest(self) -> None:
        raise UnidentifiedRecordError(self.facts.reason)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, UnidentifiedRecordError):
            return (
                f"{self.where}: record has no usable session_id ({self.facts.reason}), so it "
                "cannot be scored or selected. Give it a session_id string that is not blank."
            )
        return super().repr_failure(excinfo, style)
