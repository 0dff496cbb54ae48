"""Command-line options and ini keys: every option both ways, the command line first.

Shared by both plugins (sessions and policy envelopes): the option type, how a value is
read, how an option is named in a message (as the user gave it), and the usage error
that names it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ..core.text import is_utf8, wire_safe
from ._compat import effective_overrides

__all__ = [
    "OPTIONS",
    "Option",
    "add_options",
    "get_option",
    "how_given",
    "is_set",
    "naming_options_as_given",
    "on_command_line",
    "only_informs",
    "option_value",
    "refuse_without_skipping",
    "runs_no_item",
    "typed",
    "usage_error",
    "utf8_path",
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
    Option(
        "--session-eval",
        "session_eval_paths",
        "score the sessions of a sessions.jsonl (.gz too), or of every one in a directory and below it; repeatable",
        "paths",
        "PATH",
    ),
    Option(
        "--session-eval-events",
        "session_eval_events",
        "events.jsonl to attribute events from (default: the one beside sessions.jsonl)",
        "path",
        "PATH",
    ),
    Option(
        "--session-eval-latest",
        "session_eval_latest",
        "score only the newest session of each sessions file that the eligibility rule scores: read from "
        "the last line back, the first record scored wins (the session the reference engine scores by default)",
        "bool",
    ),
    Option("--session-eval-session", "session_eval_sessions", "score only this session id; repeatable", "list", "ID"),
    Option(
        "--session-eval-timestamp",
        "session_eval_timestamp",
        "the eval timestamp, a UTC date-time such as 2026-08-01T00:00:00Z (default: the clock, read once per run)",
        "string",
        "TIMESTAMP",
    ),
    Option(
        "--session-eval-since",
        "session_eval_since",
        "score only sessions that started at or after this date or date-time",
        "string",
        "DATE",
    ),
    Option(
        "--session-eval-until",
        "session_eval_until",
        "score only sessions that started at or before this date (the whole day) or date-time",
        "string",
        "DATE",
    ),
    Option(
        "--session-eval-journal",
        "session_eval_journal",
        "append one session-eval record per scored session to this eval.jsonl journal (needs the "
        "model's id: --session-eval-model-id, or ANTHROPIC_MODEL)",
        "path",
        "PATH",
    ),
    Option(
        "--session-eval-journal-lock-timeout",
        "session_eval_journal_lock_timeout",
        "seconds to wait for the journal's lock, held by another process, before failing with nothing "
        "appended (default: 30)",
        "string",
        "SECONDS",
    ),
    Option(
        "--session-eval-model-id",
        "session_eval_model_id",
        "the model id recorded in journal records (ANTHROPIC_MODEL in the environment wins)",
        "string",
        "ID",
    ),
    Option(
        "--session-eval-model-source",
        "session_eval_model_source",
        "how the model id is known: self-report (default), env or config",
        "string",
        "SOURCE",
    ),
    Option(
        "--session-eval-handle",
        "session_eval_handle",
        "a pseudonym recorded in journal records (default: none, the record is anonymized)",
        "string",
        "HANDLE",
    ),
    Option(
        "--session-eval-verify",
        "session_eval_verify",
        "re-score every record of this journal from the current metrics (--session-eval) and report any drift",
        "path",
        "JOURNAL",
    ),
    Option(
        "--session-eval-judge",
        "session_eval_judge",
        "ask the pytest_sessioneval_judge hook for advisory judge verdicts (off by default)",
        "bool",
    ),
    Option(
        "--session-eval-judge-timeout",
        "session_eval_judge_timeout",
        "seconds a judge may take per session before its dimensions become cannot-determine",
        "string",
        "SECONDS",
    ),
    Option(
        "--session-eval-allow-empty",
        "session_eval_allow_empty",
        "end with exit status 0, not 5 (no tests ran), when no session is scored (every one abandoned, "
        "unfinished, without evidence of work, or left out by the selection)",
        "bool",
    ),
    Option(
        "--session-eval-fast-events",
        "session_eval_fast_events",
        "decode only event lines that can name an event the rubric reads: same verdicts, "
        "faster on large files, but broken lines of other event kinds are not reported",
        "bool",
    ),
    Option(
        "--session-eval-max-line-bytes",
        "session_eval_max_line_bytes",
        "the longest line read from sessions, events, journals and baselines (default: 64MiB), in bytes or "
        "with a KiB, MiB or GiB suffix; a longer line is reported and skipped, never held in memory",
        "string",
        "SIZE",
    ),
    Option(
        "--session-eval-html",
        "session_eval_html",
        "write a self-contained HTML report of the scored sessions to PATH",
        "path",
        "PATH",
    ),
    Option(
        "--session-eval-rubric",
        "session_eval_rubric",
        "the rubric version to score with (default: rubric-v1; others come from the pytest_sessioneval_rubrics hook)",
        "string",
        "VERSION",
    ),
    Option(
        "--session-eval-require",
        "session_eval_require",
        "require a dimension's pass rate over the sessions scored to be at least RATE, as an item "
        "session-eval::require[DIM>=RATE] (e.g. gate-health>=0.8); repeatable",
        "list",
        "DIM>=RATE",
    ),
    Option(
        "--session-eval-require-bound",
        "session_eval_require_bound",
        "what a requirement judges: estimate (the pass rate; default) or lower (the lower bound of its "
        "Wilson interval at 95 percent confidence)",
        "string",
        "BOUND",
    ),
    Option(
        "--session-eval-gate",
        "session_eval_gate",
        "what decides the exit status: all (default: any failed item) or requirements (the requirement and "
        "regression items; session items keep their outcomes)",
        "string",
        "GATE",
    ),
    Option(
        "--session-eval-baseline",
        "session_eval_baseline",
        "an eval journal or JSON summary of an earlier run: one item per dimension fails on a significant drop "
        "of its pass rate",
        "path",
        "PATH",
    ),
    Option(
        "--session-eval-markdown",
        "session_eval_markdown",
        "append the per-dimension summary as Markdown tables to PATH (such as $GITHUB_STEP_SUMMARY)",
        "path",
        "PATH",
    ),
    Option(
        "--session-eval-summary",
        "session_eval_summary",
        "write the per-dimension summary as JSON to PATH (--session-eval-baseline reads it)",
        "path",
        "PATH",
    ),
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
            return [Path(config.invocation_params.dir, utf8_path(option.flag, v)) for v in value]
        if option.kind == "path":
            return Path(config.invocation_params.dir, utf8_path(option.flag, value))
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


def utf8_path(flag: str, spelled: str) -> str:
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
    return _overridden(config, option.ini) and is_set(get_option(config, option))


def _overridden(config: pytest.Config, key: str) -> bool:
    """Whether ``-o`` set the ini key for this run. Before pytest 9 an ``-o`` in ``addopts``
    sets nothing: the overrides that took effect are then the config's own list."""
    return any(entry.split("=", 1)[0] == key for entry in effective_overrides(config))


def _ini_source(config: pytest.Config, key: str) -> str:
    """Where an ini key's value comes from, to name it: ``-o key``, or the key in the ini file."""
    if _overridden(config, key):
        return f"-o {key}"
    return f"ini key {key} in {config.inipath}" if config.inipath else f"ini key {key}"


def how_given(config: pytest.Config, flag: str, options: Sequence[Option] = OPTIONS) -> str:
    """How the user gave ``flag``'s value, to name it in a message: the flag, ``-o`` with its
    ini key, or its ini key in the ini file."""
    if on_command_line(config, flag, options):
        return flag
    return _ini_source(config, _by_flag(flag, options).ini)


def only_informs(config: pytest.Config) -> bool:
    """``--help`` or ``--markers``: pytest shows text and runs nothing, so inputs are not checked
    (a stale ini path must not hide the help that explains it)."""
    return bool(getattr(config.option, "help", False) or getattr(config.option, "markers", False))


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
    (``naming_options_as_given`` names it as the user gave it)."""
    return pytest.UsageError(f"{flag}: {message}")


@contextmanager
def naming_options_as_given(config: pytest.Config, options: Sequence[Option] = OPTIONS) -> Iterator[None]:
    """Name the option of a ``usage_error`` raised within as the user gave it (``how_given``):
    a value set in the ini file is told by its key and the file, or by ``-o`` and the key. An
    option given no value at all keeps its flag (the error is about what it would set)."""
    try:
        yield
    except pytest.UsageError as exc:
        message = str(exc)
        for option in options:
            if message.startswith(f"{option.flag}: "):
                named = how_given(config, option.flag, options)
                if named != option.flag and _has_value(config, option):
                    raise pytest.UsageError(named + message[len(option.flag) :]) from None
                break
        raise


def _has_value(config: pytest.Config, option: Option) -> bool:
    try:
        return is_set(get_option(config, option))
    except pytest.UsageError:  # a value, but an ill-typed one
        return True


def is_set(value: Any) -> bool:
    """Whether an option's value sets anything (an empty or false one clears it)."""
    return value not in (None, False, "", [])
