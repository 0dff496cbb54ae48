"""Scenario records of a policy-eval dataset and their rules (POLICY-ENVELOPES.md).

A record pins, for one concrete scenario, the envelope of acceptable routing
decisions. :class:`ScenarioRecord` declares each field's type and rule;
:data:`INVARIANTS` are the cross-field rules, one check each. Plain data in,
findings out: no pytest, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    StringConstraints,
    model_validator,
)

__all__ = [
    "DECISIONS",
    "FIELDS",
    "ID_PATTERN",
    "INVARIANTS",
    "MAX_WORKERS",
    "NO_FALLBACK",
    "ROLES",
    "WRITER_ROLE",
    "Decision",
    "Invariant",
    "Role",
    "ScenarioRecord",
    "Text",
    "TextList",
    "WorkerCountRange",
    "no_repeats",
]

ID_PATTERN: Final = r"^[a-z0-9]+(-[a-z0-9]+)*$"
#: The highest profile ceiling on concurrent workers.
MAX_WORKERS: Final = 6
#: The role a scenario needs before it may expect a writer.
WRITER_ROLE: Final = "Spark Worker"
#: The ``expected_fallback`` value that means "no fallback".
NO_FALLBACK: Final = "none"

Decision = Literal["parent-only", "delegate", "conditional", "disabled"]
Role = Literal["Spark Explorer", "Spark Worker", "Spark Tester", "Generic bounded worker"]
DECISIONS: Final[tuple[str, ...]] = get_args(Decision)
ROLES: Final[tuple[str, ...]] = get_args(Role)


def _has_text(value: str) -> str:
    if not value.strip():
        raise ValueError("it is blank")
    return value


def no_repeats(values: list[str]) -> list[str]:
    """Reject a list that names one value twice."""
    seen: set[str] = set()
    repeated: set[str] = set()
    for value in values:
        (repeated if value in seen else seen).add(value)
    if repeated:
        raise ValueError(f"it lists {', '.join(map(repr, sorted(repeated)))} more than once")
    return values


Text = Annotated[StrictStr, AfterValidator(_has_text)]
TextList = Annotated[list[Text], Field(min_length=1)]
WorkerBound = Annotated[StrictInt, Field(ge=0, le=MAX_WORKERS)]
Count = Annotated[StrictInt, Field(ge=0)]  # a whole number >= 0 (never a boolean)


class WorkerCountRange(BaseModel):
    """``{"min": int, "max": int}`` and nothing else, ``0 <= min <= max <= 6``."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    min: WorkerBound
    max: WorkerBound

    @model_validator(mode="after")
    def _ordered(self) -> WorkerCountRange:
        if self.min > self.max:
            raise ValueError(f"min {self.min} is greater than max {self.max}")
        return self

    def __str__(self) -> str:
        return f"{self.min}..{self.max}"


class ScenarioRecord(BaseModel):
    """One line of ``prompts.jsonl``: exactly these nine fields."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    id: Annotated[StrictStr, StringConstraints(pattern=ID_PATTERN)] = Field(
        description="a stable, lower-case, hyphen-separated id such as 'review-small-diff', unique in the file"
    )
    prompt_or_scenario: Text = Field(description="non-empty text: a prompt or a concrete host/worker situation")
    expected_delegation_decision: Decision = Field(description="one of " + ", ".join(DECISIONS))
    expected_worker_count_range: WorkerCountRange = Field(
        description=f'{{"min": int, "max": int}} and nothing else, with 0 <= min <= max <= {MAX_WORKERS}'
    )
    expected_worker_role: Annotated[list[Role], AfterValidator(no_repeats)] = Field(
        description="a list without duplicates, each one of " + ", ".join(map(repr, ROLES))
    )
    expected_writer_count: Annotated[StrictInt, Field(ge=0, le=1)] = Field(
        description="the most concurrent writers expected, 0 or 1 (every profile allows one writer at most)"
    )
    expected_parent_responsibility: TextList = Field(
        description="a non-empty list of non-empty strings: the duties the parent keeps"
    )
    expected_fallback: Text = Field(description=f"a non-empty string: the fallback, or {NO_FALLBACK!r}")
    expected_safety_behavior: TextList = Field(
        description="a non-empty list of non-empty strings: observable safety invariants"
    )


FIELDS: Final[tuple[str, ...]] = tuple(ScenarioRecord.model_fields)


@dataclass(frozen=True, slots=True)
class Invariant:
    """A cross-field rule: the fields it reads, the rule in words, and how it is broken.

    ``breach`` gets the validated values of (at least) the fields in ``reads``
    and returns ``None`` when the rule holds, else a clause saying which field
    has which value and what to change.
    """

    check: str
    reads: tuple[str, ...]
    rule: str
    breach: Callable[[Mapping[str, Any]], str | None]


def _decision_workers(values: Mapping[str, Any]) -> str | None:
    decision = values["expected_delegation_decision"]
    upper = values["expected_worker_count_range"].max
    if decision in ("parent-only", "disabled") and upper != 0:
        return (
            f"expected_worker_count_range.max is {upper} for a {decision} scenario; "
            "set max to 0 or change expected_delegation_decision"
        )
    return None


def _delegate_min(values: Mapping[str, Any]) -> str | None:
    lower = values["expected_worker_count_range"].min
    if values["expected_delegation_decision"] == "delegate" and lower < 1:
        return (
            f"expected_worker_count_range.min is {lower} for a delegate scenario; "
            "set min to at least 1 or change expected_delegation_decision"
        )
    return None


def _roles_vs_workers(values: Mapping[str, Any]) -> str | None:
    upper = values["expected_worker_count_range"].max
    roles = values["expected_worker_role"]
    if upper == 0 and roles:
        return (
            f"expected_worker_role lists {', '.join(map(repr, roles))} although "
            "expected_worker_count_range.max is 0; empty the list or raise max"
        )
    if upper > 0 and not roles:
        return (
            f"expected_worker_role is empty although expected_worker_count_range.max is {upper}; "
            "name the roles the workers may take or set max to 0"
        )
    return None


def _writers_vs_workers(values: Mapping[str, Any]) -> str | None:
    writers = values["expected_writer_count"]
    upper = values["expected_worker_count_range"].max
    if writers > upper:
        return (
            f"expected_writer_count is {writers} but expected_worker_count_range.max is {upper}; "
            "lower the writer count or raise max"
        )
    return None


def _writer_role(values: Mapping[str, Any]) -> str | None:
    if values["expected_writer_count"] == 1 and WRITER_ROLE not in values["expected_worker_role"]:
        return (
            f"expected_writer_count is 1 but expected_worker_role does not list {WRITER_ROLE!r}; "
            f"add {WRITER_ROLE!r} or set the writer count to 0"
        )
    return None


INVARIANTS: Final[tuple[Invariant, ...]] = (
    Invariant(
        "decision-workers",
        ("expected_delegation_decision", "expected_worker_count_range"),
        "parent-only and disabled scenarios create no workers (max == 0)",
        _decision_workers,
    ),
    Invariant(
        "delegate-min",
        ("expected_delegation_decision", "expected_worker_count_range"),
        "delegate scenarios need at least one worker (min >= 1)",
        _delegate_min,
    ),
    Invariant(
        "roles-vs-workers",
        ("expected_worker_count_range", "expected_worker_role"),
        "no workers (max == 0) means no roles, and any workers (max > 0) need at least one role",
        _roles_vs_workers,
    ),
    Invariant(
        "writers-vs-workers",
        ("expected_writer_count", "expected_worker_count_range"),
        "writers cannot exceed workers (expected_writer_count <= max)",
        _writers_vs_workers,
    ),
    Invariant(
        "writer-role",
        ("expected_writer_count", "expected_worker_role"),
        f"only worker-role scenarios write: a writer count of 1 needs the {WRITER_ROLE!r} role",
        _writer_role,
    ),
)
