"""pytest-sessioneval: recorded orchestrator sessions and policy envelopes as pytest tests."""

from __future__ import annotations

__version__ = "0.1.0"

from .engine import (
    Evaluation,
    Selection,
    SessionEvaluation,
    SkippedSession,
    UnidentifiedRecord,
    evaluate,
    score_sessions,
)
from .rubric import Dimension, DimensionVerdict, Rubric, SessionContext, Verdict
from .rubric_v1 import RUBRIC_V1

__all__ = [
    "RUBRIC_V1",
    "Dimension",
    "DimensionVerdict",
    "Evaluation",
    "Rubric",
    "SessionContext",
    "SessionEvaluation",
    "Selection",
    "SkippedSession",
    "UnidentifiedRecord",
    "Verdict",
    "__version__",
    "evaluate",
    "score_sessions",
]
