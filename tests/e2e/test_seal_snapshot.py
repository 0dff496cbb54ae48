"""A journal re-verified while other runs append to it and its seal: every process of the run
checks the runs sealed when it began, and a run appended since is not seen, never taken for
tampering."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import time
from pathlib import Path

import pytest
from builders import MetricsWriter, gate, session

STAMP = "2026-08-01T00:00:00.000Z"
LATER = "2026-08-02T00:00:00.000Z"

# Right after the run fixed its inputs, before anything reads them, the journal or its seal
# is changed (by default: another run appends a whole sealed run, its records and a seal
# line, under the journal's lock, as an append does).
CHANGE_ONCE_FIXED = """
import json
from pathlib import Path

import pytest_sessioneval.plugin.run as run
from pytest_sessioneval.records.journal import append_records

HERE = Path(__file__).parent
_fix_inputs = run.fix_inputs


def _fix_then_append(config, *args, **kwargs):
    fixed = _fix_inputs(config, *args, **kwargs)
    if not hasattr(config, "workerinput"):
        {change}
    return fixed


def pytest_configure(config):
    run.fix_inputs = _fix_then_append


def pytest_unconfigure(config):
    run.fix_inputs = _fix_inputs
"""
APPEND_ONCE_FIXED = CHANGE_ONCE_FIXED.format(
    change="records = [json.loads(line) for line in (HERE / 'later.jsonl').read_text().splitlines()]\n"
    "        assert append_records(HERE / 'eval.jsonl', records).written"
)

# Real runs appending to the journal, one after the other, until the deadline given.
APPENDING_RUNS = """
import sys, time
import pytest

metrics, deadline = sys.argv[1], float(sys.argv[2])
n = 0
while time.time() < deadline:
    n += 1
    pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:xdist", "--session-eval", metrics,
                 "--session-eval-journal", "eval.jsonl", "--session-eval-model-id", "claude-opus-4",
                 "--session-eval-timestamp", f"2026-08-03T00:{n // 60:02d}:{n % 60:02d}Z"])
print(n, flush=True)
"""


@pytest.fixture
def metrics(project_metrics: MetricsWriter) -> Path:
    return project_metrics(
        [
            session("a", "2026-07-20T09:00:00Z", "2026-07-20T10:00:00Z", effectiveness={"completion_rate": 0.9}),
            session("b", "2026-07-21T09:00:00Z", "2026-07-21T10:00:00Z", effectiveness={"completion_rate": 0.5}),
        ],
        [
            {"event": "orchestrator.session.started", "timestamp": "2026-07-20T09:00:00Z", "host_class": "laptop"},
            gate("2026-07-20T09:30:00Z", 0),
            gate("2026-07-21T09:30:00Z", 1),
        ],
    )


def _journal_run(pytester: pytest.Pytester, metrics: Path, stamp: str) -> None:
    pytester.runpytest(
        *("--session-eval", str(metrics), "--session-eval-journal", "eval.jsonl"),
        *("--session-eval-timestamp", stamp, "--session-eval-model-id", "claude-opus-4"),
    )


def _verify(pytester: pytest.Pytester, metrics: Path, workers: str) -> pytest.RunResult:
    spread = ("-n", "2") if workers == "2" else ("-p", "no:xdist")
    return pytester.runpytest(
        "--session-eval", str(metrics), "--session-eval-verify", "eval.jsonl", "-v", "-p", "no:randomly", *spread
    )


@pytest.fixture(params=["serial", "2"], ids=["serial", "n2"])
def workers(request: pytest.FixtureRequest) -> str:
    if request.param == "2":
        pytest.importorskip("xdist")
    return str(request.param)


@pytest.mark.parametrize("seal", ["sealed", "made-by-the-append", "torn-line-cut-by-the-append"])
def test_a_run_sealed_after_the_journal_was_fixed_is_not_seen(
    pytester: pytest.Pytester, metrics: Path, workers: str, seal: str
) -> None:
    _journal_run(pytester, metrics, LATER)
    (pytester.path / "eval.jsonl").rename(pytester.path / "later.jsonl")
    sealing = pytester.path / "eval.jsonl.seal"
    sealing.unlink()
    _journal_run(pytester, metrics, STAMP)
    if seal == "made-by-the-append":
        sealing.unlink()  # a journal kept before seals: the append makes its seal
    elif seal == "torn-line-cut-by-the-append":  # a crash cut a run's seal line short
        _journal_run(pytester, metrics, "2026-08-01T12:00:00.000Z")
        sealing.write_bytes(sealing.read_bytes()[:-40])
    untouched = _verify(pytester, metrics, workers)
    journal = (pytester.path / "eval.jsonl").read_bytes()
    seal_lines = sealing.read_bytes().splitlines() if sealing.exists() else []
    pytester.makeconftest(APPEND_ONCE_FIXED)
    result = _verify(pytester, metrics, workers)
    out = result.stdout.str()
    grown = (pytester.path / "eval.jsonl").read_bytes()
    assert grown.startswith(journal) and len(grown) > len(journal)  # the run was appended, and sealed
    kept = seal_lines[:1]  # (a torn line is cut off by the append)
    assert sealing.read_bytes().splitlines()[: len(kept)] == kept and b"2026-08-02" in sealing.read_bytes()
    assert "Different tests were collected" not in out
    assert result.ret == untouched.ret, out
    assert result.parseoutcomes() == untouched.parseoutcomes()
    assert "2026-08-02" not in out
    if seal == "torn-line-cut-by-the-append":
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        result.stdout.fnmatch_lines(["eval.jsonl.seal:2: seal line 2: broken", "it is no seal line: it is torn*"])
    else:
        assert result.ret == pytest.ExitCode.OK and "broken" not in out
        assert ("; 1 sealed run(s) intact, 0 not" in out) == (seal == "sealed")
    if seal != "made-by-the-append":  # the head checked is of line 1, though the seal holds more now
        head = hashlib.sha256(sealing.read_bytes().splitlines(keepends=True)[0]).hexdigest()
        result.stdout.fnmatch_lines([f"eval.jsonl.seal: * sealed run(s); chain head {head}, of line 1 (sed -n 1p *"])


def test_verify_under_real_runs_appending_never_fails(pytester: pytest.Pytester, metrics: Path, workers: str) -> None:
    _journal_run(pytester, metrics, STAMP)
    deadline = time.time() + 6
    appending = subprocess.Popen(
        [sys.executable, "-c", APPENDING_RUNS, str(metrics), str(deadline)],
        cwd=pytester.path,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    verified = 0
    try:
        while verified == 0 or (appending.poll() is None and time.time() < deadline):
            result = _verify(pytester, metrics, workers)
            out = result.stdout.str()
            assert "Different tests were collected" not in out
            assert result.ret == pytest.ExitCode.OK, out
            assert "broken" not in out and ", 0 not" in out, out
            verified += 1
        appended = int(appending.communicate(timeout=120)[0].split()[-1])
    finally:
        appending.kill()
        appending.wait()
    assert appended >= 1
    seal_lines = len((pytester.path / "eval.jsonl.seal").read_bytes().splitlines())
    assert seal_lines == 1 + appended
    final = _verify(pytester, metrics, workers)
    assert final.ret == pytest.ExitCode.OK
    final.stdout.fnmatch_lines([f"re-verification: * {seal_lines} sealed run(s) intact, 0 not"])


def test_a_journal_verified_and_given_as_input_under_another_name_is_fixed_with_its_seal(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    _journal_run(pytester, metrics, LATER)
    (pytester.path / "eval.jsonl").rename(pytester.path / "later.jsonl")
    (pytester.path / "eval.jsonl.seal").unlink()
    _journal_run(pytester, metrics, STAMP)
    (pytester.path / "link.jsonl").symlink_to(pytester.path / "eval.jsonl")
    pytester.makeconftest(APPEND_ONCE_FIXED)
    result = pytester.runpytest(
        *("--session-eval", str(metrics), "--session-eval", "link.jsonl", "--session-eval-verify", "eval.jsonl"),
        *("-p", "no:xdist"),
    )
    assert b"2026-08-02" in (pytester.path / "eval.jsonl.seal").read_bytes()  # appended
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines(["re-verification: *; 1 sealed run(s) intact, 0 not"])


def test_a_seal_rewritten_after_the_run_began_is_refused_naming_it(
    pytester: pytest.Pytester, metrics: Path, workers: str
) -> None:
    _journal_run(pytester, metrics, STAMP)
    rewrite = "seal = HERE / 'eval.jsonl.seal'\n        seal.write_bytes(seal.read_bytes().replace(b'2026', b'2025'))"
    pytester.makeconftest(CHANGE_ONCE_FIXED.format(change=rewrite))
    result = _verify(pytester, metrics, workers)  # (the controller reads it first, as any input)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --session-eval: cannot read */eval.jsonl.seal: its first * bytes are not those it held when the run*"]
    )
