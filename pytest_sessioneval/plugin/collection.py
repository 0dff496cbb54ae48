"""How the plugins' data files join the paths pytest collects.

Each data file is passed to pytest as a collection argument (see ``_CollectionArgs`` for
which, when), and its collector gets the node id of a file inside the rootdir.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from ._compat import bestrelpath, fnmatch_ex, last_failed_paths
from .files import absolute
from .options import usage_error, utf8_path

__all__ = [
    "add_collection_args",
    "collection_arg",
    "data_file_node_id",
    "remember_default_args",
    "settle_collection_args",
]


_DEFAULT_ARGS = pytest.StashKey[list[str]]()


def remember_default_args(config: pytest.Config) -> None:
    """Note the paths pytest would collect before any plugin adds its data files."""
    config.stash.setdefault(_DEFAULT_ARGS, list(config.args))


def add_collection_args(config: pytest.Config, files: Sequence[Path], flag: str, *, from_ini: bool = False) -> None:
    """Have the plugins' data files collected (see ``_CollectionArgs`` for which, when);
    ``from_ini``: they are named by ini keys only, not on the command line.

    Each is passed to pytest relative to where it was started, so that only its own
    name can hold what a pytest path may not (``[`` or ``::``, which pytest reads as
    a node id's parts): that is a usage error naming ``flag``, raised now, on every
    process (under xdist a worker's collection error would go unreported).
    """
    for path in files:
        try:
            spelled = os.path.relpath(path, config.invocation_params.dir)
        except ValueError:  # another drive
            spelled = str(path)
        if "[" in spelled or "::" in spelled:
            raise usage_error(
                flag,
                f"{spelled}: pytest cannot collect a path containing '[' or '::' (it reads them as "
                "parts of a node id); rename it, or give a symbolic link without them",
            )
        utf8_path(flag, spelled)
        config.stash.setdefault(_DATA_FILES, []).append((spelled, from_ini))
    if not config.pluginmanager.has_plugin(_COLLECTION_ARGS):
        config.pluginmanager.register(_CollectionArgs(), _COLLECTION_ARGS)


def collection_arg(start: Path, arg: str) -> tuple[Path, list[str], str | None]:
    """A path pytest collects (``arg``, given where pytest was started), as pytest parses it: the
    path, the node names after it, and the parametrization, which starts at the first "["."""
    base, bracket, rest = arg.partition("[")
    spelled, *parts = base.split("::")
    return absolute(start / spelled), parts, (bracket + rest if bracket else None)


def data_file_node_id(config: pytest.Config, path: Path) -> str:
    """The node id of a data file's collector: its path from the rootdir, as pytest names a
    file inside it, and with ``..`` steps outside it. pytest would name a file outside the
    rootdir by its path from the command-line argument holding it, which is empty for the
    file itself: two data files would share their items' node ids, and a node id copied
    from the output would select nothing."""
    return bestrelpath(config.rootpath, path).replace(os.sep, "/")


def settle_collection_args(config: pytest.Config) -> None:
    """Have ``config.args`` name the paths pytest will collect, data files included, now:
    for a plugin that reads them at session start, whichever runs first."""
    collection_args = config.pluginmanager.get_plugin(_COLLECTION_ARGS)
    if collection_args is not None:
        collection_args.settle(config)


def _let_last_failed_find_data_outside_the_rootdir(config: pytest.Config) -> None:
    """``--lf`` knows the files of the failures it reruns as the rootdir joined with their node
    id's path, not normalised: for a data file outside the rootdir (``../data/sessions.jsonl``,
    see ``data_file_node_id``) that path never equals the file's, and once a test of another
    file failed too, pytest skipped the data file. Its normalised form is added (pytest's
    own, private, record of them; left alone where a pytest keeps it otherwise)."""
    paths = last_failed_paths(config)
    if paths is None:
        return
    for path in [path for path in paths if isinstance(path, Path) and ".." in path.parts]:
        normal = Path(os.path.normpath(path))
        if normal.exists():
            paths.add(normal)
            paths.update(normal.parents)


# Each data file as passed to pytest (relative to the invocation dir), and whether only an
# ini key names it.
_DATA_FILES = pytest.StashKey[list[tuple[str, bool]]]()


_COLLECTION_ARGS = "sessioneval-collection-args"


class _CollectionArgs:
    """Sets the paths to collect once every plugin of this package has named its data files.

    - Nothing named on the command line (no test path, no data): the data files of the ini
      file join what pytest collects by default (``testpaths``, or the rootdir), as any part
      of the test suite.
    - Data named on the command line: it is collected, alone (not the whole rootdir, nor
      ``testpaths``) or with the test paths given (``pytest tests/ --session-eval m``).
    - Either way, once anything is named on the command line, the data files of the ini
      file count as ``testpaths`` do: they run only where a directory given holds them
      (``pytest .``), so ``pytest tests/test_x.py`` runs that file alone.
    - A data file or a node id in one given (``pytest ... "m/sessions.jsonl::s[gate-health]"``):
      exactly what was given, as for any test file; no other data file is added.

    Another plugin may already have replaced the default paths with its own data;
    those stay. A path is never added twice.
    """

    def __init__(self) -> None:
        self._way: set[Path] = set()  # the data files and the directories on their way
        self._closed: list[Path] = []  # the skipped directories opened for a data file
        self._settled = False

    # At session start, not at collection: --fixtures and --fixtures-per-test collect
    # without calling the pytest_collection hook.
    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.settle(session.config)
        _let_last_failed_find_data_outside_the_rootdir(session.config)

    def settle(self, config: pytest.Config) -> None:
        """Set ``config.args`` to what is collected; once (see ``settle_collection_args``)."""
        if self._settled:
            return
        self._settled = True
        start = config.invocation_params.dir
        files = config.stash.get(_DATA_FILES, [])
        paths_named = bool(config.option.file_or_dir)
        data_named = not all(from_ini for _, from_ini in files)
        if not paths_named and data_named and config.args == config.stash.get(_DEFAULT_ARGS, None):
            config.args[:] = []
        present = {collection_arg(start, arg)[0] for arg in config.args}
        wanted = {absolute(start / spelled): (spelled, from_ini) for spelled, from_ini in files}
        if paths_named and not present.isdisjoint(wanted):
            return  # the data files to run were named
        given = [path for path in present if path.is_dir()]
        way = []
        for path, (spelled, from_ini) in wanted.items():
            inside = any(path.is_relative_to(directory) for directory in given)
            if from_ini and (paths_named or data_named):  # as testpaths: only inside a directory given
                if inside:
                    way.append(path)
                continue
            if path not in present and not inside:
                # (Collected from a directory given, it is no argument of its own: pytest 8.0
                # would collect nothing else of that directory.)
                config.args.append(spelled)
            way.append(path)
        self._open_the_way(config, way)

    def _open_the_way(self, config: pytest.Config, files: list[Path]) -> None:
        """Let collection reach each data file through directories pytest skips (``.orchestrator/``
        and the rest of ``norecursedirs``), and through nothing else in them.

        A data file inside a directory that is also collected (``pytest .``, or the rootdir
        that an ini-only run collects) is no argument of its own for pytest (one path
        inside another is collected from the outer one), so its way is opened here.
        """
        patterns = config.getini("norecursedirs")
        self._way.update(files)
        for file in files:
            for directory in file.parents:
                self._way.add(directory)
                if any(fnmatch_ex(pattern, directory) for pattern in patterns):
                    self._closed.append(directory)

    @pytest.hookimpl(tryfirst=True)
    def pytest_ignore_collect(self, collection_path: Path, config: pytest.Config) -> bool | None:
        path = Path(os.path.abspath(collection_path))
        if path in self._way:
            return False
        if any(path.is_relative_to(closed) for closed in self._closed):
            return True  # anything else inside a skipped directory stays skipped
        return None
