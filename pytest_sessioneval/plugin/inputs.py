"""Which files a session-eval run reads and writes, checked before anything is read.

The sessions files given (and the events file of each), the journals given as input,
and the outputs: no output of the run may land on a file it reads, nor on another
report's file.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ..core.engine import EVENTS_FILE, SESSIONS_FILE, resolve_inputs
from ..core.io import find_below, find_beside, is_named, read_bytes, spellings
from ..core.jsonl import first_named
from .files import (
    claim_files,
    file_identity,
    not_a_file,
    other_reports,
    path_kind,
    readable_file,
)
from .options import how_given, option_value, usage_error

if TYPE_CHECKING:
    from .settings import Settings

__all__ = ["refuse_overwriting_inputs", "resolve_sources"]


def resolve_sources(config: pytest.Config, paths: list[Path]) -> tuple[dict[Path, Path | None], list[Path]]:
    """The sessions files to score, each with its events; and every sessions path given
    (a file reached twice is scored once, but each place it was given is an input)."""
    events_option = option_value(config, "--session-eval-events")
    events = readable_file("--session-eval-events", events_option) if events_option else None
    sources: dict[Path, Path | None] = {}
    # Each sessions file once with its events, however they are reached (a symbolic link too):
    # reached with other events beside it, it is another source.
    seen: set[tuple[object, object]] = set()
    given: list[Path] = []
    for sessions in _sessions_files(paths):
        sessions, beside = resolve_inputs(sessions, events)
        sessions = readable_file("--session-eval", sessions)
        _refuse_json_array("--session-eval", sessions)
        if beside is not None and file_identity(beside) == file_identity(sessions):
            if events is not None:
                raise usage_error(
                    "--session-eval-events", f"{events}: is the sessions file of this run; give the events file"
                )
            raise usage_error(
                "--session-eval",
                f"{sessions}: is the events file of this run too; give the sessions.jsonl (or the "
                "directory holding both)",
            )
        _refuse_events_as_sessions(sessions)
        if beside is not None:
            _refuse_json_array("--session-eval-events" if events is not None else "--session-eval", beside)
        near = _beside(sessions.parent, EVENTS_FILE) if events is None else None
        if near is not None:  # the events.jsonl beside, when there is one, must be readable
            kind = path_kind("--session-eval", near)
            if kind != "file":
                raise usage_error("--session-eval", f"{near}: {not_a_file(kind)}")
        given.append(sessions)
        identity = (file_identity(sessions), None if beside is None else file_identity(beside))
        if identity not in seen:
            seen.add(identity)
            sources[sessions] = beside
    return sources, given


def _sessions_files(paths: list[Path]) -> list[Path]:
    """Each path given, a directory replaced by the sessions files in it and below it."""
    files = []
    for path in paths:
        if path_kind("--session-eval", path) != "dir":
            files.append(path)  # a file, or what reading it says is wrong
            continue
        top = _beside(path, SESSIONS_FILE)
        found = find_below(path, SESSIONS_FILE)
        if top is not None and top not in found:
            files.append(top)  # a directory or a link to nothing: reading it says so
        elif not found:
            raise usage_error("--session-eval", f"{path}: holds no {SESSIONS_FILE}, nor does any directory below it")
        files.extend(found)
    return files


def _refuse_json_array(flag: str, path: Path) -> None:
    """A JSON array of objects saved as JSON Lines (``[{...}, {...}]``, on one line or over
    many) is one mistake, said once: not a bad line per line."""
    try:
        head = read_bytes(path, 1 << 16).lstrip(b" \t\r\n\xef\xbb\xbf")
    except OSError:
        return  # reading it says why, where it is read
    if head.startswith(b"[") and head[1:].lstrip(b" \t\r\n").startswith(b"{"):  # an array of objects
        raise usage_error(
            flag,
            f"{path}: this is a JSON array, not JSON Lines: give one object per line "
            f"(e.g. jq -c '.[]' {path.name} > {path.stem}-lines.jsonl)",
        )


def _refuse_events_as_sessions(path: Path) -> None:
    """An events file under another name than ``events.jsonl``, given as the sessions: its
    session starts would be scored as sessions and every other event fail as a record
    without a session id. (A file named ``sessions.jsonl`` is sessions whatever it holds.)"""
    if is_named(path, SESSIONS_FILE):
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


def refuse_overwriting_inputs(config: pytest.Config, settings: Settings) -> None:
    """An output must not be an input: the journal never lands in the metrics, the page never
    replaces a journal or the metrics (the same file under any spelling or link), and
    neither is written to a file of the policy evaluation of the same settings."""
    inputs = [(p, "a sessions file") for p in settings.sessions_given]
    # Where an events file is looked for counts even while none is there: written there, the
    # page or the journal would be read as events next time.
    inputs += [
        (p.parent / name, f"the {EVENTS_FILE} beside a sessions file")
        for p in settings.sessions_given
        for name in spellings(EVENTS_FILE)
    ]
    inputs += [(e, "an events file") for e in settings.sources.values() if e is not None]
    # A rubric's text is read too: its sha256 goes into every record.
    inputs += [(rubric.text_path, f"the text of rubric {version}") for version, rubric in settings.rubrics.items()]
    if settings.baseline_path is not None:
        inputs.append((settings.baseline_path, "the --session-eval-baseline"))
    data = {file_identity(path): what for path, what in inputs}
    given = how_given(config, "--session-eval")
    journals = {file_identity(p): f"a journal given to {given}" for p in settings.report_journals}
    if settings.verify_path is not None:
        journals[file_identity(settings.verify_path)] = "the journal given to --session-eval-verify"
    if settings.journal_path is not None:
        what = data.get(file_identity(settings.journal_path))
        if what:
            raise usage_error(
                "--session-eval-journal",
                f"{settings.journal_path} is {what} of this run; records go to a file of their own",
            )
        journals[file_identity(settings.journal_path)] = "the --session-eval-journal"
    if settings.html_path is not None:
        what = data.get(file_identity(settings.html_path)) or journals.get(file_identity(settings.html_path))
        if what:
            raise usage_error(
                "--session-eval-html", f"{settings.html_path} is {what} of this run; the page would replace it"
            )
    summaries = [
        (path, flag)
        for path, flag in (
            (settings.summary_path, "--session-eval-summary"),
            (settings.markdown_path, "--session-eval-markdown"),
        )
        if path is not None
    ]
    for path, flag in summaries:
        what = data.get(file_identity(path)) or journals.get(file_identity(path))
        if what:
            raise usage_error(flag, f"{path} is {what} of this run; the summary would be written into it")
    writes = [
        (path, flag)
        for path, flag in (
            (settings.journal_path, "--session-eval-journal"),
            (settings.html_path, "--session-eval-html"),
            *summaries,
        )
        if path is not None
    ]
    written: dict[object, str] = {}
    for path, flag in writes:
        other = written.setdefault(file_identity(path), flag)
        if other != flag:
            raise usage_error(flag, f"{path} is also the {other} of this run; give each its own file")
    # The reports other plugins write: one file cannot be two outputs, nor an input.
    reports = {file_identity(Path(where)): (what, where) for where, what in other_reports(config)}
    for path, flag in writes:
        if file_identity(path) in reports:
            raise usage_error(
                flag, f"{path} is also {reports[file_identity(path)][0]} of this run; give each its own file"
            )
    for identity, (report, where) in reports.items():
        what = journals.get(identity)  # (the journal of this run is refused above; claim_files checks the data)
        if what:
            raise pytest.UsageError(
                f"{report} {where} is {what} of this run: the report would replace it, or be read as it"
            )
    claim_files(config, inputs, writes)


def _beside(directory: Path, name: str) -> Path | None:
    """``core.io.find_beside``, with a path the system refuses to look at a usage error."""
    return find_beside(directory, name, lambda path: path_kind("--session-eval", path))
