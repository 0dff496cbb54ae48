"""End-to-end: pytest runs with --session-eval as a user would run it."""

from __future__ import annotations

import pytest
from builders import (
    DOCS,
)

from pytest_sessioneval.core.naming import escape_name
from pytest_sessioneval.plugin.options import OPTIONS, Option
from pytest_sessioneval.policy.plugin.options import OPTIONS as POLICY_OPTIONS


@pytest.mark.parametrize(
    ("session_id", "escaped"),
    [
        ("a::b", "a:\\x3ab"),
        ("x[1]", "x\\x5b1\\x5d"),
        ("é", "\\xe9"),
        ("tab\there", "tab\\x09here"),
        ("😀", "\\U0001f600"),
        ("back\\s", "back\\\\s"),
    ],
)
def test_the_escapes_usage_md_shows(session_id: str, escaped: str) -> None:
    assert escape_name(session_id) == escaped


@pytest.mark.parametrize("option", [*OPTIONS, *POLICY_OPTIONS], ids=lambda option: option.flag)
def test_every_option_is_documented_as_help_shows_it(option: Option) -> None:
    docs = "".join(path.read_text(encoding="utf-8") for path in sorted(DOCS.glob("*.md")))
    shown = option.flag if option.metavar is None else f"{option.flag} {option.metavar}"
    assert f"`{shown}" in docs, f"no doc shows {shown!r} as --help does"
    assert f"`{option.ini}" in docs, f"no doc names the ini key {option.ini}"
