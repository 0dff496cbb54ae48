"""Report files a run writes fail whole: the old file stays, the message names it and the error."""

from __future__ import annotations

import errno
import os
from typing import Any

import pytest
from builders import MetricsWriter, gate, session

REPORTS = {
    "summary.json": ("--session-eval-summary", "ERROR: cannot write the summary {path}: {error}"),
    "summary.md": ("--session-eval-markdown", "ERROR: cannot write the Markdown summary {path}: {error}"),
    "page.html": ("--session-eval-html", "ERROR: cannot write the HTML report {path}: {error}"),
}


def fail_for(name: str, point: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """Make writing the report ``name`` fail at ``point`` (its write, or its rename); the error."""
    error = errno.ENOSPC if point == "write" else errno.EACCES
    original = getattr(os, point)

    def ours(fd_or_source: Any) -> bool:
        # The temporary file beside the report: ".<name>.<random>.tmp".
        if point == "write":
            try:
                fd_or_source = os.readlink(f"/proc/self/fd/{fd_or_source}")
            except OSError:
                return False
        return os.path.basename(str(fd_or_source)).startswith(f".{name}.")

    def failing(first: Any, *args: Any, **kwargs: Any) -> Any:
        if ours(first):
            raise OSError(error, os.strerror(error))
        return original(first, *args, **kwargs)

    monkeypatch.setattr(os, point, failing)
    return os.strerror(error)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="tells the report's temporary file by /proc")
@pytest.mark.parametrize("point", ["write", "replace"])
@pytest.mark.parametrize("name", list(REPORTS))
def test_a_report_file_that_cannot_be_written_keeps_its_old_text(
    pytester: pytest.Pytester, project_metrics: MetricsWriter, monkeypatch: pytest.MonkeyPatch, name: str, point: str
) -> None:
    metrics = project_metrics([session("a", total_files_changed=1)], [gate("2026-07-20T09:30:00Z", 0, "full-gate")])
    flag, message = REPORTS[name]
    report = pytester.path / name
    args = ("--session-eval", str(metrics), flag, name, "-p", "no:cacheprovider")
    assert pytester.runpytest(*args).ret == pytest.ExitCode.OK  # an earlier run's report
    old = report.read_text()
    with monkeypatch.context() as patched:
        error = fail_for(name, point, patched)
        result = pytester.runpytest(*args)
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines([message.format(path=f"*{name}", error=error)])
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # a report not written fails the run
    assert report.read_text() == old
    assert not [p.name for p in pytester.path.iterdir() if p.name.startswith(f".{name}.")]
