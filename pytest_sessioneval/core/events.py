"""The telemetry stream, reduced to what rubric-v1 reads and indexed by time.

``events.jsonl`` can hold millions of lines, most of them event kinds no
dimension looks at. Lines are located by byte search over large blocks and only
those that can name a relevant event (or that use ``\\u`` escapes, which could
spell one) are decoded. Every decoded event is checked by its parsed ``event``
field, so the byte search only saves work; it never decides a verdict.

What is kept is small: the times of gate, guard and loop events in one sorted
list with a prefix count per kind, the full-gate events as three columns, and
the ``host_class`` of session starts (only for the ``started_at`` values asked
for, when the caller says which). No raw line is kept; the file is read into
one reused buffer.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, pairwise
from pathlib import Path
from typing import Any, Final

import orjson

from .io import max_line_bytes, read_blocks
from .jsonl import (
    InputProblem,
    UnreadableTimestamps,
    decode_object,
    encoding_problem,
    iter_lines,
    iter_objects,
    over_the_limit,
)
from .sessions import Window
from .timestamps import parse_timestamp_ms
from .values import is_blank

__all__ = [
    "BLOCKED",
    "GATE_EVENTS",
    "LOOP_WARNING",
    "SESSION_STARTED",
    "EventIndex",
    "GateEvent",
    "read_events",
]

GATE_PASSED: Final = "orchestrator.quality_gate.passed"
GATE_FAILED: Final = "orchestrator.quality_gate.failed"
GATE_EVENTS: Final = frozenset({GATE_PASSED, GATE_FAILED})
BLOCKED: Final = "orchestrator.destructive_guard.blocked"
LOOP_WARNING: Final = "orchestrator.loop.warning"
_COUNTED: Final = (BLOCKED, LOOP_WARNING)  # the standard kinds EventIndex.count answers for
SESSION_STARTED: Final = "orchestrator.session.started"
#: The kinds every index holds: those its own questions (gates, counts, host class) are about.
STANDARD_KINDS: Final = (GATE_PASSED, GATE_FAILED, BLOCKED, LOOP_WARNING, SESSION_STARTED)
_RELEVANT: Final = frozenset(STANDARD_KINDS)
FULL_GATE: Final = "full-gate"

# Every relevant event name contains one of these. A name spelt with ``\u``
# escapes is caught by searching for the backslash (one fast memchr pass) and
# keeping the lines that hold ``\u``.
_NEEDLES: Final = (b"quality_gate", b"session.started", b"destructive_guard", b"loop.warning")
_ESCAPE: Final = b"\\u"
_SLASH_ESCAPE: Final = b"\\/"  # JSON may spell "/" so too: searched for when a kind holds one
_CHUNK: Final = 1 << 22


def is_exit_zero(value: object) -> bool:
    """``exit_code === 0``: only the number zero; ``false``, ``"0"``, ``null``, missing fail."""
    return type(value) in (int, float) and value == 0


@dataclass(frozen=True, slots=True)
class GateEvent:
    """A quality-gate event inside some window: its time, exit code and file position."""

    timestamp_ms: int
    exit_code: Any
    line: int

    @property
    def passed(self) -> bool:
        return is_exit_zero(self.exit_code)


# What a relevant row is, as bit flags (one byte per row while collecting).
_GATE, _FAILING, _FULL, _BLOCKED, _LOOP = 1, 2, 4, 8, 16


class _Collector:
    """Accumulates the relevant facts of events given in file order."""

    __slots__ = (
        "_canonical",
        "_hosts",
        "_stamps",
        "declared",
        "exits",
        "host_class",
        "kinds",
        "lines",
        "times",
        "unreadable",
    )

    def __init__(
        self,
        host_stamps: Collection[str] | None,
        declared: Collection[str] = (),
        unreadable: UnreadableTimestamps | None = None,
    ) -> None:
        # One row per timed event that a window query counts, in file order.
        self.times: list[int] = []
        self.kinds = bytearray()
        self.lines = array("q")
        self.exits: list[Any] = []  # exit_code of gate rows, None for the others
        self.host_class: dict[str, str] = {}
        # The times of each kind a rubric declares beyond the standard ones.
        self.declared: dict[str, list[int]] = {kind: [] for kind in declared if kind not in _RELEVANT}
        self._stamps = host_stamps
        # A mapping gives the caller's own string for each stamp: no second copy is kept.
        self._canonical = host_stamps if isinstance(host_stamps, Mapping) else None
        self._hosts: dict[str, str] = {}
        # The timestamps of timed events that cannot be read (those events are lost).
        self.unreadable = unreadable if unreadable is not None else UnreadableTimestamps("")

    def _unreadable(self, line: int, event: dict[str, Any]) -> None:
        self.unreadable.add(line, "timestamp", event.get("timestamp"))

    def add(self, line: int, event: dict[str, Any]) -> None:
        """Take one decoded event object (``line`` is its 1-based line number)."""
        name = event.get("event")
        # A tuple, not a set: ``event`` may be any JSON value, lists (unhashable) included.
        if name in (GATE_PASSED, GATE_FAILED):
            t = parse_timestamp_ms(event.get("timestamp"))
            if t is None:
                self._unreadable(line, event)
                return
            exit_code = event.get("exit_code")
            kind = type(exit_code)
            flags = _GATE if (kind is int or kind is float) and exit_code == 0 else _GATE | _FAILING  # is_exit_zero
            if event.get("variant") == FULL_GATE:
                flags |= _FULL
            self.exits.append(exit_code)
        elif name == SESSION_STARTED:
            stamp = event.get("timestamp")
            if type(stamp) is not str or (self._stamps is not None and stamp not in self._stamps):
                return
            host = event.get("host_class")
            # The first start with a usable host_class wins.
            if type(host) is str and not is_blank(host) and stamp not in self.host_class:
                if self._canonical is not None:
                    stamp = self._canonical[stamp]
                self.host_class[stamp] = self._hosts.setdefault(host, host)
            return
        elif name in (BLOCKED, LOOP_WARNING):
            t = parse_timestamp_ms(event.get("timestamp"))
            if t is None:
                self._unreadable(line, event)
                return
            flags = _BLOCKED if name == BLOCKED else _LOOP
            self.exits.append(None)
        else:
            times = self.declared.get(name) if type(name) is str else None
            if times is not None:
                t = parse_timestamp_ms(event.get("timestamp"))
                if t is None:
                    self._unreadable(line, event)
                else:
                    times.append(t)
            return
        self.times.append(t)
        self.kinds.append(flags)
        self.lines.append(line)

    def index(self, has_events: bool, has_file: bool = True) -> EventIndex:
        """The sorted, prefix-summed index of what was collected."""
        times, kinds, lines, exits = self.times, self.kinds, self.lines, self.exits
        if not _is_sorted(times):
            # Stable: rows of equal time stay in file order (the full-gate tie rule needs it).
            order = sorted(range(len(times)), key=times.__getitem__)
            times = [times[i] for i in order]
            kinds = bytearray(kinds[i] for i in order)
            lines = array("q", [lines[i] for i in order])
            exits = [exits[i] for i in order]
        full = [i for i, flags in enumerate(kinds) if flags & _FULL]
        index = EventIndex(has_events=has_events, has_file=has_file)
        index._times = times
        index._gates = _prefix_count(kinds, _GATE)
        index._failing = _prefix_count(kinds, _FAILING)
        index._fulls = _prefix_count(kinds, _FULL)
        index._kinds = {BLOCKED: _prefix_count(kinds, _BLOCKED), LOOP_WARNING: _prefix_count(kinds, _LOOP)}
        index._full_ts = [times[i] for i in full]
        index._full_line = array("q", [lines[i] for i in full])
        index._full_exit = [exits[i] for i in full]
        index._host_class = self.host_class
        index._declared = {kind: times if _is_sorted(times) else sorted(times) for kind, times in self.declared.items()}
        return index


def _prefix_count(kinds: bytearray, flag: int) -> array[int]:
    """``counts[i]``: how many of the first ``i`` rows carry ``flag`` (4-byte counts when they fit)."""
    return array(
        "i" if len(kinds) < 1 << 31 else "q",
        accumulate((1 if flags & flag else 0 for flags in kinds), initial=0),
    )


def _is_sorted(values: list[int]) -> bool:
    return all(a <= b for a, b in pairwise(values))


@dataclass(slots=True)
class EventIndex:
    """The relevant events sorted by time, with prefix counts per kind.

    A window is two bisections of one sorted list (done once per window, then
    remembered for the next question about the same window); every count is
    then a difference of prefix counts: O(log E) per window.
    """

    has_events: bool = False  # the events file holds an event object
    has_file: bool = False  # there is an events file
    _times: list[int] = field(default_factory=list)
    _gates: Sequence[int] = field(default_factory=lambda: [0])
    _failing: Sequence[int] = field(default_factory=lambda: [0])
    _fulls: Sequence[int] = field(default_factory=lambda: [0])
    _kinds: dict[str, Sequence[int]] = field(default_factory=dict)
    # The full-gate events in time order (equal times in file order), as three columns.
    _full_ts: list[int] = field(default_factory=list)
    _full_exit: list[Any] = field(default_factory=list)
    _full_line: Sequence[int] = field(default_factory=list)
    _host_class: dict[str, str] = field(default_factory=dict)
    _declared: dict[str, list[int]] = field(default_factory=dict)  # a rubric's own kinds: their sorted times
    _last: tuple[Window | None, int, int] = field(default=(None, 0, 0), compare=False, repr=False)

    @classmethod
    def build(
        cls,
        events: Iterable[tuple[int, dict[str, Any]]],
        has_events: bool,
        host_stamps: Collection[str] | None = None,
        kinds: Collection[str] = (),
    ) -> EventIndex:
        """Index ``(line, event)`` pairs given in file order.

        ``host_stamps``: when given, only session starts stamped with one of these
        strings are remembered for ``host_class`` (a mapping from each string to
        itself lets the index keep the caller's string objects as its keys).
        ``kinds``: event kinds to count beside the standard ones (a rubric's own).
        """
        collector = _Collector(host_stamps, kinds)
        for line, event in events:
            collector.add(line, event)
        return collector.index(has_events)

    def _span(self, window: Window | None) -> tuple[int, int]:
        """``[lo, hi)``: the rows whose time lies in the window."""
        last, lo, hi = self._last
        if window is last and window is not None:
            return lo, hi  # the scorers of one session ask about the same window object
        if window is None or window.end < window.start:
            return 0, 0
        times = self._times
        lo, hi = bisect_left(times, window.start), bisect_right(times, window.end)
        self._last = (window, lo, hi)
        return lo, hi

    def quality_gates(self, window: Window | None) -> tuple[int, int]:
        """``(gates, failing)`` in the window, gates being both quality_gate kinds."""
        lo, hi = self._span(window)
        return self._gates[hi] - self._gates[lo], self._failing[hi] - self._failing[lo]

    def full_gates(self, window: Window | None) -> tuple[int, GateEvent | None]:
        """``(count, deciding)``: full-gates in the window and the latest one (first on ties)."""
        lo, hi = self._span(window)
        first, end = self._fulls[lo], self._fulls[hi]
        if end <= first:
            return 0, None
        # The first, in file order, of the full-gates sharing the greatest time.
        times = self._full_ts
        at = bisect_left(times, times[end - 1], first, end)
        return end - first, GateEvent(times[at], self._full_exit[at], self._full_line[at])

    @property
    def quality_gate_count(self) -> int:
        """The quality-gate events of the whole file (both kinds, any variant)."""
        return self._gates[-1]

    @property
    def full_gate_count(self) -> int:
        """The full-gate events of the whole file."""
        return self._fulls[-1]

    def count(self, kind: str, window: Window | None) -> int:
        """How many ``kind`` events lie in the window: ``BLOCKED``, ``LOOP_WARNING``, or a kind
        the rubric declares (``Rubric.event_kinds``).

        Raises ``ValueError`` for another kind: it is not indexed (gates are asked with
        ``quality_gates`` and ``full_gates``), and a silent 0 would be a guess.
        """
        declared = self._declared.get(kind)
        if declared is not None:
            if window is None or window.end < window.start:
                return 0
            return bisect_right(declared, window.end) - bisect_left(declared, window.start)
        if kind not in _COUNTED:
            counted = [*_COUNTED, *self._declared]
            raise ValueError(
                f"count() counts {', '.join(counted[:-1])} and {counted[-1]} events, not {kind!r}; quality gates "
                "are asked with quality_gates() and full_gates(), and another kind is counted when the rubric "
                "declares it (Rubric.event_kinds)"
            )
        counts = self._kinds.get(kind)
        if counts is None:
            return 0
        lo, hi = self._span(window)
        return counts[hi] - counts[lo]

    def host_class(self, started_at: object) -> str | None:
        """``host_class`` of the session.started event stamped exactly ``started_at``.

        A blank ``started_at`` (JavaScript's trim) names no event, as in the reference.
        """
        if type(started_at) is not str or is_blank(started_at):
            return None
        return self._host_class.get(started_at)


def _scan_every_line(path: Path, problems: list[InputProblem], collector: _Collector) -> bool:
    """Decode every line of ``path``: each broken line is reported, relevant events collected."""
    found = False
    add = collector.add
    relevant = _RELEVANT | collector.declared.keys()
    for line, _, event in iter_lines(path, problems):
        found = True
        name = event.get("event")
        if type(name) is str and name in relevant:  # the others are never indexed: skip the call
            add(line, event)
    return found


def _scan(path: Path, problems: list[InputProblem], collector: _Collector) -> bool:
    """Feed ``collector`` every relevant event of ``path``; whether any line held an object.

    The file is read into one reused buffer, a block of whole lines at a time
    (``read_blocks``: an over-long line is reported, never held).
    In each block every needle is searched with ``bytes.find`` (C speed); each
    hit's line is decoded once, in file order, and lines are counted only up to
    the hits.
    """
    add = collector.add
    # A declared kind is searched for as JSON spells it, escapes included.
    needles = (*_NEEDLES, *(orjson.dumps(kind)[1:-1] for kind in collector.declared))
    escapes = (_ESCAPE, _SLASH_ESCAPE) if any("/" in kind for kind in collector.declared) else (_ESCAPE,)
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    source = str(path)
    max_line = max_line_bytes()
    if (encoded := encoding_problem(path)) is not None:
        problems.append(InputProblem(source, 1, encoded))
        return False
    found = False
    line_base = 1  # number of the first line of the block
    for block in read_blocks(path, _CHUNK, max_line):
        if isinstance(block, int):  # an over-long line, never read whole
            problems.append(InputProblem(source, line_base, over_the_limit(block, max_line)))
            line_base += 1
            continue
        buffer, limit = block
        find, rfind = buffer.find, buffer.rfind
        ends: dict[int, int] = {}
        for needle in needles:
            pos = find(needle, 0, limit)
            while pos >= 0:
                start = rfind(b"\n", 0, pos) + 1
                end = find(b"\n", pos, limit)
                if end < 0:
                    end = limit
                ends[start] = end
                pos = find(needle, end, limit)
        pos = find(b"\\", 0, limit)
        while pos >= 0:
            start = rfind(b"\n", 0, pos) + 1
            end = find(b"\n", pos, limit)
            if end < 0:
                end = limit
            if any(find(escape, pos, end) >= 0 for escape in escapes):
                ends[start] = end
            pos = find(b"\\", end, limit)
        count = buffer.count
        line = line_base
        previous = 0
        for start in sorted(ends):
            line += count(b"\n", previous, start)
            previous = start
            raw = buffer[start : ends[start]]
            try:
                event = loads(raw)
            except decode_error:
                event = None
            if type(event) is not dict:
                # The general decoder: it knows every way a line can fail (or still be read).
                event = decode_object(bytes(raw))
                if type(event) is str:
                    problems.append(InputProblem(source, line, event))
                    continue
            found = True
            add(line, event)
        line_base = line + count(b"\n", previous, limit)
    return found


def _holds_an_object(path: Path) -> bool:
    ignored: list[InputProblem] = []
    return next(iter_objects(path, ignored), None) is not None


def read_events(
    path: Path | None,
    problems: list[InputProblem],
    host_stamps: Collection[str] | None = None,
    check_every_line: bool = True,
    kinds: Collection[str] = (),
    unreadable: UnreadableTimestamps | None = None,
) -> EventIndex:
    """Index ``events.jsonl``; a missing file (``path`` is ``None``) gives an empty index.

    ``host_stamps``: when given, ``host_class`` is remembered only for session
    starts stamped with one of these strings (the ``started_at`` values that
    will be asked about), which keeps the index small.
    ``check_every_line``: decode every line, so that every broken line is
    reported (the default). When false, only lines that can name a relevant
    event are decoded: verdicts are the same, it is faster, but a broken line
    of another event kind goes unreported.
    ``kinds``: event kinds to count beside the standard ones (``Rubric.event_kinds``).
    ``unreadable``: where the timestamps of timed events that cannot be read are counted.
    """
    collector = _Collector(host_stamps, kinds, unreadable)
    if path is None:
        return collector.index(False, has_file=False)
    found = (_scan_every_line if check_every_line else _scan)(path, problems, collector)
    return collector.index(found or _holds_an_object(path))
