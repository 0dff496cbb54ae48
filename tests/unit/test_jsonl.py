"""Reading JSON lines: every line JSON allows is read, however deep, by the same rules."""

from __future__ import annotations

import json
import random
import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from builders import session, write_jsonl

from pytest_sessioneval import InputWarning, score_sessions
from pytest_sessioneval.core.jsonl import (
    _decode_deep,
    _parse_int,
    _reject_constant,
    decode_object,
)
from pytest_sessioneval.core.text import first_few, show


def _typed(value: Any) -> Any:
    """``value`` with every number tagged by its type and sign (``1 != 1.0``, ``0.0 != -0.0``)."""
    if isinstance(value, dict):
        return ("object", [(key, _typed(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("array", [_typed(item) for item in value])
    if type(value) is float:
        return ("float", value.hex() if value == value else "nan")
    return (type(value).__name__, value)


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 4 else 6)
    if kind == 0:
        return rng.choice([True, False, None])
    if kind == 1:
        return rng.choice([0, -0, 7, -12, 2**63, 2**64 - 1, 2**64, 10**30])
    if kind == 2:
        return rng.choice([0.5, -0.0, 1e-300, 1.5e300, 0.1, 12.0])
    if kind in (3, 4, 5):
        return "".join(
            rng.choice(["a", '"', "\\", "\u00e9", "\ud83d\ude00", "\n", " ", "\u2028"]) for _ in range(rng.randrange(5))
        )
    if kind in (6, 7):
        return {rng.choice(["k", "", "a", "\u00e9"]): _random_value(rng, depth + 1) for _ in range(rng.randrange(4))}
    return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]


def _spelled(rng: random.Random, value: Any) -> str:
    """JSON text of ``value`` with random (JSON) whitespace and escapes."""
    space = lambda: "".join(rng.choice(" \t\r\n") for _ in range(rng.choice([0, 0, 1, 2])))  # noqa: E731
    if isinstance(value, dict):
        items = [
            space() + json.dumps(key, ensure_ascii=rng.random() < 0.5) + space() + ":" + _spelled(rng, item)
            for key, item in value.items()
        ]
        if value and rng.random() < 0.3:  # a repeated key: the last value wins
            key = next(iter(value))
            items.append(json.dumps(key) + ":" + _spelled(rng, "again"))
        return space() + "{" + ",".join(items) + space() + "}" + space()
    if isinstance(value, list):
        return space() + "[" + ",".join(_spelled(rng, item) for item in value) + space() + "]" + space()
    if type(value) is float and rng.random() < 0.5:
        return space() + format(value, ".17e") + space()
    return space() + json.dumps(value, ensure_ascii=rng.random() < 0.5) + space()


def _standard(text: str) -> Any:
    return json.loads(text, parse_constant=_reject_constant, parse_int=_parse_int)


def test_the_deep_decoder_reads_exactly_what_the_standard_decoder_reads() -> None:
    rng = random.Random(7)
    agreed = refused = 0
    for _ in range(4000):
        text = _spelled(rng, _random_value(rng))
        for variant in (text, *(_damaged(rng, text) for _ in range(2))):
            try:
                expected = _typed(_standard(variant))
            except ValueError:  # JSONDecodeError included
                with pytest.raises(ValueError):  # noqa: PT011  whatever the standard decoder said
                    _decode_deep(variant)
                refused += 1
                continue
            assert _typed(_decode_deep(variant)) == expected, variant
            agreed += 1
    assert agreed > 4000 and refused > 2000  # both sides of the rule were exercised


def _damaged(rng: random.Random, text: str) -> str:
    at = rng.randrange(len(text) + 1)
    if rng.random() < 0.5 and text:
        return text[:at] + text[at + 1 :]
    return text[:at] + rng.choice(list('{}[],:"\\0-.eEtfn ')) + text[at:]


@pytest.mark.parametrize("depth", [1100, 20_000])
def test_lines_nested_beyond_any_recursion_limit_are_read(depth: int) -> None:
    line = '{"a":' + '[{"b":' * depth + "1" + "}]" * depth + ',"z":-0.0}'
    decoded = decode_object(line.encode())
    assert type(decoded) is dict and list(decoded) == ["a", "z"] and str(decoded["z"]) == "-0.0"
    inner: Any = decoded["a"]
    for _ in range(depth):
        (item,) = inner
        inner = item["b"]
    assert inner == 1
    assert "not valid JSON" in str(decode_object((line[:-1]).encode()))  # still a JSON reader
    assert show(decoded["a"]) == "(an array nested too deeply to show)"


def test_a_deeply_nested_event_still_counts_and_so_does_a_deeply_nested_peer(tmp_path: Path) -> None:
    deep = "[" * 1100 + "]" * 1100
    blocked = (
        '{"event":"orchestrator.destructive_guard.blocked","timestamp":"2026-07-20T09:30:00Z","detail":' + deep + "}"
    )
    peer = (
        '{"session_id":"p","status":"abandoned","started_at":"2026-07-20T09:10:00Z","completed_at":"2026-07-20T09:20:00Z","x":'
        + deep
        + "}"
    )
    write_jsonl(tmp_path / "sessions.jsonl", [session("s", waves=[1]), peer])
    write_jsonl(tmp_path / "events.jsonl", [blocked])
    for every in (True, False):
        (scored,) = score_sessions(tmp_path, check_every_event_line=every)
        assert scored.dimension("process-safety").status == "fail"
        assert scored.peers.names == ("p",)


def test_the_api_warns_about_skipped_lines_and_refuses_an_events_file_as_sessions(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "sessions.jsonl", [session("ok"), '{"session_id": "lost",', "garbage", *["x"] * 3])
    write_jsonl(tmp_path / "events.jsonl", [])
    with pytest.warns(InputWarning) as caught:
        scored = score_sessions(tmp_path)
    assert [s.session_id for s in scored] == ["ok"]
    (message,) = [str(w.message) for w in caught]
    assert message.startswith(f"5 unusable input line(s) skipped: {tmp_path / 'sessions.jsonl'}:2: not valid JSON")
    assert " and 2 more (evaluate() lists them all in Evaluation.problems)" in message
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write_jsonl(tmp_path / "sessions.jsonl", [session("ok")])
        assert len(score_sessions(tmp_path)) == 1  # no warning when every line is usable
    with pytest.raises(ValueError, match=re.escape("events.jsonl: is the events file; give the sessions.jsonl")):
        score_sessions(tmp_path / "events.jsonl")


def test_one_line_accounts_name_the_first_few_then_count_the_rest() -> None:
    assert first_few([]) == ""
    assert first_few(["a", "b", "c"]) == "a, b, c"
    assert first_few(["a", "b", "c", "d"]) == "a, b, c and 1 more"
    assert first_few([str(n) for n in range(10)], limit=5, separator="; ") == "0; 1; 2; 3; 4 and 5 more"
