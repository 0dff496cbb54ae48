"""Reading policy data strictly: every record located, every fault a finding.

A policy-eval dataset is a curated fixture set, not a log, so this reader is
stricter than the one for recorded sessions: a blank line, bytes that are not
UTF-8, a line too long to be a record, text that is not JSON, a line that is
not one JSON object and an object that repeats a key are all faults, each tied
to its line. A fault never stops the reading: every other line is still read.

Nothing here knows what a record means; that is :mod:`.envelope`'s job.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from ..core.io import byte_order_mark, read_bytes, read_lines

__all__ = [
    "MAX_DOCUMENT_BYTES",
    "MAX_LINE_BYTES",
    "Document",
    "DocumentFault",
    "FaultCheck",
    "LineFault",
    "SourceLine",
    "describe_json",
    "parse_document",
    "read_json_document",
    "read_jsonl",
]

#: The longest line a record may take, newline excluded: a record is a few
#: kilobytes; a longer line is a pasted blob, and is reported, not parsed.
MAX_LINE_BYTES: Final = 1 << 20
#: The largest JSON document (golden set, manifest) read whole.
MAX_DOCUMENT_BYTES: Final = 16 << 20

FaultCheck = Literal["blank-line", "utf-8", "line-length", "json", "duplicate-key"]

_BOM: Final = b"\xef\xbb\xbf"
_WHITESPACE: Final = re.compile(r"[ \t\n\r]*")
_SCALARS: Final = json.JSONDecoder()
_KIND: Final = {
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    dict: "an object",
}


@dataclass(frozen=True, slots=True)
class SourceLine:
    """One record: the JSON object found at ``line`` (1-based)."""

    line: int
    value: dict[str, Any]


@dataclass(frozen=True, slots=True)
class LineFault:
    """A line that holds no usable record; ``message`` completes "line N ..."."""

    line: int
    check: FaultCheck
    message: str
    # The object a line still reads as, when only a repeated key keeps it from being a
    # record: its id still names what the line meant to define.
    value: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    # The line could not be read at all (not JSON, not UTF-8, too long): it could have held
    # any record. (A blank line, or JSON that is no object, was read and holds none.)
    unread: bool = field(default=False, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Document:
    """A parsed JSON document with the line of every member and element."""

    value: Any
    lines: dict[tuple[str | int, ...], int] = field(default_factory=dict)
    repeated: list[tuple[tuple[str | int, ...], int]] = field(default_factory=list)

    def line_of(self, *path: str | int) -> int | None:
        """The line where the member or element at ``path`` starts, if present."""
        return self.lines.get(path)


class DocumentFault(Exception):
    """A JSON document that cannot be used, located at its first bad line."""

    def __init__(self, line: int, check: FaultCheck, message: str) -> None:
        super().__init__(f"line {line} {message}")
        self.line = line
        self.check = check
        self.message = message


def describe_json(value: Any) -> str:
    """What kind of JSON value this is, in words ("an array", "null", ...)."""
    if value is None:
        return "null"
    return _KIND.get(type(value), type(value).__name__)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


class _LineIndex:
    """Turns an offset in a text into its 1-based line number."""

    def __init__(self, text: str) -> None:
        self._starts = [0, *(m.end() for m in re.finditer("\n", text))]

    def __call__(self, offset: int) -> int:
        return bisect_right(self._starts, offset)


def _skip(text: str, index: int) -> int:
    return _WHITESPACE.match(text, index).end()  # type: ignore[union-attr]


def _walk(text: str, index: int, path: tuple[str | int, ...], line_at: _LineIndex, found: Document) -> int:
    """Record the line of every member and element of the (valid) JSON value at ``index``."""
    index = _skip(text, index)
    opener = text[index]
    if opener == "{":
        index = _skip(text, index + 1)
        seen: set[str] = set()
        while text[index] != "}":
            line = line_at(index)
            key, index = json.decoder.scanstring(text, index + 1)  # type: ignore[attr-defined]
            if key in seen:
                found.repeated.append(((*path, key), line))
            seen.add(key)
            found.lines.setdefault((*path, key), line)
            index = _skip(text, index) + 1  # past the colon
            index = _skip(text, _walk(text, index, (*path, key), line_at, found))
            if text[index] == ",":
                index = _skip(text, index + 1)
        return index + 1
    if opener == "[":
        index = _skip(text, index + 1)
        position = 0
        while text[index] != "]":
            element = (*path, position)
            found.lines[element] = line_at(index)
            index = _skip(text, _walk(text, index, element, line_at, found))
            position += 1
            if text[index] == ",":
                index = _skip(text, index + 1)
        return index + 1
    return _SCALARS.raw_decode(text, index)[1]


_INTEGER_DIGITS: Final = 4300  # what Python converts by default; no count or id of this data comes near


class _LongInteger(ValueError):
    def __init__(self, digits: int) -> None:
        super().__init__(digits)
        self.digits = digits


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > _INTEGER_DIGITS:
        raise _LongInteger(digits)
    return int(text)


def parse_document(text: str, first_line: int = 1) -> Document:
    """Parse JSON text strictly; raise :class:`DocumentFault` for anything but plain JSON.

    ``first_line`` is the line of the file where ``text`` starts, so that a
    fault inside one JSONL record is reported at the file's line.
    """
    try:
        value = json.loads(text, parse_constant=_reject_constant, parse_int=_parse_int)
    except json.JSONDecodeError as exc:
        raise DocumentFault(
            first_line + exc.lineno - 1, "json", f"is not valid JSON: {exc.msg} at column {exc.colno}"
        ) from None
    except RecursionError:
        raise DocumentFault(first_line, "json", "nests JSON too deeply to be read") from None
    except _LongInteger as exc:
        raise DocumentFault(
            first_line,
            "json",
            f"holds an integer of {exc.digits:,} digits; integers of more than {_INTEGER_DIGITS:,} digits are not read",
        ) from None
    except ValueError as exc:  # NaN/Infinity
        raise DocumentFault(first_line, "json", f"is not plain JSON: {exc}") from None
    found = Document(value)
    line_at = _LineIndex(text)
    found.lines[()] = line_at(_skip(text, 0))  # where the document's value begins
    try:
        _walk(text, 0, (), line_at, found)
    except RecursionError:
        raise DocumentFault(first_line, "json", "nests JSON too deeply to be read") from None
    if first_line != 1:
        shift = first_line - 1
        found.lines.update({path: line + shift for path, line in found.lines.items()})
        found.repeated[:] = [(path, line + shift) for path, line in found.repeated]
    return found


def _decode(raw: bytes, line: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        text_before = raw[: exc.start]
        newlines = text_before.count(b"\n")
        column = exc.start - (text_before.rfind(b"\n") + 1) + 1
        raise DocumentFault(
            line + newlines,
            "utf-8",
            f"is not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {column}); save the file as UTF-8",
        ) from None


def _record(raw: bytes, line: int) -> SourceLine | LineFault:
    """Turn one line's bytes into a record or the fault that keeps it from being one."""
    if not raw.strip():
        return LineFault(line, "blank-line", "is blank; this format has no blank lines, remove it")
    try:
        document = parse_document(_decode(raw, line), line)
    except DocumentFault as fault:
        return LineFault(line, fault.check, fault.message, unread=True)
    if type(document.value) is not dict:
        return LineFault(
            line, "json", f"holds {describe_json(document.value)}, not a JSON object; each line is one object"
        )
    if document.repeated:
        keys = sorted({".".join(map(str, path)) for path, _ in document.repeated})
        return LineFault(
            line,
            "duplicate-key",
            f"repeats the key(s) {', '.join(map(repr, keys))} in one object; "
            "a JSON reader keeps only one of the values, so keep exactly one",
            document.value,
        )
    return SourceLine(line, document.value)


def _encoding_fault(path: Path) -> str | None:
    """Why a file in UTF-16 or UTF-32 (told by its byte order mark) is not read: one fault for
    the file, at its first line, rather than one per line."""
    encoding = byte_order_mark(path)
    if encoding is None:
        return None
    return f"starts a file in {encoding} (it starts with a {encoding} byte-order mark): save the file as UTF-8"


def read_jsonl(path: Path) -> list[SourceLine | LineFault]:
    """Every line of a JSON Lines file, as a record or a fault, in file order.

    Raises ``OSError`` if the file cannot be opened; the caller turns that into
    a usage error before collection.
    """
    encoded = _encoding_fault(path)
    if encoded is not None:
        return [LineFault(1, "utf-8", encoded, unread=True)]
    entries: list[SourceLine | LineFault] = []
    for number, raw in read_lines(path, MAX_LINE_BYTES, skip_bom=True):
        if isinstance(raw, int):
            entries.append(
                LineFault(
                    number,
                    "line-length",
                    f"is {raw} bytes long, over the {MAX_LINE_BYTES}-byte limit of one record; split or shorten it",
                    unread=True,
                )
            )
        else:
            entries.append(_record(raw, number))
    return entries


def read_json_document(path: Path) -> Document:
    """Read and parse a whole JSON file (a golden set or a manifest) strictly.

    Raises :class:`DocumentFault` for an unusable document, ``OSError`` if the
    file cannot be read.
    """
    encoded = _encoding_fault(path)
    if encoded is not None:
        raise DocumentFault(1, "utf-8", encoded)
    raw = read_bytes(path, MAX_DOCUMENT_BYTES + 1)
    if len(raw) > MAX_DOCUMENT_BYTES:
        raise DocumentFault(
            1, "line-length", f"starts a file over the {MAX_DOCUMENT_BYTES}-byte limit of one JSON document"
        )
    if raw.startswith(_BOM):
        raw = raw[len(_BOM) :]
    text = _decode(raw, 1)
    if not text.strip():
        raise DocumentFault(1, "json", "starts an empty file; it must hold one JSON document")
    return parse_document(text)
