"""How rubric-v1 reads JSON values: strict numbers, JavaScript truthiness, plain text."""

from __future__ import annotations

import math
from typing import Any, Final

import orjson

__all__ = ["JS_WHITESPACE", "SAFE_INTEGER", "as_double", "described", "exception_text", "is_blank", "is_number", "is_truthy", "is_utf8", "number_or_none", "show"]


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


def show(value: Any) -> str:
    """A value as it appears in the data (JSON text), for evidence and messages."""
    kind = type(value)
    if kind is int:
        try:
            return str(value)  # what orjson writes, and beyond 64 bits what it cannot
        except ValueError:  # over Python's 4,300-digit limit for int-to-text
            return f"(an integer of about {abs(value).bit_length() * 0.30103:.0f} digits)"
    if kind is float and not math.isfinite(value):
        # A number beyond the double range (1e400) reads as infinity; JSON cannot
        # write it (orjson would say null), so it is named as JavaScript names it.
        return "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # a lone surrogate, nesting beyond orjson's 255 levels, a foreign type
        pass
    # Decided by the value alone, not by how deep this interpreter's repr can go, so
    # that evidence (which re-verification compares) reads the same on every Python.
    if _nested_deeper_than(value, SHOWN_DEPTH):
        return f"(an {'array' if kind is list else 'object'} nested too deeply to show)"
    return described(value)


def described(value: Any) -> str:
    """``repr(value)`` for a value from code (a plugin's answer), or what it is when that fails."""
    try:
        return repr(value)
    except RecursionError:  # deep nesting in a type other than list and dict (from code, not data)
        return "(a value nested too deeply to show)"
    except Exception:  # noqa: BLE001  a foreign type whose repr raises
        return f"(a value of type {type(value).__name__} that cannot be shown)"


SHOWN_DEPTH: Final = 255  # about orjson's own limit: deeper arrays and objects are not shown


def _nested_deeper_than(value: Any, limit: int) -> bool:
    """Whether arrays and objects nest more than ``limit`` levels in ``value`` (no recursion)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        kind = type(item)
        if kind is list or kind is dict:
            if depth == limit:
                return True
            stack.extend((inner, depth + 1) for inner in (item if kind is list else item.values()))
    return False


def is_utf8(value: str) -> bool:
    """Whether ``value`` can be written as UTF-8: not when it holds a lone surrogate
    (JSON's ``\\ud800`` escapes, argv and the environment may hold one)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def exception_text(exc: BaseException) -> str:
    """An exception's text, or what Python's own traceback shows when its ``str()`` raises
    (an exception from a plugin's code, told in a message)."""
    try:
        return str(exc)
    except Exception:  # noqa: BLE001
        return "<exception str() failed>"
