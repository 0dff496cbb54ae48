"""Requirement and regression items, the exit status of a gated run, and the summary files.

The items belong to a collector that is no data file, ``session-eval``:
``session-eval::require[gate-health>=0.8]`` and ``session-eval::regression[gate-health]``.
They are made as collection ends (so that ``-k``, ``-m``, ``--lf`` and ``--deselect``
select them as any item), and judged once selection is done, from the verdicts of the
selected items of the data files: the sessions a requirement counts are those whose item
of its dimension is selected in this run. Every process that collects (each xdist worker
too) judges the same, whatever order the items then run in. Their results travel on their
reports (``user_properties``), so the controller reads them as it reads verdicts.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import orjson
import pytest

from ..core.io import read_bytes
from ..core.naming import escape_name
from ..core.rubric import CANNOT_DETERMINE, DETERMINISTIC, FAIL, PASS, Status
from ..core.text import wire_safe
from ..report.baseline import Baseline
from ..report.gates import (
    Requirement,
    judge_regression,
    judge_requirement,
    regression_text,
    requirement_text,
)
from ..report.html import first_text, is_html_page
from ..report.output import append_to_file, replace_file
from ..report.summary import (
    EvalSummary,
    RegressionResult,
    RequirementResult,
    dimension_summary,
    summary_json,
    summary_markdown,
)
from ._compat import bestrelpath, failure_text
from .facts import ITEM_KEYWORD, ItemFacts
from .items import LineItem
from .options import usage_error
from .outcomes import VerdictFailed, VerdictUndetermined, markers_for, raise_for
from .settings import Settings
from .summary import Tally

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

__all__ = ["GATE_NODE", "MARKER", "GateItem", "Gates", "check_summary_paths"]

#: The node the requirement and regression items belong to.
GATE_NODE: Final = "session-eval"
#: The marker of those items: ``-m pass_rate`` selects them.
MARKER: Final = "pass_rate"

# The property that tells a gate item's report, and which kind of item it is.
_KIND: Final = "pass_rate_check"
# Each result as the rubric status whose outcome it takes (outcomes.py maps them).
_STATUS: Final[dict[str, Status]] = {
    "met": PASS,
    "missed": FAIL,
    "no-significant-drop": PASS,
    "significant-drop": FAIL,
    "cannot-determine": CANNOT_DETERMINE,
}


def _properties(kind: str, result: RequirementResult | RegressionResult) -> list[tuple[str, Any]]:
    """The result as JUnit properties: scalars, a list as JSON text; a field without a value is left out."""
    pairs: list[tuple[str, Any]] = [(_KIND, kind)]
    for name, value in result.model_dump(mode="json", by_alias=True).items():
        if isinstance(value, list):
            pairs.append((name, orjson.dumps(value).decode()))
        elif value is not None:
            pairs.append((name, value))
    return wire_safe(pairs)  # type: ignore[no-any-return]


def _result(properties: list[tuple[str, Any]]) -> RequirementResult | RegressionResult | None:
    """A gate item's result, read back from its report's properties (``None`` for another item's)."""
    props = {entry[0]: entry[1] for entry in properties if isinstance(entry, tuple) and len(entry) == 2}
    kind = props.pop(_KIND, None)
    if kind == "requirement":
        props["failing"] = orjson.loads(props.get("failing", "[]"))
        props.setdefault("judged", None)
        return RequirementResult.model_validate(props)
    if kind == "regression":
        for name in ("difference", "low", "high"):
            props.setdefault(name, None)
        return RegressionResult.model_validate(props)
    return None


class GateCollector(pytest.Collector):
    """The ``session-eval`` node: no file, the parent of the requirement and regression items."""

    def __init__(self, *, checks: list[tuple[str, dict[str, Any]]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._checks = checks

    def collect(self) -> list[GateItem]:
        items: list[GateItem] = []
        for name, kwargs in self._checks:
            kind = RequirementItem if "requirement" in kwargs else RegressionItem
            items.append(kind.from_parent(self, name=name, nodeid=f"{self.nodeid}::{name}", **kwargs))
        return items


class GateItem(pytest.Item):
    """An item that judges a dimension's pass rate; judged as selection ends (``settle``)."""

    kind: str = ""

    def __init__(self, *, dimension: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.dimension = dimension
        self.keywords[ITEM_KEYWORD] = True
        self.extra_keyword_matches.add(ITEM_KEYWORD)
        self.add_marker(getattr(pytest.mark, MARKER))
        self.result: RequirementResult | RegressionResult | None = None
        self.text = ""
        self.reason = ""  # what decided the result: the figures, without the requirement's name

    def settle(self, result: RequirementResult | RegressionResult, text: str, reason: str) -> None:
        """Give the item its result: its properties, and the marker of its outcome."""
        self.result, self.text, self.reason = result, wire_safe(text), wire_safe(reason)
        self.user_properties[:] = _properties(self.kind, result)
        for marker in markers_for(_STATUS[result.result], self.text, runxfail=self.config.option.runxfail):
            if marker.name != "deterministic":
                self.add_marker(marker)

    def metadata(self) -> dict[str, Any]:
        """What pytest-json-report carries under ``metadata.session_eval``."""
        return {} if self.result is None else {self.kind: self.result.model_dump(mode="json", by_alias=True)}

    def runtest(self) -> None:
        assert self.result is not None, "judged as collection finished"
        raise_for(_STATUS[self.result.result], self.text)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, (VerdictFailed, VerdictUndetermined)) and self.result is not None:
            # The short summary's ``- reason`` (and ``--tb=line``) gives the result and what
            # decided it: the rate, n, its interval (the node id names the requirement).
            reason = f"{self.result.result}: {self.reason}"
            lines = [f"{self.nodeid}: {self.result.result}", *self.text.splitlines()]
            one_line = self.config.option.tbstyle == "line"
            return failure_text(self.nodeid, 0, reason, lines, one_line=one_line)  # type: ignore[no-any-return]
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.name


class RequirementItem(GateItem):
    """``session-eval::require[DIM>=RATE]``: the dimension's pass rate reaches the minimum."""

    kind = "requirement"

    def __init__(self, *, requirement: Requirement, **kwargs: Any) -> None:
        super().__init__(dimension=requirement.dimension, **kwargs)
        self.requirement = requirement


class RegressionItem(GateItem):
    """``session-eval::regression[DIM]``: the dimension's pass rate did not drop significantly."""

    kind = "regression"


@dataclass
class Gates:
    """A run's requirement and regression items: made, judged, and (on the controller) their
    results and the exit status they decide."""

    settings: Settings
    files: frozenset[str] = frozenset()  # the data files, as pytest locates them
    baseline: Baseline | None = None
    collected: dict[str, int] = field(default_factory=dict)  # dimension -> sessions whose item was collected
    results: dict[str, RequirementResult | RegressionResult] = field(default_factory=dict)  # by node id
    session_failures: int = 0  # failed items of the data files: they never decide a gated run
    deciding_failures: int = 0  # any other failed item or collector
    decided: str | None = None  # what the summary says of the gate

    @property
    def wanted(self) -> bool:
        return bool(self.settings.requirements) or self.baseline is not None

    def add_items(self, session: pytest.Session, items: list[pytest.Item]) -> None:
        """Add the requirement and regression items after every item collected, when any item
        of a data file was collected (a run of other tests alone gets none)."""
        if not self.wanted or not any(isinstance(item, LineItem) and item.location[0] in self.files for item in items):
            return
        collector = GateCollector.from_parent(session, name=GATE_NODE, nodeid=GATE_NODE, checks=self._checks())
        items.extend(collector.collect())
        self.collected = _sessions_per_dimension(_tally(self.files, items))

    def _checks(self) -> list[tuple[str, dict[str, Any]]]:
        """Each gate item's name and what it checks, in the order they run and are reported."""
        checks: list[tuple[str, dict[str, Any]]] = [
            (f"require[{escape_name(r.dimension)}>={r.spelled}]", {"requirement": r})
            for r in self.settings.requirements
        ]
        if self.baseline is not None:
            checks += [(f"regression[{escape_name(d)}]", {"dimension": d}) for d in self.settings.rubric.dimension_ids]
        return checks

    def ordered_results(self) -> list[RequirementResult | RegressionResult]:
        """The results of the gate items that ran, in the order the items are made (not the
        order in which xdist workers reported them)."""
        order = {f"{GATE_NODE}::{name}": index for index, (name, _) in enumerate(self._checks())}
        return [self.results[node_id] for node_id in sorted(self.results, key=lambda n: (order.get(n, len(order)), n))]

    def judge(self, items: list[pytest.Item]) -> None:
        """Judge every gate item by the verdicts of the selected items of the data files."""
        gate_items = [item for item in items if isinstance(item, GateItem)]
        if not gate_items:
            return
        selected = _tally(self.files, items)
        counts = selected.deterministic_counts()
        failing = _failing(self.files, items, selected)
        for item in gate_items:
            dimension = item.dimension
            verdicts = counts.get(dimension, Counter())
            passed, failed = verdicts[PASS], verdicts[FAIL]
            result: RequirementResult | RegressionResult
            if isinstance(item, RequirementItem):
                bound = self.settings.require_bound
                result = judge_requirement(
                    item.requirement, bound, passed, failed, failing.get(dimension, []), item.nodeid
                )
                reason = requirement_text(result)
                text = f"{item.requirement.text}: {reason}"
            else:
                assert self.baseline is not None
                result = judge_regression(dimension, item.nodeid, self.baseline.pass_fail(dimension), (passed, failed))
                reason = regression_text(result)
                text = f"{dimension}: {reason}"
            item.settle(result, f"{text}\n{self._counted(dimension, sum(verdicts.values()))}", reason)

    def _counted(self, dimension: str, selected: int) -> str:
        """Which sessions were counted: said in every result, since selection narrows them."""
        collected = self.collected.get(dimension, 0)
        if selected == collected:
            return f"Counted: the {dimension} verdicts of all {collected} session(s) scored in this run."
        return (
            f"Counted: the {dimension} verdicts of {selected} of the {collected} session(s) scored in this run, "
            "those whose item is selected (-k, -m, --lf, --deselect or node ids narrowed the run)."
        )

    def add_report(self, report: pytest.TestReport) -> None:
        """On the controller: a gate item's result, and whether a failure may decide a gated run."""
        if ITEM_KEYWORD in report.keywords and (report.when == "call" or not report.passed):
            result = _result(report.user_properties)
            if result is not None:
                self.results.setdefault(report.nodeid, result)
        if not report.failed:
            return
        is_session_item = (
            report.when == "call"
            and ITEM_KEYWORD in report.keywords
            and report.location[0] in self.files
            and ItemFacts.from_properties(report.user_properties) is not None
        )
        if is_session_item:
            self.session_failures += 1
        else:
            self.deciding_failures += 1

    def add_collect_report(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.deciding_failures += 1

    def decide_exit(self, session: pytest.Session) -> None:
        """Under ``--session-eval-gate requirements``, let only the requirement and regression
        items (and any other test, collection errors, usage and internal errors) fail the run:
        failed items of the data files keep their outcome and do not decide it."""
        if self.settings.gate != "requirements" or self.decided is not None:
            return
        how = "gate (--session-eval-gate requirements)"
        if session.exitstatus != pytest.ExitCode.TESTS_FAILED:
            self.decided = f"{how}: exit status {int(session.exitstatus)}, as pytest decided it"
        elif session.shouldfail or session.shouldstop:
            self.decided = f"{how}: the run stopped early (-x, --maxfail), before the requirements ran: exit status 1"
        elif self.deciding_failures:
            self.decided = (
                f"{how}: exit status 1: {self.deciding_failures} failed item(s) other than the sessions' decide it"
            )
        elif not self.results:
            self.decided = f"{how}: no requirement or regression item ran, so every failed item decides: exit status 1"
        else:
            session.exitstatus = pytest.ExitCode.OK
            self.decided = (
                f"{how}: exit status 0: the requirement and regression items decide it; "
                f"{self.session_failures} failed session item(s) keep their outcome and do not"
            )

    def summary(self, tally: Tally) -> EvalSummary:
        """The run's summary, from the reports: counts of the items that ran, and the results
        of the gate items that ran."""
        rubric = self.settings.rubric
        counts = tally.deterministic_counts()
        order = [*rubric.dimension_ids, *sorted(set(counts) - set(rubric.dimension_ids))]
        requirements: dict[str, list[RequirementResult]] = {}
        regressions: dict[str, RegressionResult] = {}
        for result in self.ordered_results():
            if isinstance(result, RequirementResult):
                requirements.setdefault(result.dimension, []).append(result)
            else:
                regressions[result.dimension] = result
        return EvalSummary(
            rubric_version=rubric.version,
            rubric_sha256=rubric.sha256,
            timestamp=self.settings.timestamp,
            gate=self.settings.gate,
            dimensions=tuple(
                dimension_summary(
                    dimension,
                    counts.get(dimension, Counter()),
                    requirements.get(dimension, ()),
                    regressions.get(dimension),
                    tally.causes.get(dimension),
                    rubric.causes,
                )
                for dimension in order
            ),
        )

    def lines(self) -> list[str]:
        """What the terminal summary says of the requirements, the regressions and the gate."""
        lines = []
        for result in self.ordered_results():
            if isinstance(result, RequirementResult):
                lines.append(f"requirement {result.requirement}: {result.result}: {requirement_text(result)}")
            else:
                lines.append(f"regression {result.dimension}: {result.result}: {regression_text(result)}")
        if self.decided is not None:
            lines.append(self.decided)
        return lines

    def write(self, config: pytest.Config, summary: EvalSummary) -> list[str]:
        """Write the JSON summary and append the Markdown one, as the options ask; what the
        terminal summary says of them. A file not written makes the run fail."""
        messages = []
        start = config.invocation_params.dir
        settings = self.settings
        if settings.summary_path is not None:
            try:
                replace_file(settings.summary_path, summary_json(summary))
            except OSError as exc:
                messages.append(f"ERROR: cannot write the summary {settings.summary_path}: {exc.strerror or exc}")
            else:
                messages.append(f"summary: {bestrelpath(start, settings.summary_path)}")
        if settings.markdown_path is not None:
            path = settings.markdown_path
            try:
                # Appended (a CI step summary holds what earlier steps wrote), and written whole.
                append_to_file(path, summary_markdown(summary).encode())
            except OSError as exc:
                messages.append(f"ERROR: cannot write the Markdown summary {path}: {exc.strerror or exc}")
            else:
                messages.append(f"Markdown summary: appended to {bestrelpath(start, path)}")
        return messages


def _tally(files: frozenset[str], items: list[pytest.Item]) -> Tally:
    """What the items of the data files among ``items`` will report, counted as the summary counts."""
    tally = Tally(files=files)
    for item in items:
        if isinstance(item, LineItem):
            tally.add_item(item, _plain_node_id(item))
    return tally


def _plain_node_id(item: pytest.Item) -> str:
    """The node id an item reports (a worker's ``--dist loadgroup`` tag left out)."""
    parent = item.parent
    return f"{parent.nodeid}::{item.name}" if parent is not None else item.nodeid


def _sessions_per_dimension(tally: Tally) -> dict[str, int]:
    return {dimension: sum(counts.values()) for dimension, counts in tally.deterministic_counts().items()}


def _failing(files: frozenset[str], items: list[pytest.Item], counted: Tally) -> dict[str, list[str]]:
    """Per dimension, the node ids of the counted items whose verdict is ``fail``, in run order."""
    failing: dict[str, dict[str, None]] = {}
    for item in items:
        if not isinstance(item, LineItem) or item.location[0] not in files:
            continue
        facts = ItemFacts.from_properties(item.user_properties)
        if facts is None or facts.status != FAIL or facts.method != DETERMINISTIC:
            continue
        if facts.kind == "stored":  # a journal given as input: a session counts by its latest record
            latest = counted.stored.get((item.location[0], str(facts.session_id)))
            if latest is None or latest[0] != facts.line:
                continue
        elif facts.kind != "verdict":
            continue
        failing.setdefault(str(facts.dimension), {})[_plain_node_id(item)] = None
    return {dimension: list(node_ids) for dimension, node_ids in failing.items()}


def check_summary_paths(settings: Settings) -> None:
    """The JSON summary replaces only a summary (or an empty file), and the Markdown one is
    appended only to text that is neither JSON nor a page: never to a journal, data or a
    report that happens to be at the path given."""
    for path, flag in (
        (settings.summary_path, "--session-eval-summary"),
        (settings.markdown_path, "--session-eval-markdown"),
    ):
        if path is None:
            continue
        try:
            head = first_text(read_bytes(path, 1 << 16))
        except OSError:  # missing (it is new) or unreadable (writing it says so)
            continue
        if not head:
            continue
        if flag == "--session-eval-summary" and b'"summary_kind"' not in head:
            what = "a session-eval summary"
        elif flag == "--session-eval-markdown" and (head.startswith((b"{", b"[")) or is_html_page(head)):
            what = "Markdown or plain text"
        else:
            continue
        raise usage_error(
            flag,
            f"{path}: exists and is not {what}; the summary would destroy it: give another path, or remove the file",
        )
