"""The efficiency KPIs of a session: reported, never graded, never guessed."""

from __future__ import annotations

from typing import Any, Final

from .sessions import Window
from .values import is_number

__all__ = ["KPI_NAMES", "extract_kpis", "duration_source"]

KPI_NAMES: Final = (
    "duration_seconds",
    "total_waves",
    "total_agents",
    "token_input",
    "token_output",
    "carryover",
)


def _non_negative(value: object) -> int | float | None:
    return value if is_number(value) and value >= 0 else None  # type: ignore[operator,return-value]


def duration_source(record: dict[str, Any], window: Window | None) -> str:
    """Where ``duration_seconds`` comes from: ``recorded``, ``derived from the window`` or ``unavailable``."""
    if _non_negative(record.get("duration_seconds")) is not None:
        return "recorded"
    if window is not None and window.end >= window.start:
        return "derived from the window"
    return "unavailable"


def extract_kpis(record: dict[str, Any], window: Window | None) -> dict[str, int | float | None]:
    """The six KPIs; each a non-negative number or ``None``.

    ``duration_seconds`` is the recorded value, else the window's length rounded
    half up to whole seconds, else ``None``.
    """
    duration = _non_negative(record.get("duration_seconds"))
    if duration is None and window is not None and window.end >= window.start:
        duration = (window.end - window.start + 500) // 1000
    effectiveness = record.get("effectiveness")
    return {
        "duration_seconds": duration,
        "total_waves": _non_negative(record.get("total_waves")),
        "total_agents": _non_negative(record.get("total_agents")),
        "token_input": _non_negative(record.get("total_token_input")),
        "token_output": _non_negative(record.get("total_token_output")),
        "carryover": _non_negative(effectiveness.get("carryover"))
        if type(effectiveness) is dict
        else None,
    }
