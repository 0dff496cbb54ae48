"""No line is read whole past the line limit, and a file in UTF-16 or UTF-32 is said once:
every input goes through core.io's bounded reading (``read_lines``, ``read_blocks``)."""

from __future__ import annotations

import gzip
import random
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from builders import gate, session, write_jsonl

from pytest_sessioneval import evaluate
from pytest_sessioneval.core.io import (
    DEFAULT_MAX_LINE_BYTES,
    max_line_bytes,
    read_blocks,
    read_lines,
    reset_max_line_bytes,
    set_max_line_bytes,
)
from pytest_sessioneval.core.text import byte_size
from pytest_sessioneval.policy.source import read_jsonl
from pytest_sessioneval.records import read_journal
from pytest_sessioneval.report.output import append_to_file


@pytest.fixture
def limit() -> Iterator[int]:
    """A line limit of 1 KiB in force for the test."""
    token = set_max_line_bytes(1024)
    yield 1024
    reset_max_line_bytes(token)


def test_the_default_line_limit_is_64_mib() -> None:
    assert max_line_bytes() == DEFAULT_MAX_LINE_BYTES == 64 << 20


@pytest.mark.parametrize("bad", [0, -1, 1.5, "64"])
def test_a_line_limit_is_a_positive_number_of_bytes(bad: object) -> None:
    with pytest.raises(ValueError, match="positive number of bytes"):
        set_max_line_bytes(bad)  # type: ignore[arg-type]


def test_lines_over_the_limit_in_force_come_as_their_length(tmp_path: Path, limit: int) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"a\n" + b"x" * limit + b"\r\n" + b"y" * (limit + 1) + b"\n" + b"z" * (5 * limit) + b"\nb")
    assert list(read_lines(path)) == [
        (1, b"a\n"),
        (2, b"x" * limit + b"\r\n"),
        (3, limit + 1),
        (4, 5 * limit),
        (5, b"b"),
    ]


@pytest.mark.parametrize(
    ("size", "shown"),
    [(64 << 20, "64 MiB"), (1 << 30, "1 GiB"), (1536 << 10, "1536 KiB"), (1000, "1000 bytes"), (1, "1 byte")],
)
def test_sizes_are_shown_as_people_write_them(size: int, shown: str) -> None:
    assert byte_size(size) == shown


def _random_lines(seed: int, limit: int) -> bytes:
    """Lines of every length around ``limit`` and beyond, ``\\n`` and ``\\r\\n``, maybe no last newline."""
    rng = random.Random(seed)
    lines = []
    for _ in range(rng.randrange(1, 60)):
        size = rng.choice([0, 1, limit - 1, limit, limit + 1, limit + 2, rng.randrange(3 * limit), 9 * limit])
        lines.append(bytes(rng.choice(b"ab\\\r") for _ in range(size)) + rng.choice([b"\n", b"\r\n"]))
    content = b"".join(lines)
    return content if rng.random() < 0.5 else content.rstrip(b"\r\n")


@pytest.mark.parametrize("seed", range(40))
def test_blocks_hold_the_lines_that_read_lines_gives(tmp_path: Path, seed: int) -> None:
    limit = random.Random(seed).choice([5, 64, 300])
    content = _random_lines(seed, limit)
    path = tmp_path / "f.jsonl"
    path.write_bytes(content if seed % 4 else gzip.compress(content))
    expected = [raw for _, raw in read_lines(path, limit)]
    found: list[bytes | int] = []
    for block in read_blocks(path, 64, limit):
        if isinstance(block, int):
            found.append(block)
        else:
            buffer, end = block
            found.extend(bytes(buffer[:end]).splitlines(keepends=True))
    assert _rejoined(found) == expected


def _rejoined(pieces: list[bytes | int]) -> list[bytes | int]:
    """Lines split at every ``\\n`` only (``splitlines`` also splits at a lone ``\\r``)."""
    lines: list[bytes | int] = []
    pending = b""
    for piece in pieces:
        if isinstance(piece, int):
            assert not pending
            lines.append(piece)
            continue
        pending += piece
        if pending.endswith(b"\n"):
            lines.append(pending)
            pending = b""
    if pending:
        lines.append(pending)
    return lines


def test_an_over_long_line_of_the_sessions_is_a_bad_line_and_the_rest_is_read(tmp_path: Path, limit: int) -> None:
    long_one = orjson.dumps(session("long", notes="n" * 2000)).decode()
    sessions = write_jsonl(
        tmp_path / "sessions.jsonl",
        [session("a"), long_one, session("b", "2026-07-21T09:00:00Z", "2026-07-21T10:00:00Z")],
    )
    result = evaluate(sessions, None)
    assert [entry.session_id for entry in result.scored] == ["a", "b"]
    assert [str(problem) for problem in result.problems] == [
        f"{sessions}:2: line is {len(long_one)} bytes, over the 1 KiB limit (--session-eval-max-line-bytes); line skipped"
    ]


@pytest.mark.parametrize("every_line", [True, False], ids=["every-line", "fast"])
def test_both_event_scans_report_an_over_long_event_line_and_read_on(
    tmp_path: Path, limit: int, every_line: bool
) -> None:
    sessions = write_jsonl(tmp_path / "sessions.jsonl", [session("a", total_files_changed=1, waves=[1])])
    long_gate = {**gate("2026-07-20T09:10:00Z", 1, "full-gate"), "output": "o" * 3000}
    events = write_jsonl(
        tmp_path / "events.jsonl",
        [
            gate("2026-07-20T09:20:00Z", 0, "full-gate"),
            long_gate,
            "x" * 5000,
            gate("2026-07-20T09:30:00Z", 0, "full-gate"),
        ],
    )
    result = evaluate(sessions, events, check_every_event_line=every_line)
    messages = [(problem.line, problem.message.split(",")[0]) for problem in result.problems]
    assert messages == [(2, f"line is {len(orjson.dumps(long_gate))} bytes"), (3, "line is 5000 bytes")]
    [scored] = result.scored
    assert "2 full-gate event(s) in window" in scored.dimension("gate-health").evidence


def test_the_fast_scan_skips_a_line_longer_than_its_buffer(tmp_path: Path) -> None:
    sessions = write_jsonl(tmp_path / "sessions.jsonl", [session("a", total_files_changed=1, waves=[1])])
    events = tmp_path / "events.jsonl"
    events.write_bytes(
        orjson.dumps(gate("2026-07-20T09:20:00Z", 0, "full-gate"))
        + b"\n"
        + b"\0" * (9 << 20)
        + b"\n"
        + orjson.dumps(gate("2026-07-20T09:30:00Z", 1, "full-gate"))
        + b"\n"
    )
    token = set_max_line_bytes(1 << 20)
    try:
        for every_line in (True, False):
            result = evaluate(sessions, events, check_every_event_line=every_line)
            assert [(p.line, p.message.split(",")[0]) for p in result.problems] == [(2, f"line is {9 << 20} bytes")]
            assert "the last (events line 3) has exit_code=1" in result.scored[0].dimension("gate-health").evidence
    finally:
        reset_max_line_bytes(token)


def test_a_journal_line_over_the_limit_is_a_bad_line(tmp_path: Path, limit: int) -> None:
    journal = tmp_path / "eval.jsonl"
    journal.write_bytes(b'{"record_kind": "note"}\n' + b"{" * 2000 + b"\n")
    problems: list = []
    assert read_journal(journal, problems) == []
    assert [(p.line, p.message.split(",")[0]) for p in problems] == [(2, "line is 2000 bytes")]


def test_a_markdown_summary_is_appended_without_reading_the_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "summary.md"
    path.write_bytes(b"# earlier\n" + b"x" * (24 << 20))
    tracemalloc.start()
    try:
        append_to_file(path, b"# now\n")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20
    with path.open("rb") as stream:
        assert stream.read(10) == b"# earlier\n"
        stream.seek(-9, 2)
        assert stream.read() == b"x\n\n# now\n"


@pytest.mark.parametrize(
    ("before", "after"), [(None, b"new"), (b"", b"new"), (b"a\n", b"a\n\nnew"), (b"a", b"a\n\nnew")]
)
def test_an_append_starts_after_a_blank_line(tmp_path: Path, before: bytes | None, after: bytes) -> None:
    path = tmp_path / "summary.md"
    if before is not None:
        path.write_bytes(before)
    append_to_file(path, b"new")
    assert path.read_bytes() == after


ENCODINGS = [("utf-16-le", "UTF-16"), ("utf-16-be", "UTF-16"), ("utf-32-le", "UTF-32"), ("utf-32-be", "UTF-32")]


def _encoded(path: Path, encoding: str) -> Path:
    path.write_bytes("\ufeff".encode(encoding) + path.read_text(encoding="utf-8").encode(encoding))
    return path


@pytest.mark.parametrize(("encoding", "name"), ENCODINGS)
def test_a_sessions_file_in_utf16_or_utf32_is_said_once(tmp_path: Path, encoding: str, name: str) -> None:
    sessions = _encoded(write_jsonl(tmp_path / "sessions.jsonl", [session("a"), session("b")]), encoding)
    result = evaluate(sessions, None)
    assert not result.entries
    assert [str(problem) for problem in result.problems] == [
        f"{sessions}:1: file is {name} (it starts with a {name} byte-order mark): save the file as UTF-8; file skipped"
    ]


@pytest.mark.parametrize("every_line", [True, False], ids=["every-line", "fast"])
@pytest.mark.parametrize(("encoding", "name"), ENCODINGS)
def test_an_events_file_in_utf16_or_utf32_is_said_once_and_holds_no_readable_event(
    tmp_path: Path, encoding: str, name: str, every_line: bool
) -> None:
    sessions = write_jsonl(tmp_path / "sessions.jsonl", [session("a", total_files_changed=1, waves=[1])])
    events = _encoded(
        write_jsonl(tmp_path / "events.jsonl", [gate("2026-07-20T09:30:00Z", 0, "full-gate")] * 3), encoding
    )
    result = evaluate(sessions, events, check_every_event_line=every_line)
    assert [(problem.line, problem.message.split(" (")[0]) for problem in result.problems] == [(1, f"file is {name}")]
    [scored] = result.scored
    for dimension in ("verification-evidence", "gate-health", "process-safety"):
        verdict = scored.dimension(dimension)
        assert (verdict.status, verdict.cause) == ("cannot-determine", "no-events")
    assert "no readable event" in scored.dimension("process-safety").evidence


def test_a_journal_in_utf16_is_said_once(tmp_path: Path) -> None:
    journal = _encoded(write_jsonl(tmp_path / "eval.jsonl", [{"record_kind": "session-eval"}] * 3), "utf-16-le")
    problems: list = []
    assert read_journal(journal, problems) == []
    assert [(p.line, p.message.split(" (")[0]) for p in problems] == [(1, "file is UTF-16")]


def test_policy_data_in_utf16_is_one_fault(tmp_path: Path) -> None:
    data = _encoded(write_jsonl(tmp_path / "envelopes.jsonl", [{"a": 1}] * 3), "utf-16-be")
    [fault] = read_jsonl(data)
    assert (fault.line, fault.check) == (1, "utf-8")
    assert fault.message.startswith("starts a file in UTF-16 (it starts with a UTF-16 byte-order mark)")
