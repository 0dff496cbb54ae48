"""What a person reads, rendered from plain data: pass rates with honest intervals
(``intervals``) and the self-contained HTML page (``html``). Pure: no pytest, no clock."""

from .html import NotScoredRow, ReportData, SessionRow, VerdictCell, render_report, write_report
from .intervals import DimensionRate, format_rate, wilson_interval

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
