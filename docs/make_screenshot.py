"""Render the HTML report of the shipped example metrics and screenshot it with headless Chromium.

Run from the repository root:

    .venv/bin/python docs/make_screenshot.py            # writes docs/report-screenshot.png
    .venv/bin/python docs/make_screenshot.py --html report.html   # keep the HTML too

Needs Chromium (``chromium`` or ``chromium-browser`` on PATH; Debian: ``apt-get install chromium``).
The timestamp is fixed, so the HTML is the same on every run.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from pytest_sessioneval import RUBRIC_V1, evaluate, resolve_inputs
from pytest_sessioneval.report import ReportData, write_report

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "metrics"
TIMESTAMP = "2026-08-01T09:00:00Z"


def example_report() -> ReportData:
    """The report of ``examples/metrics``, as ``pytest --session-eval examples/metrics`` scores it."""
    evaluation = evaluate(*resolve_inputs(EXAMPLE))
    source = evaluation.sessions_path.relative_to(ROOT).as_posix()
    return ReportData.of_evaluation(
        evaluation, RUBRIC_V1, title="Session evaluation: examples/metrics", source=source, timestamp=TIMESTAMP
    )


def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    sys.exit("chromium not found on PATH (Debian: apt-get install chromium)")


def screenshot(html: Path, png: Path, size: str) -> None:
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [
                chromium(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={profile}",
                f"--window-size={size}",
                f"--screenshot={png}",
                html.resolve().as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "report-screenshot.png")
    parser.add_argument("--html", type=Path, help="also keep the rendered HTML here")
    parser.add_argument("--window-size", default="1366,2880")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        html = args.html or Path(tmp) / "report.html"
        write_report(example_report(), html)
        screenshot(html, args.out.resolve(), args.window_size)
    print(args.out)


if __name__ == "__main__":
    main()
