"""Which judge items the command line can select, known before collection.

Judges are asked before collection (once per run; under pytest-xdist by the controller,
which never collects), so a session is asked about only when the paths and node ids,
``-m`` and ``-k`` given can select one of its judge items, whatever verdict the judge
gives, and ``--deselect`` does not leave all of them out. Each is read as pytest reads it,
from what is known then: the node ids, the markers and the keywords this plugin gives a
judge item. What is not known then counts as either answer, and a judge is asked when
some answer selects the item: the reason of an outcome marker (it holds the judge's
evidence), and the directories pytest walks through when more than one way leads to the
file (any directory under ``--pyargs``). Markers or keywords that a conftest adds during
collection are not known at all.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Final

import pytest

from ..core.naming import escape_name
from ..core.rubric import JUDGE, STATUSES
from ._compat import compile_expression, is_in_confcutdir
from .collection import collection_arg, data_file_node_id, settle_collection_args
from .facts import ITEM_KEYWORD
from .outcomes import markers_for
from .xdist import group_name

if TYPE_CHECKING:
    from _pytest.mark.expression import Expression

__all__ = ["JudgeSelection"]

# An outcome marker's argument that holds the judge's evidence, unknown before it is asked.
_UNKNOWN_ARGUMENT: Final = "reason"
# Readings of unknown names tried per item before giving up, and asking.
_MOST_OPEN_NAMES: Final = 6


class JudgeSelection:
    """The sessions of each sessions file whose judge items the command line can select."""

    def __init__(self, config: pytest.Config, files: list[Path], judge_ids: tuple[str, ...], *, dry_run: bool) -> None:
        self._judge_names = [escape_name(judge_id) for judge_id in judge_ids]
        # The outcome markers a judge item can carry, one list per distinct outcome.
        runxfail = getattr(config.option, "runxfail", False)
        outcomes: dict[str, list[pytest.Mark]] = {}
        for status in STATUSES:
            marks = [decorator.mark for decorator in markers_for(status, "", JUDGE, runxfail=runxfail)]
            known = [
                (mark.name, mark.args, sorted((k, v) for k, v in mark.kwargs.items() if k != _UNKNOWN_ARGUMENT))
                for mark in marks
            ]
            outcomes.setdefault(repr(known), marks)  # a fail and a cannot-determine differ by their reason alone
        self._outcomes = list(outcomes.values())
        markers, keywords = config.option.markexpr, config.option.keyword.lstrip()
        self._markers = compile_expression(markers) if markers else None
        self._keywords = compile_expression(keywords) if keywords else None
        self._deselected = tuple(config.getoption("deselect", None) or ())  # node id prefixes
        # An expression pytest refuses stops the run after collection, before any item runs.
        self.any_can_run = (
            bool(judge_ids)
            and not dry_run
            and (not markers or self._markers is not None)
            and (not keywords or self._keywords is not None)
        )
        judge_params = {f"[{escape_name(judge_id)}]" for judge_id in judge_ids}
        if self.any_can_run and not config.option.pyargs:
            settle_collection_args(config)
            start = config.invocation_params.dir
            args: list[tuple[Path, list[str], str | None]] | None = [collection_arg(start, arg) for arg in config.args]
        else:
            args = None  # module names (--pyargs): not read as paths
        self._files = (
            {file: _CollectedFile(config, file, args, judge_params) for file in files} if self.any_can_run else {}
        )

    def selects(self, file: Path, session_id: str) -> bool:
        """Whether a judge item of this session can be selected."""
        if not self.any_can_run:
            return False
        collected = self._files[file]
        name = escape_name(session_id)
        if collected.sessions is not None and name not in collected.sessions:
            return False
        group = pytest.mark.xdist_group(name=group_name(session_id)).mark  # every item of the session
        for judge_name in self._judge_names:
            if self._deselected and f"{collected.nodeid}::{name}[{judge_name}]".startswith(self._deselected):
                continue
            if self._markers is None and self._keywords is None:
                return True
            for outcome in self._outcomes:
                marks = [*outcome, group]
                if self._markers is not None and not _can_hold(self._markers, partial(_mark_match, marks)):
                    continue
                if self._keywords is not None:
                    sure = [
                        f"{name}[{judge_name}]".lower(),
                        *collected.keywords,
                        *(mark.name.lower() for mark in marks),
                    ]
                    if not _can_hold(self._keywords, partial(_keyword_match, sure, collected.maybe_keywords)):
                        continue
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
    and markers (lower-cased, as ``-k`` compares them): the file's name, this plugin's item
    keyword, and the directories pytest walks through below the one that hangs directly
    under the session (that one is not counted). ``maybe_keywords``: what it finds by one
    way to the file and not by another, and the file's path from the rootdir, its node
    name when the file itself hangs directly under the session.

    ``nodeid``: the file's node id (``options.data_file_node_id``).
    """

    def __init__(
        self,
        config: pytest.Config,
        file: Path,
        args: list[tuple[Path, list[str], str | None]] | None,
        judge_params: set[str],
    ) -> None:
        """``args``: pytest's collection arguments (``options.collection_arg``); ``None`` under ``--pyargs``."""
        self.nodeid = data_file_node_id(config, file)
        self.keywords = [file.name.lower(), ITEM_KEYWORD.lower()]
        self.maybe_keywords: list[str] = []
        self.sessions: set[str] | None = None if args is None else set()
        roots: list[Path | None] = []
        for path, parts, parametrization in args or ():
            if path != file and not file.is_relative_to(path):
                continue
            roots.append(_walk_root(config, path))
            if self.sessions is None:
                continue
            if not parts:  # the file, or a directory holding it
                self.sessions = None
            elif len(parts) == 1 and (parametrization is None or parametrization in judge_params):
                self.sessions.add(parts[0])  # deeper parts name nothing: an item has no children
        if not roots or None in roots:  # module names, or an unknown walk: every directory may count
            self.maybe_keywords = [directory.name.lower() for directory in file.parents]
            self.maybe_keywords.extend(str(file.relative_to(ancestor)).lower() for ancestor in file.parents)
            return
        known = [root for root in roots if root is not None]
        deepest = max(known, key=lambda root: len(root.parts))
        shallowest = min(known, key=lambda root: len(root.parts))
        for directory in file.parents:
            if directory.is_relative_to(deepest) and directory != deepest:
                self.keywords.append(directory.name.lower())
            elif directory.is_relative_to(shallowest) and directory != shallowest:
                self.maybe_keywords.append(directory.name.lower())
        if file in known:  # its node name then: its path from the rootdir (the session's path)
            rootpath = config.rootpath
            self.maybe_keywords.append(
                str(file.relative_to(rootpath) if file.is_relative_to(rootpath) else file.name).lower()
            )


def _walk_root(config: pytest.Config, path: Path) -> Path | None:
    """The path whose node hangs directly under the session when pytest collects ``path``: the
    first of its ancestors (or itself) that is not an ancestor of the confcutdir; ``None``
    when this pytest does not tell."""
    inside = is_in_confcutdir(config)
    if inside is None:
        return None
    for ancestor in [*reversed(path.parents), path]:
        if inside(ancestor):
            return ancestor
    return path


class _Undecided(Exception):
    """A name of the expression that the item may or may not match."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class _Refused(Exception):
    """pytest refuses the expression when it reaches this name (``-k`` with call parameters),
    and the run stops."""


def _mark_match(marks: list[pytest.Mark], name: str, /, **kwargs: object) -> bool | None:
    """``-m``'s question, as pytest asks it (a marker of that name with those arguments);
    ``None`` when the answer depends on an argument not known yet."""
    answers: list[bool | None] = []
    for mark in marks:
        if mark.name != name:
            continue
        if any(key != _UNKNOWN_ARGUMENT and mark.kwargs.get(key, _MISSING) != value for key, value in kwargs.items()):
            answers.append(False)
        elif any(key == _UNKNOWN_ARGUMENT and key in mark.kwargs for key in kwargs):
            answers.append(None)
        elif any(key == _UNKNOWN_ARGUMENT for key in kwargs):
            answers.append(False)  # the marker has no such argument
        else:
            answers.append(True)
    if True in answers:
        return True
    return None if None in answers else False


_MISSING: Final = object()


def _keyword_match(sure: list[str], maybe: list[str], name: str, /, **kwargs: object) -> bool | None:
    """``-k``'s question (``name`` is a part of a keyword, in any case); ``None`` when the
    answer depends on a keyword that the item may or may not have."""
    if kwargs:
        raise _Refused
    wanted = name.lower()
    if any(wanted in keyword for keyword in sure):
        return True
    if any(wanted in keyword for keyword in maybe):
        return None
    return False


def _can_hold(expression: Expression, decide: Callable[..., bool | None]) -> bool:
    """Whether ``expression`` holds for some answer to each name ``decide`` leaves open. A
    reading that reaches a name pytest refuses selects nothing (the run stops); past
    ``_MOST_OPEN_NAMES`` open names the answer is yes."""

    def attempt(chosen: dict[str, bool]) -> bool:
        def matcher(name: str, /, **kwargs: object) -> bool:
            known = decide(name, **kwargs)
            if known is not None:
                return known
            key = repr((name, sorted(kwargs.items())))
            if key not in chosen:
                raise _Undecided(key)
            return chosen[key]

        try:
            return expression.evaluate(matcher)
        except _Refused:
            return False
        except _Undecided as open_name:
            if len(chosen) >= _MOST_OPEN_NAMES:
                return True
            return attempt({**chosen, open_name.name: True}) or attempt({**chosen, open_name.name: False})

    return attempt({})
