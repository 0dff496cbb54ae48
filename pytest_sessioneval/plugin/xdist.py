"""pytest-xdist: what the controller and its workers exchange beyond xdist's own, and
reports that read the same with and without it.

Anything that happens once per run happens on the controller; workers take what it
hands them (the eval timestamp, judge verdicts) from ``workerinput``.
"""

from __future__ import annotations

from typing import Any, Protocol

import orjson
import pytest

from ..core.naming import escape_name
from ..core.text import printable_texts, wire_safe
from ._compat import DeferredNodeId, set_report_nodeid

__all__ = [
    "GROUP_PREFIX",
    "XdistBridge",
    "from_controller",
    "group_name",
    "is_worker",
    "plain_node_id",
    "register_wire_safety",
    "tag_groups",
]


def is_worker(config: pytest.Config) -> bool:
    """True in a pytest-xdist worker process."""
    return hasattr(config, "workerinput")


def from_controller(config: pytest.Config, key: str) -> Any:
    """What the controller handed this worker under ``key`` (``None`` when nothing, or when
    this is no worker)."""
    workerinput = getattr(config, "workerinput", None)
    return workerinput.get(key) if isinstance(workerinput, dict) else None


GROUP_PREFIX = "session-eval:"


def group_name(session_id: str) -> str:
    """A session's ``xdist_group``: the escaped id, since xdist shows it in node ids."""
    return GROUP_PREFIX + escape_name(session_id)


def plain_node_id(report: object) -> None:
    """Give a worker's report of a grouped item the node id it has in a run without xdist.

    ``--dist loadgroup`` tags each grouped item's node id as ``<id>@<group>`` on the
    worker, to schedule by it. Reports that keep the tag differ from a serial run's:
    ``--lf``/``--ff`` would not know the failures of the other kind of run, and pytest
    >= 9.2 reads ``dim]@session-eval:<id>`` as the parameters, so that the short summary
    and JUnit names gain a ``]``. The tag is exactly ``@`` and the group of the item's
    session (its name up to ``[``), so it is removed only when it is that.
    """
    nodeid = getattr(report, "nodeid", None)
    location = getattr(report, "location", None)
    if not isinstance(nodeid, str) or not location or not isinstance(location[2], str):
        return
    name = location[2]
    session, bracket, _ = name.partition("[")
    tag = f"::{name}@{GROUP_PREFIX}{session}"
    if not bracket or not nodeid.endswith(tag):
        return
    set_report_nodeid(report, nodeid[: len(nodeid) - len(tag) + 2 + len(name)])


def tag_groups(items: list[pytest.Item]) -> None:
    """Give the grouped items the tagged node ids xdist assigned during collection (see
    ``_compat.DeferredNodeId``): called as collection finishes, on a worker, before xdist sends
    the ids to schedule."""
    for item in items:
        if isinstance(item, DeferredNodeId):
            item.take_group_tag()


class ForWorkers(Protocol):
    def for_workers(self) -> dict[str, Any]:
        """What every worker gets in its ``workerinput``."""


class XdistBridge:
    """Hands the workers what the controller decided (see ``ForWorkers``); grouped items
    take their ``--dist loadgroup`` tag as collection finishes, and the reports that come
    back carry the node ids of a run without xdist."""

    def __init__(self, run: ForWorkers) -> None:
        self.run = run

    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput.update(self.run.for_workers())

    @pytest.hookimpl(tryfirst=True)  # before xdist sends the collected ids to schedule
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        tag_groups(session.items)

    @pytest.hookimpl(wrapper=True)
    def pytest_report_from_serializable(self, config: pytest.Config, data: Any) -> Any:
        report = yield
        if report is not None:
            plain_node_id(report)  # --dist loadgroup tags node ids on the workers
        return report


class WireSafeReports:
    """Makes every test report fit to travel from an xdist worker (see ``wire_safe``)."""

    @pytest.hookimpl(wrapper=True)
    def pytest_report_to_serializable(self, config: pytest.Config, report: Any) -> Any:
        data = yield
        if data is not None:
            try:
                orjson.dumps(data)  # fast: fails on a lone surrogate (or an exotic type)
            except TypeError:
                return wire_safe(data)
        return data


class WireSafeTexts:
    """Makes the texts of this package's reports ``printable`` (so ``wire_safe``) as they are
    made, so that a run without xdist reports them as xdist carries them: a lone surrogate in a
    failure text or a skip reason (a session id in the evidence, say) reads as its escape in
    both, and a control character (stored evidence) never reaches a terminal or a report raw.
    (Outcome markers carry ``printable`` reasons already, so xfail reasons need nothing.)"""

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: Any) -> Any:
        report = yield
        if getattr(item, "wire_safe_texts", False) and isinstance(report.longrepr, (str, tuple)):
            report.longrepr = printable_texts(report.longrepr)
        return report


_WIRE_SAFETY = "sessioneval-wire-safety"


_WIRE_SAFE_TEXTS = "sessioneval-wire-safe-texts"


def register_wire_safety(config: pytest.Config) -> None:
    """Register ``WireSafeTexts`` once, and ``WireSafeReports`` when pytest-xdist is installed."""
    manager = config.pluginmanager
    if not manager.has_plugin(_WIRE_SAFE_TEXTS):
        manager.register(WireSafeTexts(), _WIRE_SAFE_TEXTS)
    if manager.hasplugin("xdist") and not manager.has_plugin(_WIRE_SAFETY):
        manager.register(WireSafeReports(), _WIRE_SAFETY)
