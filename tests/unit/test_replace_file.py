"""Report files (the page, the JSON and the Markdown summaries) are written whole or not at all."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_sessioneval.report.output import replace_file


def failing(point: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``replace_file`` fail at ``point``: the write (a full disk), the sync, or the rename."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.ENOSPC if point != "replace" else errno.EACCES, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, point, refuse)


@pytest.mark.parametrize("point", ["write", "fsync", "replace"])
def test_a_failed_write_leaves_the_old_file_whole_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, point: str
) -> None:
    report = tmp_path / "summary.json"
    report.write_bytes(b'{"old": true}\n')
    with monkeypatch.context() as patched:
        failing(point, patched)
        with pytest.raises(OSError, match=os.strerror(errno.ENOSPC)) as raised:
            replace_file(report, b'{"new": true}\n' * 10_000)
    assert raised.value.errno in (errno.ENOSPC, errno.EACCES)
    assert report.read_bytes() == b'{"old": true}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.json"]


def test_a_short_write_is_carried_on_until_every_byte_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write: Callable[[int, Any], int] = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: write(fd, bytes(data[:7])))
    replace_file(tmp_path / "page.html", b"x" * 1000)
    assert (tmp_path / "page.html").read_bytes() == b"x" * 1000


def test_a_write_that_takes_no_byte_is_an_error_not_a_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    report = tmp_path / "page.html"
    report.write_bytes(b"old")
    monkeypatch.setattr(os, "write", lambda fd, data: 0)
    with pytest.raises(OSError, match="took no byte"):
        replace_file(report, b"x" * 1000)
    assert report.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]


def test_a_replaced_file_keeps_its_permissions_and_a_link_is_written_through(tmp_path: Path) -> None:
    report = tmp_path / "summary.md"
    report.write_text("old\n")
    report.chmod(0o600)
    link = tmp_path / "link.md"
    link.symlink_to(report)
    replace_file(link, b"new\n")
    assert link.is_symlink() and report.read_text() == "new\n"
    assert stat.S_IMODE(report.stat().st_mode) == 0o600
    fresh = tmp_path / "fresh.json"
    replace_file(fresh, b"{}")
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~mask
