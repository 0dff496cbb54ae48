"""Writing a report file whole or not at all: to a temporary file beside it, then renamed
into place, so that a reader (or a full disk) never sees half a page.

Every report file this package writes (the HTML page, the JSON summary, the Markdown summary,
which is appended to by writing the old text and the new) goes through ``replace_file``.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

__all__ = ["replace_file"]


def replace_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: the old file stays whole until the new one is.

    The data is written and synced to a temporary file in the same directory, which then
    takes the file's place (and its permissions, or those a new file gets). A symbolic link
    is written through (its target is replaced). Missing directories are made, as pytest
    makes those of its JUnit XML report. Raises ``OSError`` when the data cannot be
    written, synced or renamed (a full disk, a directory that takes no file); the temporary
    file is removed then, and ``path`` is as it was.
    """
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:  # no file yet (or none that can be read): a new file's permissions
        mode = 0o666 & ~_umask()
    descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(descriptor, view) :]
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
