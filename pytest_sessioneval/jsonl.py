"""Reading JSON Lines input: one object per line, bad lines reported, never fatal."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from .values import is_blank

__all__ = ["InputProblem", "decode_object", "iter_objects"]


@dataclass(frozen=True, slots=True)
class InputProblem:
    """A line of an input file that could not be used, and why."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


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


def decode_object(raw: bytes) -> dict[str, Any] | str:
    """Decode one line: the object, or a message saying why it is not one.

    orjson refuses a few lines that are valid JSON (numbers beyond the double
    range such as ``1e400``, lone surrogate escapes) and lines with invalid
    UTF-8, which the reference reads with replacement characters. Those fall
    back to the standard library's decoder, so every line JSON allows is read.
    """
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        text = raw.rstrip(b"\r\n")  # so that the message speaks of the line, not its newline
        try:
            value = json.loads(
                text.decode("utf-8", errors="replace"), parse_constant=_reject_constant, parse_int=_parse_int
            )
        except json.JSONDecodeError as exc:  # its own "line 1" would contradict the file's line
            at = "" if exc.msg.endswith(" at") else " at"
            return f"not valid JSON ({exc.msg}{at} column {exc.colno}); line skipped"
        except ValueError as exc:
            return f"not valid JSON ({exc}); line skipped"
        except RecursionError:
            return "nested too deeply to read (about a thousand levels or more); line skipped"
    if type(value) is not dict:
        kind = "null" if value is None else _KIND.get(type(value), type(value).__name__)
        return f"not a JSON object (found {kind}); line skipped"
    return value


def iter_objects(
    path: Path, problems: list[InputProblem]
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for every usable line of a JSONL file.

    Blank lines are ignored; each other unusable line is appended to ``problems``.
    The caller opens nothing: a missing or unreadable file raises ``OSError``.
    """
    for number, _, decoded in iter_lines(path, problems):
        yield number, decoded


def iter_lines(
    path: Path, problems: list[InputProblem]
) -> Iterator[tuple[int, bytes, dict[str, Any]]]:
    """Like ``iter_objects``, with each line's bytes (``decode_object`` of them gives the object)."""
    loads, decode_error = orjson.loads, orjson.JSONDecodeError
    with open(path, "rb") as stream:
        for number, raw in enumerate(stream, 1):
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
            yield number, raw, decoded  # type: ignore[misc]
