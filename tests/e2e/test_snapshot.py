"""Inputs that change while a run reads them: every process reads what the run began with."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from builders import MetricsWriter, scenario, session, write_jsonl

pytest.importorskip("xdist")

# Worker gw1 appends to (or changes) a file only once worker gw0 has read it: without one
# prefix fixed for the run, the two would collect different items.
CHANGE_ON_GW1 = """
import time
from pathlib import Path

import pytest

HERE = Path(__file__).parent
TARGET = HERE / {target!r}


def _worker(config):
    return getattr(config, "workerinput", {{}}).get("workerid")


def pytest_configure(config):
    if _worker(config) != "gw1":
        return
    deadline = time.monotonic() + 30
    while not (HERE / "gw0-read").exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    data = TARGET.read_bytes()
    {change}


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session):
    if _worker(session.config) == "gw0":
        (HERE / "gw0-read").touch()
"""

APPEND = "TARGET.write_bytes(data + {line!r})"
REWRITE = "TARGET.write_bytes(data.replace(b'early', b'later'))"  # the same length, other bytes
CUT = "TARGET.write_bytes(data[: len(data) // 2])"


def _session_line(session_id: str) -> bytes:
    return json.dumps(session(session_id, "2026-07-22T09:00:00Z", "2026-07-22T10:00:00Z")).encode() + b"\n"


@pytest.fixture
def metrics(project_metrics: MetricsWriter) -> Path:
    return project_metrics(
        [
            session("early", "2026-07-20T09:00:00Z", "2026-07-20T10:00:00Z"),
            session("other", "2026-07-21T09:00:00Z", "2026-07-21T10:00:00Z"),
        ]
    )


def _journal_run(pytester: pytest.Pytester, *extra: str) -> pytest.RunResult:
    return pytester.runpytest(
        "--session-eval",
        "metrics",
        "--session-eval-journal",
        "eval.jsonl",
        "--session-eval-model-id",
        "m",
        "--session-eval-timestamp",
        "2026-08-01T00:00:00Z",
        "-p",
        "no:randomly",
        *extra,
    )


def _journal_ids(path: Path) -> list[str]:
    return sorted(json.loads(line)["session_id"] for line in path.read_text().splitlines())


def test_a_sessions_file_appended_to_under_the_workers_is_read_as_the_run_began(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    change = APPEND.format(line=_session_line("late"))
    pytester.makeconftest(CHANGE_ON_GW1.format(target="metrics/sessions.jsonl", change=change))
    serial = _journal_run(pytester, "-p", "no:xdist")  # (no worker gw1: nothing changes)
    (pytester.path / "eval.jsonl").rename(pytester.path / "serial.jsonl")
    result = _journal_run(pytester, "-n", "2")
    assert "Different tests were collected" not in result.stdout.str() + result.stderr.str()
    assert b"late" in (metrics / "sessions.jsonl").read_bytes()  # it grew: the appended session is not read
    assert result.ret == serial.ret and result.parseoutcomes() == serial.parseoutcomes()
    assert _journal_ids(pytester.path / "eval.jsonl") == _journal_ids(pytester.path / "serial.jsonl")
    assert "late" not in result.stdout.str()


@pytest.mark.parametrize("change", [REWRITE, CUT], ids=["rewritten", "cut"])
def test_a_sessions_file_changed_under_the_workers_is_refused_naming_it(
    pytester: pytest.Pytester, metrics: Path, change: str
) -> None:
    pytester.makeconftest(CHANGE_ON_GW1.format(target="metrics/sessions.jsonl", change=change))
    result = _journal_run(pytester, "-n", "2")
    assert result.ret != pytest.ExitCode.OK
    why = "are not those it held when the run began" if change == REWRITE else "shorter than the"
    # gw1 refuses the file it was to read; gw0, which read it before, collects as ever.
    result.stdout.fnmatch_lines(
        ["*ERROR collecting metrics/sessions.jsonl*", f"cannot read */metrics/sessions.jsonl: *{why}*"]
    )
    assert not (pytester.path / "eval.jsonl").exists() or not (pytester.path / "eval.jsonl").read_bytes()


def _record_lines(pytester: pytest.Pytester) -> list[bytes]:
    """The journal of a run over ``metrics``, as lines."""
    _journal_run(pytester)
    return (pytester.path / "eval.jsonl").read_bytes().splitlines(keepends=True)


def test_verify_of_a_journal_growing_under_the_workers_is_consistent(pytester: pytest.Pytester, metrics: Path) -> None:
    lines = _record_lines(pytester)
    (pytester.path / "eval.jsonl").write_bytes(lines[0])
    (pytester.path / "eval.jsonl.seal").unlink()  # (it seals both records: this journal is written by hand)
    change = APPEND.format(line=lines[1])  # a record appended meanwhile, as an orchestrator does
    pytester.makeconftest(CHANGE_ON_GW1.format(target="eval.jsonl", change=change))
    result = pytester.runpytest("--session-eval", "metrics", "--session-eval-verify", "eval.jsonl", "-n", "2", "-v")
    assert "Different tests were collected" not in result.stdout.str()
    assert (pytester.path / "eval.jsonl").read_bytes() == lines[0] + lines[1]
    verified = set(re.findall(r"eval\.jsonl::([^\[\s]+)", result.stdout.str()))
    first = json.loads(lines[0])["session_id"]
    assert verified and all(name.startswith(first) for name in verified), verified


def test_a_journal_whose_last_line_is_being_written_is_read_up_to_its_last_newline(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    lines = _record_lines(pytester)
    verify = ("--session-eval", "metrics", "--session-eval-verify", "eval.jsonl", "-v")
    (pytester.path / "eval.jsonl").write_bytes(lines[0])
    whole = pytester.runpytest(*verify)
    torn = lines[1][: len(lines[1]) // 2]
    (pytester.path / "eval.jsonl").write_bytes(lines[0] + torn)
    result = pytester.runpytest(*verify)
    assert "[unreadable]" not in result.stdout.str()
    assert result.ret == whole.ret and result.parseoutcomes() == whole.parseoutcomes()
    result.stdout.fnmatch_lines(
        [f"eval.jsonl: its last line has no newline yet*the {len(torn)} byte(s) after the last newline are not read"]
    )


def test_policy_data_appended_to_under_the_workers_is_read_as_the_run_began(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    write_jsonl(pytester.path / "prompts.jsonl", [scenario(id="early-one"), scenario(id="other-one")])
    change = APPEND.format(line=json.dumps(scenario(id="late-one")).encode() + b"\n")
    pytester.makeconftest(CHANGE_ON_GW1.format(target="prompts.jsonl", change=change))
    result = pytester.runpytest("--policy-eval", "prompts.jsonl", "-n", "2", "-p", "no:randomly")
    assert "Different tests were collected" not in result.stdout.str()
    assert result.ret == pytest.ExitCode.OK
    assert "late-one" not in result.stdout.str()


def test_policy_data_rewritten_after_the_run_began_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    write_jsonl(pytester.path / "prompts.jsonl", [scenario(id="early-one")])
    pytester.makeconftest(  # between the inputs fixed (at configure) and read (at session start)
        "from pathlib import Path\n"
        "import pytest\n"
        "@pytest.hookimpl(tryfirst=True)\n"
        "def pytest_sessionstart(session):\n"
        "    path = Path(__file__).parent / 'prompts.jsonl'\n"
        "    path.write_bytes(path.read_bytes().replace(b'early', b'later'))\n"
    )
    result = pytester.runpytest("--policy-eval", "prompts.jsonl", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: policy eval: cannot read */prompts.jsonl: *are not those it held*"])


def test_a_journal_read_and_appended_to_sees_the_records_added_since_the_run_began(
    pytester: pytest.Pytester, metrics: Path
) -> None:
    def run(journal: str, stamp: str, *extra: str) -> pytest.RunResult:
        return pytester.runpytest(
            "--session-eval", "metrics", *extra, "--session-eval-journal", journal,
            "--session-eval-model-id", "m", "--session-eval-timestamp", stamp,
        )  # fmt: skip

    run("earlier.jsonl", "2026-08-01T00:00:00Z")
    run("later.jsonl", "2026-08-02T00:00:00Z")
    earlier, later = (pytester.path / "earlier.jsonl").read_bytes(), (pytester.path / "later.jsonl").read_bytes()
    (pytester.path / "eval.jsonl").write_bytes(earlier)
    pytester.makeconftest(  # another run appends the same records meanwhile
        "from pathlib import Path\n"
        "def pytest_collection_finish(session):\n"
        "    here = Path(__file__).parent\n"
        "    with open(here / 'eval.jsonl', 'ab') as journal:\n"
        "        journal.write((here / 'later.jsonl').read_bytes())\n"
    )
    result = run("eval.jsonl", "2026-08-02T00:00:00Z", "--session-eval", "eval.jsonl")
    result.stdout.fnmatch_lines(["journal eval.jsonl: 0 record(s) appended, 2 already present"])
    assert (pytester.path / "eval.jsonl").read_bytes() == earlier + later


def test_a_baseline_rewritten_under_the_workers_is_refused_naming_it(pytester: pytest.Pytester, metrics: Path) -> None:
    _journal_run(pytester)
    (pytester.path / "eval.jsonl").rename(pytester.path / "baseline.jsonl")
    pytester.makeconftest(CHANGE_ON_GW1.format(target="baseline.jsonl", change=REWRITE))
    result = pytester.runpytest("--session-eval", "metrics", "--session-eval-baseline", "baseline.jsonl", "-n", "2")
    assert result.ret != pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["*ERROR collecting metrics/sessions.jsonl*", "cannot read */baseline.jsonl: *are not those it held*"]
    )
