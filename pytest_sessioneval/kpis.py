"""The efficiency KPIs of a session: reported, never graded, never guessed."""

from __future__ import annotations

from typing import Any, Final

from .sessions import Window
from .values import SAFE_INTEGER, as_double, show

__all__ = ["KPI_NAMES", "extract_kpis", "duration_source", "kpi_notes"]

# Each KPI, in record order, and where it is read in a session record: a top-level field,
# or one of ``effectiveness``.
_KPI_FIELDS: Final[dict[str, tuple[str, str | None]]] = {
    "duration_seconds": ("duration_seconds", None),
    "total_waves": ("total_waves", None),
    "total_agents": ("total_agents", None),
    "token_input": ("total_token_input", None),
    "token_output": ("total_token_output", None),
    "carryover": ("carryover", "effectiveness"),
}
KPI_NAMES: Final = tuple(_KPI_FIELDS)


_INFINITY: Final = float("inf")


def _non_negative(value: object) -> int | float | None:
    """``value`` when it is a number (``is_number``) and ``>= 0``, else ``None``.

    An integer beyond 2**53 is the nearest double, as in JavaScript (``as_double``).
    """
    kind = type(value)
    if kind is int:
        if value < 0:  # type: ignore[operator]
            return None
        if value <= SAFE_INTEGER:  # type: ignore[operator]
            return value  # type: ignore[return-value]
        value, kind = as_double(value), float  # type: ignore[arg-type]
    if kind is float:  # the value may be an integer beyond 2**53 made a double
        # Finite and non-negative in one comparison: NaN and infinity fail it.
        return value if 0 <= value < _INFINITY else None  # type: ignore[operator,return-value]
    return None


def duration_source(record: dict[str, Any], window: Window | None) -> str:
    """Where ``duration_seconds`` comes from: ``recorded``, ``derived from the window`` or ``unavailable``."""
    if _non_negative(record.get("duration_seconds")) is not None:
        return "recorded"
    if window is not None and window.end >= window.start:
        return "derived from the window"
    return "unavailable"


def _field(record: dict[str, Any], name: str, within: str | None) -> Any:
    """The value of a KPI's field (``_KPI_FIELDS``), ``None`` when it is not there."""
    container = record.get(within) if within else record
    return container.get(name) if type(container) is dict else None


def kpi_notes(record: dict[str, Any]) -> list[str]:
    """Each KPI field the record holds that is not a non-negative number, named with its value:
    it was treated as missing (a ``null`` is missing as it is, and gets no note)."""
    notes = []
    for name, within in _KPI_FIELDS.values():
        value = _field(record, name, within)
        if value is not None and _non_negative(value) is None:
            label = f"{within}.{name}" if within else name
            notes.append(f"{label}={show(value)} is not a non-negative number and was treated as missing")
    return notes


def extract_kpis(record: dict[str, Any], window: Window | None) -> dict[str, int | float | None]:
    """The six KPIs; each a non-negative number or ``None``.

    ``duration_seconds`` is the recorded value, else the window's length rounded
    half up to whole seconds, else ``None``.
    """
    kpis = {kpi: _non_negative(_field(record, name, within)) for kpi, (name, within) in _KPI_FIELDS.items()}
    if kpis["duration_seconds"] is None and window is not None and window.end >= window.start:
        kpis["duration_seconds"] = (window.end - window.start + 500) // 1000
    return kpis
