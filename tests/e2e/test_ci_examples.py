"""The CI examples run: the evaluation commands of examples/ci/ (read from their YAML) on the
shipped metrics, as main's run and then as a pull request's, whose baseline is main's summary.

The steps that need the network (installing the package, fetching main's summary) are not
run: the test puts main's summary where the fetching step puts it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml
from builders import EXAMPLES, copy_example


def _run(script: str, cwd: Path, env: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    """``script`` as the CI runner runs it: bash, stopping at the first failing command, with
    this environment's python first on the PATH."""
    environment = {**os.environ, **{key: str(value) for key, value in env.items()}}
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment.get('PATH', '')}"
    return subprocess.run(["bash", "-e", "-c", script], cwd=cwd, env=environment, capture_output=True, text=True)


def _testcases(junit: Path) -> dict[str, str]:
    """Each testcase of a JUnit report (class and name) and its result."""
    cases = {}
    for case in ET.parse(junit).iter("testcase"):
        result = next((tag for tag in ("failure", "error", "skipped") if case.find(tag) is not None), "passed")
        cases[f"{case.get('classname')}::{case.get('name')}"] = result
    return cases


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A checkout whose metrics are the shipped example, where the examples look for them."""
    copy_example(tmp_path / ".orchestrator", "metrics")
    return tmp_path


def _as_main_then_pull_request(run: Any, project: Path, fetch_baseline: Any) -> list[dict[str, str]]:
    """Run the evaluation as main's run, then (with main's summary fetched) as a pull request's;
    the JUnit testcases of each."""
    junits = []
    for fetched in (False, True):
        if fetched:
            fetch_baseline()
        done = run()
        assert done.returncode == 0, done.stdout + done.stderr
        junits.append(_testcases(project / "junit.xml"))
    return junits


def _check(junits: list[dict[str, str]]) -> None:
    main, pull_request = junits
    for cases in junits:
        assert "failure" in cases.values()  # failed sessions are reported as they are, yet the job passes
        assert cases["session-eval::require[gate-health>=0.8]"] == "passed"
        assert cases["session-eval::require[process-safety>=0.8]"] == "passed"
    assert not any("regression" in name for name in main)  # main has no baseline
    regressions = {name: result for name, result in pull_request.items() if "::regression[" in name}
    assert len(regressions) == 5 and regressions["session-eval::regression[gate-health]"] == "passed"


def test_the_github_actions_workflow_evaluates_and_gates(project: Path) -> None:
    workflow = yaml.safe_load((EXAMPLES / "ci" / "github-actions.yml").read_text())
    (job,) = workflow["jobs"].values()
    steps = {step.get("name", step.get("uses")): step for step in job["steps"]}
    evaluate = steps["Evaluate"]
    summary = project / "step-summary.md"
    summary.touch()  # the runner creates it
    env = {**workflow["env"], **evaluate.get("env", {}), "GITHUB_STEP_SUMMARY": summary}

    def fetch() -> None:  # gh run download --name session-eval-summary --dir baseline
        assert "--name session-eval-summary --dir baseline" in steps["Fetch main's summary"]["run"]
        (project / "baseline").mkdir()
        shutil.copy(project / "summary.json", project / "baseline" / "summary.json")

    _check(_as_main_then_pull_request(lambda: _run(evaluate["run"], project, env), project, fetch))
    assert summary.read_text().count("### Session evaluation (rubric-v1)") == 2  # each run appended its own
    uploaded = {
        step["with"]["name"]: step["with"]["path"] for step in job["steps"] if "upload-artifact" in step.get("uses", "")
    }
    assert uploaded == {"session-eval-page": "session-eval.html", "session-eval-summary": "summary.json"}
    assert all((project / path).is_file() for path in uploaded.values())
    assert (project / steps["Publish the JUnit report"]["with"]["report_paths"]).is_file()


def test_the_gitlab_ci_job_evaluates_and_gates(project: Path) -> None:
    (job,) = yaml.safe_load((EXAMPLES / "ci" / "gitlab-ci.yml").read_text()).values()
    script = "\n".join(job["script"])
    assert any("--output baseline.json" in line for line in job["before_script"])

    def fetch() -> None:  # curl ... --output baseline.json
        shutil.copy(project / "summary.json", project / "baseline.json")

    _check(_as_main_then_pull_request(lambda: _run(script, project, job["variables"]), project, fetch))
    artifacts = job["artifacts"]
    assert all((project / path).is_file() for path in [*artifacts["paths"], artifacts["reports"]["junit"]])
    assert (project / "summary.md").read_text().count("### Session evaluation (rubric-v1)") == 2
