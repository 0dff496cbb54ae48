"""Scoring a whole sessions file in one pass: the pure core the pytest layer sits on.

``evaluate`` reads ``sessions.jsonl`` and ``events.jsonl`` once, indexes events
and windows, and scores every selected session. It reads no clock and writes
nothing; bad lines become ``InputProblem`` entries, never exceptions.
"""

from __future__ import annotations

import gc
import os
import warnings
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from ..rubrics.rubric_v1 import RUBRIC_V1
from .events import read_events
from .io import find_beside
from .jsonl import InputProblem, InputWarning, UnreadableTimestamps, decode_object, iter_lines
from .kpis import extract_kpis
from .peers import PeerIndex, Peers
from .rubric import (
    DimensionVerdict,
    Rubric,
    RubricError,
    SessionContext,
)
from .sessions import (
    Window,
    eligibility,
    is_usable_id,
    session_id_problem,
    session_window,
)
from .text import first_few
from .timestamps import parse_timestamp_ms
from .verdict_pool import VerdictPool

__all__ = [
    "Evaluation",
    "InputWarning",
    "NoEligibleSession",
    "Selection",
    "SessionEvaluation",
    "SkippedSession",
    "UnidentifiedRecord",
    "evaluate",
    "resolve_inputs",
    "score_sessions",
]

#: The files of a metrics directory (each also read gzipped: ``core.io.spellings``).
SESSIONS_FILE: Final = "sessions.jsonl"
EVENTS_FILE: Final = "events.jsonl"


class NoEligibleSession(LookupError):
    """The latest-session cascade found nothing eligible to score.

    ``reason`` says why without the file's name; ``evaluation`` holds what was read of
    the file all the same (its input problems and counts, and no entry).
    """

    def __init__(self, path: Path, reason: str, evaluation: Evaluation) -> None:
        super().__init__(f"{path}: {reason}")
        self.reason = reason
        self.evaluation = evaluation


@dataclass(frozen=True, slots=True)
class SessionEvaluation:
    """One scored session: its verdicts per dimension, KPIs and what they were computed from.

    ``dimensions`` are the rubric's deterministic verdicts; ``judge`` holds the
    advisory judge verdicts, when a judge was asked.
    """

    session_id: str
    line: int
    source: bytes
    window: Window | None
    peers: Peers
    kpis: dict[str, int | float | None]
    dimensions: tuple[DimensionVerdict, ...]
    host_class: str | None
    judge: tuple[DimensionVerdict, ...] = ()
    # Named for scoring (``Selection.explicit``) although the eligibility rule leaves it out:
    # that rule's reason.
    on_request: str | None = None

    @property
    def record(self) -> dict[str, Any]:
        """The session's record, decoded afresh from its line (``source``) on each access.

        Only the line's bytes are kept: a year of sessions stays within memory.
        """
        record = decode_object(self.source)
        assert type(record) is dict, "the line decoded to an object when it was scored"
        return record

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


Entry = SessionEvaluation | SkippedSession | UnidentifiedRecord


@dataclass(frozen=True, slots=True)
class Selection:
    """Which sessions to score. ``None``/``False`` everywhere means every eligible one."""

    session_ids: frozenset[str] | None = None
    latest: bool = False
    explicit: bool = False  # score the named sessions whatever their eligibility
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
    records: int = 0  # lines that hold a JSON object
    # Records left out because they started outside the date range of the selection (or
    # their started_at does not parse while a range is given): a session's authoritative
    # record, or a record without a usable session_id, each that would be an entry else.
    outside_dates: int = 0
    # Per file read (sessions, then events), the timestamps it holds that cannot be read.
    unreadable_timestamps: list[UnreadableTimestamps] = field(default_factory=list)

    @property
    def scored(self) -> list[SessionEvaluation]:
        return [entry for entry in self.entries if isinstance(entry, SessionEvaluation)]


def resolve_inputs(path: Path, events: Path | None = None) -> tuple[Path, Path | None]:
    """``(sessions.jsonl, events.jsonl or None)`` for a file or a metrics directory (either
    file may be gzipped: ``sessions.jsonl.gz``)."""
    sessions = (find_beside(path, SESSIONS_FILE) or path / SESSIONS_FILE) if path.is_dir() else path
    if events is None:
        beside = find_beside(sessions.parent, EVENTS_FILE)
        events = beside if beside is not None and beside.is_file() else None
    return sessions, events


def evaluate(
    sessions_path: Path,
    events_path: Path | None,
    selection: Selection = Selection(),
    rubric: Rubric = RUBRIC_V1,
    *,
    check_every_event_line: bool = True,
) -> Evaluation:
    """Score the selected sessions of ``sessions_path`` against ``rubric``.

    ``check_every_event_line=False`` decodes only the event lines that can name
    an event the rubric reads: the same verdicts, faster, but a broken line of
    another event kind is not reported.

    Raises ``OSError`` when a file cannot be read, ``NoEligibleSession`` when
    ``selection.latest`` finds nothing to score, and ``RubricError`` (naming
    the file, line and session) when a scorer raises or answers outside the
    rules.
    """
    # Scoring creates a few objects per session and frees none of them until the
    # end, so the cyclic collector would walk the growing heap again and again
    # (for nothing: decoded JSON and verdicts hold no cycles). It is paused for
    # the call and restored after.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _evaluate(sessions_path, events_path, selection, rubric, check_every_event_line)
    finally:
        if collecting:
            if gc.get_freeze_count() == 0:
                # Hand what was allocated meanwhile to the oldest generation at once
                # (freeze + unfreeze only moves lists and resets the young count);
                # else the first young collection after this call would walk all of
                # it. Skipped when the caller has frozen objects of its own.
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def _evaluate(
    sessions_path: Path,
    events_path: Path | None,
    selection: Selection,
    rubric: Rubric,
    check_every_event_line: bool,
) -> Evaluation:
    result = Evaluation(sessions_path, events_path, rubric)
    problems = result.problems

    # One pass over sessions.jsonl. Per line only what deciding needs is kept (its
    # number, window, id and eligibility); a line that may be scored also keeps
    # its bytes, decoded again when it is scored. No decoded record outlives its line.
    numbers = array("q")
    windows: list[Window | None] = []
    reasons: list[str | None] = []  # eligibility of each line, None when eligible
    ids: list[str | None] = []  # each line's usable session_id
    starts: list[str | None] = []  # each line's started_at, when it is a string
    sources: list[bytes | None] = []
    with_window: list[tuple[Window, object]] = []
    last_line_of: dict[str, int] = {}  # usable session_id -> index of its authoritative line
    unidentified: dict[int, str] = {}  # index -> why its session_id is not usable
    stamps_of_sessions = UnreadableTimestamps(str(sessions_path))
    for number, raw, record in iter_lines(sessions_path, problems):
        index = len(numbers)
        numbers.append(number)
        window = session_window(record)
        windows.append(window)
        if window is None:
            for name in ("started_at", "completed_at"):
                value = record.get(name)
                if value is not None and parse_timestamp_ms(value) is None:
                    stamps_of_sessions.add(number, name, value)
        raw_id = record.get("session_id")
        if window is not None:
            with_window.append((window, raw_id))
        reasons.append(eligibility(record))
        started = record.get("started_at")
        starts.append(started if type(started) is str else None)
        admitted = selection.admits_start(record)
        sources.append(raw if admitted else None)
        if is_usable_id(raw_id):
            last_line_of[raw_id] = index
            ids.append(raw_id)
        else:
            ids.append(None)
        if ids[index] is None:
            if admitted:
                unidentified[index] = session_id_problem(record)
            elif selection.session_ids is None and not selection.latest:
                result.outside_dates += 1  # a record without a usable session_id, outside the dates
    result.session_ids = frozenset(last_line_of)
    result.records = len(numbers)
    peer_index = PeerIndex(with_window)
    del with_window

    # The lines to decide on, each with why its session_id is unusable (None when usable).
    pick: int | None = None
    undecided: list[tuple[int, str | None]]
    if selection.latest:
        pick = next((i for i in range(len(reasons) - 1, -1, -1) if reasons[i] is None), None)
        if pick is not None and sources[pick] is None:
            raise NoEligibleSession(
                sessions_path,
                f"the latest eligible session (line {numbers[pick]}) started outside the selected date range",
                result,
            )
        undecided = [] if pick is None else [(pick, unidentified.get(pick))]
    else:
        undecided = sorted([*((i, None) for i in last_line_of.values()), *unidentified.items()])
    del last_line_of, unidentified

    # Decide every chosen line before reading events. Entries not scored are
    # final now; a scored one gets its place (None) now and its evaluation below.
    entries = result.entries
    to_score = array("q")  # indices of lines, in entry order
    places = array("q")  # where each of them goes in entries
    on_request: dict[int, str] = {}  # index -> the eligibility rule's reason, for sessions named explicitly
    for index, why in undecided:
        sid = ids[index]
        if selection.session_ids is not None and sid not in selection.session_ids:
            continue
        source = sources[index]
        if source is None:  # outside --since/--until
            result.outside_dates += 1
            continue
        if sid is None:
            entries.append(UnidentifiedRecord(numbers[index], why or ""))
            continue
        reason = None if selection.latest or selection.explicit else reasons[index]
        if reason is not None:
            entries.append(SkippedSession(sid, numbers[index], reason))
            continue
        overridden = reasons[index]
        if selection.explicit and overridden is not None:
            on_request[index] = overridden
        to_score.append(index)
        places.append(len(entries))
        entries.append(None)  # type: ignore[arg-type]
    del undecided, reasons, ids
    scored = bytearray(len(numbers))
    for index in to_score:
        scored[index] = 1
    for index, wanted in enumerate(scored):
        if not wanted:
            sources[index] = windows[index] = None
    del scored
    stamps = {stamp: stamp for index in to_score if (stamp := starts[index]) is not None}
    del starts

    stamps_of_events = UnreadableTimestamps(str(events_path))
    events = read_events(events_path, problems, stamps, check_every_event_line, rubric.event_kinds, stamps_of_events)
    result.unreadable_timestamps = [found for found in (stamps_of_sessions, stamps_of_events) if found.count]
    del stamps
    if selection.latest and pick is None:
        raise NoEligibleSession(
            sessions_path,
            "no eligible session to score (every record is abandoned, unfinished, or shows no evidence of work)",
            result,
        )

    score = rubric.score
    share = VerdictPool()
    peers_of = peer_index.peers
    host_class = events.host_class
    for index, place in zip(to_score, places):
        source = sources[index]
        assert source is not None
        decoded = decode_object(source)
        assert type(decoded) is dict
        record = decoded
        sid = record["session_id"]
        window = windows[index]
        kpis = extract_kpis(record, window)
        peers = peers_of(sid, window)
        try:
            dimensions = score(SessionContext(record, window, peers, events, kpis), share)
        except RubricError as exc:
            raise RubricError(f"{sessions_path}:{numbers[index]} (session {sid!r}): {exc}", rubric=exc.rubric) from (
                exc.__cause__
            )
        entries[place] = SessionEvaluation(
            session_id=sid,
            line=numbers[index],
            source=source,
            window=window,
            peers=peers,
            kpis=kpis,
            dimensions=dimensions,
            host_class=host_class(record.get("started_at")),
            on_request=on_request.get(index),
        )
    return result


def score_sessions(
    path: str | Path,
    events: str | Path | None = None,
    *,
    rubric: Rubric = RUBRIC_V1,
    check_every_event_line: bool = True,
) -> list[SessionEvaluation]:
    """Score every eligible session of a ``sessions.jsonl`` (or a directory holding one).

    ``events`` defaults to the ``events.jsonl`` beside it, when there is one. The
    result lists the scored sessions in file order (the order of each session's
    authoritative, last, line). ``check_every_event_line=False`` skips decoding
    event lines no rubric-v1 dimension reads (see ``evaluate``).

    Unusable lines are skipped with one ``InputWarning`` naming the first of them
    (``evaluate`` returns them all). Raises ``OSError`` when a file cannot be read
    and ``ValueError`` when the events file is given as the sessions.
    """
    if not isinstance(rubric, Rubric):
        raise TypeError(f"rubric must be a Rubric (such as RUBRIC_V1), not {rubric!r}")
    sessions_path, events_path = resolve_inputs(Path(path), Path(events) if events else None)
    if events_path is not None and _same_file(sessions_path, events_path):
        raise ValueError(
            f"{sessions_path}: is the events file; give the sessions.jsonl (or the directory holding both)"
        )
    result = evaluate(sessions_path, events_path, rubric=rubric, check_every_event_line=check_every_event_line)
    if result.problems:
        shown = first_few([str(problem) for problem in result.problems], separator="; ")
        warnings.warn(
            InputWarning(
                f"{len(result.problems)} unusable input line(s) skipped: {shown} "
                "(evaluate() lists them all in Evaluation.problems)"
            ),
            stacklevel=2,
        )
    for stamps in result.unreadable_timestamps:
        named = first_few(stamps.named(stamps.path), separator="; ")
        warnings.warn(
            InputWarning(f"{stamps.count} timestamp(s) cannot be read, so their windows or events are lost: {named}"),
            stacklevel=2,
        )
    return result.scored


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False
