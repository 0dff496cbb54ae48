"""The pytest plugin: options, input checks, collection of sessions files, reporting hooks."""

from __future__ import annotations

import inspect
import os
import re
import socket
from dataclasses import asdict, replace
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from _pytest.pathlib import bestrelpath

from ..core.engine import (
    EVENTS_FILE,
    SESSIONS_FILE,
    Evaluation,
    NoEligibleSession,
    Selection,
    SessionEvaluation,
    SkippedSession,
    evaluate,
    resolve_inputs,
)
from ..core.jsonl import first_named
from ..core.rubric import DimensionVerdict, Rubric, RubricError
from ..core.sessions import eligibility
from ..core.text import described, exception_text, first_few
from ..core.timestamps import parse_timestamp_ms
from ..core.values import JS_WHITESPACE, is_blank
from ..judge import Judge, JudgeContractError, judge_session
from ..records.journal import (
    JournalError,
    append_records,
    foreign_to_journal,
    is_journal,
    read_journal,
)
from ..records.schema import (
    MODEL_SOURCES,
    STANDARD_VERSION,
    InvalidRecord,
    build_record,
    hostname_hash,
    recorded_platform,
)
from ..records.verify import PLUGIN_VERSION
from ..report.html import ReportData, SessionRow, first_text, is_html_page, write_report
from ..rubrics.rubric_v1 import RUBRIC_V1
from . import html_columns as html_extras
from . import options as opt
from .journal_file import JournalFile, StoredJournal
from .judge_selection import JudgeSelection
from .options import (
    BROKEN_LINK,
    absolute,
    add_collection_args,
    claim_files,
    data_file_node_id,
    file_identity,
    not_a_file,
    path_kind,
    readable_file,
    register_wire_safety,
    usage_error,
    wire_safe,
)
from .sessions_file import (
    SessionsFile,
    _RecordItem,
    plain_node_id,
    tag_groups,
    warn_problems,
)
from .summary import Tally, index_teardown_reports

__all__ = ["SessionEvalRun"]

_DAY_MS = 86_400_000


RUN_KEY = pytest.StashKey["SessionEvalRun"]()


def _option(config: pytest.Config, flag: str) -> Any:
    return opt.option_value(config, flag)


def is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    opt.add_options(parser)
    opt.note_missed_ini_files(pluginmanager, opt.OPTIONS)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Remember the paths pytest would collect before any plugin changes them."""
    opt.remember_default_args(config)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def _resolve_sources(config: pytest.Config, paths: list[Path]) -> tuple[dict[Path, Path | None], list[Path]]:
    """The sessions files to score, each with its events; and every sessions path given
    (a file reached twice is scored once, but each place it was given is an input)."""
    events_option = _option(config, "--session-eval-events")
    events = readable_file("--session-eval-events", events_option) if events_option else None
    sources: dict[Path, Path | None] = {}
    # Each sessions file once with its events, however they are reached (a symbolic link too):
    # reached with other events beside it, it is another source.
    seen: set[tuple[object, object]] = set()
    given: list[Path] = []
    for path in paths:
        if path_kind("--session-eval", path) == "dir" and path_kind("--session-eval", path / "sessions.jsonl") is None:
            raise usage_error("--session-eval", f"{path}: directory holds no sessions.jsonl")
        sessions, beside = resolve_inputs(path, events)
        sessions = readable_file("--session-eval", sessions)
        if beside is not None and file_identity(beside) == file_identity(sessions):
            if events is not None:
                raise usage_error("--session-eval-events", f"{events}: is the sessions file of this run; give the events file")
            raise usage_error(
                "--session-eval",
                f"{sessions}: is the events file of this run too; give the sessions.jsonl (or the "
                "directory holding both)",
            )
        _refuse_events_as_sessions(sessions)
        if events is None:  # the events.jsonl beside, when there is one, must be readable
            near = sessions.parent / "events.jsonl"
            kind = path_kind("--session-eval", near)
            if kind not in (None, "file"):
                raise usage_error("--session-eval", f"{near}: {not_a_file(kind)}")
        given.append(sessions)
        identity = (file_identity(sessions), None if beside is None else file_identity(beside))
        if identity not in seen:
            seen.add(identity)
            sources[sessions] = beside
    return sources, given


def _result(entry: SessionEvaluation) -> tuple[object, ...]:
    """What a record of the session holds from its scoring."""
    return (entry.dimensions, entry.kpis, entry.host_class, recorded_platform(entry.record))


def _refuse_events_as_sessions(path: Path) -> None:
    """An events file under another name than ``events.jsonl``, given as the sessions: its
    session starts would be scored as sessions and every other event fail as a record
    without a session id. (A file named ``sessions.jsonl`` is sessions whatever it holds.)"""
    if path.name == SESSIONS_FILE:
        return
    try:
        named = first_named(path, ("event", "session_id"))
    except OSError:
        return  # reading it says why, where it is read
    if named.key == "event":
        raise usage_error(
            "--session-eval",
            f"{path}: line {named.line} names event: the file holds orchestrator events; give the sessions "
            "file (the events go beside it as events.jsonl, or to --session-eval-events)",
        )


def _date_bound(config: pytest.Config, flag: str, end_of_day: bool) -> int | None:
    value = _option(config, flag)
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
    given = _option(config, "--session-eval-timestamp")
    if given is not None:
        if not _UTC_DATE_TIME.fullmatch(given) or parse_timestamp_ms(given) is None:
            raise usage_error(
                "--session-eval-timestamp",
                f"{given!r} is not a UTC date-time such as "
                "2026-08-01T00:00:00Z (a run_id keeps its digits alone, so an offset or a missing zone could "
                "give two evaluation times one run_id)"
            )
        # A fraction is written in milliseconds, as the clock writes it (digits beyond them cut
        # off, as every timestamp is read): …00.5Z, …00.500Z and …00.5000000Z are one run_id.
        # Without a fraction it stays as given: journals hold run_ids of that spelling already.
        whole, dot, fraction = given[:-1].partition(".")
        return f"{whole}.{(fraction + '00')[:3]}Z" if dot else given
    if is_worker(config) and "session_eval_timestamp" in config.workerinput:  # type: ignore[attr-defined]
        return str(config.workerinput["session_eval_timestamp"])  # type: ignore[attr-defined]
    now = datetime.now(timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    with opt.as_given(config):
        _configure(config)


def _configure(config: pytest.Config) -> None:
    for line in (
        "deterministic: a deterministic rubric dimension of a scored session",
        "judge: an advisory, uncalibrated judge dimension of a scored session",
    ):
        config.addinivalue_line("markers", line)
    if not config.pluginmanager.hasplugin("xdist"):
        config.addinivalue_line("markers", "xdist_group(name): group items on one pytest-xdist worker")
    if opt.only_informs(config):
        return
    if not is_worker(config):
        opt.warn_if_ini_file_was_missed(config, opt.OPTIONS)
    # Each path as pytest reads one ("a/link/.." is "a"), before anything is told from it.
    paths = [absolute(path) for path in _option(config, "--session-eval") or []]
    verify = _option(config, "--session-eval-verify")
    if not paths and not verify:
        return
    opt.refuse_without_skipping(config, "--session-eval-verify" if verify and not paths else "--session-eval")
    if verify and not paths:
        raise usage_error("--session-eval-verify", "needs --session-eval to name the metrics to re-score")
    journals = [p for p in paths if path_kind("--session-eval", p) == "file" and is_journal(p)]
    sources, sessions_given = _resolve_sources(config, [p for p in paths if p not in journals])
    selection = _selection(config, verify=bool(verify), journals=journals if not sources else [])
    run = SessionEvalRun(sources, sessions_given, selection, _eval_timestamp(config))
    run.check_every_event_line = not _option(config, "--session-eval-fast-events")
    run.rubrics = _registered_rubrics(config)
    version = _option(config, "--session-eval-rubric")
    version = RUBRIC_V1.version if version is None else version  # an empty one typed is unknown
    if version not in run.rubrics:
        raise usage_error("--session-eval-rubric", f"unknown rubric {version!r} (registered: {', '.join(run.rubrics)})")
    run.rubric = run.rubrics[version]
    if _option(config, "--session-eval-judge"):
        run.judges = _judges(config)
        run.judge_timeout = _judge_timeout(config)
    run.report_journals = journals
    if verify:
        run.verify_path = readable_file("--session-eval-verify", verify)
        try:
            what = foreign_to_journal(run.verify_path)
        except OSError as exc:
            raise usage_error("--session-eval-verify", f"{run.verify_path}: cannot be read ({exc.strerror or exc})") from None
        if what is not None:
            raise usage_error(
                "--session-eval-verify",
                f"{run.verify_path}: is not an eval journal ({what}); give the journal to re-verify, "
                "and the metrics to --session-eval",
            )
        if journals and not run.sources:
            raise usage_error(
                "--session-eval",
                f"{', '.join(map(str, journals))}: a journal; re-verification needs the metrics "
                "(sessions.jsonl) to score again, given to --session-eval",
            )
        # Re-verification shows only its journal: another one typed is a mistake, one the ini
        # file lists is left out (as its selection keys are).
        target = file_identity(run.verify_path)
        others = [p for p in run.report_journals if file_identity(p) != target]
        if others and opt.typed(config, "--session-eval"):
            raise usage_error(
                "--session-eval",
                f"{', '.join(map(str, others))}: a journal given as input; "
                f"re-verification shows only the journal it re-verifies ({opt.given_as(config, '--session-eval-verify')}): "
                "show this one in a run of its own"
            )
        if opt.typed(config, "--session-eval-journal"):  # (set in the ini file, it is left out)
            raise usage_error(
                "--session-eval-journal",
                "re-verification appends no record; append in a run without --session-eval-verify",
            )
    elif journals and run.sources:
        _show_journals_whole(config, run)
    journal = _option(config, "--session-eval-journal")
    if journal is not None and not is_worker(config) and not verify:
        run.journal_path = _writable_journal(journal)
        run.model = _record_model(config, required=True)
    else:
        run.model = _record_model(config, required=False)
    handle = _option(config, "--session-eval-handle")
    if handle is not None and is_blank(_utf8_text("--session-eval-handle", handle)):
        raise usage_error("--session-eval-handle", "is blank; leave it out for an anonymised record")
    run.handle = handle
    html = _option(config, "--session-eval-html")
    if html is not None and not is_worker(config):
        run.html_path = _writable_file("--session-eval-html", html)
    _refuse_overwriting_inputs(config, run)
    config.stash[RUN_KEY] = run
    config.pluginmanager.register(run, "session-eval-run")
    html_extras.register(config)
    add_collection_args(
        config,
        run.collected_paths(),
        "--session-eval-verify" if run.verify_path else "--session-eval",
        from_ini=not (opt.on_command_line(config, "--session-eval") or opt.on_command_line(config, "--session-eval-verify")),
    )
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_XdistBridge(config), "session-eval-xdist")
    register_wire_safety(config)


_SELECTING = ("--session-eval-session", "--session-eval-latest", "--session-eval-since", "--session-eval-until")


def _selection(config: pytest.Config, *, verify: bool, journals: list[Path]) -> Selection:
    """The sessions to score, as the options select them (the command line over the ini file).

    Re-verification re-scores every record of its journal, and journals given alone show every
    record: there is no session to select. An option typed for the run is a mistake then;
    ini keys are left out, whatever they hold.
    """
    if verify or journals:
        typed = [flag for flag in _SELECTING if opt.typed(config, flag)]
        if typed and verify:
            raise usage_error(
                typed[0],
                f"does not apply to re-verification, which re-scores every record "
                f"of the journal ({opt.given_as(config, '--session-eval-verify')}); select records with -k or a node id"
            )
        if typed:
            raise usage_error(
                typed[0],
                f"selects sessions of sessions files, and "
                f"{', '.join(map(str, journals))} is a journal, whose every record is shown; select records with "
                "-k or a node id"
            )
        return Selection()
    named = frozenset(_option(config, "--session-eval-session")) or None
    latest = _option(config, "--session-eval-latest")
    if latest and named:
        # The command line wins over the ini file; given the same way, the two contradict.
        named_here, latest_here = (opt.typed(config, flag) for flag in ("--session-eval-session", "--session-eval-latest"))
        if named_here and not latest_here:
            latest = False
        elif latest_here and not named_here:
            named = None
        else:
            raise usage_error(
                "--session-eval-latest",
                f"picks one session itself, so it does not combine "
                f"with {opt.given_as(config, '--session-eval-session')}: give one of them"
            )
    selection = Selection(
        session_ids=named,
        latest=latest,
        since_ms=_date_bound(config, "--session-eval-since", False),
        until_ms=_date_bound(config, "--session-eval-until", True),
    )
    if selection.since_ms is not None and selection.until_ms is not None and selection.since_ms > selection.until_ms:
        raise usage_error(
            "--session-eval-until",
            f"{_option(config, '--session-eval-until')} is before "
            f"{opt.given_as(config, '--session-eval-since')} {_option(config, '--session-eval-since')}: no session "
            "could be selected"
        )
    return selection


def _date_range(config: pytest.Config) -> str:
    """The date range as given, for the summary: "the date range since A until B (how given)"."""
    bounds = {word: flag for word, flag in (("since", "--session-eval-since"), ("until", "--session-eval-until")) if _option(config, flag) is not None}
    return "the date range " + " ".join(f"{word} {_option(config, flag)}" for word, flag in bounds.items()) + (
        f" ({', '.join(opt.given_as(config, flag) for flag in bounds.values())})"
    )


def _show_journals_whole(config: pytest.Config, run: SessionEvalRun) -> None:
    """Beside sessions files, a journal given as input still shows every record it holds: the
    summary says that the options selecting sessions selected those of the sessions files."""
    selection = run.selection
    selecting = [
        flag
        for flag, given in zip(
            _SELECTING,
            (selection.session_ids is not None, selection.latest, selection.since_ms is not None, selection.until_ms is not None),
        )
        if given
    ]
    if selecting:
        run.journal_messages.append(
            f"{', '.join(opt.given_as(config, flag) for flag in selecting)} selected sessions of the sessions "
            "files only: the journal(s) given as input show every record"
        )


def _refuse_overwriting_inputs(config: pytest.Config, run: SessionEvalRun) -> None:
    """An output must not be an input: the journal never lands in the metrics, the page never
    replaces a journal or the metrics (the same file under any spelling or link), and
    neither is written to a file of the policy evaluation of the same run."""
    inputs = [(p, "a sessions file") for p in run.sessions_given]
    # Where an events file is looked for counts even while none is there: written there, the
    # page or the journal would be read as events next time.
    inputs += [(p.parent / EVENTS_FILE, f"the {EVENTS_FILE} beside a sessions file") for p in run.sessions_given]
    inputs += [(e, "an events file") for e in run.sources.values() if e is not None]
    # A rubric's text is read too: its sha256 goes into every record.
    inputs += [(rubric.text_path, f"the text of rubric {version}") for version, rubric in run.rubrics.items()]
    data = {file_identity(path): what for path, what in inputs}
    given = opt.given_as(config, "--session-eval")
    journals = {file_identity(p): f"a journal given to {given}" for p in run.report_journals}
    if run.verify_path is not None:
        journals[file_identity(run.verify_path)] = "the journal given to --session-eval-verify"
    if run.journal_path is not None:
        what = data.get(file_identity(run.journal_path))
        if what:
            raise usage_error("--session-eval-journal", f"{run.journal_path} is {what} of this run; records go to a file of their own")
        journals[file_identity(run.journal_path)] = "the --session-eval-journal"
    if run.html_path is not None:
        what = data.get(file_identity(run.html_path)) or journals.get(file_identity(run.html_path))
        if what:
            raise usage_error("--session-eval-html", f"{run.html_path} is {what} of this run; the page would replace it")
    writes = [(path, flag) for path, flag in ((run.journal_path, "--session-eval-journal"), (run.html_path, "--session-eval-html")) if path is not None]
    # The reports other plugins write: one file cannot be two outputs, nor an input.
    reports = {file_identity(Path(where)): (what, where) for where, what in opt.other_reports(config)}
    for path, flag in writes:
        if file_identity(path) in reports:
            raise usage_error(flag, f"{path} is also {reports[file_identity(path)][0]} of this run; give each its own file")
    for identity, (report, where) in reports.items():
        what = journals.get(identity)  # (the journal of this run is refused above; claim_files checks the data)
        if what:
            raise pytest.UsageError(
                f"{report} {where} is {what} of this run: the report would replace it, or be read as it"
            )
    claim_files(config, inputs, writes)


def _writable_journal(path: Path) -> Path:
    return _writable_file("--session-eval-journal", path)


def _refuse_foreign_journal(path: Path) -> None:
    """Records are appended only to a journal: never into a page, a sessions or events
    file, or anything else that happens to be at the path given."""
    try:
        what = foreign_to_journal(path) if path.is_file() else None
    except OSError:  # unreadable: the append says so, naming the journal
        return
    if what is not None:
        raise usage_error(
            "--session-eval-journal",
            f"{path}: exists and is not an eval journal ({what}); records are appended only to "
            "a journal: give an existing journal or a new path",
        )


def _refuse_replacing_other_files(path: Path) -> None:
    """The page replaces only an empty file or an HTML page: never a journal, data or a log
    that happens to be at the path given."""
    try:
        with open(path, "rb") as stream:
            head = b""
            while not head and (chunk := stream.read(1 << 16)):  # its first text, past any whitespace
                head = first_text(chunk)
            head += stream.read(1024)
    except OSError:  # missing (the page is new) or unreadable (writing it says so)
        return
    if head and not is_html_page(head):
        raise usage_error(
            "--session-eval-html",
            f"{path}: exists and is not an HTML page; the page replaces only a page (or an empty file): "
            "give a new path, or remove the file",
        )


def _writable_file(flag: str, path: Path) -> Path:
    kind = path_kind(flag, path)
    if kind not in (None, BROKEN_LINK, "file"):  # writing through a link to nothing creates its target
        raise usage_error(flag, f"{path}: not a file")
    # A link to nothing is written through: its target's directory must exist.
    where = Path(os.path.realpath(path)).parent if kind == BROKEN_LINK else path.parent
    if path_kind(flag, where) != "dir":
        raise usage_error(flag, f"{path}: directory {where} does not exist")
    if not os.access(path if kind == "file" else where, os.W_OK):
        raise usage_error(flag, f"{path}: not writable")
    return absolute(path)


def _registered_rubrics(config: pytest.Config) -> dict[str, Rubric]:
    """rubric-v1 and every rubric the ``pytest_sessioneval_rubrics`` hook registers."""
    rubrics: dict[str, Rubric] = {RUBRIC_V1.version: RUBRIC_V1}
    for impl in _asked_one_by_one(config, "pytest_sessioneval_rubrics", "--session-eval-rubric"):
        plugin = impl.plugin_name
        try:
            offered: Any = impl.function() or []
        except RubricError as exc:
            raise usage_error("--session-eval-rubric", f"plugin {plugin!r}: {exc}") from None
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001  the plugin's fault, said as such
            raise usage_error(
                "--session-eval-rubric", f"plugin {plugin!r}: its pytest_sessioneval_rubrics raised {type(exc).__name__}: {exception_text(exc)}"
            ) from None
        if not isinstance(offered, (list, tuple)):
            raise usage_error(
                "--session-eval-rubric", f"plugin {plugin!r} returned {described(offered)}; expected a list of Rubric objects"
            )
        for rubric in offered:
            if not isinstance(rubric, Rubric):
                raise usage_error("--session-eval-rubric", f"plugin {plugin!r} registered {described(rubric)}, not a Rubric")
            if rubric.version in rubrics:
                raise usage_error("--session-eval-rubric", f"plugin {plugin!r}: rubric {rubric.version!r} is already registered")
            if not rubric.text_path.is_file():
                raise usage_error("--session-eval-rubric", f"plugin {plugin!r}: rubric text {rubric.text_path} not found")
            rubrics[rubric.version] = rubric
    return rubrics


def _judges(config: pytest.Config) -> list[Judge]:
    """The ``pytest_sessioneval_judge`` implementations, each with its plugin's name."""
    def bound(impl: Any) -> Any:
        # As pluggy calls a hook: an implementation may leave out the argument (or give it a default).
        try:
            parameters = inspect.signature(impl.function).parameters
        except (TypeError, ValueError):  # no signature to read: call it as the spec says
            return lambda record: impl.function(record=record)
        takes = "record" in parameters or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
        if takes:
            return lambda record: impl.function(record=record)
        return lambda record: impl.function()

    return [
        (impl.plugin_name, bound(impl))
        for impl in reversed(_asked_one_by_one(config, "pytest_sessioneval_judge", "--session-eval-judge"))
    ]


def _asked_one_by_one(config: pytest.Config, hook: str, flag: str) -> list[Any]:
    """The implementations of one of this plugin's hooks, which it calls one at a time (to
    tell whose answer is whose): a hook wrapper would have nothing to wrap, so it is refused."""
    implementations = getattr(config.hook, hook).get_hookimpls()
    for impl in implementations:
        if impl.hookwrapper or getattr(impl, "wrapper", False):
            raise usage_error(
                flag,
                f"plugin {impl.plugin_name!r}: its {hook} is a hook wrapper; each implementation is asked on "
                "its own, so a wrapper has nothing to wrap: make it a plain implementation",
            )
    return list(implementations)


_LONGEST_JUDGE_TIMEOUT = 86_400.0
_DECIMAL = re.compile(r"\s*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\s*", re.ASCII)


_NO_JUDGE_ASKED = (
    "judges: not asked, since no judge item runs in this run (--co, or -m, -k, --deselect or the paths and "
    "node ids given leaving them out, or a rubric without judge dimensions); sessions carry no judge verdict"
)


def _judge_timeout(config: pytest.Config) -> float | None:
    value = _option(config, "--session-eval-judge-timeout")
    if value is None:
        return None
    # A plain decimal number: float() would also take "1_0", "５" or "nan".
    seconds = float(value) if _DECIMAL.fullmatch(value) else -1.0
    if not seconds > 0:
        raise usage_error("--session-eval-judge-timeout", f"{value!r} is not a positive number of seconds")
    if seconds > _LONGEST_JUDGE_TIMEOUT:
        raise usage_error(
            "--session-eval-judge-timeout", f"{value!r} is longer than a day ({_LONGEST_JUDGE_TIMEOUT:g} s); leave it out for no limit"
        )
    return seconds


def _utf8_text(flag: str, value: str) -> str:
    """``value``, or a usage error naming ``flag`` when it cannot be written as UTF-8."""
    if not opt.is_utf8(value):
        raise usage_error(flag, f"{value!r} is not valid UTF-8 text")
    return value


def _model_text(name: str, value: str, required: bool) -> str:
    """A model id as given, trimmed. Only a run that writes records needs it to be UTF-8
    text (else a usage error naming ``name``); any other run ignores one that is not."""
    if required:
        value = _utf8_text(name, value)
    elif not opt.is_utf8(value):
        return ""
    return value.strip(JS_WHITESPACE)


def _record_model(config: pytest.Config, required: bool) -> dict[str, str]:
    """The record's model: ANTHROPIC_MODEL (source env) wins over the options."""
    source = _option(config, "--session-eval-model-source")
    source = "self-report" if source is None else source  # an empty one typed is none of them
    if source not in MODEL_SOURCES:
        raise usage_error("--session-eval-model-source", f"{source!r} is not one of {', '.join(MODEL_SOURCES)}")
    from_env = _model_text("ANTHROPIC_MODEL", os.environ.get("ANTHROPIC_MODEL", ""), required)
    if from_env:
        return {"id": from_env, "source": "env"}
    model_id = _model_text("--session-eval-model-id", _option(config, "--session-eval-model-id") or "", required)
    if not model_id and not required:
        return {"id": "unknown", "source": source}
    if not model_id:
        raise usage_error(
            "--session-eval-journal",
            "records need the model that ran the sessions: give --session-eval-model-id "
            "(or the ini key session_eval_model_id, or ANTHROPIC_MODEL in the environment)",
        )
    return {"id": model_id, "source": source}


class _XdistBridge:
    """What the controller and its workers exchange beyond pytest-xdist's own: the eval
    timestamp (the clock is read once per run) and judge verdicts go out; grouped items
    take their --dist loadgroup tag as collection finishes, and the reports that come back
    carry the node ids of a run without xdist."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_configure_node(self, node: Any) -> None:
        run = self.config.stash[RUN_KEY]
        node.workerinput["session_eval_timestamp"] = run.timestamp
        if run.judges is not None:
            node.workerinput["session_eval_judge"] = run.judged_for_workers()

    @pytest.hookimpl(tryfirst=True)  # before xdist sends the collected ids to schedule
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        tag_groups(session.items)

    @pytest.hookimpl(wrapper=True)
    def pytest_report_from_serializable(self, config: pytest.Config, data: Any) -> Any:  # noqa: ARG002
        report = yield
        if report is not None:
            plain_node_id(report)  # --dist loadgroup tags node ids on the workers
        return report


class SessionEvalRun:
    """One pytest run's session evaluation, registered as a plugin while the run lasts."""

    def __init__(
        self, sources: dict[Path, Path | None], sessions_given: list[Path], selection: Selection, timestamp: str
    ) -> None:
        self.sources = sources
        self.sessions_given = sessions_given  # every place a sessions file was given (see _resolve_sources)
        self.selection = selection
        self.timestamp = timestamp
        self.rubric: Rubric = RUBRIC_V1
        self.rubrics: dict[str, Rubric] = {RUBRIC_V1.version: RUBRIC_V1}
        self.evaluations: dict[Path, Evaluation] = {}
        self.without_latest: dict[Path, NoEligibleSession] = {}  # sessions files that gave --session-eval-latest none
        self.report_journals: list[Path] = []
        self.verify_path: Path | None = None
        self.journals: dict[Path, StoredJournal] = {}
        self.journal_path: Path | None = None
        self.model: dict[str, str] = {}
        self.handle: str | None = None
        self.journal_messages: list[str] = []
        self.judges: list[Judge] | None = None
        self.judge_timeout: float | None = None
        self.html_path: Path | None = None
        self.check_every_event_line = True
        self.tally = Tally()
        self.dry_run = False  # --co, --setup-only or --setup-plan: no item runs

    def collected_paths(self) -> list[Path]:
        """The files that become pytest collectors (re-verification collects only its journal)."""
        if self.verify_path is not None:
            return [self.verify_path]
        return [*self.sources, *self.report_journals]

    @pytest.hookimpl(tryfirst=True)  # before xdist starts its workers, which need the judge verdicts
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """Read and score every input once, before collection; input errors are usage errors."""
        with opt.as_given(session.config):
            self._start(session)

    def _start(self, session: pytest.Session) -> None:
        index_teardown_reports(session.config.pluginmanager.getplugin("terminalreporter"))
        # What is at the output paths is looked at once every plugin has said what it reads
        # (a file of this run's policy evaluation gets that plugin's refusal).
        if self.journal_path is not None:
            _refuse_foreign_journal(self.journal_path)
        if self.html_path is not None:
            _refuse_replacing_other_files(self.html_path)
        self.dry_run = opt.runs_no_item(session.config)
        self.tally.files = frozenset(_located(session.config, path) for path in self.collected_paths())
        html_extras.add_files(session.config, self.tally.files)
        try:
            # Re-verification reads its own journal alone; the others stay inputs, never overwritten.
            for path in self.report_journals if self.verify_path is None else ():
                journal = StoredJournal(path, [], rubrics=self.rubrics)
                journal.records = read_journal(path, journal.problems, journal.looked_past)
                self.journals[path] = journal
            if self.verify_path is not None:
                self._prepare_verification(self.verify_path, session.config.invocation_params.dir)
            else:
                for sessions, events in self.sources.items():
                    try:
                        self.evaluations[sessions] = evaluate(
                            sessions, events, self.selection, self.rubric, check_every_event_line=self.check_every_event_line
                        )
                    except NoEligibleSession as exc:  # each file gives its latest session, if it has one
                        self.evaluations[sessions] = exc.evaluation
                        self.without_latest[sessions] = exc
                if self.without_latest and len(self.without_latest) == len(self.sources):
                    raise usage_error("--session-eval-latest", "; ".join(map(str, self.without_latest.values())))
        except RubricError as exc:
            raise usage_error("--session-eval-rubric", str(exc)) from None
        except OSError as exc:
            raise pytest.UsageError(f"--session-eval: cannot read {exc.filename}: {exc.strerror or exc}") from None
        self._warn_input_problems(session.config)
        if self.verify_path is not None:
            return
        wanted = self.selection.session_ids
        if wanted:
            known = frozenset().union(*(e.session_ids for e in self.evaluations.values()))
            unknown = sorted(wanted - known)
            if unknown:
                searched = ", ".join(str(p) for p in self.evaluations) or "no sessions file"
                note = " (it selects sessions of sessions files, not records of journals)" if self.journals else ""
                raise usage_error(
                    "--session-eval-session",
                    f"unknown session id(s): "
                    f"{', '.join(map(repr, unknown))} (searched {searched}){note}"
                )
            listed = {entry.session_id for e in self.evaluations.values() for entry in e.entries if isinstance(entry, (SessionEvaluation, SkippedSession))}
            outside = sorted(wanted - listed)
            if outside:  # only the date range leaves out a session that is in the files
                bound = "--session-eval-since" if self.selection.since_ms is not None else "--session-eval-until"
                raise usage_error(
                    bound,
                    f"session id(s) {', '.join(map(repr, outside))}, named by "
                    f"{opt.given_as(session.config, '--session-eval-session')}, started outside the selected date range "
                    "(or their started_at does not parse)"
                )
        if self.judges is None:
            return
        if is_worker(session.config):
            self._judged_by_the_controller(session.config)
            return
        selection = JudgeSelection(session.config, list(self.evaluations), self.rubric.judge_ids, dry_run=self.dry_run)
        if not selection.any_can_run:
            # No judge item runs (--co, a rubric without judge dimensions, an -m or -k that pytest
            # cannot parse): none is asked, so sessions carry no judge verdict, in their items
            # and in the journal alike. (_judge says so too when the selection leaves every one out.)
            self.journal_messages.append(_NO_JUDGE_ASKED)
            return
        self._judge(session.config, selection)

    def _judge(self, config: pytest.Config, selection: JudgeSelection) -> None:
        """Add the judges' advisory verdicts to every scored session of which the command line
        can select a judge item (see ``selection``): asked once per run."""
        asked = passed_over = 0
        for path, evaluation in self.evaluations.items():
            for index, entry in enumerate(evaluation.entries):
                if not isinstance(entry, SessionEvaluation):
                    continue
                if not selection.selects(path, entry.session_id):
                    passed_over += 1  # no judge item of it can run: none is asked
                    continue
                asked += 1
                try:
                    record = self._record(entry)
                except InvalidRecord as exc:  # e.g. a custom rubric's infinite score
                    where = f"{bestrelpath(config.invocation_params.dir, path)}:{entry.line}"
                    raise usage_error(
                        "--session-eval-judge",
                        f"{where}: the record of session {entry.session_id!r}, which a judge reads, is invalid: {exc}",
                    ) from None
                try:
                    verdicts = judge_session(self.judges or [], record, self.rubric, self.judge_timeout)
                except JudgeContractError as exc:
                    raise usage_error("--session-eval-judge", str(exc)) from None
                evaluation.entries[index] = replace(entry, judge=verdicts)
        if passed_over and not asked:
            self.journal_messages.append(_NO_JUDGE_ASKED)
        elif passed_over:
            self.journal_messages.append(
                f"judges: asked about {asked} of {asked + passed_over} scored session(s); the paths, node ids, "
                "-m, -k and --deselect given select no judge item of the others, which carry no judge verdict"
            )

    def _judged_by_the_controller(self, config: pytest.Config) -> None:
        """On an xdist worker: the judge verdicts the controller got, so that judges run once."""
        stored = config.workerinput.get("session_eval_judge", {})  # type: ignore[attr-defined]
        for path, evaluation in self.evaluations.items():
            for index, entry in enumerate(evaluation.entries):
                if isinstance(entry, SessionEvaluation):
                    verdicts = tuple(DimensionVerdict(**v) for v in stored.get(wire_safe(f"{path}\0{entry.session_id}"), ()))
                    evaluation.entries[index] = replace(entry, judge=verdicts)

    def judged_for_workers(self) -> dict[str, list[dict[str, Any]]]:
        """The judge verdicts in plain data, handed to xdist workers so judges run once."""
        return wire_safe({
            f"{path}\0{entry.session_id}": [asdict(verdict) for verdict in entry.judge]
            for path, evaluation in self.evaluations.items()
            for entry in evaluation.scored
        })

    def _prepare_verification(self, path: Path, start: Path) -> None:
        journal = StoredJournal(path, [], verify=True, rubrics=self.rubrics)
        journal.records = read_journal(path, journal.problems, journal.looked_past)
        # Each record is re-scored with the rubric it names (any registered one), whatever
        # --session-eval-rubric says: a journal may hold several rubric versions.
        wanted: dict[str, set[str]] = {}
        for _, record in journal.records:
            version, session_id = record.get("rubric_version"), record.get("session_id")
            if isinstance(version, str) and version in self.rubrics and isinstance(session_id, str):
                wanted.setdefault(version, set()).add(session_id)
        found: dict[tuple[str, str], list[tuple[SessionEvaluation, str]]] = {}  # each fresh scoring, and where
        for sessions, events in self.sources.items():
            for version, session_ids in wanted.items() or [(self.rubric.version, set())]:
                evaluation = evaluate(
                    sessions,
                    events,
                    Selection(session_ids=frozenset(session_ids), explicit=True),
                    self.rubrics[version],
                    check_every_event_line=self.check_every_event_line,
                )
                self.evaluations.setdefault(sessions, evaluation)  # its input problems are warned once
                for entry in evaluation.scored:
                    found.setdefault((version, entry.session_id), []).append(
                        (entry, f"{bestrelpath(start, sessions)}:{entry.line}")
                    )
        for key, scorings in found.items():
            # One session id in several sessions files given: a scoring run scores the last
            # line of those where it is eligible; when they score it two ways, which did the
            # record score?
            eligible = [(entry, where) for entry, where in scorings if eligibility(entry.record) is None] or scorings
            journal.fresh[key] = eligible[0][0]
            if any(_result(entry) != _result(eligible[0][0]) for entry, _ in eligible[1:]):
                journal.scored_apart[key] = [where for _, where in eligible]
        self.journals[path] = journal

    def _warn_input_problems(self, config: pytest.Config) -> None:
        """Warn about every unusable input line, once per run, by the process that reports.

        Issued when the inputs are read (not at collection, which ``--lf`` may skip
        and xdist runs on every worker), through pytest's warning filters: under
        ``-W error`` a bad line is a usage error naming it.
        """
        if is_worker(config):
            return
        start = config.invocation_params.dir
        warn = partial(opt.issue_warning_at, config)
        for evaluation in self.evaluations.values():
            warn_problems(evaluation.problems, start, warn)
        for journal in self.journals.values():
            if not journal.verify:  # (re-verified, such a line is a failed item, not a line skipped)
                warn_problems(journal.problems, start, warn)

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
        path = absolute(file_path)
        if path in self.journals and (self.verify_path is None or path == self.verify_path):
            nodeid = data_file_node_id(parent.config, file_path)
            return JournalFile.from_parent(parent, path=file_path, nodeid=nodeid, journal=self.journals[path])
        if self.verify_path is None and path in self.evaluations:
            nodeid = data_file_node_id(parent.config, file_path)
            return SessionsFile.from_parent(parent, path=file_path, nodeid=nodeid, evaluation=self.evaluations[path])
        return None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not self.dry_run:
            self.tally.add(report)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Write the journal and the HTML report: once, by the controller.

        A run that runs no item (``--co``, ``--setup-only``, ``--setup-plan``) writes nothing.
        """
        if is_worker(session.config) or self.dry_run:
            return
        if self.html_path is not None and self.verify_path is not None:
            self.journal_messages.append(
                "HTML report: not written: re-verification (--session-eval-verify) scores no session to show"
            )
        elif self.html_path is not None:
            self._write_html(session.config)
            if self.report_journals:
                self.journal_messages.append(
                    "HTML report: the journals given as input are not drawn; the page shows the sessions scored in this run"
                )
        if self.journal_path is not None:
            self._append_journal(session)

    def _write_html(self, config: pytest.Config) -> None:
        sessions, not_scored = [], []
        ran: set[str] = set()  # the dimensions whose items ran for any session: the page's columns
        for path, evaluation in self.evaluations.items():
            source = _located(config, path)
            for entry in evaluation.entries:
                if isinstance(entry, SessionEvaluation) and (shown := self.tally.ran_any(source, entry.session_id)):
                    sessions.append(SessionRow.from_evaluation(entry, source, shown))  # -k, -m: as the summary
                    ran |= shown
                elif isinstance(entry, SkippedSession) and self.tally.skipped(source, entry.session_id):
                    not_scored.append((entry.session_id, entry.reason))
        report = ReportData(
            title="Session evaluation",
            rubric_version=self.rubric.version,
            rubric_sha256=self.rubric.sha256,
            standard_version=STANDARD_VERSION,
            plugin_version=PLUGIN_VERSION,
            timestamp=self.timestamp,
            dimension_order=tuple(d for d in self.rubric.dimension_ids if d in ran),
            sessions=tuple(sessions),
            not_scored=tuple(not_scored),
        )
        assert self.html_path is not None
        try:
            write_report(report, self.html_path)
        except OSError as exc:
            self.journal_messages.append(f"ERROR: cannot write the HTML report {self.html_path}: {exc.strerror or exc}")
            return
        self.journal_messages.append(f"HTML report: {bestrelpath(config.invocation_params.dir, self.html_path)}")

    def _append_journal(self, session: pytest.Session) -> None:
        assert self.journal_path is not None
        records = []
        unwritable = []
        scored_at: dict[str, tuple[str, dict[str, Any]]] = {}  # run_id -> where it was scored in this run, and its record
        for path, evaluation in self.evaluations.items():
            source = _located(session.config, path)
            for entry in evaluation.scored:
                if not self.tally.ran_any(source, entry.session_id):  # judge items alone count too (-m judge)
                    continue
                where = f"{bestrelpath(session.config.invocation_params.dir, evaluation.sessions_path)}:{entry.line}"
                try:
                    record = self._record(entry)
                except InvalidRecord as exc:  # e.g. a custom rubric's verdict the schema refuses
                    unwritable.append(f"NOT WRITTEN {where}: the record of session {entry.session_id!r} is invalid: {exc}")
                    continue
                # One session id in two sessions files of the run: one run_id holds one record.
                first = scored_at.setdefault(record["run_id"], (where, record))
                if first[1] is record:
                    records.append(record)
                elif first[1] != record:
                    unwritable.append(
                        f"NOT WRITTEN {where}: session {entry.session_id!r} is scored from {first[0]} too in this run, "
                        "with another result, and one run_id holds one record: journal each sessions file in a run of its own"
                    )
        if unwritable:
            self.journal_messages.extend(unwritable)
            _fail(session)
        if not records:  # nothing to append: the journal is not even created
            self.journal_messages.append(
                f"journal {bestrelpath(session.config.invocation_params.dir, self.journal_path)}: 0 record(s) appended"
            )
            return
        try:
            outcome = append_records(self.journal_path, records)
        except JournalError as exc:
            self.journal_messages.append(f"ERROR: {exc}")
            _fail(session)
            return
        self.journal_messages.append(
            f"journal {bestrelpath(session.config.invocation_params.dir, self.journal_path)}: "
            f"{len(outcome.written)} record(s) appended, {len(outcome.unchanged)} already present"
        )
        if outcome.refused:
            self.journal_messages.extend(f"REFUSED {reason}" for reason in outcome.refused)
            _fail(session)

    def _record(self, entry: SessionEvaluation) -> dict[str, Any]:
        return build_record(
            session_id=entry.session_id,
            dimensions=(*entry.dimensions, *entry.judge),
            kpis=entry.kpis,
            rubric=self.rubric,
            timestamp=self.timestamp,
            model=self.model,
            plugin_version=PLUGIN_VERSION,
            platform=recorded_platform(entry.record),
            host_class=entry.host_class,
            hostname_hash=hostname_hash(socket.gethostname()),
            handle=self.handle,
        )

    def pytest_terminal_summary(self, terminalreporter: Any, config: pytest.Config) -> None:
        if is_worker(config) or self.dry_run:
            return
        skipped = self._input_problems_line(config)
        looked_past = self._looked_past_lines(config)
        left_out = self._left_out_lines(config)
        if self.tally.empty and not self.journal_messages and not skipped and not looked_past and not left_out:
            return  # none of its items ran (say, only policy items were selected): nothing to sum up
        terminalreporter.write_sep("=", "session evaluation")
        if not self.tally.empty:  # else only what was written (the journal, the page) is said
            for line in self.tally.lines(self.rubric.dimension_ids, self.rubric.version, self.rubric.judge_ids):
                terminalreporter.write_line(line)
        for line in left_out:
            terminalreporter.write_line(line, yellow=True)
        if skipped:
            terminalreporter.write_line(skipped, yellow=True)
        for line in looked_past:
            terminalreporter.write_line(line)
        for message in self.journal_messages:
            terminalreporter.write_line(message, red=message.startswith(("ERROR", "REFUSED")))

    def _left_out_lines(self, config: pytest.Config) -> list[str]:
        """Per sessions file, what gave it no item: the date range, or having no session record;
        re-verifying, a journal without a record. Without this line a run that collects nothing
        would end in pytest's bare "no tests ran"."""
        if self.verify_path is not None:
            journal = self.journals.get(self.verify_path)
            if journal is None or journal.records or journal.problems:
                return []
            return [f"{bestrelpath(config.invocation_params.dir, self.verify_path)}: no session-eval record to re-verify"]
        lines = []
        for path, evaluation in self.evaluations.items():
            where = bestrelpath(config.invocation_params.dir, path)
            if evaluation.outside_dates:
                lines.append(
                    f"{where}: {evaluation.outside_dates} session record(s) left out by {_date_range(config)}: they "
                    "started outside it, or their started_at does not parse"
                )
            elif path in self.without_latest:
                lines.append(f"{where}: {opt.given_as(config, '--session-eval-latest')} scores none of its sessions: {self.without_latest[path].reason}")
            elif not evaluation.records:
                lines.append(f"{where}: no session record to score")
            elif not evaluation.entries and self.selection.session_ids is not None:
                named = opt.given_as(config, "--session-eval-session")
                lines.append(f"{where}: none of its sessions is named by {named}")
        return lines

    def _looked_past_lines(self, config: pytest.Config) -> list[str]:
        """Per journal read, the lines that hold other objects than records, counted and the first named."""
        return [
            f"{bestrelpath(config.invocation_params.dir, path)}: {len(journal.looked_past)} line(s) holding no "
            "session-eval record (a header, a note, a record of another kind) looked past: "
            f"line{'s' if len(journal.looked_past) > 1 else ''} {first_few([str(line) for line in journal.looked_past])}"
            for path, journal in self.journals.items()
            if journal.looked_past
        ]

    def _input_problems_line(self, config: pytest.Config) -> str | None:
        """The unusable input lines, counted and the first ones named: said here too, since
        warnings can be silenced (``-p no:warnings``) and a skipped line must never go unseen."""
        problems = [p for evaluation in self.evaluations.values() for p in evaluation.problems]
        problems += [p for journal in self.journals.values() if not journal.verify for p in journal.problems]
        if not problems:
            return None
        start = config.invocation_params.dir
        named = first_few([f"{bestrelpath(start, Path(p.path))}:{p.line}" for p in problems])
        return f"{len(problems)} unusable input line(s) skipped ({named}); each is a SessionEvalInputWarning"


def _located(config: pytest.Config, path: Path) -> str:
    """A data file as pytest locates its items (relative to the rootdir): how reports,
    and so the tally, name it."""
    return bestrelpath(config.rootpath, path)


def _fail(session: pytest.Session) -> None:
    """Make the run fail (exit 1) for an output not written, unless it already ends worse
    (interrupted, internal or usage error): a refused record never hides those."""
    if session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(optionalhook=True)
def pytest_json_runtest_metadata(item: pytest.Item, call: pytest.CallInfo[None]) -> dict[str, Any] | None:
    """pytest-json-report: each item's verdict under ``metadata.session_eval``."""
    if isinstance(item, _RecordItem):
        return {"session_eval": wire_safe(item.metadata())}  # the same with and without xdist
    return None
