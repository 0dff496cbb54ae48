"""The one table of characters no report shows as they are (core.text.printable)."""

from __future__ import annotations

import enum

import pytest

from pytest_sessioneval.core.text import plain_text, printable, show
from pytest_sessioneval.core.values import plain_number
from pytest_sessioneval.report.escape import html_text


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("a\x00b\x1b[31mred", "a\\x00b\\x1b[31mred"),
        ("\t\n\r", "\\x09\\x0a\\x0d"),
        ("\x7f\x85\x9b", "\\x7f\\x85\\x9b"),
        ("x\ud800", "x\\ud800"),
        ("ok\u202e1-dab\u2066", "ok\\u202e1-dab\\u2066"),
        ("\ufdd0\U0001fffe", "\\ufdd0\\U0001fffe"),
        ("plain é ü \u3000 \u00a0 \u2028", "plain é ü \u3000 \u00a0 \u2028"),  # not controls: kept
    ],
)
def test_printable_escapes_controls_surrogates_noncharacters_and_bidi_controls(text: str, shown: str) -> None:
    assert printable(text) == shown
    assert printable(shown) == shown  # what it gives is printable: escaping twice changes nothing


def test_text_in_lines_keeps_its_tabs_and_line_breaks_and_the_page_reads_the_same_table() -> None:
    assert printable("a\tb\nc\r\x1b", lines=True) == "a\tb\nc\r\\x1b"
    assert html_text("a\tb\n<\x1b\u202e") == "a\tb\n&lt;\\x1b\\u202e"


def test_show_escapes_what_json_leaves_as_it_is() -> None:
    assert show("a\x1b\x9b\u202e\x7f") == '"a\\u001b\\x9b\\u202e\\x7f"'
    assert show(["\x85"]) == '["\\x85"]'


def test_plain_values_of_subclasses() -> None:
    class Status(str, enum.Enum):
        PASS = "pass"

    class Score(float):
        pass

    class Count(int):
        pass

    for given, plain in ((Status.PASS, "pass"), (type("Text", (str,), {})("e"), "e")):
        value = plain_text(given)
        assert type(value) is str and value == plain
    assert plain_text(3) is None
    assert type(plain_number(Score(0.5))) is float and plain_number(Score(0.5)) == 0.5
    assert type(plain_number(Count(3))) is int and plain_number(Count(3)) == 3
    for refused in (True, float("nan"), Score("inf"), "1", None):
        assert plain_number(refused) is None
