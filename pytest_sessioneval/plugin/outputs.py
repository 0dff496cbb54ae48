"""What a session-eval run writes, once, by the controller: the eval journal's records and
the HTML page; and the record of a scored session, which a judge reads too."""

from __future__ import annotations

import socket
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from ..core.engine import Evaluation, SessionEvaluation, SkippedSession
from ..core.io import BROKEN_LINK, is_gzip, open_input
from ..core.snapshot import unheld
from ..records.build import (
    PLUGIN_VERSION,
    build_record,
    hostname_hash,
    recorded_platform,
)
from ..records.journal import JournalError, JournalLocked, append_records, foreign_to_journal
from ..records.schema import STANDARD_VERSION, InvalidRecord
from ..records.seal import seal_path
from ..report.html import first_text, is_html_page, write_report
from ..report.page_data import NotScoredRow, ReportData, SessionRow
from ._compat import bestrelpath, start_a_line
from .files import path_kind
from .options import how_given, usage_error
from .settings import Settings
from .summary import Tally

__all__ = ["check_output_paths", "fail", "located", "record_of", "write_outputs"]


def record_of(settings: Settings, entry: SessionEvaluation) -> dict[str, Any]:
    """The session-eval record of a scored session (``records.build_record``, validated)."""
    return build_record(
        session_id=entry.session_id,
        dimensions=(*entry.dimensions, *entry.judge),
        kpis=entry.kpis,
        rubric=settings.rubric,
        timestamp=settings.timestamp,
        model=dict(settings.model),
        plugin_version=PLUGIN_VERSION,
        platform=recorded_platform(entry.record),
        host_class=entry.host_class,
        hostname_hash=hostname_hash(socket.gethostname()),
        handle=settings.handle,
    )


def check_output_paths(settings: Settings) -> None:
    """What is at the output paths, looked at once every plugin has said what it reads (a
    file of this run's policy evaluation gets that plugin's refusal)."""
    if settings.journal_path is not None:
        _refuse_foreign_journal(settings.journal_path)
    if settings.html_path is not None:
        _refuse_replacing_other_files(settings.html_path)


def write_outputs(
    session: pytest.Session, settings: Settings, evaluations: Mapping[Path, Evaluation], tally: Tally
) -> list[str]:
    """Write the HTML page and append the journal, as the options ask; what the summary says
    of them. A page or a record not written makes the run fail (``fail``)."""
    messages: list[str] = []
    if settings.html_path is not None and settings.verify_path is not None:
        messages.append("HTML report: not written: re-verification (--session-eval-verify) scores no session to show")
    elif settings.html_path is not None:
        written = _write_html(session.config, settings, evaluations, tally)
        messages.append(written)
        if written.startswith("ERROR"):
            fail(session)
        if settings.report_journals:
            messages.append(
                "HTML report: the journals given as input are not drawn; the page shows the sessions scored in this run"
            )
    if settings.journal_path is not None:
        messages.extend(_append_journal(session, settings, evaluations, tally))
    return messages


def _write_html(config: pytest.Config, settings: Settings, evaluations: Mapping[Path, Evaluation], tally: Tally) -> str:
    sessions, not_scored = [], []
    ran: set[str] = set()  # the dimensions whose items ran for any session: the page's columns
    for path, evaluation in evaluations.items():
        source = located(config, path)
        shown = _shown(config, path, source)
        for entry in evaluation.entries:
            if isinstance(entry, SessionEvaluation) and (dimensions := tally.ran_any(source, entry.session_id)):
                sessions.append(SessionRow.from_evaluation(entry, shown, dimensions))  # -k, -m: as the summary
                ran |= dimensions
            elif isinstance(entry, SkippedSession) and tally.skipped(source, entry.session_id):
                not_scored.append(NotScoredRow.from_skipped(entry, shown))
    report = ReportData(
        title="Session evaluation",
        rubric_version=settings.rubric.version,
        rubric_sha256=settings.rubric.sha256,
        standard_version=STANDARD_VERSION,
        plugin_version=PLUGIN_VERSION,
        timestamp=settings.timestamp,
        dimension_order=tuple(d for d in settings.rubric.dimension_ids if d in ran),
        sessions=tuple(sessions),
        not_scored=tuple(not_scored),
        causes=settings.rubric.causes,
    )
    assert settings.html_path is not None
    try:
        write_report(report, settings.html_path)
    except OSError as exc:
        return f"ERROR: cannot write the HTML report {settings.html_path}: {exc.strerror or exc}"
    return f"HTML report: {bestrelpath(config.invocation_params.dir, settings.html_path)}"


def _append_journal(
    session: pytest.Session, settings: Settings, evaluations: Mapping[Path, Evaluation], tally: Tally
) -> list[str]:
    messages: list[str] = []
    assert settings.journal_path is not None
    records = []
    unwritable = []
    scored_at: dict[str, tuple[str, dict[str, Any]]] = {}  # run_id -> where it was scored in this run, and its record
    for path, evaluation in evaluations.items():
        source = located(session.config, path)
        for entry in evaluation.scored:
            if not tally.ran_any(source, entry.session_id):  # judge items alone count too (-m judge)
                continue
            where = f"{bestrelpath(session.config.invocation_params.dir, evaluation.sessions_path)}:{entry.line}"
            try:
                record = record_of(settings, entry)
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
        messages.extend(unwritable)
        fail(session)
    if not records:  # nothing to append: the journal is not even created
        messages.append(
            f"journal {bestrelpath(session.config.invocation_params.dir, settings.journal_path)}: 0 record(s) appended"
        )
        return messages
    start = session.config.invocation_params.dir
    journal = bestrelpath(start, settings.journal_path)
    timeout = settings.journal_lock_timeout
    flag = how_given(session.config, "--session-eval-journal-lock-timeout")

    def waiting() -> None:
        _tell(
            session.config,
            f"session evaluation: waiting for the lock on the journal {journal}, which another process holds "
            f"(up to {timeout:g} s: {flag})",
        )

    try:
        with unheld():  # an input journal too: the append sees every record, those added since the run began
            outcome = append_records(settings.journal_path, records, lock_timeout=timeout, waiting=waiting)
    except JournalError as exc:
        messages.append(
            f"ERROR: {exc}" + (f" ({flag} sets how long to wait)" if isinstance(exc, JournalLocked) else "")
        )
        fail(session)
        return messages
    except KeyboardInterrupt:  # Ctrl-C, say while the lock is waited for: the append is all or nothing
        messages.append(f"ERROR: interrupted while appending to the journal {journal}; nothing was appended")
        session.exitstatus = pytest.ExitCode.INTERRUPTED
        return messages
    messages.append(
        f"journal {journal}: {len(outcome.written)} record(s) appended, {len(outcome.unchanged)} already present"
    )
    if outcome.head is not None:
        messages.append(
            f"{bestrelpath(start, seal_path(settings.journal_path))}: line {outcome.seal_line} seals them; "
            f"chain head {outcome.head}"
        )
    if outcome.refused:
        messages.extend(f"REFUSED {reason}" for reason in outcome.refused)
        fail(session)
    return messages


def _tell(config: pytest.Config, line: str) -> None:
    """Say ``line`` on the terminal now (not in the summary, which comes later)."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        start_a_line(reporter)
        reporter.write_line(line, yellow=True)
    else:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()


def _refuse_foreign_journal(path: Path) -> None:
    """Records are appended only to a journal: never into a page, a sessions or events
    file, or anything else that happens to be at the path given; and its seal, beside it,
    must be a file (or nothing yet)."""
    sealing = seal_path(path)
    if path_kind("--session-eval-journal", sealing) not in (None, BROKEN_LINK, "file"):
        raise usage_error(
            "--session-eval-journal",
            f"{sealing}: not a file; the journal's seal is kept there, beside it: remove what is at that path",
        )
    try:
        what = foreign_to_journal(path) if path.is_file() else None
        compressed = what is None and path.is_file() and is_gzip(path)
    except OSError:  # unreadable: the append says so, naming the journal
        return
    if compressed:  # (lines added after a gzip stream are no part of it)
        raise usage_error(
            "--session-eval-journal",
            f"{path}: a gzip-compressed journal; records are appended only to a plain one: "
            "decompress it, or give a new path",
        )
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
        with open_input(path) as stream:
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


def located(config: pytest.Config, path: Path) -> str:
    """A data file as pytest locates its items (relative to the rootdir): how reports,
    and so the tally, name it."""
    return bestrelpath(config.rootpath, path)


def _shown(config: pytest.Config, path: Path, source: str) -> str:
    """A data file as the page names it: as located, inside the rootdir; else its absolute
    path (the page shows it shortened, the whole path on hover)."""
    return source if path.is_relative_to(config.rootpath) else str(path)


def fail(session: pytest.Session) -> None:
    """Make the run fail (exit 1) for an output not written, unless it already ends worse
    (interrupted, internal or usage error): a refused record never hides those."""
    if session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
