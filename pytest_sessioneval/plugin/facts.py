"""What an item of a data file stands for: the one description every report reads.

An item's ``ItemFacts`` become its JUnit XML properties (``user_properties``, which
travel on the report, so they survive pytest-xdist) and its pytest-json-report metadata;
on the controller, the terminal summary and the pytest-html columns read them back from
the report with ``ItemFacts.from_properties``. A new report field is one edit here: a
field of ``ItemFacts`` and the kinds that carry it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final, Literal

from ..core.text import printable, wire_safe

__all__ = ["ITEM_KEYWORD", "ItemFacts", "Kind"]

#: A keyword every item of this plugin carries: ``-k session_eval`` selects them, and the
#: summary and the pytest-html columns read only reports that carry it.
ITEM_KEYWORD: Final = "session_eval"

Kind = Literal[
    "verdict",  # a dimension's verdict for a scored session
    "not-scored",  # a session the eligibility rule leaves out
    "no-session-id",  # a record without a usable session_id
    "stored",  # a verdict of a journal given as input, as stored
    "verified",  # a stored verdict re-scored from the current metrics
    "verified-record",  # a stored record's own fields re-scored
    "unreadable",  # a journal line re-verification cannot read
    "invalid-record",  # a journal record the schema refuses
    "seal",  # a line of a journal's seal: one run's records, checked
]

# What each kind carries, in order: as JUnit properties (a field without a value is left
# out: JUnit XML would write Python's None) and as JSON metadata (which keeps it, as null).
_STORED: Final = ("run_id", "session_id", "dimension", "method", "status", "score")
_PROPERTIES: Final[dict[str, tuple[str, ...]]] = {
    "verdict": (
        "session_id",
        "dimension",
        "method",
        "status",
        "score",
        "evidence",
        "cause",
        "scored_on_request",
        "line",
        "started_at",
        "rubric_version",
        "rubric_sha256",
    ),
    "not-scored": ("session_id", "eligible", "reason", "line"),
    "no-session-id": ("reason", "line"),
    "stored": (*_STORED, "line", "rubric_version", "rubric_sha256"),
    "verified": (*_STORED, "line", "rubric_version", "rubric_sha256", "verification"),
    "verified-record": ("run_id", "session_id", "line", "verification"),
    "unreadable": ("line", "unreadable", "verification"),
    "invalid-record": ("line", "invalid"),
    "seal": ("line", "seal_line", "reason", "verification"),
}
_METADATA: Final[dict[str, tuple[str, ...]]] = {
    "verdict": (
        "session_id",
        "dimension",
        "method",
        "status",
        "score",
        "evidence",
        "cause",
        "scored_on_request",
        "line",
    ),
    "not-scored": ("session_id", "eligible", "reason", "line"),
    "no-session-id": ("session_id", "eligible", "reason", "line"),
    "stored": (*_STORED, "evidence", "line"),
    "verified": (*_STORED, "evidence", "line"),
    "verified-record": ("run_id", "session_id", "line", "checked"),
    "unreadable": ("line", "unreadable"),
    "invalid-record": ("line", "invalid"),
    "seal": ("line", "seal_line", "reason"),
}
# Fields of free text, which reports show ``printable``.
_FREE_TEXT: Final = frozenset({"evidence", "cause", "reason", "scored_on_request", "unreadable", "invalid"})
# The value of the "verification" property, which tells re-verification's kinds apart.
_VERIFICATION: Final[dict[str, object]] = {
    "verified": True,
    "verified-record": "record",
    "unreadable": "unreadable",
    "seal": "seal",
}


@dataclass(frozen=True, slots=True)
class ItemFacts:
    """One item's facts. ``reason`` says why a session is not scored, a record has no
    usable session_id, a journal line cannot be read, or what breaks a run's seal (its
    ``seal_line``); ``invalid`` names each field of
    a record the schema refuses, with the message. ``cause`` is the code of why a verdict
    is not-applicable or cannot-determine; ``scored_on_request`` the eligibility rule's
    reason to leave out a session that was scored because it was named."""

    kind: Kind
    line: int
    session_id: str | None = None
    dimension: Any = None
    method: Any = None
    status: Any = None
    score: Any = None
    evidence: Any = None
    cause: str | None = None
    scored_on_request: str | None = None
    reason: str | None = None
    invalid: tuple[tuple[str, str], ...] = ()
    run_id: str | None = None
    started_at: str | None = None
    rubric_version: str | None = None
    rubric_sha256: str | None = None
    seal_line: int | None = None

    def _value(self, name: str) -> Any:
        if name == "eligible":
            return False
        if name == "verification":
            return _VERIFICATION[self.kind]
        if name == "unreadable":
            return self.reason
        if name == "checked":
            return "record"
        if name == "invalid":
            return "; ".join(f"{field}: {message}" for field, message in self.invalid)
        return getattr(self, name)

    def _shown(self, name: str) -> Any:
        """A field's value for a report: free text (evidence, cause codes, reasons: a judge's
        model output, a journal's stored text) ``printable``, so that no report carries a
        control character raw."""
        value = self._value(name)
        return printable(value, lines=True) if name in _FREE_TEXT and isinstance(value, str) else value

    def properties(self) -> list[tuple[str, Any]]:
        """The JUnit XML properties (``user_properties``): text made ``wire_safe``, so that
        reports are the same with and without xdist."""
        pairs = ((name, self._shown(name)) for name in _PROPERTIES[self.kind])
        return [(name, wire_safe(value)) for name, value in pairs if value is not None]

    def metadata(self) -> dict[str, Any]:
        """What pytest-json-report carries under ``metadata.session_eval``."""
        data = {name: self._shown(name) for name in _METADATA[self.kind]}
        if self.kind == "invalid-record":
            data["invalid"] = [{"field": field, "message": message} for field, message in self.invalid]
        return data

    @property
    def is_verdict(self) -> bool:
        """Whether the item shows a dimension's verdict (scored now, or stored)."""
        return self.kind in ("verdict", "stored", "verified")

    @classmethod
    def from_properties(cls, user_properties: Iterable[tuple[str, Any]]) -> ItemFacts | None:
        """The facts a report carries (as ``properties`` wrote them, text made wire-safe);
        ``None`` for a report of another item."""
        props: dict[str, Any] = {}
        for entry in user_properties:
            if isinstance(entry, tuple) and len(entry) == 2:
                props[entry[0]] = entry[1]
        given = props.get("line")
        line = given if type(given) is int else 0
        verification = props.get("verification")
        kind: Kind
        if verification == "record":
            kind = "verified-record"
        elif verification == "unreadable":
            return cls("unreadable", line, reason=props.get("unreadable"))
        elif verification == "seal":
            seal_line = props.get("seal_line")
            return cls(
                "seal", line, reason=props.get("reason"), seal_line=seal_line if type(seal_line) is int else None
            )
        elif verification:
            kind = "verified"  # (a dimension the stored record lacks has no status)
        elif "invalid" in props:
            return cls("invalid-record", line)
        elif "dimension" in props and "status" in props:
            kind = "stored" if "run_id" in props else "verdict"
        elif props.get("eligible") is False:
            kind = "not-scored"
        elif "reason" in props and props.get("session_id") is None:
            kind = "no-session-id"
        else:
            return None
        known: dict[str, Any] = {
            name: props.get(name) for name in _PROPERTIES[kind] if name not in ("line", "eligible", "verification")
        }
        return cls(kind, line, **known)
