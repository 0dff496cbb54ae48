"""pytest nodes: a sessions file is a ``pytest.File``; each (session, dimension) an item."""

from __future__ import annotations

import linecache
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _pytest._code.code import TerminalRepr
from _pytest.pathlib import bestrelpath

from ..core.engine import (
    Evaluation,
    SessionEvaluation,
    SkippedSession,
    UnidentifiedRecord,
)
from ..core.jsonl import InputProblem
from ..core.naming import escape_name, unique_name
from ..core.rubric import DimensionVerdict
from ..core.text import wire_safe
from .outcomes import VerdictFailed, VerdictUndetermined, markers_for, raise_for

__all__ = [
    "DimensionItem",
    "SessionEvalInputWarning",
    "SessionsFile",
    "SkippedSessionItem",
    "UnidentifiedRecordItem",
]


class SessionEvalInputWarning(pytest.PytestWarning):
    """A line of an input file was skipped (invalid JSON, not an object, ...)."""


#: Unusable lines warned about one by one per file; the rest are summed up in one warning.
WARNED_LINES_PER_FILE = 20
_EXCERPT_CHARS = 80


class _Excerpts:
    """What ``linecache`` shows under a warning about a data file: a short, escaped excerpt.

    Python prints the source line of a warning's location; for a data file that
    would be the raw line, however long, control characters included.
    """

    def __init__(self, excerpts: dict[int, str]) -> None:
        self._excerpts = excerpts
        self._size = max(excerpts, default=0)

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, index: int) -> str:
        return self._excerpts.get(index + 1, "")


def _excerpts(path: str, lines: list[int]) -> dict[int, str]:
    """An escaped start of each of ``lines`` (ascending) of ``path``, read in one pass."""
    wanted, out = set(lines), {}
    try:
        with open(path, "rb") as stream:
            for number, raw in enumerate(stream, 1):
                if number in wanted:
                    text = raw[: _EXCERPT_CHARS * 4].decode("utf-8", "replace").rstrip("\r\n")
                    shown = ascii(text[:_EXCERPT_CHARS])[1:-1]
                    out[number] = shown + (" ..." if len(text) > _EXCERPT_CHARS else "") + "\n"
                    if number >= lines[-1]:
                        break
    except OSError:
        pass
    return out


def warn_problems(problems: list[InputProblem], start: Path, warn: Callable[[Warning, str, int], None]) -> None:
    """Warn about unusable input lines, each located at its file and line, through ``warn``.

    Up to ``WARNED_LINES_PER_FILE`` lines per file get a warning each (with an
    escaped excerpt of the line); one more warning counts the rest.
    """
    by_file: dict[str, list[InputProblem]] = {}
    for problem in problems:
        by_file.setdefault(problem.path, []).append(problem)
    for path, found in by_file.items():
        where = bestrelpath(start, Path(path))
        shown = found[:WARNED_LINES_PER_FILE]
        excerpts = _Excerpts(_excerpts(path, [problem.line for problem in shown]))
        linecache.cache[path] = (None, None, excerpts, path)  # type: ignore[assignment]
        for problem in shown:
            warn(SessionEvalInputWarning(f"{where}:{problem.line}: {problem.message}"), path, problem.line)
        rest = found[WARNED_LINES_PER_FILE:]
        if rest:
            warn(
                SessionEvalInputWarning(
                    f"{where}: {len(rest)} more unusable line(s), skipped (lines {rest[0].line} to {rest[-1].line})"
                ),
                path,
                rest[0].line,
            )


class SessionsFile(pytest.File):
    """A ``sessions.jsonl``: yields the items of its already-scored sessions."""

    def __init__(self, *, evaluation: Evaluation, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.evaluation = evaluation

    def collect(self) -> Iterator[_RecordItem]:
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
                    yield self._child(
                        DimensionItem,
                        f"{base}[{escape_name(verdict.id)}]",
                        evaluation=entry,
                        started_at=started,
                        verdict=verdict,
                        rubric_version=rubric.version,
                        rubric_sha256=rubric.sha256,
                    )
            elif isinstance(entry, SkippedSession):
                yield self._child(SkippedSessionItem, escape_name(entry.session_id), entry=entry)
            else:
                line = entry.line
                where = unique_name(taken, lambda n: f"line-{line}" if n == 1 else f"line-{line}~{n - 1}")
                yield self._child(UnidentifiedRecordItem, f"{where}[no-session-id]", entry=entry)

    def _child(self, kind: type[_RecordItem], name: str, **kwargs: Any) -> _RecordItem:
        # The node id is given as text so that pytest parses the ``[...]`` part as
        # parameters, exactly as it parses the ids it prints (and caches for --lf).
        return kind.from_parent(self, name=name, nodeid=f"{self.nodeid}::{name}", **kwargs)


try:
    from _pytest.nodeid import NodeId as _StructuredNodeId
except ImportError:  # pytest < 9.2 keeps node ids as plain strings
    _StructuredNodeId = None  # type: ignore[assignment,misc]


GROUP_PREFIX = "session-eval:"


def group_name(session_id: str) -> str:
    """A session's ``xdist_group``: the escaped id, since xdist shows it in node ids."""
    return GROUP_PREFIX + escape_name(session_id)


def plain_node_id(report: object) -> None:
    """Give a worker's report of a grouped item the node id it has in a run without xdist.

    ``--dist loadgroup`` tags each grouped item's node id as ``<id>@<group>`` on the
    worker, to schedule by it. Reports that keep the tag differ from a serial run's:
    ``--lf``/``--ff`` would not know the failures of the other kind of run, and pytest
    >= 9.2 reads ``dim]@session-eval:<id>`` as the parameters, so that the short summary
    and JUnit names gain a ``]``. The tag is exactly ``@`` and the group of the item's
    session (its name up to ``[``), so it is removed only when it is that.
    """
    nodeid = getattr(report, "nodeid", None)
    location = getattr(report, "location", None)
    if not isinstance(nodeid, str) or not location or not isinstance(location[2], str):
        return
    name = location[2]
    session, bracket, _ = name.partition("[")
    tag = f"::{name}@{GROUP_PREFIX}{session}"
    if not bracket or not nodeid.endswith(tag):
        return
    plain = nodeid[: len(nodeid) - len(tag) + 2 + len(name)]
    if _StructuredNodeId is not None:
        report._id = _StructuredNodeId.parse(plain)  # type: ignore[attr-defined]
    else:
        report.nodeid = plain  # type: ignore[attr-defined]


def tag_groups(items: list[pytest.Item]) -> None:
    """Give the grouped items the tagged node ids xdist assigned during collection (see
    ``_RecordItem._nodeid``): called as collection finishes, on a worker, before xdist sends
    the ids to schedule."""
    for item in items:
        tagged = item.__dict__.pop("_grouped_nodeid", None)
        if tagged is not None:
            item._set_nodeid(tagged)  # type: ignore[attr-defined]


#: A keyword every item of this plugin carries: ``-k session_eval`` selects them, and the
#: summary and the pytest-html columns read only reports that carry it.
ITEM_KEYWORD = "session_eval"


class _RecordItem(pytest.Item):
    """An item that stands for one line of a data file."""

    line: int
    wire_safe_texts = True  # its report texts are made wire_safe (options.WireSafeTexts)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.keywords[ITEM_KEYWORD] = True
        self.extra_keyword_matches.add(ITEM_KEYWORD)

    def metadata(self) -> dict[str, Any]:
        """What JSON reports carry for this item (under ``metadata.session_eval``)."""
        raise NotImplementedError

    def add_properties(self, *pairs: tuple[str, Any]) -> None:
        """Add ``user_properties`` (JUnit XML properties), leaving out those with no value:
        JUnit XML would write Python's ``None``. JSON reports keep them, as ``null``.
        Text is made ``wire_safe`` here, so that reports are the same with and without xdist."""
        self.user_properties.extend((name, wire_safe(value)) for name, value in pairs if value is not None)

    # pytest-xdist's --dist loadgroup tags a grouped item by assigning ``item._nodeid``
    # in pytest_collection_modifyitems. The tag is held back until collection finishes
    # (``tag_groups``), so that --lf/--ff, which filter items after every
    # pytest_collection_modifyitems, see the item's own id, as in a run without xdist.
    # (pytest >= 9.2 no longer reads ``_nodeid`` at all, pytest-xdist#1386; the tag is
    # still needed there, for a session's items to stay on one worker.)
    @property
    def _nodeid(self) -> str:
        if _StructuredNodeId is not None:
            return self.nodeid
        return self.__dict__["_own_nodeid"]  # type: ignore[no-any-return]

    @_nodeid.setter
    def _nodeid(self, value: str) -> None:
        if "_own_nodeid" in self.__dict__ or _StructuredNodeId is not None:
            self.__dict__["_grouped_nodeid"] = value
        else:  # pytest < 9.2 sets the item's id this way, once, as it is made
            self.__dict__["_own_nodeid"] = value

    def _set_nodeid(self, value: str) -> None:
        if _StructuredNodeId is not None:
            self._id = _StructuredNodeId.parse(value)
        else:
            self.__dict__["_own_nodeid"] = value

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.line - 1, self.name

    @property
    def where(self) -> str:
        """``file:line`` of the record, the file relative to the rootdir as in node ids."""
        return f"{self.location[0]}:{self.line}"


class DimensionItem(_RecordItem):
    """One dimension's verdict for one session; its outcome is set by markers at collection."""

    def __init__(
        self,
        *,
        evaluation: SessionEvaluation,
        started_at: object,
        verdict: DimensionVerdict,
        rubric_version: str,
        rubric_sha256: str,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.evaluation = evaluation
        self.verdict = verdict
        self.line = evaluation.line
        for marker in markers_for(verdict.status, verdict.evidence, verdict.method, runxfail=self.config.option.runxfail):
            self.add_marker(marker)
        self.add_marker(pytest.mark.xdist_group(name=group_name(evaluation.session_id)))
        self.add_properties(
            ("session_id", evaluation.session_id),
            ("dimension", verdict.id),
            ("method", verdict.method),
            ("status", verdict.status),
            ("score", verdict.score),
            ("evidence", verdict.evidence),
            ("line", evaluation.line),
            ("started_at", started_at),
            ("rubric_version", rubric_version),
            ("rubric_sha256", rubric_sha256),
        )

    def metadata(self) -> dict[str, Any]:
        """What JSON reports carry for this item under ``metadata.session_eval``."""
        return {
            "session_id": self.evaluation.session_id,
            "dimension": self.verdict.id,
            "method": self.verdict.method,
            "status": self.verdict.status,
            "score": self.verdict.score,
            "evidence": self.verdict.evidence,
            "line": self.line,
        }

    def runtest(self) -> None:
        raise_for(self.verdict.status, self.verdict.evidence, self.verdict.method)

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, (VerdictFailed, VerdictUndetermined)):
            return (
                f"{self.where}: session {self.evaluation.session_id!r}, {self.verdict.id}: "
                f"{self.verdict.status}\n{self.verdict.evidence}"
            )
        return super().repr_failure(excinfo, style)


class SkippedSessionItem(_RecordItem):
    """A session that is not scored: reported as skipped with the reason, never dropped."""

    def __init__(self, *, entry: SkippedSession, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.entry = entry
        self.line = entry.line
        self.add_marker(pytest.mark.skip(reason=f"not scored: {entry.reason}"))
        self.add_properties(("session_id", entry.session_id), ("eligible", False), ("reason", entry.reason), ("line", entry.line))

    def metadata(self) -> dict[str, Any]:
        return {
            "session_id": self.entry.session_id,
            "eligible": False,
            "reason": self.entry.reason,
            "line": self.line,
        }

    def runtest(self) -> None:  # pragma: no cover - always skipped by its marker
        pass


class UnidentifiedRecordError(Exception):
    """A record without a usable session_id."""


class UnidentifiedRecordItem(_RecordItem):
    """A record that has no usable session_id: a failed item naming the line, never dropped."""

    def __init__(self, *, entry: UnidentifiedRecord, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.entry = entry
        self.line = entry.line
        self.add_properties(("reason", entry.reason), ("line", entry.line))  # no session_id: none usable

    def metadata(self) -> dict[str, Any]:
        return {"session_id": None, "eligible": False, "reason": self.entry.reason, "line": self.line}

    def runtest(self) -> None:
        raise UnidentifiedRecordError(self.entry.reason)

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, UnidentifiedRecordError):
            return (
                f"{self.where}: record has no usable session_id ({self.entry.reason}), so it "
                "cannot be scored or selected. Give it a session_id string that is not blank."
            )
        return super().repr_failure(excinfo, style)
