"""A run's inputs fixed once: a prefix by its length and digest, read as it was or refused."""

from __future__ import annotations

import gzip
import hashlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_sessioneval.core import io as io_module
from pytest_sessioneval.core import snapshot as snapshot_module
from pytest_sessioneval.core.io import read_bytes, read_lines
from pytest_sessioneval.core.snapshot import InputChanged, Snapshot, hold, key, measure, measure_with

fcntl = pytest.importorskip("fcntl")


@pytest.fixture
def holding() -> Iterator[dict[str, Snapshot]]:
    snapshots: dict[str, Snapshot] = {}
    before = hold(snapshots)
    yield snapshots
    hold(before)


def test_a_file_measured_whole(tmp_path: Path) -> None:
    path = tmp_path / "sessions.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": 2}')  # no newline at the end: a sessions file is taken whole
    assert measure(path) == Snapshot(17, hashlib.sha256(path.read_bytes()).hexdigest())


def test_a_journal_measured_up_to_its_last_newline(tmp_path: Path) -> None:
    path = tmp_path / "eval.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": 2}\n{"c"')
    assert measure(path, whole_lines=True) == Snapshot(18, hashlib.sha256(b'{"a": 1}\n{"b": 2}\n').hexdigest(), 4)
    path.write_bytes(b'{"c"')
    assert measure(path, whole_lines=True) == Snapshot(0, hashlib.sha256(b"").hexdigest(), 4)


def test_a_gzipped_journal_is_measured_whole(tmp_path: Path) -> None:
    path = tmp_path / "eval.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"a": 1}\n'))
    assert measure(path, whole_lines=True).length == path.stat().st_size


def test_a_file_that_grew_is_read_up_to_its_fixed_length(tmp_path: Path, holding: dict[str, Snapshot]) -> None:
    path = tmp_path / "sessions.jsonl"
    path.write_bytes(b"one\ntwo\n")
    holding[key(path)] = measure(path)
    with path.open("ab") as stream:
        stream.write(b"three\n")
    assert [line for _, line in read_lines(path)] == [b"one\n", b"two\n"]
    assert read_bytes(path) == b"one\ntwo\n"


def test_a_gzipped_file_held_is_read_whole(tmp_path: Path, holding: dict[str, Snapshot]) -> None:
    path = tmp_path / "sessions.jsonl.gz"
    path.write_bytes(gzip.compress(b"one\ntwo\n"))
    holding[key(path)] = measure(path)
    assert read_bytes(path) == b"one\ntwo\n"


def test_a_file_rewritten_in_place_is_refused(tmp_path: Path, holding: dict[str, Snapshot]) -> None:
    path = tmp_path / "sessions.jsonl"
    path.write_bytes(b"one\ntwo\n")
    holding[key(path)] = measure(path)
    path.write_bytes(b"one\nTWO\nthree\n")  # the same length and more, other bytes
    with pytest.raises(InputChanged, match="its first 8 bytes are not those it held") as raised:
        list(read_lines(path))
    assert raised.value.filename == str(path)


def test_a_file_cut_is_refused(tmp_path: Path, holding: dict[str, Snapshot]) -> None:
    path = tmp_path / "sessions.jsonl"
    path.write_bytes(b"one\ntwo\n")
    holding[key(path)] = measure(path)
    path.write_bytes(b"one\n")
    with pytest.raises(InputChanged, match="4 bytes long now, shorter than the 8 bytes") as raised:
        read_bytes(path)
    assert raised.value.filename == str(path)


def test_a_held_file_is_found_under_another_spelling(tmp_path: Path, holding: dict[str, Snapshot]) -> None:
    path = tmp_path / "sessions.jsonl"
    path.write_bytes(b"one\n")
    holding[key(path)] = measure(path)
    (tmp_path / "link.jsonl").symlink_to(path)
    (tmp_path / "sub").mkdir()
    path.write_bytes(b"one\ntwo\n")
    assert read_bytes(tmp_path / "sub" / ".." / "link.jsonl") == b"one\n"


def test_a_journal_is_measured_once_an_append_lets_go_of_it(tmp_path: Path) -> None:
    path = tmp_path / "eval.jsonl"
    path.write_bytes(b'{"a": 1}\n')
    locked = threading.Event()

    def append() -> None:
        with path.open("ab") as stream:
            fcntl.flock(stream.fileno(), fcntl.LOCK_EX)
            locked.set()
            stream.write(b'{"b"')
            stream.flush()
            time.sleep(0.2)
            stream.write(b": 2}\n")
            stream.flush()

    writer = threading.Thread(target=append)
    writer.start()
    locked.wait()
    snapshot = measure(path, whole_lines=True, lock_timeout=5)
    writer.join()
    assert snapshot.length == len(b'{"a": 1}\n{"b": 2}\n') and snapshot.left_out == 0


def test_a_journal_locked_too_long_is_measured_up_to_its_last_newline(tmp_path: Path) -> None:
    path = tmp_path / "eval.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b"')
    with path.open("ab") as stream:
        fcntl.flock(stream.fileno(), fcntl.LOCK_EX)
        assert measure(path, whole_lines=True, lock_timeout=0.05) == measure(path, whole_lines=True)
    assert measure(path, whole_lines=True).length == len(b'{"a": 1}\n')


def test_a_journal_and_its_seal_are_measured_in_one_go_under_the_lock(tmp_path: Path) -> None:
    path, seal = tmp_path / "eval.jsonl", tmp_path / "eval.jsonl.seal"
    path.write_bytes(b'{"a": 1}\n')
    seal.write_bytes(b'{"seal": 1}\n')
    locked = threading.Event()

    def append() -> None:  # a run's records, then its seal line, under the journal's lock
        with path.open("ab") as stream:
            fcntl.flock(stream.fileno(), fcntl.LOCK_EX)
            locked.set()
            stream.write(b'{"b": 2}\n')
            stream.flush()
            time.sleep(0.2)
            with seal.open("ab") as sealing:
                sealing.write(b'{"seal": 2}\n')

    writer = threading.Thread(target=append)
    writer.start()
    locked.wait()
    snapshot, beside = measure_with(path, seal, lock_timeout=5)
    writer.join()
    assert snapshot == measure(path, whole_lines=True) and beside == measure(seal, whole_lines=True)
    assert beside is not None and beside.length == len(b'{"seal": 1}\n{"seal": 2}\n')


def test_a_seal_measured_without_the_lock_is_measured_before_its_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With the lock not had, the seal comes first: a seal line measured follows its records.
    path, seal = tmp_path / "eval.jsonl", tmp_path / "eval.jsonl.seal"
    path.write_bytes(b'{"a": 1}\n')
    seal.write_bytes(b'{"seal": 1}\n{"seal": 2, "torn')
    real = snapshot_module._measure
    measured_before: list[Snapshot] = []

    def measured(stream: Any, whole_lines: bool) -> Snapshot:
        taken = real(stream, whole_lines)
        if not measured_before:  # the seal measured: an append's records land now (its seal line next)
            with path.open("ab") as journal:
                journal.write(b'{"b": 2}\n')
        measured_before.append(taken)
        return taken

    monkeypatch.setattr(snapshot_module, "_measure", measured)
    with path.open("ab") as stream:
        fcntl.flock(stream.fileno(), fcntl.LOCK_EX)
        snapshot, beside = measure_with(path, seal, lock_timeout=0.05)
    # Its last line, without a newline, may be being written: it is not counted as torn.
    assert beside == Snapshot(len(b'{"seal": 1}\n'), hashlib.sha256(b'{"seal": 1}\n').hexdigest())
    assert snapshot.length == len(b'{"a": 1}\n{"b": 2}\n')
    _, beside = measure_with(path, seal, lock_timeout=0.05)  # under the lock: a crash left it torn
    assert beside is not None and beside.left_out == len(b'{"seal": 2, "torn')


@pytest.mark.parametrize("what", ["nothing", "fifo", "directory", "fifo-in-the-place-of-a-file"])
def test_a_seal_that_is_no_file_is_held_as_what_it_is_and_never_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, what: str
) -> None:
    path, seal = tmp_path / "eval.jsonl", tmp_path / "eval.jsonl.seal"
    path.write_bytes(b'{"a": 1}\n')
    if what.startswith("fifo"):
        os.mkfifo(seal)
    elif what == "directory":
        seal.mkdir()
    if what == "fifo-in-the-place-of-a-file":  # it was a file when looked at, a FIFO when opened
        monkeypatch.setattr(io_module, "stat_kind", lambda _: "file")
    _, beside = measure_with(path, seal, lock_timeout=1)  # (opening a FIFO would wait for good)
    kind = {"nothing": None, "fifo": "other", "directory": "dir", "fifo-in-the-place-of-a-file": "other"}[what]
    assert beside == Snapshot(0, hashlib.sha256(b"").hexdigest(), 0, kind)
    assert Snapshot.from_wire(beside.to_wire()) == beside


def test_a_held_file_replaced_by_a_fifo_is_refused_not_waited_on(tmp_path: Path, holding: dict[str, Snapshot]) -> None:
    path = tmp_path / "eval.jsonl.seal"
    path.write_bytes(b"one\n")
    holding[key(path)] = measure(path)
    path.unlink()
    os.mkfifo(path)
    with pytest.raises(InputChanged, match="it is no longer a file"):
        read_bytes(path)
