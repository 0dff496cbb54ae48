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
_JS_TRIMMED = "\t\n\u000b\u000c\r \u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000\ufeff"


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

ASCII_DIGITS = "0123456789"
MS_PER_DAY = 24 * 60 * 60 * 1000


def _all_digits(text: str, length: int) -> bool:
    if len(text) != length:
        return False
    for char in text:
        if char not in ASCII_DIGITS:
            return False
    return True


def _is_leap_year(year: int) -> bool:
    if year % 400 == 0:
        return True
    if year % 100 == 0:
        return False
    return year % 4 == 0


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        return 29 if _is_leap_year(year) else 28
    if month in (4, 6, 9, 11):
        return 30
    return 31


def _days_since_epoch(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 to the proleptic Gregorian date (year may be 0)."""
    if year < 1:
        # datetime starts at year 1; the Gregorian calendar repeats every 400 years.
        return _days_since_epoch(year + 400, month, day) - 146097
    ordinal = datetime.date(year, month, day).toordinal()
    return ordinal - datetime.date(1970, 1, 1).toordinal()


def parse_timestamp(value: Any) -> int | None:
    """Milliseconds since the epoch per SEMANTICS.md, or None when unparseable.

    Forms: ``YYYY-MM-DD`` (UTC midnight) or ``YYYY-MM-DD<T|t|space>hh:mm:ss``
    with optional ``.fraction`` (one or more digits, truncated to ms) and an
    optional offset ``Z``/``z``/``+hh:mm``/``-hh:mm`` (absent = UTC).
    """
    if type(value) is not str:
        return None
    text = value
    if len(text) < 10:
        return None
    date_part = text[:10]
    if date_part[4] != "-" or date_part[7] != "-":
        return None
    if not (
        _all_digits(date_part[0:4], 4)
        and _all_digits(date_part[5:7], 2)
        and _all_digits(date_part[8:10], 2)
    ):
        return None
    year = int(date_part[0:4])
    month = int(date_part[5:7])
    day = int(date_part[8:10])
    if month < 1 or month > 12:
        return None
    if day < 1 or day > _days_in_month(year, month):
        return None
    days = _days_since_epoch(year, month, day)

    rest = text[10:]
    if rest == "":
        return days * MS_PER_DAY
    if rest[0] not in ("T", "t", " "):
        return None
    rest = rest[1:]
    if len(rest) < 8 or rest[2] != ":" or rest[5] != ":":
        return None
    if not (
        _all_digits(rest[0:2], 2) and _all_digits(rest[3:5], 2) and _all_digits(rest[6:8], 2)
    ):
        return None
    hour = int(rest[0:2])
    minute = int(rest[3:5])
    second = int(rest[6:8])
    if hour > 23 or minute > 59 or second > 59:
        return None
    rest = rest[8:]

    millis = 0
    if rest.startswith("."):
        count = 1
        while count < len(rest) and rest[count] in ASCII_DIGITS:
            count += 1
        fraction = rest[1:count]
        if fraction == "":
            return None
        millis = int((fraction + "000")[:3])  # truncate, never round
        rest = rest[count:]

    offset_minutes = 0
    if rest in ("", "Z", "z"):
        offset_minutes = 0
    elif len(rest) == 6 and rest[0] in ("+", "-") and rest[3] == ":":
        if not (_all_digits(rest[1:3], 2) and _all_digits(rest[4:6], 2)):
            return None
        offset_hour = int(rest[1:3])
        offset_minute = int(rest[4:6])
        if offset_hour > 23 or offset_minute > 59:
            return None
        offset_minutes = offset_hour * 60 + offset_minute
        if rest[0] == "-":
            offset_minutes = -offset_minutes
    else:
        return None

    local_ms = days * MS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 + millis
    # local time = UTC + offset, so UTC = local time - offset
    return local_ms - offset_minutes * 60 * 1000


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
    if type(effectiveness) is dict and "completion_rate" in effectiveness:
        if effectiveness["completion_rate"] is not None:
            return True
    return False


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
        if windows_overlap(own_window, other_window):
            if other_id not in peers:
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
    return name == QUALITY_GATE_PASSED or name == QUALITY_GATE_FAILED


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
    full_gates = [
        e
        for e in events
        if is_gate_event(e) and e.get("variant") == "full-gate" and in_window(e, window)
    ]
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
