"""Micro-benchmark of the timestamp parser: microseconds per call, by shape.

The fast path is measured on ``YYYY-MM-DDTHH:MM:SS.fffZ`` and ``…SSZ`` stamps spread over
24 hours it has learnt; the full parser on the other common shapes (offsets, a space
before the time, microseconds, no zone, a date alone) and on the legacy forms (mail and
JavaScript dates, US dates). Each figure is the best of several timeit repeats.

Usage: python benchmarks/timestamps.py [--against OTHER/timestamps.py]
``--against`` also times another version of the module (read from that file) on the same
stamps, side by side: to compare a change with what it replaces.
"""

from __future__ import annotations

import argparse
import importlib.util
import timeit
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from pytest_sessioneval.core import timestamps

Parser = Callable[[object], "int | None"]


def _stamps(template: str, count: int = 1000) -> list[str]:
    """``count`` stamps of one shape, over 24 hours of one day."""
    return [
        template.format(hour=i % 24, minute=(i * 7) % 60, second=(i * 13) % 60, ms=(i * 37) % 1000)
        for i in range(count)
    ]


SHAPES: dict[str, list[str]] = {
    "fast: …T09:05:07.123Z": _stamps("2026-07-16T{hour:02d}:{minute:02d}:{second:02d}.{ms:03d}Z"),
    "fast: …T09:05:07Z": _stamps("2026-07-16T{hour:02d}:{minute:02d}:{second:02d}Z"),
    "full: …T09:05:07.123+02:00": _stamps("2026-07-16T{hour:02d}:{minute:02d}:{second:02d}.{ms:03d}+02:00"),
    "full: …T09:05:07.123456Z": _stamps("2026-07-16T{hour:02d}:{minute:02d}:{second:02d}.{ms:03d}456Z"),
    "full: … 09:05:07 (no zone)": _stamps("2026-07-16 {hour:02d}:{minute:02d}:{second:02d}"),
    "full: …T09:05:07 (no zone)": _stamps("2026-07-16T{hour:02d}:{minute:02d}:{second:02d}"),
    "full: 2026-07-16": ["2026-07-16"] * 1000,
    "legacy: … 09:05:07+0200": _stamps("2026-07-16 {hour:02d}:{minute:02d}:{second:02d}+0200"),
    "legacy: Thu, 16 Jul 2026 09:05:07 GMT": _stamps("Thu, 16 Jul 2026 {hour:02d}:{minute:02d}:{second:02d} GMT"),
    "legacy: Date#toString()": _stamps(
        "Thu Jul 16 2026 {hour:02d}:{minute:02d}:{second:02d} GMT+0200 (Central European Summer Time)"
    ),
    "legacy: 07/16/2026": ["07/16/2026"] * 1000,
}


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("other_timestamps", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def per_call_us(parse: Parser, stamps: list[str]) -> float:
    for stamp in stamps:  # the fast path learns its hours on first sight
        parse(stamp)
    runs = timeit.repeat(lambda: [parse(stamp) for stamp in stamps], number=20, repeat=7)
    return min(runs) / (20 * len(stamps)) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, help="another timestamps.py to time on the same stamps")
    args = parser.parse_args()
    other: Parser | None = _load(args.against).parse_timestamp_ms if args.against else None
    header = f"{'shape':42} {'this µs':>8}"
    if other is not None:
        header += f" {'other µs':>9} {'this/other':>10}"
    print(header)
    for name, stamps in SHAPES.items():
        this = per_call_us(timestamps.parse_timestamp_ms, stamps)
        line = f"{name:42} {this:8.3f}"
        if other is not None:
            that = per_call_us(other, stamps)
            parsed = sum(other(stamp) is not None for stamp in stamps)
            line += f" {that:9.3f} {this / that:10.2f}" + ("" if parsed else "  (other: unparseable)")
        print(line)


if __name__ == "__main__":
    main()
