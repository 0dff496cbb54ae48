"""Timestamp spellings of the families writers produce, and V8's reading of them through node.

``spellings(seed, count)`` draws, from a seeded generator, strings of every family the
timestamp parser reads (see ``pytest_sessioneval/core/timestamps.py``): ES date-times with their
extended years and sloppy RFC 3339 neighbours, dates alone, US dates, month names,
JavaScript's ``Date#toString()`` and ``Date#toUTCString()``, what Python, shells and mail
headers write, free mixtures of date tokens, and one-character mutations of all of those.

``v8_parse(texts)`` asks ``TZ=UTC node`` for ``Date.parse`` of each text in one process call:
integer milliseconds, or ``None`` for ``NaN``. ``NODE`` names the node executable, or is
``None`` when there is none on PATH.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from collections.abc import Callable

NODE = shutil.which("node")

_V8_SCRIPT = r"""
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const out = JSON.parse(input).map((text) => {
    const ms = Date.parse(text);
    return Number.isNaN(ms) ? null : ms;
  });
  process.stdout.write(JSON.stringify(out));
});
"""


def v8_parse(texts: list[str]) -> list[int | None]:
    """``Date.parse`` of each text, by node with the machine's zone UTC."""
    if NODE is None:
        raise RuntimeError("node is not on PATH")
    env = {**os.environ, "TZ": "UTC"}
    completed = subprocess.run(
        [NODE, "-e", _V8_SCRIPT],
        input=json.dumps(texts, ensure_ascii=True),
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=600,
    )
    answers = json.loads(completed.stdout)
    assert len(answers) == len(texts)
    return [None if ms is None else int(ms) for ms in answers]


_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_LONG_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_ZONE_WORDS = (
    "UTC",
    "GMT",
    "UT",
    "Z",
    "z",
    "utc",
    "gmt",
    "EST",
    "EDT",
    "CST",
    "CDT",
    "MST",
    "MDT",
    "PST",
    "PDT",
    "CET",
    "BST",
    "Zulu",
    "UTC0",
)
_ZONE_NAMES = (
    "Coordinated Universal Time",
    "Central European Summer Time",
    "Eastern Daylight Time",
    "GMT+02:00",
    "heure d’été d’Europe centrale",
    "Pacific Standard Time",
)
# Characters that mutations put in: the ones the tokenizer sorts apart, and some it must not.
_MUTATION_CHARS = (
    "0123456789"
    "0123456789"
    "-+:.,/ ()TtZz"
    "ampAPMUTCGMTJulyDec"
    "\t\n\x00\x1c_@`[{~"
    "\u00a0\u2028\u3000\ufeff\u0663\uff12\u212a\u0130é😀"
)


def _two(rng: random.Random, value: int) -> str:
    return f"{value:02d}" if rng.random() < 0.8 else str(value)


def _pick(rng: random.Random, usual: list[int], unusual: list[int]) -> int:
    """One of ``usual`` mostly, one of ``unusual`` (edges, values out of range) now and then."""
    return rng.choice(unusual if rng.random() < 0.12 else usual)


def _year(rng: random.Random) -> int:
    return _pick(
        rng,
        [2026, 2026, 2024, 2025, 2000, 1999, 1970, 1969, 1900, 2100, rng.randint(0, 9999)],
        [1, 12, 49, 50, 99, 100, 0, 9999, 275760, 271821, 10000],
    )


def _date_parts(rng: random.Random) -> tuple[int, int, int]:
    month = _pick(rng, [7, 7, 2, 12, 1, rng.randint(1, 12)], [0, 13])
    day = _pick(rng, [16, 16, 29, 1, rng.randint(1, 28)], [30, 31, 0, 32])
    return _year(rng), month, day


def _time(rng: random.Random) -> str:
    hour = _pick(rng, [9, 9, 0, 12, 23, rng.randint(0, 23)], [24, 25])
    minute = _pick(rng, [5, 0, 59, rng.randint(0, 59)], [60])
    second = _pick(rng, [7, 0, 59, rng.randint(0, 59)], [60])
    shape = rng.random()
    if shape < 0.15:
        text = f"{_two(rng, hour)}:{_two(rng, minute)}"
    else:
        text = f"{_two(rng, hour)}:{_two(rng, minute)}:{_two(rng, second)}"
        if rng.random() < 0.5:
            text += "." + "".join(rng.choice("0123456789") for _ in range(rng.choice([1, 2, 3, 3, 3, 4, 6, 9, 10, 12])))
    if rng.random() < 0.1:
        text += rng.choice([" am", " pm", " AM", " PM", "am", "pm", " a.m."])
    return text


def _offset(rng: random.Random) -> str:
    sign = rng.choice("+-")
    hour = _pick(rng, [0, 2, 5, 5, 8, 12, 14, 23, rng.randint(0, 23)], [24, 25, 99])
    minute = _pick(rng, [0, 0, 30, 45, 59], [60, 99])
    return rng.choice(
        [
            "",
            "",
            "Z",
            "z",
            " Z",
            f"{sign}{hour:02d}:{minute:02d}",
            f"{sign}{hour:02d}{minute:02d}",
            f"{sign}{hour:02d}",
            f"{sign}{hour}:{minute:02d}",
            f"{sign}{hour}",
            f" {sign}{hour:02d}:{minute:02d}",
            f" {sign}{hour:02d}{minute:02d}",
            "UTC",
            " UTC",
            "GMT",
            " GMT",
            f" GMT{sign}{hour:02d}{minute:02d}",
            f"GMT{sign}{hour:02d}:{minute:02d}",
            f" UTC{sign}{hour}",
            f" {rng.choice(_ZONE_WORDS)}",
            f"{sign}{hour:02d}:{minute:02d}:00",
            f"{sign}{hour:02d}{minute:02d}{rng.randint(0, 99):02d}",
            f" ({rng.choice(_ZONE_NAMES)})",
        ]
    )


def _iso(rng: random.Random) -> str:
    year, month, day = _date_parts(rng)
    year_text = rng.choice(
        [
            f"{year:04d}",
            f"{year:04d}",
            f"+{year:06d}",
            f"-{year:06d}",
            f"{year}",
            "+000000",
            "-000000",
        ]
    )
    date = rng.choice(
        [
            f"{year_text}-{_two(rng, month)}-{_two(rng, day)}",
            f"{year_text}-{month:02d}-{day:02d}",
            f"{year_text}-{month:02d}",
            year_text,
        ]
    )
    if rng.random() < 0.2:
        return date
    separator = rng.choice(["T", "T", "T", "t", " ", " ", "", "  ", "_", "T "])
    return date + separator + _time(rng) + _offset(rng)


def _date_alone(rng: random.Random) -> str:
    year, month, day = _date_parts(rng)
    return rng.choice(
        [
            f"{year:04d}-{month:02d}-{day:02d}",
            f"{year}-{month}-{day}",
            f"{year:04d}/{month:02d}/{day:02d}",
            f"{year:04d}.{month:02d}.{day:02d}",
            f"{day:02d}.{month:02d}.{year:04d}",
            f"{year:04d}{month:02d}{day:02d}",
            f"{year:04d}-{month:02d}-{day:02d}Z",
            f"{year:04d}-{month:02d}-{day:02d} ",
            f" {year:04d}-{month:02d}-{day:02d}",
        ]
    )


def _us(rng: random.Random) -> str:
    year, month, day = _date_parts(rng)
    text = rng.choice(
        [
            f"{month:02d}/{day:02d}/{year:04d}",
            f"{month}/{day}/{year}",
            f"{month}/{day}/{year % 100:02d}",
            f"{month}/{day}",
            f"{month}-{day}-{year}",
            f"{day}/{month}/{year}",
        ]
    )
    if rng.random() < 0.5:
        text += rng.choice([" ", ", ", "T", " at "]) + _time(rng) + _offset(rng)
    return text


def _named(rng: random.Random) -> str:
    year, month, day = _date_parts(rng)
    name = rng.choice(
        [
            _MONTHS[(month - 1) % 12],
            _LONG_MONTHS[(month - 1) % 12],
            _MONTHS[(month - 1) % 12].upper(),
            _MONTHS[(month - 1) % 12].lower(),
            "Sept",
            "Mayday",
            "Ju",
        ]
    )
    text = rng.choice(
        [
            f"{day} {name} {year}",
            f"{name} {day} {year}",
            f"{name} {day}, {year}",
            f"{day}-{name}-{year}",
            f"{year} {name} {day}",
            f"{name} {year} {day}",
            f"{name} {day}",
            f"{day} {name}",
            f"{name}-{day}-{year}",
            f"{rng.choice(_WEEKDAYS)}, {day} {name} {year}",
            f"{name}. {day}, {year}",
        ]
    )
    if rng.random() < 0.6:
        text += " " + _time(rng) + _offset(rng)
    return text


def _javascript(rng: random.Random) -> str:
    year, month, day = _date_parts(rng)
    weekday, name = rng.choice(_WEEKDAYS), _MONTHS[(month - 1) % 12]
    hour, minute, second = rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)
    sign = rng.choice("+-")
    offset = f"{sign}{rng.choice([0, 1, 2, 5, 9, 12, 14]):02d}{rng.choice([0, 30, 45]):02d}"
    if rng.random() < 0.5:  # Date#toString()
        return f"{weekday} {name} {day:02d} {year:04d} {hour:02d}:{minute:02d}:{second:02d} GMT{offset}" + rng.choice(
            ["", f" ({rng.choice(_ZONE_NAMES)})", " (", " (a (b) c)", " ())"]
        )
    return f"{weekday}, {day:02d} {name} {year:04d} {hour:02d}:{minute:02d}:{second:02d} GMT"  # toUTCString


def _tools(rng: random.Random) -> str:
    """What Python, shells and mail headers write."""
    year, month, day = _date_parts(rng)
    weekday, name = rng.choice(_WEEKDAYS), _MONTHS[(month - 1) % 12]
    hour, minute, second = rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)
    micro = rng.randint(0, 999_999)
    return rng.choice(
        [
            f"{year:04d}-{month:02d}-{day:02d} {hour:02d}:{minute:02d}:{second:02d}.{micro:06d}",  # str(datetime)
            f"{year:04d}-{month:02d}-{day:02d} {hour:02d}:{minute:02d}:{second:02d}.{micro:06d}+00:00",
            f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}.{micro:06d}+02:00",  # isoformat()
            f"{weekday} {name} {day:2d} {hour:02d}:{minute:02d}:{second:02d} {year:04d}",  # ctime()
            f"{weekday}, {day:02d} {name} {year:04d} {hour:02d}:{minute:02d}:{second:02d} {rng.choice(['+0000', '-0500', '-0000'])}",
            f"{weekday} {name} {day:2d} {hour:02d}:{minute:02d}:{second:02d} {rng.choice(['UTC', 'CEST', 'PDT'])} {year:04d}",  # date
            f"{weekday} {day:02d} {name} {year:04d} {hour:02d}:{minute:02d}:{second:02d} {rng.choice(['AM', 'PM'])} UTC",
            f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}{rng.choice(['+00:00', '+0000', 'Z'])}",
            f"{year:04d}{month:02d}{day:02d}T{hour:02d}{minute:02d}{second:02d}Z",
            f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d},{micro:06d}Z",
            f"@{rng.randint(0, 2_000_000_000)}",
            f"{rng.randint(0, 2_000_000_000_000)}",
        ]
    )


def _soup(rng: random.Random) -> str:
    """A free mixture of the tokens the legacy parser reads."""
    pieces = []
    for _ in range(rng.randint(1, 9)):
        kind = rng.random()
        if kind < 0.4:
            pieces.append(
                str(rng.choice([rng.randint(0, 99), rng.randint(0, 9999), rng.randint(0, 10**12), 0])).zfill(
                    rng.choice([1, 2, 4])
                )
            )
        elif kind < 0.65:
            pieces.append(rng.choice([":", "-", "+", ".", ")", "/", ",", "::", "(", "(x)", ":."]))
        elif kind < 0.85:
            pieces.append(rng.choice([*_MONTHS, *_ZONE_WORDS, *_WEEKDAYS, "am", "pm", "T", "t", "foo", "Mayx"]))
        else:
            pieces.append(rng.choice([" ", " ", "\t", "\u00a0"]))
    return "".join(pieces)


_FAMILIES: tuple[Callable[[random.Random], str], ...] = (
    _iso,
    _iso,
    _iso,
    _date_alone,
    _us,
    _named,
    _named,
    _javascript,
    _tools,
    _soup,
)


def _mutate(rng: random.Random, text: str) -> str:
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        position = rng.randrange(len(text) + 1)
        action = rng.random()
        if action < 0.35:
            text = text[:position] + rng.choice(_MUTATION_CHARS) + text[position:]
        elif action < 0.65:
            text = text[:position] + text[position + 1 :]
        elif action < 0.9:
            text = text[:position] + rng.choice(_MUTATION_CHARS) + text[position + 1 :]
        else:  # a swap of neighbours
            if 0 < position < len(text):
                text = text[: position - 1] + text[position] + text[position - 1] + text[position + 1 :]
    return text


def spellings(seed: int, count: int, mutated: float = 0.3) -> list[str]:
    """``count`` spellings drawn with ``seed``; about a fraction ``mutated`` of them mutated."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        text = rng.choice(_FAMILIES)(rng)
        if rng.random() < mutated:
            text = _mutate(rng, text)
        out.append(text)
    return out
