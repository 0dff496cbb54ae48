"""A rubric's own event kinds: declared, indexed, counted in a window, in both scans."""

from __future__ import annotations

from pathlib import Path

import pytest
from builders import session, write_jsonl, write_raw_lines

from pytest_sessioneval import RUBRIC_V1, Dimension, InputWarning, Rubric, SessionContext, Verdict, score_sessions
from pytest_sessioneval.core.events import read_events
from pytest_sessioneval.core.rubric import RubricError
from pytest_sessioneval.core.sessions import Window
from pytest_sessioneval.core.timestamps import parse_timestamp_ms

SPAWNED = "orchestrator.agent.spawned"
ODD = "team/agent.spawned"  # a kind with a slash, which JSON may spell "\/"


def window(start: str, end: str) -> Window:
    first, last = parse_timestamp_ms(start), parse_timestamp_ms(end)
    assert first is not None and last is not None
    return Window(first, last)


def events_file(tmp_path: Path) -> Path:
    return write_raw_lines(
        tmp_path / "events.jsonl",
        '{"event": "orchestrator.agent.spawned", "timestamp": "2026-07-20T09:10:00Z"}',
        '{"event": "orchestrator.agent.spawned", "timestamp": "2026-07-20T09:20:00+0000"}',
        '{"event": "orchestrator.agent.spawn\\u0065d", "timestamp": "2026-07-20T09:30:00Z"}',
        '{"event": "orchestrator.agent.spawned", "timestamp": "2026-07-20T11:00:00Z"}',
        '{"event": "orchestrator.agent.spawned", "timestamp": "not a time"}',
        '{"event": "team\\/agent.spawned", "timestamp": "2026-07-20T09:40:00Z"}',
        '{"event": "team/agent.spawned", "timestamp": "2026-07-20T09:50:00Z"}',
        '{"event": "orchestrator.tool.called", "timestamp": "2026-07-20T09:15:00Z"}',
    )


@pytest.mark.parametrize("every_line", [True, False])
def test_a_declared_kind_is_counted_in_a_window_in_either_scan(tmp_path: Path, every_line: bool) -> None:
    index = read_events(events_file(tmp_path), [], check_every_line=every_line, kinds=(SPAWNED, ODD))
    morning = window("2026-07-20T09:00:00Z", "2026-07-20T10:00:00Z")
    assert index.count(SPAWNED, morning) == 3  # the \u-spelt one too; 11:00 and the bad stamp not
    assert index.count(ODD, morning) == 2  # spelt "\/" or "/"
    assert index.count(SPAWNED, window("2026-07-20T09:20:00Z", "2026-07-20T09:20:00Z")) == 1  # bounds included
    assert index.count(SPAWNED, None) == 0
    assert index.count(SPAWNED, window("2026-07-20T10:00:00Z", "2026-07-20T09:00:00Z")) == 0


def test_a_kind_not_declared_is_refused_never_a_silent_zero(tmp_path: Path) -> None:
    index = read_events(events_file(tmp_path), [], kinds=(SPAWNED,))
    with pytest.raises(ValueError, match=r"not 'orchestrator\.tool\.called'.*Rubric\.event_kinds"):
        index.count("orchestrator.tool.called", window("2026-07-20T09:00:00Z", "2026-07-20T10:00:00Z"))


def test_without_an_events_file_a_declared_kind_counts_zero() -> None:
    index = read_events(None, [], kinds=(SPAWNED,))
    assert index.count(SPAWNED, window("2026-07-20T09:00:00Z", "2026-07-20T10:00:00Z")) == 0


def test_a_custom_rubric_scores_with_the_kinds_it_declares(tmp_path: Path) -> None:
    def spawned(context: SessionContext) -> Verdict:
        count = context.events.count(SPAWNED, context.window)
        return Verdict("pass" if count <= 2 else "fail", f"{count} agents spawned in window")

    rubric = Rubric("agents-v1", RUBRIC_V1.text_path, (Dimension("agents", spawned),), event_kinds=(SPAWNED,))
    write_jsonl(tmp_path / "sessions.jsonl", [session("a")])
    events_file(tmp_path)
    for every_line in (True, False):
        with pytest.warns(InputWarning, match="events.jsonl:5 timestamp 'not a time'"):
            [scored] = score_sessions(tmp_path, rubric=rubric, check_every_event_line=every_line)
        assert (scored.dimensions[0].status, scored.dimensions[0].evidence) == ("fail", "3 agents spawned in window")


@pytest.mark.parametrize("kinds", ["orchestrator.agent.spawned", ("",), (" ",), (1,), None])
def test_event_kinds_must_be_names(kinds: object) -> None:
    with pytest.raises(RubricError, match="event_kinds must be a tuple of event names"):
        Rubric("x-v1", RUBRIC_V1.text_path, RUBRIC_V1.dimensions, event_kinds=kinds)  # type: ignore[arg-type]


def test_rubric_v1_declares_the_kinds_it_reads() -> None:
    assert set(RUBRIC_V1.event_kinds) == {
        "orchestrator.quality_gate.passed",
        "orchestrator.quality_gate.failed",
        "orchestrator.destructive_guard.blocked",
        "orchestrator.loop.warning",
        "orchestrator.session.started",
    }
