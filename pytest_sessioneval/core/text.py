"""Values and texts shown to people: data as the data spells it, a plugin's values and
exceptions, short accounts of many lines, and text fit for every report.

Pure: no pytest, no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

import orjson

__all__ = [
    "NAMED_PROBLEMS",
    "byte_size",
    "described",
    "exception_text",
    "first_few",
    "is_utf8",
    "plain_text",
    "printable",
    "printable_texts",
    "show",
    "wire_safe",
]


def show(value: Any) -> str:
    """A value as it appears in the data (JSON text), for evidence and messages; ``printable``,
    as JSON leaves DEL, the C1 and the bidirectional controls as they are."""
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
        return printable(orjson.dumps(value).decode())
    except TypeError:  # a lone surrogate, nesting beyond orjson's 255 levels, a foreign type
        pass
    # Decided by the value alone, not by how deep this interpreter's repr can go, so
    # that evidence (which re-verification compares) reads the same on every Python.
    if _nested_deeper_than(value, SHOWN_DEPTH):
        return f"(an {'array' if kind is list else 'object'} nested too deeply to show)"
    return described(value)


def byte_size(size: int) -> str:
    """A number of bytes as people write it: ``64 MiB``, ``1536 KiB``, ``1000 bytes``."""
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if size and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
    return f"{size} byte{'' if size == 1 else 's'}"


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


#: How many unusable lines a one-line account names (the summary, ``score_sessions``'s warning).
NAMED_PROBLEMS: Final = 3


def first_few(names: Sequence[str], limit: int = NAMED_PROBLEMS, separator: str = ", ") -> str:
    """The first ``limit`` names, then how many more there are: ``a, b, c and 4 more``.

    Every one-line account of many lines or groups is worded this way, so that it stays
    short however many there are (``separator`` parts names that hold commas themselves).
    """
    shown = separator.join(names[:limit])
    return shown if len(names) <= limit else f"{shown} and {len(names) - limit} more"


def wire_safe(value: Any) -> Any:
    """``value`` with every string encodable as UTF-8, as xdist's wire format needs.

    JSON text may hold lone surrogate escapes (``"\\ud800"``), which Python keeps
    in its strings but UTF-8 cannot carry: they travel as the escape's text.
    """
    if isinstance(value, str):
        return value if is_utf8(value) else value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {wire_safe(key): wire_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(wire_safe(item) for item in value)
    return value


# The one table of characters no report shows as they are: every C0 control, DEL, the C1
# controls, lone surrogates, the noncharacters of every plane, and the bidirectional controls
# that would let one text display as another (U+202E turns what follows around). Each is
# shown as the escape a node id uses (``\\x1b``, ``\\ud800``), so that a terminal, a page or
# a report file never acts on text from data or from a plugin (a judge's model output).
_UNPRINTABLE: Final[dict[int, str]] = {
    code: f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
    for code in (
        *range(0x20),
        *range(0x7F, 0xA0),
        *range(0xD800, 0xE000),
        *range(0xFDD0, 0xFDF0),
        *(plane + last for plane in range(0, 0x110000, 0x10000) for last in (0xFFFE, 0xFFFF)),
        0x061C,
        0x200E,
        0x200F,
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
    )
}
# The same, but keeping the tab and line breaks: for text laid out in lines (an HTML page).
_UNPRINTABLE_IN_LINES: Final = {code: escape for code, escape in _UNPRINTABLE.items() if code not in (0x09, 0x0A, 0x0D)}


def printable(text: str, *, lines: bool = False) -> str:
    """``text`` with every character of the table above shown as its escape (``\\x1b``);
    ``lines`` keeps tabs and line breaks. Every escaped character is one that
    ``str.isprintable`` refuses, so printable text is returned as it is, at once."""
    if text.isprintable():
        return text
    return text.translate(_UNPRINTABLE_IN_LINES if lines else _UNPRINTABLE)


def printable_texts(value: Any) -> Any:
    """``value`` with every text in it (at any depth of tuples and lists) ``printable``,
    keeping its line breaks: a report's texts (pytest's ``longrepr``), shown as they are."""
    if isinstance(value, str):
        return printable(value, lines=True)
    if isinstance(value, (list, tuple)):
        return type(value)(printable_texts(item) for item in value)
    return value


def plain_text(value: object) -> str | None:
    """A ``str`` (or an instance of a subclass: a ``StrEnum``...) as a plain ``str`` that any
    report, and pytest-xdist's wire, can carry; ``None`` for anything else."""
    return str.__str__(value) if isinstance(value, str) else None
