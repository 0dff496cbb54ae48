"""Every private pytest API the plugins use, in one place, each guarded by what it needs.

pytest keeps these out of its public API, so each pytest release is checked here, and
only here. Where one is missing (a future pytest), the feature that uses it steps back
as its docstring says, and never breaks a run.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from _pytest.pathlib import bestrelpath, fnmatch_ex

if TYPE_CHECKING:
    from _pytest.mark.expression import Expression

__all__ = [
    "STRUCTURED_NODE_IDS",
    "DeferredNodeId",
    "apply_warning_filters",
    "bestrelpath",
    "compile_expression",
    "determine_inifile",
    "effective_overrides",
    "failure_text",
    "fnmatch_ex",
    "index_teardown_reports",
    "is_in_confcutdir",
    "last_failed_paths",
    "set_report_nodeid",
    "start_a_line",
]

try:
    from _pytest.nodeid import NodeId as _StructuredNodeId
except ImportError:  # pytest < 9.2 keeps node ids as plain strings
    _StructuredNodeId = None  # type: ignore[assignment,misc]

#: pytest >= 9.2 keeps node ids structured (``item._id``), no longer as the ``_nodeid`` text.
STRUCTURED_NODE_IDS = _StructuredNodeId is not None

try:
    from _pytest.config import apply_warning_filters as _apply_warning_filters
except ImportError:  # pragma: no cover - a future pytest: warnings are shown, only unfiltered
    _apply_warning_filters = None  # type: ignore[assignment]


def compile_expression(text: str) -> Expression | None:
    """A ``-m`` or ``-k`` expression as pytest compiles it; ``None`` when pytest refuses it
    (or keeps its compiler elsewhere)."""
    try:
        from _pytest.mark.expression import Expression

        return Expression.compile(text)
    except Exception:  # noqa: BLE001  (SyntaxError, or ParseError before pytest 8.1)
        return None


def apply_warning_filters(config: pytest.Config) -> None:
    """Apply ``-W`` and ``filterwarnings`` as pytest applies them (nothing where it cannot)."""
    if _apply_warning_filters is not None:
        _apply_warning_filters(config.getini("filterwarnings"), config.known_args_namespace.pythonwarnings or [])


def effective_overrides(config: pytest.Config) -> Sequence[str]:
    """The ``-o key=value`` overrides that took effect. Before pytest 9 an ``-o`` in
    ``addopts`` sets nothing: those are then the config's own list."""
    effective = getattr(config, "_override_ini", None)
    if not isinstance(effective, (list, tuple)):
        effective = config.option.override_ini or ()
    return [str(entry) for entry in effective]


def determine_inifile(config: pytest.Config, args: list[str]) -> Path | bool | None:
    """The ini file pytest would pick for these ``args``, asked as pytest asked for this run;
    ``False`` when this pytest cannot be asked."""
    try:
        from _pytest.config.findpaths import determine_setup

        accepted = inspect.signature(determine_setup).parameters
        given = {
            "inifile": config.option.inifilename,
            "override_ini": config.option.override_ini,
            "rootdir_cmd_arg": config.option.rootdir or None,
            "invocation_dir": config.invocation_params.dir,
        }
        asked = {name: value for name, value in given.items() if name in accepted}
        found = determine_setup(args=args, **asked)[1]
    except Exception:  # noqa: BLE001  a pytest that looks elsewhere: nothing said rather than a wrong word
        return False
    return None if found is None else Path(found)


def last_failed_paths(config: pytest.Config) -> set[Path] | None:
    """``--lf``'s own record of the files of the failures it reruns (``None`` where a
    pytest keeps it otherwise)."""
    last_failed = config.pluginmanager.get_plugin("lfplugin")
    paths = getattr(last_failed, "_last_failed_paths", None)
    return paths if isinstance(paths, set) else None


def is_in_confcutdir(config: pytest.Config) -> Callable[[Path], bool] | None:
    """pytest's test of whether a directory lies inside the confcutdir (``None`` where this
    pytest does not tell)."""
    found = getattr(config.pluginmanager, "_is_in_confcutdir", None)
    return found if callable(found) else None


def set_report_nodeid(report: Any, nodeid: str) -> None:
    """Give a report another node id, as this pytest keeps it."""
    if _StructuredNodeId is not None:
        report._id = _StructuredNodeId.parse(nodeid)
    else:
        report.nodeid = nodeid


class DeferredNodeId:
    """An item whose ``--dist loadgroup`` tag is held back until collection finishes.

    pytest-xdist tags a grouped item by assigning ``item._nodeid`` in
    ``pytest_collection_modifyitems``. The tag is kept aside (``take_group_tag``), so that
    ``--lf``/``--ff``, which filter items after every ``pytest_collection_modifyitems``,
    see the item's own id, as in a run without xdist. (pytest >= 9.2 no longer reads
    ``_nodeid`` at all, pytest-xdist#1386; the tag is still needed there, for a
    session's items to stay on one worker.)
    """

    nodeid: str

    @property
    def _nodeid(self) -> str:
        if _StructuredNodeId is not None:
            return self.nodeid
        return self.__dict__["_own_nodeid"]  # type: ignore[no-any-return]

    @_nodeid.setter
    def _nodeid(self, value: str) -> None:
        if "_own_nodeid" in self.__dict__ or _StructuredNodeId is not None:
            self.__dict__["_grouped_nodeid"] = value
        else:  # pytest < 9.2 sets the item's id this way, once, as it is made
            self.__dict__["_own_nodeid"] = value

    def take_group_tag(self) -> None:
        """Give the item the tagged node id xdist assigned, held back until now."""
        tagged = self.__dict__.pop("_grouped_nodeid", None)
        if tagged is None:
            return
        if _StructuredNodeId is not None:
            self._id = _StructuredNodeId.parse(tagged)
        else:
            self.__dict__["_own_nodeid"] = tagged


def failure_text(path: str, lineno: int, headline: str, lines: Sequence[str], *, one_line: bool) -> Any:
    """A failure's text as pytest shows its own: ``headline`` is the crash message (the short
    summary's ``- reason``, and with ``--tb=line`` the line ``path:lineno: headline``), then
    ``lines`` (none with ``--tb=line``). It survives pytest-xdist as pytest's own does.
    Where this pytest builds no such text, the lines joined."""
    try:
        from _pytest._code.code import ReprExceptionInfo, ReprFileLocation, ReprTraceback, ReprTracebackNative

        traceback = (
            ReprTraceback(reprentries=[], extraline=None, style="line")
            if one_line
            else ReprTracebackNative([f"{line}\n" for line in lines])
        )
        return ReprExceptionInfo(reprtraceback=traceback, reprcrash=ReprFileLocation(path, lineno, headline))
    except Exception:  # noqa: BLE001  a pytest that builds these otherwise
        return "\n".join(lines)


def index_teardown_reports(reporter: Any) -> None:
    """Make pytest's failure summary find teardown reports through an index.

    pytest's terminal summary looks up, for every failed report, the teardown
    reports of its item by walking every report of the run: O(failures x items).
    A sessions file yields thousands of failing verdicts, so that walk would
    dominate the run. The index answers the same question with the same reports
    in the same order; it is rebuilt whenever reports were added. Only the
    reporter's own lookup method is replaced, and only when it exists.
    """
    original = getattr(reporter, "_get_teardown_reports", None)
    if original is None or not hasattr(reporter, "getreports") or getattr(original, "indexed", False):
        return  # pytest has no such lookup, or the other data plugin has indexed it already
    cache: dict[str, Any] = {}

    def teardown_reports(node_id: Any) -> list[Any]:
        # pytest < 9.2 passes the string ``nodeid``, pytest >= 9.2 the structured ``id``.
        key_field = "nodeid" if isinstance(node_id, str) else "id"
        size = len(reporter.stats.get("", ()))
        if cache.get("key") != (size, key_field):
            by_id: dict[Any, list[Any]] = {}
            for report in reporter.getreports(""):
                if report.when == "teardown":
                    by_id.setdefault(getattr(report, key_field), []).append(report)
            cache["key"], cache["by_id"] = (size, key_field), by_id
        return list(cache["by_id"].get(node_id, ()))

    teardown_reports.indexed = True  # type: ignore[attr-defined]
    reporter._get_teardown_reports = teardown_reports


def start_a_line(reporter: Any) -> None:
    """End the terminal's current line, if anything is on it: a line said while the run ends
    (not in a section of the summary) then starts on a line of its own, not after the
    progress. pytest's own ``ensure_newline`` does so only within a file's progress."""
    writer = getattr(reporter, "_tw", None)
    if getattr(writer, "width_of_current_line", 0):
        reporter.write("\n")
