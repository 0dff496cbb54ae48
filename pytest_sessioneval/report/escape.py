"""Text from the data made safe for an HTML page, in text and in attributes alike."""

from __future__ import annotations

import html
from typing import Final

__all__ = ["html_text"]


# Characters an HTML page may not hold (C0 controls but tab and newlines, DEL, C1 controls,
# lone surrogates, the noncharacters of every plane), and the bidirectional controls that
# would let one id display as another (U+202E turns what follows around): shown as the
# escapes a node id uses.
_UNPRINTABLE: Final = {
    code: f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
    for code in (
        *(c for c in range(0x20) if c not in (0x09, 0x0A, 0x0D)),
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


def html_text(value: object) -> str:
    """Escape any value for HTML text and (double- or single-quoted) attribute values;
    characters a page may not hold are shown as escapes (``\\x00``)."""
    return html.escape(str(value).translate(_UNPRINTABLE), quote=True)
