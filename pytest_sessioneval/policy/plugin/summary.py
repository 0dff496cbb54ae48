"""The terminal summary of policy evals: outcome counts per check.

Counts come from the reports (``user_properties``), so they are right under
pytest-xdist, where the controller collects nothing itself.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Final

import pytest

from ..review import CHECKS

__all__ = ["PolicyTally"]

_COLUMNS: Final = ("passed", "failed", "skipped")


def _family(check: str) -> str:
    """Quota checks are counted together: ``quota:label=x`` counts as ``quota``."""
    return check.partition(":")[0]


@dataclass
class PolicyTally:
    """What the run's reports said, per check."""

    # node id -> (check family, outcome): an item reported again (--dist each) counts once.
    outcomes: dict[str, tuple[str, str]] = field(default_factory=dict)

    def add(self, report: pytest.TestReport) -> None:
        """Count an item once: from its call, or from a setup that did not pass (a skip)."""
        if report.when == "teardown" or (report.when == "setup" and report.passed):
            return
        check = next(
            (
                entry[1]
                for entry in report.user_properties
                if isinstance(entry, tuple) and len(entry) == 2 and entry[0] == "policy_check"
            ),
            None,
        )
        if not isinstance(check, str):
            return
        outcome = report.outcome if report.when == "call" or report.skipped else "error"
        self.outcomes[report.nodeid] = (_family(check), outcome)

    def lines(self) -> list[str]:
        """The table: one row per check, in the order of ``CHECKS`` (the same under xdist,
        whatever order the reports come in)."""
        counts: dict[str, Counter[str]] = defaultdict(Counter)
        for family, outcome in self.outcomes.values():
            counts[family][outcome] += 1
        if not counts:
            return []
        order = {family: place for place, family in enumerate(dict.fromkeys(map(_family, CHECKS)))}
        checks = sorted(counts, key=lambda family: (order.get(family, len(order)), family))
        columns = [*_COLUMNS, *sorted({o for c in counts.values() for o in c} - set(_COLUMNS))]
        width = max(len("check"), *map(len, counts))
        lines = [f"{len(self.outcomes)} policy check(s)", f"{'check':<{width}}  " + "  ".join(columns)]
        for check in checks:
            lines.append(f"{check:<{width}}  " + "  ".join(f"{counts[check][o]:>{len(o)}}" for o in columns))
        return lines
