"""Scoring a whole sessions file in one pass: the pure core the pytest layer sits on.

``evaluate`` reads ``sessions.jsonl`` and ``events.jsonl`` once, indexes events
and windows, and scores every selected session. It reads no clock and writes
nothing; bad lines become ``InputProblem`` entries, never exceptions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

from .events import EventIndex, read_events
from .jsonl import InputProblem, iter_objects
from .kpis import extract_kpis
from .peers import PeerIndex, Peers
from .rubric import DimensionVerdict, Rubric, SessionContext
from .rubric_v1 import RUBRIC_V1
from .sessions import (
    SessionLine,
    Window,
    eligibility,
    latest_eligible,
    session_id_problem,
    session_window,
)
from .timestamps import parse_timestamp_ms

__all__ = [
    "Evaluation",
    "NoEligibleSession",
    "SessionEvaluation",
    "Selection",
    "SkippedSession",
    "UnidentifiedRecord",
    "evaluate",
    "resolve_inputs",
    "score_sessions",
]

SESSIONS_FILE = "sessions.jsonl"
EVENTS_FILE = "events.jsonl"


class NoEligibleSession(LookupError):
    """The latest-session cascade found nothing eligible to score."""


@dataclass(frozen=True, slots=True)
class SessionEvaluation:
    """One scored session: its verdicts per dimension, KPIs and what they were computed from.

    ``dimensions`` are the rubric's deterministic verdicts; ``judge`` holds the
    advisory judge verdicts, when a judge was asked.
    """

    session_id: str
    line: int
    record: dict[str, Any]
    window: Window | None
    peers: Peers
    kpis: dict[str, int | float | None]
    dimensions: tuple[DimensionVerdict, ...]
    host_class: str | None
    judge: tuple[DimensionVerdict, ...] = ()

    def dimension(self, dimension_id: str) -> DimensionVerdict:
        for verdict in (*self.dimensions, *self.judge):
            if verdict.id == dimension_id:
                return verdict
        raise KeyError(dimension_id)


@dataclass(frozen=True, slots=True)
class SkippedSession:
    """A session that is not scored (abandoned, unfinished), with the reason."""

    session_id: str
    line: int
    reason: str


@dataclass(frozen=True, slots=True)
class UnidentifiedRecord:
    """A record that cannot be scored or selected because it has no usable session_id."""

    line: int
    reason: str


Entry = Union[SessionEvaluation, SkippedSession, UnidentifiedRecord]


@dataclass(frozen=True, slots=True)
class Selection:
    """Which sessions to score. ``None``/``False`` everywhere means every eligible one."""

    session_ids: frozenset[str] | None = None
    latest: bool = False
    explicit: bool = False  # score the named sessions whatever their eligibility (re-verification)
    since_ms: int | None = None
    until_ms: int | None = None

    def admits_start(self, record: dict[str, Any]) -> bool:
        if self.since_ms is None and self.until_ms is None:
            return True
        start = parse_timestamp_ms(record.get("started_at"))
        if start is None:
            return False
        if self.since_ms is not None and start < self.since_ms:
            return False
        return self.until_ms is None or start <= self.until_ms


@dataclass(slots=True)
class Evaluation:
    """The result of scoring one sessions file: entries in file order, and input problems."""

    sessions_path: Path
    events_path: Path | None
    rubric: Rubric
    entries: list[Entry] = field(default_factory=list)
    problems: list[InputProblem] = field(default_factory=list)
    session_ids: frozenset[str] = frozenset()

    @property
    def scored(self) -> list[SessionEvaluation]:
        return [entry for entry in self.entries if isinstance(entry, SessionEvaluation)]


def resolve_inputs(path: Path, events: Path | None = None) -> tuple[Path, Path | None]:
    """``(sessions.jsonl, events.jsonl or None)`` for a file or a metrics directory."""
    sessions = path / SESSIONS_FILE if path.is_dir() else path
    if events is None:
        beside = sessions.parent / EVENTS_FILE
        events = beside if beside.is_file() else None
    return sessions, events


def evaluate(
    sessions_path: Path,
    events_path: Path | None,
    selection: Selection = Selection(),
    rubric: Rubric = RUBRIC_V1,
) -> Evaluation:
    """Score the selected sessions of ``sessions_path`` against ``rubric``.

    Raises ``OSError`` when a file cannot be read and ``NoEligibleSession`` when
    ``selection.latest`` finds nothing to score.
    """
    result = Evaluation(sessions_path, events_path, rubric)
    lines = [SessionLine(n, record) for n, record in iter_objects(sessions_path, result.problems)]
    windows = [session_window(entry.record) for entry in lines]
    peer_index = PeerIndex(
        (window, entry.record.get("session_id"))
        for entry, window in zip(lines, windows)
        if window is not None
    )
    window_of = {entry.line: window for entry, window in zip(lines, windows)}
    events = read_events(events_path, result.problems)

    authoritative: dict[str, SessionLine] = {}
    unidentified: list[SessionLine] = []
    for entry in lines:
        sid = entry.session_id
        if sid is None:
            unidentified.append(entry)
        else:
            authoritative[sid] = entry
    result.session_ids = frozenset(authoritative)

    chosen: list[SessionLine]
    if selection.latest:
        pick = latest_eligible(lines)
        if pick is None:
            raise NoEligibleSession(
                f"{sessions_path}: no eligible session to score (every record is abandoned, "
                "unfinished, or shows no evidence of work)"
            )
        chosen = [pick]
    else:
        chosen = sorted([*authoritative.values(), *unidentified], key=lambda entry: entry.line)

    for entry in chosen:
        sid = entry.session_id
        if selection.session_ids is not None and sid not in selection.session_ids:
            continue
        if not selection.admits_start(entry.record):
            continue
        if sid is None:
            result.entries.append(
                UnidentifiedRecord(entry.line, session_id_problem(entry.record))
            )
            continue
        reason = None if selection.latest or selection.explicit else eligibility(entry.record)
        if reason is not None:
            result.entries.append(SkippedSession(sid, entry.line, reason))
            continue
        result.entries.append(score_line(entry, window_of[entry.line], peer_index, events, rubric))
    return result


def score_line(
    entry: SessionLine,
    window: Window | None,
    peer_index: PeerIndex,
    events: EventIndex,
    rubric: Rubric,
) -> SessionEvaluation:
    """Score one session record with the indexes of its file."""
    sid = entry.session_id
    assert sid is not None
    kpis = extract_kpis(entry.record, window)
    peers = peer_index.peers(sid, window)
    context = SessionContext(entry.record, window, peers, events, kpis)
    return SessionEvaluation(
        session_id=sid,
        line=entry.line,
        record=entry.record,
        window=window,
        peers=peers,
        kpis=kpis,
        dimensions=rubric.score(context),
        host_class=events.host_class(entry.record.get("started_at")),
    )


def score_sessions(
    path: str | Path, events: str | Path | None = None, *, rubric: Rubric = RUBRIC_V1
) -> list[SessionEvaluation]:
    """Score every eligible session of a ``sessions.jsonl`` (or a directory holding one).

    ``events`` defaults to the ``events.jsonl`` beside it, when there is one. The
    result lists the scored sessions in file order (the order of each session's
    authoritative, last, line).
    """
    sessions_path, events_path = resolve_inputs(Path(path), Path(events) if events else None)
    return evaluate(sessions_path, events_path, rubric=rubric).scored
