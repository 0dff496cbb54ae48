"""A digest of everything the scoring core decides, to show that a change kept it.

For each seeded data set (written by ``generate.py`` under ``benchmarks/data/``, once)
it runs twelve evaluations through the public API (every event line decoded or only
the relevant ones, times six selections) and hashes every entry, verdict, KPI, window,
peer list and input problem they return, with the types of the values. Two trees that
print the same digests score the same way on that data.

Usage::

    python benchmarks/digest.py                       # the 500- and 4,000-session sets
    python benchmarks/digest.py --sizes 500:10000 --verbose

Run it once per tree (``PYTHONPATH=<tree> python <tree>/benchmarks/digest.py``) and
compare the lines.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402

from pytest_sessioneval import (  # noqa: E402
    RUBRIC_V1,
    Selection,
    SessionEvaluation,
    SkippedSession,
    UnidentifiedRecord,
    evaluate,
)

DEFAULT_SIZES = "500:10000,4000:80000"


def _typed(value: Any) -> str:
    """A value with its type, so that ``1`` and ``1.0`` (or ``0.0`` and ``-0.0``) differ."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{key!r}:{_typed(item)}" for key, item in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_typed(item) for item in value) + "]"
    return f"{type(value).__name__}:{value!r}"


def _entry(entry: object) -> str:
    if isinstance(entry, SessionEvaluation):
        verdicts = [
            (verdict.id, verdict.method, verdict.status, verdict.evidence, _typed(verdict.score), verdict.scored)
            for verdict in (*entry.dimensions, *entry.judge)
        ]
        return repr(
            (
                "scored",
                entry.session_id,
                entry.line,
                None if entry.window is None else (entry.window.start, entry.window.end),
                entry.peers.names,
                entry.peers.more,
                _typed(entry.kpis),
                entry.host_class,
                verdicts,
            )
        )
    if isinstance(entry, SkippedSession):
        return repr(("skipped", entry.session_id, entry.line, entry.reason))
    assert isinstance(entry, UnidentifiedRecord)
    return repr(("unidentified", entry.line, entry.reason))


def _selections(directory: Path) -> list[tuple[str, Selection]]:
    ids = []
    with open(directory / "sessions.jsonl", "rb") as stream:
        for number, line in enumerate(stream):
            if number % 7 == 0 and b'"session_id":"' in line:
                ids.append(line.split(b'"session_id":"', 1)[1].split(b'"', 1)[0].decode())
    named = frozenset(ids[:60])
    return [
        ("every session", Selection()),
        ("latest", Selection(latest=True)),
        ("named", Selection(session_ids=named)),
        ("named, explicit", Selection(session_ids=named, explicit=True)),
        ("since and until", Selection(since_ms=1_760_000_000_000, until_ms=1_775_000_000_000)),
        ("since", Selection(since_ms=1_770_000_000_000)),
    ]


def digest(directory: Path, verbose: bool) -> str:
    whole = hashlib.sha256()
    for every_line in (True, False):
        for label, selection in _selections(directory):
            part = hashlib.sha256()
            try:
                result = evaluate(
                    directory / "sessions.jsonl",
                    directory / "events.jsonl",
                    selection,
                    RUBRIC_V1,
                    check_every_event_line=every_line,
                )
                failure = None
            except LookupError as exc:  # NoEligibleSession
                result, failure = getattr(exc, "evaluation", None), str(exc)
            part.update(repr(failure).encode())
            if result is not None:
                part.update(repr((sorted(result.session_ids), result.records, result.outside_dates)).encode())
                for entry in result.entries:
                    part.update(_entry(entry).encode("utf-8", "surrogatepass"))
                for problem in result.problems:
                    part.update(str(problem).encode("utf-8", "surrogatepass"))
            if verbose:
                print(f"  {'every line' if every_line else 'fast scan'}, {label}: {part.hexdigest()[:16]}")
            whole.update(part.digest())
    return whole.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default=DEFAULT_SIZES, help=f"sessions:events,... (default {DEFAULT_SIZES})")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data", type=Path, default=HERE / "data", help="where generated data is kept")
    parser.add_argument("--verbose", action="store_true", help="a digest per evaluation too")
    args = parser.parse_args(argv)
    for size in args.sizes.split(","):
        sessions, events = (int(part) for part in size.split(":"))
        directory = args.data / f"s{sessions}-e{events}-seed{args.seed}"
        if not (directory / "sessions.jsonl").is_file():
            generate.generate(sessions, events, args.seed, directory)
        print(f"{sessions} sessions, {events} events: {digest(directory, args.verbose)}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
