"""The eval journal: an append-only ``eval.jsonl`` of session-eval records.

Appends are whole lines written on an ``O_APPEND`` descriptor under an exclusive
``flock``, then fsynced: concurrent writers cannot interleave and a reader never
sees half a record of a finished append. An append is all or nothing: when a write
fails (a full disk, a file size limit), the journal and its seal are cut back to
their length before it. If an earlier crash left a torn last line, the next append
starts on a fresh line, so the damage stays on that one line (reported as a bad line
when read) and never spreads. Each append adds a line to the journal's seal
(``seal``), under the same lock.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import orjson

from ..core.engine import SESSIONS_FILE
from ..core.io import GZIP_MAGIC, is_named, read_lines
from ..core.jsonl import InputProblem, first_named, iter_objects, opens_json_document
from ..core.locks import wait_for_lock
from ..core.values import is_blank
from .schema import RECORD_KIND, InvalidRecord, validate_record
from .seal import GENESIS, line_digest, seal_line, seal_path

__all__ = [
    "AppendOutcome",
    "JournalError",
    "JournalLocked",
    "append_records",
    "foreign_to_journal",
    "is_journal",
    "is_other_object",
    "read_journal",
]


class JournalError(Exception):
    """The journal cannot be read or written."""


class JournalLocked(JournalError):
    """Another process held the journal's lock for longer than the append would wait."""


@dataclass
class AppendOutcome:
    """What an append did: records written, records already present, records refused and why."""

    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    seal_line: int = 0  # the line of the seal that seals the records written (0: none written)
    head: str | None = None  # the digest of that line: the seal's chain head


def read_journal(
    path: Path, problems: list[InputProblem], looked_past: list[int] | None = None
) -> list[tuple[int, dict[str, Any]]]:
    """``(line, record)`` for every line that is, or was meant to be, a session-eval record.

    Lines that are no JSON object go to ``problems``. Objects that a journal may hold
    besides its records (``is_other_object``: a header, a note, a record of another
    kind) are not records: their lines go to ``looked_past``.
    """
    records = []
    for line, value in iter_objects(path, problems):
        if is_other_object(value):
            if looked_past is not None:
                looked_past.append(line)
        else:
            records.append((line, value))
    return records


def is_other_object(value: dict[str, Any]) -> bool:
    """Whether an object of a journal is something else than a session-eval record.

    That is an object naming neither a kind nor a run, a session or dimensions (a
    header, a note), or a record of another kind (a string ``record_kind`` other than
    ``session-eval``) that names no session and holds no dimensions. Anything else is a
    record, damaged when it is invalid: one that lost its ``record_kind``, has one that
    is no string, or names a session or dimensions under another kind (a typo, say).
    """
    if "record_kind" not in value:
        return not any(sign in value for sign in ("run_id", "session_id", "dimensions"))
    kind = value["record_kind"]
    return type(kind) is str and kind != RECORD_KIND and "session_id" not in value and "dimensions" not in value


def is_journal(path: Path) -> bool:
    """A file is a journal when its first object that names a kind or a session names a kind.

    Journal records carry ``record_kind``; session records carry ``session_id`` and
    never ``record_kind``. Objects with neither (a header, a note) are looked past.
    A file named ``sessions.jsonl`` is sessions whatever it holds, as it is when its
    directory is given.
    """
    if is_named(path, SESSIONS_FILE):
        return False
    try:
        return first_named(path, ("record_kind", "session_id")).key == "record_kind"
    except OSError:
        return False


def foreign_to_journal(path: Path) -> str | None:
    """Why records must not be appended to the existing file ``path``; ``None`` when they may.

    They may go to an empty file, a journal, or a file of other JSON objects (notes);
    not to sessions, events or policy data (envelopes, decisions), nor to a JSON
    document spread over lines (a golden set, a manifest), nor to a file holding text
    but no JSON object (a page). Raises ``OSError`` when the file cannot be read.
    """
    if is_named(path, SESSIONS_FILE):
        return "a sessions file"
    if opens_json_document(path):
        return "it holds a JSON document over several lines, not one JSON object per line"
    # An event may name its session too: "event" decides first.
    named = first_named(path, ("record_kind", *_FOREIGN_KEYS))
    if named.key in _FOREIGN_KEYS:
        return f"{_FOREIGN_KEYS[named.key]}: line {named.line} names {named.key}"
    if named.any_object:
        return None
    # No object read whole: fine when empty, or when a line begins like one (a record a
    # crashed writer left torn, which the append closes); not when it holds other text.
    text = False
    for _, raw in read_lines(path):
        if isinstance(raw, int):  # over the line limit: text, read no further
            text = True
            continue
        line = raw.strip()
        if line.startswith(b"{"):
            return None
        text = text or bool(line)
    return "it holds no JSON object line" if text else None


# What the first object that names one of these keys shows a file to be.
_FOREIGN_KEYS: Final = {
    "event": "it holds events",
    "session_id": "it holds session records",
    "scenario_id": "it holds policy decisions",
    "prompt_or_scenario": "it holds policy envelopes",
}


def _json(record: dict[str, Any], *, sort_keys: bool = False) -> bytes:
    """The record as one line of JSON.

    Text with a lone surrogate (read from a ``\\ud800`` escape in the input) has no
    UTF-8 form; such a record is written with every non-ASCII character escaped,
    which reads back as the same text. Raises ``TypeError`` for a value JSON has no
    form for.
    """
    try:
        return orjson.dumps(record, option=orjson.OPT_SORT_KEYS if sort_keys else None)
    except TypeError:
        pass
    return json.dumps(record, ensure_ascii=True, sort_keys=sort_keys, separators=(",", ":"), allow_nan=False).encode()


def _canonical(record: dict[str, Any]) -> bytes:
    return _json(record, sort_keys=True)


def _digest(canonical: bytes) -> bytes:
    return hashlib.sha256(canonical).digest()


def append_records(
    path: Path,
    records: Iterable[dict[str, Any]],
    *,
    lock_timeout: float | None = None,
    waiting: Callable[[], None] | None = None,
) -> AppendOutcome:
    """Append records that are new; keep identical ones once; refuse conflicts.

    Refused: an invalid record; a different record under a ``run_id`` already in
    the journal; a record whose ``rubric_version`` is bound in the journal to a
    different ``rubric_sha256`` (the rubric text was edited in place). The records
    written are sealed by a line of the journal's seal (``seal.seal_path``).

    The journal's lock is waited for at most ``lock_timeout`` seconds (``None``: for as
    long as it takes); ``waiting`` is called once when the wait has lasted a second.
    Raises ``JournalLocked`` when the time runs out, ``JournalError`` when the journal or
    its seal cannot be opened, read or written; either way nothing was appended.
    """
    outcome = AppendOutcome()
    try:
        import fcntl  # POSIX; imported here so that the plugin loads where it is missing
    except ImportError:
        raise JournalError(
            f"cannot append to the journal {path}: appends need POSIX file locking (fcntl), which this platform lacks"
        ) from None
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError as exc:
        raise JournalError(f"cannot open the journal {path}: {exc.strerror or exc}") from None
    try:
        _lock(fcntl, fd, path, lock_timeout, waiting)
        if os.pread(fd, len(GZIP_MAGIC), 0) == GZIP_MAGIC:
            # Lines written after a gzip stream are no part of it, and a seal's byte range would
            # name compressed bytes: a compressed journal is read, never appended to.
            raise JournalError(
                f"cannot append to the journal {path}: it is gzip-compressed; records are appended only to a "
                "plain journal (decompress it, or give a new path); nothing was appended"
            )
        # Per run_id only a digest of its first record's canonical form is kept, and the
        # journal is read a line at a time: an append costs memory by the runs the journal
        # holds, not by the size of their records.
        by_run: dict[str, tuple[bytes, int]] = {}  # run_id -> (digest, line of its first record)
        rubric_hash: dict[str, tuple[str, int]] = {}  # version -> (sha256, line that bound it)
        for number, stored in iter_objects(path, []):
            run = stored.get("run_id")
            # A record (damaged ones too, as reading the journal back counts them) holds its
            # run_id; a note or a record of another kind does not (is_other_object).
            if isinstance(run, str) and run not in by_run and not is_other_object(stored):
                try:
                    by_run[run] = (_digest(_canonical(stored)), number)
                except (TypeError, ValueError, RecursionError):  # an unwritable stored value never equals a new record
                    by_run[run] = (b"", number)
            version = stored.get("rubric_version")
            provenance = stored.get("provenance")
            digest = provenance.get("rubric_sha256") if isinstance(provenance, dict) else None
            # Only a session-eval record binds (its kind and a run id); a stray line, or
            # a record of another kind, must not block every later append.
            is_record = stored.get("record_kind") == RECORD_KIND and isinstance(run, str)
            if is_record and isinstance(version, str) and isinstance(digest, str) and not is_blank(digest):
                rubric_hash.setdefault(version, (digest, number))
        size = os.fstat(fd).st_size
        chunks: list[bytes] = []
        written: list[dict[str, Any]] = []
        if size:
            os.lseek(fd, size - 1, os.SEEK_SET)
            if os.read(fd, 1) != b"\n":
                chunks.append(b"\n")  # close a torn line left by a crashed writer
        for record in records:
            run = str(record.get("run_id"))
            try:
                validate_record(record)
            except InvalidRecord as exc:
                outcome.refused.append(f"{run}: invalid record, not written: {exc}")
                continue
            try:
                canonical = _digest(_canonical(record))
                line = _json(record) + b"\n"
            except (TypeError, ValueError) as exc:  # a value JSON has no form for
                outcome.refused.append(f"{run}: cannot be written as JSON ({exc}); not written")
                continue
            if run in by_run:
                held, held_at = by_run[run]
                if held == canonical:
                    outcome.unchanged.append(run)
                else:
                    outcome.refused.append(
                        f"{run}: the journal already holds a different record under this run_id "
                        f"({f'line {held_at}' if held_at else 'a record of this run'}); records are "
                        "append-only and never replaced (use another "
                        "--session-eval-timestamp for a new evaluation)"
                    )
                continue
            version, digest = record["rubric_version"], record["provenance"]["rubric_sha256"]
            bound, bound_at = rubric_hash.get(version, (None, 0))
            if bound is not None and bound != digest:
                outcome.refused.append(
                    f"{run}: the journal binds {version} to rubric_sha256 {bound} "
                    f"({f'line {bound_at}' if bound_at else 'a record of this run'}), but this record "
                    f"was scored against {digest}: the rubric was edited in place. A pre-registered "
                    "rubric never changes; mint a new rubric version for the new text"
                )
                continue
            rubric_hash.setdefault(version, (digest, 0))
            by_run[run] = (canonical, 0)  # 0: a record of this run, not yet on a line
            chunks.append(line)
            written.append(record)
            outcome.written.append(run)
        if outcome.written:
            records_start = size + len(chunks[0]) if chunks[0] == b"\n" else size
            stamp = next((str(r["timestamp"]) for r in written if isinstance(r.get("timestamp"), str)), None)
            _append_sealed(fd, size, b"".join(chunks), records_start, len(written), path, outcome, stamp)
    except OSError as exc:
        raise JournalError(f"cannot append to the journal {path}: {_told(exc)}; nothing was appended") from None
    finally:
        os.close(fd)
    return outcome


def _told(exc: OSError) -> str:
    """An OS error as the system names it: ``[Errno 28] No space left on device``."""
    if exc.errno is not None and exc.strerror:
        return f"[Errno {exc.errno}] {exc.strerror}"
    return str(exc)


def _lock(fcntl: Any, fd: int, path: Path, timeout: float | None, waiting: Callable[[], None] | None) -> None:
    """Take the journal's exclusive lock, waiting at most ``timeout`` seconds for it."""
    if not wait_for_lock(fcntl, fd, exclusive=True, timeout=timeout, waiting=waiting):
        raise JournalLocked(
            f"cannot append to the journal {path}: another process held its lock for "
            f"{timeout:g} s; nothing was appended"
        )


def _append_sealed(
    fd: int,
    size: int,
    data: bytes,
    records_start: int,
    count: int,
    path: Path,
    outcome: AppendOutcome,
    timestamp: str | None,
) -> None:
    """Write ``data`` at the end of the journal (``size`` bytes long) and a line to its seal,
    both or neither: on a failure either is cut back to its length before. The journal's
    lock is held."""
    sealing = seal_path(path)
    try:
        seal_fd = os.open(sealing, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o644)
    except OSError as exc:
        raise JournalError(
            f"cannot append to the journal {path}: its seal {sealing} cannot be opened ({_told(exc)}); nothing was appended"
        ) from None
    try:
        found = os.fstat(seal_fd)
        if not stat.S_ISREG(found.st_mode):
            raise JournalError(
                f"cannot append to the journal {path}: its seal {sealing} is not a file; nothing was appended"
            )
        os.set_blocking(seal_fd, True)
        seal_size = found.st_size
        last = _last_line(seal_fd, seal_size)
        if last and not last.endswith(b"\n"):
            # A torn seal line (a crash cut its write) seals nothing, and no line chains from it:
            # it is cut off, so that the chain goes on whole (that run's records stay unsealed).
            seal_size -= len(last)
            os.ftruncate(seal_fd, seal_size)
            os.fsync(seal_fd)
            last = _last_line(seal_fd, seal_size)
        first_line = data[records_start - size :].split(b"\n", 1)[0] + b"\n"
        line = seal_line(
            start=records_start,
            end=size + len(data),
            records=count,
            sha256=hashlib.sha256(data[records_start - size :]).hexdigest(),
            first=hashlib.sha256(first_line).hexdigest(),
            previous=line_digest(last) if last else GENESIS,
            timestamp=timestamp,
        )
        try:
            _write_all(fd, data)
            _write_all(seal_fd, line)
            os.fsync(fd)
            os.fsync(seal_fd)
        except OSError as exc:
            cut = _cut_back(((fd, size, path), (seal_fd, seal_size, sealing)))
            raise JournalError(f"cannot append to the journal {path}: {_told(exc)}; {cut}") from None
        except BaseException:  # interrupted (Ctrl-C) in the middle: all or nothing still
            _cut_back(((fd, size, path), (seal_fd, seal_size, sealing)))
            raise
        outcome.seal_line = _count_lines(seal_fd, seal_size) + 1
        outcome.head = line_digest(line)
    finally:
        os.close(seal_fd)


def _write_all(fd: int, data: bytes) -> None:
    """Write all of ``data``; a write that writes nothing is an error (a full disk)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if written <= 0:
            raise OSError(errno.ENOSPC, "no byte written (short write)")
        view = view[written:]


def _cut_back(files: tuple[tuple[int, int, Path], ...]) -> str:
    """Cut each file back to its length before the append; what the message says of it."""
    failed = []
    for fd, size, name in files:
        try:
            os.ftruncate(fd, size)
            os.fsync(fd)
        except OSError as exc:
            failed.append(
                f"{name} could not be cut back to its {size} bytes ({_told(exc)}): bytes from {size} on are a partial append"
            )
    if failed:
        return "; ".join(failed)
    return "nothing was appended (the journal and its seal are as they were)"


def _last_line(fd: int, size: int) -> bytes:
    """The last line of the file (its newline included, when it has one)."""
    end = size
    if end and os.pread(fd, 1, end - 1) == b"\n":
        end -= 1  # the newline that ends the last line
    tail = b""
    position = end
    while position > 0:
        step = min(position, 1 << 16)
        position -= step
        tail = os.pread(fd, step, position) + tail
        newline = tail.rfind(b"\n")
        if newline != -1:
            return tail[newline + 1 :] + os.pread(fd, size - end, end)
    return tail + os.pread(fd, size - end, end)


def _count_lines(fd: int, size: int) -> int:
    """How many lines the first ``size`` bytes of the file hold (a last one without a newline too)."""
    count, position, last = 0, 0, b"\n"
    while position < size:
        block = os.pread(fd, min(1 << 20, size - position), position)
        if not block:
            break
        count += block.count(b"\n")
        position += len(block)
        last = block[-1:]
    return count + (last != b"\n")
