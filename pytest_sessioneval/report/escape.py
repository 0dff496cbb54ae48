"""Text from the data made safe for an HTML page, in text and in attributes alike."""

from __future__ import annotations

import html

from ..core.text import printable

__all__ = ["html_text", "shown_text"]


def shown_text(value: object) -> str:
    """Any value as text a page may hold: the characters it may not, and bidirectional
    controls, are shown as escapes (``\\x00``: ``core.text.printable``, which keeps tabs and
    line breaks). For text the page's script sets as text, never as markup."""
    return printable(str(value), lines=True)


def html_text(value: object) -> str:
    """Escape any value for HTML text and (double- or single-quoted) attribute values,
    shown as ``shown_text`` shows it."""
    return html.escape(shown_text(value), quote=True)
