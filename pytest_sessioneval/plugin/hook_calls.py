"""Asking this package's own hooks: the rubrics plugins register, and the judges.

Each implementation is asked on its own, so that a fault is told with its plugin's name
(a usage error); a hook wrapper would have nothing to wrap, so it is refused.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from ..core.rubric import Rubric, RubricError
from ..core.text import described, exception_text
from ..judge import Judge
from ..rubrics import RUBRIC_V1
from .options import usage_error

__all__ = ["judges", "registered_rubrics"]


def registered_rubrics(config: pytest.Config) -> tuple[dict[str, Rubric], dict[str, str]]:
    """rubric-v1 and every rubric the ``pytest_sessioneval_rubrics`` hook registers, and the
    name of the plugin that registered each of those (by version)."""
    rubrics: dict[str, Rubric] = {RUBRIC_V1.version: RUBRIC_V1}
    plugins: dict[str, str] = {}
    for impl in _asked_one_by_one(config, "pytest_sessioneval_rubrics", "--session-eval-rubric"):
        plugin = impl.plugin_name
        try:
            offered: Any = impl.function() or []
        except RubricError as exc:
            raise usage_error("--session-eval-rubric", f"plugin {plugin!r}: {exc}") from None
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001  the plugin's fault, said as such
            raise usage_error(
                "--session-eval-rubric",
                f"plugin {plugin!r}: its pytest_sessioneval_rubrics raised {type(exc).__name__}: {exception_text(exc)}",
            ) from None
        if not isinstance(offered, (list, tuple)):
            raise usage_error(
                "--session-eval-rubric",
                f"plugin {plugin!r} returned {described(offered)}; expected a list of Rubric objects",
            )
        for rubric in offered:
            if not isinstance(rubric, Rubric):
                raise usage_error(
                    "--session-eval-rubric", f"plugin {plugin!r} registered {described(rubric)}, not a Rubric"
                )
            if rubric.version in rubrics:
                raise usage_error(
                    "--session-eval-rubric", f"plugin {plugin!r}: rubric {rubric.version!r} is already registered"
                )
            if not rubric.text_path.is_file():
                raise usage_error(
                    "--session-eval-rubric", f"plugin {plugin!r}: rubric text {rubric.text_path} not found"
                )
            rubrics[rubric.version] = rubric
            plugins[rubric.version] = plugin
    return rubrics, plugins


def judges(config: pytest.Config) -> list[Judge]:
    """The ``pytest_sessioneval_judge`` implementations, each with its plugin's name."""

    def bound(impl: Any) -> Any:
        # As pluggy calls a hook: an implementation may leave out the argument (or give it a default).
        try:
            parameters = inspect.signature(impl.function).parameters
        except (TypeError, ValueError):  # no signature to read: call it as the spec says
            return lambda record: impl.function(record=record)
        takes = "record" in parameters or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
        if takes:
            return lambda record: impl.function(record=record)
        return lambda record: impl.function()

    return [
        (impl.plugin_name, bound(impl))
        for impl in reversed(_asked_one_by_one(config, "pytest_sessioneval_judge", "--session-eval-judge"))
    ]


def _asked_one_by_one(config: pytest.Config, hook: str, flag: str) -> list[Any]:
    """The implementations of one of this plugin's hooks, which it calls one at a time (to
    tell whose answer is whose): a hook wrapper would have nothing to wrap, so it is refused."""
    implementations = getattr(config.hook, hook).get_hookimpls()
    for impl in implementations:
        if impl.hookwrapper or getattr(impl, "wrapper", False):
            raise usage_error(
                flag,
                f"plugin {impl.plugin_name!r}: its {hook} is a hook wrapper; each implementation is asked on "
                "its own, so a wrapper has nothing to wrap: make it a plain implementation",
            )
    return list(implementations)
