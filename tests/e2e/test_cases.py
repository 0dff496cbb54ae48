"""End-to-end cases read from tables: the files of a project, a command line, and what the
run must give. Each ``cases/*.toml`` holds ``[[case]]`` tables:

```toml
[[case]]
name = "a passing gate"                       # the test's id
args = ["--session-eval", "metrics"]          # the command line (run in the case's directory)
exit = 0                                      # the run's exit status
lines = ["*1 session(s) scored*"]             # lines the output holds, in order (fnmatch)
errors = ["ERROR: *"]                         # lines stderr holds, in order (fnmatch)

[case.files]                                  # path -> its lines; a path ending .gz is gzipped
"metrics/sessions.jsonl" = ['{"session_id": "a", "status": "completed"}']

[case.outcomes]                               # every item of the run -> its outcome
"metrics/sessions.jsonl::a[gate-health]" = "skipped"
```

A case lists every item the run reports (passed, failed, skipped, xfailed, error), so an
item too many or one missing fails it.
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path
from typing import Any

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CASES = Path(__file__).with_name("cases")


def _cases() -> list[Any]:
    found = []
    for table in sorted(CASES.glob("*.toml")):
        for case in tomllib.loads(table.read_text(encoding="utf-8"))["case"]:
            found.append(pytest.param(case, id=f"{table.stem}: {case['name']}"))
    return found


def _outcome(report: pytest.TestReport) -> str | None:
    """The outcome a report decides, as pytest's summary names it (``None``: not decisive)."""
    if report.when == "call" or (report.when == "setup" and not report.passed):
        if hasattr(report, "wasxfail"):
            return "xfailed" if report.skipped else "xpassed"
        return "error" if report.when == "setup" and report.failed else report.outcome
    if report.when == "teardown" and report.failed:
        return "error"
    return None


@pytest.mark.parametrize("case", _cases())
def test_case(pytester: pytest.Pytester, case: dict[str, Any]) -> None:
    pytester.makeini("[pytest]\n")
    for name, content in case.get("files", {}).items():
        path = pytester.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        data = content if isinstance(content, str) else "".join(f"{line}\n" for line in content)
        raw = data.encode("utf-8")
        path.write_bytes(gzip.compress(raw) if name.endswith(".gz") else raw)
    result = pytester.runpytest("-p", "no:randomly", *case["args"])
    outcomes: dict[str, str] = {}
    recorder = result.reprec  # type: ignore[attr-defined]
    # (A run that ends in a usage error records nothing: pytester leaves no recorder then.)
    for report in recorder.getreports("pytest_runtest_logreport") if hasattr(recorder, "getreports") else []:
        outcome = _outcome(report)
        if outcome is not None:
            outcomes[report.nodeid] = outcome
    assert outcomes == case.get("outcomes", {}), result.stdout.str()
    assert result.ret == case["exit"], result.stdout.str() + result.stderr.str()
    if "lines" in case:
        result.stdout.fnmatch_lines(case["lines"])
    if "errors" in case:
        result.stderr.fnmatch_lines(case["errors"])
