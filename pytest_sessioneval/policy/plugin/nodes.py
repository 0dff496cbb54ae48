"""pytest nodes of policy evals: a data file is a ``pytest.File``; each verdict one item."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ...core.text import wire_safe
from ..review import CheckResult

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

__all__ = ["PolicyCheckFailed", "PolicyCheckItem", "PolicyDataFile"]


class PolicyCheckFailed(Exception):
    """Raised by the item of a check that failed; its text is the verdict's detail."""


class PolicyDataFile(pytest.File):
    """An envelope set, a decisions file or a golden set, already reviewed.

    ``kind`` says which: ``envelope-set``, ``decisions`` or ``golden-set``.
    """

    def __init__(self, *, verdicts: Sequence[CheckResult], kind: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.verdicts = verdicts
        self.kind = kind

    def collect(self) -> Iterator[pytest.Item]:
        for verdict in self.verdicts:
            # The node id as text: pytest then reads a trailing ``[check]`` as parameters, so
            # that ``--lf`` and ``--sw`` find the item again from its printed id.
            yield PolicyCheckItem.from_parent(
                self, name=verdict.name, nodeid=f"{self.nodeid}::{verdict.name}", verdict=verdict
            )


class PolicyCheckItem(pytest.Item):
    """One check; its outcome was decided at collection (skips are markers)."""

    wire_safe_texts = True  # its report texts are made wire_safe (options.WireSafeTexts)

    def __init__(self, *, verdict: CheckResult, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.verdict = verdict
        self.add_marker(pytest.mark.policy_eval)
        if verdict.outcome == "skipped":
            self.add_marker(pytest.mark.skip(reason=verdict.detail))
        # A whole-file check has no scenario and no line: those properties are left out
        # (JUnit XML would write them as the text "None").
        self.user_properties.extend(
            (name, wire_safe(value))  # the same text with and without xdist
            for name, value in (
                ("policy_file", verdict.source.label),
                ("scenario_id", verdict.scenario_id),
                ("policy_check", verdict.check),
                ("line", verdict.line),
                ("detail", verdict.detail),
            )
            if value is not None
        )

    def metadata(self) -> dict[str, Any]:
        """What JSON reports carry for this item under ``metadata.policy_eval``."""
        verdict = self.verdict
        return {
            "file": verdict.source.label,
            "subject": verdict.subject,
            "scenario_id": verdict.scenario_id,
            "check": verdict.check,
            "line": verdict.line,
            "outcome": verdict.outcome,
            "detail": verdict.detail,
        }

    def runtest(self) -> None:
        if self.verdict.outcome == "failed":
            raise PolicyCheckFailed(self.verdict.detail)

    def reportinfo(self) -> tuple[Path, int, str]:
        # 0-based; a check of a whole file (line None) points at its top.
        line = self.verdict.line
        return self.verdict.source.path, (line - 1 if line else 0), self.name

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, PolicyCheckFailed):
            return self.verdict.detail
        return super().repr_failure(excinfo, style)
