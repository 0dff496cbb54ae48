"""What a rubric is: verdict statuses, dimensions, scorers, and the rubric text they are bound to.

This module holds the one definition of each: the four statuses, the shape of
a verdict, and how a rubric names its ordered dimensions. ``rubric_v1`` fills
it in for the pre-registered check set shipped with this package.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from .io import open_input
from .text import described, exception_text, plain_text, printable
from .values import is_blank, is_number, plain_number

if TYPE_CHECKING:
    from .events import EventIndex
    from .peers import Peers
    from .sessions import Window

__all__ = [
    "CANNOT_DETERMINE",
    "DETERMINISTIC",
    "FAIL",
    "JUDGE",
    "NOT_APPLICABLE",
    "PASS",
    "STATUSES",
    "Dimension",
    "DimensionVerdict",
    "Rubric",
    "RubricError",
    "SessionContext",
    "Status",
    "Verdict",
]

Status = Literal["pass", "fail", "not-applicable", "cannot-determine"]
PASS: Final = "pass"
FAIL: Final = "fail"
NOT_APPLICABLE: Final = "not-applicable"
CANNOT_DETERMINE: Final = "cannot-determine"
STATUSES: Final[tuple[Status, ...]] = (PASS, FAIL, NOT_APPLICABLE, CANNOT_DETERMINE)
_STATUS_SET: Final = frozenset(STATUSES)

Method = Literal["deterministic", "judge"]
DETERMINISTIC: Final = "deterministic"
JUDGE: Final = "judge"


class RubricError(ValueError):
    """A rubric (or a scorer's answer) breaks the rules every rubric must keep. ``rubric`` is
    the version of the rubric whose scorer answered outside them (``None`` otherwise)."""

    def __init__(self, message: str, *, rubric: str | None = None) -> None:
        super().__init__(message)
        self.rubric = rubric


def _plain_verdict(verdict: object, scored: bool) -> tuple[Status, str, int | float | None, str | None] | None:
    """A scorer's ``Verdict`` in plain values (``str``, ``int``, ``float``: a ``StrEnum`` status
    is taken as its text), evidence and cause ``printable``; ``None`` when it breaks the rules."""
    if not isinstance(verdict, Verdict):
        return None
    status: Any = verdict.status
    evidence: Any = verdict.evidence
    score: Any = verdict.score
    cause: Any = verdict.cause
    # Plain values (what rubric-v1 answers) are taken at once; others made plain first.
    if type(status) is not str:
        status = plain_text(status)
    if type(evidence) is not str:
        evidence = plain_text(evidence)
    if status not in STATUSES or evidence is None:  # (a plain str, or None: no foreign __eq__)
        return None
    if not scored or score is None:
        score = None
    elif not is_number(score):
        score = plain_number(score)
        if score is None:
            return None
    if cause is not None and type(cause) is not str:
        cause = plain_text(cause)
        if cause is None:
            return None
    return status, printable(evidence), score, None if cause is None else printable(cause)


@dataclass(frozen=True, slots=True)
class SessionContext:
    """Everything a deterministic scorer may read about one session."""

    record: dict[str, Any]
    window: Window | None
    peers: Peers
    events: EventIndex
    kpis: dict[str, int | float | None]


@dataclass(frozen=True, slots=True)
class Verdict:
    """A scorer's answer: a status, the evidence for it, an optional score, and (for a
    verdict that is not a pass or a fail) the code of its cause, which summaries count:
    one of the rubric's ``causes``."""

    status: Status
    evidence: str
    score: int | float | None = None
    cause: str | None = None


Scorer = Callable[[SessionContext], Verdict]


@dataclass(frozen=True, slots=True)
class Dimension:
    """One deterministic dimension: its id, its pure scorer, and whether it carries a score."""

    id: str
    scorer: Scorer
    scored: bool = False


@dataclass(frozen=True, slots=True)
class DimensionVerdict:
    """A dimension's verdict as it appears in a record (``score`` only when ``scored``)."""

    id: str
    method: Method
    status: Status
    evidence: str
    score: int | float | None = None
    scored: bool = False
    cause: str | None = None  # why it is not-applicable or cannot-determine (no part of a record)

    def as_record(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "id": self.id,
            "method": self.method,
            "status": self.status,
            "evidence": self.evidence,
        }
        if self.scored:
            entry["score"] = self.score
        if self.method == JUDGE:
            entry["advisory"] = True
            entry["calibration_status"] = "uncalibrated"
        return entry


# Builds a DimensionVerdict from (id, method, status, evidence, score, scored, cause).
VerdictFactory = Callable[[str, Method, Status, str, "int | float | None", bool, "str | None"], DimensionVerdict]


@dataclass(frozen=True)
class Rubric:
    """A pre-registered check set: version, the text that defines it, its dimensions."""

    version: str
    text_path: Path
    dimensions: tuple[Dimension, ...]
    judge_ids: tuple[str, ...] = ()
    # The event kinds its scorers read. The quality-gate, destructive-guard, loop-warning and
    # session-start kinds are always indexed; any other kind a scorer counts
    # (``SessionContext.events.count``) must be declared here.
    event_kinds: tuple[str, ...] = ()
    # What each cause code its scorers give means, as a phrase about the sessions it counts
    # ("whose window overlaps another session's"): summaries say "<n> <phrase>".
    causes: Mapping[str, str] = field(default_factory=dict, compare=False)
    # Filled on first use; not an argument, so dataclasses.replace() gives a new rubric its own.
    _sha256: list[str] = field(default_factory=list, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # A rubric is built in a plugin's or conftest's own code: pytest's report of the
        # error then points at that line, not at this check.
        __tracebackhide__ = True
        if type(self.version) is not str or is_blank(self.version):
            raise RubricError(f"a rubric needs a version string that is not blank, not {self.version!r}")
        if not isinstance(self.text_path, (str, os.PathLike)):
            raise RubricError(f"rubric {self.version!r}: text_path must be a path, not {self.text_path!r}")
        object.__setattr__(self, "text_path", Path(self.text_path))  # a str is taken as a path
        if not isinstance(self.dimensions, (tuple, list)) or not all(isinstance(d, Dimension) for d in self.dimensions):
            raise RubricError(f"rubric {self.version!r}: dimensions must be a tuple of Dimension objects")
        object.__setattr__(self, "dimensions", tuple(self.dimensions))
        if not self.dimensions:
            raise RubricError(f"rubric {self.version!r}: a rubric needs at least one deterministic dimension")
        if not isinstance(self.judge_ids, (tuple, list)):
            raise RubricError(f"rubric {self.version!r}: judge_ids must be a tuple of strings")
        object.__setattr__(self, "judge_ids", tuple(self.judge_ids))
        if not isinstance(self.event_kinds, (tuple, list, frozenset, set)) or not all(
            type(kind) is str and not is_blank(kind) for kind in self.event_kinds
        ):
            raise RubricError(
                f"rubric {self.version!r}: event_kinds must be a tuple of event names (strings that are not blank)"
            )
        object.__setattr__(self, "event_kinds", tuple(sorted(set(self.event_kinds))))
        if not isinstance(self.causes, Mapping) or not all(
            type(code) is str and type(phrase) is str for code, phrase in self.causes.items()
        ):
            raise RubricError(f"rubric {self.version!r}: causes must map cause codes to phrases (strings)")
        ids = [dimension.id for dimension in self.dimensions] + list(self.judge_ids)
        for dimension_id in ids:
            if type(dimension_id) is not str or is_blank(dimension_id):
                raise RubricError(
                    f"rubric {self.version!r}: a dimension id must be a string that is not blank, not {dimension_id!r}"
                )
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise RubricError(f"rubric {self.version!r}: dimension ids collide: {', '.join(duplicates)}")

    @property
    def dimension_ids(self) -> tuple[str, ...]:
        return tuple(dimension.id for dimension in self.dimensions)

    @property
    def sha256(self) -> str:
        """sha256 of the rubric text, read once: the hash every record carries."""
        if not self._sha256:
            digest = hashlib.sha256()
            with open_input(self.text_path) as stream:
                while block := stream.read(1 << 20):  # a block at a time, whatever the text's size
                    digest.update(block)
            self._sha256.append(digest.hexdigest())
        return self._sha256[0]

    def score(self, context: SessionContext, make: VerdictFactory | None = None) -> tuple[DimensionVerdict, ...]:
        """Run every scorer in order; a scorer answering outside the four statuses is an error.

        ``make`` builds each ``DimensionVerdict`` from its fields (default: the
        constructor); the engine passes one that hands out a shared object for
        verdicts it has seen before.
        """
        build = DimensionVerdict if make is None else make
        verdicts = []
        for dimension in self.dimensions:
            try:
                verdict = dimension.scorer(context)
            except KeyboardInterrupt:
                raise
            except BaseException as exc:
                raise RubricError(
                    f"rubric {self.version!r}: scorer of {dimension.id!r} raised {type(exc).__name__}: {exception_text(exc)}"
                ) from exc
            scored = dimension.scored
            # A Verdict of plain, printable values (as rubric-v1 answers) is taken at once;
            # any other answer is made plain, or refused, by _checked.
            if type(verdict) is Verdict:
                status, evidence, score, cause = verdict.status, verdict.evidence, verdict.score, verdict.cause
                plain = (
                    type(status) is str
                    and status in _STATUS_SET
                    and type(evidence) is str
                    and evidence.isprintable()
                    and (cause is None or (type(cause) is str and cause.isprintable()))
                    and (not scored or score is None or is_number(score))
                )
            else:
                plain = False
            if not plain:
                status, evidence, score, cause = self._checked(dimension, verdict)
            verdicts.append(
                build(
                    dimension.id,
                    DETERMINISTIC,
                    status,
                    evidence,
                    score if scored else None,
                    scored,
                    cause if status in (NOT_APPLICABLE, CANNOT_DETERMINE) else None,
                )
            )
        return tuple(verdicts)

    def _checked(self, dimension: Dimension, verdict: object) -> tuple[Status, str, int | float | None, str | None]:
        """A scorer's answer in plain values (``_plain_verdict``); a ``RubricError`` naming the
        rubric when it breaks the rules, or when checking it raises."""
        try:
            plain = _plain_verdict(verdict, dimension.scored)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001  the scorer's answer at fault, said as such
            raise RubricError(
                f"rubric {self.version!r}: the answer of the scorer of {dimension.id!r} cannot be checked: "
                f"{type(exc).__name__}: {exception_text(exc)}",
                rubric=self.version,
            ) from None
        if plain is None:
            raise RubricError(
                f"rubric {self.version!r}: scorer of {dimension.id!r} returned {described(verdict)}; "
                f"a scorer must return a Verdict with a status among {', '.join(STATUSES)}, "
                "evidence text, (for a scored dimension) a finite number or None as score, and a cause "
                "code (text) or None",
                rubric=self.version,
            )
        return plain
