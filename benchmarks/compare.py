"""Benchmark: this tree's scoring against another revision's, on the same data.

For each size (sessions:events) it generates a seeded metrics directory (once, under
``benchmarks/data/``, as run.py does), exports the other revision with ``git archive``
into a temporary directory, and times ``score_sessions(dir)`` of both trees, alternated,
each run in a fresh child process that imports only the tree it times. Both modes are
timed: every events line decoded (the default) and the fast events scan
(``--session-eval-fast-events``). It prints the median seconds of each and their ratio
(this / other): above 1 is slower than the other revision.

Usage::

    python benchmarks/compare.py 55c9d7c                         # 50k:1M, median of 5
    python benchmarks/compare.py 55c9d7c --sizes 20000:400000 --repeat 11

Compare figures from one run only: the machine may be shared.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import SCORE_CHILD, dataset, warm  # noqa: E402

THIS_TREE = HERE.parent
MODES = ("every", "fast")


def export(revision: str, into: Path) -> Path:
    """The package of ``revision``, unpacked under ``into``."""
    archive = subprocess.run(
        ["git", "-C", str(THIS_TREE), "archive", revision, "pytest_sessioneval"],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def seconds(tree: Path, directory: Path, mode: str) -> float:
    """One timed ``score_sessions`` of ``tree``'s package, in a fresh process."""
    code = f"import sys; sys.path.insert(0, {str(tree)!r})\n" + SCORE_CHILD
    out = subprocess.run(
        [sys.executable, "-c", code, str(directory), mode],
        check=True,
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
    ).stdout
    return float(json.loads(out.strip().splitlines()[-1])["seconds"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision", help="the revision to compare with (e.g. a commit or main)")
    parser.add_argument("--sizes", default="50000:1000000", help="sessions:events, comma-separated")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each tree and mode")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data", type=Path, default=HERE / "data", help="where generated data is kept")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as scratch:
        other = export(args.revision, Path(scratch))
        print(f"this tree: {THIS_TREE}; other: {args.revision}; median of {args.repeat}, alternated")
        print(f"{'sessions / events':>20}  {'mode':>5}  {'this':>9}  {'other':>9}  ratio")
        for part in filter(None, args.sizes.split(",")):
            sessions, events = (int(x) for x in part.split(":"))
            directory = dataset(args.data, sessions, events, args.seed)
            warm([directory / "sessions.jsonl", directory / "events.jsonl"])
            for mode in MODES:
                times: dict[str, list[float]] = {"this": [], "other": []}
                for _ in range(args.repeat):
                    times["this"].append(seconds(THIS_TREE, directory, mode))
                    times["other"].append(seconds(other, directory, mode))
                mine, theirs = statistics.median(times["this"]), statistics.median(times["other"])
                label = f"{sessions:,} / {events:,}"
                print(f"{label:>20}  {mode:>5}  {mine:8.3f}s  {theirs:8.3f}s  {mine / theirs:.2f}", flush=True)


if __name__ == "__main__":
    main()
