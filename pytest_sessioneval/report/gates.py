"""What a run is gated on: a dimension's pass rate required to reach a minimum, and no
significant drop from a baseline's pass rate.

A requirement ``DIM>=RATE`` is met when the pass rate (``bound="estimate"``) or the
lower bound of its 95% Wilson interval (``bound="lower"``) is at least ``RATE``; it
cannot be determined when no session passed or failed the dimension (n = 0). A
regression check compares this run's pass rate with the baseline's by the 95% interval
of their difference (Newcombe's hybrid score interval): a significant drop is an
interval below 0.

Pure: no pytest, no clock, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final, Literal

from .intervals import format_rate, newcombe_interval, wilson_interval
from .summary import RegressionResult, RequirementResult, rate_text, signed

__all__ = [
    "BOUNDS",
    "FAILING_SHOWN",
    "GATES",
    "Bound",
    "Gate",
    "Requirement",
    "judge_regression",
    "judge_requirement",
    "parse_requirement",
    "regression_text",
    "requirement_text",
]

Bound = Literal["estimate", "lower"]
BOUNDS: Final[tuple[Bound, ...]] = ("estimate", "lower")

#: What decides a run's exit status: any failed item, or the requirement and regression items.
Gate = Literal["all", "requirements"]
GATES: Final[tuple[Gate, ...]] = ("all", "requirements")

#: How many failing sessions a requirement's result names.
FAILING_SHOWN: Final = 5

# RATE: a decimal number from 0 to 1 (0.8, .8, 1, 1.0).
_SPEC: Final = re.compile(r"\s*(?P<dimension>.*?)\s*>=\s*(?P<rate>[0-9]*\.?[0-9]+)\s*", re.ASCII | re.DOTALL)


@dataclass(frozen=True, slots=True)
class Requirement:
    """``dimension``'s pass rate must be at least ``minimum`` (spelled ``spelled``)."""

    dimension: str
    minimum: Fraction
    spelled: str

    @property
    def text(self) -> str:
        """The requirement as it names its item: ``gate-health>=0.8``."""
        return f"{self.dimension}>={self.spelled}"


def parse_requirement(text: str) -> Requirement:
    """``DIM>=RATE`` (spaces around the parts allowed); raises ``ValueError`` saying what is wrong."""
    match = _SPEC.fullmatch(text)
    if match is None or not match["dimension"]:
        raise ValueError(
            f"{text!r} is not DIM>=RATE (a dimension, >=, and a pass rate from 0 to 1, e.g. gate-health>=0.8)"
        )
    minimum = Fraction(match["rate"])
    if minimum > 1:
        raise ValueError(f"{text!r}: the pass rate {match['rate']} is above 1; give one from 0 to 1 (0.8 for 80%)")
    return Requirement(match["dimension"], minimum, match["rate"])


def judge_requirement(
    requirement: Requirement, bound: Bound, passed: int, failed: int, failing: Sequence[str], node_id: str
) -> RequirementResult:
    """The requirement judged on ``passed`` and ``failed`` sessions (``failing``: their node ids)."""
    n = passed + failed
    judged: float | None = None
    if n == 0:
        result: Literal["met", "missed", "cannot-determine"] = "cannot-determine"
    elif bound == "estimate":
        judged = passed / n
        result = "met" if Fraction(passed, n) >= requirement.minimum else "missed"  # exact: 4/5 meets 0.8
    else:
        interval = wilson_interval(passed, n)
        assert interval is not None
        judged = interval[0]
        result = "met" if judged >= requirement.minimum else "missed"
    return RequirementResult(
        node_id=node_id,
        requirement=requirement.text,
        dimension=requirement.dimension,
        minimum=float(requirement.minimum),
        bound=bound,
        result=result,
        passed=passed,
        failed=failed,
        judged=judged,
        failing=tuple(failing[:FAILING_SHOWN]),
        failing_total=len(failing),
    )


def requirement_text(result: RequirementResult) -> str:
    """What a requirement's item says: the figure judged against the minimum (as spelled in
    the requirement), and the first failing sessions."""
    if result.result == "cannot-determine":
        return f"no session passed or failed {result.dimension} (n = 0): its pass rate cannot be judged"
    assert result.judged is not None
    minimum = result.requirement.rpartition(">=")[2]
    rate = format_rate(result.passed, result.failed)
    figure = f"the 95% lower bound {result.judged:.2f} of the {rate}" if result.bound == "lower" else f"the {rate}"
    if result.result == "met":
        return f"{figure} is at least {minimum}"
    text = f"{figure} is below {minimum}"
    if result.failing:
        more = result.failing_total - len(result.failing)
        text += f"; failing: {', '.join(result.failing)}" + (f" and {more} more" if more else "")
    return text


def judge_regression(
    dimension: str, node_id: str, baseline: tuple[int, int], current: tuple[int, int]
) -> RegressionResult:
    """This run's pass rate of ``dimension`` against the baseline's; each is ``(pass, fail)``."""
    (baseline_pass, baseline_fail), (current_pass, current_fail) = baseline, current
    interval = newcombe_interval(
        current_pass, current_pass + current_fail, baseline_pass, baseline_pass + baseline_fail
    )
    difference: float | None = None
    result: Literal["no-significant-drop", "significant-drop", "cannot-determine"] = "cannot-determine"
    if interval is not None:
        difference = current_pass / (current_pass + current_fail) - baseline_pass / (baseline_pass + baseline_fail)
        result = "significant-drop" if interval[1] < 0 else "no-significant-drop"
    return RegressionResult(
        node_id=node_id,
        dimension=dimension,
        result=result,
        baseline_pass=baseline_pass,
        baseline_fail=baseline_fail,
        current_pass=current_pass,
        current_fail=current_fail,
        difference=difference,
        low=None if interval is None else interval[0],
        high=None if interval is None else interval[1],
    )


def regression_text(result: RegressionResult) -> str:
    """What a regression item says: both pass rates, both n, and the interval of the difference."""
    rates = (
        f"baseline {rate_text(result.baseline_pass, result.baseline_fail)}; "
        f"this run {rate_text(result.current_pass, result.current_fail)}"
    )
    if result.difference is None or result.low is None or result.high is None:
        side = "the baseline" if result.baseline_pass + result.baseline_fail == 0 else "this run"
        return f"{rates}: no session of {side} passed or failed {result.dimension}, so no difference can be judged"
    interval = (
        f"difference {signed(result.difference)}, 95% CI {signed(result.low)} to {signed(result.high)} "
        "(Newcombe's hybrid score interval)"
    )
    if result.result == "significant-drop":
        return f"{rates}; {interval}: wholly below 0, the pass rate dropped significantly"
    return f"{rates}; {interval}: no significant drop"
