"""Advisory judges, asked once per run, by the controller, about the sessions whose judge
items the command line can select; xdist workers take the verdicts it got."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, Final

import pytest

from ..core.engine import Evaluation, SessionEvaluation
from ..core.naming import escape_name
from ..core.rubric import DimensionVerdict
from ..core.text import printable, wire_safe
from ..judge import JudgeContractError, judge_session
from ..records.schema import InvalidRecord
from ._compat import bestrelpath
from .judge_selection import JudgeSelection
from .options import usage_error
from .outputs import record_of
from .settings import Settings
from .xdist import from_controller

__all__ = ["NO_JUDGE_ASKED", "ask_judges", "judged_for_workers", "take_judged_from_controller"]

NO_JUDGE_ASKED: Final = (
    "judges: not asked, since no judge item runs in this run (--co, or -m, -k, --deselect or the paths and "
    "node ids given leaving them out, or a rubric without judge dimensions); sessions carry no judge verdict"
)
_WORKER_KEY: Final = "session_eval_judge"


def ask_judges(
    config: pytest.Config, settings: Settings, evaluations: Mapping[Path, Evaluation], *, dry_run: bool
) -> list[str]:
    """Add the judges' advisory verdicts to every scored session of which the command line
    can select a judge item (see ``judge_selection``); what the summary says of it."""
    selection = JudgeSelection(config, list(evaluations), settings.rubric.judge_ids, dry_run=dry_run)
    if not selection.any_can_run:
        # No judge item runs (--co, a rubric without judge dimensions, an -m or -k that pytest
        # cannot parse): none is asked, so sessions carry no judge verdict, in their items
        # and in the journal alike.
        return [NO_JUDGE_ASKED]
    asked = passed_over = 0
    for path, evaluation in evaluations.items():
        for index, entry in enumerate(evaluation.entries):
            if not isinstance(entry, SessionEvaluation):
                continue
            if not selection.selects(path, entry.session_id):
                passed_over += 1  # no judge item of it can run: none is asked
                continue
            asked += 1
            try:
                record = record_of(settings, entry)
            except InvalidRecord as exc:  # e.g. a custom rubric's infinite score
                where = f"{bestrelpath(config.invocation_params.dir, path)}:{entry.line}"
                raise usage_error(
                    "--session-eval-judge",
                    f"{where}: the record of session {entry.session_id!r}, which a judge reads, is invalid: {exc}",
                ) from None
            try:
                verdicts = judge_session(settings.judges or [], record, settings.rubric, settings.judge_timeout)
            except JudgeContractError as exc:
                raise usage_error("--session-eval-judge", printable(str(exc))) from None
            evaluation.entries[index] = replace(entry, judge=verdicts)
    if passed_over and not asked:
        return [NO_JUDGE_ASKED]
    if passed_over:
        return [
            f"judges: asked about {asked} of {asked + passed_over} scored session(s); the paths, node ids, "
            "-m, -k and --deselect given select no judge item of the others, which carry no judge verdict"
        ]
    return []


def _key(path: Path, session_id: str) -> str:
    # Each part escaped as a node name is (injective, printable: no NUL), then joined by a NUL:
    # two sessions never share a key, not even "x\ud800" and the text "x\\ud800".
    return f"{escape_name(str(path))}\0{escape_name(session_id)}"


def judged_for_workers(evaluations: Mapping[Path, Evaluation]) -> dict[str, Any]:
    """The judge verdicts in plain data, handed to xdist workers so that judges run once."""
    return {
        _WORKER_KEY: wire_safe(
            {
                _key(path, entry.session_id): [asdict(verdict) for verdict in entry.judge]
                for path, evaluation in evaluations.items()
                for entry in evaluation.scored
            }
        )
    }


def take_judged_from_controller(config: pytest.Config, evaluations: Mapping[Path, Evaluation]) -> None:
    """On an xdist worker: the judge verdicts the controller got, so that judges run once."""
    stored = from_controller(config, _WORKER_KEY) or {}
    for path, evaluation in evaluations.items():
        for index, entry in enumerate(evaluation.entries):
            if isinstance(entry, SessionEvaluation):
                verdicts = tuple(DimensionVerdict(**v) for v in stored.get(_key(path, entry.session_id), ()))
                evaluation.entries[index] = replace(entry, judge=verdicts)
