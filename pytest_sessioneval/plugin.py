"""The pytest plugin: options, input checks, collection of sessions files, reporting hooks."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from . import options as opt
from .engine import Evaluation, NoEligibleSession, Selection, evaluate, resolve_inputs
from .nodes import SessionsFile, _RecordItem, warn_problems
from .reporting import Tally
from .rubric import Rubric
from .rubric_v1 import RUBRIC_V1
from .timestamps import parse_timestamp_ms

__all__ = ["SessionEvalRun"]

_DAY_MS = 86_400_000


RUN_KEY = pytest.StashKey["SessionEvalRun"]()


def _option(config: pytest.Config, flag: str) -> Any:
    return opt.get_option(config, next(o for o in opt.OPTIONS if o.flag == flag))


def is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def pytest_addoption(parser: pytest.Parser) -> None:
    opt.add_options(parser)


def _usage(flag: str, message: str) -> pytest.UsageError:
    return pytest.UsageError(f"{flag}: {message}")


def _readable_file(flag: str, path: Path) -> Path:
    if not path.exists():
        raise _usage(flag, f"{path}: no such file or directory")
    if not path.is_file():
        raise _usage(flag, f"{path}: not a file")
    try:
        with open(path, "rb"):
            pass
    except OSError as exc:
        raise _usage(flag, f"{path}: cannot be read ({exc.strerror or exc})") from None
    return path


def _resolve_sources(config: pytest.Config, paths: list[Path]) -> dict[Path, Path | None]:
    events_option = _option(config, "--session-eval-events")
    events = _readable_file("--session-eval-events", events_option) if events_option else None
    sources: dict[Path, Path | None] = {}
    for path in paths:
        if path.is_dir() and not (path / "sessions.jsonl").exists():
            raise _usage("--session-eval", f"{path}: directory holds no sessions.jsonl")
        sessions, beside = resolve_inputs(path, events)
        _readable_file("--session-eval", sessions)
        sources.setdefault(Path(os.path.abspath(sessions)), beside)
    return sources


def _date_bound(flag: str, value: str | None, end_of_day: bool) -> int | None:
    if value is None:
        return None
    ms = parse_timestamp_ms(value)
    if ms is None:
        raise _usage(flag, f"{value!r} is not a date (YYYY-MM-DD) or an RFC 3339 date-time")
    if end_of_day and len(value) == 10:
        ms += _DAY_MS - 1
    return ms


def _eval_timestamp(config: pytest.Config) -> str:
    given = _option(config, "--session-eval-timestamp")
    if given is not None:
        if parse_timestamp_ms(given) is None:
            raise _usage("--session-eval-timestamp", f"{given!r} is not an ISO 8601 date-time")
        return str(given)
    if is_worker(config) and "session_eval_timestamp" in config.workerinput:  # type: ignore[attr-defined]
        return str(config.workerinput["session_eval_timestamp"])  # type: ignore[attr-defined]
    now = datetime.now(timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    for line in (
        "deterministic: a deterministic rubric dimension of a scored session",
        "judge: an advisory, uncalibrated judge dimension of a scored session",
    ):
        config.addinivalue_line("markers", line)
    if not config.pluginmanager.hasplugin("xdist"):
        config.addinivalue_line("markers", "xdist_group(name): group items on one pytest-xdist worker")
    paths = _option(config, "--session-eval")
    if not paths:
        return
    sources = _resolve_sources(config, paths)
    selection = Selection(
        session_ids=frozenset(_option(config, "--session-eval-session")) or None,
        latest=_option(config, "--session-eval-latest"),
        since_ms=_date_bound("--session-eval-since", _option(config, "--session-eval-since"), False),
        until_ms=_date_bound("--session-eval-until", _option(config, "--session-eval-until"), True),
    )
    run = SessionEvalRun(sources, selection, _eval_timestamp(config))
    config.stash[RUN_KEY] = run
    config.pluginmanager.register(run, "session-eval-run")
    _add_collection_args(config, list(sources))
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_XdistTimestamp(config), "session-eval-xdist")


def _add_collection_args(config: pytest.Config, files: list[Path]) -> None:
    """Collect only the sessions files when no test path was given, else both."""
    targets = [str(path) for path in files]
    if not config.option.file_or_dir:
        config.args[:] = targets
        return
    present = {os.path.abspath(arg.split("::")[0]) for arg in config.args}
    config.args.extend(t for t in targets if t not in present)


class _XdistTimestamp:
    """Hands the controller's eval timestamp to every worker: the clock is read once per run."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput["session_eval_timestamp"] = self.config.stash[RUN_KEY].timestamp


class SessionEvalRun:
    """One pytest run's session evaluation, registered as a plugin while the run lasts."""

    def __init__(self, sources: dict[Path, Path | None], selection: Selection, timestamp: str) -> None:
        self.sources = sources
        self.selection = selection
        self.timestamp = timestamp
        self.rubric: Rubric = RUBRIC_V1
        self.evaluations: dict[Path, Evaluation] = {}
        self.tally = Tally()

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """Score every sessions file once, before collection; input errors are usage errors."""
        for sessions, events in self.sources.items():
            try:
                self.evaluations[sessions] = evaluate(sessions, events, self.selection, self.rubric)
            except OSError as exc:
                raise pytest.UsageError(
                    f"--session-eval: cannot read {exc.filename or sessions}: {exc.strerror or exc}"
                ) from None
            except NoEligibleSession as exc:
                raise _usage("--session-eval-latest", str(exc)) from None
        wanted = self.selection.session_ids
        if wanted:
            known = frozenset().union(*(e.session_ids for e in self.evaluations.values()))
            unknown = sorted(wanted - known)
            if unknown:
                raise _usage(
                    "--session-eval-session",
                    f"unknown session id(s): {', '.join(map(repr, unknown))} "
                    f"(not in {', '.join(str(p) for p in self.evaluations)})",
                )

    def pytest_collection(self, session: pytest.Session) -> None:
        # Warned once, by the process that reports; xdist workers stay silent.
        if not is_worker(session.config):
            for evaluation in self.evaluations.values():
                warn_problems(evaluation, session.config.invocation_params.dir)

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
        evaluation = self.evaluations.get(Path(os.path.abspath(file_path)))
        if evaluation is None:
            return None
        return SessionsFile.from_parent(parent, path=file_path, evaluation=evaluation)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.tally.add(report)

    def pytest_terminal_summary(self, terminalreporter: Any, config: pytest.Config) -> None:
        if is_worker(config):
            return
        terminalreporter.write_sep("=", "session evaluation")
        for line in self.tally.lines(self.rubric.dimension_ids, self.rubric.version):
            terminalreporter.write_line(line)


@pytest.hookimpl(optionalhook=True)
def pytest_json_runtest_metadata(item: pytest.Item, call: pytest.CallInfo[None]) -> dict[str, Any] | None:
    """pytest-json-report: each item's verdict under ``metadata.session_eval``."""
    if isinstance(item, _RecordItem):
        return {"session_eval": item.metadata()}
    return None
