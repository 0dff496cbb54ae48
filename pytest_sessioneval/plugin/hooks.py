"""The hooks pytest calls: the ``sessioneval`` entry point.

Each hook hands its work to the module that owns it: ``options`` and ``settings`` read
and check what the user gave, ``run`` carries the run from session start to the
summary, and ``collection`` has the data files collected.
"""

from __future__ import annotations

from typing import Any

import pytest

from ..core.text import wire_safe
from . import html_columns
from .collection import add_collection_args, remember_default_args
from .gates import MARKER, GateItem
from .inifile import note_missed_ini_files
from .items import LineItem
from .options import OPTIONS, add_options, naming_options_as_given, on_command_line
from .run import RUN_KEY, SessionEvalRun
from .settings import read_settings, restore_line_limit
from .snapshot import snapshots
from .xdist import XdistBridge, register_wire_safety

__all__ = [
    "pytest_addhooks",
    "pytest_addoption",
    "pytest_cmdline_main",
    "pytest_configure",
    "pytest_json_runtest_metadata",
]

_MARKERS = (
    "deterministic: a deterministic rubric dimension of a scored session",
    "judge: an advisory, uncalibrated judge dimension of a scored session",
    f"{MARKER}: a requirement or regression item of the session evaluation, judging a dimension's pass rate",
)


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    add_options(parser)
    note_missed_ini_files(pluginmanager, OPTIONS)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Remember the paths pytest would collect before any plugin changes them."""
    remember_default_args(config)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Read the options (a bad one is a usage error) and register the run."""
    for line in _MARKERS:
        config.addinivalue_line("markers", line)
    if not config.pluginmanager.hasplugin("xdist"):
        config.addinivalue_line("markers", "xdist_group(name): group items on one pytest-xdist worker")
    with naming_options_as_given(config):
        settings = read_settings(config)
        if settings is None:
            return
        snapshots(config)  # held from here on; a worker holds what the controller fixed
        run = SessionEvalRun(settings)
        config.stash[RUN_KEY] = run
        config.pluginmanager.register(run, "session-eval-run")
        html_columns.register(config)
        typed = on_command_line(config, "--session-eval") or on_command_line(config, "--session-eval-verify")
        flag = "--session-eval-verify" if settings.verify_path else "--session-eval"
        add_collection_args(config, settings.collected_paths(), flag, from_ini=not typed)
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(XdistBridge(run), "session-eval-xdist")
    register_wire_safety(config)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    restore_line_limit(config)


@pytest.hookimpl(optionalhook=True)
def pytest_json_runtest_metadata(item: pytest.Item, call: pytest.CallInfo[None]) -> dict[str, Any] | None:
    """pytest-json-report: each item's verdict under ``metadata.session_eval``."""
    if isinstance(item, (LineItem, GateItem)):
        return {"session_eval": wire_safe(item.metadata())}  # the same with and without xdist
    return None
