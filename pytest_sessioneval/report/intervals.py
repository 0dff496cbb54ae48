"""Per-dimension pass rates with honest 95% intervals, and when two of them can be ranked.

A dimension's pass rate is taken over the sessions where it applied and could
be decided: ``pass / (pass + fail)``. ``not-applicable`` and ``cannot-determine``
are counted beside it, never folded in. The interval is Wilson's score
interval, which stays inside ``[0, 1]`` and is meaningful at 0 and n passes,
where the normal approximation collapses to a point.

One session (n = 1) gives a rate but no interval worth printing: it is
labelled ``n = 1, no interval``. Two dimensions are ranked against each other
only when both have an interval and the intervals do not overlap. There is no
figure across dimensions here, by design (aiat-llm-eval/1.0).

Two pass rates of one dimension (this run against a baseline) are compared by the
95% interval of their difference: Newcombe's hybrid score interval (method 10 of
Newcombe 1998), built from the two Wilson intervals.

Pure: no pytest, no clock, no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

__all__ = [
    "NO_INTERVAL",
    "NO_RATE",
    "Z_95",
    "DimensionRate",
    "format_interval",
    "format_rate",
    "newcombe_interval",
    "overlaps",
    "ranked_pairs",
    "ranking_note",
    "wilson_interval",
]

Z_95: Final = 1.959963984540054
"""The standard normal quantile for a two-sided 95% interval."""


def wilson_interval(successes: int, n: int, z: float = Z_95) -> tuple[float, float] | None:
    """Wilson score interval ``(low, high)`` for ``successes`` out of ``n``; ``None`` when ``n == 0``.

    For ``n == 1`` the interval is computed like any other, but it is too wide to
    say anything: reports label such a rate ``n = 1, no interval`` (``format_rate``).
    At 0 and ``n`` successes the bound on that side is exactly 0 or 1.

    Raises ``ValueError`` when the counts are negative or ``successes > n``.
    """
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if n == 0:
        return None
    p = successes / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


def newcombe_interval(
    successes: int, n: int, other_successes: int, other_n: int, z: float = Z_95
) -> tuple[float, float] | None:
    """The 95% interval ``(low, high)`` for ``successes / n - other_successes / other_n``;
    ``None`` when either ``n`` is 0.

    Newcombe's hybrid score interval without continuity correction (R. G. Newcombe,
    "Interval estimation for the difference between independent proportions: comparison
    of eleven methods", Statistics in Medicine 17:873-890, 1998, method 10): each side
    of the difference takes the distance to the Wilson bounds of both proportions. It
    stays inside ``[-1, 1]`` and, for equal proportions, always contains 0.

    Raises ``ValueError`` as ``wilson_interval`` does.
    """
    first, second = wilson_interval(successes, n, z), wilson_interval(other_successes, other_n, z)
    if first is None or second is None:
        return None
    p1, p2 = successes / n, other_successes / other_n
    (l1, u1), (l2, u2) = first, second
    difference = p1 - p2
    low = difference - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = difference + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return max(-1.0, low), min(1.0, high)


NO_RATE: Final = "n = 0, no pass rate"
NO_INTERVAL: Final = "n = 1, no interval"


def format_interval(passes: int, fails: int) -> str:
    """The 95% interval alone: ``0.30–0.95``, or ``n = 1, no interval``, or ``n = 0, no pass rate``."""
    n = passes + fails
    interval = wilson_interval(passes, n)
    if interval is None:
        return NO_RATE
    if n == 1:
        return NO_INTERVAL
    low, high = interval
    return f"{low:.2f}\u2013{high:.2f}"


def format_rate(passes: int, fails: int) -> str:
    """One line for a pass rate: ``pass rate 0.75 (n = 4, 95% CI 0.30–0.95)``.

    ``n = 1`` gives ``pass rate 1.00 (n = 1, no interval)``; ``n = 0`` (the dimension
    was never decided: every session was not-applicable or cannot-determine) gives
    ``n = 0, no pass rate``.
    """
    n = passes + fails
    if n == 0:
        return NO_RATE
    interval = format_interval(passes, fails)
    detail = interval if n == 1 else f"n = {n}, 95% CI {interval}"
    return f"pass rate {passes / n:.2f} ({detail})"


@dataclass(frozen=True, slots=True)
class DimensionRate:
    """One dimension's verdict counts, and the pass rate they give.

    ``rate`` is ``None`` when ``n == 0``; ``low`` and ``high`` are ``None`` when
    ``n < 2``, so that a one-session rate is never shown with an interval.
    """

    dimension: str
    passes: int
    fails: int
    not_applicable: int = 0
    cannot_determine: int = 0

    @classmethod
    def from_counts(cls, dimension: str, counts: Mapping[str, int]) -> DimensionRate:
        """Build from a mapping of rubric status (``"pass"``, ``"fail"``, ...) to count."""
        return cls(
            dimension,
            passes=counts.get("pass", 0),
            fails=counts.get("fail", 0),
            not_applicable=counts.get("not-applicable", 0),
            cannot_determine=counts.get("cannot-determine", 0),
        )

    @property
    def n(self) -> int:
        """Sessions the rate is taken over: those that passed or failed."""
        return self.passes + self.fails

    @property
    def rate(self) -> float | None:
        return self.passes / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float] | None:
        """The 95% Wilson interval, or ``None`` when ``n < 2``."""
        return wilson_interval(self.passes, self.n) if self.n >= 2 else None

    @property
    def low(self) -> float | None:
        interval = self.interval
        return interval[0] if interval else None

    @property
    def high(self) -> float | None:
        interval = self.interval
        return interval[1] if interval else None

    def describe(self) -> str:
        """The rate line of ``format_rate`` for this dimension's counts."""
        return format_rate(self.passes, self.fails)


def overlaps(a: DimensionRate, b: DimensionRate) -> bool:
    """Whether ``a`` and ``b`` cannot be ranked: their intervals touch, or either has none.

    A dimension with ``n < 2`` has no interval, so it is never ranked against anything.
    """
    first, second = a.interval, b.interval
    if first is None or second is None:
        return True
    return first[0] <= second[1] and second[0] <= first[1]


def ranked_pairs(rates: Iterable[DimensionRate]) -> list[tuple[str, str]]:
    """``(higher, lower)`` for every pair of dimensions whose intervals do not overlap.

    Pairs come in the order of ``rates`` (the first dimension of the pair being
    the earlier one), so the result depends on its input alone.
    """
    listed = list(rates)
    pairs = []
    for i, a in enumerate(listed):
        for b in listed[i + 1 :]:
            if overlaps(a, b):
                continue
            assert a.rate is not None and b.rate is not None
            pairs.append((a.dimension, b.dimension) if a.rate > b.rate else (b.dimension, a.dimension))
    return pairs


def ranking_note(rates: Sequence[DimensionRate]) -> str:
    """One sentence saying which dimensions' pass rates can be told apart, if any."""
    pairs = ranked_pairs(rates)
    if not pairs:
        return "No two dimensions are ranked: every pair of 95% intervals overlaps (or a dimension has n < 2)."
    listed = "; ".join(f"{higher} above {lower}" for higher, lower in pairs)
    return f"Ranked only where 95% intervals do not overlap: {listed}. No other pair is ranked."
