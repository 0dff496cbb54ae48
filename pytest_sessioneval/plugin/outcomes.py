"""The one mapping from a verdict's status to a pytest outcome.

pass -> passed, fail -> failed, not-applicable -> skipped, cannot-determine ->
xfailed (strict, so ``--runxfail`` turns it into a failure, never a pass).
Outcomes come from markers set at collection; ``runtest`` only raises for the
statuses that must not pass. Judge verdicts are advisory: ``fail`` and
``cannot-determine`` are xfailed without running (skipped under ``--runxfail``)
and never fail the run.
"""

from __future__ import annotations

from typing import Final

import pytest

from ..core.rubric import (
    CANNOT_DETERMINE,
    DETERMINISTIC,
    FAIL,
    JUDGE,
    NOT_APPLICABLE,
    PASS,
    Method,
    Status,
)
from ..core.text import printable

__all__ = ["ADVISORY", "OUTCOME", "VerdictFailed", "VerdictUndetermined", "markers_for", "raise_for"]

ADVISORY: Final = "advisory, uncalibrated"

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


def markers_for(
    status: Status, evidence: str, method: Method = DETERMINISTIC, *, runxfail: bool = False, about: str = ""
) -> list[pytest.MarkDecorator]:
    """The outcome markers of an item with this verdict; the evidence is the reason.

    ``runxfail``: pytest ignores xfail markers (``--runxfail``); a judge's fail or
    cannot-determine is then skipped, since advice decides no outcome. ``about`` names what
    the verdict is about (``session 'a', gate-health``) in a skip's reason: pytest folds the
    skips of one reason into one line of ``-rs``, and each must still say whose it is. The
    reason is ``printable`` (so ``wire_safe``: pytest builds reports from it, which must read
    the same with xdist): evidence a journal stored from a judge's model output, say, never
    reaches a terminal or a report with its control characters.
    """
    evidence = printable(evidence, lines=True)
    of = f"{printable(about)}: " if about else ""
    if method == JUDGE:
        if status == NOT_APPLICABLE:
            return [pytest.mark.judge, pytest.mark.skip(reason=f"not-applicable ({ADVISORY}): {of}{evidence}")]
        if status in (FAIL, CANNOT_DETERMINE) and runxfail:
            return [
                pytest.mark.judge,
                pytest.mark.skip(reason=f"{status} ({ADVISORY}, not run under --runxfail): {of}{evidence}"),
            ]
        if status in (FAIL, CANNOT_DETERMINE):
            return [pytest.mark.judge, pytest.mark.xfail(reason=f"{status} ({ADVISORY}): {evidence}", run=False)]
        return [pytest.mark.judge]
    markers = [pytest.mark.deterministic]
    if status == NOT_APPLICABLE:
        markers.append(pytest.mark.skip(reason=f"not-applicable: {of}{evidence}"))
    elif status == CANNOT_DETERMINE:
        markers.append(
            pytest.mark.xfail(reason=f"cannot-determine: {evidence}", strict=True, raises=VerdictUndetermined)
        )
    return markers


def raise_for(status: Status, evidence: str, method: Method = DETERMINISTIC) -> None:
    """What ``runtest`` does: nothing for pass, raise for fail and cannot-determine (a judge's
    fail or cannot-determine, run only under ``--runxfail``, is skipped)."""
    if method == JUDGE:
        if status in (FAIL, CANNOT_DETERMINE):
            # Not reached: such an item is xfailed without running, or skipped by its marker
            # under --runxfail. Should anything run it, advice still never shows as a pass.
            pytest.skip(f"{status} ({ADVISORY}, not run under --runxfail): {evidence}")
        return
    if status == FAIL:
        raise VerdictFailed(evidence)
    if status == CANNOT_DETERMINE:
        raise VerdictUndetermined(evidence)
