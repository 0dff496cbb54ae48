"""Benchmark: scoring a year of metrics against a plain parse of the same files.

For each size (sessions:events) it generates a seeded metrics directory (once,
under ``benchmarks/data/``) and measures, alternating the two, each in a fresh
child process that does nothing else:

(a) a plain ``orjson.loads`` of every line of ``sessions.jsonl`` and ``events.jsonl``;
(b) ``pytest_sessioneval.score_sessions(dir)``: every session scored, every
    events line decoded so that every broken line is reported (the default);
(b') the same with ``check_every_event_line=False`` (``--session-eval-fast-events``):
    only event lines that can name a relevant event are decoded;
(c) the ratio (b)/(a);
(d) the peak RSS (``VmHWM``) of the child that ran (b);
(e) sessions per second of (b);

then the scaling of (b) between sizes (time per session-or-event), (g) the parts
of (b') that no scan can skip, each timed alone at the largest size (reading
the files, the byte search, decoding the event lines that can name a relevant
event, decoding the sessions, scoring the sessions, and building the output
alone with no rule applied; reading, searching, decoding those event lines
and building the output add up to what (b') costs before any rule),
and (f) the pytest layer: ``pytest --session-eval DIR`` on 4,000 generated
sessions against ``pytest`` on a file of as many parametrized no-op tests (both with ``-p
no:cacheprovider -q``), alternated, median of three each.

Timings are wall-clock medians; the CPU-time ratio is printed beside them
because the machine may be shared.

Usage::

    python benchmarks/run.py                      # the three default sizes, then (f)
    python benchmarks/run.py --sizes 500:10000 --repeat 1 --pytest-sessions 400

Compare figures from one run only.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402

DEFAULT_SIZES = "500:10000,50000:1000000,100000:2000000"
RATIO_GOAL = 1.0
RSS_GOAL_MB = 300.0
SCALING_GOAL = 1.3  # exponent k in t ~ n^k between the two largest sizes; n log n gives ~1.05
PYTEST_GOAL = 1.25

# Every child reports its peak RSS as VmHWM, the high-water mark of its own
# process image. (ru_maxrss would also count the parent's size at fork time:
# Linux carries it across exec, and this parent is large after generating data.)
PEAK_RSS = textwrap.dedent(
    """
    import json, resource, sys, time

    def peak_rss_kb():
        try:
            with open("/proc/self/status") as status:
                for row in status:
                    if row.startswith("VmHWM:"):
                        return int(row.split()[1])
        except OSError:
            pass
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    """
)

PARSE_CHILD = PEAK_RSS + textwrap.dedent(
    """
    import orjson
    loads, error = orjson.loads, orjson.JSONDecodeError
    start, cpu = time.perf_counter(), time.process_time()
    lines = 0
    for path in sys.argv[1:]:
        with open(path, "rb") as stream:
            for line in stream:
                lines += 1
                try:
                    loads(line)
                except error:
                    pass
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(json.dumps({"seconds": seconds, "cpu": cpu, "lines": lines, "rss_kb": peak_rss_kb()}))
    """
)

SCORE_CHILD = PEAK_RSS + textwrap.dedent(
    """
    from pytest_sessioneval import score_sessions
    start, cpu = time.perf_counter(), time.process_time()
    scored = score_sessions(sys.argv[1], check_every_event_line=sys.argv[2] == "every")
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(json.dumps({"seconds": seconds, "cpu": cpu, "scored": len(scored), "rss_kb": peak_rss_kb()}))
    """
)

# (g): what the fast scan (b') cannot avoid, each part timed alone on the same files.
BREAKDOWN_CHILD = PEAK_RSS + textwrap.dedent(
    """
    import gc
    import orjson
    from pathlib import Path
    from pytest_sessioneval.core.engine import SessionEvaluation, evaluate
    from pytest_sessioneval.core.events import _NEEDLES
    from pytest_sessioneval.core.peers import Peers
    from pytest_sessioneval.core.rubric import DimensionVerdict
    from pytest_sessioneval.rubrics.rubric_v1 import RUBRIC_V1
    directory = Path(sys.argv[1])
    sessions_path, events_path = directory / "sessions.jsonl", directory / "events.jsonl"
    out = {}
    loads, error = orjson.loads, orjson.JSONDecodeError

    def clock(name, work):
        start = time.perf_counter()
        value = work()
        out[name] = time.perf_counter() - start
        return value

    sessions_data, data = clock("read both files", lambda: (sessions_path.read_bytes(), events_path.read_bytes()))
    clock("search the needles (C only)", lambda: [data.count(needle) for needle in (*_NEEDLES, b"\\\\")])
    relevant = [line for line in data.split(b"\\n") if any(needle in line for needle in _NEEDLES)]
    del data

    def decode(lines):
        for line in lines:
            try:
                loads(line)
            except error:
                pass

    clock("decode the relevant event lines", lambda: decode(relevant))

    def parse_sessions():
        with open(sessions_path, "rb") as stream:
            decode(stream)

    clock("decode sessions.jsonl", parse_sessions)
    clock("score every session, no events file", lambda: evaluate(sessions_path, None).scored)

    # The output alone, with no rule applied: each session line (of the bytes read above)
    # decoded once, five evidence sentences formatted from its fields, and the objects
    # score_sessions returns built around them, equal verdicts shared and one empty Peers
    # for all, as evaluate() does (the collector paused, as evaluate() pauses it).
    def build_output():
        output, shared, no_peers = [], {}, Peers()
        ids = RUBRIC_V1.dimension_ids
        gc.disable()
        try:
            for number, line in enumerate(sessions_data.split(b"\\n"), 1):
                try:
                    record = loads(line)
                except error:
                    continue
                if type(record) is not dict:
                    continue
                get = record.get
                effectiveness = get("effectiveness") if type(get("effectiveness")) is dict else {}
                summary = get("agent_summary") if type(get("agent_summary")) is dict else {}
                rate = effectiveness.get("completion_rate")
                sentences = (
                    f"0 quality_gate events in window but total_files_changed={get('total_files_changed')}: "
                    "verification evidence unavailable.",
                    f"completion_rate={rate} >= 0.8 (threshold); planned_issues="
                    f"{effectiveness.get('planned_issues')}, carryover={effectiveness.get('carryover')}.",
                    f"{get('total_waves')} wave(s) ran but 0 full-gate events in window: gate health unknown.",
                    f"No adverse signals: destructive_guard.blocked=0, agent_summary.spiral={summary.get('spiral')}.",
                    f"Reported, not graded: total_files_changed={get('total_files_changed')}, "
                    f"total_waves={get('total_waves')}, complete={summary.get('complete')}, "
                    f"failed={summary.get('failed')}, duration_seconds={get('duration_seconds')}.",
                )
                verdicts = []
                for name, text in zip(ids, sentences):
                    score = rate if name == "plan-fidelity" else None
                    key = (name, text, type(score), score)
                    verdict = shared.get(key)
                    if verdict is None:
                        verdict = shared[key] = DimensionVerdict(name, "deterministic", "pass", text, score)
                    verdicts.append(verdict)
                output.append(SessionEvaluation(
                    session_id=get("session_id"), line=number, source=line, window=None, peers=no_peers,
                    kpis={}, host_class=None, dimensions=tuple(verdicts),
                ))
        finally:
            gc.enable()
        return output

    clock("build the output alone, no rule applied", build_output)
    out["relevant lines"] = len(relevant)
    print(json.dumps(out))
    """
)

# The parts of (g) that (b') needs whatever its rules cost: the output alone decodes
# each session line itself.
FLOOR_PARTS = (
    "read both files",
    "search the needles (C only)",
    "decode the relevant event lines",
    "build the output alone, no rule applied",
)

IDLE_CHILD = PEAK_RSS + textwrap.dedent(
    """
    import pytest_sessioneval
    print(json.dumps({"rss_kb": peak_rss_kb()}))
    """
)


@dataclass
class SizeResult:
    sessions: int
    events: int
    megabytes: float
    parse_s: float
    score_s: float
    parse_cpu: float
    score_cpu: float
    rss_mb: float
    scored: int
    fast_s: float
    fast_rss_mb: float

    @property
    def ratio(self) -> float:
        return self.score_s / self.parse_s

    @property
    def fast_ratio(self) -> float:
        return self.fast_s / self.parse_s

    @property
    def elements(self) -> int:
        return self.sessions + self.events


def child(code: str, *args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code, *args], check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def dataset(root: Path, sessions: int, events: int, seed: int) -> Path:
    """The metrics directory for one size, generated once (a marker file says it is complete)."""
    target = root / f"s{sessions}-e{events}-seed{seed}"
    marker = target / ".complete"
    if not marker.exists():
        print(f"  generating {target} ...", flush=True)
        generate.generate(sessions, events, seed, target)
        marker.write_text("ok\n")
    return target


def warm(paths: list[Path]) -> None:
    """Read the files once so that every measurement finds them in the page cache."""
    for path in paths:
        with open(path, "rb") as stream:
            while stream.read(1 << 24):
                pass


def measure_size(root: Path, sessions: int, events: int, seed: int, repeat: int) -> SizeResult:
    directory = dataset(root, sessions, events, seed)
    files = [directory / "sessions.jsonl", directory / "events.jsonl"]
    warm(files)
    parse, score, parse_cpu, score_cpu, rss, scored = [], [], [], [], [], 0
    fast, fast_rss = [], []
    for _ in range(repeat):
        result = child(PARSE_CHILD, *map(str, files))
        parse.append(result["seconds"])
        parse_cpu.append(result["cpu"])
        result = child(SCORE_CHILD, str(directory), "every")
        score.append(result["seconds"])
        score_cpu.append(result["cpu"])
        rss.append(result["rss_kb"] / 1024)
        scored = result["scored"]
        result = child(SCORE_CHILD, str(directory), "fast")
        fast.append(result["seconds"])
        fast_rss.append(result["rss_kb"] / 1024)
    return SizeResult(
        sessions=sessions,
        events=events,
        megabytes=sum(path.stat().st_size for path in files) / 1e6,
        parse_s=statistics.median(parse),
        score_s=statistics.median(score),
        parse_cpu=statistics.median(parse_cpu),
        score_cpu=statistics.median(score_cpu),
        rss_mb=max(rss),
        scored=scored,
        fast_s=statistics.median(fast),
        fast_rss_mb=max(fast_rss),
    )


def pytest_layer(root: Path, sessions: int, seed: int, repeat: int) -> tuple[int, dict[str, float]]:
    """``(items, {run: seconds})``: medians of alternated runs.

    Runs: the plugin as shipped and the no-op file.
    """
    from pytest_sessioneval.core.engine import (
        SessionEvaluation,
        evaluate,
        resolve_inputs,
    )

    directory = dataset(root, sessions, sessions * 20, seed)
    evaluation = evaluate(*resolve_inputs(directory))
    items = sum(
        len(entry.dimensions) + len(getattr(entry, "judge", ())) if isinstance(entry, SessionEvaluation) else 1
        for entry in evaluation.entries
    )
    with tempfile.TemporaryDirectory(prefix="sessioneval-bench-") as tmp:
        work = Path(tmp)
        (work / "test_noop.py").write_text(
            f"import pytest\n\n\n@pytest.mark.parametrize('i', range({items}))\ndef test_noop(i):\n    pass\n"
        )
        base = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"]
        commands = {
            "session-eval": [*base, "--session-eval", str(directory)],
            "no-op": [*base, "test_noop.py"],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(repeat):
            for name, command in commands.items():
                start = time.perf_counter()
                done = subprocess.run(command, cwd=work, capture_output=True, text=True)
                times[name].append(time.perf_counter() - start)
                if done.returncode not in (0, 1):  # 1: some verdicts fail, as they should
                    raise SystemExit(
                        f"{name} run failed ({done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
                    )
    return items, {name: statistics.median(runs) for name, runs in times.items()}


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=DEFAULT_SIZES, help=f"sessions:events,... (default {DEFAULT_SIZES})")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the median is shown")
    parser.add_argument("--data", type=Path, default=HERE / "data", help="where generated data is kept")
    parser.add_argument("--pytest-sessions", type=int, default=4000, help="sessions for (f); 0 skips it")
    args = parser.parse_args(argv)
    sizes = [tuple(int(x) for x in part.split(":")) for part in args.sizes.split(",") if part]

    print(
        f"machine: {os.cpu_count()} cores, Python {platform.python_version()} "
        f"({platform.machine()}, {platform.system()}); repeat={args.repeat} (medians)"
    )
    idle = child(IDLE_CHILD)["rss_kb"] / 1024
    print(f"RSS of a child that only imports pytest_sessioneval: {idle:.0f} MB")
    results: list[SizeResult] = []
    for sessions, events in sizes:
        print(f"size {sessions} sessions / {events} events ...", flush=True)
        results.append(measure_size(args.data, sessions, events, args.seed, args.repeat))

    print()
    header = (
        f"{'sessions':>9} {'events':>9} {'MB':>6} | {'(a) parse s':>11} {'(b) score s':>11} "
        f"{'(c) b/a':>7} {'(d) RSS MB':>10} {'(e) sessions/s':>14} | {'scored':>7} {'us/elem':>7} {'b/a cpu':>7}"
    )
    print(header)
    print("-" * len(header))
    for r in results:
        print(
            f"{r.sessions:>9} {r.events:>9} {r.megabytes:>6.1f} | {r.parse_s:>11.3f} {r.score_s:>11.3f} "
            f"{r.ratio:>7.2f} {r.rss_mb:>10.0f} {r.sessions / r.score_s:>14,.0f} | {r.scored:>7} "
            f"{r.score_s / r.elements * 1e6:>7.3f} {r.score_cpu / r.parse_cpu:>7.2f}"
        )
    print()
    print("(b') check_every_event_line=False (--session-eval-fast-events):")
    for r in results:
        print(
            f"  {r.sessions:>9} sessions / {r.events:>9} events: {r.fast_s:.3f} s, (b')/(a) {r.fast_ratio:.2f}, "
            f"peak RSS {r.fast_rss_mb:.0f} MB, {r.sessions / r.fast_s:,.0f} sessions/s"
        )
    print()
    print("scaling of (b) (t ~ n^k, n = sessions + events):")
    exponents = []
    for small, large in itertools.pairwise(results):
        k = math.log(large.score_s / small.score_s) / math.log(large.elements / small.elements)
        exponents.append(k)
        print(
            f"  {small.elements:>9} -> {large.elements:>9} elements: time x{large.score_s / small.score_s:.2f} "
            f"for n x{large.elements / small.elements:.2f}: k = {k:.2f}"
        )

    largest = results[-1]
    print(f"\n(g) where (b') goes at the largest size: each part alone, median of {args.repeat}:")
    directory = dataset(args.data, largest.sessions, largest.events, args.seed)
    parts = [child(BREAKDOWN_CHILD, str(directory)) for _ in range(args.repeat)]
    relevant = parts[0].pop("relevant lines")
    for part in parts[1:]:
        part.pop("relevant lines")
    seconds = {name: statistics.median(part[name] for part in parts) for name in parts[0]}
    for name, value in seconds.items():
        print(f"  {name:<40} {value:6.3f} s  ({value / largest.parse_s:.2f} of (a))")
    print(f"  {relevant:,} event lines hold a needle")
    floor = sum(seconds[name] for name in FLOOR_PARTS)
    print(
        f"  {' + '.join(FLOOR_PARTS)}:\n  {floor:.3f} s = {floor / largest.parse_s:.2f} of (a), what (b') costs "
        "before a single rule of rubric-v1 is applied"
    )

    pytest_result = None
    if args.pytest_sessions:
        print(f"\n(f) pytest layer, {args.pytest_sessions} sessions ...", flush=True)
        items, seconds = pytest_result = pytest_layer(args.data, args.pytest_sessions, args.seed, args.repeat)
        noop = seconds["no-op"]
        print(
            f"  pytest -p no:cacheprovider -q --session-eval DIR        {items:>6} items:      {seconds['session-eval']:6.2f} s"
        )
        print(f"  pytest -p no:cacheprovider -q test_noop.py             {items:>6} no-op tests: {noop:6.2f} s")
        print(f"  ratio {seconds['session-eval'] / noop:.2f}")

    print("\ngoals (largest size):")
    print(f"  (b)/(a) <= {RATIO_GOAL}: {largest.ratio:.2f} -> {verdict(largest.ratio <= RATIO_GOAL)}")
    print(
        f"  (b')/(a) <= {RATIO_GOAL} (fast event scan): {largest.fast_ratio:.2f} -> {verdict(largest.fast_ratio <= RATIO_GOAL)}"
    )
    print(f"  peak RSS <= {RSS_GOAL_MB:.0f} MB: {largest.rss_mb:.0f} MB -> {verdict(largest.rss_mb <= RSS_GOAL_MB)}")
    if exponents:
        print(
            f"  scaling O((S+E) log(S+E)), k <= {SCALING_GOAL} between the two largest sizes: "
            f"k = {exponents[-1]:.2f} -> {verdict(exponents[-1] <= SCALING_GOAL)}"
        )
    if pytest_result is not None:
        items, seconds = pytest_result
        ratio = seconds["session-eval"] / seconds["no-op"]
        print(f"  pytest layer <= {PYTEST_GOAL}x no-op: {ratio:.2f}x -> {verdict(ratio <= PYTEST_GOAL)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
