"""The summary of one run, per dimension: how many sessions had each status, the pass rate
with its 95% interval, and the results of the requirements and the regression checks.

One pydantic model says what the summary is (its JSON Schema is exported to
``docs/eval-summary.schema.json``); it is written as JSON (``summary_json``), which a
later run reads back as its baseline (``read_summary``), and as a Markdown table
(``summary_markdown``). Each dimension stands alone: nothing in it is a figure across
dimensions (aiat-llm-eval/1.0).

Pure: no pytest, no clock, no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Final, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError, model_validator

from ..core.naming import escape_name
from ..core.rubric import CANNOT_DETERMINE, NOT_APPLICABLE
from ..core.text import printable
from ..records.schema import FORBIDDEN_GLOBAL_SCORE_KEYS, STANDARD_VERSION
from ..records.schema import _type_every_const as type_every_const
from .intervals import NO_INTERVAL, NO_RATE, wilson_interval

__all__ = [
    "SUMMARY_KIND",
    "CauseCount",
    "DimensionSummary",
    "EvalSummary",
    "InvalidSummary",
    "RegressionResult",
    "RequirementResult",
    "StatusCounts",
    "dimension_summary",
    "markdown_cell",
    "ordered_causes",
    "rate_text",
    "read_summary",
    "signed",
    "summary_dict",
    "summary_json",
    "summary_json_schema",
    "summary_markdown",
    "told_causes",
]

SUMMARY_KIND: Final = "session-eval-summary"
SCHEMA_VERSION: Final = 1

Count = Annotated[StrictInt, Field(ge=0)]
Share = Annotated[float, Field(ge=0, le=1)]  # a pass rate, or a bound of its interval
Difference = Annotated[float, Field(ge=-1, le=1)]  # of two pass rates, or a bound of its interval
Text = Annotated[StrictStr, Field(min_length=1)]


def _named(name: str) -> Any:
    """A field written (and read) as ``name``, a word Python keeps (``pass``) or cannot spell."""
    return Field(validation_alias=name, serialization_alias=name)


class _Part(BaseModel):
    # Fields may be added in later versions (a reader keeps what it does not know), and a
    # summary is read back by the names it is written with.
    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)


class StatusCounts(_Part):
    """How many sessions had each rubric status for one dimension."""

    passed: Count = _named("pass")
    failed: Count = _named("fail")
    not_applicable: Count = _named("not-applicable")
    cannot_determine: Count = _named("cannot-determine")

    @classmethod
    def from_mapping(cls, counts: Mapping[str, int]) -> StatusCounts:
        """From a mapping of rubric status (``"pass"``, ...) to count; a status left out is 0."""
        return cls.model_validate({status: counts.get(status, 0) for status in _STATUS_FIELDS})


_STATUS_FIELDS: Final = ("pass", "fail", "not-applicable", "cannot-determine")


class RequirementResult(_Part):
    """A requirement DIM>=RATE: met (its item passed), missed (failed) or cannot-determine (xfailed: n = 0)."""

    node_id: Text
    requirement: Text = Field(description="as given, without spaces: gate-health>=0.8")
    dimension: Text
    minimum: Share
    bound: Literal["estimate", "lower"] = Field(
        description="estimate: the pass rate is judged; lower: the lower bound of its 95% Wilson interval"
    )
    result: Literal["met", "missed", "cannot-determine"]
    passed: Count = _named("pass")
    failed: Count = _named("fail")
    judged: Share | None = Field(description="the figure compared with the minimum; null when n = 0")
    failing: tuple[Text, ...] = Field(description="node ids of the first failing sessions")
    failing_total: Count


class RegressionResult(_Part):
    """This run's pass rate against the baseline's: a significant drop when the difference's 95% interval is below 0."""

    node_id: Text
    dimension: Text
    result: Literal["no-significant-drop", "significant-drop", "cannot-determine"]
    baseline_pass: Count
    baseline_fail: Count
    current_pass: Count
    current_fail: Count
    difference: Difference | None = Field(description="this run's pass rate minus the baseline's")
    low: Difference | None = Field(description="the difference's 95% interval (Newcombe's hybrid score)")
    high: Difference | None


class CauseCount(_Part):
    """Why some of a dimension's verdicts were not decided: how many had one status and one cause."""

    status: Literal["not-applicable", "cannot-determine"]
    cause: StrictStr | None = Field(description="the scorer's cause code (rubric-v1: peer-overlap, ...); null: none")
    count: Annotated[StrictInt, Field(ge=1)]
    text: Text = Field(description="what the code means, of the sessions it counts: 'without an events file'")


class DimensionSummary(_Part):
    """One dimension: counts per status, the pass rate over n = pass + fail and its 95% Wilson interval."""

    id: Text
    counts: StatusCounts
    n: Count
    pass_rate: Share | None
    low: Share | None = Field(description="the pass rate's 95% Wilson interval; null when n < 2")
    high: Share | None
    requirements: tuple[RequirementResult, ...] = ()
    regression: RegressionResult | None = None
    causes: tuple[CauseCount, ...] = Field(
        default=(),
        description="the causes of the not-applicable and cannot-determine verdicts scored in this run, "
        "cannot-determine first, then the most frequent first, as the terminal summary tells them",
    )

    @model_validator(mode="after")
    def _consistent(self) -> DimensionSummary:
        if self.n != self.counts.passed + self.counts.failed:
            raise ValueError("n must be pass + fail")
        return self


class EvalSummary(_Part):
    """The summary of one run (schema_version 1): one entry per dimension, no global score."""

    summary_kind: Literal["session-eval-summary"] = SUMMARY_KIND
    schema_version: Literal[1] = SCHEMA_VERSION
    standard_version: Text = STANDARD_VERSION
    rubric_version: Text
    rubric_sha256: Annotated[StrictStr, Field(pattern="^[0-9a-f]{64}$")]
    timestamp: Text
    gate: Literal["all", "requirements"] = Field(
        description="all: every failed item fails the run; requirements: only requirement and regression items"
    )
    dimensions: tuple[DimensionSummary, ...]

    @model_validator(mode="before")
    @classmethod
    def _no_global_score(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for key in FORBIDDEN_GLOBAL_SCORE_KEYS:
                if key in data:
                    raise ValueError(f"a summary must not carry a global score ({key!r})")
        return data


# A status and the cause code of some verdicts (``None``: the scorer gave none) -> how many.
CauseCounts = Mapping[tuple[str, "str | None"], int]

NO_CAUSE: Final = "with no cause given"


def ordered_causes(counts: CauseCounts) -> list[tuple[str, str | None, int]]:
    """The causes of undecided verdicts counted, as ``(status, code, count)``: cannot-determine before not-applicable,
    within a status the most frequent first, then by code (a verdict without one last)."""
    rank = {CANNOT_DETERMINE: 0, NOT_APPLICABLE: 1}
    found = [(status, code, count) for (status, code), count in counts.items() if count > 0 and status in rank]
    found.sort(key=lambda entry: (rank[entry[0]], -entry[2], entry[1] is None, entry[1] or ""))
    return found


def cause_text(code: str | None, phrases: Mapping[str, str]) -> str:
    """What a cause code means (``phrases``: the rubric's), or the code itself when it has no phrase."""
    if code is None:
        return NO_CAUSE
    return printable(phrases.get(code) or code) or NO_CAUSE


def told_causes(counts: CauseCounts, phrases: Mapping[str, str]) -> list[tuple[str, int, str]]:
    """Per status, in order, its verdicts counted and their causes told:
    ``("cannot-determine", 3, "2 whose window overlaps another session's ...; 1 without an events file")``."""
    told: dict[str, tuple[int, list[str]]] = {}
    for status, code, count in ordered_causes(counts):
        total, parts = told.get(status, (0, []))
        told[status] = (total + count, [*parts, f"{count} {cause_text(code, phrases)}"])
    return [(status, total, "; ".join(parts)) for status, (total, parts) in told.items()]


def dimension_summary(
    dimension: str,
    counts: Mapping[str, int],
    requirements: Sequence[RequirementResult] = (),
    regression: RegressionResult | None = None,
    causes: CauseCounts | None = None,
    phrases: Mapping[str, str] | None = None,
) -> DimensionSummary:
    """A dimension's entry from its counts per status, and the causes of its undecided
    verdicts (``causes``, told by the rubric's ``phrases``)."""
    passed, failed = counts.get("pass", 0), counts.get("fail", 0)
    n = passed + failed
    interval = wilson_interval(passed, n) if n >= 2 else None
    return DimensionSummary(
        id=dimension,
        counts=StatusCounts.from_mapping(counts),
        n=n,
        pass_rate=passed / n if n else None,
        low=interval[0] if interval else None,
        high=interval[1] if interval else None,
        requirements=tuple(requirements),
        regression=regression,
        causes=tuple(
            CauseCount.model_validate(
                {"status": status, "cause": code, "count": count, "text": cause_text(code, phrases or {})}
            )
            for status, code, count in ordered_causes(causes or {})
        ),
    )


class InvalidSummary(ValueError):
    """Bytes that are no summary; the message names each wrong field."""


def read_summary(data: bytes) -> EvalSummary:
    """A summary written by ``summary_json``; raises ``InvalidSummary`` naming each wrong field."""
    try:
        return EvalSummary.model_validate(orjson.loads(data))
    except orjson.JSONDecodeError as exc:
        raise InvalidSummary(f"not JSON ({exc})") from None
    except ValidationError as exc:
        problems = []
        for error in exc.errors(include_url=False):
            where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in error["loc"])
            problems.append(f"{where.lstrip('.') or 'summary'}: {str(error['msg']).removeprefix('Value error, ')}")
        raise InvalidSummary("; ".join(problems)) from None


def summary_json(summary: EvalSummary) -> bytes:
    """The summary as indented JSON, under the names its schema gives."""
    return orjson.dumps(summary_dict(summary), option=orjson.OPT_INDENT_2) + b"\n"


def summary_dict(summary: EvalSummary) -> dict[str, Any]:
    """The summary as plain JSON values (as pytest-json-report carries it)."""
    return summary.model_dump(mode="json", by_alias=True)


JSON_SCHEMA_TITLE: Final = "aiat-llm-eval/1.0 session-eval summary (schema_version 1)"


def summary_json_schema() -> dict[str, Any]:
    """The JSON Schema of the summary, as exported to ``docs/eval-summary.schema.json``."""
    schema = EvalSummary.model_json_schema(by_alias=True)
    schema["title"] = JSON_SCHEMA_TITLE
    schema["description"] = (
        "The per-dimension summary of one pytest-sessioneval run: counts per rubric status, the pass "
        "rate over n = pass + fail with its 95% Wilson interval (null when n < 2), and the results of "
        "requirements and regression checks. No top-level overall/total/mean/global_score: each "
        "dimension stands alone. The plugin also checks that n is pass + fail."
    )
    schema["not"] = {"anyOf": [{"required": [key]} for key in FORBIDDEN_GLOBAL_SCORE_KEYS]}
    type_every_const(schema)  # as the record's schema: the same whichever pydantic exports it
    return schema


def rate_text(passed: int, failed: int) -> str:
    """A pass rate and its n: ``0.86 (n = 7)``, or ``n = 0, no pass rate``."""
    n = passed + failed
    return f"{passed / n:.2f} (n = {n})" if n else NO_RATE


def _interval_text(entry: DimensionSummary) -> str:
    if entry.low is not None and entry.high is not None:
        return f"{entry.low:.2f}\u2013{entry.high:.2f}"
    return NO_INTERVAL if entry.n == 1 else ""


# Markdown that a cell's text must not start: each is written with a backslash before it.
_MARKDOWN_SPECIALS: Final = frozenset("\\|`*_[]<>&#")


def markdown_cell(text: str) -> str:
    """Text as one table cell of GitHub-flavoured Markdown: it shows as written."""
    shown = text if text.isprintable() else escape_name(text)
    return "".join(f"\\{c}" if c in _MARKDOWN_SPECIALS else c for c in shown)


def _row(*cells: str) -> str:
    return "| " + " | ".join(cells) + " |"


def summary_markdown(summary: EvalSummary) -> str:
    """The summary as Markdown tables (a heading, the dimensions, then the requirements and the
    regression checks, when there are any), as CI pages such as GitHub's step summary show it."""
    lines = [
        f"### Session evaluation ({markdown_cell(summary.rubric_version)})",
        "",
        _row("dimension", "pass", "fail", "not-applicable", "cannot-determine", "pass rate", "n", "95% CI"),
        _row("---", "---:", "---:", "---:", "---:", "---:", "---:", "---"),
    ]
    for entry in summary.dimensions:
        counts = entry.counts
        lines.append(
            _row(
                markdown_cell(entry.id),
                str(counts.passed),
                str(counts.failed),
                str(counts.not_applicable),
                str(counts.cannot_determine),
                "" if entry.pass_rate is None else f"{entry.pass_rate:.2f}",
                str(entry.n),
                _interval_text(entry),
            )
        )
    lines += ["", "Pass rate = pass / (pass + fail). Each dimension stands alone: there is no global score."]
    requirements = [r for entry in summary.dimensions for r in entry.requirements]
    if requirements:
        lines += ["", _row("requirement", "result", "judged", "failing sessions"), _row("---", "---", "---:", "---")]
        for requirement in requirements:
            failing = ", ".join(markdown_cell(node_id) for node_id in requirement.failing)
            more = requirement.failing_total - len(requirement.failing)
            lines.append(
                _row(
                    markdown_cell(requirement.requirement),
                    requirement.result,
                    "" if requirement.judged is None else f"{requirement.judged:.2f}",
                    failing + (f" and {more} more" if more else ""),
                )
            )
    regressions = [entry.regression for entry in summary.dimensions if entry.regression is not None]
    if regressions:
        lines += [
            "",
            _row("regression", "result", "baseline", "this run", "difference", "95% CI"),
            _row("---", "---", "---", "---", "---:", "---"),
        ]
        for regression in regressions:
            lines.append(
                _row(
                    markdown_cell(regression.dimension),
                    regression.result,
                    rate_text(regression.baseline_pass, regression.baseline_fail),
                    rate_text(regression.current_pass, regression.current_fail),
                    "" if regression.difference is None else signed(regression.difference),
                    ""
                    if regression.low is None or regression.high is None
                    else f"{signed(regression.low)} to {signed(regression.high)}",
                )
            )
    return "\n".join(lines) + "\n"


def signed(value: float) -> str:
    """``+0.12``, ``-0.05``, ``0.00``: a difference, signed so that a drop reads as one."""
    text = f"{value:+.2f}"
    return text[1:] if math.isclose(float(text), 0.0, abs_tol=1e-12) else text
