"""The inputs of a run, fixed once: every process reads the same bytes of each.

The controller (or a run without xdist) measures each input as it starts (``fix_inputs``),
before anything reads it and before pytest-xdist starts its workers, and hands the
snapshots to the workers in their ``workerinput``. Every process holds them while the
run lasts (see ``core.snapshot``): a file that grew is read up to its fixed length by
each, and one that changed is refused, as a usage error where the run reads it first, and
on a worker as a collection error naming it (``RefusedInput``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from ..core.io import stat_kind
from ..core.snapshot import LOCK_TIMEOUT, InputChanged, Snapshot, hold, key, measure, measure_with
from ..records.seal import seal_path
from .xdist import from_controller, is_worker

__all__ = ["InputSnapshots", "RefusedInput", "fix_inputs", "refused", "snapshots"]

_PLUGIN = "sessioneval-snapshots"
_WORKER_KEY = "session_eval_inputs"


class InputSnapshots:
    """The snapshots of a run's inputs, held from the moment this is made to the end of the run."""

    def __init__(self, config: pytest.Config) -> None:
        self.fixed: dict[str, Snapshot] = {}
        handed = from_controller(config, _WORKER_KEY)
        if isinstance(handed, dict):
            self.fixed.update({name: Snapshot.from_wire(value) for name, value in handed.items()})
        self._before = hold(self.fixed)
        config.add_cleanup(self._release)

    def _release(self) -> None:
        hold(self._before)

    @pytest.hookimpl(optionalhook=True)  # pytest-xdist's
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[_WORKER_KEY] = {name: snapshot.to_wire() for name, snapshot in self.fixed.items()}


def snapshots(config: pytest.Config) -> InputSnapshots:
    """The run's snapshots (held from the first call on; on a worker, the controller's)."""
    manager = config.pluginmanager
    found = manager.get_plugin(_PLUGIN)
    if isinstance(found, InputSnapshots):
        return found
    made = InputSnapshots(config)
    manager.register(made, _PLUGIN)
    return made


def fix_inputs(
    config: pytest.Config, files: Iterable[Path], journals: Iterable[Path] = (), sealed: Iterable[Path] = ()
) -> dict[Path, Snapshot]:
    """Fix each file not yet fixed, on the controller; ``journals`` are measured under a shared
    lock, up to their last newline, and ``sealed`` ones together with their seal (see
    ``core.snapshot.measure_with``: a seal line is read only with the records it seals). A
    worker measures nothing: it holds what the controller fixed. Only a regular file is fixed;
    one that cannot be measured is left unheld (reading it says why).
    Returns the snapshots of the files given fixed now (a seal's is held, not returned)."""
    held = snapshots(config)
    now: dict[Path, Snapshot] = {}
    if is_worker(config):
        return now
    sealed = list(sealed)
    with_seal = {key(path) for path in sealed}  # (a journal given twice is fixed with its seal)
    wanted = [(path, False, False) for path in files]
    wanted += [(path, True, False) for path in journals if key(path) not in with_seal]
    wanted += [(path, True, True) for path in sealed]
    for path, whole_lines, its_seal in wanted:
        name = key(path)
        if name in held.fixed:
            continue
        seal = seal_path(path) if its_seal else None
        try:
            if stat_kind(path) != "file":  # (a FIFO would block; nothing to fix for anything else)
                continue
            if seal is not None:
                snapshot, beside = measure_with(path, seal, lock_timeout=LOCK_TIMEOUT)
                if beside is not None:
                    held.fixed[key(seal)] = beside
            else:
                snapshot = measure(path, whole_lines=whole_lines, lock_timeout=LOCK_TIMEOUT if whole_lines else None)
        except (OSError, ValueError):
            continue
        held.fixed[name] = now[path] = snapshot
    return now


def refused(exc: InputChanged) -> str:
    """What a worker says of an input that changed: the file and why."""
    return f"cannot read {exc.filename}: {exc.strerror}"


class RefusedInput(pytest.File):
    """A data file a worker cannot collect: an input changed since the run began."""

    def __init__(self, *, message: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.message = message

    def collect(self) -> Iterable[pytest.Item]:
        raise self.CollectError(self.message)
