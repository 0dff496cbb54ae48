"""Fixtures shared by the test lanes (their data comes from ``builders``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from builders import MetricsWriter, metrics_writer


@pytest.fixture
def write_metrics(tmp_path: Path) -> MetricsWriter:
    """Metrics in the test's temporary directory."""
    return metrics_writer(tmp_path)


@pytest.fixture
def project_metrics(pytester: pytest.Pytester) -> MetricsWriter:
    """Metrics inside the pytester directory, made the rootdir (as in a real project)."""
    pytester.makeini("[pytest]\n")
    return metrics_writer(pytester.path)
