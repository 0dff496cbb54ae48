"""Timestamps are read exactly as V8's ``Date.parse`` reads them (node, TZ=UTC).

``data/timestamps.jsonl`` (V8's answers for 11,052 spellings, from the specification) and
``data/timestamps-more.jsonl`` (other spellings of the same families, then a block of edge
cases family by family, written by ``generate_timestamp_table.py``) are facts about V8:
every row is checked by its ``must`` rule, ``"equal"`` (exactly ``v8_ms``, or unparseable
where it is null) or ``"equal-or-null"`` (``v8_ms`` or unparseable, never another instant).
Where node is on PATH, seeded batches of fresh spellings and of fresh edge cases are
compared with node itself.
"""

from __future__ import annotations

import json
import random

import oracle
import pytest
from builders import ROOT
from timestamp_spellings import EDGE_FAMILIES, NODE, edge_spellings, spellings, v8_parse

from pytest_sessioneval.core.timestamps import _parse, parse_timestamp_ms

DATA = ROOT / "tests" / "data"


def _rows(name: str) -> list[dict[str, object]]:
    lines = (DATA / name).read_text(encoding="utf-8").split("\n")  # not splitlines(): texts hold U+2028
    return [json.loads(line) for line in lines if line]


def _mismatches(rows: list[dict[str, object]]) -> list[str]:
    out = []
    for row in rows:
        text, want, must = row["text"], row["v8_ms"], row["must"]
        assert type(text) is str and must in ("equal", "equal-or-null"), row
        # Twice: the first call may teach the fast path an hour, the second may use it.
        answers = {parse_timestamp_ms(text), parse_timestamp_ms(text), _parse(text)}
        got = answers.pop() if len(answers) == 1 else f"inconsistent {sorted(answers, key=str)}"
        if got != want and not (must == "equal-or-null" and got is None):
            out.append(f"{text!r}: V8 {want}, parsed {got} ({must})")
    return out


@pytest.mark.parametrize("table", ["timestamps.jsonl", "timestamps-more.jsonl"])
def test_every_row_of_the_v8_tables(table: str) -> None:
    rows = _rows(table)
    assert len(rows) >= 4000
    mismatches = _mismatches(rows)
    assert not mismatches, f"{len(mismatches)} of {len(rows)} rows differ:\n" + "\n".join(mismatches[:50])


def test_the_oracle_reads_the_specification_table_as_v8() -> None:
    mismatches = []
    for row in _rows("timestamps.jsonl"):
        got, want = oracle.parse_timestamp(row["text"]), row["v8_ms"]
        if got != want and not (row["must"] == "equal-or-null" and got is None):
            mismatches.append(f"{row['text']!r}: V8 {want}, oracle {got}")
    assert not mismatches, f"{len(mismatches)} rows differ:\n" + "\n".join(mismatches[:50])


@pytest.mark.skipif(NODE is None, reason="node is not on PATH: no V8 to compare with (the tables still are)")
def test_fresh_spellings_read_as_node_reads_them() -> None:
    texts = spellings(seed=1_784_192_707, count=20_000)
    mismatches = [
        f"{text!r}: V8 {want}, parsed {parse_timestamp_ms(text)}, oracle {oracle.parse_timestamp(text)}"
        for text, want in zip(texts, v8_parse(texts))
        if parse_timestamp_ms(text) != want or oracle.parse_timestamp(text) != want
    ]
    assert not mismatches, f"{len(mismatches)} of {len(texts)} spellings differ:\n" + "\n".join(mismatches[:50])


@pytest.mark.skipif(NODE is None, reason="node is not on PATH: no V8 to compare with (the tables still are)")
def test_fresh_edge_spellings_read_as_node_reads_them() -> None:
    per_family = 300
    texts = edge_spellings(seed=1_784_192_707, per_family=per_family, known=set())
    assert len(texts) == per_family * len(EDGE_FAMILIES)
    mismatches = [
        f"{text!r}: V8 {want}, parsed {parse_timestamp_ms(text)}, oracle {oracle.parse_timestamp(text)}"
        for text, want in zip(texts, v8_parse(texts))
        if parse_timestamp_ms(text) != want or _parse(text) != want or oracle.parse_timestamp(text) != want
    ]
    assert not mismatches, f"{len(mismatches)} of {len(texts)} spellings differ:\n" + "\n".join(mismatches[:50])


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        # The families, one spelling each (values as node gives them with TZ=UTC).
        ("2026-07-16T09:05:07.123Z", 1_784_192_707_123),
        ("+002026-07-16T09:05:07Z", 1_784_192_707_000),
        ("2026-07-16 09:05:07.123456789+0200", 1_784_185_507_123),
        ("2026-07-16 09:05-5", 1_784_210_700_000),
        ("2026-07-16t09:05-5", None),  # after "T", an ES date-time or nothing
        ("2026-7-6 9:05 UTC", 1_783_328_700_000),
        ("2026-07-16 24:00", 1_784_246_400_000),
        ("07/16/2026", 1_784_160_000_000),
        ("16 Jul 2026 09:05 GMT", 1_784_192_700_000),
        ("Jul 16 2026", 1_784_160_000_000),
        ("Thu Jul 16 2026 09:05:07 GMT+0200 (Central European Summer Time)", 1_784_185_507_000),
        ("Thu, 16 Jul 2026 09:05:07 GMT", 1_784_192_707_000),
        ("2025-02-29", 1_740_787_200_000),  # rolled over to March 1st
        ("+275760-09-13T00:00:00Z", 8_640_000_000_000_000),
        ("+275760-09-13T00:00:00.001Z", None),  # beyond the range of time values
        ("-271821-04-20", -8_640_000_000_000_000),
        ("-000000-01-01T00:00:00Z", None),
        ("-000000-01-01", 978_307_200_000),  # no ES year: 01-01 of 2001, as V8 reads it
        ("2026-07-16T09:05:07+24:00", None),
        ("2026-07-16T24:00:01Z", None),
        ("2026-07-16T09:05:07.123Z\0junk", 1_784_192_707_123),  # V8 reads up to a NUL
    ],
)
def test_families_on_known_values(text: str, ms: int | None) -> None:
    assert parse_timestamp_ms(text) == ms
    assert oracle.parse_timestamp(text) == ms


def test_the_fast_path_never_learns_the_24th_hour() -> None:
    assert parse_timestamp_ms("2031-01-02T24:00:00.000Z") == 1_925_164_800_000
    assert parse_timestamp_ms("2031-01-02T24:00:00Z") == 1_925_164_800_000
    for text in ("2031-01-02T24:00:01.000Z", "2031-01-02T24:59:59Z", "2031-01-02T24:00:00.001Z"):
        assert parse_timestamp_ms(text) is None, text


class _Text(str):
    pass


@pytest.mark.parametrize(
    "value", [None, True, False, 0, 1_784_160_000_000, 1.5, b"2026-07-16", ["2026-07-16"], _Text("2026-07-16")]
)
def test_only_str_values_parse(value: object) -> None:
    assert parse_timestamp_ms(value) is None


def test_a_day_the_fast_path_learnt_reads_every_time_of_it_as_the_full_parser() -> None:
    # One full parse teaches the fast path all 24 hours of its day; a wrong offset for any
    # hour, separator or kind of day (leap, rolled over, far years) shows here.
    rng = random.Random(20)
    days = [
        f"{y:04d}-{m:02d}-{d:02d}"
        for y in (1, 1969, 1970, 2024, 2025, 9999)
        for m in (1, 2, 12)
        for d in (1, 28, 29, 30, 31)
    ]
    for day in days:
        for separator in "Tt ":
            first = f"{day}{separator}{rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}Z"
            parse_timestamp_ms(first)
            for hour in range(24):
                minute, second, millis = rng.randrange(60), rng.randrange(60), rng.randrange(1000)
                for text in (
                    f"{day}{separator}{hour:02d}:{minute:02d}:{second:02d}Z",
                    f"{day}{separator}{hour:02d}:{minute:02d}:{second:02d}.{millis:03d}z",
                ):
                    assert parse_timestamp_ms(text) == _parse(text), text
