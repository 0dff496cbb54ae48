"""Pass rates and their 95% Wilson intervals: known values, labels, and when dimensions rank;
the difference of two pass rates and its 95% Newcombe interval."""

from __future__ import annotations

import pytest

from pytest_sessioneval.report.intervals import (
    DimensionRate,
    format_interval,
    format_rate,
    newcombe_interval,
    overlaps,
    ranked_pairs,
    ranking_note,
    wilson_interval,
)


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        # Reference values: Wilson score interval, z = 1.959964 (e.g. R's prop.test(correct = FALSE)).
        (8, 10, 0.4901625, 0.9433178),
        (0, 5, 0.0, 0.4344825),
        (5, 5, 0.5655175, 1.0),
        (3, 4, 0.3006418, 0.9544127),
        (50, 100, 0.4038315, 0.5961685),
        (1, 1, 0.2065493, 1.0),
        (0, 1, 0.0, 0.7934507),
    ],
)
def test_wilson_interval_matches_known_values(successes: int, n: int, low: float, high: float) -> None:
    assert bounds(successes, n) == pytest.approx((low, high), abs=5e-7)


def bounds(successes: int, n: int) -> tuple[float, float]:
    interval = wilson_interval(successes, n)
    assert interval is not None
    return interval


def test_wilson_bounds_are_exact_at_zero_and_all_successes() -> None:
    # Computed, some would miss by an ulp (10 of 10 gives 0.9999999999999999).
    for n in range(1, 301):
        assert bounds(0, n)[0] == 0.0 and bounds(n, n)[1] == 1.0, n


def test_wilson_interval_contains_the_rate_and_narrows_with_n() -> None:
    previous = 1.0
    for n in (4, 16, 64, 256):
        low, high = bounds(n // 4 * 3, n)
        assert low < 0.75 < high
        assert high - low < previous
        previous = high - low


def test_wilson_interval_of_nothing_is_none() -> None:
    assert wilson_interval(0, 0) is None


@pytest.mark.parametrize(("successes", "n"), [(-1, 3), (4, 3), (0, -1)])
def test_wilson_interval_rejects_impossible_counts(successes: int, n: int) -> None:
    with pytest.raises(ValueError, match="0 <= successes <= n"):
        wilson_interval(successes, n)


@pytest.mark.parametrize(
    ("passes", "fails", "text"),
    [
        (3, 1, "pass rate 0.75 (n = 4, 95% CI 0.30\u20130.95)"),
        (8, 2, "pass rate 0.80 (n = 10, 95% CI 0.49\u20130.94)"),
        (0, 5, "pass rate 0.00 (n = 5, 95% CI 0.00\u20130.43)"),
        (1, 0, "pass rate 1.00 (n = 1, no interval)"),
        (0, 1, "pass rate 0.00 (n = 1, no interval)"),
        (0, 0, "n = 0, no pass rate"),
    ],
)
def test_format_rate(passes: int, fails: int, text: str) -> None:
    assert format_rate(passes, fails) == text


def test_dimension_rate_leaves_not_applicable_and_cannot_determine_out_of_the_rate() -> None:
    rate = DimensionRate.from_counts("gate-health", {"pass": 6, "fail": 2, "not-applicable": 5, "cannot-determine": 9})
    assert (rate.passes, rate.fails, rate.not_applicable, rate.cannot_determine) == (6, 2, 5, 9)
    assert rate.n == 8
    assert rate.rate == 0.75
    assert (rate.low, rate.high) == wilson_interval(6, 8)
    assert rate.describe() == format_rate(6, 2)


def test_dimension_rate_with_one_session_has_a_rate_but_no_interval() -> None:
    rate = DimensionRate("plan-fidelity", passes=1, fails=0)
    assert rate.rate == 1.0
    assert rate.interval is None and rate.low is None and rate.high is None
    assert "n = 1, no interval" in rate.describe()


def test_dimension_rate_with_no_decided_session_has_no_rate() -> None:
    rate = DimensionRate.from_counts("efficiency-kpis", {"not-applicable": 12})
    assert rate.n == 0 and rate.rate is None and rate.interval is None
    assert rate.describe() == "n = 0, no pass rate"


def test_overlapping_intervals_are_not_ranked() -> None:
    a = DimensionRate("a", passes=8, fails=2)  # 0.49-0.94
    b = DimensionRate("b", passes=5, fails=5)  # 0.24-0.76
    assert overlaps(a, b) and overlaps(b, a)
    assert ranked_pairs([a, b]) == []


def test_disjoint_intervals_are_ranked_higher_first() -> None:
    low = DimensionRate("low", passes=2, fails=48)
    high = DimensionRate("high", passes=48, fails=2)
    assert not overlaps(low, high)
    assert ranked_pairs([low, high]) == [("high", "low")]
    assert ranked_pairs([high, low]) == [("high", "low")]


def test_a_dimension_without_an_interval_is_never_ranked() -> None:
    one = DimensionRate("one", passes=0, fails=1)
    none = DimensionRate("none", passes=0, fails=0, not_applicable=3)
    many = DimensionRate("many", passes=100, fails=0)
    assert overlaps(one, many) and overlaps(none, many)
    assert ranked_pairs([one, none, many]) == []


def test_ranking_note_names_only_distinguishable_pairs() -> None:
    rates = [
        DimensionRate("a", passes=48, fails=2),
        DimensionRate("b", passes=45, fails=5),
        DimensionRate("c", passes=2, fails=48),
    ]
    note = ranking_note(rates)
    assert "a above c" in note and "b above c" in note
    assert "a above b" not in note and "b above a" not in note
    assert ranking_note(rates[:2]).startswith("No two dimensions are ranked")


@pytest.mark.parametrize(
    ("passes", "fails", "text"),
    [(3, 1, "0.30\u20130.95"), (1, 0, "n = 1, no interval"), (0, 0, "n = 0, no pass rate")],
)
def test_format_interval(passes: int, fails: int, text: str) -> None:
    assert format_interval(passes, fails) == text


@pytest.mark.parametrize(
    ("x1", "n1", "x2", "n2", "low", "high"),
    [
        # Newcombe (1998), Statistics in Medicine 17:873-890, Table II, examples (a) to (h),
        # method 10 (score interval for the difference, no continuity correction), to 4 places.
        (56, 70, 48, 80, 0.0524, 0.3339),
        (9, 10, 3, 10, 0.1705, 0.8090),
        (6, 7, 2, 7, 0.0582, 0.8062),
        (5, 56, 0, 29, -0.0381, 0.1926),
        (0, 10, 0, 20, -0.1611, 0.2775),
        (0, 10, 0, 10, -0.2775, 0.2775),
        (10, 10, 0, 20, 0.6791, 1.0000),
        (10, 10, 0, 10, 0.6075, 1.0000),
    ],
)
def test_newcombe_interval_matches_newcombe_1998_table_ii(
    x1: int, n1: int, x2: int, n2: int, low: float, high: float
) -> None:
    interval = newcombe_interval(x1, n1, x2, n2)
    assert interval is not None
    assert interval == pytest.approx((low, high), abs=5e-5)


def test_newcombe_interval_of_equal_rates_contains_zero_and_mirrors_when_swapped() -> None:
    for x, n in [(0, 1), (1, 1), (3, 7), (7, 7), (0, 30), (45, 50)]:
        low, high = newcombe_interval(x, n, x, n) or (1.0, -1.0)
        assert low < 0 < high, (x, n)
    forward, backward = newcombe_interval(9, 10, 3, 10), newcombe_interval(3, 10, 9, 10)
    assert forward is not None and backward is not None
    assert forward == pytest.approx((-backward[1], -backward[0]))


def test_newcombe_interval_needs_a_session_on_each_side() -> None:
    assert newcombe_interval(0, 0, 3, 4) is None and newcombe_interval(3, 4, 0, 0) is None
    with pytest.raises(ValueError, match="0 <= successes <= n"):
        newcombe_interval(5, 4, 1, 2)
