"""The CI examples run: the evaluation commands of examples/ci/ (read from their YAML) on the
shipped metrics, as main's run and then as a pull request's, whose baseline is main's summary.

The install step runs as written: it builds a wheel from a copy of this checkout (where the
workflows keep it, a submodule) and installs it into a fresh environment, whose python then
runs the evaluation; that environment borrows the installed dependencies of this one, so
nothing but the build backend is fetched. The step that fetches main's summary is not run:
the test puts main's summary where it puts it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import venv
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml
from builders import EXAMPLES, ROOT, copy_example

import pytest_sessioneval


def _run(script: str, cwd: Path, env: dict[str, Any], bin_dir: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``script`` as the CI runner runs it: bash, stopping at the first failing command, with
    ``bin_dir`` (by default this environment's) first on the PATH."""
    environment = {**os.environ, **{key: str(value) for key, value in env.items()}}
    environment["PATH"] = f"{bin_dir or Path(sys.executable).parent}{os.pathsep}{environment.get('PATH', '')}"
    environment.pop("VIRTUAL_ENV", None)
    return subprocess.run(["bash", "-e", "-c", script], cwd=cwd, env=environment, capture_output=True, text=True)


def _install(script: str, project: Path, env: dict[str, Any], tmp_path: Path) -> Path:
    """Run the workflow's install commands in a fresh environment; its ``bin`` directory.

    The plugin's checkout is a copy of this one (its package as this environment imports it),
    where the workflow keeps it. The fresh environment sees this one's packages, all but the
    plugin, so the install resolves its dependencies without an index."""
    assert "pytest-sessioneval" not in re.sub(r'"\$\(ls dist/[^"]*\)[^"]*"', "", script), (
        "the install step names pytest-sessioneval as a package of an index, which serves none"
    )
    assert 'pip wheel --no-deps --wheel-dir dist "./$PLUGIN_CHECKOUT"' in script  # a wheel built from the checkout
    checkout = project / env["PLUGIN_CHECKOUT"]
    checkout.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, checkout / name)
    package = Path(pytest_sessioneval.__file__).parent
    shutil.copytree(package, checkout / package.name, ignore=shutil.ignore_patterns("__pycache__"))
    borrowed = tmp_path / "borrowed"  # this environment's packages, the plugin left out
    borrowed.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not entry.name.lstrip("_").startswith(("pytest_sessioneval", "editable__")):
            (borrowed / entry.name).symlink_to(entry)
    environment = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(environment)
    (Path(sysconfig.get_paths(vars={"base": str(environment), "platbase": str(environment)})["purelib"])).joinpath(
        "borrowed.pth"
    ).write_text(f"{borrowed}\n")
    bin_dir = environment / "bin"
    done = _run(script, project, env, bin_dir)
    assert done.returncode == 0, done.stdout + done.stderr
    where = _run('python -c "import pytest_sessioneval as p; print(p.__file__)"', project, {}, bin_dir)
    assert Path(where.stdout.strip()).is_relative_to(environment), where.stdout + where.stderr  # the wheel's copy
    return bin_dir


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


def test_the_github_actions_workflow_evaluates_and_gates(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    workflow = yaml.safe_load((EXAMPLES / "ci" / "github-actions.yml").read_text())
    (job,) = workflow["jobs"].values()
    steps = {step.get("name", step.get("uses")): step for step in job["steps"]}
    assert job["steps"][0] == {"uses": "actions/checkout@v4", "with": {"submodules": True}}  # the plugin's checkout too
    bin_dir = _install(steps["Install"]["run"], project, workflow["env"], tmp_path_factory.mktemp("environment"))
    evaluate = steps["Evaluate"]
    summary = project / "step-summary.md"
    summary.touch()  # the runner creates it
    env = {**workflow["env"], **evaluate.get("env", {}), "GITHUB_STEP_SUMMARY": summary}

    def fetch() -> None:  # gh run download --name session-eval-summary --dir baseline
        assert "--name session-eval-summary --dir baseline" in steps["Fetch main's summary"]["run"]
        (project / "baseline").mkdir()
        shutil.copy(project / "summary.json", project / "baseline" / "summary.json")

    _check(_as_main_then_pull_request(lambda: _run(evaluate["run"], project, env, bin_dir), project, fetch))
    assert summary.read_text().count("### Session evaluation (rubric-v1)") == 2  # each run appended its own
    uploaded = {
        step["with"]["name"]: step["with"]["path"] for step in job["steps"] if "upload-artifact" in step.get("uses", "")
    }
    assert uploaded == {"session-eval-page": "session-eval.html", "session-eval-summary": "summary.json"}
    assert all((project / path).is_file() for path in uploaded.values())
    assert (project / steps["Publish the JUnit report"]["with"]["report_paths"]).is_file()


def test_the_gitlab_ci_job_evaluates_and_gates(project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    (job,) = yaml.safe_load((EXAMPLES / "ci" / "gitlab-ci.yml").read_text()).values()
    script = "\n".join(job["script"])
    fetching = [line for line in job["before_script"] if "--output baseline.json" in line]
    assert fetching and job["variables"]["GIT_SUBMODULE_STRATEGY"] == "recursive"  # the plugin's checkout too
    install = "\n".join(line for line in job["before_script"] if line not in fetching)
    bin_dir = _install(install, project, job["variables"], tmp_path_factory.mktemp("environment"))

    def fetch() -> None:  # curl ... --output baseline.json
        shutil.copy(project / "summary.json", project / "baseline.json")

    _check(_as_main_then_pull_request(lambda: _run(script, project, job["variables"], bin_dir), project, fetch))
    artifacts = job["artifacts"]
    assert all((project / path).is_file() for path in [*artifacts["paths"], artifacts["reports"]["junit"]])
    assert (project / "summary.md").read_text().count("### Session evaluation (rubric-v1)") == 2
