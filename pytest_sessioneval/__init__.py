"""pytest-sessioneval: recorded orchestrator sessions and policy envelopes as pytest tests."""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.2.0"

from .core.engine import (
    Evaluation,
    InputWarning,
    NoEligibleSession,
    Selection,
    SessionEvaluation,
    SkippedSession,
    UnidentifiedRecord,
    evaluate,
    resolve_inputs,
    score_sessions,
)
from .core.rubric import Dimension, DimensionVerdict, Rubric, SessionContext, Verdict
from .rubrics import RUBRIC_V1

if TYPE_CHECKING:
    from .plugin.input_warnings import SessionEvalInputWarning  # imported when asked (see __getattr__)

__all__ = [
    "RUBRIC_V1",
    "Dimension",
    "DimensionVerdict",
    "Evaluation",
    "InputWarning",
    "NoEligibleSession",
    "Rubric",
    "Selection",
    "SessionContext",
    "SessionEvalInputWarning",
    "SessionEvaluation",
    "SkippedSession",
    "UnidentifiedRecord",
    "Verdict",
    "__version__",
    "evaluate",
    "resolve_inputs",
    "score_sessions",
]


def __getattr__(name: str) -> object:
    # The warning class lives with the pytest layer; importing it only when asked keeps
    # ``import pytest_sessioneval`` (the scoring API) free of it. Named for -W and
    # filterwarnings: ``ignore::pytest_sessioneval.SessionEvalInputWarning``.
    if name == "SessionEvalInputWarning":
        from .plugin.input_warnings import SessionEvalInputWarning

        return SessionEvalInputWarning
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
