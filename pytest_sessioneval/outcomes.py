"""The one mapping from a verdict's status to a pytest outcome.

pass -> passed, fail -> failed, not-applicable -> skipped, cannot-determine ->
xfailed (strict, so ``--runxfail`` turns it into a failure, never a pass).
Outcomes come from markers set at collection; ``runtest`` only raises for the
statuses that must not pass.
"""

from __future__ import annotations

from typing import Final

import pytest

from .rubric import CANNOT_DETERMINE, FAIL, NOT_APPLICABLE, PASS, Status

__all__ = ["OUTCOME", "VerdictFailed", "VerdictUndetermined", "markers_for"]

OUTCOME: Final[dict[str, str]] = {
    PASS: "passed",
    FAIL: "failed",
    NOT_APPLICABLE: "skipped",
    CANNOT_DETERMINE: "xfailed",
}


class VerdictFailed(Exception):
    """Raised by an item whose verdict is ``fail``."""


class VerdictUndetermined(Exception):
    """Raised by an item whose verdict is ``cannot-determine`` (expected to fail, strictly)."""


def markers_for(status: Status, evidence: str) -> list[pytest.MarkDecorator]:
    """The outcome markers of an item with this verdict; the evidence is the reason."""
    if status == NOT_APPLICABLE:
        return [pytest.mark.skip(reason=f"not-applicable: {evidence}")]
    if status == CANNOT_DETERMINE:
        return [
            pytest.mark.xfail(
                reason=f"cannot-determine: {evidence}", strict=True, raises=VerdictUndetermined
            )
        ]
    return []


def raise_for(status: Status, evidence: str) -> None:
    """What ``runtest`` does: nothing for pass, raise for fail and cannot-determine."""
    if status == FAIL:
        raise VerdictFailed(evidence)
    if status == CANNOT_DETERMINE:
        raise VerdictUndetermined(evidence)
