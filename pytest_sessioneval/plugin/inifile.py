"""An ini file pytest missed: a value given apart from its flag made it look elsewhere.

pytest picks its ini file (and rootdir) before plugin options are known, from what looks
like a path on the command line: a value apart from its flag (``--session-eval
/data/metrics``) is taken for a test path then. ``--session-eval=/data/metrics`` is not.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from itertools import pairwise
from pathlib import Path
from typing import NamedTuple

import pytest

from ._compat import determine_inifile
from .input_warnings import issue_warning_at
from .options import Option

__all__ = ["MissedIniFile", "missed_ini_file", "note_missed_ini_files", "warn_if_ini_file_was_missed"]


class MissedIniFile(NamedTuple):
    """An ini file pytest did not read because of a value given apart from its flag."""

    path: Path
    flag: str
    value: str
    read: Path | None  # the ini file pytest read instead

    def text(self, missed: str) -> str:
        return (
            f"{self.flag} {self.value}: pytest took {self.value} for a test path when it looked for its ini "
            f"file, and so read {self.read or 'no ini file'} instead of {missed}; write {self.flag}={self.value}"
        )


def missed_ini_file(config: pytest.Config, options: Sequence[Option]) -> MissedIniFile | None:
    """The ini file a value given apart from its flag (``--session-eval /data/metrics``) made
    pytest miss: the one it would have read without that value. ``None`` when there is none.

    pytest picks its ini file (and rootdir) before plugin options are known, from what looks
    like a path on the command line: a value apart from its flag is taken for a test path
    then. ``--session-eval=/data/metrics`` is not.
    """
    words = list(config.invocation_params.args)
    flags = {option.flag for option in options if option.kind != "bool"}
    apart = [(flag, value) for flag, value in pairwise(words) if flag in flags and not value.startswith("-")]
    if not apart:
        return None
    # pytest's own lookup, asked as it was asked, and without the values apart.
    paths = [str(path) for path in config.option.file_or_dir or ()]
    with_values = determine_inifile(config, [*paths, *(value for _, value in apart)])
    without_values = determine_inifile(config, paths)
    if with_values is False or not isinstance(without_values, Path):
        return None  # a pytest that looks elsewhere says nothing rather than a wrong word; or none missed
    if with_values != config.inipath or without_values == config.inipath:
        return None
    flag, value = apart[0]
    return MissedIniFile(without_values, flag, value, config.inipath)


def warn_if_ini_file_was_missed(config: pytest.Config, options: Sequence[Option]) -> None:
    """Warn, located at the ini file, when a value apart from its flag made pytest miss it."""
    missed = missed_ini_file(config, options)
    if missed is not None:
        issue_warning_at(config, pytest.PytestConfigWarning(missed.text("this one")), str(missed.path), 1)


def note_missed_ini_files(pluginmanager: pytest.PytestPluginManager, options: Sequence[Option]) -> None:
    """Have a usage error at configure or session start say which ini file a value of
    ``options`` given apart from its flag made pytest miss (for every plugin that asks, once)."""
    note = pluginmanager.get_plugin(_MISSED_INI_NOTE)
    if note is None:
        note = _MissedIniNote()
        pluginmanager.register(note, _MISSED_INI_NOTE)
    note.options.extend(options)


_MISSED_INI_NOTE = "sessioneval-missed-ini-note"


class _MissedIniNote:
    """Adds the ini file pytest missed to a usage error that stops the run: the warning that
    says so is never shown then, and the keys of that file going unread may well be what
    the error is about ("needs an envelope set" when the ini file names one)."""

    def __init__(self) -> None:
        self.options: list[Option] = []

    # Around the whole run: configure (a historic hook, which takes no wrapper) and session
    # start both happen inside it, and pytest shows a usage error that leaves it.
    @pytest.hookimpl(wrapper=True)
    def pytest_cmdline_main(
        self, config: pytest.Config
    ) -> Generator[None, int | pytest.ExitCode | None, int | pytest.ExitCode | None]:
        try:
            return (yield)
        except pytest.UsageError as error:
            missed = missed_ini_file(config, self.options)
            if missed is None:
                raise
            # pytest shows each argument of a usage error as an error line of its own.
            *first, last = error.args or ("",)
            raise pytest.UsageError(*first, f"{last}\n(note: {missed.text(str(missed.path))})") from None
