"""One pytest run's session evaluation, from session start to the terminal summary.

Registered as a plugin while the run lasts: it reads and scores every input once, before
collection (on the controller and on each xdist worker alike, so that their items agree),
asks the judges once (on the controller), hands pytest a collector per data file, counts
the reports, writes the journal and the page, and sums up.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import pytest

from ..core.engine import (
    Evaluation,
    NoEligibleSession,
    SessionEvaluation,
    SkippedSession,
    evaluate,
)
from ..core.rubric import RubricError
from ..core.snapshot import InputChanged
from ..core.text import printable
from ..records.journal import is_journal
from ..report.baseline import BaselineError, read_baseline
from ..report.summary import summary_dict
from . import html_columns
from ._compat import index_teardown_reports
from .collection import data_file_node_id
from .files import absolute
from .gates import Gates, check_summary_paths
from .input_warnings import issue_warning_at, warn_problems, warn_unreadable_timestamps
from .journal_file import JournalFile
from .journals import StoredJournal
from .judging import ask_judges, judged_for_workers, take_judged_from_controller
from .options import how_given, naming_options_as_given, runs_no_item, usage_error
from .outputs import check_output_paths, fail, located, write_outputs
from .sessions_file import SessionsFile
from .settings import Settings
from .snapshot import RefusedInput, fix_inputs, refused
from .summary import Tally, write_summary
from .xdist import is_worker

__all__ = ["RUN_KEY", "SessionEvalRun"]

RUN_KEY = pytest.StashKey["SessionEvalRun"]()


class SessionEvalRun:
    """One pytest run's session evaluation, registered as a plugin while the run lasts."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.evaluations: dict[Path, Evaluation] = {}
        self.without_latest: dict[Path, NoEligibleSession] = {}  # sessions files that gave --session-eval-latest none
        self.journals: dict[Path, StoredJournal] = {}
        self.messages: list[str] = list(settings.notes)  # what the summary says besides the table
        self.tally = Tally()
        self.gates = Gates(settings)  # the requirement and regression items, and the exit status they decide
        self.dry_run = False  # --co, --setup-only or --setup-plan: no item runs
        self.session: pytest.Session | None = None
        self.finished = False
        self.refused: str | None = None  # on a worker: why an input cannot be read (it changed)

    def for_workers(self) -> dict[str, Any]:
        """What every xdist worker gets: the eval timestamp (the clock is read once per run)
        and, when judges were asked, their verdicts."""
        handed: dict[str, Any] = {"session_eval_timestamp": self.settings.timestamp}
        if self.settings.judges is not None:
            handed.update(judged_for_workers(self.evaluations))
        return handed

    @pytest.hookimpl(tryfirst=True)  # before xdist starts its workers, which need the judge verdicts
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """Read and score every input once, before collection; input errors are usage errors."""
        self.session = session
        with naming_options_as_given(session.config):
            self._start(session.config)

    def _start(self, config: pytest.Config) -> None:
        settings = self.settings
        index_teardown_reports(config.pluginmanager.getplugin("terminalreporter"))
        check_output_paths(settings)
        check_summary_paths(settings)
        self.dry_run = runs_no_item(config)
        self.tally.files = self.gates.files = frozenset(located(config, path) for path in settings.collected_paths())
        html_columns.add_files(config, self.tally.files)
        self._fix_inputs(config)
        try:
            self._read(config)
            self._read_baseline()
        except InputChanged as exc:
            if not is_worker(config):
                raise pytest.UsageError(f"--session-eval: {refused(exc)}") from None
            self.refused = refused(exc)  # a collection error: a worker's usage error would go unreported
            return
        except RubricError as exc:
            # A scorer's answer outside the rules: the plugin that registered its rubric is at fault.
            plugin = settings.rubric_plugins.get(exc.rubric) if exc.rubric is not None else None
            named = f"plugin {plugin!r}: " if plugin is not None else ""
            raise usage_error("--session-eval-rubric", printable(f"{named}{exc}")) from None
        except OSError as exc:
            raise pytest.UsageError(f"--session-eval: cannot read {exc.filename}: {exc.strerror or exc}") from None
        self._warn_input_problems(config)
        if settings.verify_path is not None:
            return
        self._check_named_sessions(config)
        if settings.judges is None:
            return
        if is_worker(config):
            take_judged_from_controller(config, self.evaluations)
        else:
            self.messages.extend(ask_judges(config, settings, self.evaluations, dry_run=self.dry_run))

    def _fix_inputs(self, config: pytest.Config) -> None:
        """Fix what every input is, once, before it is read (see ``snapshot``); say what a
        journal's unfinished last line left out."""
        settings = self.settings
        files = [path for pair in settings.sources.items() for path in pair if path is not None]
        journals = list(settings.report_journals)
        # A journal re-verified is fixed with its seal: every process checks the same runs.
        sealed = [settings.verify_path] if settings.verify_path is not None else []
        baseline = settings.baseline_path
        if baseline is not None:  # a journal, or a summary (taken whole: it may end without a newline)
            (journals if is_journal(baseline) else files).append(baseline)
        for path, snapshot in fix_inputs(config, files, journals, sealed).items():
            if snapshot.left_out:
                self.messages.append(
                    f"{located(config, path)}: its last line has no newline yet (a record being written?): the "
                    f"{snapshot.left_out} byte(s) after the last newline are not read"
                )

    def _read(self, config: pytest.Config) -> None:
        """Read the journals, and score every sessions file (or, re-verifying, the sessions
        the journal's records name)."""
        settings = self.settings
        if settings.verify_path is not None:
            # Re-verification reads its own journal alone; the others stay inputs, never overwritten.
            journal = StoredJournal.read(settings.verify_path, settings.rubrics, verify=True)
            self.evaluations = journal.score_afresh(
                settings.sources, settings.rubric, settings.check_every_event_line, config.invocation_params.dir
            )
            self.journals[settings.verify_path] = journal
            return
        for path in settings.report_journals:
            self.journals[path] = StoredJournal.read(path, settings.rubrics)
        for sessions, events in settings.sources.items():
            try:
                self.evaluations[sessions] = evaluate(
                    sessions,
                    events,
                    settings.selection,
                    settings.rubric,
                    check_every_event_line=settings.check_every_event_line,
                )
            except NoEligibleSession as exc:  # each file gives its latest session, if it has one
                self.evaluations[sessions] = exc.evaluation
                self.without_latest[sessions] = exc
        if self.without_latest and len(self.without_latest) == len(settings.sources):
            raise usage_error("--session-eval-latest", "; ".join(map(str, self.without_latest.values())))

    def _read_baseline(self) -> None:
        """The baseline's counts, read on every process (the regression items are judged where
        they are collected); a baseline that cannot serve is a usage error."""
        settings = self.settings
        if settings.baseline_path is None:
            return
        try:
            self.gates.baseline = read_baseline(settings.baseline_path, settings.rubric.version, settings.rubric.sha256)
        except BaselineError as exc:
            raise usage_error("--session-eval-baseline", str(exc)) from None
        except InputChanged:
            raise
        except OSError as exc:
            raise usage_error(
                "--session-eval-baseline", f"{settings.baseline_path}: cannot be read ({exc.strerror or exc})"
            ) from None

    def _check_named_sessions(self, config: pytest.Config) -> None:
        """Every session ``--session-eval-session`` names is in the files, and in the date range."""
        selection = self.settings.selection
        wanted = selection.session_ids
        if not wanted:
            return
        known = frozenset().union(*(e.session_ids for e in self.evaluations.values()))
        unknown = sorted(wanted - known)
        if unknown:
            searched = ", ".join(str(p) for p in self.evaluations) or "no sessions file"
            note = " (it selects sessions of sessions files, not records of journals)" if self.journals else ""
            raise usage_error(
                "--session-eval-session",
                f"unknown session id(s): {', '.join(map(repr, unknown))} (searched {searched}){note}",
            )
        listed = {
            entry.session_id
            for e in self.evaluations.values()
            for entry in e.entries
            if isinstance(entry, (SessionEvaluation, SkippedSession))
        }
        outside = sorted(wanted - listed)
        if outside:  # only the date range leaves out a session that is in the files
            bound = "--session-eval-since" if selection.since_ms is not None else "--session-eval-until"
            raise usage_error(
                bound,
                f"session id(s) {', '.join(map(repr, outside))}, named by "
                f"{how_given(config, '--session-eval-session')}, started outside the selected date range "
                "(or their started_at does not parse)",
            )

    def _warn_input_problems(self, config: pytest.Config) -> None:
        """Warn about every unusable input line, once per run, by the process that reports.

        Issued when the inputs are read (not at collection, which ``--lf`` may skip
        and xdist runs on every worker), through pytest's warning filters: under
        ``-W error`` a bad line is a usage error naming it.
        """
        if is_worker(config):
            return
        start = config.invocation_params.dir
        warn = partial(issue_warning_at, config)
        for evaluation in self.evaluations.values():
            warn_problems(evaluation.problems, start, warn)
            warn_unreadable_timestamps(evaluation.unreadable_timestamps, start, warn)
        for journal in self.journals.values():
            if not journal.verify:  # (re-verified, such a line is a failed item, not a line skipped)
                warn_problems(journal.problems, start, warn)
        if self.gates.baseline is not None:
            warn_problems(self.gates.baseline.problems, start, warn)

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
        path = absolute(file_path)
        if self.refused is not None and path in self.settings.collected_paths():
            nodeid = data_file_node_id(parent.config, file_path)
            return RefusedInput.from_parent(parent, path=file_path, nodeid=nodeid, message=self.refused)
        verify_path = self.settings.verify_path
        if path in self.journals and (verify_path is None or path == verify_path):
            nodeid = data_file_node_id(parent.config, file_path)
            return JournalFile.from_parent(parent, path=file_path, nodeid=nodeid, journal=self.journals[path])
        if verify_path is None and path in self.evaluations:
            nodeid = data_file_node_id(parent.config, file_path)
            return SessionsFile.from_parent(parent, path=file_path, nodeid=nodeid, evaluation=self.evaluations[path])
        return None

    @pytest.hookimpl(tryfirst=True)  # before -k, -m and --lf select: they select these items too
    def pytest_collection_modifyitems(self, session: pytest.Session, items: list[pytest.Item]) -> None:
        self.gates.add_items(session, items)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.gates.judge(session.items)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not self.dry_run:
            self.tally.add(report)
            self.gates.add_report(report)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self.gates.add_collect_report(report)

    @pytest.hookimpl(tryfirst=True)  # before pytest-json-report reads the exit status
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Decide a gated run's exit status; write the journal, the HTML report and the
        summaries: once, by the controller.

        A run that runs no item (``--co``, ``--setup-only``, ``--setup-plan``) writes nothing.
        """
        self._finish(session)

    def _finish(self, session: pytest.Session) -> None:
        if is_worker(session.config) or self.dry_run or self.finished:
            return
        self.finished = True
        self.gates.decide_exit(session)
        self.messages.extend(write_outputs(session, self.settings, self.evaluations, self.tally))
        if self.settings.summary_path is not None or self.settings.markdown_path is not None:
            written = self.gates.write(session.config, self.gates.summary(self.tally))
            self.messages.extend(written)
            if any(message.startswith("ERROR") for message in written):
                fail(session)
        if self.scored_none and not self.settings.allow_empty and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.NO_TESTS_COLLECTED  # a green run must have scored something

    @property
    def scored_none(self) -> bool:
        """Whether sessions files were read and not one of their sessions was scored."""
        return (
            self.settings.verify_path is None
            and bool(self.evaluations)
            and not any(evaluation.scored for evaluation in self.evaluations.values())
        )

    @pytest.hookimpl(optionalhook=True)
    def pytest_json_modifyreport(self, json_report: dict[str, Any]) -> None:
        """pytest-json-report: the per-dimension summary at the root, under ``session_eval``, and
        the exit status as a gated run decides it."""
        session = self.session
        if session is None or is_worker(session.config) or self.dry_run or self.settings.verify_path is not None:
            return
        self._finish(session)
        json_report["exitcode"] = int(session.exitstatus)
        json_report["session_eval"] = summary_dict(self.gates.summary(self.tally))

    def pytest_terminal_summary(self, terminalreporter: Any, config: pytest.Config) -> None:
        if is_worker(config) or self.dry_run:
            return
        write_summary(terminalreporter, config, self)
