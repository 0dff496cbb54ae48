"""The pytest plugin of policy evals: options, input checks, collection, reporting hooks.

Registered as its own ``pytest11`` entry point (``sessioneval-policy``). With
``--policy-eval`` (or the ``policy_eval_paths`` ini key), every envelope set,
the golden set its manifest names and the ``--policy-decisions`` file become
``pytest.File`` nodes whose items are the checks of :mod:`.review`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

import pytest

from ...core.jsonl import first_named, opens_json_document
from ...core.snapshot import InputChanged
from ...core.text import wire_safe
from ...plugin._compat import index_teardown_reports
from ...plugin.collection import (
    add_collection_args,
    data_file_node_id,
    remember_default_args,
)
from ...plugin.files import (
    absolute,
    claim_files,
    file_identity,
    path_kind,
    readable_file,
)
from ...plugin.inifile import note_missed_ini_files, warn_if_ini_file_was_missed
from ...plugin.options import OPTIONS as SESSION_OPTIONS
from ...plugin.options import (
    naming_options_as_given,
    only_informs,
    refuse_without_skipping,
    runs_no_item,
    usage_error,
)
from ...plugin.snapshot import RefusedInput, fix_inputs, refused, snapshots
from ...plugin.xdist import is_worker, register_wire_safety
from ..datasets import DataFile, DecisionLog, EnvelopeSet, GoldenSet, ManifestLoad
from ..manifest import EnvelopeManifest, GoldenManifest
from ..review import (
    CheckResult,
    review_decision_log,
    review_envelope_set,
    review_golden_set,
)
from ..source import MAX_LINE_BYTES
from .nodes import PolicyCheckItem, PolicyDataFile
from .options import OPTIONS, add_options, get_option, on_command_line
from .summary import PolicyTally

__all__ = ["RUN_KEY", "PolicyRun"]

#: The file an ``--policy-eval`` directory must hold.
ENVELOPE_FILE: Final = "prompts.jsonl"
#: The suffix of a manifest beside its data: ``prompts.jsonl`` -> ``prompts.manifest.json``.
MANIFEST_SUFFIX: Final = ".manifest.json"

RUN_KEY = pytest.StashKey["PolicyRun"]()
# A usage error raised here may be about a session-eval option too (an output at a policy file).
EVERY_OPTION: Final = (*SESSION_OPTIONS, *OPTIONS)


def manifest_beside(data: Path) -> Path:
    """Where a data file's manifest is looked for: ``<stem>.manifest.json`` beside it."""
    return data.with_name(data.stem + MANIFEST_SUFFIX)


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    add_options(parser)
    note_missed_ini_files(pluginmanager, OPTIONS)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Remember the paths pytest would collect before any plugin changes them."""
    remember_default_args(config)


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """Check the inputs (a bad one is a usage error) and register the run."""
    with naming_options_as_given(config, EVERY_OPTION):
        _configure(config)


def _configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "policy_eval: a check of a policy-eval dataset (envelope set, golden set, decisions)"
    )
    if RUN_KEY in config.stash or only_informs(config):
        return
    if not is_worker(config):
        warn_if_ini_file_was_missed(config, OPTIONS)
    paths: list[Path] = get_option(config, "--policy-eval")
    manifest: Path | None = get_option(config, "--policy-manifest")
    decisions: Path | None = get_option(config, "--policy-decisions")
    if not paths:
        for flag, given in (("--policy-manifest", manifest), ("--policy-decisions", decisions)):
            if given is not None:
                raise usage_error(flag, "needs an envelope set to check: give --policy-eval PATH too")
        return
    refuse_without_skipping(config, "--policy-eval")
    snapshots(config)  # a worker reads what the controller fixed, from the manifests on
    run = PolicyRun.from_inputs(config, paths, manifest, decisions)
    fix_inputs(config, [path for path, _ in run.files_read])
    claim_files(config, run.files_read)
    config.stash[RUN_KEY] = run
    config.pluginmanager.register(run, "policy-eval-run")
    # Each file under what named it, for a path pytest cannot collect: a golden set is named by a manifest.
    from_ini = not on_command_line(config, "--policy-eval")
    add_collection_args(config, [source.file.path for source in run.envelopes], "--policy-eval", from_ini=from_ini)
    for golden in run.goldens:
        add_collection_args(config, [golden.file.path], golden.named_by, from_ini=from_ini)
    if run.decisions is not None:
        add_collection_args(config, [run.decisions.path], "--policy-decisions", from_ini=from_ini)
    register_wire_safety(config)


# What a file given as policy data holds, told by the first object that names one of these
# keys: envelopes name prompt_or_scenario, decisions scenario_id, and the rest is data of
# the session plugin.
_DATA_KINDS: Final = {
    "prompt_or_scenario": "policy envelopes (give them to --policy-eval)",
    "scenario_id": "policy decisions (give them to --policy-decisions)",
    "record_kind": "eval journal records (give them to --session-eval)",
    "event": "orchestrator events, not policy data",
    "session_id": "session records (give them to --session-eval)",
}


def _refuse_other_data(flag: str, path: Path, key: str) -> None:
    """A usage error when the file plainly holds another kind of data than ``flag`` reads
    (its first identifying object tells), or is a JSON document over several lines (a
    golden set, a manifest). A file that is merely broken is checked as given: each of
    its faults is an item."""
    try:
        # Told within the policy data's own line limit: a longer line is never read whole.
        document = opens_json_document(path, MAX_LINE_BYTES)
        named = None if document else first_named(path, tuple(_DATA_KINDS), MAX_LINE_BYTES)
    except OSError:
        return  # reading it for the checks says why
    if document:
        raise usage_error(
            flag,
            f"{path}: holds a JSON document over several lines, not JSON lines (a golden set is named by "
            "the manifest's golden_set, and the manifest sits beside the envelope set)",
        )
    if named is not None and named.key is not None and named.key != key:
        raise usage_error(flag, f"{path}: line {named.line} names {named.key}: the file holds {_DATA_KINDS[named.key]}")


@dataclass(frozen=True)
class _EnvelopeSource:
    file: DataFile
    manifest: ManifestLoad[EnvelopeManifest]


@dataclass(frozen=True)
class _GoldenSource:
    file: DataFile
    manifest: ManifestLoad[GoldenManifest]
    named_by: str  # "<envelope manifest>'s golden_set": where the path comes from, for messages


_Read = TypeVar("_Read")


def _read(reader: Callable[[DataFile], _Read], file: DataFile) -> _Read:
    """``reader(file)``; a file that cannot be read is a usage error naming it."""
    try:
        return reader(file)
    except InputChanged:
        raise
    except OSError as exc:
        raise pytest.UsageError(f"policy eval: cannot read {file.path}: {exc.strerror or exc}") from None


class PolicyRun:
    """One pytest run's policy evals, registered as a plugin while the run lasts."""

    def __init__(
        self,
        envelopes: list[_EnvelopeSource],
        goldens: list[_GoldenSource],
        decisions: DataFile | None,
    ) -> None:
        self.envelopes = envelopes
        self.goldens = goldens
        self.decisions = decisions
        self.verdicts: dict[Path, tuple[str, list[CheckResult]]] = {}
        self.tally = PolicyTally()
        self.refused: str | None = None  # on a worker: why an input cannot be read (it changed)

    @classmethod
    def from_inputs(
        cls, config: pytest.Config, paths: list[Path], manifest: Path | None, decisions: Path | None
    ) -> PolicyRun:
        """Resolve and check every input path; read the (small) manifests to find golden sets."""
        base = config.invocation_params.dir

        def data_file(path: Path) -> DataFile:
            label = os.path.relpath(path, base) if path.is_relative_to(base) else str(path)
            return DataFile(path, label)

        envelope_paths: list[Path] = []
        for path in paths:
            if path_kind("--policy-eval", path) == "dir":
                if path_kind("--policy-eval", path / ENVELOPE_FILE) is None:  # else readable_file says what it is
                    raise usage_error("--policy-eval", f"{path}: directory holds no {ENVELOPE_FILE}")
                path = path / ENVELOPE_FILE
            resolved = readable_file("--policy-eval", path)
            _refuse_other_data("--policy-eval", resolved, "prompt_or_scenario")
            if resolved not in envelope_paths:
                envelope_paths.append(resolved)
        if manifest is not None:
            if len(envelope_paths) > 1:
                raise usage_error(
                    "--policy-manifest",
                    f"one manifest cannot serve {len(envelope_paths)} envelope sets; give one --policy-eval, "
                    f"or put a <stem>{MANIFEST_SUFFIX} beside each set",
                )
            manifest = readable_file("--policy-manifest", manifest)
        decisions_file = None
        if decisions is not None:
            decisions = readable_file("--policy-decisions", decisions)
            if decisions in envelope_paths:
                raise usage_error("--policy-decisions", f"{decisions} is also given as an envelope set (--policy-eval)")
            _refuse_other_data("--policy-decisions", decisions, "scenario_id")
            decisions_file = data_file(decisions)
        envelopes = [
            _EnvelopeSource(
                data_file(path),
                ManifestLoad.read(EnvelopeManifest, data_file(manifest or manifest_beside(path))),
            )
            for path in envelope_paths
        ]
        goldens: list[_GoldenSource] = []
        for envelope in envelopes:
            golden = envelope.manifest.golden_path
            if golden is None:
                continue
            golden = absolute(golden)
            same = file_identity(golden)
            role = (
                "an envelope set"
                if any(file_identity(path) == same for path in envelope_paths)
                else "the decisions file"
                if decisions_file and file_identity(decisions_file.path) == same
                else None
            )
            if role:  # it would be checked as that, never as a golden set
                raise usage_error(
                    "--policy-eval",
                    f"{envelope.manifest.file.label} names {golden} as its golden set, but that file is {role} of this run",
                )
            if all(known.file.path != golden for known in goldens):
                goldens.append(
                    _GoldenSource(
                        data_file(golden),
                        ManifestLoad.read(GoldenManifest, data_file(manifest_beside(golden))),
                        f"{envelope.manifest.file.label}'s golden_set",
                    )
                )
        return cls(envelopes, goldens, decisions_file)

    @property
    def files_read(self) -> list[tuple[Path, str]]:
        """Every file this run reads, with what it is."""
        files = [(source.file.path, "an envelope set") for source in self.envelopes]
        files += [(source.file.path, "a golden set") for source in self.goldens]
        if self.decisions is not None:
            files.append((self.decisions.path, "the decisions file"))
        # Also where no manifest is yet: one written there would be read next time.
        files += [(source.manifest.file.path, "a manifest") for source in self.envelopes]
        files += [(source.manifest.file.path, "a manifest") for source in self.goldens]
        return files

    @property
    def data_paths(self) -> list[Path]:
        """The files that become pytest collectors."""
        return [path for path, what in self.files_read if what != "a manifest"]

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """Read and review every data file once, before collection."""
        with naming_options_as_given(session.config, EVERY_OPTION):
            try:
                self._start(session)
            except InputChanged as exc:
                if not is_worker(session.config):
                    raise pytest.UsageError(f"policy eval: {refused(exc)}") from None
                self.refused = refused(exc)  # a collection error: a worker's usage error would go unreported

    def _start(self, session: pytest.Session) -> None:
        index_teardown_reports(session.config.pluginmanager.getplugin("terminalreporter"))
        sets = [(source, _read(EnvelopeSet.read, source.file)) for source in self.envelopes]
        log = _read(DecisionLog.read, self.decisions) if self.decisions is not None else None
        goldens = [(source, _read(GoldenSet.read, source.file)) for source in self.goldens]
        for source, envelopes in sets:
            self.verdicts[source.file.path] = ("envelope-set", review_envelope_set(envelopes, source.manifest, log))
        if log is not None:
            known: dict[str, list[str]] = {}
            faulty: dict[str, str] = {}
            unreadable: list[str] = []
            for _, envelopes in sets:
                for scenario_id in sorted(envelopes.ids):
                    known.setdefault(scenario_id, []).append(envelopes.file.label)
                for scenario_id, line in envelopes.faulty_ids.items():
                    faulty.setdefault(scenario_id, envelopes.file.at(line))
                # Lines that could not be read, and records whose id is missing or invalid (a
                # typo may hide the scenario named), in line order.
                unsure = sorted({*envelopes.unreadable_lines, *envelopes.id_unsure_lines})
                unreadable += [envelopes.file.at(line) for line in unsure]
            self.verdicts[log.file.path] = ("decisions", review_decision_log(log, known, faulty, unreadable))
        for golden_source, golden in goldens:
            self.verdicts[golden_source.file.path] = ("golden-set", review_golden_set(golden, golden_source.manifest))

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
        if self.refused is not None and absolute(file_path) in self.data_paths:
            nodeid = data_file_node_id(parent.config, file_path)
            return RefusedInput.from_parent(parent, path=file_path, nodeid=nodeid, message=self.refused)
        found = self.verdicts.get(absolute(file_path))
        if found is None:
            return None
        kind, verdicts = found
        return PolicyDataFile.from_parent(
            parent, path=file_path, nodeid=data_file_node_id(parent.config, file_path), verdicts=verdicts, kind=kind
        )

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.tally.add(report)

    def pytest_terminal_summary(self, terminalreporter: Any, config: pytest.Config) -> None:
        if is_worker(config) or runs_no_item(config):
            return
        lines = self.tally.lines()
        if lines:
            terminalreporter.write_sep("=", "policy evaluation")
            for line in lines:
                terminalreporter.write_line(line)


@pytest.hookimpl(optionalhook=True)
def pytest_json_runtest_metadata(item: pytest.Item, call: pytest.CallInfo[None]) -> dict[str, Any] | None:
    """pytest-json-report: each policy item's verdict under ``metadata.policy_eval``."""
    if isinstance(item, PolicyCheckItem):
        return {"policy_eval": wire_safe(item.metadata())}  # the same with and without xdist
    return None
