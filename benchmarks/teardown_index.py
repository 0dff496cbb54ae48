"""Benchmark-only pytest plugin: what the pytest layer costs without pytest's quadratic summary.

pytest's terminal summary prints, for every failed report, the teardown
sections of that item, found by ``TerminalReporter._get_teardown_reports``,
which walks every report of the run each time: O(failures x items). A
sessions file yields thousands of failing verdicts, so at 4,000 sessions that
walk dominates the run. This plugin answers the same question from an index
built once (same reports, same order), so ``benchmarks/run.py`` can show the
cost of the pytest layer with and without it. It is loaded only by the
benchmark (``-p teardown_index``); the package does not use it.
"""

from __future__ import annotations

from typing import Any

import pytest


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    reporter = config.pluginmanager.getplugin("terminalreporter")
    if reporter is None or not hasattr(reporter, "_get_teardown_reports"):
        return
    index: dict[str, Any] = {}

    def teardown_reports(node_id: Any) -> list[Any]:
        # pytest 8 passes the string ``nodeid``, pytest 9.2 the structured ``id``.
        field = "nodeid" if isinstance(node_id, str) else "id"
        size = len(reporter.stats.get("", ()))
        if index.get("key") != (size, field):  # rebuilt only when reports were added
            by_id: dict[Any, list[Any]] = {}
            for report in reporter.getreports(""):
                if report.when == "teardown":
                    by_id.setdefault(getattr(report, field), []).append(report)
            index["key"], index["by_id"] = (size, field), by_id
        return list(index["by_id"].get(node_id, ()))

    reporter._get_teardown_reports = teardown_reports
