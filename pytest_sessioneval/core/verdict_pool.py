"""Equal verdicts shared: one ``DimensionVerdict`` object for each distinct verdict.

The engine scores every session through a ``VerdictPool`` (a ``VerdictFactory``, see
``Rubric.score``), so that the sessions of a large file, whose evidence sentences mostly
repeat, hold one object per distinct verdict. Sharing never changes a value.
"""

from __future__ import annotations

from typing import Any, Final

from .rubric import DimensionVerdict, Method, Status

__all__ = ["VerdictPool"]


class VerdictPool:
    """Builds verdicts, handing out one shared object for equal ones.

    Most sessions share most of their evidence sentences word for word; one
    ``DimensionVerdict`` object (immutable) per distinct verdict keeps 100,000
    scored sessions within memory, and a verdict seen before is looked up
    instead of built. A verdict is shared only when every field is the same
    value of the same type (``1`` is not ``1.0``, ``0.0`` is not ``-0.0``).
    During a trial each dimension's repeats are counted; after it, a dimension
    whose verdicts rarely repeat is built directly and not remembered. Sharing
    never changes a value, only which object holds it.
    """

    _TRIAL: Final = 512  # verdicts per dimension
    _WORTH: Final = 0.25  # minimum share of repeats during the trial to stay pooled

    def __init__(self) -> None:
        self._pool: dict[tuple[Any, ...], DimensionVerdict] = {}
        self._seen: dict[str, list[int]] = {}  # per dimension id during its trial: [verdicts, repeats]
        self._unpooled: set[str] = set()

    def __call__(
        self,
        id: str,
        method: Method,
        status: Status,
        evidence: str,
        score: int | float | None,
        scored: bool,
        cause: str | None = None,
    ) -> DimensionVerdict:
        kind = type(score)
        if id in self._unpooled or type(evidence) is not str or not (score is None or kind is int or kind is float):
            return DimensionVerdict(id, method, status, evidence, score, scored, cause)
        key = (id, status, evidence, method, scored, kind, score, repr(score) if score == 0 else None, cause)
        try:
            shared = self._pool.get(key)
        except TypeError:  # an unhashable field (custom rubric)
            return DimensionVerdict(id, method, status, evidence, score, scored, cause)
        counts = self._seen.get(id)
        if counts is None:
            counts = self._seen[id] = [0, 0]
        if counts[0] < self._TRIAL:
            counts[0] += 1
            counts[1] += shared is not None
            if counts[0] == self._TRIAL and counts[1] < self._TRIAL * self._WORTH:
                self._unpooled.add(id)
        if shared is None:
            shared = self._pool[key] = DimensionVerdict(id, method, status, evidence, score, scored, cause)
        return shared
