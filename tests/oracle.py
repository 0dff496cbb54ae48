"""A naive, independent implementation of rubric-v1 scoring, for differential tests.

This module re-states the scoring semantics of aiat-llm-eval/1.0 (SEMANTICS.md,
told in user terms in docs/semantics.md) and the tables of rubric-v1.md as
plainly as possible. It imports nothing from
``pytest_sessioneval``: every rule is written out again, with simple loops over
all lines and all events (quadratic, and that is fine). When the package and
this module disagree, one of them misreads the specification; the tests show
the input and both answers.

Inputs are the raw lines of ``sessions.jsonl`` and ``events.jsonl`` (``str`` or
``bytes``, as from ``split("\\n")``); ``None`` for the events means the file is
missing. Line numbers are 1-based positions in that list.
"""

from __future__ import annotations

import datetime
import json
import math
import unicodedata
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

DIMENSION_IDS = (
    "verification-evidence",
    "plan-fidelity",
    "gate-health",
    "process-safety",
    "efficiency-kpis",
)
KPI_NAMES = (
    "duration_seconds",
    "total_waves",
    "total_agents",
    "token_input",
    "token_output",
    "carryover",
)

PASS = "pass"
FAIL = "fail"
NA = "not-applicable"
CD = "cannot-determine"

QUALITY_GATE_PASSED = "orchestrator.quality_gate.passed"
QUALITY_GATE_FAILED = "orchestrator.quality_gate.failed"
GUARD_BLOCKED = "orchestrator.destructive_guard.blocked"
PLAN_THRESHOLD = 0.8


# ---------------------------------------------------------------------------
# Reading lines
# ---------------------------------------------------------------------------


def read_lines(path: Path) -> list[bytes] | None:
    """The raw lines of a file split on ``\\n``; ``None`` when the file does not exist."""
    if not path.exists():
        return None
    return path.read_bytes().split(b"\n")


def _reject_constant(name: str) -> Any:
    # Python's json accepts NaN / Infinity / -Infinity; JSON does not.
    raise ValueError(f"{name} is not JSON")


# String.prototype.trim removes these (ECMAScript WhiteSpace and LineTerminator).
_JS_TRIMMED = (
    "\t\n\u000b\u000c\r \u00a0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def decode_line(raw: str | bytes) -> tuple[str, Any]:
    """Classify one line: ``("blank", None)``, ``("bad", None)`` or ``("object", dict)``."""
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return "bad", None
    else:
        text = raw
    if text.strip(_JS_TRIMMED) == "":  # JavaScript's line.trim().length === 0
        return "blank", None
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return "bad", None
    if type(value) is not dict:
        return "bad", None
    return "object", value


def objects(lines: list) -> list[tuple[int, dict]]:
    """``(line_number, object)`` for every line that is a JSON object, in file order."""
    found = []
    for index, raw in enumerate(lines):
        kind, value = decode_line(raw)
        if kind == "object":
            found.append((index + 1, value))
    return found


def bad_lines(lines: list | None) -> list[int]:
    """Line numbers of the lines that are neither blank nor a JSON object."""
    if lines is None:
        return []
    bad = []
    for index, raw in enumerate(lines):
        kind, _ = decode_line(raw)
        if kind == "bad":
            bad.append(index + 1)
    return bad


# ---------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------


def is_number(value: Any) -> bool:
    """A JSON number that is not a boolean and is finite."""
    if type(value) is bool:
        return False
    if type(value) is int:
        return True
    if type(value) is float:
        return math.isfinite(value)
    return False


def is_exit_zero(value: Any) -> bool:
    """JavaScript ``value === 0``: only the number zero."""
    return is_number(value) and value == 0


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness of a decoded JSON value."""
    if value is None or value is False:
        return False
    if value is True:
        return True
    if type(value) in (int, float):
        return value != 0 and not math.isnan(value)
    if type(value) is str:
        return len(value) > 0
    return True  # objects and arrays, even empty ones


def non_negative_number(value: Any) -> Any:
    if is_number(value) and value >= 0:
        return value
    return None


def field(container: Any, name: str) -> Any:
    """``container[name]`` when container is an object holding it, else None."""
    if type(container) is dict:
        return container.get(name)
    return None


# ---------------------------------------------------------------------------
# Timestamps
# ---------------------------------------------------------------------------
#
# SEMANTICS.md: a timestamp is what V8's Date.parse makes of it, the machine's zone being UTC.
# What follows re-tells V8's date parser (src/date/dateparser*) step by step, in its own
# order and words: a character reader, a lazy tokenizer with one token of look-ahead, the ES5
# ISO reader (token by token, time part included), the legacy loop, the three composers and
# MakeDay/MakeTime. It shares nothing with the package's reader (which reads the ES format
# with a regular expression and tokenizes up front), so the two check each other.

ASCII_DIGITS = "0123456789"
MS_PER_DAY = 24 * 60 * 60 * 1000
MAX_TIME_MS = 8.64e15
NONE = None  # V8's kNone: a missing value


def _is_js_white_space(char: str) -> bool:
    """ECMAScript WhiteSpace or LineTerminator."""
    return char in "\t\n\v\f\r \ufeff\u2028\u2029" or unicodedata.category(char) == "Zs"


class _Reader:
    """V8's InputReader: one character at a time; the character "" is the end (so is NUL)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.index = 0
        self.char = ""
        self.advance()

    def advance(self) -> None:
        self.char = self.text[self.index] if self.index < len(self.text) else ""
        if self.char == "\0":
            self.char = ""
        self.index += 1

    def at_end(self) -> bool:
        return self.char == ""

    def is_digit(self) -> bool:
        return self.char != "" and self.char in ASCII_DIGITS

    def is_alpha_or_above(self) -> bool:
        return self.char != "" and ord(self.char) >= ord("A")

    def is_white_space_char(self) -> bool:
        # V8's IsWhiteSpace: WhiteSpace only, line terminators not included.
        return self.char != "" and self.char not in "\n\r\u2028\u2029" and _is_js_white_space(self.char)


class _Tok:
    def __init__(self, tag: str, value: Any = None, length: int = 0, word_type: str = "") -> None:
        self.tag = tag  # "number" "symbol" "word" "space" "unknown" "end" "invalid"
        self.value = value
        self.length = length
        self.word_type = word_type  # for words: "month" "zone" "t" "ampm" "garbage"

    def number_of_length(self, length: int) -> bool:
        return self.tag == "number" and self.length == length

    def symbol(self, char: str) -> bool:
        return self.tag == "symbol" and self.value == char

    def sign(self) -> bool:
        return self.symbol("+") or self.symbol("-")

    def keyword_z(self) -> bool:
        return self.tag == "word" and self.word_type == "zone" and self.length == 1 and self.value == 0


_KEYWORD_TABLE = [  # (first three letters, type, value), in V8's order
    ("jan", "month", 1),
    ("feb", "month", 2),
    ("mar", "month", 3),
    ("apr", "month", 4),
    ("may", "month", 5),
    ("jun", "month", 6),
    ("jul", "month", 7),
    ("aug", "month", 8),
    ("sep", "month", 9),
    ("oct", "month", 10),
    ("nov", "month", 11),
    ("dec", "month", 12),
    ("am", "ampm", 0),
    ("pm", "ampm", 12),
    ("ut", "zone", 0),
    ("utc", "zone", 0),
    ("z", "zone", 0),
    ("gmt", "zone", 0),
    ("cdt", "zone", -5),
    ("cst", "zone", -6),
    ("edt", "zone", -4),
    ("est", "zone", -5),
    ("mdt", "zone", -6),
    ("mst", "zone", -7),
    ("pdt", "zone", -7),
    ("pst", "zone", -8),
    ("t", "t", 0),
]


def _keyword(word: str) -> tuple[str, int]:
    prefix = ""
    for char in word[:3]:
        prefix += chr(ord(char) + 32) if "A" <= char <= "Z" else char
    for letters, kind, value in _KEYWORD_TABLE:
        if prefix == letters and (len(word) <= 3 or kind == "month"):
            return kind, value
    return "garbage", 0


class _Scanner:
    """V8's DateStringTokenizer: next() hands out the token peek() shows, and reads one more."""

    def __init__(self, text: str) -> None:
        self.reader = _Reader(text)
        self.ahead = self._scan()

    def peek(self) -> _Tok:
        return self.ahead

    def next(self) -> _Tok:
        token = self.ahead
        self.ahead = self._scan()
        return token

    def skip_symbol(self, char: str) -> bool:
        if self.ahead.symbol(char):
            self.ahead = self._scan()
            return True
        return False

    def _scan(self) -> _Tok:
        r = self.reader
        if r.at_end():
            return _Tok("end")
        if r.is_digit():
            digits = ""
            while r.is_digit():
                digits += r.char
                r.advance()
            significant = digits.lstrip("0")[:9]  # leading zeros, then nine digits, count
            return _Tok("number", int(significant) if significant else 0, len(digits))
        if r.char in ":-+.)":
            char = r.char
            r.advance()
            return _Tok("symbol", char, 1)
        if r.is_alpha_or_above() and not r.is_white_space_char():
            word = ""
            while r.is_alpha_or_above() and not r.is_white_space_char():
                word += r.char
                r.advance()
            kind, value = _keyword(word)
            return _Tok("word", value, len(word.encode("utf-16-le", "surrogatepass")) // 2, kind)
        if _is_js_white_space(r.char):
            r.advance()
            return _Tok("space", None, 1)
        if r.char == "(":
            balance = 0
            while True:
                if r.char == ")":
                    balance -= 1
                elif r.char == "(":
                    balance += 1
                r.advance()
                if balance <= 0 or r.at_end():
                    break
            return _Tok("unknown")
        r.advance()
        return _Tok("unknown")


def _read_millis(token: _Tok) -> int:
    """V8's ReadMilliseconds: the first three significant digits, from value and length."""
    number, length = token.value, token.length
    if length == 1:
        return number * 100
    if length == 2:
        return number * 10
    length = min(length, 9)
    while length > 3:
        number //= 10
        length -= 1
    return number


class _Day:
    def __init__(self) -> None:
        self.comp: list[int] = []
        self.named_month = NONE
        self.iso = False

    def add(self, n: int) -> bool:
        if len(self.comp) >= 3:
            return False
        self.comp.append(n)
        return True

    def write(self) -> tuple[int, int, int] | None:
        if len(self.comp) < 1:
            return None
        comp = self.comp + [1] * (3 - len(self.comp))
        if self.named_month is NONE:
            if self.iso or not 1 <= comp[0] <= 31:
                year, month, day = comp[0], comp[1], comp[2]
            else:
                month, day, year = comp[0], comp[1], comp[2]
        else:
            month = self.named_month
            if not 1 <= comp[0] <= 31:
                year, day = comp[0], comp[1]
            else:
                day, year = comp[0], comp[1]
        if not self.iso:
            if 0 <= year <= 49:
                year += 2000
            elif 50 <= year <= 99:
                year += 1900
        if not 1 <= month <= 12 or not 1 <= day <= 31:
            return None
        return year, month, day


class _Time:
    def __init__(self) -> None:
        self.comp: list[int] = []
        self.hour_offset = NONE

    def empty(self) -> bool:
        return len(self.comp) == 0

    def expecting(self, n: int) -> bool:
        index = len(self.comp)
        return (index == 1 and 0 <= n <= 59) or (index == 2 and 0 <= n <= 59) or (index == 3 and 0 <= n <= 999)

    def add(self, n: int) -> bool:
        if len(self.comp) >= 4:
            return False
        self.comp.append(n)
        return True

    def add_final(self, n: int) -> bool:
        if not self.add(n):
            return False
        while len(self.comp) < 4:
            self.comp.append(0)
        return True

    def write(self) -> tuple[int, int, int, int] | None:
        hour, minute, second, milli = ([*self.comp, 0, 0, 0, 0])[:4]
        if self.hour_offset is not NONE:
            if not 0 <= hour <= 12:
                return None
            hour = hour % 12 + self.hour_offset
        in_range = 0 <= hour <= 23 and 0 <= minute <= 59 and 0 <= second <= 59 and 0 <= milli <= 999
        end_of_day = hour == 24 and minute == 0 and second == 0 and milli == 0
        if not in_range and not end_of_day:
            return None
        return hour, minute, second, milli


class _Zone:
    def __init__(self) -> None:
        self.sign = NONE
        self.hour = NONE
        self.minute = NONE

    def set(self, hours: int) -> None:
        self.sign = -1 if hours < 0 else 1
        self.hour = abs(hours)
        self.minute = 0

    def expecting(self, n: int) -> bool:
        return self.hour is not NONE and self.minute is NONE and 0 <= n <= 59

    def is_utc(self) -> bool:
        return self.hour == 0 and self.minute == 0

    def write(self) -> tuple[bool, int | None]:
        """(ok, offset seconds or None for local time)."""
        if self.sign is NONE:
            return True, None
        hour = 0 if self.hour is NONE else self.hour
        minute = 0 if self.minute is NONE else self.minute
        total = (hour * 3600 + minute * 60) & 0xFFFFFFFF  # unsigned 32-bit, as in V8
        if total > 0x7FFFFFFF:
            return False, None
        return True, total if self.sign > 0 else -total


def _es5(scanner: _Scanner, day: _Day, time: _Time, zone: _Zone) -> _Tok:
    """V8's ParseES5DateTime: the token the legacy loop starts with, "end" or "invalid"."""
    if scanner.peek().sign():
        sign_token = scanner.next()
        if not scanner.peek().number_of_length(6):
            return sign_token
        year = scanner.next().value
        if sign_token.value == "-" and year == 0:
            return sign_token
        day.add(year if sign_token.value == "+" else -year)
    elif scanner.peek().number_of_length(4):
        day.add(scanner.next().value)
    else:
        return scanner.next()
    if scanner.skip_symbol("-"):
        if not scanner.peek().number_of_length(2) or not 1 <= scanner.peek().value <= 12:
            return scanner.next()
        day.add(scanner.next().value)
        if scanner.skip_symbol("-"):
            if not scanner.peek().number_of_length(2) or not 1 <= scanner.peek().value <= 31:
                return scanner.next()
            day.add(scanner.next().value)
    if not (scanner.peek().tag == "word" and scanner.peek().word_type == "t"):
        if scanner.peek().tag != "end":
            return scanner.next()
    else:
        scanner.next()
        if not scanner.peek().number_of_length(2) or not 0 <= scanner.peek().value <= 24:
            return _Tok("invalid")
        hour_is_24 = scanner.peek().value == 24
        time.add(scanner.next().value)
        if not scanner.skip_symbol(":"):
            return _Tok("invalid")
        if (
            not scanner.peek().number_of_length(2)
            or scanner.peek().value > 59
            or (hour_is_24 and scanner.peek().value > 0)
        ):
            return _Tok("invalid")
        time.add(scanner.next().value)
        if scanner.skip_symbol(":"):
            if (
                not scanner.peek().number_of_length(2)
                or scanner.peek().value > 59
                or (hour_is_24 and scanner.peek().value > 0)
            ):
                return _Tok("invalid")
            time.add(scanner.next().value)
            if scanner.skip_symbol("."):
                if scanner.peek().tag != "number" or (hour_is_24 and scanner.peek().value > 0):
                    return _Tok("invalid")
                time.add(_read_millis(scanner.next()))
        if scanner.peek().keyword_z():
            scanner.next()
            zone.set(0)
        elif scanner.peek().sign():
            zone.sign = 1 if scanner.next().value == "+" else -1
            if scanner.peek().number_of_length(4):
                hourmin = scanner.next().value
                hour, minute = hourmin // 100, hourmin % 100
                if not 0 <= hour <= 23 or not 0 <= minute <= 59:
                    return _Tok("invalid")
                zone.hour, zone.minute = hour, minute
            else:
                if not scanner.peek().number_of_length(2) or not 0 <= scanner.peek().value <= 23:
                    return _Tok("invalid")
                zone.hour = scanner.next().value
                if not scanner.skip_symbol(":"):
                    return _Tok("invalid")
                if not scanner.peek().number_of_length(2) or not 0 <= scanner.peek().value <= 59:
                    return _Tok("invalid")
                zone.minute = scanner.next().value
        if scanner.peek().tag != "end":
            return _Tok("invalid")
    if zone.hour is NONE and time.empty():
        zone.set(0)
    day.iso = True
    return _Tok("end")


def _v8_fields(text: str) -> tuple[tuple[int, int, int], tuple[int, int, int, int], int | None] | None:
    """V8's DateParser::Parse: the date, the time and the offset, or None when it fails."""
    scanner = _Scanner(text)
    day, time, zone = _Day(), _Time(), _Zone()
    token = _es5(scanner, day, time, zone)
    if token.tag == "invalid":
        return None
    has_read_number = len(day.comp) > 0
    while token.tag != "end":
        if token.tag == "number":
            has_read_number = True
            n = token.value
            if scanner.skip_symbol(":"):
                if scanner.skip_symbol(":"):
                    if not time.empty():
                        return None
                    time.add(n)
                    time.add(0)
                else:
                    if not time.add(n):
                        return None
                    if scanner.peek().symbol("."):
                        scanner.next()
            elif scanner.skip_symbol(".") and time.expecting(n):
                time.add(n)
                if scanner.peek().tag != "number":
                    return None
                time.add_final(_read_millis(scanner.next()))
            elif zone.expecting(n):
                zone.minute = n
            elif time.expecting(n):
                time.add_final(n)
                ahead = scanner.peek()
                if not (ahead.tag in ("end", "space") or ahead.keyword_z() or ahead.sign()):
                    return None
            else:
                if not day.add(n):
                    return None
                scanner.skip_symbol("-")
        elif token.tag == "word":
            if token.word_type == "ampm" and not time.empty():
                time.hour_offset = token.value
            elif token.word_type == "month":
                day.named_month = token.value
                scanner.skip_symbol("-")
            elif token.word_type == "zone" and has_read_number:
                zone.set(token.value)
            else:
                if has_read_number:
                    return None
                if scanner.peek().tag == "number":
                    return None
        elif token.sign() and (zone.is_utc() or not time.empty()):
            zone.sign = 1 if token.value == "+" else -1
            n = length = 0
            if scanner.peek().tag == "number":
                number = scanner.next()
                n, length = number.value, number.length
            has_read_number = True
            if scanner.peek().symbol(":"):
                zone.hour, zone.minute = n, NONE
            elif length in (1, 2):
                zone.hour, zone.minute = n, 0
            elif length in (3, 4):
                zone.hour, zone.minute = n // 100, n % 100
            else:
                return None
        elif (token.sign() or token.symbol(")")) and has_read_number:
            return None
        token = scanner.next()
    date = day.write()
    if date is None:
        return None
    clock = time.write()
    if clock is None:
        return None
    ok, offset = zone.write()
    if not ok:
        return None
    return date, clock, offset


def _days_since_epoch(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 to the proleptic Gregorian date, any year (400-year cycles)."""
    cycles = (year - 2000) // 400
    ordinal = datetime.date(year - 400 * cycles, month, day).toordinal()
    return ordinal - datetime.date(1970, 1, 1).toordinal() + cycles * 146097


def parse_timestamp(value: Any) -> int | None:
    """Milliseconds since the epoch as V8's Date.parse gives them (TZ=UTC), None for NaN."""
    if type(value) is not str:
        return None
    fields = _v8_fields(value)
    if fields is None:
        return None
    (year, month, day), (hour, minute, second, milli), offset = fields
    if not -1_000_000 <= year <= 1_000_000:  # MakeDay
        return None
    # MakeDay: the first of the month, then the days; a day past the month's end rolls over.
    days = _days_since_epoch(year, month, 1) + day - 1
    ms = days * MS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 + milli
    if offset is not None:  # with no zone, the local time is UTC
        ms -= offset * 1000
    if abs(ms) > MAX_TIME_MS:  # TimeClip
        return None
    return ms


# ---------------------------------------------------------------------------
# Sessions
# ---------------------------------------------------------------------------


def usable_session_id(record: dict) -> str | None:
    """A session id the scored output can carry: a string JavaScript's trim() leaves non-empty.

    SEMANTICS.md does not say what happens to a record without such an id (the
    reference cannot build its run_id); it is never scored here (it still
    counts as another id's peer).
    """
    value = record.get("session_id")
    if type(value) is str and value.strip(_JS_TRIMMED) != "":
        return value
    return None


def is_eligible(record: dict) -> bool:
    status = record.get("status")
    if status == "abandoned":
        return False
    if status == "completed":
        return True
    if not js_truthy(record.get("completed_at")):
        return False
    complete = field(record.get("agent_summary"), "complete")
    if is_number(complete) and complete > 0:
        return True
    effectiveness = record.get("effectiveness")
    return type(effectiveness) is dict and effectiveness.get("completion_rate") is not None


def window_of(record: dict) -> tuple[int, int] | None:
    start = parse_timestamp(record.get("started_at"))
    end = parse_timestamp(record.get("completed_at"))
    if start is None or end is None:
        return None
    return (start, end)


def in_window(event: dict, window: tuple[int, int] | None) -> bool:
    if window is None:
        return False
    t = parse_timestamp(event.get("timestamp"))
    if t is None:
        return False
    start, end = window
    return start <= t and t <= end  # an inverted window holds nothing


def windows_overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def peer_ids(session_lines_objects: list[tuple[int, dict]], record: dict) -> list[Any]:
    """The other session ids (any line) whose windows strictly overlap ``record``'s window."""
    own_window = window_of(record)
    if own_window is None:
        return []
    own_id = usable_session_id(record)
    assert own_id is not None, "only records with a string session_id are scored"
    peers = []
    for _, other in session_lines_objects:
        other_id = other.get("session_id")
        if other_id == own_id:  # own_id is a str: equal only to the same str
            continue
        other_window = window_of(other)
        if other_window is None:
            continue
        if windows_overlap(own_window, other_window) and other_id not in peers:
            peers.append(other_id)
    return peers


# ---------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------


@dataclass
class OracleSession:
    line: int
    session_id: Any
    statuses: tuple[str, str, str, str, str]
    plan_score: Any
    kpis: dict[str, Any]
    peers: list[Any]


def is_gate_event(event: dict) -> bool:
    name = event.get("event")
    return name in (QUALITY_GATE_PASSED, QUALITY_GATE_FAILED)


def verification_evidence(record, window, peers, events) -> str:
    if len(peers) > 0:
        return CD
    gates = [e for e in events if is_gate_event(e) and in_window(e, window)]
    files_changed = record.get("total_files_changed")
    if not is_number(files_changed):
        files_changed = None
    if len(gates) == 0:
        if files_changed is not None and files_changed == 0:
            return NA
        return CD
    for gate in gates:
        if not is_exit_zero(gate.get("exit_code")):
            return FAIL
    return PASS


def plan_fidelity(record) -> tuple[str, Any]:
    effectiveness = record.get("effectiveness")
    rate = field(effectiveness, "completion_rate")
    planned = field(effectiveness, "planned_issues")
    if not is_number(rate):
        rate = None
    if not is_number(planned):
        planned = None
    if rate is not None:
        if rate >= PLAN_THRESHOLD:
            return PASS, rate
        return FAIL, rate
    if planned is None or planned == 0:
        return NA, None
    return CD, None


def no_waves_ran(record) -> bool:
    total_waves = record.get("total_waves")
    if is_number(total_waves) and total_waves == 0:
        return True
    waves = record.get("waves")
    if type(waves) is not list:
        return True
    return len(waves) == 0


def gate_health(record, window, peers, events) -> str:
    if len(peers) > 0:
        return CD
    full_gates = [e for e in events if is_gate_event(e) and e.get("variant") == "full-gate" and in_window(e, window)]
    if len(full_gates) == 0:
        if no_waves_ran(record):
            return NA
        return CD
    deciding = None
    deciding_time = None
    for gate in full_gates:  # file order: a later gate must be strictly later to win
        t = parse_timestamp(gate.get("timestamp"))
        if deciding is None or t > deciding_time:
            deciding = gate
            deciding_time = t
    if is_exit_zero(deciding.get("exit_code")):
        return PASS
    return FAIL


def process_safety(record, window, events, events_missing_or_empty) -> str:
    if events_missing_or_empty:
        return CD
    for event in events:
        if event.get("event") == GUARD_BLOCKED and in_window(event, window):
            return FAIL
    spiral = field(record.get("agent_summary"), "spiral")
    if is_number(spiral) and spiral > 0:
        return FAIL
    return PASS


def round_half_up(value: Fraction) -> int:
    return math.floor(value + Fraction(1, 2))


def kpis_of(record, window) -> dict[str, Any]:
    duration = non_negative_number(record.get("duration_seconds"))
    if duration is None and window is not None:
        start, end = window
        if end >= start:
            duration = round_half_up(Fraction(end - start, 1000))
    return {
        "duration_seconds": duration,
        "total_waves": non_negative_number(record.get("total_waves")),
        "total_agents": non_negative_number(record.get("total_agents")),
        "token_input": non_negative_number(record.get("total_token_input")),
        "token_output": non_negative_number(record.get("total_token_output")),
        "carryover": non_negative_number(field(record.get("effectiveness"), "carryover")),
    }


def score_line(session_lines: list, event_lines: list | None, line: int) -> OracleSession:
    """Score the record on ``line`` of ``session_lines`` (eligible or not; it needs a string id)."""
    events = None if event_lines is None else [event for _, event in objects(event_lines)]
    return score_record(objects(session_lines), events, line)


def score_record(session_objects: list[tuple[int, dict]], events: list[dict] | None, line: int) -> OracleSession:
    """Score the record on ``line``; ``events`` are the event objects, None when the file is missing."""
    record = None
    for number, candidate in session_objects:
        if number == line:
            record = candidate
    assert record is not None, f"line {line} is not a JSON object"
    if events is None:
        events = []
    events_missing_or_empty = len(events) == 0

    window = window_of(record)
    peers = peer_ids(session_objects, record)
    plan_status, plan_score = plan_fidelity(record)
    statuses = (
        verification_evidence(record, window, peers, events),
        plan_status,
        gate_health(record, window, peers, events),
        process_safety(record, window, events, events_missing_or_empty),
        NA,
    )
    return OracleSession(
        line=line,
        session_id=record.get("session_id"),
        statuses=statuses,
        plan_score=plan_score,
        kpis=kpis_of(record, window),
        peers=peers,
    )


def score(session_lines: list, event_lines: list | None) -> list[OracleSession]:
    """Every eligible session (judged on its last line), in the order of those last lines."""
    session_objects = objects(session_lines)
    events = None if event_lines is None else [event for _, event in objects(event_lines)]
    last_line: dict[str, int] = {}
    for number, record in session_objects:
        sid = usable_session_id(record)
        if sid is not None:
            last_line[sid] = number  # later lines overwrite earlier ones
    results = []
    for number, record in session_objects:
        sid = usable_session_id(record)
        if sid is None or last_line[sid] != number:
            continue
        if not is_eligible(record):
            continue
        results.append(score_record(session_objects, events, number))
    return results


def latest(session_lines: list) -> int | None:
    """The "Latest" cascade: newest line (of any id) that is eligible on its own, or None."""
    session_objects = objects(session_lines)
    for number, record in reversed(session_objects):
        if is_eligible(record):
            return number
    return None
