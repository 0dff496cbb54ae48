"""The terminal summary of policy evals: outcome counts per check.

Counts come from the reports (``user_properties``), so they are right under
pytest-xdist, where the controller collects nothing itself.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Final

import pytest

__all__ = ["PolicyTally"]

_COLUMNS: Final = ("passed", "failed", "skipped")


def _family(check: str) -> str:
    """Quota checks are counted together: ``quota:label=x`` counts as ``quota``."""
    return check.partition(":")[0]


@dataclass
class PolicyTally:
    """What the run's reports said, per check."""

    counts: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))

    def add(self, report: pytest.TestReport) -> None:
        """Count an item once: from its call, or from a setup that did not pass (a skip)."""
        if report.when == "teardown" or (report.when == "setup" and report.passed):
            return
        check = next(
            (entry[1] for entry in report.user_properties if isinstance(entry, tuple) and len(entry) == 2 and entry[0] == "policy_check"),
            None,
        )
        if not isinstance(check, str):
            return
        outcome = report.outcome if report.when == "call" or report.skipped else "error"
        self.counts[_family(check)][outcome] += 1

    def lines(self) -> list[str]:
        """The table: one row per check, in the order first seen."""
        if not self.counts:
            return []
        columns = [*_COLUMNS, *sorted({o for c in self.counts.values() for o in c} - set(_COLUMNS))]
        width = max(len("check"), *map(len, self.counts))
        total = sum(sum(counter.values()) for counter in self.counts.values())
        lines = [f"{total} policy check(s)", f"{'check':<{width}}  " + "  ".join(columns)]
        for check, counter in self.counts.items():
            lines.append(f"{check:<{width}}  " + "  ".join(f"{counter[o]:>{len(o)}}" for o in columns))
        return lines
