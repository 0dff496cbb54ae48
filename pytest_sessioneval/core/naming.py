"""Node names that survive any id found in the data (sessions, runs, dimensions, scenarios).

pytest splits a node id on ``::`` and cuts the parametrisation at the first
``[``, so an id is escaped before it becomes part of a node name: backslash,
brackets, the second colon of ``::``, the HTML specials ``<>&"'``, control characters
and non-ASCII text become backslash escapes of their code (much as pytest escapes parametrize
ids, but a tab is ``\x09``, not ``\t``). The mapping
is injective, so every session keeps its own node id, and it is printable, so a
node id copied from pytest's output selects exactly its item.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

__all__ = ["escape_name", "unique_name"]

_SAFE: Final = re.compile(r"[A-Za-z0-9._\-@+=,;/#%()!?*~^${}|` ]*", re.ASCII)
# Brackets would end the name's own part; the HTML specials are escaped too, since some
# reports (pytest-html) write node ids into their pages as they are.
_ESCAPES: Final = {
    "\\": "\\\\",
    "[": "\\x5b",
    "]": "\\x5d",
    "<": "\\x3c",
    ">": "\\x3e",
    "&": "\\x26",
    '"': "\\x22",
    "'": "\\x27",
}


def escape_name(text: str) -> str:
    """Escape ``text`` (a session id, a dimension id...) for use in a node name."""
    if _SAFE.fullmatch(text):
        return text
    out: list[str] = []
    previous_colon = False
    for char in text:
        code = ord(char)
        if char == ":":
            out.append("\\x3a" if previous_colon else ":")
            previous_colon = not previous_colon
            continue
        previous_colon = False
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif 0x20 <= code < 0x7F:
            out.append(char)
        elif code < 0x100:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return "".join(out)


def unique_name(taken: set[str], spell: Callable[[int], str]) -> str:
    """The first of ``spell(1)``, ``spell(2)``... that is not in ``taken``, added to it: so that
    two items of one file never share a node id, whatever ids the data spells."""
    n = 1
    while (name := spell(n)) in taken:
        n += 1
    taken.add(name)
    return name
