"""The telemetry stream, reduced to what rubric-v1 reads and indexed by time.

``events.jsonl`` can hold millions of lines, most of them event kinds no
dimension looks at. Lines are located by byte search and only those that can
name a relevant event (or that use ``\\u`` escapes, which could spell one) are
decoded. Every decoded event is checked by its parsed ``event`` field, so the
byte search only saves work; it never decides a verdict.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import Any, Final

from .jsonl import InputProblem, decode_object, iter_objects
from .sessions import Window
from .timestamps import parse_timestamp_ms

__all__ = [
    "BLOCKED",
    "GATE_EVENTS",
    "LOOP_WARNING",
    "SESSION_STARTED",
    "EventIndex",
    "GateEvent",
    "read_events",
]

GATE_EVENTS: Final = frozenset(
    {"orchestrator.quality_gate.passed", "orchestrator.quality_gate.failed"}
)
BLOCKED: Final = "orchestrator.destructive_guard.blocked"
LOOP_WARNING: Final = "orchestrator.loop.warning"
SESSION_STARTED: Final = "orchestrator.session.started"
FULL_GATE: Final = "full-gate"

# Every relevant event name contains one of these; ``\u`` catches escaped spellings.
_NEEDLES: Final = (b"quality_gate", b"destructive_guard", b"loop.warning", b"session.started", b"\\u")
_CHUNK: Final = 1 << 23
_BOM: Final = b"\xef\xbb\xbf"


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


@dataclass(slots=True)
class EventIndex:
    """Sorted, prefix-summed views of the relevant events: every window query is O(log E)."""

    has_events: bool = False
    _gate_ts: list[int] = field(default_factory=list)
    _gate_failing: list[int] = field(default_factory=lambda: [0])
    _full: list[GateEvent] = field(default_factory=list)
    _full_ts: list[int] = field(default_factory=list)
    _kind_ts: dict[str, list[int]] = field(default_factory=dict)
    _host_class: dict[str, str] = field(default_factory=dict)

    @classmethod
    def build(cls, events: Iterable[tuple[int, dict[str, Any]]], has_events: bool) -> EventIndex:
        """Index ``(line, event)`` pairs given in file order."""
        gates: list[tuple[int, bool]] = []
        full: list[tuple[int, int, GateEvent]] = []
        kinds: dict[str, list[int]] = {BLOCKED: [], LOOP_WARNING: []}
        host_class: dict[str, str] = {}
        for line, event in events:
            name = event.get("event")
            if name == SESSION_STARTED:
                stamp, host = event.get("timestamp"), event.get("host_class")
                if type(stamp) is str and type(host) is str and host.strip():
                    host_class.setdefault(stamp, host)
                continue
            if name in GATE_EVENTS:
                t = parse_timestamp_ms(event.get("timestamp"))
                if t is None:
                    continue
                exit_code = event.get("exit_code")
                gates.append((t, is_exit_zero(exit_code)))
                if event.get("variant") == FULL_GATE:
                    # Ties on time go to the first in file order: sort by (t, -line).
                    full.append((t, -line, GateEvent(t, exit_code, line)))
            elif name in kinds:
                t = parse_timestamp_ms(event.get("timestamp"))
                if t is not None:
                    kinds[name].append(t)  # type: ignore[index]
        gates.sort(key=lambda gate: gate[0])
        full.sort(key=lambda entry: (entry[0], entry[1]))
        for times in kinds.values():
            times.sort()
        index = cls(has_events=has_events)
        index._gate_ts = [t for t, _ in gates]
        index._gate_failing = [0, *accumulate(0 if ok else 1 for _, ok in gates)]
        index._full = [entry[2] for entry in full]
        index._full_ts = [entry[0] for entry in full]
        index._kind_ts = kinds
        index._host_class = host_class
        return index

    @staticmethod
    def _span(times: list[int], window: Window | None) -> tuple[int, int]:
        if window is None or window.end < window.start:
            return 0, 0
        return bisect_left(times, window.start), bisect_right(times, window.end)

    def quality_gates(self, window: Window | None) -> tuple[int, int]:
        """``(gates, failing)`` in the window, gates being both quality_gate kinds."""
        lo, hi = self._span(self._gate_ts, window)
        return hi - lo, self._gate_failing[hi] - self._gate_failing[lo]

    def full_gates(self, window: Window | None) -> tuple[int, GateEvent | None]:
        """``(count, deciding)``: full-gates in the window and the latest one (first on ties)."""
        lo, hi = self._span(self._full_ts, window)
        return hi - lo, (self._full[hi - 1] if hi > lo else None)

    def count(self, kind: str, window: Window | None) -> int:
        """How many ``kind`` events (``BLOCKED`` or ``LOOP_WARNING``) lie in the window."""
        lo, hi = self._span(self._kind_ts.get(kind, []), window)
        return hi - lo

    def host_class(self, started_at: object) -> str | None:
        """``host_class`` of the session.started event stamped exactly ``started_at``."""
        return self._host_class.get(started_at) if type(started_at) is str else None


def _candidate_lines(path: Path, problems: list[InputProblem]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Decode only the lines of ``path`` that can hold a relevant event."""
    line_base = 1
    carry = b""
    first = True
    with open(path, "rb") as stream:
        while True:
            data = stream.read(_CHUNK)
            if data:
                block = carry + data
                cut = block.rfind(b"\n") + 1
                if cut == 0:
                    carry = block
                    continue
                block, carry = block[:cut], block[cut:]
            else:
                block, carry = carry, b""
                if not block:
                    return
            if first:
                first = False
                if block.startswith(_BOM):
                    block = b"   " + block[3:]
            ends: dict[int, int] = {}
            for needle in _NEEDLES:
                pos = block.find(needle)
                while pos >= 0:
                    start = block.rfind(b"\n", 0, pos) + 1
                    end = block.find(b"\n", pos)
                    if end < 0:
                        end = len(block)
                    ends[start] = end
                    pos = block.find(needle, end)
            line = line_base
            previous = 0
            for start in sorted(ends):
                line += block.count(b"\n", previous, start)
                previous = start
                decoded = decode_object(block[start : ends[start]])
                if type(decoded) is str:
                    problems.append(InputProblem(str(path), line, decoded))
                else:
                    yield line, decoded  # type: ignore[misc]
            line_base += block.count(b"\n")
            if not data:
                return


def _holds_an_object(path: Path) -> bool:
    ignored: list[InputProblem] = []
    return next(iter_objects(path, ignored), None) is not None


def read_events(path: Path | None, problems: list[InputProblem]) -> EventIndex:
    """Index ``events.jsonl``; a missing file (``path`` is ``None``) gives an empty index."""
    if path is None:
        return EventIndex()
    found = False

    def tracked() -> Iterator[tuple[int, dict[str, Any]]]:
        nonlocal found
        for entry in _candidate_lines(path, problems):
            found = True
            yield entry

    index = EventIndex.build(tracked(), has_events=False)
    index.has_events = found or _holds_an_object(path)
    return index
