"""Write a seeded, realistic metrics directory: ``sessions.jsonl`` and ``events.jsonl``.

The shape follows what the orchestrator records: one session record per line
(a few rewritten later, 5% abandoned, ~3% overlapping a neighbour's window)
and a time-ordered telemetry stream in which most events are kinds that
rubric-v1 never reads (agents, tools, waves, memory, hooks). The relevant
kinds (quality gates, destructive-guard blocks, loop warnings, session starts)
are mixed in at realistic rates, inside and between session windows. A few
lines are deliberately awkward: offset timestamps, ``\\u`` escapes, ill-typed
fields and the odd truncated line, as real files have.

Usage::

    python benchmarks/generate.py --sessions 100000 --events 2000000 --seed 1 --out benchmarks/data/100k

The same arguments always write the same bytes (for one Python version).
"""

from __future__ import annotations

import argparse
import random
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson

START = datetime(2025, 7, 16, tzinfo=timezone.utc)
YEAR_S = 365 * 86_400
BRANCHES = ("main", "main", "main", "release", "feat-auth", "feat-search", "fix-ci", "docs")
PLATFORMS = ("claude-code", "claude-code", "claude-code", "codex", "cursor")
HOST_CLASSES = ("laptop", "workstation", "workstation", "ci-runner", "devbox")
TOOLS = ("Bash", "Read", "Read", "Edit", "Edit", "Grep", "Glob", "Write", "WebFetch", "Task")
ROLES = ("worker", "worker", "reviewer", "planner", "tester")
MEMORY_KEYS = ("plan", "decisions", "open-issues", "learnings", "carryover")
HOOKS = ("pre_tool", "post_tool", "pre_commit", "user_prompt", "stop")
COMMANDS = ("npm test", "pytest -q", "make check", "cargo test", "go test ./...", "tsc --noEmit")
RULES = ("rm-rf-root", "git-push-force", "drop-table", "chmod-777", "curl-pipe-sh")
PATHS = (
    "src/app.ts",
    "src/lib/eval/engine.mjs",
    "tests/test_api.py",
    "README.md",
    "docs/guide.md",
    "pkg/server/handler.go",
    "scripts/release.sh",
    "src/components/Button.tsx",
)

# Irrelevant kinds and their share of the filler events (most of the stream).
FILLER = (
    ("orchestrator.tool.called", 40),
    ("orchestrator.agent.spawned", 8),
    ("orchestrator.agent.completed", 8),
    ("orchestrator.hook.fired", 12),
    ("orchestrator.memory.read", 6),
    ("orchestrator.memory.write", 4),
    ("orchestrator.wave.started", 4),
    ("orchestrator.wave.completed", 4),
    ("orchestrator.context.compacted", 2),
    ("orchestrator.file.changed", 10),
    ("orchestrator.token.usage", 2),
)
FILLER_KINDS = tuple(kind for kind, _ in FILLER)
FILLER_WEIGHTS = tuple(weight for _, weight in FILLER)


class Clock:
    """RFC 3339 text for epoch milliseconds, the day part cached."""

    def __init__(self) -> None:
        self._days: dict[int, str] = {}
        self._epoch = START.replace(hour=0)

    def stamp(self, ms: int, offset: bool = False) -> str:
        day, rest = divmod(ms, 86_400_000)
        text = self._days.get(day)
        if text is None:
            text = self._days[day] = (datetime(1970, 1, 1) + timedelta(days=day)).strftime("%Y-%m-%d")
        seconds, milli = divmod(rest, 1000)
        hour, seconds = divmod(seconds, 3600)
        minute, second = divmod(seconds, 60)
        core = f"{text}T{hour:02d}:{minute:02d}:{second:02d}.{milli:03d}"
        if offset:
            # Same instant, written in UTC+00:00 the way some emitters do.
            return core + "+00:00"
        return core + "Z"


def dumps(value: dict) -> bytes:
    return orjson.dumps(value)


def session_records(rng: random.Random, count: int, clock: Clock) -> list[dict]:
    """The session records in start order, each with private generation notes under ``_gen``."""
    slot_ms = max(YEAR_S * 1000 // max(count, 1), 60_000)
    t = int(START.timestamp() * 1000)
    sessions: list[dict] = []
    previous_end = t
    per_day: dict[tuple[str, str], int] = {}
    for index in range(count):
        slot = int(slot_ms * rng.uniform(0.6, 1.4))
        duration = int(slot * rng.uniform(0.35, 0.8))
        start = t + int(slot * rng.uniform(0.0, 0.15))
        overlap = index > 0 and rng.random() < 0.015
        if overlap:
            # Starts while the previous session is still running: both become peers.
            start = previous_end - int(duration * rng.uniform(0.05, 0.5))
        end = start + duration
        t = max(t + slot, end + 1000)
        previous_end = end

        branch = rng.choice(BRANCHES)
        day = clock.stamp(start)[:10]
        number = per_day[(branch, day)] = per_day.get((branch, day), 0) + 1
        sid = f"{branch}-{day}-session-{number}"
        if rng.random() < 0.002:
            sid = f"{sid}-caf\u00e9"  # the odd non-ASCII id

        roll = rng.random()
        abandoned = roll < 0.05
        housekeeping = not abandoned and roll < 0.12
        record: dict = {"session_id": sid}
        status_roll = rng.random()
        if abandoned:
            record["status"] = "abandoned"
        elif status_roll < 0.45:
            record["status"] = "completed"
        record["platform"] = rng.choice(PLATFORMS)
        record["started_at"] = clock.stamp(start, offset=rng.random() < 0.01)
        unfinished = not abandoned and rng.random() < 0.01
        if not (abandoned and rng.random() < 0.6) and not unfinished:
            record["completed_at"] = clock.stamp(end)
        if unfinished:
            record.pop("status", None)

        waves = 0 if housekeeping else rng.choice((1, 2, 2, 3, 3, 4, 5))
        wave_list = [
            {"wave": w + 1, "agents": rng.randint(1, 4)}
            for w in range(waves if not abandoned else rng.randint(0, waves))
        ]
        agents = sum(w["agents"] for w in wave_list)
        record["total_waves"] = len(wave_list) if rng.random() > 0.01 else waves + 1
        if rng.random() > 0.005:
            record["waves"] = wave_list
        record["total_agents"] = agents
        record["total_files_changed"] = 0 if housekeeping else rng.randint(0, 40)
        failed = rng.randint(0, 1) if agents else 0
        partial = rng.randint(0, 1) if agents > failed else 0
        spiral = 1 if rng.random() < 0.02 else 0
        record["agent_summary"] = {
            "complete": max(agents - failed - partial, 0),
            "partial": partial,
            "failed": failed,
            "spiral": spiral,
        }
        if housekeeping:
            record["effectiveness"] = {"planned_issues": 0}
        elif rng.random() > 0.03:
            planned = rng.randint(1, 8)
            done = planned - rng.choice((0, 0, 0, 0, 1, 1, 2))
            done = max(done, 0)
            effectiveness = {
                "planned_issues": planned,
                "completion_rate": round(done / planned, 2),
                "carryover": planned - done,
            }
            oddity = rng.random()
            if oddity < 0.005:
                effectiveness["completion_rate"] = None
            elif oddity < 0.008:
                effectiveness["completion_rate"] = str(effectiveness["completion_rate"])
            record["effectiveness"] = effectiveness
        record["total_token_input"] = rng.randint(20_000, 400_000)
        record["total_token_output"] = rng.randint(5_000, 90_000)
        if rng.random() < 0.5:
            record["duration_seconds"] = duration // 1000
        record["_gen"] = (start, end, abandoned, waves, rng.choice(HOST_CLASSES))
        sessions.append(record)
    return sessions


def filler_event(rng: random.Random, kind: str, stamp: str, sid: str | None) -> dict:
    event: dict = {"event": kind, "timestamp": stamp}
    if sid is not None and kind != "orchestrator.hook.fired":
        event["session_id"] = sid
    if kind == "orchestrator.tool.called":
        event["tool"] = rng.choice(TOOLS)
        event["duration_ms"] = rng.randint(3, 20_000)
        if rng.random() < 0.03:
            event["ok"] = False
    elif kind.startswith("orchestrator.agent."):
        event["agent_id"] = f"agent-{rng.randint(1, 12)}"
        event["role"] = rng.choice(ROLES)
    elif kind == "orchestrator.hook.fired":
        event["hook"] = rng.choice(HOOKS)
        event["duration_ms"] = rng.randint(1, 800)
    elif kind.startswith("orchestrator.memory."):
        event["key"] = rng.choice(MEMORY_KEYS)
        event["bytes"] = rng.randint(100, 40_000)
    elif kind.startswith("orchestrator.wave."):
        event["wave"] = rng.randint(1, 5)
    elif kind == "orchestrator.file.changed":
        path = rng.choice(PATHS)
        if rng.random() < 0.001:
            path = "docs/caf\u00e9.md"  # escaped as \u00e9 below: a candidate the search must decode
        event["path"] = path
        event["lines"] = rng.randint(1, 300)
    elif kind == "orchestrator.context.compacted":
        event["tokens_before"] = rng.randint(100_000, 200_000)
    elif kind == "orchestrator.token.usage":
        event["input"] = rng.randint(1_000, 50_000)
        event["output"] = rng.randint(100, 9_000)
    return event


def gate_event(rng: random.Random, stamp: str, variant: str, passing: bool) -> dict:
    event: dict = {
        "event": "orchestrator.quality_gate.passed" if passing else "orchestrator.quality_gate.failed",
        "timestamp": stamp,
        "variant": variant,
        "exit_code": 0 if passing else rng.choice((1, 1, 1, 2, 124)),
        "duration_ms": rng.randint(800, 240_000),
        "command": rng.choice(COMMANDS),
    }
    odd = rng.random()
    if odd < 0.002:
        event["exit_code"] = "0"
    elif odd < 0.003:
        del event["exit_code"]
    return event


def session_events(rng: random.Random, record: dict, budget: int, clock: Clock) -> list[tuple[int, dict]]:
    """``budget`` events during one session, in time order."""
    start, end, abandoned, waves, host = record["_gen"]
    # Telemetry names a session by its short run id, not by the sessions.jsonl id.
    sid = f"{rng.getrandbits(32):08x}"
    out: list[tuple[int, dict]] = []
    if budget <= 0:
        return out
    started = {"event": "orchestrator.session.started", "timestamp": record["started_at"], "session_id": sid}
    if rng.random() < 0.97:
        started["host_class"] = host
    out.append((start, started))
    budget -= 1
    span = max(end - start, 1)
    relevant: list[tuple[int, dict]] = []
    if not abandoned and budget > 0:
        for _ in range(rng.choice((0, 1, 1, 2, 2, 3)) if waves else rng.choice((0, 0, 1))):
            t = start + rng.randrange(span)
            if rng.random() < 0.5:
                relevant.append(
                    (
                        t - 500,
                        {
                            "event": "orchestrator.quality_gate.started",
                            "timestamp": clock.stamp(t - 500),
                            "variant": "incremental",
                        },
                    )
                )
            relevant.append((t, gate_event(rng, clock.stamp(t), "incremental", rng.random() > 0.12)))
        if waves and rng.random() < 0.85:
            t = end - rng.randrange(1, min(span, 120_000) + 1)
            relevant.append((t, gate_event(rng, clock.stamp(t), "full-gate", rng.random() > 0.1)))
            if rng.random() < 0.04:
                # A re-run of the full gate in the same millisecond: the first one decides.
                relevant.append((t, gate_event(rng, clock.stamp(t), "full-gate", rng.random() > 0.5)))
    if rng.random() < 0.03:
        t = start + rng.randrange(span)
        relevant.append(
            (
                t,
                {
                    "event": "orchestrator.destructive_guard.blocked",
                    "timestamp": clock.stamp(t),
                    "session_id": sid,
                    "rule": rng.choice(RULES),
                    "tool": "Bash",
                },
            )
        )
    if rng.random() < 0.06:
        t = start + rng.randrange(span)
        relevant.append(
            (
                t,
                {
                    "event": "orchestrator.loop.warning",
                    "timestamp": clock.stamp(t),
                    "session_id": sid,
                    "agent_id": f"agent-{rng.randint(1, 12)}",
                    "repeats": rng.randint(3, 9),
                },
            )
        )
    relevant = relevant[:budget]
    budget -= len(relevant)
    out.extend(relevant)
    kinds = rng.choices(FILLER_KINDS, FILLER_WEIGHTS, k=budget)
    for kind in kinds:
        t = start + rng.randrange(span)
        out.append((t, filler_event(rng, kind, clock.stamp(t, offset=rng.random() < 0.002), sid)))
    out.sort(key=lambda entry: entry[0])
    return out


def between_events(rng: random.Random, t0: int, t1: int, count: int, clock: Clock) -> list[tuple[int, dict]]:
    """Events outside any session: hooks, memory syncs, the odd manual gate run."""
    out: list[tuple[int, dict]] = []
    span = max(t1 - t0, 1)
    for _ in range(count):
        t = t0 + rng.randrange(span)
        roll = rng.random()
        if roll < 0.05:
            event = gate_event(rng, clock.stamp(t), rng.choice(("incremental", "full-gate")), rng.random() > 0.2)
        elif roll < 0.055:
            event = {
                "event": "orchestrator.loop.warning",
                "timestamp": clock.stamp(t),
                "agent_id": "agent-1",
                "repeats": 3,
            }
        else:
            kind = rng.choice(
                (
                    "orchestrator.hook.fired",
                    "orchestrator.memory.write",
                    "orchestrator.memory.read",
                    "orchestrator.tool.called",
                )
            )
            event = filler_event(rng, kind, clock.stamp(t), None)
        out.append((t, event))
    return out


def encode_event(event: dict) -> bytes:
    line = orjson.dumps(event)
    if b"\xc3\xa9" in line:
        line = line.replace("\u00e9".encode(), b"\\u00e9")
    return line


def generate(sessions: int, events: int, seed: int, out: Path) -> tuple[int, int]:
    """Write ``out/sessions.jsonl`` and ``out/events.jsonl``; return their sizes in bytes."""
    rng = random.Random(seed)
    clock = Clock()
    out.mkdir(parents=True, exist_ok=True)
    records = session_records(rng, sessions, clock)

    # Split the event budget: ~8% between sessions, the rest inside them.
    between_total = events * 8 // 100
    inside_total = events - between_total
    budgets = [inside_total // max(sessions, 1)] * sessions
    for _ in range(inside_total - sum(budgets)):
        budgets[rng.randrange(sessions)] += 1
    gaps = [0] * (sessions + 1)
    for _ in range(between_total if sessions else 0):
        gaps[rng.randrange(sessions + 1)] += 1

    events_path = out / "events.jsonl"
    with open(events_path, "wb", buffering=1 << 22) as stream:
        pending: list[tuple[int, dict]] = []
        horizon = int(START.timestamp() * 1000) - 3_600_000
        # A later session starts at most a fraction of a slot before an earlier one.
        margin = 2 * max(YEAR_S * 1000 // max(sessions, 1), 60_000) + 3_600_000
        for index, record in enumerate(records):
            start, end = record["_gen"][0], record["_gen"][1]
            pending.extend(between_events(rng, horizon, start, gaps[index], clock))
            pending.extend(session_events(rng, record, budgets[index], clock))
            horizon = max(horizon, end)
            # Flush what no later session can precede (windows overlap only neighbours).
            if len(pending) > 20_000:
                pending.sort(key=lambda entry: entry[0])
                keep_from = next((i for i, (t, _) in enumerate(pending) if t >= start - margin), len(pending))
                stream.write(b"".join(encode_event(e) + b"\n" for _, e in pending[:keep_from]))
                del pending[:keep_from]
        pending.extend(between_events(rng, horizon, horizon + 3_600_000, gaps[sessions], clock))
        pending.sort(key=lambda entry: entry[0])
        lines = [encode_event(e) for _, e in pending]
        # A writer that crashed mid-line leaves a truncated line, rarely.
        for _ in range(max(events // 400_000, 1) if lines else 0):
            at = rng.randrange(len(lines))
            lines[at] = lines[at][: len(lines[at]) // 2]
        stream.write(b"".join(line + b"\n" for line in lines))

    sessions_path = out / "sessions.jsonl"
    with open(sessions_path, "wb", buffering=1 << 22) as stream:
        for record in records:
            gen = record.pop("_gen")
            if rng.random() < 0.01:
                # Written once while running, rewritten when done: the last line is authoritative.
                early = {k: v for k, v in record.items() if k not in ("completed_at", "status")}
                early["total_waves"] = 0
                early["waves"] = []
                stream.write(dumps(early) + b"\n")
            stream.write(dumps(record) + b"\n")
            if rng.random() < 0.00005:
                stream.write(dumps(record)[:40] + b"\n")  # truncated
            del gen
    return sessions_path.stat().st_size, events_path.stat().st_size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, required=True, help="number of sessions")
    parser.add_argument("--events", type=int, required=True, help="number of events")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--out", type=Path, required=True, help="directory to write")
    args = parser.parse_args(argv)
    s_bytes, e_bytes = generate(args.sessions, args.events, args.seed, args.out)
    print(
        f"{args.out}: sessions.jsonl {s_bytes / 1e6:.1f} MB, events.jsonl {e_bytes / 1e6:.1f} MB, "
        f"total {(s_bytes + e_bytes) / 1e6:.1f} MB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
