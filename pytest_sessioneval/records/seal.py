"""The journal's seal: a hash chain over the runs that appended to it, kept beside it.

A journal holds records alone (every line of it is read as a record by other engines), so
what makes it tamper-evident lives in a file of its own, ``<journal>.seal``: one JSON line
per run that appended records, written under the journal's lock with the records::

    {"seal":1,"start":0,"end":5210,"records":2,"sha256":"…","first":"…","previous":"000…000","timestamp":"…"}

``start`` and ``end`` are the byte range of that run's records in the journal, ``records``
how many lines they are, ``sha256`` the digest of those bytes, ``first`` the digest of the
first of those lines (which finds them when lines before them were added or removed), and
``previous`` the digest of the seal line before (its bytes, newline included), ``GENESIS``
for the first. The
digest of the last seal line is the chain head: kept elsewhere, it vouches for every run.

``check_seal`` tells, per seal line, whether the run's records are in the journal as
sealed and the line chains from the one before, and which journal lines no seal covers.
Pure: bytes in, a report out.
"""

from __future__ import annotations

import hashlib
import json
import mmap
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

__all__ = [
    "GENESIS",
    "SEAL_SUFFIX",
    "RunCheck",
    "SealReport",
    "check_seal",
    "line_digest",
    "seal_line",
    "seal_path",
]

#: What the first seal line chains from.
_BLOCK: Final = 1 << 16  # a line is looked at this many bytes at a time

GENESIS: Final = "0" * 64
#: The seal of ``eval.jsonl`` is ``eval.jsonl.seal``.
SEAL_SUFFIX: Final = ".seal"
_VERSION: Final = 1
#: Why a last seal line without a newline is no seal line.
TORN: Final = "it is torn (no newline ends it: a crash cut its write; the next append removes it)"
_HEX: Final = frozenset("0123456789abcdef")


def seal_path(journal: Path) -> Path:
    """Where the seal of ``journal`` is kept: beside it, ``<journal>.seal``."""
    return journal.with_name(journal.name + SEAL_SUFFIX)


def line_digest(raw: bytes) -> str:
    """The digest a seal line is chained by: sha256 of its bytes, newline included
    (``tail -n 1 eval.jsonl.seal | sha256sum`` gives the chain head)."""
    return hashlib.sha256(raw).hexdigest()


def seal_line(
    *, start: int, end: int, records: int, sha256: str, first: str, previous: str, timestamp: str | None
) -> bytes:
    """One run's seal line, newline included."""
    entry: dict[str, Any] = {
        "seal": _VERSION,
        "start": start,
        "end": end,
        "records": records,
        "sha256": sha256,
        "first": first,
        "previous": previous,
        "timestamp": timestamp,
    }
    return json.dumps(entry, separators=(",", ":"), ensure_ascii=True).encode() + b"\n"


@dataclass(frozen=True, slots=True)
class _Seal:
    line: int
    start: int
    end: int
    records: int
    sha256: str
    first: str | None
    previous: str
    timestamp: str | None


@dataclass(frozen=True, slots=True)
class RunCheck:
    """One seal line checked: the run it seals, the journal lines its records are on (found,
    or where they should be), and what is wrong (``None``: intact)."""

    seal_line: int
    timestamp: str | None
    records: int | None
    lines: tuple[int, int] | None
    problem: str | None

    @property
    def run(self) -> str:
        """The run, named as a message names it."""
        when = f", the run of {self.timestamp}" if self.timestamp else ""
        count = f", {self.records} record(s)" if self.records is not None else ""
        return f"seal line {self.seal_line}{when}{count}"


@dataclass(frozen=True)
class SealReport:
    """A journal checked against its seal: one ``RunCheck`` per seal line, the journal lines
    (not blank) that no seal covers, and of those the ones repeating a sealed line
    (``copies``: unsealed line -> sealed line). ``head``: the digest of the last seal line
    read, ``head_line`` (a torn line left out is none)."""

    runs: tuple[RunCheck, ...]
    unsealed: tuple[int, ...] = ()
    copies: dict[int, int] = field(default_factory=dict)
    head: str | None = None
    head_line: int = 0

    @property
    def intact(self) -> bool:
        return all(run.problem is None for run in self.runs)


def _split(data: bytes | mmap.mmap) -> list[int]:
    """The offset where each line of ``data`` starts."""
    starts = []
    position = 0
    while position < len(data):
        starts.append(position)
        found = data.find(b"\n", position)
        if found == -1:
            break
        position = found + 1
    return starts


def _parse(number: int, raw: bytes) -> _Seal | str:
    """A seal line read, or why it is none."""
    if not raw.endswith(b"\n"):
        return TORN
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        return f"it is not JSON ({exc})"
    if not isinstance(value, dict):
        return "it is not a JSON object"
    numbers = {}
    for name in ("start", "end", "records"):
        held = value.get(name)
        if type(held) is not int or held < 0:
            return f"{name} is not a non-negative integer"
        numbers[name] = held
    if numbers["end"] < numbers["start"]:
        return "its end is before its start"
    digests = {}
    for name in ("sha256", "previous"):
        held = value.get(name)
        if not isinstance(held, str) or len(held) != 64 or not set(held) <= _HEX:
            return f"{name} is not a sha256 digest (64 lower-case hex digits)"
        digests[name] = held
    first = value.get("first")
    if first is not None and not (isinstance(first, str) and len(first) == 64 and set(first) <= _HEX):
        return "first is not a sha256 digest (64 lower-case hex digits)"
    timestamp = value.get("timestamp")
    return _Seal(
        number,
        numbers["start"],
        numbers["end"],
        numbers["records"],
        digests["sha256"],
        first,
        digests["previous"],
        timestamp if isinstance(timestamp, str) else None,
    )


class _Journal:
    """The journal's bytes with its lines indexed."""

    def __init__(self, data: bytes | mmap.mmap) -> None:
        self.data = data
        self.starts = _split(data)
        self.boundaries = {*self.starts, len(data)}
        self._by_digest: dict[str, list[int]] | None = None  # a line's digest -> where lines holding it start

    def line_of(self, offset: int) -> int:
        """The 1-based line holding ``offset``."""
        return bisect_right(self.starts, offset)

    def lines_in(self, begin: int, end: int) -> list[int]:
        """The lines that start in ``[begin, end)``, blank ones left out."""
        first = bisect_left(self.starts, begin)
        last = bisect_left(self.starts, end)
        return [index + 1 for index in range(first, last) if not self.blank(index + 1)]

    def span(self, line: int) -> tuple[int, int]:
        """Where the 1-based ``line`` starts and ends (after its newline)."""
        return self.starts[line - 1], self.starts[line] if line < len(self.starts) else len(self.data)

    def text_digest(self, line: int) -> str:
        """The sha256 of ``line`` without the line breaks it ends with."""
        start, end = self.span(line)
        while end > start and self.data[end - 1] in (0x0A, 0x0D):
            end -= 1
        return _sha256(self.data, start, end)

    def blank(self, line: int) -> bool:
        """Whether ``line`` holds nothing but white space, looked at a block at a time."""
        start, end = self.span(line)
        return not any(self.data[at : min(end, at + _BLOCK)].strip() for at in range(start, end, _BLOCK))

    def holds(self, seal: _Seal, at: int) -> bool:
        """Whether the sealed bytes are whole lines at offset ``at``."""
        end = at + seal.end - seal.start
        return (
            at in self.boundaries
            and end in self.boundaries
            and end <= len(self.data)
            and _sha256(self.data, at, end) == seal.sha256
        )

    def find(self, seal: _Seal, expected: int, after: int) -> int | None:
        """Where the sealed bytes are: at ``expected`` (where the runs before leave them),
        else at the first line from ``after`` on that holds them, looked for among the lines
        that hold the first sealed line (each line is hashed once, for every seal)."""
        if expected >= after and self.holds(seal, expected):
            return expected
        if seal.first is None:
            return None
        if self._by_digest is None:
            self._by_digest = {}
            for line, start in enumerate(self.starts, 1):
                self._by_digest.setdefault(_sha256(self.data, *self.span(line)), []).append(start)
        candidates = self._by_digest.get(seal.first, [])
        for at in candidates[bisect_left(candidates, after) :]:
            if self.holds(seal, at):
                return at
        return None


def _sha256(data: bytes | mmap.mmap, start: int, end: int) -> str:
    """The sha256 of ``data[start:end]``, read in place (a run's records are never copied)."""
    with memoryview(data) as whole, whole[start:end] as part:
        return hashlib.sha256(part).hexdigest()


def check_seal(journal: bytes | mmap.mmap, seal: bytes, *, torn: int = 0) -> SealReport:
    """Check ``journal`` (its bytes) against its ``seal`` (the seal file's bytes). ``torn``:
    how many bytes after the last newline of ``seal`` were left out of it (a last line
    without a newline, which is torn as one read whole is)."""
    text = _Journal(journal)
    raws = [seal[start:end] for start, end in _pairs(_split(seal), len(seal))]
    parsed: list[_Seal | str] = [_parse(number, raw) for number, raw in enumerate(raws, 1)]
    chained = list(raws)  # the lines of the chain: a torn line left out is none
    if torn and (not raws or raws[-1].endswith(b"\n")):
        raws.append(b"")  # (its bytes are not read: nothing chains from it)
        parsed.append(TORN)
    problems: dict[int, list[str]] = {number: [] for number in range(1, len(raws) + 1)}
    # The chain: each line names the digest of the one before.
    for number, entry in enumerate(parsed, 1):
        if isinstance(entry, str):
            problems[number].append(f"it is no seal line: {entry}")
            continue
        expected = GENESIS if number == 1 else line_digest(raws[number - 2])
        if entry.previous != expected:
            problems[number].append(
                "it does not chain from the genesis value: seal lines before it were removed"
                if number == 1
                else f"it does not chain from seal line {number - 1} (it names {entry.previous}, that line "
                f"hashes to {expected}): a seal line before it was altered, removed or inserted"
            )
    # The runs, in order: each sealed range found where the runs before leave it, or further on.
    found: dict[int, tuple[int, int]] = {}  # seal line -> byte range found
    # Seal lines whose records were not found, in groups, each with the bytes between the runs
    # found around it: where its records should be.
    lost: list[tuple[list[int], int, int]] = []
    unsealed_ranges: list[tuple[int, int]] = []
    cursor, shift = 0, 0
    pending: list[int] = []
    for number, entry in enumerate(parsed, 1):
        if isinstance(entry, str):
            pending.append(number)
            continue
        at = text.find(entry, entry.start + shift, cursor)
        if at is None:
            pending.append(number)
            continue
        if pending:
            lost.append((pending, cursor, at))
            pending = []
        elif at > cursor:
            unsealed_ranges.append((cursor, at))
        found[number] = (at, at + entry.end - entry.start)
        cursor, shift = at + entry.end - entry.start, at - entry.start
    if pending:
        lost.append((pending, cursor, len(journal)))
    elif cursor < len(journal):
        unsealed_ranges.append((cursor, len(journal)))
    lines: dict[int, tuple[int, int] | None] = {}
    for number, (begin, end) in found.items():
        entry = parsed[number - 1]
        assert not isinstance(entry, str)
        count = len(_lines_of(text, begin, end))
        lines[number] = (text.line_of(begin), text.line_of(end - 1)) if end > begin else None
        if count != entry.records:
            problems[number].append(
                f"it says {entry.records} record(s), but the bytes it seals hold {count} line(s): "
                "the seal line was altered"
            )
    for group, begin, end in lost:
        held = text.lines_in(begin, end)
        lines_span = (held[0], held[-1]) if held else None
        where = "" if not held else f" (line {held[0]})" if len(held) == 1 else f" (lines {held[0]}-{held[-1]})"
        sealed = [parsed[number - 1] for number in group]
        counts = [entry.records for entry in sealed if not isinstance(entry, str)]
        for number in group:
            lines[number] = lines_span
            entry = parsed[number - 1]
            if isinstance(entry, str):
                continue  # its own problem says it is no seal line
            together = (
                f" (with seal line(s) {', '.join(str(n) for n in group if n != number)})" if len(group) > 1 else ""
            )
            told = (
                f"its records (journal bytes {entry.start}-{entry.end}, sha256 {entry.sha256}) are not in the "
                f"journal as sealed: where they belong{together}, the journal holds {len(held)} line(s){where} "
                f"for {sum(counts)} sealed record(s)"
            )
            if len(counts) == len(group):
                total = sum(counts)
                if len(held) < total:
                    told += ": a record was deleted"
                elif len(held) > total:
                    told += ": a record was added or duplicated"
                else:
                    told += ": a record was edited, or records were reordered"
            problems[number].append(told)
    unsealed = [line for begin, end in unsealed_ranges for line in text.lines_in(begin, end)]
    # A sealed record repeated where no seal covers it was duplicated: that fails the run
    # whose record it repeats (the run is intact, but the journal holds its record twice).
    copies: dict[int, int] = {}
    if unsealed:
        sealed_lines: dict[str, tuple[int, int]] = {}  # a sealed line's text (digest) -> (its line, its seal line)
        for number, (begin, end) in found.items():
            for line in _lines_of(text, begin, end):
                sealed_lines.setdefault(text.text_digest(line), (line, number))
        repeated: dict[int, list[str]] = {}
        for line in unsealed:
            original = sealed_lines.get(text.text_digest(line))
            if original is not None:
                copies[line] = original[0]
                repeated.setdefault(original[1], []).append(f"line {line} repeats line {original[0]}")
        for number, repeats in repeated.items():
            problems[number].append(
                f"a record of this run is in the journal again, where no seal covers it ({', '.join(repeats)}): "
                "a record was duplicated"
            )
    runs = []
    for number, entry in enumerate(parsed, 1):
        told_problems = problems[number]
        runs.append(
            RunCheck(
                number,
                None if isinstance(entry, str) else entry.timestamp,
                None if isinstance(entry, str) else entry.records,
                lines.get(number),
                "; ".join(told_problems) if told_problems else None,
            )
        )
    return SealReport(
        tuple(runs),
        tuple(unsealed),
        copies,
        head=line_digest(chained[-1]) if chained else None,
        head_line=len(chained),
    )


def _pairs(starts: list[int], size: int) -> list[tuple[int, int]]:
    return list(zip(starts, [*starts[1:], size]))


def _lines_of(text: _Journal, begin: int, end: int) -> list[int]:
    """Every line that starts in ``[begin, end)``, blank ones too."""
    return list(range(bisect_left(text.starts, begin) + 1, bisect_left(text.starts, end) + 1))
