"""The terminal summary: per-dimension counts of verdicts, never a global score.

Counts are taken from the reports (``user_properties``), so they are right
under pytest-xdist, where the controller collects nothing itself.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..core.naming import escape_name
from ..core.rubric import CANNOT_DETERMINE, FAIL, JUDGE, NOT_APPLICABLE, PASS, STATUSES
from ..core.text import first_few
from ..report.intervals import DimensionRate, format_rate, ranking_note
from ..report.summary import told_causes
from ._compat import bestrelpath
from .facts import ITEM_KEYWORD, ItemFacts
from .options import how_given
from .settings import date_range

if TYPE_CHECKING:
    from .run import SessionEvalRun

__all__ = ["Tally", "write_summary"]


@dataclass
class Tally:
    """What the run's reports said, per dimension and per session."""

    counts: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    judge_counts: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    # The same counts per sessions file, as pytest locates it.
    file_counts: dict[str, dict[str, Counter[str]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(Counter))
    )
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
    # Per dimension, the not-applicable and cannot-determine verdicts counted by (status, cause).
    causes: dict[str, Counter[tuple[str, str | None]]] = field(default_factory=lambda: defaultdict(Counter))
    # (file, session) -> why the eligibility rule would have left out a session scored because it was named.
    on_request: dict[tuple[str, str], str] = field(default_factory=dict)
    verification: dict[str, str] = field(default_factory=dict)  # node id -> outcome, per stored verdict
    verified_records: dict[str, str] = field(default_factory=dict)  # node id -> outcome, per record's own fields
    unreadable_records: set[str] = field(default_factory=set)  # node ids of journal lines re-verification cannot read
    seals: dict[str, str] = field(default_factory=dict)  # node id -> outcome, per line of a journal's seal
    # The data files whose items are counted, as pytest locates them (relative to the
    # rootdir): another test's record_property never counts, whatever its names.
    files: frozenset[str] = frozenset()

    def add(self, report: pytest.TestReport) -> None:
        """Count one item of a data file, from the report that decides its outcome."""
        if not report.user_properties or ITEM_KEYWORD not in report.keywords or not _decisive(report):
            return
        self.count(report.location, report.nodeid, report.outcome, report.user_properties)

    def add_item(self, item: pytest.Item, nodeid: str) -> None:
        """Count one item of a data file by the facts it will report (``nodeid``: as reported):
        what its report would count once it runs."""
        self.count(item.location, nodeid, "", item.user_properties)

    def count(
        self, location: tuple[str, int | None, str], nodeid: str, outcome: str, properties: list[tuple[str, Any]]
    ) -> None:
        if location[0] not in self.files:
            return
        facts = ItemFacts.from_properties(properties)
        if facts is None:
            return
        if facts.kind == "verified-record":
            self.verified_records[nodeid] = outcome
            return
        if facts.kind == "unreadable":
            self.unreadable_records.add(nodeid)
            return
        if facts.kind == "seal":
            self.seals[nodeid] = outcome
            return
        if facts.kind == "verified":
            self.verification[nodeid] = outcome
            return
        if facts.kind in ("verdict", "stored"):
            stored = facts.kind == "stored"
            key = (location[0], str(facts.session_id) if stored else _session_part(location))
            dimension, status, judge = facts.dimension, facts.status, facts.method == JUDGE
            ran = (self.judged if judge else self.sessions).setdefault(key, set())
            # An item reported again (--dist each, a path given twice with --keep-duplicates)
            # is one observation: counting it twice would narrow the intervals.
            repeated = dimension in ran
            ran.add(dimension)
            if stored:  # a stored record of a journal given as input: counted in lines()
                line = facts.line
                latest = self.stored.get(key)
                if latest is None or latest[0] < line:  # a later record replaces the session's verdicts
                    latest = self.stored[key] = (line, {})
                    self.stored_rubric[key] = str(facts.rubric_version)
                if latest[0] == line:
                    latest[1][(dimension, judge)] = status
                return
            if not repeated:
                (self.judge_counts if judge else self.counts)[dimension][status] += 1
                if not judge:
                    self.file_counts[location[0]][dimension][status] += 1
                if not judge and status in (NOT_APPLICABLE, CANNOT_DETERMINE):
                    self.causes[dimension][(status, facts.cause)] += 1
            if facts.scored_on_request is not None:
                self.on_request[key] = facts.scored_on_request
        elif facts.kind == "not-scored":
            self.not_scored.add((location[0], _session_part(location)))
        elif facts.kind == "no-session-id":
            self.unidentified.add(nodeid)

    def ran_any(self, file: str, session_id: str) -> set[str]:
        """The dimensions, deterministic and judge, of this scored session whose items ran:
        a session is journaled and drawn when any did."""
        key = (file, escape_name(session_id))
        return self.sessions.get(key, set()) | self.judged.get(key, set())

    def skipped(self, file: str, session_id: str) -> bool:
        """Whether the item of this not-scored session of ``file`` ran."""
        return (file, escape_name(session_id)) in self.not_scored

    def verification_line(self) -> str | None:
        if not self.verification and not self.verified_records and not self.unreadable_records and not self.seals:
            return None
        outcomes = Counter(self.verification.values())
        records = Counter(self.verified_records.values())
        seals = Counter(self.seals.values())
        unreadable = f"; {len(self.unreadable_records)} journal line(s) unreadable" if self.unreadable_records else ""
        sealed = f"; {seals['passed']} sealed run(s) intact, {seals['failed']} not" if self.seals else ""
        return (
            f"re-verification: {outcomes['passed']} stored verdict(s) reproduced, "
            f"{outcomes['failed']} not reproduced, "
            f"{outcomes['skipped']} not re-verifiable (judge); "
            f"{records['passed']} record(s) whose KPIs, host class and run_id reproduced, {records['failed']} not"
            f"{unreadable}{sealed}"
        )

    @property
    def empty(self) -> bool:
        """No item of a data file ran (all deselected, or none collected)."""
        return not (
            self.sessions
            or self.judged
            or self.not_scored
            or self.unidentified
            or self.verification
            or self.verified_records
            or self.unreadable_records
            or self.seals
        )

    def deterministic_counts(self) -> dict[str, Counter[str]]:
        """Per rubric dimension, how many sessions had each status: the table's counts."""
        return self._with_stored(self.counts, judge=False)

    def _with_stored(self, counts: dict[str, Counter[str]], judge: bool) -> dict[str, Counter[str]]:
        merged: dict[str, Counter[str]] = defaultdict(Counter, {d: Counter(c) for d, c in counts.items()})
        for _, verdicts in self.stored.values():
            for (dimension, is_judge), status in verdicts.items():
                if is_judge == judge:
                    merged[dimension][status] += 1
        return merged

    def lines(
        self,
        dimension_order: tuple[str, ...],
        rubric: str,
        judge_order: tuple[str, ...] = (),
        causes: Mapping[str, str] | None = None,
        items: int | None = None,
    ) -> list[str]:
        """The summary: sessions counted, one row per dimension (pooled, then per sessions
        file when there are several), what the rates mean, why verdicts were not decided
        (``causes``: the rubric's phrase for each cause code), and apart, any advisory
        judge verdicts. ``items``: how many deterministic items the scored sessions have;
        when fewer ran, the summary says it covers part of the run."""
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
        covered = sum(sum(c.values()) for c in self.counts.values())
        if items is not None and covered < items:
            lines.append(
                f"This summary covers {covered} of the {items} items of the scored sessions: "
                "-k, -m, --lf, -x, --deselect or the node ids given left the others out."
            )
        lines.extend(_table(counts, dimension_order, rates=True))
        if counts:
            rates = [DimensionRate.from_counts(d, counts[d]) for d in _ordered(counts, dimension_order)]
            lines.append("Pass rate = pass / (pass + fail), over the sessions where the dimension applied.")
            if len(rates) > 1:
                lines.append(ranking_note(rates))
        lines.extend(self._file_lines(dimension_order))
        lines.extend(self._cause_lines(dimension_order, causes or {}))
        if self.on_request:
            named = first_few(sorted({_label(session) for _, session in self.on_request}))
            lines.append(f"Scored on request, although the eligibility rule would leave them out: {named}.")
        lines.append("Each dimension stands alone: there is no global score (aiat-llm-eval/1.0).")
        if judge_counts:
            lines.append(
                "Advisory judge verdicts (uncalibrated; not part of the evaluation above, never fail the run):"
            )
            lines.extend(_table(judge_counts, judge_order))
        return lines

    def _file_lines(self, order: tuple[str, ...]) -> list[str]:
        """Where sessions of more than one file were counted, each file's own rows."""
        if len(self.file_counts) < 2:
            return []
        lines = ["Per sessions file:"]
        for file in sorted(self.file_counts):
            sessions = sum(1 for (where, _) in self.sessions if where == file)
            lines.append(f"{file}: {sessions} session(s) scored")
            lines.extend(f"  {row}" for row in _table(self.file_counts[file], order, rates=True))
        return lines

    def _cause_lines(self, order: tuple[str, ...], phrases: Mapping[str, str]) -> list[str]:
        """Per dimension and status, the causes of the verdicts that were not decided, most
        frequent first: ``gate-health: 57 cannot-determine: 57 with no full-gate event ...``."""
        lines = [
            f"  {_label(dimension)}: {total} {status}: {told}"
            for dimension in _ordered(self.causes, order)
            for status, total, told in told_causes(self.causes[dimension], phrases)
        ]
        return ["Why verdicts were not decided:", *lines] if lines else []


def _label(text: str) -> str:
    """Text from the data (a dimension id, a rubric version) on one line of the summary:
    escaped as in node names unless it prints as it is."""
    return text if text.isprintable() else escape_name(text)


def _session_part(location: tuple[str, int | None, str]) -> str:
    """The escaped session id an item of a sessions file is named by (``<session>[<dim>]``)."""
    return str(location[2]).partition("[")[0]


def _ordered(counts: Mapping[str, object], order: tuple[str, ...]) -> list[str]:
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
        rate = (
            f"  {format_rate(counts[dimension][PASS], counts[dimension][FAIL]).removeprefix('pass rate ')}"
            if rates
            else ""
        )
        rows.append(f"{labels[dimension]:<{width}}  {cells}{rate}")
    return rows


def _decisive(report: pytest.TestReport) -> bool:
    """The call report, or the setup report of an item skipped (or failed) before its call."""
    return report.when == "call" or (report.when == "setup" and not report.passed)


def write_summary(terminalreporter: Any, config: pytest.Config, run: SessionEvalRun) -> None:
    """The "session evaluation" section of the terminal summary."""
    skipped = _input_problems_line(config, run)
    stamps = _unreadable_timestamps_line(config, run)
    looked_past = _looked_past_lines(config, run) + _seal_lines(config, run)
    left_out = _left_out_lines(config, run)
    scored_none = _scored_none_line(config, run)
    gated = run.gates.lines()
    told = (run.messages, skipped, stamps, looked_past, left_out, scored_none, gated)
    if run.tally.empty and not any(told):
        return  # none of its items ran (say, only policy items were selected): nothing to sum up
    terminalreporter.write_sep("=", "session evaluation")
    rubric = run.settings.rubric
    if not run.tally.empty:  # else only what was written (the journal, the page) is said
        items = sum(len(evaluation.scored) for evaluation in run.evaluations.values()) * len(rubric.dimensions)
        for line in run.tally.lines(rubric.dimension_ids, rubric.version, rubric.judge_ids, rubric.causes, items):
            terminalreporter.write_line(line)
    for line in gated:
        terminalreporter.write_line(line)
    for line in left_out:
        terminalreporter.write_line(line, yellow=True)
    if skipped:
        terminalreporter.write_line(skipped, yellow=True)
    if stamps:
        terminalreporter.write_line(stamps, yellow=True)
    for line in looked_past:
        terminalreporter.write_line(line)
    for message in run.messages:
        terminalreporter.write_line(message, red=message.startswith(("ERROR", "REFUSED")))
    if scored_none:
        terminalreporter.write_line(scored_none, yellow=True)


def _scored_none_line(config: pytest.Config, run: SessionEvalRun) -> str | None:
    """The last line, when sessions files were read and no session was scored: a run that
    scored nothing is no green run (exit status 5) unless the options accept it."""
    if not run.scored_none:
        return None
    accepted = run.settings.allow_empty
    ends = (
        "accepted by " + how_given(config, "--session-eval-allow-empty")
        if accepted
        else "so the run ends with exit status 5 (no tests ran); --session-eval-allow-empty accepts it"
    )
    return (
        "No session was scored: every one is abandoned, unfinished, without evidence of work, or left out "
        f"by the selection; {ends}"
    )


def _unreadable_timestamps_line(config: pytest.Config, run: SessionEvalRun) -> str | None:
    """The timestamps the rubric reads but cannot, counted and the first named: said here too,
    since warnings can be silenced."""
    found = [stamps for evaluation in run.evaluations.values() for stamps in evaluation.unreadable_timestamps]
    if not found:
        return None
    start = config.invocation_params.dir
    named = first_few([name for stamps in found for name in stamps.named(bestrelpath(start, Path(stamps.path)))])
    count = sum(stamps.count for stamps in found)
    return f"{count} timestamp(s) cannot be read, so their windows or events are lost ({named}); see the warnings"


def _left_out_lines(config: pytest.Config, run: SessionEvalRun) -> list[str]:
    """Per sessions file, what gave it no item: the date range, or having no session record;
    re-verifying, a journal without a record. Without this line a run that collects nothing
    would end in pytest's bare "no tests ran"."""
    start = config.invocation_params.dir
    verify_path = run.settings.verify_path
    if verify_path is not None:
        journal = run.journals.get(verify_path)
        if journal is None or journal.records or journal.problems:
            return []
        return [f"{bestrelpath(start, verify_path)}: no session-eval record to re-verify"]
    lines = []
    for path, evaluation in run.evaluations.items():
        where = bestrelpath(start, path)
        if evaluation.outside_dates:
            lines.append(
                f"{where}: {evaluation.outside_dates} session record(s) left out by {date_range(config)}: they "
                "started outside it, or their started_at does not parse"
            )
        elif path in run.without_latest:
            lines.append(
                f"{where}: {how_given(config, '--session-eval-latest')} scores none of its sessions: "
                f"{run.without_latest[path].reason}"
            )
        elif not evaluation.records:
            lines.append(f"{where}: no session record to score")
        elif not evaluation.entries and run.settings.selection.session_ids is not None:
            lines.append(f"{where}: none of its sessions is named by {how_given(config, '--session-eval-session')}")
    return lines


def _looked_past_lines(config: pytest.Config, run: SessionEvalRun) -> list[str]:
    """Per journal read, the lines that hold other objects than records, counted and the first named."""
    return [
        f"{bestrelpath(config.invocation_params.dir, path)}: {len(journal.looked_past)} line(s) holding no "
        "session-eval record (a header, a note, a record of another kind) looked past: "
        f"line{'s' if len(journal.looked_past) > 1 else ''} {first_few([str(line) for line in journal.looked_past])}"
        for path, journal in run.journals.items()
        if journal.looked_past
    ]


def _seal_lines(config: pytest.Config, run: SessionEvalRun) -> list[str]:
    """Re-verifying, what the journal's seal says: its chain head (to keep elsewhere), the
    journal lines no seal covers, or that there is no seal."""
    verify_path = run.settings.verify_path
    journal = run.journals.get(verify_path) if verify_path is not None else None
    if journal is None or journal.seal_problem is not None:
        return []  # (a failed item says why the seal cannot be read)
    start = config.invocation_params.dir
    where, seal = bestrelpath(start, journal.path), bestrelpath(start, journal.seal_path)
    report = journal.seal
    if report is None:
        return [
            f"{where}: no seal ({seal}), so a record deleted or duplicated cannot be told: its completeness "
            "is not checked (a run that appends to it starts one)"
        ]
    lines = []
    if report.head is not None:
        # (by its line: the seal may have grown since the run fixed it)
        lines.append(
            f"{seal}: {len(report.runs)} sealed run(s); chain head {report.head}, of line {report.head_line} "
            f"(sed -n {report.head_line}p {seal} | sha256sum gives it; kept elsewhere, it vouches for every "
            "run sealed up to it)"
        )
    if report.unsealed:
        copies = [f"{line} repeats {report.copies[line]}" for line in report.unsealed if line in report.copies]
        lines.append(
            f"{where}: {len(report.unsealed)} line(s) no seal covers (appended by another tool, or after "
            f"the last sealed run), whose completeness cannot be checked: "
            f"line{'s' if len(report.unsealed) > 1 else ''} {first_few([str(line) for line in report.unsealed])}"
            + (f"; of them, a copy of a sealed record: line {first_few(copies)}" if copies else "")
        )
    return lines


def _input_problems_line(config: pytest.Config, run: SessionEvalRun) -> str | None:
    """The unusable input lines, counted and the first ones named: said here too, since
    warnings can be silenced (``-p no:warnings``) and a skipped line must never go unseen."""
    problems = [p for evaluation in run.evaluations.values() for p in evaluation.problems]
    problems += [p for journal in run.journals.values() if not journal.verify for p in journal.problems]
    if not problems:
        return None
    start = config.invocation_params.dir
    named = first_few([f"{bestrelpath(start, Path(p.path))}:{p.line}" for p in problems])
    return f"{len(problems)} unusable input line(s) skipped ({named}); each is a SessionEvalInputWarning"
