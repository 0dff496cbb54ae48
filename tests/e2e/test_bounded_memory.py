"""Memory stays bounded by the line limit, whatever line an input holds: a run over a file
with a line of 1 GiB (NUL bytes in a sparse file: no disk is used) stays within an address
space of an ordinary run's plus a few hundred MiB, in every kind of input, and reports the
line; the same limit stops a reader that takes the line whole (the control)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from builders import MetricsWriter, copy_example, session

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads VmPeak from /proc")

GIB = 1 << 30
HEADROOM = 300 << 20  # over an ordinary run's peak address space

# Runs pytest (or, for the control, reads a file's first line whole) under an address-space
# limit, and writes its exit status and peak address space (VmPeak) as JSON.
DRIVER = """
import json, resource, sys
limit, report, *args = sys.argv[1:]
if int(limit):
    resource.setrlimit(resource.RLIMIT_AS, (int(limit), int(limit)))
if args[0] == "--read-first-line":
    try:
        with open(args[1], "rb") as stream:
            outcome = len(stream.readline())
    except MemoryError:
        outcome = "MemoryError"
else:
    import pytest
    outcome = int(pytest.main(args))
with open("/proc/self/status") as status:
    peak = next(int(row.split()[1]) * 1024 for row in status if row.startswith("VmPeak:"))
with open(report, "w") as out:
    json.dump({"outcome": outcome, "peak": peak}, out)
"""


def drive(directory: Path, limit: int, *args: str) -> tuple[dict[str, Any], str]:
    """Run the driver in ``directory`` under ``limit`` bytes of address space (0: none)."""
    (directory / "driver.py").write_text(DRIVER, encoding="utf-8")
    report = directory / "report.json"
    done = subprocess.run(
        [sys.executable, "driver.py", str(limit), str(report), *args],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = done.stdout + done.stderr
    assert report.exists(), output
    return json.loads(report.read_text(encoding="utf-8")), output


def with_nul_line(path: Path, after_line: int) -> int:
    """Put a line of 1 GiB of NUL bytes after line ``after_line`` of ``path``, as a sparse
    file; the offset of the line after it."""
    lines = path.read_bytes().splitlines(keepends=True)
    head, tail = b"".join(lines[:after_line]), b"".join(lines[after_line:])
    path.write_bytes(head)
    os.truncate(path, len(head) + GIB)
    with path.open("ab") as stream:
        stream.write(b"\n" + tail)
    return len(head) + GIB + 1


def outcome_line(output: str) -> str:
    """The outcomes of pytest's last line, its warnings and timing left out: ``9 failed, 27 passed, ...``."""
    counts = output.strip().splitlines()[-1].split(" in ")[0].split(", ")
    return ", ".join(count for count in counts if "warning" not in count)


@pytest.fixture(scope="module")
def ordinary(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """An ordinary run over the example metrics: its peak address space, its outcome line
    and the journal it wrote (which the journal cases start from)."""
    directory = tmp_path_factory.mktemp("ordinary")
    copy_example(directory, "metrics")
    found, output = drive(
        directory,
        0,
        "-p",
        "no:cacheprovider",
        "-q",
        "--session-eval=metrics",
        "--session-eval-journal=eval.jsonl",
        "--session-eval-model-id=m",
    )
    assert found["outcome"] in (0, 1), output
    return {"peak": found["peak"], "outcome": outcome_line(output), "journal": (directory / "eval.jsonl").read_bytes()}


OVER = "line is 1073741824 bytes, over the 64 MiB limit (--session-eval-max-line-bytes)"
POLICY_OVER = "is 1073741824 bytes long, over the 1048576-byte limit of one record"


def case(tmp_path: Path, ordinary: dict[str, Any], kind: str) -> tuple[list[str], Path, str]:
    """The arguments of a run of ``kind``, the file given a NUL line, and what it must say."""
    copy_example(tmp_path, "metrics")
    journal = tmp_path / "eval.jsonl"
    journal.write_bytes(ordinary["journal"])
    sessions = ["--session-eval=metrics"]
    if kind in ("sessions", "events", "events-fast"):
        data = tmp_path / "metrics" / ("sessions.jsonl" if kind == "sessions" else "events.jsonl")
        args = sessions + (["--session-eval-fast-events"] if kind == "events-fast" else [])
        return args, data, OVER
    if kind == "journal":
        return [*sessions, "--session-eval-journal=eval.jsonl", "--session-eval-model-id=m"], journal, ""
    if kind == "verify":
        return [*sessions, "--session-eval-verify=eval.jsonl"], journal, OVER
    if kind == "baseline":
        return [*sessions, "--session-eval-baseline=eval.jsonl"], journal, OVER
    copy_example(tmp_path, "policy")
    if kind == "policy-eval":
        return ["--policy-eval=policy/prompts.jsonl"], tmp_path / "policy" / "prompts.jsonl", POLICY_OVER
    assert kind == "policy-decisions"
    args = ["--policy-eval=policy/prompts.jsonl", "--policy-decisions=policy/decisions.jsonl"]
    return args, tmp_path / "policy" / "decisions.jsonl", POLICY_OVER


KINDS = ["sessions", "events", "events-fast", "journal", "verify", "baseline", "policy-eval", "policy-decisions"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_line_of_a_gib_is_reported_within_bounded_memory(tmp_path: Path, ordinary: dict[str, Any], kind: str) -> None:
    args, data, message = case(tmp_path, ordinary, kind)
    # Policy data: the line comes first, where telling what the file holds reads it too.
    at = 0 if kind.startswith("policy") else 2
    rest_at = with_nul_line(data, at)
    limit = ordinary["peak"] + HEADROOM
    found, output = drive(tmp_path, limit, "-p", "no:cacheprovider", "-q", "-rf", *args)
    assert "MemoryError" not in output and "INTERNALERROR" not in output, output
    assert found["outcome"] == 1, output  # failed items (the examples hold failing sessions), no error
    assert found["peak"] < limit
    assert message in output, output
    if kind in ("sessions", "events", "events-fast"):
        # The rest of the file is still read: every session scores as it does without the line.
        assert outcome_line(output) == ordinary["outcome"]
    elif kind == "baseline":
        # Every record of the journal is still read: the baseline is this very run's counts.
        compared = re.findall(r"^regression \S+: no-significant-drop: baseline (.*?); this run (.*?);", output, re.M)
        assert compared and all(before == now for before, now in compared), output
    elif kind == "verify":
        assert "line-3[unreadable]" in output and " not reproduced" in output
        assert outcome_line(output).startswith("1 failed, ")
    elif kind == "journal":
        with data.open("rb") as stream:
            stream.seek(rest_at)
            after = stream.read().count(b"\n")
        assert after == 2 * ordinary["journal"].count(b"\n") - 2  # the lines after it, and a record per session
    else:
        assert "line-1[line-length]" in output


def test_the_control_reading_the_line_whole_fails_within_that_limit(tmp_path: Path, ordinary: dict[str, Any]) -> None:
    data = tmp_path / "sessions.jsonl"
    data.write_bytes(b"{}\n")
    with_nul_line(data, 0)
    found, output = drive(tmp_path, ordinary["peak"] + HEADROOM, "--read-first-line", str(data))
    assert found["outcome"] == "MemoryError", output


def test_the_line_limit_is_set_by_the_option_or_the_ini_key(
    pytester: pytest.Pytester, project_metrics: MetricsWriter
) -> None:
    long_one = orjson.dumps(session("long", notes="n" * 3000)).decode()
    project_metrics([session("a"), long_one, session("b", "2026-07-21T09:00:00Z", "2026-07-21T10:00:00Z")], [])
    over = f"*metrics/sessions.jsonl:2: line is {len(long_one)} bytes, over the 2 KiB limit (--session-eval-max-line-bytes)*"
    default = pytester.runpytest("--session-eval=metrics", "-rA")
    default.stdout.fnmatch_lines(["*::long[[]process-safety[]]*"])  # within 64 MiB
    assert "--session-eval-max-line-bytes" not in default.stdout.str()
    given = pytester.runpytest("--session-eval=metrics", "--session-eval-max-line-bytes=2KiB", "-rA")
    given.stdout.fnmatch_lines([over, "*::a[[]process-safety[]]*", "*::b[[]process-safety[]]*"])
    assert "::long[" not in given.stdout.str()
    pytester.makeini("[pytest]\nsession_eval_max_line_bytes = 2048\n")
    pytester.runpytest("--session-eval=metrics").stdout.fnmatch_lines([over])


@pytest.mark.parametrize("value", ["abc", "0", "0KiB", "-1", "1.5MiB", "64 MB", "5GiB", "9" * 5000, ""])
def test_a_line_limit_that_is_no_size_is_a_usage_error_naming_the_option(
    pytester: pytest.Pytester, project_metrics: MetricsWriter, value: str
) -> None:
    project_metrics([session("a")], [])
    result = pytester.runpytest("--session-eval=metrics", f"--session-eval-max-line-bytes={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --session-eval-max-line-bytes: *"])
    assert "Traceback" not in result.stderr.str() and "Error" not in result.stderr.str().replace("ERROR:", "")
