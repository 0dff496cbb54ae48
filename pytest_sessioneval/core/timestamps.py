"""Timestamps read exactly as V8's ``Date.parse`` reads them, with the machine's zone UTC.

A spelling without a zone is UTC; the answer is integer milliseconds since the epoch, or
``None`` where ``Date.parse`` gives ``NaN``. Only ``str`` values are read. The full parser
(``_parse``) has three parts:

1. The ES reader: the ECMAScript *Date Time String Format* as V8 accepts it,
   ``[+-YY]YYYY[-MM[-DD]][THH:mm[:ss[.s…]][Z|±HH:mm|±HHmm]]``: a six-digit signed year,
   ``t`` for ``T`` and ``z`` for ``Z``, one or more fraction digits (cut to milliseconds,
   never rounded), ``24:00`` as the end of a day. One regular expression and range checks.
2. The legacy reader, for everything else: a tokenizer (numbers, the symbols ``: - + . )``,
   words, white space, parenthesised comments, other characters) and three composers that
   collect the day, the time and the zone as V8's fallback parser does. It reads RFC 3339's
   sloppy neighbours (a space between date and time, ``±HHMM``, ``±HH``, ``±H:MM``, ``UTC``
   and ``GMT`` with or without a space, one-digit fields, minutes alone), US dates
   (``07/16/2026``), month names (``16 Jul 2026 09:05 GMT``, ``Jul 16 2026``), ``am``/``pm``,
   the North American zone names, and JavaScript's ``Date#toString()`` and
   ``Date#toUTCString()`` forms, with V8's quirks: a two-digit year is 19xx or 20xx, a
   missing year is 2001, words before the first number are ignored, text stops at a NUL.
3. The calendar: V8's MakeDay/MakeTime arithmetic, so a day past the month's end rolls over
   (``2025-02-29`` is March 1st), and an instant beyond ±8.64e15 ms is no instant at all.

Millions of event timestamps share one shape, ``YYYY-MM-DDTHH:MM:SS.fffZ`` (or without
``.fff``). Those take a fast path made of three dictionary look-ups: the ``YYYY-MM-DDTHH:``
prefix (learnt, for all 24 hours of its day, from the full parser the first time the day
is seen), ``MM:SS`` and ``fff`` (both tabulated). Any other text goes through the full parser, so the fast path only
saves work; it never decides.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

__all__ = ["parse_timestamp_ms"]

_MS_PER_DAY: Final = 86_400_000
_MS_PER_HOUR: Final = 3_600_000
# ECMAScript's time value range: +-100,000,000 days around the epoch.
_MAX_TIME_MS: Final = 8_640_000_000_000_000

# ---------------------------------------------------------------------------
# The fast path
# ---------------------------------------------------------------------------

# "MM:SS" -> its milliseconds, "fff" -> its milliseconds: every valid spelling, nothing else.
_MINUTE_SECOND: Final = {f"{m:02d}:{s:02d}": (m * 60 + s) * 1000 for m in range(60) for s in range(60)}
_MILLIS: Final = {f"{ms:03d}": ms for ms in range(1000)}
# "YYYY-MM-DDTHH:" (T, t or a space) -> milliseconds of that hour, learnt for the whole day
# from the first of its hours seen.
_HOURS: dict[str, int] = {}
_HOURS_LIMIT: Final = 50_000
# The prefixes the fast path may learn: any minute, second and millisecond after them reads
# the same way. Hour 24 is left out: "24:00:00Z" parses, "24:00:01Z" does not.
_LEARNABLE_HOUR: Final = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ](?:[01]\d|2[0-3]):", re.ASCII)


def parse_timestamp_ms(value: object) -> int | None:
    """Return ``value`` as integer milliseconds since the epoch, or ``None``.

    Only strings can parse; numbers, booleans and ``None`` never do.
    """
    if type(value) is not str:
        return None
    size = len(value)
    # Fast path: "YYYY-MM-DDTHH:MM:SS.fffZ" and "YYYY-MM-DDTHH:MM:SSZ" (``z`` too).
    if ((size == 24 and value[19] == ".") or size == 20) and value[-1] in "Zz":
        hour = _HOURS.get(value[:14])
        if hour is not None:
            minute_second = _MINUTE_SECOND.get(value[14:19])
            if minute_second is not None:
                if size == 20:
                    return hour + minute_second
                millis = _MILLIS.get(value[20:23])
                if millis is not None:
                    return hour + minute_second + millis
        parsed = _parse(value)
        if parsed is not None and hour is None:
            _learn_hour(value, parsed)
        return parsed
    return _parse(value)


def _learn_hour(value: str, parsed: int) -> None:
    """Remember the milliseconds of ``value``'s hour prefix, ``value`` having parsed in full."""
    minute_second = _MINUTE_SECOND.get(value[14:19])
    if minute_second is None or not _LEARNABLE_HOUR.match(value):
        return
    millis = 0
    if len(value) == 24:
        millis_or_none = _MILLIS.get(value[20:23])
        if millis_or_none is None:
            return
        millis = millis_or_none
    if len(_HOURS) >= _HOURS_LIMIT:
        _HOURS.clear()
    # Every hour of a day reads as its first hour plus so many hours, whichever reader took
    # it: one full parse teaches the fast path the whole day.
    day = value[:11]
    midnight = parsed - minute_second - millis - int(value[11:13]) * _MS_PER_HOUR
    for hour in range(24):
        _HOURS[f"{day}{hour:02d}:"] = midnight + hour * _MS_PER_HOUR


def _parse(value: str) -> int | None:
    """The full parser: ``Date.parse(value)`` in milliseconds, ``None`` for ``NaN``."""
    # V8 reads a string up to its first NUL character, as C reads one.
    text = value.partition("\0")[0] if "\0" in value else value
    es_date_time = _ES_DATE_TIME.fullmatch(text)
    if es_date_time is not None:
        return _read_es_date_time(es_date_time)
    return _read_legacy(text)


# ---------------------------------------------------------------------------
# The calendar: V8's MakeDay, MakeTime and the range of time values
# ---------------------------------------------------------------------------

# Days before each month's first day in a common year and in a leap year.
_DAYS_BEFORE_MONTH: Final = (
    (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334),
    (0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335),
)
# MakeDay leaves years beyond a million unread (NaN); the range check would refuse them anyway.
_MAX_YEAR: Final = 1_000_000


def _instant(year: int, month: int, day: int, time_ms: int, offset_seconds: int) -> int | None:
    """Milliseconds of local ``year-month-day`` plus ``time_ms``, at ``offset_seconds`` east of UTC.

    ``month`` is 1 to 12 and ``day`` 1 to 31 whatever the month: a day past the month's end
    rolls over into the next month, as V8's MakeDay does. ``None`` beyond ±8.64e15 ms.
    """
    if not -_MAX_YEAR <= year <= _MAX_YEAR:
        return None
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    before = year - 1  # days from 0001-01-01 (proleptic Gregorian) to this year's January 1st
    days = 365 * before + before // 4 - before // 100 + before // 400 - 719_162
    days += _DAYS_BEFORE_MONTH[leap][month - 1] + day - 1
    ms = days * _MS_PER_DAY + time_ms - offset_seconds * 1000
    return ms if -_MAX_TIME_MS <= ms <= _MAX_TIME_MS else None


# ---------------------------------------------------------------------------
# 1. The ES reader: ECMAScript's Date Time String Format, with V8's extensions
# ---------------------------------------------------------------------------


# The format's date is [+-YYYYYY|YYYY][-MM[-DD]] ("-000000" is no year); a valid date that
# does not match (a day 32, say) is left to the legacy reader, as V8 leaves it. After the
# date, "T" commits the text to the format: the rest must match, or nothing does.
_ES_DATE_TIME: Final = re.compile(
    r"""
    (?: (?!-000000) (?P<sign>[+-])(?P<long_year>\d{6}) | (?P<year>\d{4}) )
    (?: -(?P<month>0[1-9]|1[0-2]) (?: -(?P<day>0[1-9]|[12]\d|3[01]) )? )?
    (?:
        [Tt] (?P<hour>\d{2}) : (?P<minute>\d{2})
        (?: : (?P<second>\d{2}) (?: \. (?P<fraction>\d+) )? )?
        (?: [Zz] | (?P<offset_sign>[+-]) (?P<offset_hour>\d{2}) :? (?P<offset_minute>\d{2}) )?
    )?
    """,
    re.VERBOSE | re.ASCII,
)


def _read_es_date_time(match: re.Match[str]) -> int | None:
    """A text in the Date Time String Format, ``None`` when its time or offset is out of range."""
    (
        sign,
        long_year,
        short_year,
        month_s,
        day_s,
        hour_s,
        minute_s,
        second_s,
        fraction,
        offset_sign,
        offset_hour_s,
        offset_minute_s,
    ) = match.groups()
    year = int(short_year) if sign is None else int(sign + long_year)
    month = int(month_s) if month_s is not None else 1
    day = int(day_s) if day_s is not None else 1
    if hour_s is None:  # a date alone: UTC midnight
        return _instant(year, month, day, 0, 0)
    hour, minute = int(hour_s), int(minute_s)
    second = int(second_s) if second_s is not None else 0
    if hour > 24 or minute > 59 or second > 59:
        return None
    millis = 0
    if fraction is not None:
        number = _numeral_value(fraction)
        if hour == 24 and number > 0:  # 24:00 admits zero fractions only
            return None
        millis = _fraction_ms(number, len(fraction))
    if hour == 24 and (minute or second):
        return None
    offset = 0
    if offset_sign is not None:
        offset_hour, offset_minute = int(offset_hour_s), int(offset_minute_s)
        if offset_hour > 23 or offset_minute > 59:
            return None
        offset = (offset_hour * 3600 + offset_minute * 60) * (1 if offset_sign == "+" else -1)
    time_ms = ((hour * 60 + minute) * 60 + second) * 1000 + millis
    return _instant(year, month, day, time_ms, offset)


# ---------------------------------------------------------------------------
# 2. The legacy reader: tokens, then the day, time and zone composers
# ---------------------------------------------------------------------------

# Token kinds.
_NUMBER: Final = 0  # a run of ASCII digits
_SYMBOL: Final = 1  # one of : - + . )
_WORD: Final = 2  # a run of characters from "A" up, white space aside
_SPACE: Final = 3  # one white-space or line-terminator character
_OTHER: Final = 4  # a parenthesised comment, or any other single character
_END: Final = 5

# Word types: what the keyword table makes of a word.
_GARBAGE: Final = 0
_MONTH: Final = 1
_ZONE: Final = 2
_TIME_SEPARATOR: Final = 3  # the "T" of an ES date-time
_AM_PM: Final = 4


class _Token(NamedTuple):
    kind: int
    value: int  # a number's value (see _numeral_value), a symbol's character code, a word's keyword value
    length: int  # characters: a number's digits, a word's letters
    word_type: int = _GARBAGE

    def is_sign(self) -> bool:
        return self is _PLUS or self is _MINUS

    def is_z(self) -> bool:
        """The one-letter zone "Z", the only zone letter an ES date-time or a time may end in."""
        return self.kind == _WORD and self.word_type == _ZONE and self.length == 1


# The symbols, one token each: the readers test them by identity.
_COLON: Final = _Token(_SYMBOL, ord(":"), 1)
_DASH: Final = _Token(_SYMBOL, ord("-"), 1)  # also the minus sign
_MINUS: Final = _DASH
_PLUS: Final = _Token(_SYMBOL, ord("+"), 1)
_DOT: Final = _Token(_SYMBOL, ord("."), 1)
_CLOSING: Final = _Token(_SYMBOL, ord(")"), 1)
_SPACE_TOKEN: Final = _Token(_SPACE, 0, 1)
_OTHER_TOKEN: Final = _Token(_OTHER, 0, 1)
_END_TOKEN: Final = _Token(_END, 0, 0)

# A word is known by its first three letters (lower case) and length: month names may be
# longer ("July", "Sept"), other keywords may not ("UTC" is a zone, "UTCX" is garbage).
_KEYWORDS: Final[dict[str, tuple[int, int]]] = {
    **{
        name: (_MONTH, number)
        for number, name in enumerate(
            ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1
        )
    },
    "am": (_AM_PM, 0),
    "pm": (_AM_PM, 12),
    "ut": (_ZONE, 0),
    "utc": (_ZONE, 0),
    "z": (_ZONE, 0),
    "gmt": (_ZONE, 0),
    "cdt": (_ZONE, -5),
    "cst": (_ZONE, -6),
    "edt": (_ZONE, -4),
    "est": (_ZONE, -5),
    "mdt": (_ZONE, -6),
    "mst": (_ZONE, -7),
    "pdt": (_ZONE, -7),
    "pst": (_ZONE, -8),
    "t": (_TIME_SEPARATOR, 0),
}

# ECMAScript's white space: the ASCII ones, and from "A" up Unicode's space separators and
# the BOM. The line terminators U+2028 and U+2029 are letters here, as in V8.
_WIDE_SPACES: Final = "\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\ufeff"
_SPACES: Final = re.compile(rf"[\t\n\v\f\r {_WIDE_SPACES}]")
# A lexeme is a run of digits, a word (a run of characters from "A" up, white space aside)
# or any other single character; a "(" starts a comment, which _tokenize skips by itself.
_LEXEME: Final = re.compile(rf"[0-9]+|[^\x00-\x40{_WIDE_SPACES}]+|.", re.DOTALL)
_ASCII_LOWER: Final = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
# V8 keeps the first nine digits of a numeral (leading zeros aside) and counts the rest.
_SIGNIFICANT_DIGITS: Final = 9
_POWERS_OF_TEN: Final = (1, 10, 100, 1_000, 10_000, 100_000, 1_000_000)

# Lexeme -> token: the symbols from the start, numbers, words and the rest learnt on sight.
_SYMBOL_TOKENS: Final = {":": _COLON, "-": _DASH, "+": _PLUS, ".": _DOT, ")": _CLOSING}
_TOKENS: dict[str, _Token] = dict(_SYMBOL_TOKENS)
_TOKENS_LIMIT: Final = 20_000


def _tokenize(text: str) -> list[_Token]:
    """``text`` as V8's date tokenizer reads it, ending with an end token."""
    tokens: list[_Token] = []
    start, size = 0, len(text)
    while start < size:
        comment = text.find("(", start)
        for lexeme in _LEXEME.findall(text, start, size if comment < 0 else comment):
            token = _TOKENS.get(lexeme)
            if token is None:
                token = _learn_token(lexeme)
            tokens.append(token)
        if comment < 0:
            break
        # A comment runs to the parenthesis that balances its "(", or to the end.
        depth, start = 1, comment + 1
        while start < size and depth:
            char = text[start]
            depth += (char == "(") - (char == ")")
            start += 1
        tokens.append(_OTHER_TOKEN)
    tokens.append(_END_TOKEN)
    return tokens


def _learn_token(lexeme: str) -> _Token:
    """The token of a lexeme seen for the first time (remembered, up to a limit)."""
    first = lexeme[0]
    if "0" <= first <= "9":
        token = _Token(_NUMBER, _numeral_value(lexeme), len(lexeme))
    elif len(lexeme) == 1 and _SPACES.match(first):
        token = _SPACE_TOKEN
    elif first >= "A":
        # Only ASCII letters have a case here ("K", the Kelvin sign, is no "k").
        word_type, word_value = _KEYWORDS.get(lexeme[:3].translate(_ASCII_LOWER), (_GARBAGE, 0))
        if len(lexeme) > 3 and word_type != _MONTH:
            word_type, word_value = _GARBAGE, 0
        token = _Token(_WORD, word_value, len(lexeme), word_type)
    else:
        token = _OTHER_TOKEN
    if len(_TOKENS) >= _TOKENS_LIMIT:
        _TOKENS.clear()
        _TOKENS.update(_SYMBOL_TOKENS)
    _TOKENS[lexeme] = token
    return token


def _numeral_value(digits: str) -> int:
    """A numeral's value as V8 keeps it: its first nine digits after the leading zeros."""
    if len(digits) <= _SIGNIFICANT_DIGITS:
        return int(digits)
    return int(digits.lstrip("0")[:_SIGNIFICANT_DIGITS] or "0")


def _fraction_ms(number: int, length: int) -> int:
    """A fraction of a second as milliseconds, from its numeral's value and its digit count.

    Digits past the third are cut off, never rounded: ``.5`` is 500 ms, ``.0005`` is 0 ms.
    (A numeral of more than nine digits keeps nine after its leading zeros, so V8 reads
    ``.0123456789`` as 123 ms; so does this.)
    """
    length = min(length, _SIGNIFICANT_DIGITS)
    if length < 3:
        return number * _POWERS_OF_TEN[3 - length]
    return number // _POWERS_OF_TEN[length - 3]


class _DayComposer:
    """Up to three numbers and maybe a month name, read as a year, a month and a day."""

    __slots__ = ("is_iso", "named_month", "parts")

    def __init__(self) -> None:
        self.parts: list[int] = []
        self.named_month: int | None = None
        self.is_iso = False

    def add(self, n: int) -> bool:
        if len(self.parts) == 3:
            return False
        self.parts.append(n)
        return True

    def write(self) -> tuple[int, int, int] | None:
        """``(year, month, day)``, or ``None``; missing parts are 1, a missing year is 2001."""
        if not self.parts:
            return None
        first, second, third = (*self.parts, 1, 1)[:3]
        if self.named_month is None:
            if self.is_iso or not 1 <= first <= 31:
                year, month, day = first, second, third
            else:
                month, day, year = first, second, third
        else:
            month = self.named_month
            if not 1 <= first <= 31:
                year, day = first, second
            else:
                day, year = first, second
        if not self.is_iso:
            if 0 <= year <= 49:
                year += 2000
            elif 50 <= year <= 99:
                year += 1900
        if not 1 <= month <= 12 or not 1 <= day <= 31:
            return None
        return year, month, day


class _TimeComposer:
    """Hours, minutes, seconds and milliseconds, in that order, and an am/pm."""

    __slots__ = ("hour_offset", "parts")

    def __init__(self) -> None:
        self.parts: list[int] = []
        self.hour_offset: int | None = None

    def is_empty(self) -> bool:
        return not self.parts

    def is_expecting(self, n: int) -> bool:
        """Whether ``n`` fits as the next part after the hour."""
        index = len(self.parts)
        return (index == 1 and n <= 59) or (index == 2 and n <= 59) or (index == 3 and n <= 999)

    def add(self, n: int) -> bool:
        if len(self.parts) == 4:
            return False
        self.parts.append(n)
        return True

    def add_final(self, n: int) -> None:
        self.add(n)
        self.parts.extend([0] * (4 - len(self.parts)))

    def write(self) -> int | None:
        """The time of day in milliseconds (24:00 is the day's end), or ``None``."""
        hour, minute, second, millis = (*self.parts, 0, 0, 0, 0)[:4]
        if self.hour_offset is not None:
            if hour > 12:
                return None
            hour = hour % 12 + self.hour_offset
        in_range = hour <= 23 and minute <= 59 and second <= 59 and millis <= 999
        if not in_range and (hour != 24 or minute or second or millis):  # 24:00 ends the day
            return None
        return ((hour * 60 + minute) * 60 + second) * 1000 + millis


class _ZoneComposer:
    """A sign, hours and minutes east of UTC; nothing for local time (UTC here)."""

    __slots__ = ("hour", "minute", "sign")

    def __init__(self) -> None:
        self.sign: int | None = None
        self.hour: int | None = None
        self.minute: int | None = None

    def set_hours(self, hours: int) -> None:
        """A named zone: whole hours east of UTC."""
        self.sign = -1 if hours < 0 else 1
        self.hour, self.minute = abs(hours), 0

    def is_expecting(self, n: int) -> bool:
        """After "+HH:", whether ``n`` fits as the minutes."""
        return self.hour is not None and self.minute is None and n <= 59

    def is_utc(self) -> bool:
        return self.hour == 0 and self.minute == 0

    def write(self) -> int | None:
        """The offset in seconds, ``0`` without a zone, ``None`` when it is out of range."""
        if self.sign is None:
            return 0
        # V8 sums in unsigned 32-bit arithmetic and refuses what a signed one cannot hold.
        seconds = ((self.hour or 0) * 3600 + (self.minute or 0) * 60) % 2**32
        if seconds > 2**31 - 1:
            return None
        return self.sign * seconds


def _read_legacy(text: str) -> int | None:
    """``text`` read by V8's fallback parser, after the ES reader has taken the date it could."""
    tokens = _tokenize(text)
    day, time, zone = _DayComposer(), _TimeComposer(), _ZoneComposer()
    # The ES reader reads a date first: [+-YYYYYY|YYYY][-MM[-DD]], stopping at the first token
    # that does not fit; the legacy reader starts at that token.
    start, position, whole = _read_es_date(tokens, day)
    if start is None:
        return None
    if whole:  # the ES reader read it all: a date in YMD order, UTC midnight
        day.is_iso = True
        ymd = day.write()
        return None if ymd is None else _instant(*ymd, 0, 0)

    has_read_number = bool(day.parts)
    token = start
    while token is not _END_TOKEN:
        following = tokens[position]
        if token.kind == _NUMBER:
            has_read_number = True
            n = token.value
            if following is _COLON:
                position += 1
                if tokens[position] is _COLON:  # "n::" is hours and zero minutes
                    position += 1
                    if not time.is_empty():
                        return None
                    time.add(n)
                    time.add(0)
                else:  # "n:" is an hour, a minute or a second
                    if not time.add(n):
                        return None
                    if tokens[position] is _DOT:
                        position += 1
            elif following is _DOT and time.is_expecting(n):  # "ss.fff"
                time.add(n)
                fraction = tokens[position + 1]
                if fraction.kind != _NUMBER:
                    return None
                time.add_final(_fraction_ms(fraction.value, fraction.length))
                position += 2
            else:
                if following is _DOT:  # read, and lost
                    position += 1
                    following = tokens[position]
                if zone.is_expecting(n):  # the minutes of "+HH:MM"
                    zone.minute = n
                elif time.is_expecting(n):  # the last part of a time: an end must follow
                    time.add_final(n)
                    if following.kind not in (_END, _SPACE) and not following.is_z() and not following.is_sign():
                        return None
                else:  # a part of the date
                    if not day.add(n):
                        return None
                    if following is _DASH:
                        position += 1
        elif token.kind == _WORD:
            if token.word_type == _AM_PM and not time.is_empty():
                time.hour_offset = token.value
            elif token.word_type == _MONTH:
                day.named_month = token.value
                if following is _DASH:
                    position += 1
            elif token.word_type == _ZONE and has_read_number:
                zone.set_hours(token.value)
            elif has_read_number or following.kind == _NUMBER:
                # Words the parser cannot use are ignored before the first number, and only
                # when something other than a digit follows them.
                return None
        elif token.is_sign() and (zone.is_utc() or not time.is_empty()):
            # An offset, after a time or after UTC/GMT/Z: "+HH:MM", "+HHMM", "+HMM", "+HH", "+H".
            zone.sign = 1 if token is _PLUS else -1
            n = length = 0
            if following.kind == _NUMBER:
                n, length = following.value, following.length
                position += 1
            has_read_number = True
            if tokens[position] is _COLON:
                zone.hour, zone.minute = n, None
            elif length in (1, 2):
                zone.hour, zone.minute = n, 0
            elif length in (3, 4):
                zone.hour, zone.minute = divmod(n, 100)
            else:
                return None
        elif (token.is_sign() or token is _CLOSING) and has_read_number:
            return None
        # Anything else (white space, other characters, comments) is ignored.
        token = tokens[position]
        position += 1

    ymd = day.write()
    time_ms = time.write()
    offset = zone.write()
    if ymd is None or time_ms is None or offset is None:
        return None
    return _instant(*ymd, time_ms, offset)


def _read_es_date(tokens: list[_Token], day: _DayComposer) -> tuple[_Token | None, int, bool]:
    """The date an ES date-time starts with, into ``day``; then where the legacy reader starts.

    Returns the first token left for the legacy reader, the position of the one after it
    (tokens the ES reader consumed and did not use are lost, as in V8) and whether the date
    was the whole text. The token is ``None`` for a date followed by ``T``: such a text is an
    ES date-time or nothing, and ``_ES_DATE_TIME`` did not match it.
    """
    first = tokens[0]
    if first.is_sign():
        year = tokens[1]
        if not (year.kind == _NUMBER and year.length == 6):
            return first, 1, False
        if first is _MINUS and year.value == 0:
            return first, 2, False
        day.add(year.value if first is _PLUS else -year.value)
        position = 2
    elif first.kind == _NUMBER and first.length == 4:
        day.add(first.value)
        position = 1
    else:
        return first, 1, False
    for low, high in ((1, 12), (1, 31)):  # -MM, then -DD
        if tokens[position] is not _DASH:
            break
        part = tokens[position + 1]
        if not (part.kind == _NUMBER and part.length == 2 and low <= part.value <= high):
            return part, position + 2, False
        day.add(part.value)
        position += 2
    following = tokens[position]
    if following.kind == _WORD and following.word_type == _TIME_SEPARATOR:
        return None, position, False
    return following, position + 1, following.kind == _END
