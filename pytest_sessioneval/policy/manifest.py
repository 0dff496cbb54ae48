"""Dataset manifests: what a dataset owner declares about a whole data file.

A manifest is a small JSON file beside the data (``prompts.manifest.json``
beside ``prompts.jsonl``). It declares the minimum number of records, the ids
that must be present and quotas: counts per label, per locale and per label
and locale, grouped by record fields the manifest names. Nothing here is
specific to one project; every number comes from the manifest.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any, Final

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    field_validator,
    model_validator,
)

from .envelope import FIELDS as SCENARIO_FIELDS
from .envelope import Count, Text, no_repeats

__all__ = [
    "CountRange",
    "DatasetManifest",
    "EnvelopeManifest",
    "GoldenManifest",
    "Quota",
    "Quotas",
    "describe_quota",
    "quota_admits",
    "undeclared_group_fields",
    "unknown_record_fields",
]


class CountRange(BaseModel):
    """A count between bounds: ``{"min": n}``, ``{"max": n}`` or both."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    min: Count | None = None
    max: Count | None = None

    @model_validator(mode="after")
    def _bounded(self) -> CountRange:
        if self.min is None and self.max is None:
            raise ValueError('a count range needs "min", "max" or both')
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min {self.min} is greater than max {self.max}")
        return self


def _show(value: Any) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _quota(value: Any) -> int | CountRange:
    """One quota, or one plain message saying what a quota is (rather than one per shape)."""
    if isinstance(value, CountRange):
        return value
    if type(value) is int:
        if value < 0:
            raise ValueError(f"a count is a whole number >= 0, not {value}")
        return value
    if type(value) is not dict:
        raise ValueError(
            f'a quota is a count (a whole number >= 0) or a count range {{"min": n, "max": m}}, not {_show(value)}'
        )
    unknown = sorted(set(value) - {"min", "max"})
    if unknown:
        raise ValueError(f'a count range has only "min" and "max", not {", ".join(map(repr, unknown))}')
    bounds = {key: value[key] for key in ("min", "max") if value.get(key) is not None}
    for key, bound in bounds.items():
        if type(bound) is not int or bound < 0:
            raise ValueError(f'"{key}" of a count range is a whole number >= 0, not {_show(bound)}')
    if not bounds:
        raise ValueError('a count range needs "min", "max" or both')
    if "min" in bounds and "max" in bounds and bounds["min"] > bounds["max"]:
        raise ValueError(f"min {bounds['min']} is greater than max {bounds['max']}")
    return CountRange(**bounds)


#: A quota: an exact count, or a :class:`CountRange`.
Quota = Annotated[Count | CountRange, PlainValidator(_quota)]


def quota_admits(quota: Quota, count: int) -> bool:
    """True if ``count`` meets the quota."""
    if isinstance(quota, int):
        return count == quota
    return (quota.min is None or count >= quota.min) and (quota.max is None or count <= quota.max)


def describe_quota(quota: Quota) -> str:
    """The quota in words: "exactly 10", "at least 2", "between 2 and 4"."""
    if isinstance(quota, int):
        return f"exactly {quota}"
    if quota.max is None:
        return f"at least {quota.min}"
    if quota.min is None:
        return f"at most {quota.max}"
    return f"between {quota.min} and {quota.max}"


class Quotas(BaseModel):
    """Counts per label, per locale and per label and locale, over two record fields."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    label_field: Text | None = Field(default=None, description="the record field that holds the label")
    locale_field: Text | None = Field(default=None, description="the record field that holds the locale")
    per_label: dict[str, Quota] = Field(default_factory=dict, description="label -> quota")
    per_locale: dict[str, Quota] = Field(default_factory=dict, description="locale -> quota")
    per_label_locale: dict[str, dict[str, Quota]] = Field(default_factory=dict, description="label -> locale -> quota")
    allow_undeclared: bool = Field(
        default=False,
        description="let records carry labels, locales and pairs no quota names (else each such record fails the quotas)",
    )

    @model_validator(mode="after")
    def _fields_declared(self) -> Quotas:
        problems = undeclared_group_fields(dict(self))
        if problems:
            raise ValueError("; ".join(problems))
        return self


# The rules that tie the members of quotas together, read from plain values: pydantic runs
# no validator of the whole once a member is invalid, so the manifest's loader asks them of
# the quotas as given too, and every problem is told at once.


def undeclared_group_fields(quotas: Mapping[str, Any]) -> list[str]:
    """The group fields that quotas need and do not declare."""
    problems = []
    if (quotas.get("per_label") or quotas.get("per_label_locale")) and quotas.get("label_field") is None:
        problems.append("per_label and per_label_locale quotas need label_field (the field to group by)")
    if (quotas.get("per_locale") or quotas.get("per_label_locale")) and quotas.get("locale_field") is None:
        problems.append("per_locale and per_label_locale quotas need locale_field (the field to group by)")
    return problems


def unknown_record_fields(quotas: Mapping[str, Any]) -> list[str]:
    """The group fields of an envelope set's quotas that are no field of a scenario record."""
    return [
        f"quotas group by {declared!r}, which is not a field of a scenario record "
        f"(the fields are: {', '.join(SCENARIO_FIELDS)})"
        for declared in (quotas.get("label_field"), quotas.get("locale_field"))
        if isinstance(declared, str) and declared not in SCENARIO_FIELDS
    ]


class DatasetManifest(BaseModel):
    """What every manifest may declare."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    description: str | None = Field(default=None, description="free text for the maintainers")
    min_records: Count | None = Field(default=None, description="the fewest records the file may hold")
    required_ids: Annotated[list[Text], AfterValidator(no_repeats)] = Field(
        default_factory=list, description="ids that must be present"
    )
    quotas: Quotas | None = Field(default=None, description="counts per label, per locale, per label and locale")


class EnvelopeManifest(DatasetManifest):
    """The manifest of an envelope set (``prompts.manifest.json``)."""

    golden_set: Text | None = Field(
        default=None, description="a golden set (JSON list of cases), relative to the manifest's directory"
    )

    @field_validator("quotas")
    @classmethod
    def _record_fields(cls, quotas: Quotas | None) -> Quotas | None:
        # A field validator (not one of the whole model): it is reported at the quotas' line,
        # also when another key of the manifest is invalid too.
        problems = [] if quotas is None else unknown_record_fields(dict(quotas))
        if problems:
            raise ValueError("; ".join(problems))
        return quotas


class GoldenManifest(DatasetManifest):
    """The manifest of a golden set (``golden.manifest.json`` beside ``golden.json``)."""

    rationale_required_for: list[Text] = Field(
        default_factory=lambda: ["negative"], description="groups whose cases need a rationale"
    )


DEFAULT_GOLDEN_MANIFEST: Final = GoldenManifest()
