"""The one item base for every line of a data file (a session's verdicts, a journal's
records), and the file collector that makes them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..core.text import printable
from ._compat import DeferredNodeId, failure_text
from .facts import ITEM_KEYWORD, ItemFacts

__all__ = ["LineFile", "LineItem"]


class LineItem(DeferredNodeId, pytest.Item):
    """An item that stands for one line of a data file, described by its ``facts``."""

    wire_safe_texts = True  # its report texts are made printable, so wire_safe (xdist.WireSafeTexts)

    def __init__(self, *, facts: ItemFacts, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.facts = facts
        self.keywords[ITEM_KEYWORD] = True
        self.extra_keyword_matches.add(ITEM_KEYWORD)
        self.user_properties.extend(facts.properties())

    @property
    def line(self) -> int:
        """The line of the data file the item stands for."""
        return self.facts.line

    def metadata(self) -> dict[str, Any]:
        """What JSON reports carry for this item (under ``metadata.session_eval``)."""
        return self.facts.metadata()

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.line - 1, self.name

    @property
    def where(self) -> str:
        """``file:line`` of the record, the file relative to the rootdir as in node ids."""
        return f"{self.location[0]}:{self.line}"

    def failure(self, headline: str, detail: str) -> Any:
        """The failure text: ``headline`` first (what failed, in the data's terms: the line the
        short summary and ``--tb=line`` show), then ``detail``, which names ``file:line``."""
        headline, detail = printable(headline), printable(detail, lines=True)
        one_line = self.config.option.tbstyle == "line"
        return failure_text(self.location[0], self.line, headline, [headline, detail], one_line=one_line)


class LineFile(pytest.File):
    """A data file whose items are ``LineItem``s."""

    def child(self, kind: type[LineItem], name: str, **kwargs: Any) -> LineItem:
        # The node id is given as text so that pytest parses the ``[...]`` part as
        # parameters, exactly as it parses the ids it prints (and caches for --lf).
        return kind.from_parent(self, name=name, nodeid=f"{self.nodeid}::{name}", **kwargs)
