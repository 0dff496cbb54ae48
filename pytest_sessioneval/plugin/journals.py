"""Journals a run reads: shown as they are, or re-verified against a fresh scoring of the
current metrics (each record with the rubric it names)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.engine import Evaluation, Selection, SessionEvaluation, evaluate
from ..core.io import mapped_input, read_bytes, stat_kind
from ..core.jsonl import InputProblem
from ..core.rubric import Rubric
from ..core.sessions import eligibility
from ..core.snapshot import InputChanged, held
from ..records.build import recorded_platform
from ..records.journal import read_journal
from ..records.seal import SealReport, check_seal, seal_path
from ._compat import bestrelpath
from .files import not_a_file

__all__ = ["StoredJournal"]


@dataclass
class StoredJournal:
    """A journal's records, read once, and (for re-verification) the fresh evaluations."""

    path: Path
    records: list[tuple[int, dict[str, Any]]]
    problems: list[InputProblem] = field(default_factory=list)
    looked_past: list[int] = field(default_factory=list)  # lines of other objects (notes, other kinds)
    verify: bool = False
    fresh: dict[tuple[str, str], SessionEvaluation] = field(default_factory=dict)  # (rubric version, session id)
    # The same key -> file:line of each scoring, for a session that sessions files given score differently.
    scored_apart: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    rubrics: dict[str, Rubric] = field(default_factory=dict)
    # Re-verified: the journal checked against its seal (None: no seal, or one that cannot be
    # read, ``seal_problem`` saying why).
    seal: SealReport | None = None
    seal_problem: str | None = None

    @classmethod
    def read(cls, path: Path, rubrics: Mapping[str, Rubric], *, verify: bool = False) -> StoredJournal:
        """The journal's records, read once (re-verified, with its seal). Raises ``OSError``
        when it cannot be read."""
        journal = cls(path, [], verify=verify, rubrics=dict(rubrics))
        journal.records = read_journal(path, journal.problems, journal.looked_past)
        if verify:
            journal.seal, journal.seal_problem = _read_seal(path)
        return journal

    @property
    def seal_path(self) -> Path:
        return seal_path(self.path)

    def score_afresh(
        self,
        sources: Mapping[Path, Path | None],
        default_rubric: Rubric,
        check_every_event_line: bool,
        start: Path,
    ) -> dict[Path, Evaluation]:
        """Score every session a record names from the current metrics (``sources``), with
        the rubric the record names (any registered one), whatever ``--session-eval-rubric``
        says: a journal may hold several rubric versions. Returns an evaluation per
        sessions file (its input problems are warned once)."""
        wanted: dict[str, set[str]] = {}
        for _, record in self.records:
            version, session_id = record.get("rubric_version"), record.get("session_id")
            if isinstance(version, str) and version in self.rubrics and isinstance(session_id, str):
                wanted.setdefault(version, set()).add(session_id)
        evaluations: dict[Path, Evaluation] = {}
        found: dict[tuple[str, str], list[tuple[SessionEvaluation, str]]] = {}  # each fresh scoring, and where
        for sessions, events in sources.items():
            for version, session_ids in wanted.items() or [(default_rubric.version, set())]:
                evaluation = evaluate(
                    sessions,
                    events,
                    Selection(session_ids=frozenset(session_ids), explicit=True),
                    self.rubrics.get(version, default_rubric),
                    check_every_event_line=check_every_event_line,
                )
                evaluations.setdefault(sessions, evaluation)
                for entry in evaluation.scored:
                    found.setdefault((version, entry.session_id), []).append(
                        (entry, f"{bestrelpath(start, sessions)}:{entry.line}")
                    )
        for key, scorings in found.items():
            # One session id in several sessions files given: a scoring run scores the last
            # line of those where it is eligible; when they score it two ways, which did the
            # record score?
            eligible = [(entry, where) for entry, where in scorings if eligibility(entry.record) is None] or scorings
            self.fresh[key] = eligible[0][0]
            if any(_result(entry) != _result(eligible[0][0]) for entry, _ in eligible[1:]):
                self.scored_apart[key] = [where for _, where in eligible]
        return evaluations


def _read_seal(path: Path) -> tuple[SealReport | None, str | None]:
    """The journal checked against its seal; or no seal; or why the seal cannot be read. A
    FIFO or a directory at the seal's path is never opened (reading a FIFO would wait). A
    seal fixed with its journal (``core.snapshot.measure_with``) is read as it was then, up
    to its last newline: what was at its path, and a torn last line, as measured."""
    sealing = seal_path(path)
    fixed = held(sealing)
    try:
        kind = stat_kind(sealing) if fixed is None else fixed.kind
    except (OSError, ValueError) as exc:
        return None, f"{sealing}: cannot be looked at ({exc})"
    if kind is None:
        return None, None
    if kind != "file":
        return None, f"{sealing}: {not_a_file(kind)}"
    try:
        seal = read_bytes(sealing)
        with mapped_input(path) as data:  # (mapped: a large journal is never held whole)
            return check_seal(data, seal, torn=fixed.left_out if fixed is not None else 0), None
    except InputChanged:  # refused as any input that changed while the run read it
        raise
    except OSError as exc:
        return None, f"{exc.filename or sealing}: cannot be read ({exc.strerror or exc})"


def _result(entry: SessionEvaluation) -> tuple[object, ...]:
    """What a record of the session holds from its scoring."""
    return (entry.dimensions, entry.kpis, entry.host_class, recorded_platform(entry.record))
