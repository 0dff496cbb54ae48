"""Hooks this plugin offers: an advisory judge, and further pre-registered rubrics.

Implement them in a ``conftest.py`` or a plugin::

    def pytest_sessioneval_judge(record):
        return [{"id": "report-quality", "status": "pass", "evidence": "specific, honest"}]

    def pytest_sessioneval_rubrics():
        return [Rubric(version="token-budget-v1", text_path=..., dimensions=(...,))]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from ..core.rubric import Rubric

hookspec = pluggy.HookspecMarker("pytest")


@hookspec
def pytest_sessioneval_judge(record: dict[str, Any]) -> list[dict[str, Any]] | None:
    """Judge one scored session; called once per session, only with ``--session-eval-judge``.

    :param record: the session's deterministic eval record (the ``session-eval``
        record of aiat-llm-eval/1.0: ``session_id``, ``kpis``, ``dimensions`` with
        their evidence, ...). A judge should reason over this slice only.
    :returns: ``None`` (no opinion), or a list of verdicts, each a dict with
        ``id`` (one of the rubric's pre-registered judge ids, e.g.
        ``instruction-adherence`` or ``report-quality``), ``status`` (``pass``,
        ``fail``, ``not-applicable``, ``cannot-determine``), ``evidence`` (text)
        and optionally ``score`` (a number or ``None``). A ``str`` subclass (a
        ``StrEnum``) is taken as its text, an ``int`` or ``float`` subclass as its
        number; control characters in the evidence are written as escapes.

    Whatever the hook returns, the plugin stamps ``method: "judge"``,
    ``advisory: true`` and ``calibration_status: "uncalibrated"`` itself. An id
    the rubric does not pre-register as a judge dimension is an error naming
    the plugin, and so is an answer that raises while it is read. A judge that raises, or exceeds ``--session-eval-judge-timeout``,
    turns its dimensions into ``cannot-determine`` with the reason. Judge
    verdicts are advisory: they never fail the run.
    """


@hookspec
def pytest_sessioneval_rubrics() -> list[Rubric] | None:
    """Register further rubrics, selectable with ``--session-eval-rubric VERSION``.

    :returns: a list of :class:`pytest_sessioneval.Rubric`: a version string,
        the path of its rubric text (hashed into ``provenance.rubric_sha256``),
        its ordered deterministic :class:`pytest_sessioneval.Dimension` objects
        (each a pure scorer ``SessionContext -> Verdict``) and its judge ids.

    A return value that is no list, a version that is already registered,
    dimension ids that are not text or collide, a missing rubric text, or a
    scorer answering anything but a :class:`Verdict` with one of the four
    statuses, text evidence and a number (or ``None``) as score is a usage error.
    """
