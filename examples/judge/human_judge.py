"""An advisory judge backed by verdicts a human recorded in a JSONL file.

Load it as a plugin and point it at the file::

    PYTHONPATH=examples/judge pytest -p human_judge --human-verdicts examples/judge/human-verdicts.jsonl \
        --session-eval examples/metrics --session-eval-judge

Each line of the file is one verdict: ``{"session_id": ..., "id": "report-quality",
"status": "pass", "evidence": "..."}``. Sessions nobody reviewed get no judge
verdict (``None``); the plugin stamps every returned verdict advisory and
uncalibrated, so a reviewer's opinion never passes for a measurement.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

_VERDICTS = pytest.StashKey[dict[str, list[dict[str, Any]]]]()
_config: list[pytest.Config] = []


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--human-verdicts", metavar="PATH", help="JSONL file of verdicts a human recorded")
    parser.addini("human_verdicts", "JSONL file of verdicts a human recorded")


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("human_verdicts") or config.getini("human_verdicts")
    verdicts: dict[str, list[dict[str, Any]]] = {}
    if path:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise pytest.UsageError(f"--human-verdicts: {path}: cannot be read ({exc})") from None
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
                session_id = entry.pop("session_id") if isinstance(entry, dict) else None
            except (ValueError, KeyError, RecursionError) as exc:
                raise pytest.UsageError(f"--human-verdicts: {path}:{number}: not a verdict ({exc})") from None
            if not isinstance(session_id, str):
                raise pytest.UsageError(
                    f"--human-verdicts: {path}:{number}: not a verdict (an object with a session_id string)"
                )
            verdicts.setdefault(session_id, []).append(entry)
    config.stash[_VERDICTS] = verdicts
    _config.append(config)


def pytest_unconfigure(config: pytest.Config) -> None:
    if config in _config:  # not when another plugin's usage error stopped the run before this one's configure
        _config.remove(config)


def pytest_sessioneval_judge(record: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The reviewer's verdicts for this session, or None when nobody reviewed it."""
    return _config[-1].stash[_VERDICTS].get(record["session_id"])
