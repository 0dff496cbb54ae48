"""Reading JSON Lines input: one object per line, bad lines reported, never fatal."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from json.decoder import scanstring  # type: ignore[attr-defined]  # the C string reader
from pathlib import Path
from typing import Any, Final, NamedTuple

import orjson

from .io import bounded_lines, byte_order_mark, read_lines
from .text import NAMED_PROBLEMS, byte_size, show
from .values import is_blank

__all__ = [
    "FirstNamed",
    "InputProblem",
    "UnreadableTimestamps",
    "decode_object",
    "encoding_problem",
    "first_named",
    "iter_objects",
    "opens_json_document",
    "over_the_limit",
    "shown_timestamp",
    "timestamp_problem",
]


@dataclass(frozen=True, slots=True)
class InputProblem:
    """A line of an input file that could not be used, and why."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass(slots=True)
class UnreadableTimestamps:
    """The timestamps of one file that cannot be read, in fields the rubric reads (a session's
    ``started_at`` and ``completed_at``, an event's ``timestamp``): counted, the first few kept."""

    path: str
    count: int = 0
    first: list[tuple[int, str, object]] = field(default_factory=list)  # (line, field, value)

    def add(self, line: int, name: str, value: object) -> None:
        """Count the value of field ``name`` on ``line`` (``None``: missing or null)."""
        self.count += 1
        if len(self.first) < NAMED_PROBLEMS:
            self.first.append((line, name, value))

    def named(self, where: str) -> list[str]:
        """The first few, each as ``<where>:<line> <field> <value>``."""
        return [f"{where}:{line} {name} {shown_timestamp(value)}" for line, name, value in self.first]


def shown_timestamp(value: object) -> str:
    """A timestamp value that cannot be read, as a message shows it: text quoted
    (``'2026-13-01'``), other JSON as the data spells it, and ``missing`` for none."""
    if value is None:
        return "missing"
    return repr(value) if type(value) is str else show(value)


def timestamp_problem(name: str, value: object) -> str:
    """Why a timestamp field gives no instant: ``no started_at``, or
    ``started_at '2026-13-01' is not a timestamp``."""
    return f"no {name}" if value is None else f"{name} {shown_timestamp(value)} is not a timestamp"


def over_the_limit(size: int, limit: int) -> str:
    """Why a line longer than the line limit is not read."""
    return f"line is {size} bytes, over the {byte_size(limit)} limit (--session-eval-max-line-bytes); line skipped"


def encoding_problem(path: Path) -> str | None:
    """Why a file in another encoding than UTF-8 (told by its byte order mark) is not read, said
    once for the whole file; ``None`` for any other. Raises ``OSError``."""
    encoding = byte_order_mark(path)
    if encoding is None:
        return None
    return f"file is {encoding} (it starts with a {encoding} byte-order mark): save the file as UTF-8; file skipped"


class InputWarning(UserWarning):
    """Lines of the inputs could not be used and were skipped (``score_sessions``)."""


_KIND = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean"}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


_INT64_MIN, _UINT64_END = -(1 << 63), 1 << 64


def _parse_int(text: str) -> int | float:
    """An integer literal as orjson reads it: exact within 64 bits, else the nearest double.

    Beyond about 309 digits that double is infinity, as in JavaScript, so it is no
    number; and no digit count is refused (Python's int() refuses over 4,300 digits).
    """
    if len(text) <= 21:
        value = int(text)
        if _INT64_MIN <= value < _UINT64_END:
            return value
    return float(text)


_SPACE: Final = re.compile(r"[ \t\n\r]*")
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERALS: Final = (("true", True), ("false", False), ("null", None))


def _decode_deep(text: str) -> Any:
    """Decode JSON nested to any depth, with an explicit stack instead of recursion.

    Both fast decoders stop at about a thousand levels; JavaScript's does not. The
    rules are the standard library decoder's (strings by its own ``scanstring``,
    integers by ``_parse_int``, a repeated key's last value wins, no ``NaN``).
    Only lines those decoders gave up on for their depth come here.
    """

    space = _SPACE.match

    def skip(at: int) -> int:
        """Where the text after any JSON whitespace at ``at`` starts."""
        return space(text, at).end()  # type: ignore[union-attr]  # the pattern matches everywhere

    def fail(message: str, at: int) -> json.JSONDecodeError:
        return json.JSONDecodeError(message, text, at)

    def key_at(at: int) -> tuple[str, int]:
        """The object key starting at ``at`` (after spaces) and where its value starts."""
        at = skip(at)
        if text[at : at + 1] != '"':
            raise fail("Expecting property name enclosed in double quotes", at)
        key, at = scanstring(text, at + 1, True)
        at = skip(at)
        if text[at : at + 1] != ":":
            raise fail("Expecting ':' delimiter", at)
        return key, at + 1

    # Each open container with the key its next value goes under (None in an array).
    stack: list[tuple[dict[str, Any] | list[Any], str | None]] = []
    at = 0
    while True:
        at = skip(at)
        char = text[at : at + 1]
        value: Any
        if char == "{":
            after = skip(at + 1)
            if text[after : after + 1] != "}":
                first, at = key_at(at + 1)
                stack.append(({}, first))
                continue
            value, at = {}, after + 1
        elif char == "[":
            after = skip(at + 1)
            if text[after : after + 1] != "]":
                stack.append(([], None))
                at += 1
                continue
            value, at = [], after + 1
        elif char == '"':
            value, at = scanstring(text, at + 1, True)
        elif (number := _NUMBER.match(text, at)) is not None:
            fraction, exponent = number.groups()
            value = float(number.group()) if fraction or exponent else _parse_int(number.group())
            at = number.end()
        else:
            for word, value in _LITERALS:  # noqa: B007  the value found is used after the loop
                if text.startswith(word, at):
                    at += len(word)
                    break
            else:
                raise fail("Expecting value", at)
        # Put the value in its container; close every container that ends here.
        while True:
            if not stack:
                at = skip(at)
                if at != len(text):
                    raise fail("Extra data", at)
                return value
            container, key = stack[-1]
            if key is None:
                container.append(value)  # type: ignore[union-attr]
            else:
                container[key] = value  # type: ignore[call-overload]
            at = skip(at)
            char = text[at : at + 1]
            if char == ",":
                if key is not None:
                    stack[-1] = (container, (next_key := key_at(at + 1))[0])
                    at = next_key[1]
                else:
                    at += 1
                break
            if char != ("]" if key is None else "}"):
                raise fail("Expecting ',' delimiter", at)
            stack.pop()
            value, at = container, at + 1


def decode_object(raw: bytes) -> dict[str, Any] | str:
    """Decode one line: the object, or a message saying why it is not one.

    orjson refuses a few lines that are valid JSON (numbers beyond the double
    range such as ``1e400``, lone surrogate escapes, nesting beyond 1,024 levels)
    and lines with invalid UTF-8, which the reference reads with replacement
    characters. Those fall back to the standard library's decoder (and past its
    depth limit to ``_decode_deep``), so every line JSON allows is read.
    """
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        text = raw.rstrip(b"\r\n")  # so that the message speaks of the line, not its newline
        decoded = text.decode("utf-8", errors="replace")
        try:
            try:
                value = json.loads(decoded, parse_constant=_reject_constant, parse_int=_parse_int)
            except RecursionError:
                value = _decode_deep(decoded)
        except json.JSONDecodeError as exc:  # its own "line 1" would contradict the file's line
            at = "" if exc.msg.endswith(" at") else " at"
            return f"not valid JSON ({exc.msg}{at} column {exc.colno}); line skipped"
        except ValueError as exc:
            return f"not valid JSON ({exc}); line skipped"
    if type(value) is not dict:
        kind = "null" if value is None else _KIND.get(type(value), type(value).__name__)
        return f"not a JSON object (found {kind}); line skipped"
    return value


def iter_objects(
    path: Path, problems: list[InputProblem], max_line: int | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for every usable line of a JSONL file.

    Blank lines are ignored; each other unusable line is appended to ``problems``.
    The caller opens nothing: a missing or unreadable file raises ``OSError``.
    ``max_line``: the longest line read (default: the line limit in force).
    """
    for number, _, decoded in iter_lines(path, problems, max_line):
        yield number, decoded


def opens_json_document(path: Path, max_line: int | None = None) -> bool:
    """Whether the file is one JSON document written over several lines (an array, or an
    object whose first line does not close it) rather than JSON Lines: its first line that
    is not blank opens an array or an object that it leaves open, and, for an object, a
    next line not beginning another object continues it. (A line that closes what it opens
    is a line of JSON Lines, valid or not: an array on one line holds no object, and
    ``{"a": NaN}`` or ``{"a": 1,}`` is a bad record. A lone torn object, one followed by
    objects, or one whose line ends inside a string, is JSON Lines that a crash or a raw
    newline damaged.) A line over ``max_line`` (default: the line limit in force) is no
    opening. Raises ``OSError`` when the file cannot be read."""
    opening: list[bytes] = []
    for _, raw in read_lines(path, max_line):
        if type(raw) is int:
            return False  # too long to be read: the reader of the file says so
        assert type(raw) is bytes
        line = raw.strip().removeprefix(b"\xef\xbb\xbf").strip()
        if line:
            opening.append(line)
            if len(opening) == 2:
                break
    if not opening:
        return False
    first = opening[0]
    if first.startswith(b"{"):
        if len(opening) < 2 or opening[1].startswith(b"{"):
            return False
    elif not first.startswith(b"["):
        return False
    return _left_open(first)


# A JSON string, closed: every byte but a quote or a backslash, or a backslash and any byte.
_CLOSED_STRING: Final = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)


def _left_open(line: bytes) -> bool:
    """Whether ``line`` opens more arrays and objects than it closes, outside strings, and
    ends outside a string: no JSON text breaks a line inside a string, so a line that ends
    inside one is a record a raw newline tore."""
    try:
        orjson.loads(line)
        return False  # one whole value: the common case, told at C speed however long the line
    except orjson.JSONDecodeError:
        pass
    bare = _CLOSED_STRING.sub(b"", line)
    if b'"' in bare:  # a string left open
        return False
    return bare.count(b"[") + bare.count(b"{") > bare.count(b"]") + bare.count(b"}")


class FirstNamed(NamedTuple):
    """A file's first object that names one of some keys: the key, its line; and whether
    the file holds any object."""

    key: str | None
    line: int | None
    any_object: bool


def first_named(path: Path, keys: tuple[str, ...], max_line: int | None = None) -> FirstNamed:
    """What a JSONL file holds, by its first object that names any of ``keys``: the first of
    them (in that order) it names, and its line; objects naming none are looked past, and
    lines over ``max_line`` (default: the line limit in force) are not read.
    Raises ``OSError`` when the file cannot be read."""
    seen = False
    for number, record in iter_objects(path, [], max_line):
        seen = True
        for key in keys:
            if key in record:
                return FirstNamed(key, number, True)
    return FirstNamed(None, None, seen)


def iter_lines(
    path: Path, problems: list[InputProblem], max_line: int | None = None
) -> Iterator[tuple[int, bytes, dict[str, Any]]]:
    """Like ``iter_objects``, with each line's bytes (``decode_object`` of them gives the object).

    A file in UTF-16 or UTF-32 is one problem (at line 1), not one per line, and a line
    over the line limit is a problem, never held whole (``bounded_lines``).
    """
    if (encoded := encoding_problem(path)) is not None:
        problems.append(InputProblem(str(path), 1, encoded))
        return
    loads, decode_error = orjson.loads, orjson.JSONDecodeError
    with bounded_lines(path, max_line) as (numbered, limit, measured):
        for number, raw in numbered:
            if len(raw) > limit:  # (rare) the line may be over the limit
                line = measured(raw)
                if type(line) is not bytes:
                    assert type(line) is int  # an over-long line's length
                    problems.append(InputProblem(str(path), number, over_the_limit(line, limit)))
                    continue
                raw = line
            # The common case first, inline: a line orjson reads as an object.
            try:
                decoded = loads(raw)
            except decode_error:
                decoded = None
            if type(decoded) is not dict:
                if not raw or raw.isspace() or is_blank(raw.decode("utf-8", "replace")):
                    continue  # blank: nothing but whitespace as JavaScript's trim() sees it
                decoded = decode_object(raw)
                if type(decoded) is str:
                    problems.append(InputProblem(str(path), number, decoded))
                    continue
            yield number, raw, decoded
