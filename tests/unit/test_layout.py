"""The floor plan holds: the pure parts of the package never load pytest."""

from __future__ import annotations

import subprocess
import sys

import pytest

PURE = [
    "pytest_sessioneval",
    "pytest_sessioneval.core",
    "pytest_sessioneval.core.engine",
    "pytest_sessioneval.core.events",
    "pytest_sessioneval.core.io",
    "pytest_sessioneval.core.jsonl",
    "pytest_sessioneval.core.kpis",
    "pytest_sessioneval.core.locks",
    "pytest_sessioneval.core.naming",
    "pytest_sessioneval.core.peers",
    "pytest_sessioneval.core.rubric",
    "pytest_sessioneval.core.sessions",
    "pytest_sessioneval.core.snapshot",
    "pytest_sessioneval.core.text",
    "pytest_sessioneval.core.timestamps",
    "pytest_sessioneval.core.values",
    "pytest_sessioneval.core.verdict_pool",
    "pytest_sessioneval.rubrics",
    "pytest_sessioneval.rubrics.rubric_v1",
    "pytest_sessioneval.records",
    "pytest_sessioneval.records.build",
    "pytest_sessioneval.records.journal",
    "pytest_sessioneval.records.schema",
    "pytest_sessioneval.records.seal",
    "pytest_sessioneval.records.verify",
    "pytest_sessioneval.report",
    "pytest_sessioneval.report.baseline",
    "pytest_sessioneval.report.charts",
    "pytest_sessioneval.report.escape",
    "pytest_sessioneval.report.gates",
    "pytest_sessioneval.report.html",
    "pytest_sessioneval.report.intervals",
    "pytest_sessioneval.report.listing",
    "pytest_sessioneval.report.output",
    "pytest_sessioneval.report.page_data",
    "pytest_sessioneval.report.summary",
    "pytest_sessioneval.judge",
    "pytest_sessioneval.policy",
    "pytest_sessioneval.policy.dataset_checks",
    "pytest_sessioneval.policy.datasets",
    "pytest_sessioneval.policy.envelope",
    "pytest_sessioneval.policy.fields",
    "pytest_sessioneval.policy.golden",
    "pytest_sessioneval.policy.manifest",
    "pytest_sessioneval.policy.observation",
    "pytest_sessioneval.policy.review",
    "pytest_sessioneval.policy.source",
]


@pytest.mark.parametrize("module", PURE)
def test_a_pure_module_never_loads_pytest(module: str) -> None:
    probe = (
        f"import sys, {module}; "
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('pytest', '_pytest', 'pluggy'));"
        "print(','.join(loaded))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "", f"{module} loads {done.stdout.strip()}"


def test_every_module_of_the_pure_parts_is_listed() -> None:
    """A module added to a pure folder joins the list above (or the check would miss it)."""
    import pkgutil

    import pytest_sessioneval

    found = set()
    for info in pkgutil.walk_packages(pytest_sessioneval.__path__, "pytest_sessioneval."):
        if ".plugin" not in info.name and not info.name.endswith(".hookspecs"):
            found.add(info.name)
    assert found <= set(PURE), sorted(found - set(PURE))
