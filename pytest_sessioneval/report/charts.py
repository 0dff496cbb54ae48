"""The page's SVG figures: a pass rate's interval bar, and a dimension's weekly pass rate.

Every value from the data is escaped (``escape.html_text``); the figures depend on
their input alone.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Final

from ..core.rubric import CANNOT_DETERMINE, FAIL, NOT_APPLICABLE, PASS
from ..core.timestamps import parse_timestamp_ms
from .escape import html_text as _e
from .intervals import DimensionRate, format_rate, wilson_interval

__all__ = ["SCALE_HEAD", "Week", "chart", "interval_bar", "weekly_counts"]

_MS_PER_DAY: Final = 86_400_000
_EPOCH: Final = date(1970, 1, 1)


@dataclass(frozen=True, slots=True)
class Week:
    """An ISO week: its label (``2026-W30``) and its Monday."""

    label: str
    monday: date


# Every week between the first and last session is plotted up to this span (ten years).
_MAX_CONTIGUOUS_WEEKS = 522


def _week_of(started_at: str | None) -> Week | None:
    ms = parse_timestamp_ms(started_at)
    if ms is None:
        return None
    try:
        day = _EPOCH + timedelta(days=ms // _MS_PER_DAY)
        year, week, weekday = day.isocalendar()
        return Week(f"{year:04d}-W{week:02d}", day - timedelta(days=weekday - 1))
    except OverflowError:  # a week reaching outside years 1 to 9999: no calendar week to plot
        return None


def weekly_counts(
    sessions: Iterable[tuple[str | None, Mapping[str, str]]],
) -> tuple[list[Week], dict[str, dict[date, Counter[str]]], int]:
    """Every week from the first to the last session start, counts per dimension and week,
    and how many sessions had no parseable start. ``sessions``: each session's
    ``started_at`` and its status per dimension."""
    by_dimension: dict[str, dict[date, Counter[str]]] = {}
    undated = 0
    mondays: set[date] = set()
    for started_at, statuses in sessions:
        week = _week_of(started_at)
        if week is None:
            undated += 1
            continue
        mondays.add(week.monday)
        for dimension, status in statuses.items():
            by_dimension.setdefault(dimension, {}).setdefault(week.monday, Counter())[status] += 1
    weeks: list[Week] = []
    if mondays:
        first, last = min(mondays), max(mondays)
        if (last - first).days > 7 * _MAX_CONTIGUOUS_WEEKS:
            shown = sorted(mondays)  # decades apart: only the weeks that hold sessions
        else:
            shown = [first + timedelta(days=7 * n) for n in range((last - first).days // 7 + 1)]
        for monday in shown:
            year, week_number, _ = monday.isocalendar()
            weeks.append(Week(f"{year:04d}-W{week_number:02d}", monday))
    return weeks, by_dimension, undated


def _rate_tooltip(label: str, bucket: Counter[str]) -> str:
    """A week's point: its pass rate line, and the verdicts counted beside it."""
    extra = [f"{bucket[status]} {status}" for status in (NOT_APPLICABLE, CANNOT_DETERMINE) if bucket[status]]
    return f"{label}: {format_rate(bucket[PASS], bucket[FAIL])}" + (f"; {', '.join(extra)}" if extra else "")


def interval_bar(rate: DimensionRate) -> str:
    """A 0-to-1 scale with the interval as a bar and the rate as a dot."""
    width, left, right = 180.0, 6.0, 174.0

    def x(value: float) -> str:
        return f"{left + value * (right - left):.1f}"

    parts = [
        f'<svg class="bar" viewBox="0 0 {width:.0f} 18" width="{width:.0f}" height="18" role="img" '
        f'aria-label="{_e(rate.describe())}"><title>{_e(rate.dimension)}: {_e(rate.describe())}</title>',
        f'<line class="scale" x1="{left:.1f}" y1="9" x2="{right:.1f}" y2="9"/>',
        *(f'<line class="tick" x1="{x(v)}" y1="5" x2="{x(v)}" y2="13"/>' for v in (0.0, 0.5, 1.0)),
    ]
    if rate.low is not None and rate.high is not None:
        parts.append(
            f'<rect class="ci" x="{x(rate.low)}" y="5" width="{(rate.high - rate.low) * (right - left):.1f}" height="8" rx="2"/>'
        )
    if rate.rate is not None:
        parts.append(f'<circle class="rate" cx="{x(rate.rate)}" cy="9" r="3.5"/>')
    parts.append("</svg>")
    return "".join(parts)


# The 0, 0.5 and 1 marks above the interval bars, at the bars' tick positions.
SCALE_HEAD: Final = (
    '<svg class="bar" viewBox="0 0 180 12" width="180" height="12" role="img" aria-label="scale from 0 to 1">'
    '<text x="6" y="10" text-anchor="middle">0</text><text x="90" y="10" text-anchor="middle">0.5</text>'
    '<text x="174" y="10" text-anchor="middle">1</text></svg>'
)


_CHART_W: Final = 360.0


_CHART_H: Final = 158.0


_PAD_L: Final = 34.0


_PAD_R: Final = 10.0


_INSET: Final = 22.0


_PAD_T: Final = 12.0


_PLOT_H: Final = 110.0


_N_LABELS_MAX_WEEKS: Final = 14


def chart(dimension: str, weeks: Sequence[Week], counts: dict[date, Counter[str]]) -> str:
    """One dimension's weekly pass rate: points with 95% whiskers, lines only between adjacent weeks."""
    plot_w = _CHART_W - _PAD_L - _PAD_R
    bottom = _PAD_T + _PLOT_H

    def x(index: int) -> float:
        # Points sit inside the plot, clear of the y-axis labels and of the right edge.
        inner = plot_w - 2 * _INSET
        return _PAD_L + _INSET + (inner / 2 if len(weeks) == 1 else index * inner / (len(weeks) - 1))

    def y(value: float) -> float:
        return bottom - value * _PLOT_H

    parts = [
        f'<svg class="chart" viewBox="0 0 {_CHART_W:.0f} {_CHART_H:.0f}" role="img" '
        f'aria-label="{_e(f"{dimension}: pass rate per ISO week")}">',
    ]
    for value in (0.0, 0.5, 1.0):
        parts.append(
            f'<line class="gridline" x1="{_PAD_L:.1f}" y1="{y(value):.1f}" x2="{_CHART_W - _PAD_R:.1f}" y2="{y(value):.1f}"/>'
            f'<text class="axis" x="{_PAD_L - 6:.1f}" y="{y(value) + 3:.1f}" text-anchor="end">{value:g}</text>'
        )
    step = max(1, math.ceil(len(weeks) / 5))
    show_n = len(weeks) <= _N_LABELS_MAX_WEEKS
    for index, week in enumerate(weeks):
        cx = x(index)
        if index % step == 0:
            parts.append(
                f'<text class="axis" x="{cx:.1f}" y="{bottom + 14:.1f}" text-anchor="middle">{_e(week.label)}</text>'
            )
        if show_n:
            bucket = counts.get(week.monday, Counter())
            n = bucket[PASS] + bucket[FAIL]
            parts.append(f'<text class="n" x="{cx:.1f}" y="{bottom + 28:.1f}" text-anchor="middle">n={n}</text>')

    series = [f'<g class="series" data-dimension="{_e(dimension)}">']
    run: list[str] = []
    points: list[str] = []
    previous: Week | None = None
    for index, week in enumerate(weeks):
        bucket = counts.get(week.monday, Counter())
        passes, fails = bucket[PASS], bucket[FAIL]
        n = passes + fails
        # A line joins adjacent weeks only: a long span plots only the weeks that hold
        # sessions, and the weeks left out between them are gaps as well.
        adjacent = previous is not None and (week.monday - previous.monday).days == 7
        previous = week
        if n == 0 or not adjacent:
            if len(run) > 1:
                series.append(f'<path class="line" d="{" ".join(run)}"/>')
            run = []
            if n == 0:
                continue
        cx, cy = x(index), y(passes / n)
        run.append(f"{'M' if not run else 'L'}{cx:.1f},{cy:.1f}")
        label = f"{week.label} (week of {week.monday.isoformat()})"
        point = [f'<g class="point"><title>{_e(_rate_tooltip(label, bucket))}</title>']
        if n >= 2:
            low, high = wilson_interval(passes, n) or (0.0, 1.0)
            point.append(
                f'<line class="whisker" x1="{cx:.1f}" y1="{y(low):.1f}" x2="{cx:.1f}" y2="{y(high):.1f}"/>'
                f'<line class="whisker" x1="{cx - 3:.1f}" y1="{y(low):.1f}" x2="{cx + 3:.1f}" y2="{y(low):.1f}"/>'
                f'<line class="whisker" x1="{cx - 3:.1f}" y1="{y(high):.1f}" x2="{cx + 3:.1f}" y2="{y(high):.1f}"/>'
            )
        point.append(f'<circle class="dot" cx="{cx:.1f}" cy="{cy:.1f}" r="3.5"/></g>')
        points.append("".join(point))
    if len(run) > 1:
        series.append(f'<path class="line" d="{" ".join(run)}"/>')
    series.extend(points)
    series.append("</g>")
    parts.extend(series)
    if not points:
        parts.append(
            f'<text class="empty" x="{_PAD_L + plot_w / 2:.1f}" y="{_PAD_T + _PLOT_H / 2:.1f}" '
            'text-anchor="middle">never decided: n = 0 in every week</text>'
        )
    parts.append("</svg>")
    return f'<figure class="chart"><figcaption>{_e(dimension)}</figcaption>{"".join(parts)}</figure>'
