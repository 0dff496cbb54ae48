"""Differential tests: the package's scoring core against the naive oracle in ``oracle.py``.

A seeded generator writes many small ``sessions.jsonl`` / ``events.jsonl`` pairs
that crowd every corner SEMANTICS.md names (ms truncation, inclusive window
boundaries, offsets, date-only stamps, full-gate ties, touching / overlapping /
inverted windows, rewrites, ill-typed fields, odd events files, bad lines).
Each pair is scored by ``pytest_sessioneval`` and by ``oracle``; every
difference is collected and reported with the seed and the input.

``oracle`` is imported from this directory: pytest's default ``prepend`` import
mode puts ``tests/`` (which has no ``__init__.py``) on ``sys.path``.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import oracle
import pytest

from pytest_sessioneval import InputWarning, score_sessions
from pytest_sessioneval.core.engine import NoEligibleSession, Selection, evaluate
from pytest_sessioneval.core.timestamps import parse_timestamp_ms

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
BASE_MS = 1_784_160_000_000  # 2026-07-16T00:00:00Z
DAY_MS = 86_400_000
SEEDS = range(1000)
DISCLOSURE = (
    "destructive-guard emission exists only from 2026-07-16 onward; earlier sessions: guard signals unmeasurable."
)

MISSING = object()  # "leave the field out"

# ---------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------

BAD_TIMESTAMPS = [
    "2026-02-30T00:00:00Z",
    "2026-07-16T24:00:00Z",
    "2026-07-16T23:59:60Z",
    "Jul 16 2026",
    "2026-07-16T08:00Z",
    "2026-07-16T08:00:00+2:00",
    "2026-07-16T08:00:00+0200",
    "2026-07-16T08:00:00+24:00",
    "2026-13-01",
    "2026-07-16T08:00:00.Z",
    " 2026-07-16T08:00:00Z",
    "2026-07-16T08:00:00Z ",
    "2026-07-16Z",
    "2026/07/16",
    "",
    BASE_MS,
    1_784_160_000,
    True,
    False,
    None,
    ["2026-07-16T00:00:00Z"],
    {"t": "2026-07-16T00:00:00Z"},
]

JUNK_LINES = [
    "not json",
    "{bad",
    '{"a":1,}',
    "NaN",
    '{"x": NaN}',
    '{"total_waves": Infinity, "session_id": "s0", "status": "completed"}',
    "[]",
    "[1,2]",
    "null",
    "42",
    "true",
    '"quality_gate"',
    '["orchestrator.quality_gate.failed"]',
    "quality_gate garbage",
    '{"event":"orchestrator.quality_gate.failed","timestamp":"2026-07-16T00:01:00Z"',
    '{"event":"orchestrator.destructive_guard.blocked"} trailing',
    "",
    "   ",
    "\t",
]

EVENT_WEIGHTS = [
    ("orchestrator.quality_gate.passed", 25),
    ("orchestrator.quality_gate.failed", 15),
    ("orchestrator.destructive_guard.blocked", 10),
    ("orchestrator.loop.warning", 8),
    ("orchestrator.session.started", 4),
    ("orchestrator.wave.completed", 8),
    ("orchestrator.quality_gate", 2),
    ("ORCHESTRATOR.QUALITY_GATE.PASSED", 2),
    (MISSING, 2),
    (None, 1),
    (7, 1),
]

OFFSETS = ["Z", "Z", "Z", "z", "", "", "+02:00", "-05:30", "+00:00", "-00:00", "+14:00", "-12:00", "+23:59"]


def _offset_minutes(suffix: str) -> int:
    if suffix in ("Z", "z", ""):
        return 0
    sign = 1 if suffix[0] == "+" else -1
    return sign * (int(suffix[1:3]) * 60 + int(suffix[4:6]))


class Generator:
    """One seeded generator produces one (sessions, events) pair."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.points: list[int] = [0]  # ms offsets from BASE_MS of every session boundary
        self.ends: list[int] = [0]
        self.pass_rate = self.pick([0.4, 0.8, 0.95, 1.0])  # how often a gate's exit_code is 0

    def pick(self, options: list[Any]) -> Any:
        return self.rng.choice(options)

    # -- times ------------------------------------------------------------

    def grid_time(self) -> int:
        base = self.rng.randrange(0, 121) * 10_000
        return base + self.pick([0, 0, 0, 0, 0, 1, -1, 500, 499, 501, 1_500, 2_500, 999])

    def event_time(self) -> int:
        roll = self.rng.random()
        if roll < 0.45 and self.points:
            return self.pick(self.points)  # exactly on a boundary
        if roll < 0.65 and self.points:
            return self.pick(self.points) + self.pick([1, -1, 1_000, -1_000])
        return self.grid_time()

    def fmt(self, offset_ms: int) -> str:
        """``BASE_MS + offset_ms`` as one of many equivalent timestamp spellings."""
        ms = BASE_MS + offset_ms
        if ms % DAY_MS == 0 and self.rng.random() < 0.4:
            return (EPOCH + timedelta(milliseconds=ms)).strftime("%Y-%m-%d")
        suffix = self.pick(OFFSETS)
        local = EPOCH + timedelta(milliseconds=ms) + timedelta(minutes=_offset_minutes(suffix))
        frac = ms % 1000
        if frac == 0:
            fraction = self.pick(["", "", "", ".000", ".0005", ".0009999", ".0"])
        else:
            digits = f"{frac:03d}"
            fraction = self.pick(
                ["." + digits, "." + digits, "." + digits + "9", "." + digits + "0005", "." + digits.rstrip("0")]
            )
        sep = self.pick(["T", "T", "T", "t", " "])
        return local.strftime("%Y-%m-%d") + sep + local.strftime("%H:%M:%S") + fraction + suffix

    def timestamp_value(self, offset_ms: int, bad_rate: float) -> Any:
        if self.rng.random() < bad_rate:
            return self.pick(BAD_TIMESTAMPS)
        return self.fmt(offset_ms)

    # -- session records ------------------------------------------------------

    def window_bounds(self) -> tuple[int, int]:
        roll = self.rng.random()
        if roll < 0.2 and self.points:
            start = self.pick(self.points)  # touches (or repeats) an earlier boundary
        elif roll < 0.27:
            start = 0  # UTC midnight: may be spelled as a bare date
        elif roll < 0.3:
            start = -DAY_MS
        else:
            start = self.grid_time()
        kind = self.rng.random()
        if kind < 0.12:
            end = start - self.pick([1, 500, 1_000, 60_000])  # inverted
        elif kind < 0.16:
            end = DAY_MS  # next UTC midnight: a wide window
        elif kind < 0.3 and self.points:
            end = self.pick(self.points)
        else:
            end = start + self.pick(
                [0, 1, 499, 500, 501, 999, 1_000, 1_499, 1_500, 2_500, 3_500, 5_000, 60_000]
                + [self.rng.randrange(0, 300_000)] * 4
            )
        self.points.extend([start, end])
        self.ends.append(end)
        return start, end

    def put(self, record: dict, key: str, options: list[Any]) -> None:
        value = self.pick(options)
        if value is not MISSING:
            record[key] = value

    def session_record(self, sid: Any, force_status: Any = None) -> dict:
        record: dict[str, Any] = {}
        if sid is not MISSING:
            record["session_id"] = sid
        if force_status is not None:
            record["status"] = force_status
        else:
            self.put(
                record,
                "status",
                ["completed"] * 5
                + ["abandoned"] * 3
                + ["in_progress", "other", "Completed", None, 1, "", MISSING, MISSING, MISSING, MISSING],
            )
        start, end = self.window_bounds()
        roll = self.rng.random()
        if roll < 0.05:
            pass
        else:
            record["started_at"] = self.timestamp_value(start, 0.08)
        roll = self.rng.random()
        if roll < 0.06:
            pass  # no completed_at
        elif roll < 0.14:
            record["completed_at"] = self.pick(["", 0, None, False, "yes", 1, True, {}, [], "Jul 16 2026", 0.0, "0"])
        else:
            record["completed_at"] = self.timestamp_value(end, 0.04)

        if self.rng.random() < 0.85:
            summary = self.pick([{}, {}, {}, [], "x", None, 5])
            if type(summary) is dict:
                summary = {}
                self.put(summary, "complete", [3, 1, 0.5, 1e-9, 0, -1, "3", True, None, MISSING, MISSING])
                self.put(summary, "spiral", [0, 0, 0, 0.0, 1, 0.1, -1, "1", True, None, MISSING, MISSING])
            record["agent_summary"] = summary
        if self.rng.random() < 0.8:
            eff = self.pick([{}, {}, {}, {}, [], "x", 5, None, True])
            if type(eff) is dict:
                eff = {}
                self.put(
                    eff,
                    "completion_rate",
                    [
                        0.8,
                        0.8,
                        0.79,
                        0.7999999999999999,
                        0.8000000000000002,
                        1,
                        1.0,
                        0,
                        0.0,
                        0.5,
                        "0.9",
                        None,
                        MISSING,
                        MISSING,
                        MISSING,
                        True,
                        False,
                        -0.5,
                        2,
                        [],
                        {},
                    ],
                )
                self.put(
                    eff,
                    "planned_issues",
                    [0, 0.0, 3, 1, -1, "2", None, MISSING, MISSING, True, 1.5, False],
                )
                self.put(eff, "carryover", [0, 2, -1, "1", None, MISSING, MISSING, 0.5, True, -0.0])
            record["effectiveness"] = eff
        self.put(
            record,
            "total_files_changed",
            [0, 0, 0.0, -0.0, 3, "0", None, MISSING, MISSING, False, True, -2, []],
        )
        self.put(record, "total_waves", [0, 0.0, 5, 1, "0", None, MISSING, MISSING, -1, True, 2.5, False, -0.0])
        self.put(record, "waves", [[], [{}], [1, 2], "x", {}, None, MISSING, MISSING, MISSING, {"a": 1}, 0, ""])
        for key in ("total_agents", "total_token_input", "total_token_output"):
            self.put(record, key, [0, 7, 12_345, 2.5, -3, "5", True, None, MISSING, MISSING, False, 1e20, -0.0])
        self.put(
            record,
            "duration_seconds",
            [MISSING] * 6 + [0, 12, 12.5, -1, -0.5, "12", True, None, False, 0.0, -0.0, 1e300],
        )
        if self.rng.random() < 0.1:
            record["notes"] = "quality_gate loop.warning destructive_guard"
        return record

    def sessions_lines(self) -> list[str]:
        pool_size = self.rng.randrange(2, 21)
        pool: list[Any] = [f"s{i}" for i in range(pool_size)]
        odd_ids = [MISSING, None, 7, "", "S0", " s0"]
        lines: list[str] = []
        count = self.rng.randrange(3, 36)
        for _ in range(count):
            roll = self.rng.random()
            if roll < 0.06:
                lines.append(self.pick(JUNK_LINES))
                continue
            sid = self.pick(odd_ids) if roll < 0.12 else self.pick(pool)
            lines.append(json.dumps(self.session_record(sid)))
        if self.rng.random() < 0.3:
            # An eligible older line, then an abandoned rewrite of the same id.
            sid = self.pick(pool)
            at = self.rng.randrange(len(lines) + 1)
            lines.insert(at, json.dumps(self.session_record(sid, force_status="completed")))
            lines.append(json.dumps(self.session_record(sid, force_status="abandoned")))
        return lines

    # -- events ----------------------------------------------------------------

    def event_record(self) -> dict:
        names = [name for name, weight in EVENT_WEIGHTS for _ in range(weight)]
        name = self.pick(names)
        event: dict[str, Any] = {}
        if name is not MISSING:
            event["event"] = name
        event["timestamp"] = self.timestamp_value(self.event_time(), 0.07)
        if self.rng.random() < 0.04:
            del event["timestamp"]
        if isinstance(name, str) and "quality_gate" in name.lower():
            self.put(event, "variant", ["full-gate"] * 4 + ["quick", MISSING, MISSING, None, "Full-Gate", "full_gate"])
            if self.rng.random() < self.pass_rate:
                event["exit_code"] = self.pick([0, 0, 0, 0.0, -0.0])
            else:
                self.put(event, "exit_code", [1, 2, False, "0", None, MISSING, True, 0.5, -1, [0]])
        if name == "orchestrator.session.started":
            self.put(event, "host_class", ["laptop", "ci", "", None, MISSING])
        if self.rng.random() < 0.05:
            event["note"] = "mentions quality_gate and destructive_guard"
        return event

    def event_line(self, event: dict) -> str:
        line = json.dumps(event)
        if self.rng.random() < 0.08:
            # The same event, with its name spelled through JSON escapes.
            line = (
                line.replace("quality_gate", "quality\\u005fgate")
                .replace("destructive_guard", "destructive\\u005fguard")
                .replace("loop.warning", "loop\\u002ewarning")
            )
        return line

    def events_lines(self) -> list[str] | None:
        mode = self.rng.random()
        if mode < 0.07:
            return None  # no events.jsonl at all
        if mode < 0.11:
            return []  # an empty file
        if mode < 0.14:
            return self.pick([[""], ["", "  ", ""], ["\t"]])
        if mode < 0.19:
            return [self.pick(JUNK_LINES) for _ in range(self.rng.randrange(1, 5))]
        if mode < 0.24:
            # Objects, but none of a kind any dimension reads.
            quiet = [
                {},
                {"event": "orchestrator.wave.completed", "timestamp": self.fmt(self.event_time())},
                {"event": 7},
                {"event": None, "exit_code": 1},
                {"timestamp": self.fmt(0)},
            ]
            return [json.dumps(self.pick(quiet)) for _ in range(self.rng.randrange(1, 4))]
        lines: list[str] = []
        for _ in range(self.rng.randrange(0, 40)):
            if self.rng.random() < 0.06:
                lines.append(self.pick(JUNK_LINES))
            else:
                lines.append(self.event_line(self.event_record()))
        for _ in range(self.pick([0, 1, 2, 2, 3, 4])):
            # Full-gates tied on the greatest timestamp, spelled differently, exit codes differing.
            t = self.pick(self.ends) if self.rng.random() < 0.6 else self.event_time()
            cluster = []
            for _ in range(self.rng.randrange(2, 5)):
                event = {
                    "event": self.pick(["orchestrator.quality_gate.passed", "orchestrator.quality_gate.failed"]),
                    "timestamp": self.fmt(t),
                    "variant": "full-gate",
                }
                self.put(event, "exit_code", [0, 0, 1, "0", False, MISSING])
                cluster.append(self.event_line(event))
            at = self.rng.randrange(len(lines) + 1)
            lines[at:at] = cluster
        if self.rng.random() < 0.1:
            self.rng.shuffle(lines)
        return lines


def _join(lines: list[str], rng: random.Random) -> bytes:
    newline = "\r\n" if rng.random() < 0.1 else "\n"
    text = newline.join(lines)
    if lines and rng.random() < 0.7:
        text += newline
    return text.encode("utf-8")


@dataclass
class Case:
    seed: int
    sessions: Path
    events: Path | None
    session_lines: list[bytes]
    event_lines: list[bytes] | None
    _expected: list[oracle.OracleSession] | None = None

    @property
    def expected(self) -> list[oracle.OracleSession]:
        """The oracle's scored sessions, computed once per case."""
        if self._expected is None:
            self._expected = oracle.score(self.session_lines, self.event_lines)
        return self._expected

    def dump(self, limit: int = 6000) -> str:
        text = f"--- seed {self.seed}: sessions.jsonl ---\n" + self.sessions.read_text()
        if self.events is None:
            text += "--- events.jsonl: missing ---\n"
        else:
            text += "--- events.jsonl ---\n" + self.events.read_text()
        return text[:limit]


def make_case(root: Path, seed: int) -> Case:
    gen = Generator(seed)
    folder = root / f"case{seed}"
    folder.mkdir()
    sessions = folder / "sessions.jsonl"
    sessions.write_bytes(_join(gen.sessions_lines(), gen.rng))
    event_lines = gen.events_lines()
    events: Path | None = None
    if event_lines is not None:
        events = folder / "events.jsonl"
        events.write_bytes(_join(event_lines, gen.rng))
    return Case(seed, sessions, events, oracle.read_lines(sessions), oracle.read_lines(events) if events else None)


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> list[Case]:
    root = tmp_path_factory.mktemp("differential")
    return [make_case(root, seed) for seed in SEEDS]


# ---------------------------------------------------------------------------
# Comparing
# ---------------------------------------------------------------------------


def same(a: Any, b: Any) -> bool:
    """Equal JSON values: None only equals None, booleans only booleans, numbers by value."""
    if a is None or b is None:
        return a is None and b is None
    if (type(a) is bool) != (type(b) is bool):
        return False
    return a == b


def compare_scored(pkg: Any, want: oracle.OracleSession, where: str) -> list[str]:
    problems = []
    ids = tuple(d.id for d in pkg.dimensions)
    if ids != oracle.DIMENSION_IDS:
        problems.append(f"{where}: dimension order {ids}")
        return problems
    got_statuses = tuple(d.status for d in pkg.dimensions)
    for dim_id, got, expected in zip(ids, got_statuses, want.statuses):
        if got != expected:
            problems.append(f"{where}: {dim_id} package={got} oracle={expected}")
    plan = pkg.dimensions[1]
    if not same(plan.score, want.plan_score):
        problems.append(f"{where}: plan-fidelity score package={plan.score!r} oracle={want.plan_score!r}")
    for other in pkg.dimensions:
        if other.id != "plan-fidelity" and other.score is not None:
            problems.append(f"{where}: {other.id} carries score {other.score!r}")
    if set(pkg.kpis) != set(oracle.KPI_NAMES):
        problems.append(f"{where}: KPI names {sorted(pkg.kpis)}")
    for name in oracle.KPI_NAMES:
        if not same(pkg.kpis.get(name), want.kpis[name]):
            problems.append(f"{where}: KPI {name} package={pkg.kpis.get(name)!r} oracle={want.kpis[name]!r}")
    safety = pkg.dimensions[3].evidence
    if DISCLOSURE not in safety:
        problems.append(f"{where}: process-safety evidence lacks the disclosure: {safety!r}")
    if want.peers and want.statuses[3] != oracle.CD:
        # "process-safety keeps its verdict and notes the contamination in its evidence"
        named = [p for p in want.peers if isinstance(p, str)] + ["(unknown)"]
        if not any(name in safety for name in named):
            problems.append(f"{where}: process-safety evidence does not note the peers {want.peers}: {safety!r}")
    return problems


def report(mismatches: list[str], failing: list[Case], compared: int, unit: str = "compared sessions") -> str:
    text = f"{len(mismatches)} mismatch(es) over {compared} {unit}\n"
    text += "\n".join(mismatches[:25])
    if failing:
        text += "\n\nfirst failing input:\n" + failing[0].dump()
    return text


@pytest.mark.filterwarnings("ignore::pytest_sessioneval.InputWarning")  # bad lines on purpose
def test_every_eligible_session_matches_the_oracle(cases: list[Case]) -> None:
    mismatches: list[str] = []
    failing: list[Case] = []
    compared = 0
    for case in cases:
        before = len(mismatches)
        expected = case.expected
        got = score_sessions(case.sessions, case.events)
        got_keys = [(s.line, s.session_id) for s in got]
        want_keys = [(s.line, s.session_id) for s in expected]
        if got_keys != want_keys:
            mismatches.append(f"seed {case.seed}: scored sessions package={got_keys} oracle={want_keys}")
        else:
            for pkg, want in zip(got, expected):
                compared += 1
                mismatches += compare_scored(pkg, want, f"seed {case.seed} line {want.line} {want.session_id}")
        if len(mismatches) > before:
            failing.append(case)
    assert compared >= 3000, f"only {compared} sessions compared: the generator lost its coverage"
    assert not mismatches, report(mismatches, failing, compared)


def test_latest_cascade_matches_the_oracle(cases: list[Case]) -> None:
    mismatches: list[str] = []
    failing: list[Case] = []
    older_line_wins = 0
    for case in cases:
        before = len(mismatches)
        line = oracle.latest(case.session_lines)
        try:
            entries = evaluate(case.sessions, case.events, Selection(latest=True)).entries
        except NoEligibleSession:
            entries = None
        if line is None:
            if entries is not None:
                mismatches.append(f"seed {case.seed}: package picked {entries}, oracle found nothing eligible")
        elif entries is None:
            mismatches.append(f"seed {case.seed}: package found nothing eligible, oracle picked line {line}")
        elif len(entries) != 1 or entries[0].line != line:
            mismatches.append(f"seed {case.seed}: package picked {[e.line for e in entries]}, oracle line {line}")
        else:
            record = dict(oracle.objects(case.session_lines))[line]
            if oracle.usable_session_id(record) is not None:
                sid = record["session_id"]
                last = max(n for n, r in oracle.objects(case.session_lines) if r.get("session_id") == sid)
                older_line_wins += last != line
                want = oracle.score_line(case.session_lines, case.event_lines, line)
                mismatches += compare_scored(entries[0], want, f"seed {case.seed} latest line {line}")
        if len(mismatches) > before:
            failing.append(case)
    assert older_line_wins >= 10, f"only {older_line_wins} cases where an older line wins the cascade"
    assert not mismatches, report(mismatches, failing, len(cases), "generated cases")


def test_bad_lines_are_reported_with_file_and_line(cases: list[Case]) -> None:
    """SEMANTICS.md: a bad line is skipped and the user is told which file and line."""
    mismatches: list[str] = []
    failing: list[Case] = []
    for case in cases:
        problems = evaluate(case.sessions, case.events).problems
        for path, lines in ((case.sessions, case.session_lines), (case.events, case.event_lines)):
            if path is None:
                continue
            got = sorted(p.line for p in problems if Path(p.path) == path)
            want = oracle.bad_lines(lines)
            if got != want:
                mismatches.append(f"seed {case.seed} {path.name}: package reports lines {got}, oracle {want}")
                failing.append(case)
    assert not mismatches, report(mismatches, failing, len(cases), "generated cases")


# ---------------------------------------------------------------------------
# Hand-checked scenarios: pin the oracle itself to literal answers
# ---------------------------------------------------------------------------


def _write(tmp_path: Path, sessions: list[dict | str], events: list[dict | str] | None) -> tuple[Path, Path | None]:
    def text(lines: list[dict | str]) -> str:
        return "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)

    sessions_path = tmp_path / "sessions.jsonl"
    sessions_path.write_text(text(sessions))
    events_path = None
    if events is not None:
        events_path = tmp_path / "events.jsonl"
        events_path.write_text(text(events))
    return sessions_path, events_path


def _both(sessions_path: Path, events_path: Path | None) -> tuple[list, list]:
    want = oracle.score(oracle.read_lines(sessions_path), oracle.read_lines(events_path) if events_path else None)
    got = score_sessions(sessions_path, events_path)
    return want, got


def _summary(session: Any) -> tuple:
    if isinstance(session, oracle.OracleSession):
        return (session.session_id, session.statuses, session.plan_score, session.kpis)
    return (
        session.session_id,
        tuple(d.status for d in session.dimensions),
        session.dimensions[1].score,
        dict(session.kpis),
    )


def _kpis(duration: Any = None, **others: Any) -> dict:
    kpis = dict.fromkeys(oracle.KPI_NAMES)
    kpis["duration_seconds"] = duration
    kpis.update(others)
    return kpis


def test_scenario_boundaries_ties_and_touching_windows(tmp_path: Path) -> None:
    sessions = [
        # a and b touch at 01:00:00 (no overlap); c is inverted; d overlaps nothing it shares an id with.
        {
            "session_id": "a",
            "status": "completed",
            "started_at": "2026-07-16",
            "completed_at": "2026-07-16T01:00:00.0009Z",
            "waves": [1],
            "total_files_changed": 2,
        },
        {
            "session_id": "b",
            "status": "completed",
            "started_at": "2026-07-16T03:00:00+02:00",
            "completed_at": "2026-07-16T01:00:01.5Z",
            "effectiveness": {"completion_rate": 0.8, "carryover": 1},
            "total_waves": 5,
        },
        {
            "session_id": "c",
            "completed_at": "2026-07-16T05:00:00Z",
            "started_at": "2026-07-16T06:00:00Z",
            "agent_summary": {"complete": 1, "spiral": 0},
            "duration_seconds": -4,
        },
        {"session_id": "d", "status": "completed", "started_at": "2026-07-16T00:30:00Z", "completed_at": "bad"},
        {
            "session_id": "d",
            "status": "completed",
            "started_at": "2026-07-16T07:00:00Z",
            "completed_at": "2026-07-16T07:00:02.5Z",
            "total_files_changed": 0.0,
            "agent_summary": {"spiral": 2},
        },
    ]
    events = [
        # On a's end after truncation; first of two tied full-gates passes.
        {
            "event": "orchestrator.quality_gate.failed",
            "timestamp": "2026-07-16T01:00:00.000999Z",
            "variant": "full-gate",
            "exit_code": 0,
        },
        {
            "event": "orchestrator.quality_gate.passed",
            "timestamp": "2026-07-16T03:00:00.000+02:00",
            "variant": "full-gate",
            "exit_code": 1,
        },
        # At b's start (== a's end): also in b's window; b's last full-gate is at 01:00:01 and fails.
        {
            "event": "orchestrator.quality_gate.passed",
            "timestamp": "2026-07-16t01:00:01z",
            "variant": "full-gate",
            "exit_code": "0",
        },
        {"event": "orchestrator.destructive_guard.blocked", "timestamp": "2026-07-16T01:00:01.5009Z"},
        {"event": "orchestrator.loop.warning", "timestamp": "2026-07-16T00:00:00Z"},
    ]
    with pytest.warns(InputWarning, match="sessions.jsonl:4 completed_at 'bad'"):
        want, got = _both(*_write(tmp_path, sessions, events))
    expected = [
        # a: both tied full-gates count for verification (one fails); the first decides gate-health.
        ("a", ("fail", "not-applicable", "pass", "pass", "not-applicable"), None, _kpis(3600)),
        ("b", ("fail", "pass", "fail", "fail", "not-applicable"), 0.8, _kpis(2, total_waves=5, carryover=1)),
        ("c", ("cannot-determine", "not-applicable", "not-applicable", "pass", "not-applicable"), None, _kpis(None)),
        ("d", ("not-applicable", "not-applicable", "not-applicable", "fail", "not-applicable"), None, _kpis(3)),
    ]
    assert [_summary(s) for s in want] == expected
    assert [_summary(s) for s in got] == expected


def test_scenario_peers_rewrites_and_missing_events(tmp_path: Path) -> None:
    sessions = [
        {
            "session_id": "x",
            "status": "completed",
            "started_at": "2026-07-16T00:00:00Z",
            "completed_at": "2026-07-16T02:00:00Z",
        },
        {
            "session_id": "y",
            "status": "abandoned",
            "started_at": "2026-07-16T01:59:59.999Z",
            "completed_at": "2026-07-16T03:00:00Z",
        },
        {
            "session_id": "x",
            "status": "completed",
            "started_at": "2026-07-16T00:00:00Z",
            "completed_at": "2026-07-16T01:00:00Z",
            "total_files_changed": 0,
            "effectiveness": {"planned_issues": 3},
        },
        {
            "session_id": "z",
            "completed_at": True,
            "effectiveness": {"completion_rate": "0.9"},
            "waves": "none",
            "total_waves": 4,
        },
        {
            "session_id": "w",
            "status": "done",
            "completed_at": "2026-07-16T09:00:00Z",
            "agent_summary": {"complete": "3"},
        },
    ]
    with pytest.warns(InputWarning, match="sessions.jsonl:4 completed_at true"):
        want, got = _both(*_write(tmp_path, sessions, None))
    expected = [
        # x's last line no longer overlaps y, and x's own older line is never a peer.
        (
            "x",
            ("not-applicable", "cannot-determine", "not-applicable", "cannot-determine", "not-applicable"),
            None,
            _kpis(3600),
        ),
        (
            "z",
            ("cannot-determine", "not-applicable", "not-applicable", "cannot-determine", "not-applicable"),
            None,
            _kpis(None, total_waves=4),
        ),
    ]
    assert [_summary(s) for s in want] == expected
    assert [_summary(s) for s in got] == expected
    # Now with y overlapping x's last line as well: the gate dimensions abstain.
    sessions[1]["started_at"] = "2026-07-16T00:59:59.999Z"
    with pytest.warns(InputWarning, match="sessions.jsonl:4 completed_at true"):
        want, got = _both(*_write(tmp_path, sessions, []))
    assert want[0].statuses == (
        "cannot-determine",
        "cannot-determine",
        "cannot-determine",
        "cannot-determine",
        "not-applicable",
    )
    assert [_summary(s) for s in got] == [_summary(s) for s in want]


@pytest.mark.filterwarnings("ignore::pytest_sessioneval.InputWarning")  # bad lines on purpose
def test_scenario_latest_takes_an_older_line_of_an_abandoned_id(tmp_path: Path) -> None:
    sessions = [
        {
            "session_id": "p",
            "status": "completed",
            "started_at": "2026-07-16T00:00:00Z",
            "completed_at": "2026-07-16T00:00:01.4999Z",
        },
        {"session_id": "q", "completed_at": "2026-07-16T02:00:00Z", "agent_summary": {"complete": 0}},
        {"session_id": "p", "status": "abandoned"},
        "not json",
        {"session_id": "r", "completed_at": "", "effectiveness": {"completion_rate": 1}},
    ]
    sessions_path, events_path = _write(tmp_path, sessions, ["[]", "{}"])
    assert oracle.latest(oracle.read_lines(sessions_path)) == 1
    [entry] = evaluate(sessions_path, events_path, Selection(latest=True)).entries
    assert entry.line == 1
    assert _summary(entry) == (
        "p",
        ("cannot-determine", "not-applicable", "not-applicable", "pass", "not-applicable"),
        None,
        _kpis(1),
    )
    assert oracle.score(oracle.read_lines(sessions_path), oracle.read_lines(events_path)) == []
    assert score_sessions(sessions_path, events_path) == []

    sessions_path, events_path = _write(tmp_path, [sessions[2], sessions[4]], None)
    assert oracle.latest(oracle.read_lines(sessions_path)) is None
    with pytest.raises(NoEligibleSession):
        evaluate(sessions_path, events_path, Selection(latest=True))


# ---------------------------------------------------------------------------
# JSON decoding: lines that are valid JSON must be read (SEMANTICS.md, "Inputs" / "Values")
# ---------------------------------------------------------------------------

_WINDOW = {"started_at": "2026-07-16T00:00:00Z", "completed_at": "2026-07-16T01:00:00Z"}


def test_a_session_line_with_an_overflowing_number_is_still_read(tmp_path: Path) -> None:
    """``1e400`` is a JSON number that is not finite: the field is "not a number", the line stays."""
    sessions = [
        '{"session_id":"a","status":"completed","started_at":"2026-07-16T00:00:00Z",'
        '"completed_at":"2026-07-16T01:00:00Z","total_token_input":1e400}'
    ]
    want, got = _both(*_write(tmp_path, sessions, [{"event": "orchestrator.wave.completed"}]))
    assert [_summary(s) for s in want] == [
        ("a", ("cannot-determine", "not-applicable", "not-applicable", "pass", "not-applicable"), None, _kpis(3600))
    ]
    assert [_summary(s) for s in got] == [_summary(s) for s in want]


def test_an_event_line_with_an_overflowing_number_is_still_read(tmp_path: Path) -> None:
    sessions = [dict(session_id="a", status="completed", **_WINDOW)]
    events = [
        '{"event":"orchestrator.quality_gate.failed","timestamp":"2026-07-16T00:30:00Z",'
        '"variant":"full-gate","exit_code":1,"duration_ms":1e400}'
    ]
    want, got = _both(*_write(tmp_path, sessions, events))
    assert want[0].statuses[:3] == ("fail", "not-applicable", "fail")
    assert [_summary(s) for s in got] == [_summary(s) for s in want]


def test_an_event_line_with_a_lone_surrogate_escape_is_still_read(tmp_path: Path) -> None:
    """``"\\ud800"`` matches the JSON grammar (RFC 8259 section 7); JSON.parse accepts it."""
    sessions = [dict(session_id="a", status="completed", **_WINDOW)]
    events = [
        '{"event":"orchestrator.quality_gate.failed","timestamp":"2026-07-16T00:30:00Z",'
        '"variant":"full-gate","exit_code":1,"stderr":"\\ud800"}'
    ]
    want, got = _both(*_write(tmp_path, sessions, events))
    assert want[0].statuses[:3] == ("fail", "not-applicable", "fail")
    assert [_summary(s) for s in got] == [_summary(s) for s in want]


def test_every_bad_events_line_is_reported(tmp_path: Path) -> None:
    sessions = [dict(session_id="a", status="completed", **_WINDOW)]
    sessions_path, events_path = _write(
        tmp_path, sessions, ["not json", "[1, 2]", {"event": "x"}, '{"event": "quality_gate"']
    )
    problems = evaluate(sessions_path, events_path).problems
    assert sorted(p.line for p in problems if Path(p.path) == events_path) == [1, 2, 4]


# ---------------------------------------------------------------------------
# The timestamp parser
# ---------------------------------------------------------------------------

H = 3_600_000
D = 24 * H
VALID_TIMESTAMPS = {
    "1970-01-01T00:00:00Z": 0,
    "1970-01-01": 0,
    "1970-01-01T00:00:00": 0,
    "1969-12-31T23:59:59.999Z": -1,
    "1969-12-31T23:59:59.9999999Z": -1,
    "2026-07-16": BASE_MS,
    "2026-07-16T00:00:00Z": BASE_MS,
    "2026-07-16T00:00:00-00:00": BASE_MS,
    "2026-07-16T00:00:00+00:00": BASE_MS,
    "2026-07-16T08:00:00Z": BASE_MS + 8 * H,
    "2026-07-16t08:00:00z": BASE_MS + 8 * H,
    "2026-07-16 08:00:00Z": BASE_MS + 8 * H,
    "2026-07-16 08:00:00": BASE_MS + 8 * H,
    "2026-07-16T08:00:00.0005Z": BASE_MS + 8 * H,
    # V8 keeps nine digits of a numeral after its leading zeros: .000999999999… reads as .999
    "2026-07-16T08:00:00.000999999999999999999Z": BASE_MS + 8 * H + 999,
    "2026-07-16T08:00:00.9999Z": BASE_MS + 8 * H + 999,
    "2026-07-16T08:00:00.5": BASE_MS + 8 * H + 500,
    "2026-07-16T08:00:00.05z": BASE_MS + 8 * H + 50,
    "2026-07-16T08:00:00.123Z": BASE_MS + 8 * H + 123,
    "2026-07-16T08:00:00.123456789": BASE_MS + 8 * H + 123,
    "2026-07-16T10:00:00+02:00": BASE_MS + 8 * H,
    "2026-07-16T02:30:00-05:30": BASE_MS + 8 * H,
    "2026-07-16T00:30:00+01:00": BASE_MS - H // 2,
    "2026-07-16T23:59:59.999-23:59": BASE_MS + 24 * H - 1 + 23 * H + 59 * 60_000,
    "2026-07-16T23:59:59.9995+23:59": BASE_MS + 24 * H - 1 - 23 * H - 59 * 60_000,
    "2000-02-29T00:00:00Z": 951_782_400_000,
    "2024-02-29": 1_709_164_800_000,
    "2026-12-31T23:59:59Z": 1_798_761_599_000,
    "0000-01-01T00:00:00Z": -62_167_219_200_000,
    "0000-02-29": -62_162_121_600_000,
    "9999-12-31T23:59:59.999Z": 253_402_300_799_999,
    "1900-02-28": -2_203_977_600_000,
    # V8's readings beyond RFC 3339: a year or month alone, one-digit fields, hhmm offsets,
    # 24:00, days rolled over past the month's end, white space, US dates and month names.
    "2026": BASE_MS - 196 * D,
    "2026-07": BASE_MS - 15 * D,
    "2026-7-16": BASE_MS,
    "2026-07-6": BASE_MS - 10 * D,
    "+02026-07-16": BASE_MS,  # not six digits: the sign is ignored, the rest is read as a legacy date
    "-2026-07-16": BASE_MS,
    "2026-07-16T08:00": BASE_MS + 8 * H,
    "2026-07-16T08:00Z": BASE_MS + 8 * H,
    "2026-07-16T08:00:00+0200": BASE_MS + 6 * H,
    "2026-07-16T24:00:00Z": BASE_MS + 24 * H,
    "2026-07-16T24:00:00": BASE_MS + 24 * H,
    "2026-02-30": BASE_MS - 136 * D,  # March 2nd
    "2026-02-29": BASE_MS - 137 * D,  # March 1st
    "1900-02-29": -2_203_977_600_000 + 1 * D,  # March 1st, 1900
    "2100-02-29": 4_107_542_400_000,  # March 1st, 2100
    "2026-04-31": BASE_MS - 76 * D,  # May 1st
    "2026-06-31": BASE_MS - 15 * D,  # July 1st
    "2026-09-31": BASE_MS + 77 * D,  # October 1st
    "2026-11-31": BASE_MS + 138 * D,  # December 1st
    "2026-07-16Z": BASE_MS,
    "2026-07-16 ": BASE_MS,
    " 2026-07-16": BASE_MS,
    "2026-07-16\n": BASE_MS,
    "2026-07-16  08:00:00Z": BASE_MS + 8 * H,
    "2026/07/16": BASE_MS,
    "Jul 16 2026": BASE_MS,
    "Thu, 16 Jul 2026 08:00:00 GMT": BASE_MS + 8 * H,
    "２０２６-07-16": BASE_MS - (25 * 365 + 6) * D,  # a word, then 07-16 of 2001
}

INVALID_TIMESTAMPS = [
    "",
    " ",
    "26-07-16",
    "2026-07-16T",
    "2026-07-16T08",
    "2026-07-16T8:00:00Z",
    "2026-07-16T08:0:00Z",
    "2026-07-16T08:00:0Z",
    "2026-07-16T08:00:00.",
    "2026-07-16T08:00:00.Z",
    "2026-07-16T08:00:00,5Z",
    "2026-07-16T08:00:00ZZ",
    "2026-07-16T08:00:00 Z",
    "2026-07-16T08:00:00+02",
    "2026-07-16T08:00:00+2:00",
    "2026-07-16T08:00:00+02:0",
    "2026-07-16T08:00:00+02:00:00",
    "2026-07-16T08:00:00+24:00",
    "2026-07-16T08:00:00-24:00",
    "2026-07-16T08:00:00+02:60",
    "2026-07-16T08:00:00UTC",
    "2026-07-16T08:00:00GMT",
    "2026-07-16T08:00:00 +02:00",
    "2026-07-16T23:60:00Z",
    "2026-07-16T23:59:60Z",
    "2026-07-16T25:00:00Z",
    "2026-01-32",
    "2026-00-10",
    "2026-13-10",
    "2026-07-00",
    "2026-07-16+02:00",
    "2026-07-16T08:00:00Z\n",
    "2026-07-16_08:00:00Z",
    "2026-07-16TT08:00:00Z",
    "20260716",
    "20260716T080000Z",
    "2026-W29-4",
    "2026-197",
    "٢٠٢٦-٠٧-١٦",
    "2026-07-16T08:00:00.１Z",
    "2026-07-16T０8:00:00Z",
    "2026-07-16T08:00:00+０2:00",
    "2026−07−16",
    "2026-07-16T08:00:00.5+",
    "2026-07-16T08:00:00-",
    "2026-07-16T08:00:00.5.5Z",
    "T08:00:00Z",
    "08:00:00",
    "now",
    "null",
]

NON_STRINGS = [
    None,
    True,
    False,
    0,
    1,
    BASE_MS,
    1_784_160_000.5,
    0.0,
    float("nan"),
    [],
    {},
    ["2026-07-16"],
    {"timestamp": "2026-07-16"},
    b"2026-07-16",
]


def test_oracle_parser_matches_hand_computed_values() -> None:
    for text, ms in VALID_TIMESTAMPS.items():
        assert oracle.parse_timestamp(text) == ms, text
    for text in INVALID_TIMESTAMPS:
        assert oracle.parse_timestamp(text) is None, text
    for value in NON_STRINGS:
        assert oracle.parse_timestamp(value) is None, value
    # Independent check with datetime for ordinary dates.
    for text in ("2026-07-16T08:00:00Z", "2024-02-29T12:34:56Z", "1999-12-31T23:59:59Z"):
        parsed = datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
        assert oracle.parse_timestamp(text) == round(parsed.timestamp() * 1000)


def test_package_parser_matches_oracle_on_the_listed_strings() -> None:
    differences = []
    for value in [*VALID_TIMESTAMPS, *INVALID_TIMESTAMPS, *NON_STRINGS]:
        got, want = parse_timestamp_ms(value), oracle.parse_timestamp(value)
        if got != want or type(got) is not type(want):
            differences.append(f"{value!r}: package={got!r} oracle={want!r}")
    assert not differences, "\n".join(differences)


def _random_timestamp(rng: random.Random) -> str:
    """A timestamp-like string: well-formed parts with out-of-range values, then maybe mutated."""

    def two(low: int, high: int) -> str:
        return f"{rng.randint(low, high):02d}"

    year = rng.choice(
        ["2026", "2024", "2000", "1900", "2100", "1970", "1969", "0000", "9999", f"{rng.randint(0, 9999):04d}"]
    )
    text = f"{year}-{two(0, 13)}-{two(0, 32)}"
    if rng.random() < 0.85:
        text += rng.choice("TTTt  ") + f"{two(0, 25)}:{two(0, 61)}:{two(0, 61)}"
        if rng.random() < 0.5:
            text += "." + "".join(rng.choice("0123456789") for _ in range(rng.randint(0, 10)))
        text += rng.choice(["Z", "z", "", "", f"+{two(0, 25)}:{two(0, 61)}", f"-{two(0, 25)}:{two(0, 61)}"])
    for _ in range(rng.choice([0, 0, 0, 1, 1, 2])):
        position = rng.randrange(len(text) + 1)
        char = rng.choice("0123456789-:.TtZz +x٣２\n")
        action = rng.random()
        if action < 0.4:
            text = text[:position] + char + text[position:]
        elif action < 0.7:
            text = text[:position] + text[position + 1 :]
        else:
            text = text[:position] + char + text[position + 1 :]
    return text


def test_package_parser_matches_oracle_on_random_strings() -> None:
    rng = random.Random(20260716)
    differences = []
    parsed = 0
    for _ in range(40_000):
        text = _random_timestamp(rng)
        got, want = parse_timestamp_ms(text), oracle.parse_timestamp(text)
        parsed += want is not None
        if got != want:
            differences.append(f"{text!r}: package={got!r} oracle={want!r}")
    assert parsed > 2_000, parsed
    assert not differences, f"{len(differences)} differences:\n" + "\n".join(differences[:30])


# ---------------------------------------------------------------------------
# The generator must keep reaching the corners, or the comparisons above prove little
# ---------------------------------------------------------------------------


def corner_counts(cases: list[Case]) -> dict[str, int]:
    counts: dict[str, int] = {}

    def bump(name: str, by: int = 1) -> None:
        counts[name] = counts.get(name, 0) + by

    for case in cases:
        if case.event_lines is None:
            bump("events file missing")
        elif not oracle.objects(case.event_lines):
            bump("events file without objects" + (" (not empty)" if oracle.bad_lines(case.event_lines) else ""))
        elif not any(
            isinstance(e.get("event"), str)
            and e["event"].startswith(("orchestrator.quality_gate.", "orchestrator.destructive", "orchestrator.loop"))
            for _, e in oracle.objects(case.event_lines)
        ):
            bump("events file with objects, none of them read")
        session_objects = oracle.objects(case.session_lines)
        events = [e for _, e in oracle.objects(case.event_lines or [])]
        bump("escaped event names", sum(b"\\u00" in line for line in case.event_lines or []))
        last: dict[str, tuple[int, dict]] = {}
        for number, record in session_objects:
            sid = oracle.usable_session_id(record)
            if sid is not None:
                older = last.get(sid)
                if older and record.get("status") == "abandoned" and oracle.is_eligible(older[1]):
                    bump("abandoned rewrite of an eligible line")
                last[sid] = (number, record)
        for scored in case.expected:
            for dim, status in zip(oracle.DIMENSION_IDS[:4], scored.statuses):
                bump(f"{dim} {status}")
            record = dict(session_objects)[scored.line]
            window = oracle.window_of(record)
            bump("with peers" if scored.peers else "without peers")
            if window is None:
                bump("null window")
                continue
            start, end = window
            if end < start:
                bump("inverted window")
            elif (end - start) % 1000 == 500 and scored.kpis["duration_seconds"] == (end - start + 500) // 1000:
                bump("derived duration at exactly .5 s")
            for _, other in session_objects:
                other_window = oracle.window_of(other)
                touching = other_window and (other_window[0] == end or other_window[1] == start)
                if other.get("session_id") != scored.session_id and touching and not scored.peers:
                    bump("touching a window, no peer")
            if scored.peers or end < start:
                continue
            boundary = [
                e
                for e in events
                if oracle.is_gate_event(e) and oracle.parse_timestamp(e.get("timestamp")) in (start, end)
            ]
            bump("gate event on a window boundary", len(boundary))
            bump(
                "... spelled with > 3 fraction digits",
                sum(len(str(e["timestamp"]).split(".")[-1]) > 4 for e in boundary),
            )
            full = [
                e
                for e in events
                if oracle.is_gate_event(e) and e.get("variant") == "full-gate" and oracle.in_window(e, window)
            ]
            if full:
                top = max(oracle.parse_timestamp(e["timestamp"]) for e in full)
                tied = [
                    oracle.is_exit_zero(e.get("exit_code"))
                    for e in full
                    if oracle.parse_timestamp(e["timestamp"]) == top
                ]
                if len(set(tied)) == 2:
                    bump("deciding full-gate tie with differing exit codes")
    return counts


CORNER_MINIMUMS = {
    "events file missing": 50,
    "events file without objects": 30,
    "events file without objects (not empty)": 30,
    "events file with objects, none of them read": 30,
    "escaped event names": 100,
    "abandoned rewrite of an eligible line": 100,
    "with peers": 500,
    "without peers": 500,
    "null window": 200,
    "inverted window": 100,
    "derived duration at exactly .5 s": 30,
    "touching a window, no peer": 30,
    "gate event on a window boundary": 200,
    "... spelled with > 3 fraction digits": 20,
    "deciding full-gate tie with differing exit codes": 20,
    **{
        f"{dim} {status}": 30
        for dim in oracle.DIMENSION_IDS[:3]
        for status in ("pass", "fail", "not-applicable", "cannot-determine")
    },
    **{f"process-safety {status}": 30 for status in ("pass", "fail", "cannot-determine")},
}


def test_the_generator_reaches_every_corner(cases: list[Case]) -> None:
    counts = corner_counts(cases)
    short = {name: counts.get(name, 0) for name, minimum in CORNER_MINIMUMS.items() if counts.get(name, 0) < minimum}
    assert not short, f"corners reached too rarely: {short}\nall counts: {counts}"
