"""What a person reads, rendered from plain data: pass rates with honest intervals
(``intervals``) and the self-contained HTML page (``html``, from the data of ``page_data``).
Pure: no pytest, no clock."""

from .html import render_report, write_report
from .intervals import DimensionRate, format_rate, wilson_interval
from .page_data import NotScoredRow, ReportData, SessionRow, VerdictCell

__all__ = [
    "DimensionRate",
    "NotScoredRow",
    "ReportData",
    "SessionRow",
    "VerdictCell",
    "format_rate",
    "render_report",
    "wilson_interval",
    "write_report",
]
