"""Text from the data made safe for an HTML page, in text and in attributes alike."""

from __future__ import annotations

import html

from ..core.text import printable

__all__ = ["html_text"]


def html_text(value: object) -> str:
    """Escape any value for HTML text and (double- or single-quoted) attribute values;
    characters a page may not hold, and bidirectional controls, are shown as escapes
    (``\\x00``: ``core.text.printable``, which keeps tabs and line breaks)."""
    return html.escape(printable(str(value), lines=True), quote=True)
