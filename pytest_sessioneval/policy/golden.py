"""Golden sets: a JSON list of labelled cases that sits beside an envelope set.

Each case has an ``id``, a ``group`` (its label, for example
``direct-positive`` or ``negative``) and a ``locale``; the cases of the groups
its manifest names in ``rationale_required_for`` also carry a ``rationale``.
Other fields (the prompt, notes) are the dataset owner's and are kept as they are.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .envelope import Text

__all__ = ["GoldenCase", "rationale_breach"]


class GoldenCase(BaseModel):
    """One case of a golden set; fields beyond these four are allowed."""

    model_config = ConfigDict(strict=True, extra="allow", frozen=True)

    id: Text = Field(description="a non-empty string, unique in the golden set")
    group: Text = Field(description="a non-empty string: the case's label, e.g. 'negative'")
    locale: Text = Field(description="a non-empty string: the case's locale, e.g. 'en'")
    rationale: Text | None = Field(default=None, description="a non-empty string saying why the case is labelled so")


def rationale_breach(values: Mapping[str, Any], required_for: Collection[str]) -> str | None:
    """What is wrong when a case of a group that needs a rationale has none, else ``None``."""
    group = values["group"]
    if group in required_for and not values.get("rationale"):
        return (
            f"the case is in group {group!r} but has no rationale; add a non-empty "
            "rationale saying why it belongs there"
        )
    return None
