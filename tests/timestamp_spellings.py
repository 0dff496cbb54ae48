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


# ---------------------------------------------------------------------------
# Edge cases: families drawn one by one, each around the rules that decide it
# ---------------------------------------------------------------------------

# White space V8 skips (the ASCII ones, Unicode's space separators, the BOM), and neighbours
# that it must not skip: U+0085, U+180E, U+200B, U+2028 and U+2029, control characters.
_EDGE_SPACES = (
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\v",
    "\f",
    "\u00a0",
    "\u1680",
    "\u2000",
    "\u2007",
    "\u200a",
    "\u202f",
    "\u205f",
    "\u3000",
    "\ufeff",
    "\u0085",
    "\u180e",
    "\u200b",
    "\u2028",
    "\u2029",
    "\x1c",
)


def _digits(rng: random.Random, count: int) -> str:
    return "".join(rng.choice("0123456789") for _ in range(count))


def _edge_offset(rng: random.Random) -> str:
    sign = rng.choice("+-")
    hour, minute = rng.choice([0, 1, 2, 5, 9, 12, 14, 23, 24, 24, 25]), rng.choice([0, 0, 30, 45, 59, 60])
    return rng.choice(
        [
            "Z",
            "z",
            " Z",
            f"{sign}{hour:02d}:{minute:02d}",
            f"{sign}{hour:02d}{minute:02d}",
            f"{sign}{hour:02d}",
            f"{sign}{hour}:{minute:02d}",
            f"{sign}{hour}{minute:02d}",
            f"{sign}{hour}",
            f" {sign}{hour:02d}:{minute:02d}",
            rng.choice(["UTC", " UTC", "GMT", " GMT", "UT", " UT", "utc", " gmt", " ut", "Utc"]),
            f"{rng.choice(['UTC', ' GMT', 'GMT', ' UT'])}{sign}{hour:02d}{minute:02d}",
            f"{rng.choice(['UTC', ' GMT'])}{sign}{hour}",
            f" GMT {sign}{hour:02d}:{minute:02d}",
        ]
    )


def _edge_rfc(rng: random.Random) -> str:
    """RFC 3339 and its sloppy neighbours: offsets, separators, short fields."""
    year, month, day = (
        rng.choice([2026, 2024, 1970, 1969, rng.randint(1000, 9999)]),
        rng.randint(1, 12),
        rng.randint(1, 28),
    )
    hour, minute, second = rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)
    date = rng.choice([f"{year}-{month:02d}-{day:02d}", f"{year}-{month}-{day}", f"{year}-{month:02d}-{day}"])
    time = rng.choice(
        [
            f"{hour:02d}:{minute:02d}:{second:02d}",
            f"{hour:02d}:{minute:02d}",
            f"{hour}:{minute}",
            f"{hour}:{minute:02d}:{second}",
        ]
    )
    separator = rng.choice(["T", "t", " ", "  ", "   ", "\t", "T", " "])
    return date + separator + time + rng.choice(["", _edge_offset(rng), _edge_offset(rng)])


def _edge_fraction(rng: random.Random) -> str:
    """Any number of fraction digits, 24:00 with and without them."""
    hour = rng.choice([9, 23, 24, 24, 0])
    minute, second = (0, 0) if hour == 24 and rng.random() < 0.8 else (rng.randint(0, 59), rng.randint(0, 59))
    digits = rng.choice([0, 1, 2, 3, 4, 6, 9, 10, 11, 12, 15, 20])
    fraction = "0" * digits if hour == 24 and rng.random() < 0.6 else _digits(rng, digits)
    if rng.random() < 0.3:  # leading zeros before the significant digits
        fraction = "0" * rng.randint(1, 9) + fraction
    separator = rng.choice(["T", "t", " ", "  "])
    return f"2026-07-16{separator}{hour:02d}:{minute:02d}:{second:02d}.{fraction}{rng.choice(['', 'Z', 'z', '+02:00', '-0530', ' GMT', 'UTC'])}"


def _edge_spaces(rng: random.Random) -> str:
    """Leading, trailing and inner white space, and its look-alikes."""
    text = rng.choice(
        [
            "2026-07-16T09:05:07Z",
            "2026-07-16",
            "2026-07-16 09:05",
            "Jul 16 2026 09:05 GMT",
            "7/16/2026",
            "Thu, 16 Jul 2026 09:05:07 GMT",
            "+002026-07-16T09:05:07.123Z",
        ]
    )
    where = rng.random()
    if where < 0.4:
        return rng.choice(_EDGE_SPACES) + text
    if where < 0.8:
        return text + rng.choice(_EDGE_SPACES)
    position = text.find(" ") if " " in text else rng.randrange(len(text) + 1)
    return text[:position] + rng.choice(_EDGE_SPACES) + text[position + 1 :]


def _edge_year(rng: random.Random) -> str:
    """Signed six-digit years, years 0 to 99 and 100 to 999 in many forms."""
    year = rng.choice(
        [0, 1, 9, 10, 49, 50, 99, 100, 101, 999, rng.randint(0, 99), rng.randint(100, 999), 275760, 271821]
    )
    spelled = rng.choice(
        [
            str(year),
            f"{year:02d}",
            f"{year:03d}",
            f"{year:04d}",
            f"+{year:06d}",
            f"-{year:06d}",
            f"{year:05d}",
            f"{year:06d}",
            rng.choice(["+002026", "-000001", "+000000", "+2026", "-2026", "02026"]),
            "-000000",  # no ES year: the sign and the digits go to the legacy reader
        ]
    )
    return rng.choice(
        [
            spelled,
            f"{spelled}-07-16",
            f"{spelled}-07-16T09:05:07Z",
            f"{spelled}-07",
            f"{spelled}-7-6 09:05",
            f"7/16/{spelled}",
            f"Jul 16 {spelled}",
            f"16 Jul {spelled} 09:05 GMT",
            f"{spelled} Jul 16",
            f"Thu Jul 16 {spelled} 09:05:07 GMT+0000",
            f"{spelled}/07/16",
        ]
    )


def _edge_range(rng: random.Random) -> str:
    """Fields out of range, and days past a month's end rolling over."""
    year = rng.choice([2024, 2025, 2000, 1900, 2100, 1600])
    month = rng.choice([2, 2, 2, 4, 11, 12, 13, 0])
    day = rng.choice([28, 29, 30, 31, 32, 0])
    hour, minute, second = rng.choice([0, 23, 24, 25]), rng.choice([0, 59, 60]), rng.choice([0, 59, 60])
    name = _MONTHS[(month - 1) % 12]
    date = rng.choice(
        [
            f"{year}-{month:02d}-{day:02d}",
            f"{month}/{day}/{year}",
            f"{name} {day} {year}",
            f"{day} {name} {year}",
            f"{year}-{month}-{day}",
        ]
    )
    return date + rng.choice(
        [
            "",
            "",
            f"T{hour:02d}:{minute:02d}:{second:02d}Z",
            f" {hour}:{minute:02d}:{second:02d}",
            f" {hour:02d}:{minute:02d}",
            " 24:00",
        ]
    )


def _edge_names(rng: random.Random) -> str:
    """Month and weekday names: full, short, wrong case, misspelt, cut."""
    month = rng.randint(1, 12)
    long_name = _LONG_MONTHS[month - 1]
    name = rng.choice(
        [
            long_name,
            long_name[:3],
            long_name[: rng.randint(1, len(long_name))],
            long_name.upper(),
            long_name.lower(),
            long_name.swapcase(),
            long_name + rng.choice(["x", "s", "."]),
            rng.choice(["Sept", "Sept.", "Febr", "Ju", "Jn", "Mayo", "Noe", "Decem"]),
        ]
    )
    weekday = rng.choice(["", "Thu", "Thursday", "Thurs", "THU", "thu", "Th", "Tues", "Weds", "Sat.", "Fri,", "Mon,"])
    body = rng.choice(
        [
            f"{name} 16 2026",
            f"16 {name} 2026",
            f"{name} 16, 2026",
            f"2026 {name} 16",
            f"16-{name}-2026",
            f"{name}-16-2026",
        ]
    )
    text = f"{weekday} {body}" if weekday else body
    return text + rng.choice(["", " 09:05", " 09:05:07 GMT", " 9:05 pm"])


def _edge_am_pm(rng: random.Random) -> str:
    """12am, 12pm, 0am, 13pm and their neighbours."""
    hour = rng.choice([0, 1, 11, 12, 12, 13, 24])
    time = rng.choice([f"{hour}", f"{hour}:00", f"{hour}:05", f"{hour:02d}:59:59", f"{hour}:30:00.5"])
    marker = rng.choice(["am", "pm", "AM", "PM", "Am", "pM", "am", "pm", "a.m.", "p.m.", "a", "amx"])
    space = rng.choice(["", " ", " ", " "])  # a time must end in white space, a sign, "Z" or the end
    date = rng.choice(["Jul 16 2026", "7/16/2026", "2026-07-16", "16 Jul 2026"])
    zone = rng.choice(["", " GMT", " +0200", "Z"])
    return rng.choice([f"{date} {time}{space}{marker}{zone}", f"{time}{space}{marker} {date}{zone}"])


def _edge_comment(rng: random.Random) -> str:
    """Parenthesised comments, balanced or not, between and around the parts."""
    text = rng.choice(
        [
            "Thu Jul 16 2026 09:05:07 GMT+0200",
            "16 Jul 2026 09:05",
            "2026-07-16 09:05:07",
            "7/16/2026 9:05 pm",
            "2026-07-16T09:05:07Z",
        ]
    )
    comment = rng.choice(
        ["(x)", "(UTC)", "(", ")", "((a)b)", "(a(b)", "()", "(2026)", "(+0200)", ")(", "(Central European Summer Time)"]
    )
    spaces = [i for i, char in enumerate(text) if char == " "] + [0, len(text)]
    position = rng.choice(spaces)
    return text[:position] + rng.choice(["", " "]) + comment + text[position:]


_MS_PER_DAY = 86_400_000


def _civil(days: int) -> tuple[int, int, int]:
    """The proleptic Gregorian (year, month, day) of a day number (0 is 1970-01-01)."""
    days += 719_468
    era = days // 146_097
    day_of_era = days - era * 146_097
    year_of_era = (day_of_era - day_of_era // 1460 + day_of_era // 36_524 - day_of_era // 146_096) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    shifted_month = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * shifted_month + 2) // 5 + 1
    month = shifted_month + 3 if shifted_month < 10 else shifted_month - 9
    return year_of_era + era * 400 + (month <= 2), month, day


def _edge_javascript(rng: random.Random) -> str:
    """What JavaScript's Date methods write, for instants across the whole range."""
    ms = rng.choice(
        [
            rng.randint(-8_640_000_000_000_000, 8_640_000_000_000_000),
            rng.randint(-62_198_755_200_000, 253_402_300_799_999),
            rng.randint(0, 4_102_444_800_000),
        ]
    )
    days, day_ms = divmod(ms, _MS_PER_DAY)
    year, month, day = _civil(days)
    weekday, name = _WEEKDAYS[(days + 3) % 7], _MONTHS[month - 1]
    hour, minute, second, millis = day_ms // 3_600_000, day_ms // 60_000 % 60, day_ms // 1000 % 60, day_ms % 1000
    js_year = f"-{-year:04d}" if year < 0 else f"{year:04d}"  # at least four digits, as Date#toString() writes
    clock = f"{hour:02d}:{minute:02d}:{second:02d}"
    iso_year = f"{year:04d}" if 0 <= year <= 9999 else f"{'+' if year > 0 else '-'}{abs(year):06d}"
    locale_year = year if year > 0 else 1 - year  # the en locales write the year of its era, without the era
    twelve = f"{(hour % 12) or 12}:{minute:02d}:{second:02d} {'AM' if hour < 12 else 'PM'}"
    return rng.choice(
        [
            f"{weekday} {name} {day:02d} {js_year} {clock} GMT+0000 (Coordinated Universal Time)",  # toString
            f"{weekday}, {day:02d} {name} {js_year} {clock} GMT",  # toUTCString
            f"{iso_year}-{month:02d}-{day:02d}T{clock}.{millis:03d}Z",  # toISOString
            f"{weekday} {name} {day:02d} {js_year}",  # toDateString
            f"{month}/{day}/{locale_year}, {twelve}",  # toLocaleString("en-US")
            f"{day:02d}/{month:02d}/{locale_year}, {clock}",  # toLocaleString("en-GB")
            f"{name} {day}, {locale_year}, {twelve}",  # dateStyle medium
        ]
    )


def _edge_us(rng: random.Random) -> str:
    """US dates with slashes, dots and dashes; two-digit years."""
    month, day = rng.choice([1, 7, 12, 13, 0]), rng.choice([1, 16, 29, 31, 32])
    year = rng.choice([2026, 26, 99, 50, 49, 0, 100, 1999])
    first, second = rng.choice("/.-"), rng.choice("/.-/.-/")
    text = rng.choice(
        [
            f"{month}{first}{day}{second}{year}",
            f"{month:02d}{first}{day:02d}{second}{year}",
            f"{month}{first}{day}",
            f"{day}{first}{month}{second}{year}",
        ]
    )
    return text + rng.choice(["", "", " 09:05", ", 9:05 pm", " 09:05:07 GMT", "T09:05"])


def _edge_numbers(rng: random.Random) -> str:
    """Numbers alone, signed, with exponents and points."""
    return rng.choice(
        [
            str(rng.randint(0, 99)),
            str(rng.randint(100, 99_999)),
            str(rng.randint(100_000, 10**12)),
            f"-{rng.randint(0, 9999)}",
            f"+{rng.randint(0, 9999)}",
            f"{rng.randint(0, 9)}e{rng.randint(0, 9)}",
            f"{rng.randint(0, 99)}.{rng.randint(0, 99)}",
            f"{rng.randint(0, 2026)}Z",
            rng.choice(["2026", "202607", "20260716", "1e3", "-1", "0", "Infinity", "NaN", "0x7ea", "2026.", ".5"]),
        ]
    )


_EDGE_TOKENS = (
    "2026",
    "7",
    "16",
    "0",
    "12",
    "24",
    "99",
    ":",
    "-",
    "+",
    ".",
    "/",
    " ",
    "T",
    "Z",
    "(x)",
    ")",
    "GMT",
    "am",
    "pm",
    "Jul",
    "Thu",
)


def _edge_tokens(rng: random.Random) -> str:
    """Short sequences of the tokens the legacy reader tells apart."""
    return "".join(rng.choice(_EDGE_TOKENS) for _ in range(rng.randint(2, 6)))


def _edge_bounds(rng: random.Random) -> str:
    """Instants at the ends of the range of time values (±8.64e15 ms), offsets past them."""
    end = rng.choice(
        [
            "+275760-09-13T00:00:00",
            "+275760-09-12T23:59:59",
            "-271821-04-20T00:00:00",
            "-271821-04-19T23:59:59",
            "+275760-09-13",
            "-271821-04-20",
            "-271821-04-19",
            "+275760-09-14",
            "Sep 13 275760",
            "Sep 12 275760 23:59:59",
            "9/13/275760",
            "275760-09-13 00:00",
        ]
    )
    if end[-1].isdigit() and ":" in end:
        end += rng.choice(["", ".000", ".001", ".999", ".0001"])
    return end + rng.choice(
        [
            "",
            "Z",
            "z",
            "+00:00",
            "-00:01",
            "+00:01",
            "+01:00",
            "-01:00",
            " GMT",
            " GMT-0001",
            " GMT+0001",
            " UTC+1",
            " EST",
        ]
    )


def _edge_colons(rng: random.Random) -> str:
    """Times cut short, doubled colons and points, and what may follow a time."""
    time = rng.choice(
        [
            "9::",
            "9::07",
            "09::",
            "9:05:",
            "9:05:07:",
            "9:05:07.",
            "9:05.07",
            "9:.05",
            "9:05:07.1.2",
            "09:05:07::",
            "9",
            "9:",
            "24::",
            "9:5:7.123456",
        ]
    )
    follower = rng.choice(
        ["", " ", "Z", "z", "+02", "-0130", " GMT", "GMT", "UT", "x", ")", "(x)", " pm", "pm", ".", ","]
    )
    date = rng.choice(["Jul 16 2026", "7/16/2026", "2026-07-16", "16 Jul 2026"])
    return rng.choice([f"{date} {time}{follower}", f"{time}{follower} {date}"])


EDGE_FAMILIES: dict[str, Callable[[random.Random], str]] = {
    "rfc": _edge_rfc,
    "fraction": _edge_fraction,
    "spaces": _edge_spaces,
    "year": _edge_year,
    "range": _edge_range,
    "names": _edge_names,
    "am-pm": _edge_am_pm,
    "comment": _edge_comment,
    "javascript": _edge_javascript,
    "us": _edge_us,
    "numbers": _edge_numbers,
    "tokens": _edge_tokens,
    "bounds": _edge_bounds,
    "colons": _edge_colons,
}


def edge_spellings(seed: int, per_family: int, known: set[str]) -> list[str]:
    """``per_family`` new spellings of each edge family, drawn with ``seed``, none in ``known``.

    Each family draws from its own generator (``seed`` plus its place), so a change to one
    family leaves the others' spellings as they were.
    """
    out: list[str] = []
    seen = set(known)
    for offset, family in enumerate(EDGE_FAMILIES.values()):
        rng = random.Random(seed + offset)
        drawn = 0
        for _ in range(per_family * 50):
            text = family(rng)
            if text not in seen:
                seen.add(text)
                out.append(text)
                drawn += 1
                if drawn == per_family:
                    break
    return out
