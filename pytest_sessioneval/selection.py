"""Which judge items the command line can select, known before collection.

Judges are asked before collection (once per run; under pytest-xdist by the controller,
which never collects), so a session is asked about only when the paths and node ids,
``-m`` and ``-k`` given can select one of its judge items, whatever verdict the judge
gives. Each is read as pytest reads it, from what is known then: the node names, the
markers and the keywords this plugin gives a judge item. Markers or keywords that a
conftest adds during collection are not known; where a name may or may not be part of
an item's keywords (the directories pytest walks through), the answer is yes whenever
some reading of it selects the item.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import pytest
from _pytest.mark.expression import Expression

from .naming import escape_name
from .nodes import ITEM_KEYWORD
from .options import absolute, settle_collection_args
from .outcomes import markers_for
from .rubric import JUDGE, STATUSES

__all__ = ["JudgeSelection"]

# Every item of a session carries this marker (its xdist group).
_GROUP_MARKER = "xdist_group"


class JudgeSelection:
    """The sessions of each sessions file whose judge items the command line can select."""

    def __init__(self, config: pytest.Config, files: list[Path], judge_ids: tuple[str, ...], *, dry_run: bool) -> None:
        self._judge_names = [escape_name(judge_id) for judge_id in judge_ids]
        # The marker names a judge item can carry, one set per outcome, that -m can select.
        marker_sets = {
            frozenset({mark.name for mark in markers_for(status, "", JUDGE, runxfail=config.option.runxfail)} | {_GROUP_MARKER})
            for status in STATUSES
        }
        expression = config.option.markexpr
        if expression:
            compiled = _compiled(expression)
            marker_sets = {marks for marks in marker_sets if compiled is not None and compiled.evaluate(partial(_marked, marks))}
        self._marker_sets = sorted(marker_sets, key=sorted)
        keywords = config.option.keyword.lstrip()
        self._keywords = _compiled(keywords) if keywords else None
        self.any_can_run = bool(judge_ids) and not dry_run and bool(self._marker_sets) and (not keywords or self._keywords is not None)
        judge_params = {f"[{escape_name(judge_id)}]" for judge_id in judge_ids}
        self._files = {file: _CollectedFile(config, file, judge_params) for file in files} if self.any_can_run else {}

    def selects(self, file: Path, session_id: str) -> bool:
        """Whether a judge item of this session can be selected."""
        if not self.any_can_run:
            return False
        collected = self._files[file]
        name = escape_name(session_id)
        if collected.sessions is not None and name not in collected.sessions:
            return False
        if self._keywords is None:
            return True
        for judge_name in self._judge_names:
            for marks in self._marker_sets:
                sure = [f"{name}[{judge_name}]".lower(), *collected.keywords, *marks]
                if _can_hold(self._keywords, partial(_keyword_match, sure, collected.maybe_keywords)):
                    return True
        return False


class _CollectedFile:
    """How pytest collects a sessions file, read from the paths and node ids it collects.

    ``sessions``: the names of the sessions whose judge items they can select (``None``:
    every session's). ``pytest "m/sessions.jsonl::s1"`` selects the items of session ``s1``
    (its node name, escaped), ``"m/sessions.jsonl::s1[report-quality]"`` one judge item
    of it, a deterministic item none; the file itself, or a directory holding it, every
    session; any other path none. With ``--pyargs`` the paths are module names: every session.

    ``keywords``: what ``-k`` surely finds in the file's items besides their own names
    and markers (lower-cased, as ``-k`` reads them); ``maybe_keywords``: what it may find,
    the names of the directories pytest walks through to the file (the one that hangs
    directly under the session is not counted), and the file's path from the rootdir, its
    node name when it hangs directly under the session.
    """

    def __init__(self, config: pytest.Config, file: Path, judge_params: set[str]) -> None:
        self.keywords = [file.name.lower(), ITEM_KEYWORD.lower()]
        if config.option.pyargs:
            self.sessions: set[str] | None = None
            self.maybe_keywords = [str(file.relative_to(ancestor)).lower() for ancestor in file.parents]
            return
        self.sessions = set()
        roots = []
        for path, parts, parametrization in _collection_args(config):
            if path != file and not file.is_relative_to(path):
                continue
            roots.append(_walk_root(config, path))
            if self.sessions is None:
                continue
            if not parts:  # the file, or a directory holding it
                self.sessions = None
            elif len(parts) == 1 and (parametrization is None or parametrization in judge_params):
                self.sessions.add(parts[0])  # deeper parts name nothing: an item has no children
        root = min(roots, key=lambda path: len(path.parts), default=file)
        self.maybe_keywords = [directory.name.lower() for directory in file.parents if directory.is_relative_to(root) and directory != root]
        if root == file:
            self.maybe_keywords.extend(str(file.relative_to(ancestor)).lower() for ancestor in file.parents)


def _collection_args(config: pytest.Config) -> Iterator[tuple[Path, list[str], str | None]]:
    """Each path pytest collects, with the node names after it and its parametrization,
    as pytest parses a collection argument (the parametrization starts at the first "[")."""
    settle_collection_args(config)
    start = config.invocation_params.dir
    for arg in config.args:
        base, bracket, rest = arg.partition("[")
        spelled, *parts = base.split("::")
        yield absolute(start / spelled), parts, (bracket + rest if bracket else None)


def _walk_root(config: pytest.Config, path: Path) -> Path:
    """The path whose node hangs directly under the session when pytest collects ``path``: the
    first of its ancestors (or itself) that is not an ancestor of the confcutdir."""
    is_in_confcutdir = getattr(config.pluginmanager, "_is_in_confcutdir", None)
    if is_in_confcutdir is None:  # not known: every directory on the way may count
        return Path(path.anchor)
    for ancestor in [*reversed(path.parents), path]:
        if is_in_confcutdir(ancestor):
            return ancestor
    return path


def _compiled(expression: str) -> Expression | None:
    """The expression, or ``None`` when pytest refuses it: it stops the run then, after
    collection, before any item runs."""
    try:
        return Expression.compile(expression)
    except Exception:  # noqa: BLE001  (SyntaxError, or ParseError before pytest 8.1)
        return None


def _marked(marks: frozenset[str], name: str, /, **kwargs: object) -> bool:
    """``-m``'s question to an item carrying ``marks``: is it marked ``name`` (with these
    arguments, which judge markers never have)?"""
    return not kwargs and name in marks


class _Undecided(Exception):
    """A name of the expression that the item may or may not match."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class _CallParameters(Exception):
    """``-k`` with call parameters: pytest refuses them, and the run stops."""


def _keyword_match(sure: list[str], maybe: list[str], name: str, /, **kwargs: object) -> bool | None:
    """``-k``'s question (``name`` is a substring of a keyword, in any case): ``None`` when
    the answer depends on a name that the item may or may not have."""
    if kwargs:
        raise _CallParameters
    wanted = name.lower()
    if any(wanted in keyword for keyword in sure):
        return True
    if any(wanted in keyword for keyword in maybe):
        return None
    return False


def _can_hold(expression: Expression, decide: Callable[..., bool | None]) -> bool:
    """Whether ``expression`` holds for some answer to each name ``decide`` leaves open."""

    def attempt(chosen: dict[str, bool]) -> bool:
        def matcher(name: str, /, **kwargs: object) -> bool:
            known = decide(name, **kwargs)
            if known is not None:
                return known
            if name not in chosen:
                raise _Undecided(name)
            return chosen[name]

        try:
            return expression.evaluate(matcher)
        except _Undecided as open_name:
            return attempt({**chosen, open_name.name: True}) or attempt({**chosen, open_name.name: False})

    try:
        return attempt({})
    except _CallParameters:
        return False
