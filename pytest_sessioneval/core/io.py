"""The one place input files are found, opened and read as lines.

Every input (sessions, events, journals, policy data, a rubric's text) is opened here,
so that a new way of storing one is one edit: today a file is read as it is, or
decompressed when it is gzip (told by its first bytes, whatever its name), and a data
file is looked for under its plain name and with ``.gz`` added (``sessions.jsonl.gz``).

Pure: reading only; nothing here knows JSON.
"""

from __future__ import annotations

import errno
import gzip
import io
import os
import stat
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final, Protocol

from .snapshot import held, open_prefix

__all__ = [
    "BROKEN_LINK",
    "COMPRESSED_SUFFIX",
    "find_below",
    "find_beside",
    "is_named",
    "open_input",
    "read_bytes",
    "read_lines",
    "spellings",
    "stat_kind",
]

#: The suffix of a compressed input: ``sessions.jsonl.gz`` is ``sessions.jsonl``, gzipped.
COMPRESSED_SUFFIX: Final = ".gz"
_GZIP_MAGIC: Final = b"\x1f\x8b"
_BOM: Final = b"\xef\xbb\xbf"


def spellings(name: str) -> tuple[str, str]:
    """The names an input file may have: ``name`` itself, then compressed."""
    return name, name + COMPRESSED_SUFFIX


def is_named(path: Path, name: str) -> bool:
    """Whether ``path`` is the input file ``name`` under one of its spellings."""
    return path.name in spellings(name)


def find_beside(directory: Path, name: str, kind_of: Callable[[Path], str | None] | None = None) -> Path | None:
    """The file ``name`` in ``directory`` under its first spelling that is there (anything
    but nothing: the caller says what is wrong with a directory or a broken link).
    ``kind_of`` looks at a path (default ``stat_kind``)."""
    look = stat_kind if kind_of is None else kind_of
    for spelled in spellings(name):
        candidate = directory / spelled
        if look(candidate) is not None:
            return candidate
    return None


class ByteStream(Protocol):
    """What ``open_input`` gives: a file's bytes, read as blocks or as lines."""

    def read(self, size: int = -1, /) -> bytes: ...
    def readline(self, size: int = -1, /) -> bytes: ...
    def readinto(self, buffer: memoryview, /) -> int | None: ...
    def __iter__(self) -> Iterator[bytes]: ...


#: Directories never searched for inputs: version control, caches, virtual environments.
_NOT_SEARCHED: Final = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        "node_modules",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
    }
)


def find_below(directory: Path, name: str) -> list[Path]:
    """The file ``name`` in ``directory`` and in every directory below it (at most one per
    directory: its first spelling there, as ``find_beside`` finds it), in path order. Symbolic
    links to directories are not followed, and version control, caches and virtual
    environments are not searched."""
    found = []
    for root, directories, _ in os.walk(directory):
        directories[:] = [d for d in directories if d not in _NOT_SEARCHED]
        here = find_beside(Path(root), name)
        if here is not None and stat_kind(here) == "file":
            found.append(here)
    return sorted(found, key=lambda path: path.parts)


@contextmanager
def open_input(path: Path, *, buffered: bool = True) -> Iterator[ByteStream]:
    """``path`` opened for reading bytes, decompressed when it is gzip.

    ``buffered=False`` gives the file's own unbuffered stream (``readinto`` straight into
    the caller's buffer) when it is not compressed. A file whose snapshot is held (see
    ``core.snapshot``) is read up to the length fixed when the run began, and no further.
    Raises ``OSError`` (a damaged gzip stream too, as it is read; ``InputChanged`` for a held
    file that changed).
    """
    snapshot = held(path)
    stream: io.BufferedIOBase | io.RawIOBase
    if snapshot is not None:
        stream = open_prefix(path, snapshot, buffered=buffered)
    else:
        stream = open(path, "rb") if buffered else open(path, "rb", buffering=0)  # noqa: SIM115
    try:
        if stream.read(2) == _GZIP_MAGIC:
            stream.seek(0)
            with gzip.GzipFile(fileobj=stream, mode="rb") as unpacked:
                yield _Unpacked(unpacked, path)
            return
        stream.seek(0)
        yield stream
    finally:
        stream.close()


class _Unpacked:
    """A gzip stream whose damage (a cut or corrupt stream) is an ``OSError`` naming the file,
    as any other fault of reading one is."""

    def __init__(self, stream: gzip.GzipFile, path: Path) -> None:
        self._stream = stream
        self._path = path

    def _damaged(self, exc: Exception) -> OSError:
        return OSError(errno.EIO, f"damaged gzip data ({exc})", str(self._path))

    def read(self, size: int = -1, /) -> bytes:
        try:
            return self._stream.read(size)
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            raise self._damaged(exc) from None

    def readline(self, size: int = -1, /) -> bytes:
        try:
            return self._stream.readline(size)
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            raise self._damaged(exc) from None

    def readinto(self, buffer: memoryview, /) -> int | None:
        try:
            return self._stream.readinto(buffer)
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            raise self._damaged(exc) from None

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.readline, b"")


def read_bytes(path: Path, limit: int = -1) -> bytes:
    """The file's bytes (decompressed), or its first ``limit`` of them."""
    with open_input(path) as stream:
        return stream.read(limit)


def read_lines(path: Path, max_line: int | None = None, *, skip_bom: bool = False) -> Iterator[tuple[int, bytes | int]]:
    """``(number, line)`` for every line, 1-based, each with its newline.

    With ``max_line``, a line longer than that many bytes (its newline not counted) is
    never held whole: its length comes in its place, an ``int``, and reading goes on at
    the next line. ``skip_bom``: a UTF-8 byte order mark opening the file is no part of
    its first line. Raises ``OSError`` when the file cannot be read.
    """
    with open_input(path) as stream:
        if max_line is None and not skip_bom:
            yield from enumerate(stream, 1)
            return
        chunk = (max_line if max_line is not None else 1 << 62) + len(_BOM) + 3  # a line, "\r\n", one byte more
        number = 0
        while raw := stream.readline(chunk):
            number += 1
            whole = raw.endswith(b"\n") or len(raw) < chunk
            if number == 1 and skip_bom and raw.startswith(_BOM):
                raw = raw[len(_BOM) :]
            if whole:
                size = len(raw) - _newline_size(raw)
                yield number, (raw if max_line is None or size <= max_line else size)
                continue
            size, end = len(raw), raw[-2:]  # the rest of the line is skipped, a block at a time
            while not end.endswith(b"\n"):
                more = stream.readline(1 << 16)
                if not more:
                    break
                size, end = size + len(more), (end + more)[-2:]
            yield number, size - _newline_size(end)


def _newline_size(end: bytes) -> int:
    """How many of the last bytes of a line are its newline (``\\n`` or ``\\r\\n``)."""
    return 2 if end.endswith(b"\r\n") else 1 if end.endswith(b"\n") else 0


BROKEN_LINK: Final = "broken link"


def stat_kind(path: Path) -> str | None:
    """``"file"``, ``"dir"``, ``BROKEN_LINK`` (a symbolic link to nothing), ``"other"`` (a
    FIFO, a device...), or ``None`` when nothing is there.

    Raises ``OSError`` for a path the system refuses to look at (too long, a
    symlink loop, no permission to search a directory on the way) and
    ``ValueError`` for one no system accepts (an embedded NUL byte).
    """
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        return BROKEN_LINK if path.is_symlink() else None
    if stat.S_ISREG(mode):
        return "file"
    return "dir" if stat.S_ISDIR(mode) else "other"
