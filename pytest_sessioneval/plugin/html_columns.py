"""pytest-html integration: a "Verdict" and an "Evidence" column in pytest-html's results table.

pytest-html (4.x) builds each row from HTML cells and lets plugins add their
own through ``pytest_html_results_table_header`` and
``pytest_html_results_table_row``. The values come from the report's
``user_properties``, so they are there under pytest-xdist too, and are escaped
before they become HTML.

Register with ``register(config)`` from ``pytest_configure``: it does nothing
when pytest-html is not installed, and registering twice is harmless.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

import pytest

from ..core.rubric import JUDGE
from ..report.escape import html_text
from .facts import ITEM_KEYWORD, ItemFacts

__all__ = ["PLUGIN_NAME", "HtmlColumns", "add_files", "register", "verdict_and_evidence"]

PLUGIN_NAME: Final = "session-eval-html-columns"

# Right after pytest-html's "Result" and "Test" columns.
_POSITION: Final = 2


def verdict_and_evidence(user_properties: Iterable[tuple[str, Any]]) -> tuple[str, str]:
    """What the two columns show for an item: its rubric status and evidence, or ``("", "")``.

    A judge verdict is marked advisory; a session that is not scored shows
    ``not scored`` and the reason.
    """
    facts = ItemFacts.from_properties(user_properties)
    if facts is None:
        return "", ""
    if facts.is_verdict and facts.status is not None:
        verdict = str(facts.status) + (" (advisory judge)" if facts.method == JUDGE else "")
        return verdict, "" if facts.evidence is None else str(facts.evidence)
    if facts.kind == "not-scored":
        return "not scored", str(facts.reason or "")
    return "", ""


class HtmlColumns:
    """pytest-html hooks adding the "Verdict" and "Evidence" columns (escaped)."""

    def __init__(self) -> None:
        # The data files whose items are this plugin's, as pytest locates them (set as the
        # session starts): a test of the user's own that happens to carry the keyword (a
        # ``session_eval`` directory, say) and record ``status`` is not taken for a verdict.
        self.files: frozenset[str] = frozenset()

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_header(self, cells: list[str]) -> None:
        """Add the two column headers; the verdict column sorts like pytest-html's own."""
        cells.insert(_POSITION, '<th class="sortable" data-column-type="verdict">Verdict</th>')
        cells.insert(_POSITION + 1, "<th>Evidence</th>")

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_row(self, report: pytest.TestReport | pytest.CollectReport, cells: list[str]) -> None:
        """Add the item's verdict and evidence; other rows get empty cells, so columns line up."""
        if not cells:  # another plugin dropped this row
            return
        location: Any = getattr(report, "location", None) or ("",)
        ours = ITEM_KEYWORD in getattr(report, "keywords", {}) and location[0] in self.files
        verdict, evidence = verdict_and_evidence(getattr(report, "user_properties", ())) if ours else ("", "")
        cells.insert(_POSITION, f'<td class="col-verdict">{html_text(verdict)}</td>')
        cells.insert(_POSITION + 1, f'<td class="col-evidence">{html_text(evidence)}</td>')


def register(config: pytest.Config) -> bool:
    """Register ``HtmlColumns`` when pytest-html is installed; ``True`` when it is registered."""
    manager = config.pluginmanager
    if not manager.hasplugin("html"):
        return False
    if not manager.has_plugin(PLUGIN_NAME):
        manager.register(HtmlColumns(), PLUGIN_NAME)
    return True


def add_files(config: pytest.Config, files: Iterable[str]) -> None:
    """Name data files (as pytest locates them) whose items get the columns filled."""
    columns = config.pluginmanager.get_plugin(PLUGIN_NAME)
    if isinstance(columns, HtmlColumns):
        columns.files = columns.files | frozenset(files)
