"""Checking a record's fields one by one against its pydantic model.

A whole-record validation says *that* a record is wrong; a dataset maintainer
needs to know *which* field breaks *which* rule, and the cross-field rules need
every field that is valid even when another is not. So each field is validated
on its own, with the type and constraints its model declares (the model stays
the one source of truth), and each field's rule is the model field's
``description``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, Final, Literal, get_origin

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from ..core.text import wire_safe

__all__ = ["FieldCheck", "FieldProblem", "check_fields", "field_rules", "reason_of", "show_path", "show_value"]

_FOUND_WIDTH = 60


@dataclass(frozen=True, slots=True)
class FieldProblem:
    """One field that breaks its rule; ``message`` is a clause that starts with "field"."""

    field: str
    kind: Literal["missing", "extra", "invalid"]
    message: str


@dataclass(frozen=True, slots=True)
class FieldCheck:
    """The fields of one record: the valid ones validated, the others as problems."""

    values: dict[str, Any]
    problems: tuple[FieldProblem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems

    def valid(self, *names: str) -> bool:
        """True if every named field is present and valid."""
        return all(name in self.values for name in names)

    def invalid(self, *names: str) -> list[str]:
        """The named fields that are missing or invalid, in the order given."""
        return [name for name in names if name not in self.values]

    def explain_invalid(self, *names: str) -> str:
        """Which of the named fields are unusable, as a clause ("field x is missing or invalid")."""
        bad = self.invalid(*names)
        if len(bad) == 1:
            return f"field {bad[0]} is missing or invalid"
        return f"fields {', '.join(bad)} are missing or invalid"


# A JSON string (kept as it is), or Python's Infinity token outside one.
_INFINITY_OUTSIDE_STRINGS: Final = re.compile(r'("(?:[^"\\]|\\.)*")|-?Infinity')


def show_value(value: Any) -> str:
    """A value as JSON, shortened for a one-line message."""
    if type(value) is float and value in (math.inf, -math.inf):
        # Only a number beyond the double range reads as infinity (JSON cannot spell one).
        return (
            "a number beyond the double range (such as 1e400)"
            if value > 0
            else "a negative number beyond the double range (such as -1e400)"
        )
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    except RecursionError:
        text = "(a value nested too deeply to show)"
    else:
        if "Infinity" in text:  # nested, as JSON that reads back as the same value
            text = _INFINITY_OUTSIDE_STRINGS.sub(lambda m: m[0] if m[1] else m[0].replace("Infinity", "1e400"), text)
    text = str(wire_safe(text))  # a lone surrogate escape shows as its escape text
    return text if len(text) <= _FOUND_WIDTH else text[: _FOUND_WIDTH - 3] + "..."


@cache
def _adapters(model: type[BaseModel]) -> dict[str, TypeAdapter[Any]]:
    adapters: dict[str, TypeAdapter[Any]] = {}
    for name, info in model.model_fields.items():
        annotation: Any = info.annotation
        if info.metadata:
            arguments = (annotation, *info.metadata)
            annotation = Annotated[arguments]
        # get_origin: on Python 3.10 a generic alias such as list[str] passes isinstance(..., type)
        # but not issubclass().
        if (
            get_origin(info.annotation) is None
            and isinstance(info.annotation, type)
            and issubclass(info.annotation, BaseModel)
        ):
            adapters[name] = TypeAdapter(annotation)  # a model carries its own config
        else:
            strict = bool(model.model_config.get("strict"))
            adapters[name] = TypeAdapter(annotation, config=ConfigDict(strict=strict))
    return adapters


def field_rules(model: type[BaseModel]) -> dict[str, str]:
    """Each field's rule in words (its ``description``), in declaration order."""
    return {name: info.description or "" for name, info in model.model_fields.items()}


def show_path(name: str, loc: tuple[str | int, ...]) -> str:
    """A field path as a maintainer writes it: ``quotas.per_label.x``, ``roles[2]``.

    A key that could be misread (empty, holding ``.``, ``[``, ``]``, ``"`` or anything
    unprintable: a newline, a control or bidirectional character, a lone surrogate) is
    shown as a JSON string, ``quotas.per_label["a\\nb"]``, so no key can forge text.
    """
    head = name if _plain_key(name) else _quoted(name)
    return head + "".join(
        f"[{part}]" if isinstance(part, int) else f".{part}" if _plain_key(part) else f"[{_quoted(part)}]"
        for part in loc
    )


def _quoted(text: str) -> str:
    """``text`` as a JSON string; unprintable text (controls, bidi, lone surrogates) in ASCII."""
    return json.dumps(text, ensure_ascii=not text.isprintable())


_KEY_SIGNS: Final = frozenset('.[]"')


def _plain_key(part: str) -> bool:
    return part != "" and part.isprintable() and _KEY_SIGNS.isdisjoint(part)


def show_text(text: str) -> str:
    """``text`` as it is when every character prints; else as a JSON string, escaped as needed."""
    return text if text.isprintable() else _quoted(text)


def reason_of(message: str) -> str:
    """pydantic's message as the end of a sentence about a field."""
    if message.startswith("Value error, "):
        return message[len("Value error, ") :]
    if message.startswith("Input should be a valid dictionary or instance of "):
        return "it should be an object"  # not the name of a class of this package
    first, _, rest = message.partition(" ")
    if first in {"Input", "String", "List", "Dictionary", "Object"} and rest.startswith("should"):
        return "it " + rest.replace(" after validation", "")
    return message[:1].lower() + message[1:]


_SHOWN_PER_FIELD: Final = 5  # problems told per field; the rest are counted (a list may be huge)


def check_fields(model: type[BaseModel], raw: Mapping[str, Any]) -> FieldCheck:
    """Validate ``raw`` field by field against ``model``; never raises for bad data."""
    rules = field_rules(model)
    values: dict[str, Any] = {}
    problems: list[FieldProblem] = []
    for name, adapter in _adapters(model).items():
        info = model.model_fields[name]
        if name not in raw:
            if info.is_required():
                problems.append(FieldProblem(name, "missing", f"field {name} is missing (rule: {rules[name]})"))
            continue
        try:
            values[name] = adapter.validate_python(raw[name])
        except ValidationError as exc:
            errors = exc.errors(include_url=False)
            for error in errors[:_SHOWN_PER_FIELD]:
                loc = tuple(error["loc"])
                if error["type"] == "missing":  # a key inside the field's object: its input is the object
                    said = f"field {show_path(name, loc)} is missing"
                else:
                    said = (
                        f"field {show_path(name, loc)} is {show_value(error['input'])}, but {reason_of(error['msg'])}"
                    )
                problems.append(FieldProblem(name, "invalid", f"{said} (rule: {rules[name]})"))
            if len(errors) > _SHOWN_PER_FIELD:
                more = len(errors) - _SHOWN_PER_FIELD
                problems.append(FieldProblem(name, "invalid", f"field {name} has {more} more problem(s) like these"))
    if model.model_config.get("extra") != "forbid":
        return FieldCheck(values, tuple(problems))
    allowed = ", ".join(rules)
    for name in raw:
        if name not in rules:
            problems.append(
                FieldProblem(
                    name,
                    "extra",
                    f"field {name!r} is not part of the format, remove it (the fields are: {allowed})",
                )
            )
    return FieldCheck(values, tuple(problems))
