"""How rubric-v1 reads JSON values: strict numbers and JavaScript's truthiness and trim."""

from __future__ import annotations

import math
from typing import Final

__all__ = [
    "JS_WHITESPACE",
    "SAFE_INTEGER",
    "as_double",
    "is_blank",
    "is_number",
    "is_truthy",
    "number_or_none",
    "plain_number",
]


# What JavaScript's String.prototype.trim removes: its WhiteSpace and LineTerminator
# characters (Python's str.strip differs: it keeps U+FEFF and removes U+001C..U+001F, U+0085).
JS_WHITESPACE: Final = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def is_blank(text: str) -> bool:
    """Whether ``text.trim()`` is empty in JavaScript."""
    return not text.strip(JS_WHITESPACE)


def is_number(value: object) -> bool:
    """A JSON number that is not a boolean and is finite (``"3"``, ``True``, ``None`` are not)."""
    kind = type(value)
    return kind is int or (kind is float and math.isfinite(value))  # type: ignore[arg-type]


def plain_number(value: object) -> int | float | None:
    """A finite number from code (a plugin's score), as a plain ``int`` or ``float`` that every
    report and pytest-xdist's wire carry: an instance of a subclass (an ``IntEnum``, a
    ``numpy.float64``) is taken as its value; ``None`` for anything else, booleans included."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        number = float.__float__(value)
        return number if math.isfinite(number) else None
    return None


SAFE_INTEGER: Final = 1 << 53  # JavaScript's Number.MAX_SAFE_INTEGER + 1: every integer up to it is a double


def as_double(value: int | float) -> int | float:
    """A number as JavaScript holds it: an integer beyond 2**53 in size becomes the nearest double.

    Within that range every integer is a double exactly, so it stays an ``int``.
    Values reported from the data (KPIs, scores) go through here, so that they
    equal the reference's.
    """
    if type(value) is int and not -SAFE_INTEGER <= value <= SAFE_INTEGER:
        try:
            return float(value)
        except OverflowError:  # only from code, never from a decoded line (see jsonl._parse_int)
            return math.inf if value > 0 else -math.inf
    return value


def number_or_none(value: object) -> int | float | None:
    """``value`` when it is a number, else ``None``."""
    return value if is_number(value) else None  # type: ignore[return-value]


def is_truthy(value: object) -> bool:
    """JavaScript truthiness of a JSON value: objects and arrays, even empty, are truthy."""
    if value is None or value is False:
        return False
    if type(value) in (int, float):
        return value == value and value != 0  # NaN is falsy
    if type(value) is str:
        return value != ""
    return True
