"""The session-eval options of a run, read and checked once: one frozen ``Settings``.

Every usage error about what the user gave is raised while ``read_settings`` reads it,
each naming its option as the user gave it (the flag, ``-o`` and the key, or the key in
the ini file: ``options.naming_options_as_given``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from contextvars import Token
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from ..core.engine import Selection
from ..core.io import DEFAULT_MAX_LINE_BYTES, reset_max_line_bytes, set_max_line_bytes
from ..core.rubric import Rubric
from ..core.text import byte_size, is_utf8
from ..core.timestamps import parse_timestamp_ms
from ..core.values import JS_WHITESPACE, is_blank
from ..judge import Judge
from ..records.journal import foreign_to_journal, is_journal
from ..records.schema import MODEL_SOURCES
from ..report.gates import BOUNDS, GATES, Bound, Gate, Requirement, parse_requirement
from ..rubrics import RUBRIC_V1
from .files import absolute, file_identity, path_kind, readable_file, writable_file
from .hook_calls import judges, registered_rubrics
from .inifile import warn_if_ini_file_was_missed
from .inputs import refuse_overwriting_inputs, resolve_sources
from .options import (
    OPTIONS,
    how_given,
    only_informs,
    option_value,
    refuse_without_skipping,
    typed,
    usage_error,
)
from .xdist import from_controller, is_worker

__all__ = ["Settings", "read_settings", "restore_line_limit"]

#: Seconds an append waits for the journal's lock (--session-eval-journal-lock-timeout).
_LOCK_TIMEOUT = 30.0


@dataclass(frozen=True)
class Settings:
    """What the options of one run ask for, checked.

    ``sources``: each sessions file to score, with its events file (``None``: none);
    ``sessions_given``: every place a sessions file was given (a file reached twice is
    scored once, but each place it was given is an input); ``report_journals``: the
    journals given as input, shown as they are; ``notes``: what the summary says of the
    options themselves; ``requirements`` and ``baseline_path``: what the run is gated on
    (``gate``: whether only that decides its exit status).
    """

    sources: Mapping[Path, Path | None]
    sessions_given: tuple[Path, ...]
    report_journals: tuple[Path, ...]
    verify_path: Path | None
    selection: Selection
    timestamp: str
    rubric: Rubric
    rubrics: Mapping[str, Rubric]
    rubric_plugins: Mapping[str, str]  # the plugin that registered each rubric but rubric-v1, by version
    judges: tuple[Judge, ...] | None
    judge_timeout: float | None
    journal_path: Path | None
    model: Mapping[str, str]
    handle: str | None
    html_path: Path | None
    check_every_event_line: bool
    allow_empty: bool = False
    notes: tuple[str, ...] = ()
    requirements: tuple[Requirement, ...] = ()
    require_bound: Bound = "estimate"
    gate: Gate = "all"
    baseline_path: Path | None = None
    markdown_path: Path | None = None
    summary_path: Path | None = None
    journal_lock_timeout: float = _LOCK_TIMEOUT

    def collected_paths(self) -> list[Path]:
        """The files that become pytest collectors (re-verification collects only its journal)."""
        if self.verify_path is not None:
            return [self.verify_path]
        return [*self.sources, *self.report_journals]


def read_settings(config: pytest.Config) -> Settings | None:
    """The run's settings; ``None`` when it evaluates no session (nor re-verifies a journal).
    Raises ``pytest.UsageError`` for anything given that cannot be used."""
    if only_informs(config):
        return None
    if not is_worker(config):
        warn_if_ini_file_was_missed(config, OPTIONS)
    # Each path as pytest reads one ("a/link/.." is "a"), before anything is told from it.
    paths = [absolute(path) for path in option_value(config, "--session-eval") or []]
    verify = option_value(config, "--session-eval-verify")
    if not paths and not verify:
        return None
    refuse_without_skipping(config, "--session-eval-verify" if verify and not paths else "--session-eval")
    if verify and not paths:
        raise usage_error("--session-eval-verify", "needs --session-eval to name the metrics to re-score")
    _set_line_limit(config)  # before any input is read
    journals = [p for p in paths if path_kind("--session-eval", p) == "file" and is_journal(p)]
    sources, sessions_given = resolve_sources(config, [p for p in paths if p not in journals])
    selection = _selection(config, verify=bool(verify), journals=journals if not sources else [])
    timestamp = _eval_timestamp(config)
    rubrics, rubric_plugins = registered_rubrics(config)
    version = option_value(config, "--session-eval-rubric")
    version = RUBRIC_V1.version if version is None else version  # an empty one typed is unknown
    if version not in rubrics:
        raise usage_error("--session-eval-rubric", f"unknown rubric {version!r} (registered: {', '.join(rubrics)})")
    judging = option_value(config, "--session-eval-judge")
    asked = tuple(judges(config)) if judging else None
    judge_timeout = _judge_timeout(config) if judging else None
    verify_path = None
    notes: tuple[str, ...] = ()
    if verify:
        verify_path = _journal_to_verify(config, verify, journals, bool(sources))
    elif journals and sources:
        notes = _journals_shown_whole(config, selection)
    journal = option_value(config, "--session-eval-journal")
    journal_path = None
    if journal is not None and not is_worker(config) and not verify:
        journal_path = writable_file("--session-eval-journal", journal)
        model = _record_model(config, required=True)
        lock_timeout = _lock_timeout(config)
    else:
        model = _record_model(config, required=False)
        lock_timeout = _LOCK_TIMEOUT
    handle = option_value(config, "--session-eval-handle")
    if handle is not None and is_blank(_utf8_text("--session-eval-handle", handle)):
        raise usage_error("--session-eval-handle", "is blank; leave it out for an anonymised record")
    html = option_value(config, "--session-eval-html")
    html_path = (
        writable_file("--session-eval-html", html, make_directories=True)
        if html is not None and not is_worker(config)
        else None
    )
    gating = _gating(config, rubrics[version], verify=bool(verify))
    settings = Settings(
        sources=sources,
        sessions_given=tuple(sessions_given),
        report_journals=tuple(journals),
        verify_path=verify_path,
        selection=selection,
        timestamp=timestamp,
        rubric=rubrics[version],
        rubrics=rubrics,
        rubric_plugins=rubric_plugins,
        judges=asked,
        judge_timeout=judge_timeout,
        journal_path=journal_path,
        model=model,
        handle=handle,
        html_path=html_path,
        check_every_event_line=not option_value(config, "--session-eval-fast-events"),
        allow_empty=bool(option_value(config, "--session-eval-allow-empty")),
        notes=notes,
        journal_lock_timeout=lock_timeout,
        **gating,
    )
    refuse_overwriting_inputs(config, settings)
    return settings


def _journal_to_verify(config: pytest.Config, verify: Path, journals: list[Path], has_sources: bool) -> Path:
    """The journal ``--session-eval-verify`` names, checked against the rest of the run."""
    verify_path = readable_file("--session-eval-verify", verify)
    try:
        what = foreign_to_journal(verify_path)
    except OSError as exc:
        raise usage_error("--session-eval-verify", f"{verify_path}: cannot be read ({exc.strerror or exc})") from None
    if what is not None:
        raise usage_error(
            "--session-eval-verify",
            f"{verify_path}: is not an eval journal ({what}); give the journal to re-verify, "
            "and the metrics to --session-eval",
        )
    if journals and not has_sources:
        raise usage_error(
            "--session-eval",
            f"{', '.join(map(str, journals))}: a journal; re-verification needs the metrics "
            "(sessions.jsonl) to score again, given to --session-eval",
        )
    # Re-verification shows only its journal: another one typed is a mistake, one the ini
    # file lists is left out (as its selection keys are).
    target = file_identity(verify_path)
    others = [p for p in journals if file_identity(p) != target]
    if others and typed(config, "--session-eval"):
        raise usage_error(
            "--session-eval",
            f"{', '.join(map(str, others))}: a journal given as input; "
            f"re-verification shows only the journal it re-verifies ({how_given(config, '--session-eval-verify')}): "
            "show this one in a run of its own",
        )
    if typed(config, "--session-eval-journal"):  # (set in the ini file, it is left out)
        raise usage_error(
            "--session-eval-journal",
            "re-verification appends no record; append in a run without --session-eval-verify",
        )
    return verify_path


_GATING = (
    "--session-eval-require",
    "--session-eval-require-bound",
    "--session-eval-gate",
    "--session-eval-baseline",
    "--session-eval-markdown",
    "--session-eval-summary",
)


def _gating(config: pytest.Config, rubric: Rubric, *, verify: bool) -> dict[str, Any]:
    """The requirements, the baseline and the gate, checked, with the summary files to write.

    Re-verification judges no pass rate: one of these typed for it is a mistake; set in the
    ini file, they are left out of it.
    """
    if verify:
        given = [flag for flag in _GATING if typed(config, flag)]
        if given:
            raise usage_error(
                given[0],
                f"does not apply to re-verification ({how_given(config, '--session-eval-verify')}), which "
                "judges no pass rate; use it in a run that scores sessions",
            )
        return {}
    requirements: list[Requirement] = []
    for text in option_value(config, "--session-eval-require") or []:
        try:
            requirement = parse_requirement(text)
        except ValueError as exc:
            raise usage_error("--session-eval-require", str(exc)) from None
        if requirement.dimension not in rubric.dimension_ids:
            advisory = (
                " is a judge dimension: advisory and uncalibrated, it never decides an outcome"
                if requirement.dimension in rubric.judge_ids
                else " is no dimension of it"
            )
            raise usage_error(
                "--session-eval-require",
                f"{text!r}: {requirement.dimension!r}{advisory}; the dimensions of {rubric.version} are "
                f"{', '.join(rubric.dimension_ids)}",
            )
        if any(other.text == requirement.text for other in requirements):
            raise usage_error("--session-eval-require", f"{requirement.text} is given twice")
        requirements.append(requirement)
    bound = option_value(config, "--session-eval-require-bound")
    bound = "estimate" if bound is None else bound  # an empty one typed is none of them
    if bound not in BOUNDS:
        raise usage_error("--session-eval-require-bound", f"{bound!r} is not one of {', '.join(BOUNDS)}")
    gate = option_value(config, "--session-eval-gate")
    gate = "all" if gate is None else gate
    if gate not in GATES:
        raise usage_error("--session-eval-gate", f"{gate!r} is not one of {', '.join(GATES)}")
    baseline = option_value(config, "--session-eval-baseline")
    baseline_path = readable_file("--session-eval-baseline", baseline) if baseline is not None else None
    if gate == "requirements" and not requirements and baseline_path is None:
        raise usage_error(
            "--session-eval-gate",
            "requirements: no requirement (--session-eval-require) nor baseline (--session-eval-baseline) is "
            "given, so nothing would decide the exit status; give one, or leave the gate out",
        )
    outputs: dict[str, Path | None] = {}
    for flag, key in (("--session-eval-markdown", "markdown_path"), ("--session-eval-summary", "summary_path")):
        given = option_value(config, flag)
        outputs[key] = (
            writable_file(flag, given, make_directories=True) if given is not None and not is_worker(config) else None
        )
    return {
        "requirements": tuple(requirements),
        "require_bound": bound,
        "gate": gate,
        "baseline_path": baseline_path,
        **outputs,
    }


_DAY_MS = 86_400_000


def _date_bound(config: pytest.Config, flag: str, end_of_day: bool) -> int | None:
    value = option_value(config, flag)
    if value is None:
        return None
    ms = parse_timestamp_ms(value)
    if ms is None:
        raise usage_error(flag, f"{value!r} is not a date (YYYY-MM-DD) or an RFC 3339 date-time")
    if end_of_day and len(value) == 10:
        ms += _DAY_MS - 1
    return ms


# The eval timestamp as the clock gives it: a run_id drops its "-", ":" and ".", which
# keeps two such spellings apart (offsets and zone-less times do not stay apart).
_UTC_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z", re.ASCII)


def _eval_timestamp(config: pytest.Config) -> str:
    given = option_value(config, "--session-eval-timestamp")
    if given is not None:
        if not _UTC_DATE_TIME.fullmatch(given) or parse_timestamp_ms(given) is None:
            raise usage_error(
                "--session-eval-timestamp",
                f"{given!r} is not a UTC date-time such as "
                "2026-08-01T00:00:00Z (a run_id keeps its digits alone, so an offset or a missing zone could "
                "give two evaluation times one run_id)",
            )
        # A fraction is written in milliseconds, as the clock writes it (digits beyond them cut
        # off, as every timestamp is read): …00.5Z, …00.500Z and …00.5000000Z are one run_id.
        # Without a fraction it stays as given: journals hold run_ids of that spelling already.
        whole, dot, fraction = given[:-1].partition(".")
        return f"{whole}.{(fraction + '00')[:3]}Z" if dot else given
    handed = from_controller(config, "session_eval_timestamp")
    if handed is not None:  # the clock is read once per run, by the controller
        return str(handed)
    now = datetime.now(timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


_SELECTING = ("--session-eval-session", "--session-eval-latest", "--session-eval-since", "--session-eval-until")


def _selection(config: pytest.Config, *, verify: bool, journals: list[Path]) -> Selection:
    """The sessions to score, as the options select them (the command line over the ini file).

    Re-verification re-scores every record of its journal, and journals given alone show every
    record: there is no session to select. An option typed for the run is a mistake then;
    ini keys are left out, whatever they hold.
    """
    if verify or journals:
        given = [flag for flag in _SELECTING if typed(config, flag)]
        if given and verify:
            raise usage_error(
                given[0],
                f"does not apply to re-verification, which re-scores every record "
                f"of the journal ({how_given(config, '--session-eval-verify')}); select records with -k or a node id",
            )
        if given:
            raise usage_error(
                given[0],
                f"selects sessions of sessions files, and "
                f"{', '.join(map(str, journals))} is a journal, whose every record is shown; select records with "
                "-k or a node id",
            )
        return Selection()
    named = frozenset(option_value(config, "--session-eval-session")) or None
    latest = option_value(config, "--session-eval-latest")
    if latest and named:
        # The command line wins over the ini file; given the same way, the two contradict.
        named_here, latest_here = (typed(config, flag) for flag in ("--session-eval-session", "--session-eval-latest"))
        if named_here and not latest_here:
            latest = False
        elif latest_here and not named_here:
            named = None
        else:
            raise usage_error(
                "--session-eval-latest",
                f"picks one session itself, so it does not combine "
                f"with {how_given(config, '--session-eval-session')}: give one of them",
            )
    selection = Selection(
        session_ids=named,
        latest=latest,
        explicit=named is not None,  # a session named is scored whatever its eligibility
        since_ms=_date_bound(config, "--session-eval-since", False),
        until_ms=_date_bound(config, "--session-eval-until", True),
    )
    if selection.since_ms is not None and selection.until_ms is not None and selection.since_ms > selection.until_ms:
        raise usage_error(
            "--session-eval-until",
            f"{option_value(config, '--session-eval-until')} is before "
            f"{how_given(config, '--session-eval-since')} {option_value(config, '--session-eval-since')}: no session "
            "could be selected",
        )
    return selection


def date_range(config: pytest.Config) -> str:
    """The date range as given, for the summary: "the date range since A until B (how given)"."""
    bounds = {
        word: flag
        for word, flag in (("since", "--session-eval-since"), ("until", "--session-eval-until"))
        if option_value(config, flag) is not None
    }
    return (
        "the date range "
        + " ".join(f"{word} {option_value(config, flag)}" for word, flag in bounds.items())
        + (f" ({', '.join(how_given(config, flag) for flag in bounds.values())})")
    )


def _journals_shown_whole(config: pytest.Config, selection: Selection) -> tuple[str, ...]:
    """Beside sessions files, a journal given as input still shows every record it holds: the
    summary says that the options selecting sessions selected those of the sessions files."""
    selecting = [
        flag
        for flag, given in zip(
            _SELECTING,
            (
                selection.session_ids is not None,
                selection.latest,
                selection.since_ms is not None,
                selection.until_ms is not None,
            ),
        )
        if given
    ]
    if not selecting:
        return ()
    return (
        f"{', '.join(how_given(config, flag) for flag in selecting)} selected sessions of the sessions "
        "files only: the journal(s) given as input show every record",
    )


_LINE_LIMIT = pytest.StashKey[Token[int]]()  # the token that restores the line limit the run replaced
_LARGEST_LINE_LIMIT = 4 << 30
_SIZE = re.compile(r"\s*([0-9]+)\s*(|b|bytes?|kib|mib|gib)\s*", re.ASCII | re.IGNORECASE)
_UNITS = {"": 0, "b": 0, "byte": 0, "bytes": 0, "kib": 10, "mib": 20, "gib": 30}


def _set_line_limit(config: pytest.Config) -> None:
    """Put the line limit the options give in force for the run (``restore_line_limit`` ends it)."""
    value = option_value(config, "--session-eval-max-line-bytes")
    limit = DEFAULT_MAX_LINE_BYTES if value is None else line_limit(value)
    if _LINE_LIMIT not in config.stash:
        config.stash[_LINE_LIMIT] = set_max_line_bytes(limit)


def line_limit(value: str) -> int:
    """A line limit as given (``67108864``, ``64MiB``, ``1 GiB``), in bytes; a usage error
    naming the option for anything else, for zero and for over 4 GiB."""
    flag = "--session-eval-max-line-bytes"
    found = _SIZE.fullmatch(value)
    if found is None:
        raise usage_error(
            flag, f"{value!r} is not a size: give bytes, or a number with KiB, MiB or GiB (such as 64MiB)"
        )
    digits = found.group(1).lstrip("0") or "0"
    size = int(digits) << _UNITS[found.group(2).lower()] if len(digits) <= 12 else _LARGEST_LINE_LIMIT + 1
    if size == 0:
        raise usage_error(flag, f"{value!r} is no limit: give at least one byte")
    if size > _LARGEST_LINE_LIMIT:
        raise usage_error(flag, f"{value!r} is over {byte_size(_LARGEST_LINE_LIMIT)}, the largest line limit")
    return size


def restore_line_limit(config: pytest.Config) -> None:
    """Put back the line limit in force before the run set its own."""
    token = config.stash.get(_LINE_LIMIT, None)
    if token is not None:
        del config.stash[_LINE_LIMIT]
        reset_max_line_bytes(token)


_LONGEST_WAIT = 86_400.0  # a day: the longest a judge or a journal lock is waited for


_DECIMAL = re.compile(r"\s*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\s*", re.ASCII)


def _judge_timeout(config: pytest.Config) -> float | None:
    value = option_value(config, "--session-eval-judge-timeout")
    if value is None:
        return None
    # A plain decimal number: float() would also take "1_0", "５" or "nan".
    seconds = float(value) if _DECIMAL.fullmatch(value) else -1.0
    if not seconds > 0:
        raise usage_error("--session-eval-judge-timeout", f"{value!r} is not a positive number of seconds")
    if seconds > _LONGEST_WAIT:
        raise usage_error(
            "--session-eval-judge-timeout",
            f"{value!r} is longer than a day ({_LONGEST_WAIT:g} s); leave it out for no limit",
        )
    return seconds


def _lock_timeout(config: pytest.Config) -> float:
    """How long an append waits for the journal's lock (0: not at all)."""
    value = option_value(config, "--session-eval-journal-lock-timeout")
    if value is None:
        return _LOCK_TIMEOUT
    seconds = float(value) if _DECIMAL.fullmatch(value) else -1.0
    if not 0 <= seconds <= _LONGEST_WAIT:
        raise usage_error(
            "--session-eval-journal-lock-timeout",
            f"{value!r} is not a number of seconds from 0 to a day ({_LONGEST_WAIT:g})",
        )
    return seconds


def _utf8_text(flag: str, value: str) -> str:
    """``value``, or a usage error naming ``flag`` when it cannot be written as UTF-8."""
    if not is_utf8(value):
        raise usage_error(flag, f"{value!r} is not valid UTF-8 text")
    return value


def _model_text(name: str, value: str, required: bool) -> str:
    """A model id as given, trimmed. Only a run that writes records needs it to be UTF-8
    text (else a usage error naming ``name``); any other run ignores one that is not."""
    if required:
        value = _utf8_text(name, value)
    elif not is_utf8(value):
        return ""
    return value.strip(JS_WHITESPACE)


def _record_model(config: pytest.Config, required: bool) -> dict[str, str]:
    """The record's model: ANTHROPIC_MODEL (source env) wins over the options."""
    source = option_value(config, "--session-eval-model-source")
    source = "self-report" if source is None else source  # an empty one typed is none of them
    if source not in MODEL_SOURCES:
        raise usage_error("--session-eval-model-source", f"{source!r} is not one of {', '.join(MODEL_SOURCES)}")
    from_env = _model_text("ANTHROPIC_MODEL", os.environ.get("ANTHROPIC_MODEL", ""), required)
    if from_env:
        return {"id": from_env, "source": "env"}
    model_id = _model_text("--session-eval-model-id", option_value(config, "--session-eval-model-id") or "", required)
    if not model_id and not required:
        return {"id": "unknown", "source": source}
    if not model_id:
        raise usage_error(
            "--session-eval-journal",
            "records need the model that ran the sessions: give --session-eval-model-id "
            "(or the ini key session_eval_model_id, or ANTHROPIC_MODEL in the environment)",
        )
    return {"id": model_id, "source": source}
