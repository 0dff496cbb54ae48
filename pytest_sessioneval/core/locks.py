"""Waiting for a file lock (``flock``) for a bounded time.

An append to the eval journal holds the journal's exclusive lock; a run that measures the
journal takes a shared one. Either waits for the other here, never longer than it is told.

Pure: no clock but the one measuring the wait, nothing written.
"""

from __future__ import annotations

import errno
import time
from collections.abc import Callable
from typing import Any

__all__ = ["wait_for_lock"]

_BUSY = (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES)


def wait_for_lock(
    fcntl: Any, fd: int, *, exclusive: bool, timeout: float | None, waiting: Callable[[], None] | None = None
) -> bool:
    """Take ``fcntl.flock`` on ``fd`` (exclusive or shared), waiting at most ``timeout``
    seconds (``None``: as long as it takes); whether it was taken in time. ``waiting`` is
    called once when the wait has lasted a second. Raises ``OSError`` for any error but a
    lock held elsewhere."""
    mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    if timeout is None and waiting is None:
        fcntl.flock(fd, mode)
        return True
    begun = time.monotonic()
    told = False
    pause = 0.01
    while True:
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
            return True
        except OSError as exc:
            if exc.errno not in _BUSY:
                raise
        waited = time.monotonic() - begun
        if timeout is not None and waited >= timeout:
            return False
        if not told and waited >= 1.0 and waiting is not None:
            told = True
            waiting()
        nap = pause  # (short, then up to a tenth of a second: the lock is taken soon after it is freed)
        if timeout is not None:
            nap = min(nap, timeout - waited)
        if not told and waiting is not None:
            nap = min(nap, 1.0 - waited)  # (a second has not passed yet: it would have been told)
        time.sleep(max(nap, 0.0))
        pause = min(pause * 2, 0.1)
