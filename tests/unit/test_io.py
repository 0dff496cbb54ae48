"""Inputs are opened in one place (core.io): plain or gzipped, found under either name,
read as lines with or without a bound."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from builders import gate, session, write_jsonl

from pytest_sessioneval import evaluate, resolve_inputs, score_sessions
from pytest_sessioneval.core.io import find_beside, read_lines, spellings
from pytest_sessioneval.records import read_journal


def gzipped(path: Path) -> Path:
    """``path`` compressed to ``path.gz``, and removed."""
    target = path.with_name(path.name + ".gz")
    target.write_bytes(gzip.compress(path.read_bytes()))
    path.unlink()
    return target


def metrics(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    write_jsonl(directory / "sessions.jsonl", [session("a", total_files_changed=1, waves=[1])])
    write_jsonl(directory / "events.jsonl", [gate("2026-07-20T09:30:00Z", 0, "full-gate")])
    return directory


def verdicts(directory: Path) -> list[tuple[str, str]]:
    return [(d.id, d.status) for s in score_sessions(directory) for d in s.dimensions]


def test_a_metrics_directory_of_gzipped_files_scores_as_the_plain_one(tmp_path: Path) -> None:
    plain = verdicts(metrics(tmp_path / "plain"))
    packed = metrics(tmp_path / "packed")
    gzipped(packed / "sessions.jsonl")
    gzipped(packed / "events.jsonl")
    assert resolve_inputs(packed) == (packed / "sessions.jsonl.gz", packed / "events.jsonl.gz")
    assert verdicts(packed) == plain
    assert ("gate-health", "pass") in plain


def test_either_file_may_be_gzipped_alone(tmp_path: Path) -> None:
    plain = verdicts(metrics(tmp_path / "plain"))
    events_packed = metrics(tmp_path / "events-packed")
    gzipped(events_packed / "events.jsonl")
    assert verdicts(events_packed) == plain


def test_gzip_is_told_by_its_bytes_whatever_the_name(tmp_path: Path) -> None:
    directory = metrics(tmp_path / "m")
    sessions = directory / "sessions.jsonl"
    sessions.write_bytes(gzip.compress(sessions.read_bytes()))  # gzipped, under the plain name
    result = evaluate(*resolve_inputs(directory))
    assert not result.problems and [s.session_id for s in result.scored] == ["a"]


def test_the_plain_name_wins_when_both_are_there(tmp_path: Path) -> None:
    directory = metrics(tmp_path / "m")
    (directory / "sessions.jsonl.gz").write_bytes(gzip.compress(b'{"session_id": "other"}\n'))
    assert find_beside(directory, "sessions.jsonl") == directory / "sessions.jsonl"
    assert spellings("events.jsonl") == ("events.jsonl", "events.jsonl.gz")


def test_a_damaged_gzip_stream_is_an_os_error(tmp_path: Path) -> None:
    broken = tmp_path / "sessions.jsonl.gz"
    broken.write_bytes(gzip.compress(b'{"session_id": "a"}\n' * 100)[:40])
    with pytest.raises(OSError, match="damaged gzip data") as caught:
        score_sessions(broken)
    assert caught.value.filename == str(broken)


def test_a_gzipped_journal_is_read(tmp_path: Path) -> None:
    journal = tmp_path / "eval.jsonl"
    journal.write_text('{"record_kind": "session-eval", "run_id": "r", "session_id": "a"}\n{"note": 1}\n')
    problems: list[object] = []
    looked_past: list[int] = []
    records = read_journal(gzipped(journal), problems, looked_past)  # type: ignore[arg-type]
    assert [line for line, _ in records] == [1] and looked_past == [2] and not problems


@pytest.mark.parametrize(
    ("content", "bound", "expected"),
    [
        (b"ab\ncd", None, [(1, b"ab\n"), (2, b"cd")]),
        (b"ab\r\n" + b"x" * 10 + b"\ncd\n", 4, [(1, b"ab\r\n"), (2, 10), (3, b"cd\n")]),
        (b"x" * 5 + b"\r\n", 5, [(1, b"xxxxx\r\n")]),
        (b"x" * 6, 5, [(1, 6)]),
        (b"\xef\xbb\xbfabc\n", 3, [(1, 6)]),
    ],
)
def test_lines_are_read_whole_or_measured(
    tmp_path: Path, content: bytes, bound: int | None, expected: list[object]
) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(content)
    assert list(read_lines(path, bound)) == expected


def test_a_byte_order_mark_is_no_part_of_the_first_line_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"\xef\xbb\xbfabc\nabc\n")
    assert list(read_lines(path, 3, skip_bom=True)) == [(1, b"abc\n"), (2, b"abc\n")]
