"""Warnings about input lines that could not be used, each located at its file and line.

Issued through pytest's warning machinery (``-W`` and ``filterwarnings`` apply: under
``-W error`` a bad line is a usage error naming it), once per run, by the process that
reports.
"""

from __future__ import annotations

import linecache
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

from ..core.io import read_lines
from ..core.jsonl import InputProblem, UnreadableTimestamps
from ..core.text import first_few
from ._compat import apply_warning_filters, bestrelpath

__all__ = [
    "WARNED_LINES_PER_FILE",
    "SessionEvalInputWarning",
    "issue_warning_at",
    "warn_problems",
    "warn_unreadable_timestamps",
]


class SessionEvalInputWarning(pytest.PytestWarning):
    """A line of an input file was skipped (invalid JSON, not an object, ...)."""


#: Unusable lines warned about one by one per file; the rest are summed up in one warning.
WARNED_LINES_PER_FILE = 20


_EXCERPT_CHARS = 80


class _Excerpts:
    """What ``linecache`` shows under a warning about a data file: a short, escaped excerpt.

    Python prints the source line of a warning's location; for a data file that
    would be the raw line, however long, control characters included.
    """

    def __init__(self, excerpts: dict[int, str]) -> None:
        self._excerpts = excerpts
        self._size = max(excerpts, default=0)

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, index: int) -> str:
        return self._excerpts.get(index + 1, "")


def _excerpts(path: str, lines: list[int]) -> dict[int, str]:
    """An escaped start of each of ``lines`` (ascending) of ``path``, read in one pass."""
    wanted, out = set(lines), {}
    try:
        for number, raw in read_lines(Path(path)):
            if number in wanted and isinstance(raw, bytes):
                text = raw[: _EXCERPT_CHARS * 4].decode("utf-8", "replace").rstrip("\r\n")
                shown = ascii(text[:_EXCERPT_CHARS])[1:-1]
                out[number] = shown + (" ..." if len(text) > _EXCERPT_CHARS else "") + "\n"
            if number >= lines[-1]:
                break
    except OSError:
        pass
    return out


def warn_problems(problems: list[InputProblem], start: Path, warn: Callable[[Warning, str, int], None]) -> None:
    """Warn about unusable input lines, each located at its file and line, through ``warn``.

    Up to ``WARNED_LINES_PER_FILE`` lines per file get a warning each (with an
    escaped excerpt of the line); one more warning counts the rest.
    """
    by_file: dict[str, list[InputProblem]] = {}
    for problem in problems:
        by_file.setdefault(problem.path, []).append(problem)
    for path, found in by_file.items():
        where = bestrelpath(start, Path(path))
        shown = found[:WARNED_LINES_PER_FILE]
        excerpts = _Excerpts(_excerpts(path, [problem.line for problem in shown]))
        linecache.cache[path] = (None, None, excerpts, path)  # type: ignore[assignment]
        for problem in shown:
            warn(SessionEvalInputWarning(f"{where}:{problem.line}: {problem.message}"), path, problem.line)
        rest = found[WARNED_LINES_PER_FILE:]
        if rest:
            warn(
                SessionEvalInputWarning(
                    f"{where}: {len(rest)} more unusable line(s), skipped (lines {rest[0].line} to {rest[-1].line})"
                ),
                path,
                rest[0].line,
            )


def issue_warning_at(config: pytest.Config, warning: Warning, filename: str, lineno: int) -> None:
    """Issue ``warning`` located at a file's line, as pytest issues configure-time warnings.

    pytest's own ``Config.issue_config_time_warning`` locates a warning at the
    caller's frame; this one is located at the line of the data (or ini file) it is about.
    """
    if config.pluginmanager.is_blocked("warnings"):
        return
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always", type(warning))
        apply_warning_filters(config)  # -W and filterwarnings, as pytest applies them
        try:
            warnings.warn_explicit(warning, type(warning), filename, lineno)
        except Warning as exc:  # -W error (or a filterwarnings "error" entry) made it an error
            raise pytest.UsageError(f"{exc} (a warning made an error by -W or filterwarnings)") from None
    for record in records:
        config.hook.pytest_warning_recorded.call_historic(
            kwargs={"warning_message": record, "when": "config", "nodeid": "", "location": None}
        )


def warn_unreadable_timestamps(
    found: list[UnreadableTimestamps], start: Path, warn: Callable[[Warning, str, int], None]
) -> None:
    """One warning per file that holds timestamps the rubric reads but cannot: counted, the
    first few named as ``file:line field value``, located at the first."""
    for stamps in found:
        where = bestrelpath(start, Path(stamps.path))
        named = first_few(stamps.named(where), separator="; ")
        warn(
            SessionEvalInputWarning(
                f"{where}: {stamps.count} timestamp(s) cannot be read, so their windows or events are lost: {named}"
            ),
            stamps.path,
            stamps.first[0][0],
        )
