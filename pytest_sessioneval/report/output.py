"""Writing a report file whole or not at all: to a temporary file beside it, then renamed
into place, so that a reader (or a full disk) never sees half a page.

Every report file this package writes (the HTML page, the JSON summary, the Markdown summary,
which is appended to by writing the old text and the new) goes through ``replace_file`` or
``append_to_file``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

__all__ = ["append_to_file", "replace_file"]

_BLOCK = 1 << 20  # an existing file is copied this many bytes at a time


def replace_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: the old file stays whole until the new one is.

    The data is written and synced to a temporary file in the same directory, which then
    takes the file's place (and its permissions, or those a new file gets). A symbolic link
    is written through (its target is replaced). Missing directories are made, as pytest
    makes those of its JUnit XML report. Raises ``OSError`` when the data cannot be
    written, synced or renamed (a full disk, a directory that takes no file); the temporary
    file is removed then, and ``path`` is as it was.
    """
    _write_whole(path, lambda stream: stream.write(data))


def append_to_file(path: Path, data: bytes) -> None:
    """Add ``data`` to the end of ``path`` (a new file when there is none), after a blank
    line when the file holds text, as ``replace_file`` writes: whole or not at all. The
    old content is copied a block at a time, never held whole. Raises ``OSError``."""

    def write(stream: _Descriptor) -> None:
        try:
            old = open(path, "rb")  # noqa: SIM115  closed below
        except FileNotFoundError:
            stream.write(data)
            return
        with old:
            shutil.copyfileobj(old, stream, _BLOCK)
            size = old.tell()
            if size:
                old.seek(max(0, size - 1))
                stream.write(b"\n" if old.read(1) == b"\n" else b"\n\n")
        stream.write(data)

    _write_whole(path, write)


class _Descriptor:
    """A file descriptor written with ``os.write`` until every byte is taken."""

    def __init__(self, descriptor: int) -> None:
        self._descriptor = descriptor

    def write(self, data: bytes) -> int:
        view = memoryview(data)
        while view:
            written = os.write(self._descriptor, view)
            if written == 0:  # nothing taken: an error, never a loop
                raise OSError(errno.EIO, "the file took no byte of the write")
            view = view[written:]
        return len(data)


def _write_whole(path: Path, write: Callable[[_Descriptor], object]) -> None:
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:  # no file yet (or none that can be read): a new file's permissions
        mode = 0o666 & ~_umask()
    descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        try:
            write(_Descriptor(descriptor))
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        with contextlib.suppress(OSError):
            os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_directory(target.parent)


def _sync_directory(directory: Path) -> None:
    """Make the rename itself durable, where the system allows a directory to be synced."""
    with contextlib.suppress(OSError, AttributeError):
        descriptor = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
