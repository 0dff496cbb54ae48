"""Command-line options and ini keys of policy evals: every option both ways, the command line first."""

from __future__ import annotations

from typing import Any, Final

import pytest

from ...plugin import options as shared
from ...plugin.options import Option

__all__ = ["OPTIONS", "add_options", "get_option", "on_command_line"]


OPTIONS: Final[tuple[Option, ...]] = (
    Option(
        "--policy-eval",
        "policy_eval_paths",
        "check a policy envelope set: a prompts.jsonl, or a directory holding one; repeatable",
        "paths",
        "PATH",
    ),
    Option(
        "--policy-manifest",
        "policy_manifest",
        "the envelope set's manifest (default: <stem>.manifest.json beside it); with one --policy-eval only",
        "path",
        "PATH",
    ),
    Option(
        "--policy-decisions",
        "policy_decisions",
        "JSONL of observed decisions, one per scenario id: adds a forward test per scenario",
        "path",
        "PATH",
    ),
)


def add_options(parser: pytest.Parser) -> None:
    """Register every policy option on the command line and as an ini key."""
    shared.add_options(parser, OPTIONS, "policy-eval", "policy-envelope datasets as tests (offline, deterministic)")


def get_option(config: pytest.Config, flag: str) -> Any:
    """The command-line value when given, else the ini value; paths come back absolute."""
    return shared.option_value(config, flag, OPTIONS)


def on_command_line(config: pytest.Config, flag: str) -> bool:
    """Whether ``flag`` was given on the command line (not only in the ini file)."""
    return shared.on_command_line(config, flag, OPTIONS)
