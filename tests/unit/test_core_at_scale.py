"""The shortcuts that make scoring fast must never change an answer.

Each test pits a shortcut of the scoring core against the plain way of
computing the same thing: the timestamp fast path against the full parser,
the block-wise event scan (at any block size) against decoding every line,
the combined event index against unsorted input with ties, verdict sharing
against verdicts that are equal but not the same, and the paused garbage
collector against the caller's setting. No test is timed; the benchmark in
``benchmarks/`` prints the figures.
"""

from __future__ import annotations

import gc
import importlib.util
import random
from pathlib import Path
from typing import Any

import orjson
import pytest
from builders import ROOT

from pytest_sessioneval.core import events as events_module
from pytest_sessioneval.core.engine import (
    NoEligibleSession,
    Selection,
    evaluate,
)
from pytest_sessioneval.core.events import (
    BLOCKED,
    LOOP_WARNING,
    EventIndex,
    read_events,
)
from pytest_sessioneval.core.jsonl import InputProblem, decode_object, iter_objects
from pytest_sessioneval.core.rubric import DimensionVerdict
from pytest_sessioneval.core.sessions import Window
from pytest_sessioneval.core.text import show
from pytest_sessioneval.core.timestamps import _parse, parse_timestamp_ms
from pytest_sessioneval.core.verdict_pool import VerdictPool

# ---------------------------------------------------------------------------
# Timestamps: the fast path for the common shapes
# ---------------------------------------------------------------------------


def _variants(rng: random.Random) -> list[str]:
    """Strings near the fast shapes: valid ones and one-character corruptions."""
    out = []
    # Few distinct hours, so that most strings meet an hour the fast path has learnt.
    hours = [
        (rng.choice([1970, 2000, 2024, 2025, 2026, 2100]), rng.randint(0, 13), rng.randint(0, 32), rng.randint(0, 25))
        for _ in range(12)
    ]
    for _ in range(4000):
        year, month, day, hour = rng.choice(hours)
        minute, second = rng.randint(0, 61), rng.randint(0, 61)
        sep = rng.choice("TTTt ")
        end = rng.choice("ZZZz")
        text = f"{year:04d}-{month:02d}-{day:02d}{sep}{hour:02d}:{minute:02d}:{second:02d}"
        text += rng.choice([f".{rng.randint(0, 999):03d}", "", f".{rng.randint(0, 9)}", ".1234"]) + end
        if rng.random() < 0.3:
            chars = list(text)
            chars[rng.randrange(len(chars))] = rng.choice("0123456789:.-+_TZ x\u0661\uff10")
            text = "".join(chars)
        out.append(text)
    return out


def test_the_timestamp_fast_path_agrees_with_the_full_parser() -> None:
    rng = random.Random(7)
    for text in _variants(rng):
        want = _parse(text)
        # Twice: the first call may teach the fast path this hour, the second uses it.
        assert parse_timestamp_ms(text) == want, text
        assert parse_timestamp_ms(text) == want, text


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("2026-07-16T08:00:00.123Z", 1_784_188_800_123),
        ("2026-07-16T08:00:00Z", 1_784_188_800_000),
        ("2026-07-16t08:00:00.999z", 1_784_188_800_999),
        ("2024-02-29T23:59:59.999Z", 1_709_251_199_999),
        ("2023-02-29T10:00:00.000Z", 1_677_664_800_000),  # March 1st, as V8 rolls it over
        ("2026-07-16T24:00:00.000Z", 1_784_246_400_000),  # the end of the day
        ("2026-07-16T08:60:00.000Z", None),
        ("2026-07-16T08:00:00.\uff11\uff12\uff13Z", None),
        # the fast shape, with what int() would take but a digit table must not
        ("2026-07-16T08:00:00.+00Z", None),
        ("2026-07-16T08:00:00.-01Z", None),
        ("2026-07-16T08:00:00.1_2Z", None),
        ("2026-07-16T08:00:00. 12Z", None),
        ("2026-07-16T08:+1:00.000Z", None),
        ("2026-07-16T08:0_:00Z", None),
    ],
)
def test_the_timestamp_fast_path_on_known_values(text: str, ms: int | None) -> None:
    parse_timestamp_ms("2026-07-16T08:59:59.000Z")  # the hour is known from now on
    assert parse_timestamp_ms(text) == ms
    assert parse_timestamp_ms(text) == ms


# ---------------------------------------------------------------------------
# The event scan: block-wise byte search == decoding every line
# ---------------------------------------------------------------------------

_NEEDLES = (b"quality_gate", b"session.started", b"destructive_guard", b"loop.warning", b"\\u")
_STAMPS = [
    "2026-07-16T00:00:00Z",
    "2026-07-16T00:30:00.000Z",
    "2026-07-16T00:30:00.000Z",
    "2026-07-16T01:00:00Z",
    "2026-07-16T01:00:00.000+00:00",
    "2026-07-16T00:59:59.999Z",
    "2026-07-16",
    "2026-07-16T02:00:00Z",
    "2026-07-16t00:45:00.5z",
    "2026-07-16T03:00:00+02:00",
    "bad",
    None,
    5,
]
_KINDS = [
    "orchestrator.quality_gate.passed",
    "orchestrator.quality_gate.failed",
    BLOCKED,
    LOOP_WARNING,
    "orchestrator.session.started",
    "orchestrator.tool.called",
    "orchestrator.quality_gate.started",
    ["orchestrator.quality_gate.passed"],
    {"event": BLOCKED},
    None,
    7,  # not event names at all
]


def _event_lines(rng: random.Random) -> bytes:
    lines: list[bytes] = []
    for _ in range(rng.randint(1, 60)):
        event: dict[str, Any] = {"event": rng.choice(_KINDS), "timestamp": rng.choice(_STAMPS)}
        if rng.random() < 0.7:
            event["exit_code"] = rng.choice([0, 0, 1, "0", None, 0.0, False])
        if rng.random() < 0.6:
            event["variant"] = rng.choice(["full-gate", "full-gate", "incremental"])
        if rng.random() < 0.4:
            event["host_class"] = rng.choice(["laptop", " ", "ci-runner"])
        line = orjson.dumps(event)
        roll = rng.random()
        if roll < 0.06:
            line = line.replace(b"quality_gate", b"quality\\u005fgate")  # an escaped name
        elif roll < 0.10:
            line = line[: rng.randrange(1, len(line))]  # truncated: bad, reported when it holds a needle
        elif roll < 0.12:
            line = b'["quality_gate"]'
        elif roll < 0.14:
            line = b"   "
        elif roll < 0.16:
            line = line + b"\r"
        elif roll < 0.18:
            line = b'{"note": "' + b"x" * 300 + b'", ' + line[1:]  # longer than small blocks
        elif roll < 0.19:
            line = b"not json \\u0071 quality"
        elif roll < 0.20:
            line = b"not json \\ but no escape of a letter: never decoded"
        lines.append(line)
    data = b"\n".join(lines) + (b"\n" if rng.random() < 0.8 else b"")
    return (b"\xef\xbb\xbf" if rng.random() < 0.1 else b"") + data


def _answers(index: EventIndex) -> list[Any]:
    windows = [None, Window(0, 1 << 50)]
    points = sorted({t for t in map(parse_timestamp_ms, _STAMPS) if t is not None})
    windows += [Window(a, b) for a in points for b in points]
    out: list[Any] = [index.has_events]
    for window in windows:
        out.append(
            (
                index.quality_gates(window),
                index.full_gates(window),
                index.count(BLOCKED, window),
                index.count(LOOP_WARNING, window),
            )
        )
    out.append([index.host_class(stamp) for stamp in _STAMPS])
    return out


@pytest.mark.parametrize("seed", range(60))
def test_the_event_scan_matches_decoding_every_line_at_any_block_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    rng = random.Random(seed)
    path = tmp_path / "events.jsonl"
    path.write_bytes(_event_lines(rng))

    # The plain way: decode every line, index every object; a bad line is reported
    # when it could name a relevant event (what the scan decodes), with the message
    # for the line's bytes without its newline (a leading BOM makes line 1 invalid JSON).
    objects = list(iter_objects(path, []))
    data = path.read_bytes()
    want_problems = [
        (number, message)
        for number, raw in enumerate(data.split(b"\n"), 1)
        if any(needle in raw for needle in _NEEDLES) and type(message := decode_object(raw)) is str
    ]
    want = _answers(EventIndex.build(objects, has_events=bool(objects)))

    for chunk in (1, 7, 64, 1 << 22):
        monkeypatch.setattr(events_module, "_CHUNK", chunk)
        problems: list[InputProblem] = []
        got = _answers(read_events(path, problems, check_every_line=False))
        assert [(p.line, p.message) for p in problems] == want_problems, chunk
        assert got == want, chunk

    # By default every line is decoded: the same index, and every broken line reported.
    every: list[InputProblem] = []
    list(iter_objects(path, every))
    problems = []
    assert _answers(read_events(path, problems)) == want
    assert problems == every


def test_the_deciding_full_gate_is_the_first_in_file_order_among_the_latest() -> None:
    def full(t: str, exit_code: int) -> dict[str, Any]:
        return {
            "event": "orchestrator.quality_gate.passed",
            "timestamp": t,
            "variant": "full-gate",
            "exit_code": exit_code,
        }

    rows = [
        (1, full("2026-07-16T00:40:00Z", 0)),
        (2, full("2026-07-16T00:50:00Z", 1)),  # latest time, first in the file: decides
        (3, full("2026-07-16T00:10:00Z", 0)),  # out of order
        (4, full("2026-07-16T00:50:00Z", 0)),  # same latest time, later in the file
        (5, {"event": BLOCKED, "timestamp": "2026-07-16T00:50:00Z"}),
    ]
    index = EventIndex.build(rows, has_events=True)
    window = Window(parse_timestamp_ms("2026-07-16T00:00:00Z"), parse_timestamp_ms("2026-07-16T01:00:00Z"))
    count, deciding = index.full_gates(window)
    assert count == 4
    assert deciding is not None and (deciding.line, deciding.exit_code) == (2, 1)
    assert index.quality_gates(window) == (4, 1)
    assert index.count(BLOCKED, window) == 1
    early = Window(window.start, parse_timestamp_ms("2026-07-16T00:45:00Z"))
    assert index.full_gates(early)[1].line == 1  # type: ignore[union-attr]
    assert index.full_gates(Window(window.end, window.start)) == (0, None)  # inverted: holds nothing


# ---------------------------------------------------------------------------
# Verdict sharing and the garbage collector
# ---------------------------------------------------------------------------


def _fields(evidence: str, score: Any = None, dimension: str = "d") -> tuple[Any, ...]:
    return (dimension, "deterministic", "pass", evidence, score, score is not None)


def test_equal_verdicts_are_shared_and_unequal_ones_never_are() -> None:
    pool = VerdictPool()
    first = [pool(*_fields("same")), pool(*_fields("x", 1, "e")), pool(*_fields("z", 0.0, "f"))]
    second = [pool(*_fields("same")), pool(*_fields("x", 1.0, "e")), pool(*_fields("z", -0.0, "f"))]
    assert first[0] is second[0]
    assert first[0] == DimensionVerdict(*_fields("same"))
    for a, b in zip(first[1:], second[1:]):
        assert (a is not b and type(a.score) is not type(b.score)) or repr(a.score) != repr(b.score)
    assert [v.score for v in second] == [None, 1.0, -0.0] and repr(second[2].score) == "-0.0"
    assert [type(v.score) for v in first] == [type(None), int, float]
    # After the trial a dimension whose verdicts never repeat is no longer pooled; values stay.
    for n in range(600):
        unique = pool(*_fields(f"unique {n}", dimension="u"))
        assert unique.evidence == f"unique {n}" and unique == DimensionVerdict(*_fields(f"unique {n}", dimension="u"))
        assert pool(*_fields("same")) is first[0]
    assert "u" in pool._unpooled and "d" not in pool._unpooled
    # A verdict that differs in any one field is another object.
    for changed in [
        ("d2", "deterministic", "pass", "same", None, False),
        ("d", "judge", "pass", "same", None, False),
        ("d", "deterministic", "fail", "same", None, False),
        ("d", "deterministic", "pass", "same", None, True),
    ]:
        other = pool(*changed)
        assert other is not first[0] and other == DimensionVerdict(*changed)  # type: ignore[arg-type]


def test_unusual_verdicts_pass_through_unshared() -> None:
    pool = VerdictPool()
    odd = pool("d", "deterministic", "pass", "e", [1], True)  # type: ignore[arg-type]
    assert odd.score == [1] and pool("d", "deterministic", "pass", "e", [1], True) is not odd  # type: ignore[arg-type]


@pytest.mark.parametrize("enabled", [True, False])
def test_evaluate_leaves_the_garbage_collector_as_it_found_it(write_metrics: Any, enabled: bool) -> None:
    directory = write_metrics([{"session_id": "a", "status": "abandoned"}])
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        evaluate(directory / "sessions.jsonl", None)
        assert gc.isenabled() is enabled
        with pytest.raises(NoEligibleSession):
            evaluate(directory / "sessions.jsonl", None, Selection(latest=True))
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


# ---------------------------------------------------------------------------
# The benchmark's generator: same arguments, same bytes
# ---------------------------------------------------------------------------


def test_the_benchmark_generator_is_deterministic_and_its_data_scores(tmp_path: Path) -> None:
    script = ROOT / "benchmarks" / "generate.py"
    spec = importlib.util.spec_from_file_location("bench_generate", script)
    assert spec is not None and spec.loader is not None
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    for name in ("a", "b"):
        generate.generate(400, 8000, 3, tmp_path / name)
    for file in ("sessions.jsonl", "events.jsonl"):
        assert (tmp_path / "a" / file).read_bytes() == (tmp_path / "b" / file).read_bytes()
    assert sum(1 for _ in (tmp_path / "a" / "events.jsonl").open("rb")) == 8000
    evaluation = evaluate(tmp_path / "a" / "sessions.jsonl", tmp_path / "a" / "events.jsonl")
    scored = evaluation.scored
    assert 300 < len(scored) < 400
    assert len(evaluation.entries) - len(scored) > 0  # abandoned or unfinished sessions are skipped
    assert any(entry.peers.count for entry in scored)  # some windows overlap
    assert any(entry.host_class for entry in scored)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (3, "3"),
        (-7, "-7"),
        (2**70, "1180591620717411303424"),
        (True, "true"),
        (0.5, "0.5"),
        (-0.0, "-0.0"),
        (float("inf"), "Infinity"),
        (float("-inf"), "-Infinity"),
        (float("nan"), "NaN"),
        (1.0, "1.0"),
        ("0", '"0"'),
        (None, "null"),
        ([1, "a"], '[1,"a"]'),
        ({"k": 1}, '{"k":1}'),
    ],
)
def test_values_are_shown_as_json_text(value: Any, text: str) -> None:
    assert show(value) == text


@pytest.mark.parametrize(("depth", "nested"), [(255, False), (256, True), (300, True), (900, True)])
def test_how_deep_a_value_may_nest_and_still_be_shown_does_not_depend_on_the_interpreter(
    depth: int, nested: bool
) -> None:
    # A lone surrogate keeps orjson from writing even a shallow value, so the fallback decides;
    # its answer must not depend on how deep this interpreter's repr can recurse.
    array: Any = "\ud800"
    for _ in range(depth):
        array = [array]
    mapping: Any = "\ud800"
    for _ in range(depth):
        mapping = {"k": mapping}
    if nested:
        assert show(array) == "(an array nested too deeply to show)"
        assert show(mapping) == "(an object nested too deeply to show)"
    else:
        assert show(array) == "[" * depth + "'\\ud800'" + "]" * depth
        assert show(mapping).startswith("{'k': {'k': ") and show(mapping).endswith("'\\ud800'" + "}" * depth)
