"""The terminal summary: per-dimension counts of verdicts, never a global score.

Counts are taken from the reports (``user_properties``), so they are right
under pytest-xdist, where the controller collects nothing itself.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import pytest

from ..core.naming import escape_name
from ..core.rubric import FAIL, PASS, STATUSES
from ..core.text import wire_safe
from ..report.intervals import DimensionRate, format_rate, ranking_note
from .sessions_file import ITEM_KEYWORD

__all__ = ["Tally"]


@dataclass
class Tally:
    """What the run's reports said, per dimension and per session."""

    counts: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    judge_counts: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    # (data file as located, the session id escaped as in node names) -> the ids of its
    # dimensions whose items ran; two files may hold the same session id. The escaped id
    # is one-to-one (a lone surrogate and the text of its escape stay apart, where the
    # ``wire_safe`` text of the properties is not); a journal given as input is keyed by
    # that text, its records naming no node of their session.
    sessions: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    judged: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # the same for judge items
    not_scored: set[tuple[str, str]] = field(default_factory=set)
    # A journal given as input may hold several evaluations of one session: it counts once,
    # by its latest record (the last line). (file, session) -> (line, {(dimension, judge?): status}).
    stored: dict[tuple[str, str], tuple[int, dict[tuple[str, bool], str]]] = field(default_factory=dict)
    stored_rubric: dict[tuple[str, str], str] = field(default_factory=dict)  # the rubric of that latest record
    unidentified: set[str] = field(default_factory=set)  # node ids of the items that ran
    verification: dict[str, str] = field(default_factory=dict)  # node id -> outcome, per stored verdict
    verified_records: dict[str, str] = field(default_factory=dict)  # node id -> outcome, per record's own fields
    unreadable_records: set[str] = field(default_factory=set)  # node ids of journal lines re-verification cannot read
    # The data files whose items are counted, as pytest locates them (relative to the
    # rootdir): another test's record_property never counts, whatever its names.
    files: frozenset[str] = frozenset()

    def add(self, report: pytest.TestReport) -> None:
        """Count one item of a data file, from the report that decides its outcome."""
        if not report.user_properties or ITEM_KEYWORD not in report.keywords or not _decisive(report):
            return
        if report.location[0] not in self.files:
            return
        props: dict[str, Any] = dict(report.user_properties)
        if props.get("verification") == "record":
            self.verified_records[report.nodeid] = report.outcome
            return
        if props.get("verification") == "unreadable":
            self.unreadable_records.add(report.nodeid)
            return
        if props.get("verification"):
            self.verification[report.nodeid] = report.outcome
            return
        if "dimension" in props and "status" in props:
            stored = "run_id" in props
            key = (report.location[0], wire_safe(props["session_id"]) if stored else _session_part(report))
            dimension, status, judge = props["dimension"], props["status"], props.get("method") == "judge"
            ran = (self.judged if judge else self.sessions).setdefault(key, set())
            # An item reported again (--dist each, a path given twice with --keep-duplicates)
            # is one observation: counting it twice would narrow the intervals.
            repeated = dimension in ran
            ran.add(dimension)
            if stored:  # a stored record of a journal given as input: counted in lines()
                given = props.get("line")
                line = given if type(given) is int else 0
                latest = self.stored.get(key)
                if latest is None or latest[0] < line:  # a later record replaces the session's verdicts
                    latest = self.stored[key] = (line, {})
                    self.stored_rubric[key] = str(props.get("rubric_version"))
                if latest[0] == line:
                    latest[1][(dimension, judge)] = status
                return
            if not repeated:
                (self.judge_counts if judge else self.counts)[dimension][status] += 1
        elif props.get("eligible") is False:
            self.not_scored.add((report.location[0], _session_part(report)))
        elif "reason" in props and props.get("session_id") is None:
            self.unidentified.add(report.nodeid)

    def ran_any(self, file: str, session_id: str) -> set[str]:
        """The dimensions, deterministic and judge, of this scored session whose items ran:
        a session is journaled and drawn when any did."""
        key = (file, escape_name(session_id))
        return self.sessions.get(key, set()) | self.judged.get(key, set())

    def skipped(self, file: str, session_id: str) -> bool:
        """Whether the item of this not-scored session of ``file`` ran."""
        return (file, escape_name(session_id)) in self.not_scored

    def verification_line(self) -> str | None:
        if not self.verification and not self.verified_records and not self.unreadable_records:
            return None
        outcomes = Counter(self.verification.values())
        records = Counter(self.verified_records.values())
        unreadable = f"; {len(self.unreadable_records)} journal line(s) unreadable" if self.unreadable_records else ""
        return (
            f"re-verification: {outcomes['passed']} stored verdict(s) reproduced, "
            f"{outcomes['failed']} not reproduced, "
            f"{outcomes['skipped']} not re-verifiable (judge); "
            f"{records['passed']} record(s) whose KPIs, host class and run_id reproduced, {records['failed']} not"
            f"{unreadable}"
        )

    @property
    def empty(self) -> bool:
        """No item of a data file ran (all deselected, or none collected)."""
        return not (
            self.sessions or self.judged or self.not_scored or self.unidentified
            or self.verification or self.verified_records or self.unreadable_records
        )

    def _with_stored(self, counts: dict[str, Counter[str]], judge: bool) -> dict[str, Counter[str]]:
        merged: dict[str, Counter[str]] = defaultdict(Counter, {d: Counter(c) for d, c in counts.items()})
        for _, verdicts in self.stored.values():
            for (dimension, is_judge), status in verdicts.items():
                if is_judge == judge:
                    merged[dimension][status] += 1
        return merged

    def lines(self, dimension_order: tuple[str, ...], rubric: str, judge_order: tuple[str, ...] = ()) -> list[str]:
        verification = self.verification_line()
        counts = self._with_stored(self.counts, judge=False)
        judge_counts = self._with_stored(self.judge_counts, judge=True)
        if verification and not counts:
            return [verification]
        scored = self.sessions.keys() | self.judged.keys()
        # Journals given as input say which rubric their records were scored with.
        versions = {self.stored_rubric[key] for key in scored if key in self.stored_rubric}
        if any(key not in self.stored_rubric for key in scored) or not versions:
            versions.add(rubric)
        lines = [f"{', '.join(_label(version) for version in sorted(versions))}: {len(scored)} session(s) scored"]
        if verification:
            lines.insert(0, verification)
        if self.not_scored:
            lines[0] += f", {len(self.not_scored)} not scored (abandoned, unfinished or without evidence of work)"
        if self.unidentified:
            lines[0] += f", {len(self.unidentified)} record(s) without a usable session_id"
        lines.extend(_table(counts, dimension_order, rates=True))
        if counts:
            rates = [DimensionRate.from_counts(d, counts[d]) for d in _ordered(counts, dimension_order)]
            lines.append("Pass rate = pass / (pass + fail), over the sessions where the dimension applied.")
            lines.append(ranking_note(rates))
        lines.append("Each dimension stands alone: there is no global score (aiat-llm-eval/1.0).")
        if judge_counts:
            lines.append("Advisory judge verdicts (uncalibrated; not part of the evaluation above, never fail the run):")
            lines.extend(_table(judge_counts, judge_order))
        return lines


def _label(text: str) -> str:
    """Text from the data (a dimension id, a rubric version) on one line of the summary:
    escaped as in node names unless it prints as it is."""
    return text if text.isprintable() else escape_name(text)


def _session_part(report: pytest.TestReport) -> str:
    """The escaped session id an item of a sessions file is named by (``<session>[<dim>]``)."""
    return str(report.location[2]).partition("[")[0]


def _ordered(counts: dict[str, Counter[str]], order: tuple[str, ...]) -> list[str]:
    """The dimensions counted, in ``order`` and then any others, sorted."""
    return [d for d in (*order, *sorted(set(counts) - set(order))) if d in counts]


def _table(counts: dict[str, Counter[str]], order: tuple[str, ...], rates: bool = False) -> list[str]:
    """One row per dimension, one column per status, and (for graded tables) the pass rate."""
    dimensions = _ordered(counts, order)
    labels = {d: _label(d) for d in dimensions}
    if not dimensions:
        return []
    width = max([len("dimension"), *map(len, labels.values())])
    rows = [f"{'dimension':<{width}}  " + "  ".join(STATUSES) + ("  pass rate" if rates else "")]
    for dimension in dimensions:
        cells = "  ".join(f"{counts[dimension][status]:>{len(status)}}" for status in STATUSES)
        rate = f"  {format_rate(counts[dimension][PASS], counts[dimension][FAIL]).removeprefix('pass rate ')}" if rates else ""
        rows.append(f"{labels[dimension]:<{width}}  {cells}{rate}")
    return rows


def index_teardown_reports(reporter: Any) -> None:
    """Make pytest's failure summary find teardown reports through an index.

    pytest's terminal summary looks up, for every failed report, the teardown
    reports of its item by walking every report of the run: O(failures x items).
    A sessions file yields thousands of failing verdicts, so that walk would
    dominate the run. The index answers the same question with the same reports
    in the same order; it is rebuilt whenever reports were added. Only the
    reporter's own lookup method is replaced, and only when it exists.
    """
    original = getattr(reporter, "_get_teardown_reports", None)
    if original is None or not hasattr(reporter, "getreports") or getattr(original, "indexed", False):
        return  # pytest has no such lookup, or the other data plugin has indexed it already
    cache: dict[str, Any] = {}

    def teardown_reports(node_id: Any) -> list[Any]:
        # pytest < 9.2 passes the string ``nodeid``, pytest >= 9.2 the structured ``id``.
        key_field = "nodeid" if isinstance(node_id, str) else "id"
        size = len(reporter.stats.get("", ()))
        if cache.get("key") != (size, key_field):
            by_id: dict[Any, list[Any]] = {}
            for report in reporter.getreports(""):
                if report.when == "teardown":
                    by_id.setdefault(getattr(report, key_field), []).append(report)
            cache["key"], cache["by_id"] = (size, key_field), by_id
        return list(cache["by_id"].get(node_id, ()))

    teardown_reports.indexed = True  # type: ignore[attr-defined]
    reporter._get_teardown_reports = teardown_reports


def _decisive(report: pytest.TestReport) -> bool:
    """The call report, or the setup report of an item skipped (or failed) before its call."""
    return report.when == "call" or (report.when == "setup" and not report.passed)
