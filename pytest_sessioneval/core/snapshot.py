"""What an input holds when a run begins: a prefix of its bytes, fixed by its length and sha256.

A run fixes each input once (``measure``), before anything reads it, and then holds the
snapshots (``hold``): while they are held, every read of such a file through ``core.io``
reads exactly that prefix (``open_prefix``). Bytes appended since are not read, so every
process of a run reads the same records however the file grows; a file whose prefix
changed (rewritten in place, or replaced) or that is now shorter (cut) is refused as it is
read, with ``InputChanged``.

A journal is measured under a shared ``flock`` (an append holds an exclusive one), waited
for at most a few seconds, and only up to its last newline: a record still being written
is never read half. A file kept with a journal and written under its lock (its seal) is
measured with it in one go (``measure_with``), so the two prefixes agree.

Pure: reading only.
"""

from __future__ import annotations

import errno
import hashlib
import io
import os
import stat
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

from .locks import wait_for_lock

__all__ = [
    "LOCK_TIMEOUT",
    "InputChanged",
    "Snapshot",
    "held",
    "hold",
    "key",
    "measure",
    "measure_with",
    "open_prefix",
    "unheld",
]

_BLOCK: Final = 1 << 20
#: How long a journal's measure waits for a writer's exclusive lock before measuring without it.
LOCK_TIMEOUT: Final = 5.0


_EMPTY: Final = hashlib.sha256(b"").hexdigest()


@dataclass(frozen=True)
class Snapshot:
    """A prefix of a file: its ``length`` in bytes and the ``sha256`` (hex) of those bytes.
    ``left_out``: the bytes after the last newline a journal's measure left out. ``kind``:
    what was at the path, as ``core.io.stat_kind`` names it (``None``: nothing); a snapshot
    of anything but a ``"file"`` holds no bytes."""

    length: int
    sha256: str
    left_out: int = 0
    kind: str | None = "file"

    def to_wire(self) -> list[Any]:
        """As plain values (what a pytest-xdist worker is sent)."""
        return [self.length, self.sha256, self.left_out, self.kind]

    @classmethod
    def from_wire(cls, value: Any) -> Snapshot:
        length, sha256, left_out, kind = value
        return cls(int(length), str(sha256), int(left_out), None if kind is None else str(kind))


class InputChanged(OSError):
    """A held file is no longer what it was when the run began (an ``OSError`` naming it)."""

    def __init__(self, path: Path | str, why: str) -> None:
        super().__init__(errno.ESTALE, why, str(path))


def key(path: Path | str) -> str:
    """The name a snapshot is held under: the file's real path, however it is spelled."""
    return os.path.realpath(path)


def measure(path: Path, *, whole_lines: bool = False, lock_timeout: float | None = None) -> Snapshot:
    """The file's snapshot: all of it, or with ``whole_lines`` up to its last newline (a gzip
    file is taken whole). ``lock_timeout``: first wait that long at most for a shared
    ``flock`` (where the platform has one). Raises ``OSError`` when it cannot be read."""
    with _open(path) as stream:
        if lock_timeout is not None:
            _lock_shared(stream.fileno(), lock_timeout)  # released as the file closes
        return _measure(stream, whole_lines)


def measure_with(path: Path, companion: Path, *, lock_timeout: float) -> tuple[Snapshot, Snapshot | None]:
    """A journal and the file kept with it (its seal, written under the journal's lock after
    the journal's records), each up to its last newline, in one go under the journal's shared
    lock (waited for at most ``lock_timeout`` seconds): no append lies between the two. The
    companion is measured first, so that without the lock too every line of it that is
    measured follows records that are. Its last line without a newline is a line a crash
    left torn (``left_out``), but without the lock it may be one being written: then it is
    not counted. A companion that is no file gets a snapshot of its ``kind`` (a FIFO is never
    read); one that cannot be measured, ``None`` (reading it says why). Raises ``OSError``
    when the journal cannot be read."""
    with _open(path) as stream:
        locked = _lock_shared(stream.fileno(), lock_timeout)  # released as the file closes
        beside = _measure_companion(companion)
        if beside is not None and not locked:
            beside = replace(beside, left_out=0)
        return _measure(stream, whole_lines=True), beside


def _measure_companion(path: Path) -> Snapshot | None:
    from .io import stat_kind  # (core.io reads through this module)

    try:
        kind = stat_kind(path)
        if kind != "file":
            return Snapshot(0, _EMPTY, kind=kind)
        with _open(path) as stream:
            return _measure(stream, whole_lines=True)
    except _NotAFile:  # replaced since it was looked at
        return Snapshot(0, _EMPTY, kind="other")
    except (OSError, ValueError):
        return None


class _NotAFile(OSError):
    pass


def _open(path: Path) -> io.FileIO:
    """``path`` opened to read, never waiting (a FIFO is refused, not opened for good)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _NotAFile(errno.EINVAL, "not a file", str(path))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return io.FileIO(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _measure(stream: io.FileIO, whole_lines: bool) -> Snapshot:
    from .io import GZIP_MAGIC  # (core.io reads through this module)

    digest = hashlib.sha256()
    at_newline = digest.copy()  # the digest up to the last newline read
    length = lines_end = 0
    first = True
    while block := stream.read(_BLOCK):
        if first:
            whole_lines = whole_lines and not block.startswith(GZIP_MAGIC)
            first = False
        if whole_lines:
            newline = block.rfind(b"\n") + 1
            if newline:
                digest.update(block[:newline])
                at_newline, lines_end = digest.copy(), length + newline
                block = block[newline:]
                length += newline
        digest.update(block)
        length += len(block)
    if whole_lines:
        return Snapshot(lines_end, at_newline.hexdigest(), length - lines_end)
    return Snapshot(length, digest.hexdigest())


def _lock_shared(fd: int, timeout: float) -> bool:
    """Take a shared ``flock`` on ``fd``, waiting at most ``timeout`` seconds; whether it was taken."""
    try:
        import fcntl
    except ImportError:  # no flock here: the whole lines bound the read alone
        return False
    try:
        return wait_for_lock(fcntl, fd, exclusive=False, timeout=timeout)
    except OSError:  # a file system without locks
        return False


_HELD: ContextVar[Mapping[str, Snapshot] | None] = ContextVar("sessioneval_held_inputs", default=None)


def hold(snapshots: Mapping[str, Snapshot] | None) -> Mapping[str, Snapshot] | None:
    """Hold ``snapshots`` (by ``key``; ``None``: none) for every read until the next call;
    returns what was held before."""
    before = _HELD.get()
    _HELD.set(snapshots)
    return before


@contextmanager
def unheld() -> Iterator[None]:
    """Read every file whole while the block lasts (a journal appended to must be seen whole)."""
    before = hold(None)
    try:
        yield
    finally:
        hold(before)


def held(path: Path) -> Snapshot | None:
    """The snapshot held for ``path``, if any."""
    snapshots = _HELD.get()
    return snapshots.get(key(path)) if snapshots else None


def open_prefix(path: Path, snapshot: Snapshot, *, buffered: bool = True) -> io.BufferedReader | HeldPrefix:
    """``path`` opened to read its first ``snapshot.length`` bytes and no more. Raises
    ``InputChanged`` when the file is shorter than that, and as the last of them is read when
    they are not the bytes of the snapshot."""
    if snapshot.kind != "file":
        raise InputChanged(path, "it was no file when the run began: it is never read")
    raw = HeldPrefix(path, snapshot)
    return io.BufferedReader(raw, _BLOCK // 16) if buffered else raw


class HeldPrefix(io.RawIOBase):
    """An unbuffered stream over a file's snapshot prefix, checking its digest as it is read."""

    def __init__(self, path: Path, snapshot: Snapshot) -> None:
        super().__init__()
        self._path = path
        self._snapshot = snapshot
        try:
            self._file = _open(path)  # (closed with this stream)
        except _NotAFile:  # a FIFO put in its place would make the read wait for good
            raise InputChanged(path, "it is no longer a file: it was replaced while the run read it") from None
        size = os.fstat(self._file.fileno()).st_size
        if size < snapshot.length:
            self._file.close()
            raise self._cut(size)
        self._position = 0
        self._digest = hashlib.sha256()
        self._hashed = 0  # the bytes from the start the digest has seen

    def _cut(self, size: int) -> InputChanged:
        return InputChanged(
            self._path,
            f"it is {size} bytes long now, shorter than the {self._snapshot.length} bytes it held when the run "
            "began: it was cut or replaced while the run read it (a file may only grow meanwhile)",
        )

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        wanted = min(len(buffer), self._snapshot.length - self._position)
        if wanted <= 0:
            return 0
        with memoryview(buffer).cast("B") as view, view[:wanted] as part:
            read = self._file.readinto(part) or 0
            if read == 0:
                raise self._cut(self._position)
            if self._hashed == self._position:
                self._digest.update(part[:read])
                self._hashed += read
        self._position += read
        if (
            self._hashed == self._position == self._snapshot.length
            and self._digest.hexdigest() != self._snapshot.sha256
        ):
            raise InputChanged(
                self._path,
                f"its first {self._snapshot.length} bytes are not those it held when the run began: it was "
                "rewritten or replaced while the run read it (a file may only grow meanwhile)",
            )
        return read

    def seek(self, offset: int, whence: int = os.SEEK_SET, /) -> int:
        base = {os.SEEK_SET: 0, os.SEEK_CUR: self._position, os.SEEK_END: self._snapshot.length}[whence]
        position = max(0, min(base + offset, self._snapshot.length))
        self._file.seek(position)
        self._position = position
        if position == 0:
            self._digest, self._hashed = hashlib.sha256(), 0
        return position

    def tell(self) -> int:
        return self._position

    def close(self) -> None:
        if not self.closed:
            self._file.close()
        super().close()
