"""Build the sdist and the wheel as a user's installer would, and test what they hold.

1. ``python -m build`` makes the sdist, then the wheel from the sdist (so a file
   missing from the sdist is missing from the wheel too).
2. The wheel must hold every file of the package source tree (the rubric text
   byte for byte), the license and both pytest11 entry points; the sdist must
   hold what the suite needs (tests, examples, docs, the benchmark generator).
3. The wheel is installed, with its test extra, into a fresh environment, and
   the whole suite runs from the unpacked sdist with the package sources
   removed, so every test imports the installed wheel.

Usage: python .ci/check_distribution.py WORKDIR   (WORKDIR is created; it must not exist)
"""

from __future__ import annotations

import configparser
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "pytest_sessioneval"
ENTRY_POINTS = {
    "sessioneval": "pytest_sessioneval.plugin.hooks",
    "sessioneval-policy": "pytest_sessioneval.policy.plugin.hooks",
}
SDIST_NEEDS = (
    "LICENSE",
    "README.md",
    "pyproject.toml",
    "tests/conftest.py",
    "examples/metrics/sessions.jsonl",
    "docs/usage.md",
    "benchmarks/generate.py",
    "tests/data/timestamps.jsonl",
)


def run(*command: str | Path, cwd: Path | None = None) -> None:
    print("+", " ".join(str(part) for part in command), flush=True)
    subprocess.run([str(part) for part in command], cwd=cwd, check=True)


def fail(message: str) -> None:
    sys.exit(f"check_distribution: {message}")


def source_files() -> dict[str, bytes]:
    """Every file of the package source tree, by its path in a wheel."""
    return {
        path.relative_to(ROOT).as_posix(): path.read_bytes()
        for path in sorted((ROOT / PACKAGE).rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def check_wheel(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        for name, content in source_files().items():
            if name not in names:
                fail(f"{wheel.name} lacks {name}")
            if archive.read(name) != content:
                fail(f"{wheel.name}: {name} differs from the source tree")
        dist_info = next(name.split("/")[0] for name in names if name.split("/")[0].endswith(".dist-info"))
        if not any(name.startswith(f"{dist_info}/") and name.endswith("/LICENSE") for name in names):
            fail(f"{wheel.name} lacks the LICENSE file")
        entry_points = configparser.ConfigParser()
        entry_points.read_string(archive.read(f"{dist_info}/entry_points.txt").decode())
        found = dict(entry_points["pytest11"]) if entry_points.has_section("pytest11") else {}
        if found != ENTRY_POINTS:
            fail(f"{wheel.name}: pytest11 entry points are {found}, expected {ENTRY_POINTS}")
    print(f"{wheel.name}: {len(names)} files, the package tree byte for byte, LICENSE, entry points", flush=True)


def check_sdist(sdist: Path, into: Path) -> Path:
    with tarfile.open(sdist) as archive:
        top = archive.getnames()[0].split("/")[0]
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
        missing = [need for need in SDIST_NEEDS if need not in names]
        if missing:
            fail(f"{sdist.name} lacks {', '.join(missing)}")
        if hasattr(tarfile, "data_filter"):  # Python 3.12, and 3.11.4 on
            archive.extractall(into, filter="data")
        else:
            archive.extractall(into)
    print(f"{sdist.name}: {len(names)} files, holds {', '.join(SDIST_NEEDS)}", flush=True)
    return into / top


def main() -> None:
    if len(sys.argv) != 2:
        fail("usage: check_distribution.py WORKDIR")
    work = Path(sys.argv[1]).resolve()
    work.mkdir(parents=True)
    dist = work / "dist"
    run(sys.executable, "-m", "pip", "install", "-q", "build")
    run(sys.executable, "-m", "build", "--outdir", dist, ROOT)
    (wheel,) = dist.glob("*.whl")
    (sdist,) = dist.glob("*.tar.gz")
    check_wheel(wheel)
    source = check_sdist(sdist, work / "sdist")

    environment = work / "venv"
    run(sys.executable, "-m", "venv", environment)
    python = environment / "bin" / "python"
    run(python, "-m", "pip", "install", "-q", f"{wheel}[test]")
    shutil.rmtree(source / PACKAGE)  # so that nothing can import the sources instead
    imported = subprocess.run(
        [python, "-c", f"import {PACKAGE}; print({PACKAGE}.__file__)"],
        cwd=source,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    if not Path(imported).resolve().is_relative_to(environment):
        fail(f"the suite would import {imported}, not the wheel installed in {environment}")
    print(f"the suite imports the installed wheel: {imported}", flush=True)
    run(python, "-m", "pytest", "-n", "2", "-p", "no:cacheprovider", "-q", cwd=source)
    shutil.rmtree(work)  # kept when a step fails, to look into


if __name__ == "__main__":
    main()
