"""The journal's appends under stress (a lock held elsewhere, a full disk) and its seal."""

from __future__ import annotations

import errno
import gzip
import hashlib
import json
import os
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from builders import reference_record

from pytest_sessioneval.core.io import mapped_input
from pytest_sessioneval.records.journal import JournalError, JournalLocked, append_records
from pytest_sessioneval.records.seal import GENESIS, SealReport, check_seal, line_digest, seal_line, seal_path

# A process that takes the journal's lock, says so, and keeps it for ``hold`` seconds.
_HOLDER = """
import fcntl, sys, time
with open(sys.argv[1], "a") as held:
    fcntl.flock(held, fcntl.LOCK_EX)
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))
"""


@pytest.fixture
def hold_lock() -> Iterator[Any]:
    """Hold a journal's lock in another process: ``hold_lock(path, seconds)``."""
    holders: list[subprocess.Popen[str]] = []

    def hold(path: Path, seconds: float) -> subprocess.Popen[str]:
        holder = subprocess.Popen(
            [sys.executable, "-c", _HOLDER, str(path), str(seconds)], stdout=subprocess.PIPE, text=True
        )
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        holders.append(holder)
        return holder

    yield hold
    for holder in holders:
        holder.kill()
        holder.wait()


def _records(*runs: str) -> list[dict[str, Any]]:
    return [reference_record(run_id=run) for run in runs]


def _journal(tmp_path: Path, *appends: tuple[str, ...]) -> Path:
    journal = tmp_path / "eval.jsonl"
    for runs in appends:
        append_records(journal, _records(*runs))
    return journal


def _state(journal: Path) -> tuple[bytes, bytes | None]:
    seal = seal_path(journal)
    return journal.read_bytes(), seal.read_bytes() if seal.exists() else None


# The lock


def test_an_append_waits_for_a_lock_held_elsewhere_as_long_as_it_is_told_then_appends_nothing(
    tmp_path: Path, hold_lock: Any
) -> None:
    journal = _journal(tmp_path, ("r1",))
    before = _state(journal)
    hold_lock(journal, 60)
    told: list[float] = []
    begun = time.monotonic()
    with pytest.raises(JournalLocked, match=r"another process held its lock for 1\.5 s; nothing was appended"):
        append_records(journal, _records("r2"), lock_timeout=1.5, waiting=lambda: told.append(time.monotonic()))
    waited = time.monotonic() - begun
    assert 1.5 <= waited < 5, waited
    assert len(told) == 1 and 1.0 <= told[0] - begun < 1.5  # said once, after a second
    assert _state(journal) == before


def test_an_append_takes_the_lock_once_it_is_released(tmp_path: Path, hold_lock: Any) -> None:
    journal = _journal(tmp_path, ("r1",))
    holder = hold_lock(journal, 1.5)
    told: list[bool] = []
    outcome = append_records(journal, _records("r2"), lock_timeout=30, waiting=lambda: told.append(True))
    assert outcome.written == ["r2"] and told == [True]
    holder.wait()


def test_a_lock_timeout_of_zero_does_not_wait(tmp_path: Path, hold_lock: Any) -> None:
    journal = _journal(tmp_path, ("r1",))
    hold_lock(journal, 60)
    begun = time.monotonic()
    with pytest.raises(JournalLocked):
        append_records(journal, _records("r2"), lock_timeout=0)
    assert time.monotonic() - begun < 1


# All or nothing


def _failing_write(monkeypatch: pytest.MonkeyPatch, name: str, error: int, *, after: int = 0) -> None:
    """``os.write`` to the file called ``name`` writes half its bytes ``after`` writes, then
    fails with ``error``: a disk filling up in the middle of an append."""
    real = os.write
    calls = {"n": 0}

    def write(fd: int, data: Any) -> int:
        if os.path.basename(os.readlink(f"/proc/self/fd/{fd}")) != name:
            return real(fd, data)
        calls["n"] += 1
        if calls["n"] <= after:
            return real(fd, data)
        if calls["n"] == after + 1 and len(data) > 1:
            return real(fd, bytes(data[: len(data) // 2]))  # a short write
        raise OSError(error, os.strerror(error))

    monkeypatch.setattr(os, "write", write)


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="names descriptors through /proc")
@pytest.mark.parametrize("failing", ["eval.jsonl", "eval.jsonl.seal"])
def test_a_full_disk_leaves_the_journal_and_its_seal_as_they_were(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    journal = _journal(tmp_path, ("r1",))
    with open(journal, "ab") as torn:
        torn.write(b'{"record_kind": "session-eval", "run_')  # a crash left it: the append closes it
    before = _state(journal)
    _failing_write(monkeypatch, failing, errno.ENOSPC)
    with pytest.raises(JournalError) as raised:
        append_records(journal, _records("r2", "r3"))
    monkeypatch.undo()
    message = str(raised.value)
    assert "[Errno 28] No space left on device" in message and "nothing was appended" in message, message
    assert _state(journal) == before
    assert append_records(journal, _records("r2", "r3")).written == ["r2", "r3"]  # the next append is whole
    report = check_seal(*_state(journal))  # type: ignore[arg-type]
    assert report.intact and [run.records for run in report.runs] == [1, 2]


def test_a_write_that_writes_nothing_is_an_error_not_a_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    journal = _journal(tmp_path, ("r1",))
    before = _state(journal)
    monkeypatch.setattr(os, "write", lambda fd, data: 0)
    with pytest.raises(JournalError, match="nothing was appended"):
        append_records(journal, _records("r2"))
    monkeypatch.undo()
    assert _state(journal) == before


_LIMITED = """
import resource, signal, sys
sys.path[:0] = sys.argv[3:]
from builders import reference_record
from pathlib import Path
from pytest_sessioneval.records.journal import JournalError, append_records
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]), int(sys.argv[2])))
try:
    append_records(Path(sys.argv[1]), [reference_record(run_id="r2", evidence_pad="x" * 20000)])
except JournalError as exc:
    print(exc)
"""


def test_a_file_size_limit_leaves_the_journal_as_it_was(tmp_path: Path) -> None:
    journal = _journal(tmp_path, ("r1",))
    before = _state(journal)
    limit = journal.stat().st_size + 4096  # room for part of the record
    here = Path(__file__).parent.parent
    done = subprocess.run(
        [sys.executable, "-c", _LIMITED, str(journal), str(limit), str(here)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "[Errno 27] File too large" in done.stdout and "nothing was appended" in done.stdout, done.stdout
    assert _state(journal) == before


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_a_seal_path_that_is_no_file_refuses_the_append_without_waiting(tmp_path: Path, kind: str) -> None:
    journal = _journal(tmp_path, ("r1",))
    seal = seal_path(journal)
    seal.unlink()
    if kind == "fifo":
        os.mkfifo(seal)
    else:
        seal.mkdir()
    before = journal.read_bytes()
    with pytest.raises(JournalError, match=r"seal .*eval\.jsonl\.seal.*nothing was appended"):
        append_records(journal, _records("r2"))
    assert journal.read_bytes() == before


# The seal as written


def test_each_append_adds_a_seal_line_chained_to_the_one_before(tmp_path: Path) -> None:
    journal = tmp_path / "eval.jsonl"
    journal.write_text('{"note": "kept by hand"}\n')  # before any seal: unsealed
    first = append_records(journal, _records("r1", "r2"))
    again = append_records(journal, _records("r1"))  # nothing new: no seal line
    second = append_records(journal, _records("r3"))
    lines = seal_path(journal).read_bytes().splitlines(keepends=True)
    assert len(lines) == 2 and (first.seal_line, again.seal_line, second.seal_line) == (1, 0, 2)
    seals = [json.loads(line) for line in lines]
    data = journal.read_bytes()
    assert seals[0]["previous"] == GENESIS and seals[1]["previous"] == line_digest(lines[0]) == first.head
    assert second.head == hashlib.sha256(lines[1]).hexdigest()
    for seal, count in zip(seals, (2, 1)):
        assert seal["records"] == count
        assert hashlib.sha256(data[seal["start"] : seal["end"]]).hexdigest() == seal["sha256"]
    assert seals[0]["start"] == len('{"note": "kept by hand"}\n') and seals[1]["end"] == len(data)
    report = check_seal(data, seal_path(journal).read_bytes())
    assert report.intact and report.unsealed == (1,) and report.head == second.head


# The seal checked


def _lines(journal: Path) -> list[bytes]:
    return journal.read_bytes().splitlines(keepends=True)


def _check(lines: list[bytes], seal: bytes) -> SealReport:
    return check_seal(b"".join(lines), seal)


def _problems(report: SealReport) -> dict[int, str]:
    return {run.seal_line: run.problem for run in report.runs if run.problem is not None}


@pytest.fixture
def sealed(tmp_path: Path) -> tuple[list[bytes], bytes]:
    """Three runs: two records, one, two."""
    journal = _journal(tmp_path, ("a1", "a2"), ("b1",), ("c1", "c2"))
    return _lines(journal), seal_path(journal).read_bytes()


def test_an_untouched_journal_is_intact(sealed: tuple[list[bytes], bytes]) -> None:
    lines, seal = sealed
    report = _check(lines, seal)
    assert report.intact and not report.unsealed and [run.lines for run in report.runs] == [(1, 2), (3, 3), (4, 5)]


@pytest.mark.parametrize(
    ("tampered", "failing", "said"),
    [
        (
            lambda j: [j[0], j[2], j[3], j[4]],
            1,
            "the journal holds 1 line(s) (line 1) for 2 sealed record(s): a record was deleted",
        ),
        (lambda j: [j[0], j[1], j[2], j[3]], 3, "a record was deleted"),  # from the last run
        (lambda j: [j[0], j[0], j[1], j[2], j[3], j[4]], 1, "(line 1 repeats line 2): a record was duplicated"),
        (lambda j: [j[0], j[1], j[2], j[3], j[3], j[4]], 3, "(line 4 repeats line 5): a record was duplicated"),
        (lambda j: [j[0], j[1], j[2], j[3], j[2], j[4]], 3, "a record was added or duplicated"),
        (lambda j: [j[1], j[0], j[2], j[3], j[4]], 1, "a record was edited, or records were reordered"),
        (lambda j: [j[0], j[1], j[2], j[4], j[3]], 3, "a record was edited, or records were reordered"),
        (lambda j: [j[0], j[1], j[2].replace(b'"pass"', b'"fail"', 1), j[3], j[4]], 2, "edited"),
    ],
    ids=[
        "deleted",
        "deleted-last",
        "duplicated",
        "duplicated-in-run",
        "added-in-run",
        "reordered",
        "reordered-last",
        "edited",
    ],
)
def test_a_record_deleted_duplicated_reordered_or_edited_fails_its_run_alone(
    sealed: tuple[list[bytes], bytes], tampered: Any, failing: int, said: str
) -> None:
    lines, seal = sealed
    report = _check(tampered(lines), seal)
    problems = _problems(report)
    assert list(problems) == [failing], problems
    assert said in problems[failing]


def test_a_copy_of_a_sealed_record_after_the_last_run_is_unsealed_and_named(sealed: tuple[list[bytes], bytes]) -> None:
    lines, seal = sealed
    report = _check([*lines, lines[2]], seal)
    assert report.unsealed == (6,) and report.copies == {6: 3}
    assert "(line 6 repeats line 3): a record was duplicated" in _problems(report)[2]


def test_records_another_tool_appended_between_runs_are_unsealed_not_tampering(
    sealed: tuple[list[bytes], bytes],
) -> None:
    lines, seal = sealed
    other = [json.dumps(reference_record(run_id="elsewhere")).encode() + b"\n", b'{"note": "x"}\n', b"\n"]
    report = _check([lines[0], lines[1], *other, lines[2], lines[3], lines[4], other[0]], seal)
    assert report.intact and report.unsealed == (3, 4, 9) and not report.copies
    assert [run.lines for run in report.runs] == [(1, 2), (6, 6), (7, 8)]


def _seal_lines(seal: bytes) -> list[bytes]:
    return seal.splitlines(keepends=True)


def test_a_missing_seal_line_breaks_the_chain_at_the_next(sealed: tuple[list[bytes], bytes]) -> None:
    lines, seal = sealed
    kept = _seal_lines(seal)
    problems = _problems(_check(lines, kept[0] + kept[2]))
    assert list(problems) == [2] and "does not chain from seal line 1" in problems[2]
    problems = _problems(_check(lines, kept[1] + kept[2]))
    assert list(problems) == [1] and "does not chain from the genesis value" in problems[1]


def test_an_altered_seal_line_fails(sealed: tuple[list[bytes], bytes]) -> None:
    lines, seal = sealed
    kept = _seal_lines(seal)
    altered = [kept[0].replace(b'"records":2', b'"records":3'), kept[1], kept[2]]
    problems = _problems(_check(lines, b"".join(altered)))
    assert list(problems) == [1, 2] and "it says 3 record(s)" in problems[1] and "does not chain" in problems[2]
    altered = [kept[0], kept[1].replace(b'"timestamp":"', b'"timestamp":"1'), kept[2]]
    problems = _problems(_check(lines, b"".join(altered)))
    assert list(problems) == [3] and "does not chain from seal line 2" in problems[3]
    last = [*kept]
    last[2] = last[2].replace(b'"records":2', b'"records":1')  # the last line: nothing chains from it
    problems = _problems(_check(lines, b"".join(last)))
    assert list(problems) == [3] and "it says 1 record(s), but the bytes it seals hold 2 line(s)" in problems[3]
    torn = _problems(_check(lines, b"".join(kept)[:-5]))
    assert list(torn) == [3] and "it is torn" in torn[3]


def test_a_torn_last_seal_line_left_out_of_what_is_read_fails_as_one_read_whole(
    sealed: tuple[list[bytes], bytes],
) -> None:
    # A seal fixed up to its last newline: its torn last line is not read, only counted.
    lines, seal = sealed
    kept = _seal_lines(seal)
    whole = _check(lines, b"".join(kept)[:-5])
    left_out = check_seal(b"".join(lines), b"".join(kept[:2]), torn=len(kept[2]) - 5)
    assert _problems(left_out) == _problems(whole) and len(left_out.runs) == 3
    assert left_out.head == line_digest(kept[1])  # the chain goes on from the last whole line
    assert check_seal(b"".join(lines), b"", torn=9).runs[0].problem == _problems(whole)[3]


def test_no_seal_lines_check_nothing(sealed: tuple[list[bytes], bytes]) -> None:
    lines, _ = sealed
    report = _check(lines, b"")
    assert report.runs == () and report.head is None and report.unsealed == (1, 2, 3, 4, 5)


def test_a_journal_whose_every_record_was_edited_is_checked_in_linear_time() -> None:
    # Each run is looked for where the runs before leave it, then among the lines that hold
    # its first line: never by hashing its length at every line of the journal.
    lines = [json.dumps(reference_record(run_id=f"r{n:04d}")).encode() + b"\n" for n in range(1200)]
    seal, previous, start = [], GENESIS, 0
    for run in range(300):  # as 300 appends of 4 records write them
        held = b"".join(lines[run * 4 : run * 4 + 4])
        digests = {"sha256": hashlib.sha256(held).hexdigest(), "first": hashlib.sha256(lines[run * 4]).hexdigest()}
        seal.append(
            seal_line(start=start, end=start + len(held), records=4, previous=previous, timestamp=None, **digests)
        )
        previous, start = line_digest(seal[-1]), start + len(held)
    assert check_seal(b"".join(lines), b"".join(seal)).intact
    edited = b"".join(lines).replace(b'"pass"', b'"fail"')
    begun = time.monotonic()
    report = check_seal(edited, b"".join(seal))
    elapsed = time.monotonic() - begun
    assert len(_problems(report)) == 300
    assert elapsed < 2, f"{elapsed:.1f} s to check 300 runs"


def test_a_seal_line_a_crash_left_torn_is_cut_off_by_the_next_append(tmp_path: Path) -> None:
    journal = _journal(tmp_path, ("r1",))
    crashed = _records("r2")  # its records written, its seal line cut short
    with open(journal, "ab") as records:
        records.write(json.dumps(crashed[0]).encode() + b"\n")
    with open(seal_path(journal), "ab") as seal:
        seal.write(b'{"seal":1,"start":14')
    torn = _problems(check_seal(*_state(journal)))  # type: ignore[arg-type]
    assert list(torn) == [2] and "it is torn" in torn[2]
    outcome = append_records(journal, _records("r3"))
    assert outcome.seal_line == 2
    report = check_seal(*_state(journal))  # type: ignore[arg-type]
    assert report.intact and len(report.runs) == 2 and report.unsealed == (2,)


def test_an_append_interrupted_in_the_middle_of_a_write_is_cut_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal = _journal(tmp_path, ("r1",))
    before = _state(journal)
    real = os.write

    def interrupted(fd: int, data: Any) -> int:
        real(fd, bytes(data[: len(data) // 2]))
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "write", interrupted)
    with pytest.raises(KeyboardInterrupt):
        append_records(journal, _records("r2"))
    monkeypatch.undo()
    assert _state(journal) == before


def test_a_gzip_journal_is_never_appended_to(tmp_path: Path) -> None:
    journal = tmp_path / "eval.jsonl.gz"
    journal.write_bytes(gzip.compress(json.dumps(reference_record(run_id="r1")).encode() + b"\n"))
    before = journal.read_bytes()
    with pytest.raises(JournalError, match="it is gzip-compressed; records are appended only to a plain journal"):
        append_records(journal, _records("r2"))
    assert journal.read_bytes() == before and not seal_path(journal).exists()


def test_a_journal_is_checked_against_its_seal_mapped_never_read_whole(tmp_path: Path) -> None:
    journal = tmp_path / "eval.jsonl"
    append_records(journal, _records(*(f"r{n}" for n in range(200))))
    journal.write_bytes(journal.read_bytes() + b'{"note": "' + b"x" * (40 << 20) + b'"}\n')  # 40 MiB unsealed
    seal = seal_path(journal).read_bytes()
    tracemalloc.start()
    try:
        with mapped_input(journal) as data:
            report = check_seal(data, seal)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report.intact and len(report.unsealed) == 1
    assert report == check_seal(journal.read_bytes(), seal)  # the same answer as from the bytes
    assert peak < 8 << 20, f"{peak} bytes allocated to check a {journal.stat().st_size}-byte journal"
