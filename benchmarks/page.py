"""Benchmark: the HTML page at a year's scale, its size and how soon a browser can use it.

For each number of sessions it generates a seeded metrics directory (once, under
``benchmarks/data/``, as ``run.py`` does), scores it, renders the page as
``--session-eval-html`` does, and opens it in headless Chromium (1366 x 900) several
times, each time in a fresh tab, and prints:

- the page's size (MB), that of its session data, how many sessions it lists, and whether it
  kept the evidence of every verdict or of fails and cannot-determine verdicts only;
- the time to render it (Python, median);
- time-to-interactive, median: from the start of navigation to the later of the moment the
  page's script has drawn the first page of the session table with its filters (the
  ``sessions-drawn`` performance mark) and the end of the load event; the load event alone and
  the wall clock of the whole load (as this script sees it) beside it.

The goal: under 10 MB and interactive within 2 s at 100,000 sessions.

Usage::

    python benchmarks/page.py                                 # 1k, 10k and 100k sessions
    python benchmarks/page.py --sessions 1000,10000 --repeat 5

Needs Chromium (``chromium`` or ``chromium-browser`` on PATH). Compare figures from one run only.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from browser import Browser, chromium_path  # noqa: E402
from run import dataset  # noqa: E402

from pytest_sessioneval import RUBRIC_V1, evaluate, resolve_inputs  # noqa: E402
from pytest_sessioneval.report import ReportData, render_report  # noqa: E402
from pytest_sessioneval.report.listing import LISTED_BYTES  # noqa: E402

EVENTS_PER_SESSION = 10
SIZE_GOAL_MB = 10.0
INTERACTIVE_GOAL_S = 2.0

INTERACTIVE = """(() => {
  const drawn = performance.getEntriesByName('sessions-drawn')[0];
  const navigation = performance.getEntriesByType('navigation')[0];
  return {
    drawn: drawn ? drawn.startTime : null,
    load: navigation.loadEventEnd,
    rows: document.querySelectorAll('#sessions tbody tr').length,
    count: document.getElementById('filter-count').textContent,
  };
})()"""


def page_of(metrics: Path) -> ReportData:
    evaluation = evaluate(*resolve_inputs(metrics))
    return ReportData.of_evaluation(
        evaluation,
        RUBRIC_V1,
        title="Session evaluation",
        source="metrics/sessions.jsonl",
        timestamp="2026-08-01T09:00:00Z",
    )


def measure(data: Path, sessions: int, seed: int, repeat: int, browser: str) -> dict[str, object]:
    report = page_of(dataset(data, sessions, sessions * EVENTS_PER_SESSION, seed))
    renders = []
    for _ in range(repeat):
        started = time.perf_counter()
        page = render_report(report)
        renders.append(time.perf_counter() - started)
    encoded = page.encode("utf-8")
    drawn, loaded, wall = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "page.html"
        path.write_bytes(encoded)
        with Browser(browser, Path(tmp) / "profile", timeout=120) as opened:
            for _ in range(repeat):
                started = time.perf_counter()
                opened.open(path.as_uri(), width=1366, height=900)
                wall.append(time.perf_counter() - started)
                found = opened.evaluate(INTERACTIVE)
                if found["drawn"] is None or found["rows"] == 0:
                    raise SystemExit(f"the page of {sessions} sessions did not draw its table: {found}")
                drawn.append(max(found["drawn"], found["load"]) / 1000)
                loaded.append(found["load"] / 1000)
            problems = opened.problems()
    if problems:
        raise SystemExit(f"the page of {sessions} sessions logged problems: {problems[:3]}")
    start = page.index('id="session-data">') + len('id="session-data">')
    listing = page[start : page.index("</script>", start)]
    data_bytes = len(listing.encode("utf-8"))
    return {
        "sessions": sessions,
        "scored": len(report.sessions),
        "mb": len(encoded) / 1_000_000,
        "data_mb": data_bytes / 1_000_000,
        "listed": len(json.loads(listing)["rows"]),
        "all_evidence": "Only the evidence of fail and cannot-determine" not in page,
        "render_s": statistics.median(renders),
        "interactive_s": statistics.median(drawn),
        "load_s": statistics.median(loaded),
        "wall_s": statistics.median(wall),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", default="1000,10000,100000", help="comma-separated numbers of sessions")
    parser.add_argument("--repeat", type=int, default=3, help="measurements per size (medians are printed)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data", type=Path, default=HERE / "data", help="where generated data is kept")
    args = parser.parse_args(argv)
    browser = chromium_path()
    if browser is None:
        print("chromium not found on PATH (Debian: apt-get install chromium)", file=sys.stderr)
        return 2
    print(f"page data budget (LISTED_BYTES): {LISTED_BYTES / 1_000_000:g} MB; {args.repeat} runs, medians")
    print(
        f"{'sessions':>9} {'scored':>7} {'listed':>7} {'evidence':>8} {'page MB':>8} {'data MB':>8} "
        f"{'render s':>9} {'interactive s':>14} {'load s':>7} {'wall s':>7}"
    )
    worst = True
    for sessions in (int(size) for size in args.sessions.split(",")):
        result = measure(args.data, sessions, args.seed, args.repeat, browser)
        print(
            f"{result['sessions']:>9} {result['scored']:>7} {result['listed']:>7} "
            f"{'all' if result['all_evidence'] else 'fail/cd':>8} {result['mb']:>8.2f} {result['data_mb']:>8.2f} "
            f"{result['render_s']:>9.2f} {result['interactive_s']:>14.2f} "
            f"{result['load_s']:>7.2f} {result['wall_s']:>7.2f}",
            flush=True,
        )
        worst = worst and result["mb"] < SIZE_GOAL_MB and result["interactive_s"] < INTERACTIVE_GOAL_S  # type: ignore[operator]
    print(
        f"goal: under {SIZE_GOAL_MB:g} MB and interactive within {INTERACTIVE_GOAL_S:g} s at every size: "
        f"{'met' if worst else 'NOT met'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
