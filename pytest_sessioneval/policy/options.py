"""Command-line options and ini keys of policy evals: every option both ways, the command line first."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

import pytest

__all__ = ["OPTIONS", "PolicyOption", "add_options", "get_option"]


@dataclass(frozen=True, slots=True)
class PolicyOption:
    """One setting: its command-line flag, its ini key and how it reads."""

    flag: str
    ini: str
    help: str
    kind: Literal["paths", "path"]
    metavar: str = "PATH"

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")


OPTIONS: Final[tuple[PolicyOption, ...]] = (
    PolicyOption(
        "--policy-eval",
        "policy_eval_paths",
        "check a policy envelope set: a prompts.jsonl, or a directory holding one; repeatable",
        "paths",
    ),
    PolicyOption(
        "--policy-manifest",
        "policy_manifest",
        "the envelope set's manifest (default: <stem>.manifest.json beside it); with one --policy-eval only",
        "path",
    ),
    PolicyOption(
        "--policy-decisions",
        "policy_decisions",
        "JSONL of observed decisions, one per scenario id: adds a forward test per scenario",
        "path",
    ),
)


def add_options(parser: pytest.Parser) -> None:
    """Register every policy option on the command line and as an ini key."""
    group = parser.getgroup("policy-eval", "policy-envelope datasets as tests (offline, deterministic)")
    for option in OPTIONS:
        action = "append" if option.kind == "paths" else "store"
        group.addoption(option.flag, dest=option.dest, action=action, default=None, metavar=option.metavar,
                        help=option.help)
        parser.addini(option.ini, f"{option.help} ({option.flag})",
                      type="paths" if option.kind == "paths" else "string", default=None)


def get_option(config: pytest.Config, flag: str) -> Any:
    """The command-line value when given, else the ini value; paths come back absolute.

    Command-line paths are relative to the invocation directory, ini paths to
    the ini file's directory.
    """
    option = next(option for option in OPTIONS if option.flag == flag)
    value = config.getoption(option.dest)
    if value is not None:
        if option.kind == "paths":
            return [Path(config.invocation_params.dir, item) for item in value]
        return Path(config.invocation_params.dir, value)
    value = config.getini(option.ini)
    if option.kind == "paths":
        return [Path(item) for item in value or []]
    if not value:
        return None
    base = config.inipath.parent if config.inipath else config.rootpath
    return Path(base, value)
