"""Writing a report file whole or not at all: to a temporary file beside it, then renamed
into place, so that a reader (or a full disk) never sees half a page."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["replace_file"]


def replace_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: the old file stays whole until the new one is.

    A symbolic link is written through (its target is replaced). Raises ``OSError`` when the
    directory cannot take the file; the temporary file is removed then, and ``path`` is as
    it was.
    """
    target = Path(os.path.realpath(path))
    descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        with contextlib.suppress(OSError):
            os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
