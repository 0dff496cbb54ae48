"""A file in UTF-16 or UTF-32 (told by its byte order mark) is said once, as what it is,
not as a bad JSON line per line; an events file that holds no readable event says so."""

from __future__ import annotations

from pathlib import Path

import pytest
from builders import MetricsWriter, copy_example, gate, session


def encoded(path: Path, encoding: str) -> None:
    path.write_bytes("\ufeff".encode(encoding) + path.read_text(encoding="utf-8").encode(encoding))


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_a_sessions_file_in_utf16_or_utf32_is_one_warning(
    pytester: pytest.Pytester, project_metrics: MetricsWriter, encoding: str
) -> None:
    metrics = project_metrics([session("a"), session("b"), session("c")], [])
    encoded(metrics / "sessions.jsonl", encoding)
    result = pytester.runpytest("--session-eval=metrics")
    name = encoding[:6].upper()
    result.stdout.fnmatch_lines(
        [
            f"*SessionEvalInputWarning: metrics/sessions.jsonl:1: file is {name} (it starts with a {name} "
            "byte-order mark): save the file as UTF-8; file skipped"
        ]
    )
    assert result.stdout.str().count("SessionEvalInputWarning: ") == 1
    assert "not valid JSON" not in result.stdout.str()


@pytest.mark.parametrize("fast", [(), ("--session-eval-fast-events",)], ids=["every-line", "fast"])
def test_an_events_file_in_utf16_is_one_warning_and_holds_no_readable_event(
    pytester: pytest.Pytester, project_metrics: MetricsWriter, fast: tuple[str, ...]
) -> None:
    metrics = project_metrics(
        [session("a", total_files_changed=1, waves=[1])], [gate("2026-07-20T09:30:00Z", 0, "full-gate")] * 3
    )
    encoded(metrics / "events.jsonl", "utf-16")
    result = pytester.runpytest("--session-eval=metrics", "-rA", *fast)
    result.stdout.fnmatch_lines(
        [
            "*SessionEvalInputWarning: metrics/events.jsonl:1: file is UTF-16 (it starts with a UTF-16 "
            "byte-order mark): save the file as UTF-8; file skipped",
            "*process-safety: 1 cannot-determine: 1 whose events file holds no readable event",
        ]
    )
    text = result.stdout.str()
    assert text.count("SessionEvalInputWarning: ") == 1
    assert "without an events file" not in text and "No events file" not in text
    assert "The events file holds no readable event" in text


def test_policy_data_in_utf16_is_one_fault(pytester: pytest.Pytester) -> None:
    copy_example(pytester.path, "policy")
    encoded(pytester.path / "policy" / "prompts.jsonl", "utf-16")
    result = pytester.runpytest("--policy-eval=policy/prompts.jsonl", "-rf")
    result.stdout.fnmatch_lines(
        ["*policy/prompts.jsonl: line 1 starts a file in UTF-16 (it starts with a UTF-16 byte-order mark)*"]
    )
    assert "not valid UTF-8" not in result.stdout.str()
    assert result.stdout.str().count("[utf-8]") <= 2  # its one item: a header and a summary line
