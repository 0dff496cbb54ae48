"""Observed decisions of a real orchestrator run, and the forward test against an envelope.

One line of a decisions file records what the orchestrator did for one
scenario. The forward test passes when every aspect of the observation lies
inside the scenario's envelope (POLICY-ENVELOPES.md, "Forward tests"); each
worker result the run returned must keep the six-field contract.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from difflib import get_close_matches
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from .envelope import NO_FALLBACK, Count, ScenarioRecord, Text

__all__ = [
    "FORWARD_FIELDS",
    "OBSERVED_DECISIONS",
    "WORKER_RESULT_FIELDS",
    "Aspect",
    "Observation",
    "compare",
    "contract_breaches",
    "render_diff",
]

#: What a concrete run can decide; ``conditional`` exists only in envelopes.
OBSERVED_DECISIONS: Final = ("parent-only", "delegate", "disabled")
#: The decisions a ``conditional`` envelope admits.
CONDITIONAL_ADMITS: Final = ("parent-only", "delegate")
#: The six top-level fields of a worker's result, no more, no fewer.
WORKER_RESULT_FIELDS: Final = (
    "conclusion",
    "evidence",
    "files_and_lines",
    "tests_or_checks",
    "risks",
    "recommended_parent_action",
)
#: The envelope fields a forward test reads.
FORWARD_FIELDS: Final = (
    "expected_delegation_decision",
    "expected_worker_count_range",
    "expected_worker_role",
    "expected_writer_count",
    "expected_fallback",
)


class Observation(BaseModel):
    """One line of a decisions file: what one run did for one scenario."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    scenario_id: Text = Field(description="the id of the scenario the run answered")
    decision: Literal["parent-only", "delegate", "disabled"] = Field(
        description="the decision taken: " + ", ".join(OBSERVED_DECISIONS)
    )
    worker_count: Count = Field(description="how many workers the run created, an integer >= 0")
    worker_roles: list[Text] = Field(description="the roles the created workers took (a list of strings)")
    writer_count: Count = Field(description="the most workers that wrote at once, an integer >= 0")
    fallback: Text = Field(description=f"the fallback taken, or {NO_FALLBACK!r}")
    worker_results: list[dict[str, Any]] | None = Field(
        default=None, description="optional: the results the workers returned, one JSON object each"
    )


@dataclass(frozen=True, slots=True)
class Aspect:
    """One row of the side-by-side comparison of an envelope and an observation."""

    name: str
    expected: str
    observed: str
    inside: bool


def _listing(values: Sequence[str]) -> str:
    return ", ".join(values) if values else "(none)"


def compare(envelope: ScenarioRecord, observation: Observation) -> tuple[Aspect, ...]:
    """Each aspect of the observation against the envelope, in a fixed order."""
    expected_decision = envelope.expected_delegation_decision
    if expected_decision == "conditional":
        decision_ok = observation.decision in CONDITIONAL_ADMITS
        decision_text = "conditional: " + " or ".join(CONDITIONAL_ADMITS)
    else:
        decision_ok = observation.decision == expected_decision
        decision_text = expected_decision
    span = envelope.expected_worker_count_range
    roles = envelope.expected_worker_role
    strangers = [role for role in dict.fromkeys(observation.worker_roles) if role not in roles]
    fallback = envelope.expected_fallback
    any_fallback = fallback == NO_FALLBACK
    return (
        Aspect("decision", decision_text, observation.decision, decision_ok),
        Aspect(
            "worker_count",
            f"{span.min}..{span.max}",
            str(observation.worker_count),
            span.min <= observation.worker_count <= span.max,
        ),
        Aspect(
            "worker_roles",
            f"any of: {_listing(roles)}",
            _listing(observation.worker_roles) + (f"  (not expected: {', '.join(strangers)})" if strangers else ""),
            not strangers,
        ),
        Aspect(
            "writer_count",
            f"<= {envelope.expected_writer_count}",
            str(observation.writer_count),
            observation.writer_count <= envelope.expected_writer_count,
        ),
        Aspect(
            "fallback",
            f"any ({NO_FALLBACK!r} in the envelope)" if any_fallback else fallback,
            observation.fallback,
            any_fallback or observation.fallback == fallback,
        ),
    )


def _cell(text: str) -> str:
    """Text safe in one table cell: control characters and lone surrogates as escapes."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


def render_diff(aspects: Sequence[Aspect]) -> str:
    """The comparison as an aligned table, one aspect a row, the ones outside marked."""
    header = Aspect("aspect", "envelope (expected)", "observed", True)
    rows = [header, *(Aspect(a.name, _cell(a.expected), _cell(a.observed), a.inside) for a in aspects)]
    name_width = max(len(row.name) for row in rows)
    expected_width = max(len(row.expected) for row in rows)
    observed_width = max(len(row.observed) for row in rows)
    lines = []
    for row in rows:
        mark = "" if row is header else ("ok" if row.inside else "OUTSIDE")
        lines.append(
            f"  {row.name:<{name_width}}  {row.expected:<{expected_width}}  "
            f"{row.observed:<{observed_width}}  {mark}".rstrip()
        )
    return "\n".join(lines)


def contract_breaches(results: Sequence[Mapping[str, Any]]) -> list[str]:
    """One clause per worker result (1-based) that does not have exactly the six fields."""
    breaches = []
    for number, result in enumerate(results, 1):
        missing = [name for name in WORKER_RESULT_FIELDS if name not in result]
        extra = [name for name in result if name not in WORKER_RESULT_FIELDS]
        if not missing and not extra:
            continue
        parts = []
        renamed: dict[str, str] = {}
        for name in extra:
            match = get_close_matches(name, [m for m in missing if m not in renamed.values()], n=1, cutoff=0.6)
            if match:
                renamed[name] = match[0]
        if renamed:
            parts.append("renames " + ", ".join(f"{want!r} to {got!r}" for got, want in renamed.items()))
        lacking = [name for name in missing if name not in renamed.values()]
        surplus = [name for name in extra if name not in renamed]
        if lacking:
            parts.append("lacks " + ", ".join(map(repr, lacking)))
        if surplus:
            parts.append("adds " + ", ".join(map(repr, surplus)))
        breaches.append(f"worker result {number} " + " and ".join(parts))
    return breaches
