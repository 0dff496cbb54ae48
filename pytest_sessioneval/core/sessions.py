"""Session records: their ids, their windows, and which of them are eligible to be scored."""

from __future__ import annotations

from typing import Any, NamedTuple, TypeGuard

from .jsonl import timestamp_problem
from .text import show
from .timestamps import parse_timestamp_ms
from .values import is_blank, is_number, is_truthy

__all__ = [
    "Window",
    "eligibility",
    "is_usable_id",
    "session_id_problem",
    "session_window",
    "window_problem",
]


class Window(NamedTuple):
    """A session's wall-clock window ``[start, end]`` in epoch milliseconds (inclusive)."""

    start: int
    end: int


def is_usable_id(value: object) -> TypeGuard[str]:
    """A ``session_id`` that names a session: a string that is not blank (JavaScript's trim)."""
    return type(value) is str and not is_blank(value)


def session_id_problem(record: dict[str, Any]) -> str:
    """Why a record's ``session_id`` is not usable, in words."""
    if "session_id" not in record:
        return "session_id is missing"
    value = record["session_id"]
    if value == "":
        return "session_id is an empty string"
    if type(value) is str:
        return f"session_id is blank (only whitespace: {show(value)})"
    return f"session_id is not a string (found {show(value)})"


def session_window(record: dict[str, Any]) -> Window | None:
    """``[started_at, completed_at]`` when both parse, else ``None``."""
    start = parse_timestamp_ms(record.get("started_at"))
    if start is None:
        return None
    end = parse_timestamp_ms(record.get("completed_at"))
    if end is None:
        return None
    return Window(start, end)


def window_problem(record: dict[str, Any]) -> str | None:
    """Why the record has no window, naming the field (``None`` when it has one):
    ``no started_at``, or ``completed_at 'soon' is not a timestamp``."""
    for name in ("started_at", "completed_at"):
        value = record.get(name)
        if parse_timestamp_ms(value) is None:
            return timestamp_problem(name, value)
    return None


def eligibility(record: dict[str, Any]) -> str | None:
    """``None`` when the record is scored, else the reason it is not.

    Abandoned: never. Completed: always. Otherwise a truthy ``completed_at`` and
    evidence of work (``agent_summary.complete`` > 0, or a non-null
    ``effectiveness.completion_rate``) are both needed.
    """
    status = record.get("status")
    if status == "abandoned":
        return "abandoned session (status is 'abandoned'): abandoned sessions are never scored"
    if status == "completed":
        return None
    if not is_truthy(record.get("completed_at")):
        return "unfinished session: no completed_at and status is not 'completed'"
    summary = record.get("agent_summary")
    complete = summary.get("complete") if type(summary) is dict else None
    if is_number(complete) and complete > 0:  # type: ignore[operator]
        return None
    effectiveness = record.get("effectiveness")
    if type(effectiveness) is dict and effectiveness.get("completion_rate") is not None:
        return None
    return (
        "no evidence of work: status is not 'completed', agent_summary.complete is not a "
        "number > 0 and effectiveness.completion_rate is absent or null"
    )
