"""Paths as the plugins use them: made absolute, checked for reading or writing, and
claimed, so that no output of a run lands on a file the run reads.

Every check that names a path the user gave raises a usage error naming the option.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from ..core.io import BROKEN_LINK, open_input, stat_kind
from .options import usage_error

__all__ = [
    "absolute",
    "claim_files",
    "file_identity",
    "not_a_file",
    "other_reports",
    "path_kind",
    "readable_file",
    "writable_file",
]


def absolute(path: Path) -> Path:
    # abspath, not resolve: pytest hands pytest_collect_file the path as given, symlinks kept.
    return Path(os.path.abspath(path))


def path_kind(flag: str, path: Path) -> str | None:
    """``stat_kind``, with a path the system refuses to look at made a usage error naming ``flag``."""
    try:
        return stat_kind(path)
    except OSError as exc:
        raise usage_error(flag, f"{path}: cannot be used ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise usage_error(flag, f"{path!r}: not a usable path ({exc})") from None


def not_a_file(kind: str | None) -> str:
    """Why a path of this ``stat_kind`` (something, but no regular file) cannot be read."""
    return "a broken symbolic link" if kind == BROKEN_LINK else "not a file"


def readable_file(flag: str, path: Path) -> Path:
    """``path`` made absolute (as pytest reads a path: "a/link/.." is "a"), or a usage error
    saying why that file cannot be read."""
    path = absolute(path)
    kind = path_kind(flag, path)
    if kind is None:
        raise usage_error(flag, f"{path}: no such file or directory")
    if kind != "file":
        raise usage_error(flag, f"{path}: {not_a_file(kind)}")
    try:
        with open_input(path):
            pass
    except OSError as exc:
        raise usage_error(flag, f"{path}: cannot be read ({exc.strerror or exc})") from None
    return path


def file_identity(path: Path) -> object:
    """What is the same for every name of one file: symbolic and hard links, any spelling."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        resolved = os.path.realpath(path)  # nothing there yet, or not yet on the way ("new/../x")
        try:
            found = os.stat(resolved)
        except (OSError, ValueError):
            return resolved  # its resolved name
    return (found.st_dev, found.st_ino)


_CLAIMS = pytest.StashKey[tuple[dict[object, str], dict[object, tuple[str, Path]]]]()


def claim_files(
    config: pytest.Config,
    reads: Sequence[tuple[Path, str]] = (),
    writes: Sequence[tuple[Path, str]] = (),
) -> None:
    """Note what each plugin of this package reads (``(path, what it is)``) and writes
    (``(path, its flag)``) in this run: a usage error, before anything runs, when one
    would write to a file that the other reads, or another plugin's report (``other_reports``)
    to a file that either reads (under any spelling or link)."""
    read, written = config.stash.setdefault(_CLAIMS, ({}, {}))
    for path, what in reads:
        read.setdefault(file_identity(path), what)
    for path, flag in writes:
        written[file_identity(path)] = (flag, path)
    for identity, (flag, path) in written.items():
        if identity in read:
            raise usage_error(flag, f"{path} is {read[identity]} of this run; it would be written to")
    for where, report in other_reports(config):
        held = read.get(file_identity(Path(where)))
        if held is not None:
            raise pytest.UsageError(
                f"{report} {where} is {held} of this run: the report would replace it, or be read as it"
            )


def other_reports(config: pytest.Config) -> list[tuple[str, str]]:
    """The files that pytest's JUnit XML, pytest-json-report and pytest-html write in this run."""
    option = config.option

    def expanded(where: str) -> str:
        # From the directory of the moment (a conftest may have changed it), as both plugins do
        # in their own pytest_configure.
        return os.path.join(os.getcwd(), os.path.expanduser(os.path.expandvars(where)))

    def as_written(where: str) -> str:
        # Written at the end of the run, when pytest is back in the directory it started in.
        return os.path.join(config.invocation_params.dir, where)

    # Each path as its plugin reads it: JUnit XML expands ~ and $VARIABLES and normalises the
    # path ("a/link/.." is "a"), pytest-html expands them, pytest-json-report takes it as written.
    reports: list[tuple[object, str, Callable[[str], str]]] = [
        (
            getattr(option, "xmlpath", None),
            "the JUnit XML report (--junitxml)",
            lambda where: os.path.normpath(expanded(where)),
        ),
        (getattr(option, "htmlpath", None), "the pytest-html report (--html)", expanded),
    ]
    if getattr(option, "json_report", False):
        reports.insert(
            1, (getattr(option, "json_report_file", None), "the JSON report (--json-report-file)", as_written)
        )
    return [(spell(where), what) for where, what, spell in reports if isinstance(where, str) and where]


def writable_file(flag: str, path: Path, make_directories: bool = False) -> Path:
    """``path`` made absolute, or a usage error saying why that file cannot be written. With
    ``make_directories`` (a report file, as ``--junitxml`` and ``--html`` do) its missing
    directories are made when it is written: the nearest one that exists must be writable."""
    kind = path_kind(flag, path)
    if kind not in (None, BROKEN_LINK, "file"):  # writing through a link to nothing creates its target
        raise usage_error(flag, f"{path}: not a file")
    # A link to nothing is written through: its target's directory must exist.
    where = Path(os.path.realpath(path)).parent if kind == BROKEN_LINK else path.parent
    into = where
    if path_kind(flag, where) != "dir":
        if not make_directories:
            raise usage_error(flag, f"{path}: directory {where} does not exist")
        while (found := path_kind(flag, into)) is None and into.parent != into:
            into = into.parent
        if found != "dir":
            raise usage_error(flag, f"{path}: directory {where} cannot be made: {into} is not a directory")
    if not os.access(path if kind == "file" else into, os.W_OK):
        raise usage_error(flag, f"{path}: not writable")
    return absolute(path)
