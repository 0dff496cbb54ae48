"""The one place input files are found, opened and read as lines.

Every input (sessions, events, journals, policy data, a rubric's text) is opened here,
so that a new way of storing one is one edit: today a file is read as it is, or
decompressed when it is gzip (told by its first bytes, whatever its name), and a data
file is looked for under its plain name and with ``.gz`` added (``sessions.jsonl.gz``).

Every line is read with a bounded ``readline``: a line longer than the line limit
(``max_line_bytes``, 64 MiB unless set) is never held whole, only measured, so memory
stays bounded by the limit however long a line a file holds.

Pure: reading only; nothing here knows JSON.
"""

from __future__ import annotations

import errno
import gzip
import io
import mmap
import os
import stat
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from functools import partial
from pathlib import Path
from typing import Final, NamedTuple, Protocol

from .snapshot import held, open_prefix

__all__ = [
    "BROKEN_LINK",
    "COMPRESSED_SUFFIX",
    "DEFAULT_MAX_LINE_BYTES",
    "GZIP_MAGIC",
    "BoundedLines",
    "bounded_lines",
    "byte_order_mark",
    "find_below",
    "find_beside",
    "is_gzip",
    "is_named",
    "mapped_input",
    "max_line_bytes",
    "open_input",
    "read_blocks",
    "read_bytes",
    "read_lines",
    "reset_max_line_bytes",
    "set_max_line_bytes",
    "spellings",
    "stat_kind",
]

#: The suffix of a compressed input: ``sessions.jsonl.gz`` is ``sessions.jsonl``, gzipped.
COMPRESSED_SUFFIX: Final = ".gz"
#: The first bytes of a gzip file: what tells a compressed input, whatever its name.
GZIP_MAGIC: Final = b"\x1f\x8b"
_BOM: Final = b"\xef\xbb\xbf"

#: The longest line read by default, its newline not counted (``set_max_line_bytes``).
DEFAULT_MAX_LINE_BYTES: Final = 64 << 20
_MAX_LINE: ContextVar[int] = ContextVar("max_line_bytes", default=DEFAULT_MAX_LINE_BYTES)
_SKIP: Final = 1 << 20  # the rest of an over-long line is skipped this many bytes at a time
_BUFFER: Final = 1 << 16  # the buffer of a file read a line at a time (8 KiB reads lines slower)


def max_line_bytes() -> int:
    """The line limit in force: the longest line read, its newline not counted."""
    return _MAX_LINE.get()


def set_max_line_bytes(limit: int) -> Token[int]:
    """Set the line limit; ``reset_max_line_bytes`` with the token given back restores it."""
    if type(limit) is not int or limit < 1:
        raise ValueError(f"the line limit must be a positive number of bytes, not {limit!r}")
    return _MAX_LINE.set(limit)


def reset_max_line_bytes(token: Token[int]) -> None:
    """Restore the line limit that ``set_max_line_bytes`` replaced."""
    _MAX_LINE.reset(token)


# Byte order marks of the encodings JSON Lines is not in, the longer first (UTF-32 LE
# starts like UTF-16 LE).
_OTHER_BOMS: Final = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)


def byte_order_mark(path: Path) -> str | None:
    """``"UTF-16"`` or ``"UTF-32"`` when the file (decompressed) starts with that
    encoding's byte order mark (either byte order), else ``None``. Raises ``OSError``."""
    head = read_bytes(path, 4)
    return next((name for mark, name in _OTHER_BOMS if head.startswith(mark)), None)


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
    """What ``open_input`` gives: a file's bytes, read as blocks or as lines (each line
    with a bound: ``read_lines``)."""

    def read(self, size: int = -1, /) -> bytes: ...
    def readline(self, size: int = -1, /) -> bytes: ...
    def readinto(self, buffer: memoryview, /) -> int | None: ...


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
        stream = io.BufferedReader(io.FileIO(path), _BUFFER) if buffered else io.FileIO(path)
    try:
        if stream.read(2) == GZIP_MAGIC:
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


def is_gzip(path: Path) -> bool:
    """Whether the file itself is gzip (its own first bytes, not a held prefix's). Raises
    ``OSError`` when it cannot be read."""
    with open(path, "rb") as stream:
        return stream.read(len(GZIP_MAGIC)) == GZIP_MAGIC


@contextmanager
def mapped_input(path: Path) -> Iterator[bytes | mmap.mmap]:
    """The file's bytes (decompressed) for reading at any offset: a plain file is mapped, not
    read, so that a large one costs no memory of its size. A held file (``core.snapshot``)
    is mapped up to the length fixed when the run began, once its prefix has been read
    through and found to be what was fixed. Raises ``OSError`` (``InputChanged`` for a held
    file that changed)."""
    if is_gzip(path):
        yield read_bytes(path)
        return
    snapshot = held(path)
    if snapshot is not None:
        with open_input(path) as stream:  # (the held prefix checks the bytes it is read through)
            while stream.read(_SKIP):
                pass
    with open(path, "rb") as stream:
        length = os.fstat(stream.fileno()).st_size if snapshot is None else snapshot.length
        if length == 0:
            yield b""
            return
        with mmap.mmap(stream.fileno(), length, access=mmap.ACCESS_READ) as mapped:
            yield mapped


def read_bytes(path: Path, limit: int = -1) -> bytes:
    """The file's bytes (decompressed), or its first ``limit`` of them."""
    with open_input(path) as stream:
        return stream.read(limit)


class BoundedLines(NamedTuple):
    """A file's lines as ``bounded_lines`` reads them.

    ``numbered`` gives ``(number, raw)`` for every line, 1-based, each with its newline,
    read within a bound (C speed). A ``raw`` longer than ``limit`` may be an over-long line
    cut short by the bound: ``measured(raw)`` gives the line itself when it is within the
    limit after all (its newline not counted), else its length, an ``int``, its rest read
    past and never held; call it before asking for the next line. (``read``: the bytes as
    read, when ``raw`` is them less a byte order mark.)
    """

    numbered: Iterator[tuple[int, bytes]]
    limit: int
    measured: Callable[..., bytes | int]


@contextmanager
def bounded_lines(path: Path, max_line: int | None = None) -> Iterator[BoundedLines]:
    """``path`` opened as ``BoundedLines``: the one way every input is read a line at a time,
    each line bounded by ``max_line`` (default: the line limit in force, ``max_line_bytes``).
    Raises ``OSError`` when the file cannot be read."""
    limit = max_line_bytes() if max_line is None else max_line
    chunk = limit + len(_BOM) + 3  # a line, its BOM, "\r\n", one byte more
    with open_input(path) as stream:

        def measured(raw: bytes, read: bytes | None = None) -> bytes | int:
            as_read = raw if read is None else read
            return _measured(raw, len(as_read) == chunk and not as_read.endswith(b"\n"), stream, limit)

        yield BoundedLines(enumerate(iter(partial(stream.readline, chunk), b""), 1), limit, measured)


def read_lines(path: Path, max_line: int | None = None, *, skip_bom: bool = False) -> Iterator[tuple[int, bytes | int]]:
    """``(number, line)`` for every line, 1-based, each with its newline (``bounded_lines``).

    A line longer than ``max_line`` bytes (its newline not counted; default: the line
    limit in force, ``max_line_bytes``) is never held whole: its length comes in its
    place, an ``int``, and reading goes on at the next line. ``skip_bom``: a UTF-8 byte
    order mark opening the file is no part of its first line. Raises ``OSError`` when
    the file cannot be read.
    """
    with bounded_lines(path, max_line) as (numbered, limit, measured):
        if skip_bom:
            for _, raw in numbered:
                yield 1, measured(raw.removeprefix(_BOM), raw)
                break
        for number, raw in numbered:
            yield number, raw if len(raw) <= limit else measured(raw)


def _measured(raw: bytes, cut: bool, stream: ByteStream, limit: int) -> bytes | int:
    """``raw`` when it is a whole line (not ``cut`` short by the bound of the read) within
    ``limit``; else the line's length, its rest read (a block at a time, never held) up to
    the next line."""
    if not cut:
        size = len(raw) - _newline_size(raw[-2:])
        return raw if size <= limit else size
    size, end = len(raw), raw[-2:]
    if isinstance(stream, io.BufferedReader):  # a plain file: read into one block, then back to the next line
        block = bytearray(_SKIP)
        while read := stream.readinto(block):
            newline = block.find(b"\n", 0, read)
            if newline >= 0:
                stream.seek(newline + 1 - read, io.SEEK_CUR)
                end = (end + bytes(block[max(0, newline - 1) : newline + 1]))[-2:]
                return size + newline + 1 - _newline_size(end)
            size, end = size + read, (end + bytes(block[max(0, read - 2) : read]))[-2:]
        return size
    while not end.endswith(b"\n"):  # decompressed: read a line at a time, within a bound
        more = stream.readline(_SKIP)
        if not more:
            break
        size, end = size + len(more), (end + more)[-2:]
    return size - _newline_size(end)


def read_blocks(path: Path, block: int, max_line: int | None = None) -> Iterator[tuple[bytearray, int] | int]:
    """The file as blocks of whole lines, read into one reused buffer of about ``block``
    bytes: ``(buffer, end)``, the lines in ``buffer[:end]`` (the file's last line may lack
    its newline), valid until the next block is asked for. A line longer than
    ``max_line`` (default: the line limit in force) comes as its length, an ``int``, in
    its place, never held whole. Raises ``OSError``.
    """
    limit = max_line_bytes() if max_line is None else max_line
    largest = limit + 3  # a buffer this long that holds no newline holds an over-long line
    buffer = bytearray(block)
    filled = 0  # bytes of the buffer that hold file data
    with open_input(path, buffered=False) as stream:
        while True:
            if filled == len(buffer):
                if filled >= largest:  # no newline in it: an over-long line, measured and skipped
                    size, filled = _skipped(stream, buffer, filled)
                    yield size
                    continue
                buffer.extend(bytes(min(len(buffer), largest - len(buffer))))  # a long line: room for it
            with memoryview(buffer) as whole, whole[filled:] as free:
                read = stream.readinto(free)
            if read:
                filled += read
                end = buffer.rfind(b"\n", 0, filled) + 1
                if end == 0:
                    continue  # no whole line yet
            else:
                end = filled  # end of file: the last line may lack its newline
                if end == 0:
                    return
            if end > limit:  # a line of this block may be over the limit: those are cut out
                yield from _cut(buffer, end, limit)
            else:
                yield buffer, end
            if not read:
                return
            filled -= end  # the unfinished last line stays for the next block
            buffer[:filled] = buffer[end : end + filled]


def _skipped(stream: ByteStream, buffer: bytearray, filled: int) -> tuple[int, int]:
    """Read past the over-long line that fills ``buffer[:filled]``, the buffer reused for
    it: the line's length, and how many bytes of the next lines it leaves at the start of
    ``buffer``."""
    size = filled
    last = bytes(buffer[filled - 1 : filled])
    while True:
        with memoryview(buffer) as whole, whole[:filled] as free:
            read = stream.readinto(free)
        if not read:
            return size, 0  # the file's last line: no newline
        newline = buffer.find(b"\n", 0, read)
        if newline >= 0:
            end = (last + bytes(buffer[max(0, newline - 1) : newline + 1]))[-2:]
            rest = read - newline - 1
            buffer[:rest] = buffer[newline + 1 : read]
            return size + newline + 1 - _newline_size(end), rest
        size += read
        last = bytes(buffer[read - 1 : read])


def _cut(buffer: bytearray, end: int, limit: int) -> Iterator[tuple[bytearray, int] | int]:
    """The lines of ``buffer[:end]`` as blocks, each over-long line as its length."""
    start = 0  # the first line not yet given
    at = 0
    while at < end:
        newline = buffer.find(b"\n", at, end)
        stop = end if newline < 0 else newline + 1
        size = stop - at - _newline_size(bytes(buffer[max(at, stop - 2) : stop]))
        if size > limit:
            if start < at:
                yield bytearray(buffer[start:at]), at - start
            yield size
            start = stop
        at = stop
    if start < end:
        yield bytearray(buffer[start:end]), end - start


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
