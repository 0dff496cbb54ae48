"""End-to-end: pytest runs with --session-eval as a user would run it."""

from __future__ import annotations

import pytest
from builders import DOCS, ROOT

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


def _help(flag: str) -> str:
    return next(option.help for option in OPTIONS if option.flag == flag)


def test_the_help_says_what_an_option_does_and_needs() -> None:
    latest = _help("--session-eval-latest")
    assert "cascade" not in latest and "newest session" in latest and "last line back" in latest
    assert "--session-eval-model-id" in _help("--session-eval-journal")  # a journal record needs the model's id


def test_the_docs_install_from_a_checkout_or_a_wheel_while_no_index_serves_the_package() -> None:
    for path in (*DOCS.glob("*.md"), ROOT / "README.md"):
        text = path.read_text(encoding="utf-8")
        assert "pip install pytest-sessioneval" not in text, f"{path.name}: no index serves pytest-sessioneval"
    usage = (DOCS / "usage.md").read_text(encoding="utf-8")
    assert "pip install -e ." in usage and "pip wheel" in usage and "python -m build" in usage


def test_usage_md_leads_with_the_common_path_and_ends_with_the_edge_cases() -> None:
    headings = [line for line in (DOCS / "usage.md").read_text(encoding="utf-8").splitlines() if line.startswith("## ")]
    assert headings[:5] == [
        "## Install",
        "## Score a directory",
        "## Selecting",
        "## Reports",
        "## In CI: requirements, regressions and the gate",
    ]
    assert headings[-2:] == ["## Details and edge cases", "## Bad input"]
