"""Offline policy-envelope evals: routing-policy fixture sets and forward tests as pytest items.

The pure part (records, rules, manifests, datasets, review) imports no pytest; the
pytest layer is the :mod:`.plugin` package.
"""

from __future__ import annotations

from .datasets import DataFile, DecisionLog, EnvelopeSet, GoldenSet, ManifestLoad
from .envelope import (
    DECISIONS,
    INVARIANTS,
    ROLES,
    Invariant,
    ScenarioRecord,
    WorkerCountRange,
)
from .golden import GoldenCase
from .manifest import DatasetManifest, EnvelopeManifest, GoldenManifest, Quotas
from .observation import WORKER_RESULT_FIELDS, Observation, compare, contract_breaches
from .review import (
    CHECKS,
    CheckResult,
    review_decision_log,
    review_envelope_set,
    review_golden_set,
)

__all__ = [
    "CHECKS",
    "DECISIONS",
    "INVARIANTS",
    "ROLES",
    "WORKER_RESULT_FIELDS",
    "CheckResult",
    "DataFile",
    "DatasetManifest",
    "DecisionLog",
    "EnvelopeManifest",
    "EnvelopeSet",
    "GoldenCase",
    "GoldenManifest",
    "GoldenSet",
    "Invariant",
    "ManifestLoad",
    "Observation",
    "Quotas",
    "ScenarioRecord",
    "WorkerCountRange",
    "compare",
    "contract_breaches",
    "review_decision_log",
    "review_envelope_set",
    "review_golden_set",
]
