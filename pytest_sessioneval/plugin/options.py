"""Command-line options and ini keys: every option both ways, the command line first.

Shared by both plugins (sessions and policy envelopes): the option type, how a
value is read, the usage errors for bad paths, and how their data files join
the paths pytest collects.
"""

from __future__ import annotations

import inspect
import os
import stat
import warnings
from collections.abc import Generator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import orjson
import pytest
from _pytest.pathlib import bestrelpath, fnmatch_ex

from ..core.text import is_utf8, wire_safe

__all__ = [
    "OPTIONS",
    "Option",
    "absolute",
    "add_collection_args",
    "add_options",
    "as_given",
    "claim_files",
    "collection_arg",
    "get_option",
    "given_as",
    "is_utf8",
    "issue_warning_at",
    "note_missed_ini_files",
    "on_command_line",
    "only_informs",
    "option_value",
    "other_reports",
    "readable_file",
    "refuse_without_skipping",
    "remember_default_args",
    "runs_no_item",
    "settle_collection_args",
    "typed",
    "usage_error",
    "warn_if_ini_file_was_missed",
]


@dataclass(frozen=True, slots=True)
class Option:
    """One setting: its command-line flag, its ini key and how it reads."""

    flag: str
    ini: str
    help: str
    kind: str = "string"  # string | path | paths | bool | list
    metavar: str | None = None

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")


OPTIONS: tuple[Option, ...] = (
    Option("--session-eval", "session_eval_paths",
           "score the sessions of a sessions.jsonl (or a metrics directory holding one); repeatable",
           "paths", "PATH"),
    Option("--session-eval-events", "session_eval_events",
           "events.jsonl to attribute events from (default: the one beside sessions.jsonl)",
           "path", "PATH"),
    Option("--session-eval-latest", "session_eval_latest",
           "score only the session the reference cascade picks as the latest", "bool"),
    Option("--session-eval-session", "session_eval_sessions",
           "score only this session id; repeatable", "list", "ID"),
    Option("--session-eval-timestamp", "session_eval_timestamp",
           "the eval timestamp, a UTC date-time such as 2026-08-01T00:00:00Z "
           "(default: the clock, read once per run)", "string", "TIMESTAMP"),
    Option("--session-eval-since", "session_eval_since",
           "score only sessions that started at or after this date or date-time", "string", "DATE"),
    Option("--session-eval-until", "session_eval_until",
           "score only sessions that started at or before this date (the whole day) or date-time",
           "string", "DATE"),
    Option("--session-eval-journal", "session_eval_journal",
           "append one session-eval record per scored session to this eval.jsonl journal",
           "path", "PATH"),
    Option("--session-eval-model-id", "session_eval_model_id",
           "the model id recorded in journal records (ANTHROPIC_MODEL in the environment wins)",
           "string", "ID"),
    Option("--session-eval-model-source", "session_eval_model_source",
           "how the model id is known: self-report (default), env or config", "string", "SOURCE"),
    Option("--session-eval-handle", "session_eval_handle",
           "a pseudonym recorded in journal records (default: none, the record is anonymized)",
           "string", "HANDLE"),
    Option("--session-eval-verify", "session_eval_verify",
           "re-score every record of this journal from the current metrics (--session-eval) and "
           "report any drift", "path", "JOURNAL"),
    Option("--session-eval-judge", "session_eval_judge",
           "ask the pytest_sessioneval_judge hook for advisory judge verdicts (off by default)", "bool"),
    Option("--session-eval-judge-timeout", "session_eval_judge_timeout",
           "seconds a judge may take per session before its dimensions become cannot-determine",
           "string", "SECONDS"),
    Option("--session-eval-fast-events", "session_eval_fast_events",
           "decode only event lines that can name an event the rubric reads: same verdicts, "
           "faster on large files, but broken lines of other event kinds are not reported", "bool"),
    Option("--session-eval-html", "session_eval_html",
           "write a self-contained HTML report of the scored sessions to PATH", "path", "PATH"),
    Option("--session-eval-rubric", "session_eval_rubric",
           "the rubric version to score with (default: rubric-v1; others come from the "
           "pytest_sessioneval_rubrics hook)", "string", "VERSION"),
)


def add_options(
    parser: pytest.Parser,
    options: Sequence[Option] = OPTIONS,
    group_name: str = "session-eval",
    description: str = "recorded orchestrator sessions as tests (aiat-llm-eval)",
) -> None:
    """Register every option on the command line and as an ini key."""
    group = parser.getgroup(group_name, description)
    for option in options:
        kwargs: dict[str, Any] = {"dest": option.dest, "help": option.help}
        if option.kind == "bool":
            kwargs.update(action="store_true", default=None)
        elif option.kind in ("paths", "list"):
            kwargs.update(action="append", default=None, metavar=option.metavar)
        else:
            kwargs.update(default=None, metavar=option.metavar)
        group.addoption(option.flag, **kwargs)
        ini_type: Any = {"paths": "paths", "bool": "bool", "list": "linelist"}.get(option.kind, "string")
        parser.addini(option.ini, f"{option.help} ({option.flag})", type=ini_type, default=None)


def get_option(config: pytest.Config, option: Option) -> Any:
    """The command-line value when given, else the ini value; paths come back as ``Path``."""
    value = config.getoption(option.dest)
    if value is not None:
        if option.kind == "paths":
            return [Path(config.invocation_params.dir, _utf8_path(option.flag, v)) for v in value]
        if option.kind == "path":
            return Path(config.invocation_params.dir, _utf8_path(option.flag, value))
        return value
    source = _ini_source(config, option.ini)
    try:
        value = config.getini(option.ini)
    except (pytest.UsageError, TypeError, ValueError) as exc:  # pytest's own message names no key
        message = str(exc)
        if config.inipath and message.startswith(f"{config.inipath}: "):  # said once, by source
            message = message[len(f"{config.inipath}: ") :]
        raise pytest.UsageError(f"{source}: {message}") from None
    if option.kind in ("paths", "list"):
        if isinstance(value, str):  # a TOML string where a list belongs
            value = value.split()
        values = list(value or [])
        if not all(isinstance(v, (str, Path)) for v in values):
            raise pytest.UsageError(f"{source}: expected a list of strings, got {value!r}")
        return values
    if option.kind != "bool" and value is not None and not isinstance(value, str):
        raise pytest.UsageError(f"{source}: expected a string, got {value!r}")
    if option.kind == "bool":
        return bool(value)
    if option.kind == "path" and value:
        base = config.inipath.parent if config.inipath else config.rootpath
        return Path(base, value)
    return value or None


def _utf8_path(flag: str, spelled: str) -> str:
    """``spelled``, or a usage error naming ``flag`` when it is no UTF-8."""
    if not is_utf8(spelled):
        raise usage_error(
            flag,
            f"{wire_safe(spelled)}: the path is not valid UTF-8, which pytest's reports (JUnit XML, "
            "pytest-xdist) cannot carry; rename it, or give a symbolic link whose name is UTF-8",
        )
    return spelled


def _by_flag(flag: str, options: Sequence[Option]) -> Option:
    return next(option for option in options if option.flag == flag)


def option_value(config: pytest.Config, flag: str, options: Sequence[Option] = OPTIONS) -> Any:
    """``get_option`` by flag."""
    return get_option(config, _by_flag(flag, options))


def on_command_line(config: pytest.Config, flag: str, options: Sequence[Option] = OPTIONS) -> bool:
    """Whether ``flag`` was given on the command line (not only in the ini file)."""
    return config.getoption(_by_flag(flag, options).dest) not in (None, False)


def typed(config: pytest.Config, flag: str, options: Sequence[Option] = OPTIONS) -> bool:
    """Whether ``flag`` was given a value for this run: the flag, or its ini key set with ``-o``
    (which wins over the ini file as the flag does) to a value (``-o key=false`` or ``-o key=``
    clears it)."""
    option = _by_flag(flag, options)
    if on_command_line(config, flag, options):
        return True
    return _overridden(config, option.ini) and _is_set(get_option(config, option))


def _overridden(config: pytest.Config, key: str) -> bool:
    """Whether ``-o`` set the ini key for this run. Before pytest 9 an ``-o`` in ``addopts``
    sets nothing: the overrides that took effect are then the config's own list."""
    effective = getattr(config, "_override_ini", None)
    if not isinstance(effective, (list, tuple)):
        effective = config.option.override_ini or ()
    return any(str(entry).split("=", 1)[0] == key for entry in effective)


def _ini_source(config: pytest.Config, key: str) -> str:
    """Where an ini key's value comes from, to name it: ``-o key``, or the key in the ini file."""
    if _overridden(config, key):
        return f"-o {key}"
    return f"ini key {key} in {config.inipath}" if config.inipath else f"ini key {key}"


def given_as(config: pytest.Config, flag: str, options: Sequence[Option] = OPTIONS) -> str:
    """How the user gave ``flag``'s value, to name it in a message: the flag, ``-o`` with its
    ini key, or its ini key in the ini file."""
    if on_command_line(config, flag, options):
        return flag
    return _ini_source(config, _by_flag(flag, options).ini)


def only_informs(config: pytest.Config) -> bool:
    """``--help`` or ``--markers``: pytest shows text and runs nothing, so inputs are not checked
    (a stale ini path must not hide the help that explains it)."""
    return bool(getattr(config.option, "help", False) or getattr(config.option, "markers", False))


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
    apart = [(flag, value) for flag, value in zip(words, words[1:]) if flag in flags and not value.startswith("-")]
    if not apart:
        return None
    try:  # pytest's own (private) lookup, asked as it was asked, and without the values apart
        from _pytest.config.findpaths import determine_setup

        accepted = inspect.signature(determine_setup).parameters
        given = {
            "inifile": config.option.inifilename,
            "override_ini": config.option.override_ini,
            "rootdir_cmd_arg": config.option.rootdir or None,
            "invocation_dir": config.invocation_params.dir,
        }
        asked = {name: value for name, value in given.items() if name in accepted}
        paths = [str(path) for path in config.option.file_or_dir or ()]
        with_values = determine_setup(args=[*paths, *(value for _, value in apart)], **asked)[1]
        without_values = determine_setup(args=paths, **asked)[1]
    except Exception:  # noqa: BLE001  a pytest that looks elsewhere: nothing said rather than a wrong word
        return None
    if with_values != config.inipath or without_values is None or without_values == config.inipath:
        return None
    flag, value = apart[0]
    return MissedIniFile(Path(without_values), flag, value, config.inipath)


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
    def pytest_cmdline_main(self, config: pytest.Config) -> Generator[None, int | pytest.ExitCode | None, int | pytest.ExitCode | None]:
        try:
            return (yield)
        except pytest.UsageError as error:
            missed = missed_ini_file(config, self.options)
            if missed is None:
                raise
            # pytest shows each argument of a usage error as an error line of its own.
            *first, last = error.args or ("",)
            raise pytest.UsageError(*first, f"{last}\n(note: {missed.text(str(missed.path))})") from None


try:  # pytest's own (private) helper; without it the warnings are shown, only unfiltered
    from _pytest.config import apply_warning_filters as _apply_warning_filters
except ImportError:  # pragma: no cover - a future pytest
    _apply_warning_filters = None  # type: ignore[assignment]


def issue_warning_at(config: pytest.Config, warning: Warning, filename: str, lineno: int) -> None:
    """Issue ``warning`` located at a file's line, as pytest issues configure-time warnings.

    pytest's own ``Config.issue_config_time_warning`` locates a warning at the
    caller's frame; this one is located at the line of the data (or ini file) it is about.
    """
    if config.pluginmanager.is_blocked("warnings"):
        return
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always", type(warning))
        if _apply_warning_filters is not None:  # -W and filterwarnings, as pytest applies them
            _apply_warning_filters(config.getini("filterwarnings"), config.known_args_namespace.pythonwarnings or [])
        try:
            warnings.warn_explicit(warning, type(warning), filename, lineno)
        except Warning as exc:  # -W error (or a filterwarnings "error" entry) made it an error
            raise pytest.UsageError(f"{exc} (a warning made an error by -W or filterwarnings)") from None
    for record in records:
        config.hook.pytest_warning_recorded.call_historic(
            kwargs={"warning_message": record, "when": "config", "nodeid": "", "location": None}
        )


def refuse_without_skipping(config: pytest.Config, flag: str) -> None:
    """A usage error under ``-p no:skipping``: outcomes of this package's items are skips and
    xfails by marker, which pytest's skipping plugin carries out; without it they would pass."""
    if config.pluginmanager.is_blocked("skipping"):
        raise usage_error(
            flag,
            "needs pytest's skipping plugin, which -p no:skipping turns off: the skipped and xfailed "
            "outcomes of its items are markers that plugin carries out (without it they would pass)",
        )


def runs_no_item(config: pytest.Config) -> bool:
    """``--co``, ``--setup-only``, ``--setup-plan``, ``--fixtures``, ``--fixtures-per-test`` or
    ``--cache-show``: items may be collected, none runs, so nothing is counted or written."""
    option = config.option
    return any(
        getattr(option, name, False)
        for name in ("collectonly", "setuponly", "setupplan", "showfixtures", "show_fixtures_per_test", "cacheshow")
    )


def usage_error(flag: str, message: str) -> pytest.UsageError:
    """A usage error (exit code 4, no traceback) that names the option by its flag
    (``as_given`` names it as the user gave it)."""
    return pytest.UsageError(f"{flag}: {message}")


@contextmanager
def as_given(config: pytest.Config, options: Sequence[Option] = OPTIONS) -> Iterator[None]:
    """Name the option of a ``usage_error`` raised within as the user gave it (``given_as``):
    a value set in the ini file is told by its key and the file, or by ``-o`` and the key. An
    option given no value at all keeps its flag (the error is about what it would set)."""
    try:
        yield
    except pytest.UsageError as exc:
        message = str(exc)
        for option in options:
            if message.startswith(f"{option.flag}: "):
                named = given_as(config, option.flag, options)
                if named != option.flag and _has_value(config, option):
                    raise pytest.UsageError(named + message[len(option.flag) :]) from None
                break
        raise


def _has_value(config: pytest.Config, option: Option) -> bool:
    try:
        return _is_set(get_option(config, option))
    except pytest.UsageError:  # a value, but an ill-typed one
        return True


def _is_set(value: Any) -> bool:
    """Whether an option's value sets anything (an empty or false one clears it)."""
    return value not in (None, False, "", [])


def absolute(path: Path) -> Path:
    # abspath, not resolve: pytest hands pytest_collect_file the path as given, symlinks kept.
    return Path(os.path.abspath(path))


BROKEN_LINK = "broken link"


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


class WireSafeReports:
    """Makes every test report fit to travel from an xdist worker (see ``wire_safe``)."""

    @pytest.hookimpl(wrapper=True)
    def pytest_report_to_serializable(self, config: pytest.Config, report: Any) -> Any:  # noqa: ARG002
        data = yield
        if data is not None:
            try:
                orjson.dumps(data)  # fast: fails on a lone surrogate (or an exotic type)
            except TypeError:
                return wire_safe(data)
        return data


class WireSafeTexts:
    """Makes the texts of this package's reports ``wire_safe`` as they are made, so that a
    run without xdist reports them as xdist carries them: a lone surrogate in a failure
    text or a skip reason (a session id in the evidence, say) reads as its escape in both.
    (Outcome markers carry ``wire_safe`` reasons already, so xfail reasons need nothing.)"""

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: Any) -> Any:  # noqa: ARG002
        report = yield
        if getattr(item, "wire_safe_texts", False) and isinstance(report.longrepr, (str, tuple)):
            report.longrepr = wire_safe(report.longrepr)
        return report


_WIRE_SAFETY = "sessioneval-wire-safety"
_WIRE_SAFE_TEXTS = "sessioneval-wire-safe-texts"


def register_wire_safety(config: pytest.Config) -> None:
    """Register ``WireSafeTexts`` once, and ``WireSafeReports`` when pytest-xdist is installed."""
    manager = config.pluginmanager
    if not manager.has_plugin(_WIRE_SAFE_TEXTS):
        manager.register(WireSafeTexts(), _WIRE_SAFE_TEXTS)
    if manager.hasplugin("xdist") and not manager.has_plugin(_WIRE_SAFETY):
        manager.register(WireSafeReports(), _WIRE_SAFETY)


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
            raise pytest.UsageError(f"{report} {where} is {held} of this run: the report would replace it, or be read as it")


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
    reports = [
        (getattr(option, "xmlpath", None), "the JUnit XML report (--junitxml)", lambda where: os.path.normpath(expanded(where))),
        (getattr(option, "htmlpath", None), "the pytest-html report (--html)", expanded),
    ]
    if getattr(option, "json_report", False):
        reports.insert(1, (getattr(option, "json_report_file", None), "the JSON report (--json-report-file)", as_written))
    return [(spell(where), what) for where, what, spell in reports if isinstance(where, str) and where]


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
        with open(path, "rb"):
            pass
    except OSError as exc:
        raise usage_error(flag, f"{path}: cannot be read ({exc.strerror or exc})") from None
    return path


_DEFAULT_ARGS = pytest.StashKey[list[str]]()


def remember_default_args(config: pytest.Config) -> None:
    """Note the paths pytest would collect before any plugin adds its data files."""
    config.stash.setdefault(_DEFAULT_ARGS, list(config.args))


def add_collection_args(config: pytest.Config, files: Sequence[Path], flag: str, *, from_ini: bool = False) -> None:
    """Have the plugins' data files collected (see ``_CollectionArgs`` for which, when);
    ``from_ini``: they are named by ini keys only, not on the command line.

    Each is passed to pytest relative to where it was started, so that only its own
    name can hold what a pytest path may not (``[`` or ``::``, which pytest reads as
    a node id's parts): that is a usage error naming ``flag``, raised now, on every
    process (under xdist a worker's collection error would go unreported).
    """
    for path in files:
        try:
            spelled = os.path.relpath(path, config.invocation_params.dir)
        except ValueError:  # another drive
            spelled = str(path)
        if "[" in spelled or "::" in spelled:
            raise usage_error(
                flag,
                f"{spelled}: pytest cannot collect a path containing '[' or '::' (it reads them as "
                "parts of a node id); rename it, or give a symbolic link without them",
            )
        _utf8_path(flag, spelled)
        config.stash.setdefault(_DATA_FILES, []).append((spelled, from_ini))
    if not config.pluginmanager.has_plugin(_COLLECTION_ARGS):
        config.pluginmanager.register(_CollectionArgs(), _COLLECTION_ARGS)


def collection_arg(start: Path, arg: str) -> tuple[Path, list[str], str | None]:
    """A path pytest collects (``arg``, given where pytest was started), as pytest parses it: the
    path, the node names after it, and the parametrization, which starts at the first "["."""
    base, bracket, rest = arg.partition("[")
    spelled, *parts = base.split("::")
    return absolute(start / spelled), parts, (bracket + rest if bracket else None)


def data_file_node_id(config: pytest.Config, path: Path) -> str:
    """The node id of a data file's collector: its path from the rootdir, as pytest names a
    file inside it, and with ``..`` steps outside it. pytest would name a file outside the
    rootdir by its path from the command-line argument holding it, which is empty for the
    file itself: two data files would share their items' node ids, and a node id copied
    from the output would select nothing."""
    return bestrelpath(config.rootpath, path).replace(os.sep, "/")


def settle_collection_args(config: pytest.Config) -> None:
    """Have ``config.args`` name the paths pytest will collect, data files included, now:
    for a plugin that reads them at session start, whichever runs first."""
    collection_args = config.pluginmanager.get_plugin(_COLLECTION_ARGS)
    if collection_args is not None:
        collection_args.settle(config)


def _let_last_failed_find_data_outside_the_rootdir(config: pytest.Config) -> None:
    """``--lf`` knows the files of the failures it reruns as the rootdir joined with their node
    id's path, not normalised: for a data file outside the rootdir (``../data/sessions.jsonl``,
    see ``data_file_node_id``) that path never equals the file's, and once a test of another
    file failed too, pytest skipped the data file. Its normalised form is added (pytest's
    own, private, record of them; left alone where a pytest keeps it otherwise)."""
    last_failed = config.pluginmanager.get_plugin("lfplugin")
    paths = getattr(last_failed, "_last_failed_paths", None)
    if not isinstance(paths, set):
        return
    for path in [path for path in paths if isinstance(path, Path) and ".." in path.parts]:
        normal = Path(os.path.normpath(path))
        if normal.exists():
            paths.add(normal)
            paths.update(normal.parents)


# Each data file as passed to pytest (relative to the invocation dir), and whether only an
# ini key names it.
_DATA_FILES = pytest.StashKey[list[tuple[str, bool]]]()
_COLLECTION_ARGS = "sessioneval-collection-args"


class _CollectionArgs:
    """Sets the paths to collect once every plugin of this package has named its data files.

    - Nothing named on the command line (no test path, no data): the data files of the ini
      file join what pytest collects by default (``testpaths``, or the rootdir), as any part
      of the test suite.
    - Data named on the command line: it is collected, alone (not the whole rootdir, nor
      ``testpaths``) or with the test paths given (``pytest tests/ --session-eval m``).
    - Either way, once anything is named on the command line, the data files of the ini
      file count as ``testpaths`` do: they run only where a directory given holds them
      (``pytest .``), so ``pytest tests/test_x.py`` runs that file alone.
    - A data file or a node id in one given (``pytest ... "m/sessions.jsonl::s[gate-health]"``):
      exactly what was given, as for any test file; no other data file is added.

    Another plugin may already have replaced the default paths with its own data;
    those stay. A path is never added twice.
    """

    def __init__(self) -> None:
        self._way: set[Path] = set()  # the data files and the directories on their way
        self._closed: list[Path] = []  # the skipped directories opened for a data file
        self._settled = False

    # At session start, not at collection: --fixtures and --fixtures-per-test collect
    # without calling the pytest_collection hook.
    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.settle(session.config)
        _let_last_failed_find_data_outside_the_rootdir(session.config)

    def settle(self, config: pytest.Config) -> None:
        """Set ``config.args`` to what is collected; once (see ``settle_collection_args``)."""
        if self._settled:
            return
        self._settled = True
        start = config.invocation_params.dir
        files = config.stash.get(_DATA_FILES, [])
        paths_named = bool(config.option.file_or_dir)
        data_named = not all(from_ini for _, from_ini in files)
        if not paths_named and data_named and config.args == config.stash.get(_DEFAULT_ARGS, None):
            config.args[:] = []
        present = {collection_arg(start, arg)[0] for arg in config.args}
        wanted = {absolute(start / spelled): (spelled, from_ini) for spelled, from_ini in files}
        if paths_named and not present.isdisjoint(wanted):
            return  # the data files to run were named
        given = [path for path in present if path.is_dir()]
        way = []
        for path, (spelled, from_ini) in wanted.items():
            inside = any(path.is_relative_to(directory) for directory in given)
            if from_ini and (paths_named or data_named):  # as testpaths: only inside a directory given
                if inside:
                    way.append(path)
                continue
            if path not in present and not inside:
                # (Collected from a directory given, it is no argument of its own: pytest 8.0
                # would collect nothing else of that directory.)
                config.args.append(spelled)
            way.append(path)
        self._open_the_way(config, way)

    def _open_the_way(self, config: pytest.Config, files: list[Path]) -> None:
        """Let collection reach each data file through directories pytest skips (``.orchestrator/``
        and the rest of ``norecursedirs``), and through nothing else in them.

        A data file inside a directory that is also collected (``pytest .``, or the rootdir
        that an ini-only run collects) is no argument of its own for pytest (one path
        inside another is collected from the outer one), so its way is opened here.
        """
        patterns = config.getini("norecursedirs")
        self._way.update(files)
        for file in files:
            for directory in file.parents:
                self._way.add(directory)
                if any(fnmatch_ex(pattern, directory) for pattern in patterns):
                    self._closed.append(directory)

    @pytest.hookimpl(tryfirst=True)
    def pytest_ignore_collect(self, collection_path: Path, config: pytest.Config) -> bool | None:  # noqa: ARG002
        path = Path(os.path.abspath(collection_path))
        if path in self._way:
            return False
        if any(path.is_relative_to(closed) for closed in self._closed):
            return True  # anything else inside a skipped directory stays skipped
        return None
