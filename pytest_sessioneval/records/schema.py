"""The session-eval record of aiat-llm-eval/1.0 (schema_version 1): its one definition.

The pydantic models below are where the record's rules live: required fields,
types, the advisory firewall on judge dimensions, KPIs that are null rather than
a guessed 0, and no global score. ``validate_record`` checks a record,
``project_submission`` reduces it to the data-minimised submission form, and
``records.build`` assembles one from a scored session.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Final, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    model_validator,
)
from pydantic.json_schema import WithJsonSchema

from ..core.kpis import KPI_NAMES
from ..core.timestamps import parse_timestamp_ms
from ..core.values import is_blank

__all__ = [
    "FORBIDDEN_GLOBAL_SCORE_KEYS",
    "MODEL_SOURCES",
    "RECORD_KIND",
    "STANDARD_VERSION",
    "SUBMISSION_FIELDS",
    "EvalRecord",
    "InvalidRecord",
    "project_submission",
    "record_json_schema",
    "validate_record",
]

SCHEMA_VERSION: Final = 1
RECORD_KIND: Final = "session-eval"
STANDARD_VERSION: Final = "aiat-llm-eval/1.0"
MODEL_SOURCES: Final = ("self-report", "env", "config")
FORBIDDEN_GLOBAL_SCORE_KEYS: Final = ("overall", "total", "mean", "global_score")
KPI_FIELDS: Final = KPI_NAMES
SUBMISSION_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "top": (
        "schema_version",
        "record_kind",
        "run_id",
        "standard_version",
        "rubric_version",
        "handle",
        "anonymized",
        "timestamp",
    ),
    "provenance": ("rubric_sha256", "engine_commit"),
    "model": ("id", "source"),
    "harness": ("plugin_version", "platform", "host_class", "hostname_hash"),
    "kpis": KPI_FIELDS,
    "dimensions": ("id", "method", "status", "score", "advisory", "calibration_status"),
}


def _non_blank(value: str) -> str:
    if is_blank(value):
        raise ValueError("must be a non-empty string")
    return value


def _finite(value: float) -> float:
    if type(value) is int:
        # JSON tools (and this journal's writer) read integers exactly within 64 bits only.
        if not -(1 << 63) <= value < 1 << 64:
            raise ValueError("must be an integer of at most 64 bits (a finite number JSON tools read exactly)")
        return value
    if not math.isfinite(value):
        raise ValueError("must be a finite number")
    return value


def _non_negative(value: float) -> float:
    if value < 0:
        raise ValueError("must be non-negative (a missing value is null, never a guessed 0)")
    return value


def _hex(value: str) -> str:
    if len(value) < 8 or any(c not in "0123456789abcdef" for c in value):
        raise ValueError("must be lower-case hex of 8 or more characters (a hash, never a hostname)")
    return value


def _iso_timestamp(value: str) -> str:
    if parse_timestamp_ms(value) is None:
        raise ValueError("must be a date-time that JavaScript's Date.parse reads")
    return value


def _schema_version(value: Any) -> Any:
    """The version as JavaScript's ``!== 1`` reads it: ``1.0`` is 1, ``true`` is no number."""
    if type(value) is bool:
        raise ValueError(f"must be {SCHEMA_VERSION}, not {str(value).lower()}")
    if type(value) is float and value == SCHEMA_VERSION:
        return SCHEMA_VERSION
    return value


SchemaVersion = Annotated[Literal[1], BeforeValidator(_schema_version)]
# Each type carries the JSON Schema that says as much of its rule as JSON Schema can (a
# pattern is ECMA-262's: \S is a character String.prototype.trim keeps).
Text = Annotated[StrictStr, AfterValidator(_non_blank), WithJsonSchema({"type": "string", "pattern": "\\S"})]
Number = Annotated[StrictInt | StrictFloat, AfterValidator(_finite)]
Kpi = Annotated[
    StrictInt | StrictFloat,
    AfterValidator(_finite),
    AfterValidator(_non_negative),
    WithJsonSchema({"type": "number", "minimum": 0}),
]
HexHash = Annotated[StrictStr, AfterValidator(_hex), WithJsonSchema({"type": "string", "pattern": "^[0-9a-f]{8,}$"})]
Timestamp = Annotated[
    StrictStr, AfterValidator(_iso_timestamp)
]  # (no "format": date-time is stricter than ISO 8601 here)
Status = Literal["pass", "fail", "not-applicable", "cannot-determine"]


class _Part(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class Provenance(_Part):
    rubric_sha256: Text
    engine_commit: Text | None


class ModelInfo(_Part):
    id: Text
    source: Literal["self-report", "env", "config"]


class Harness(_Part):
    plugin_version: Text
    platform: Text
    host_class: Text | None
    hostname_hash: HexHash | None


class Kpis(_Part):
    duration_seconds: Kpi | None
    total_waves: Kpi | None
    total_agents: Kpi | None
    token_input: Kpi | None
    token_output: Kpi | None
    carryover: Kpi | None


class DimensionRecord(_Part):
    # The advisory firewall (_advisory_firewall) as JSON Schema says it.
    model_config = ConfigDict(
        json_schema_extra={
            "if": {"properties": {"method": {"const": "judge"}}, "required": ["method"]},
            "then": {
                "properties": {"advisory": {"const": True}, "calibration_status": {"const": "uncalibrated"}},
                "required": ["advisory", "calibration_status"],
            },
            "else": {"not": {"anyOf": [{"required": ["advisory"]}, {"required": ["calibration_status"]}]}},
        }
    )

    id: Text
    method: Literal["deterministic", "judge"]
    status: Status
    evidence: StrictStr
    score: Number | None = None
    advisory: Literal[True] | None = None
    calibration_status: Literal["uncalibrated"] | None = None

    @model_validator(mode="before")
    @classmethod
    def _advisory_firewall(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        if data.get("method") == "judge":
            if data.get("advisory") is not True:
                raise ValueError("a judge dimension must carry advisory: true")
            if data.get("calibration_status") != "uncalibrated":
                raise ValueError('a judge dimension must carry calibration_status: "uncalibrated"')
        else:
            for key in ("advisory", "calibration_status"):
                if key in data:
                    raise ValueError(f"{key} is only valid on a judge dimension")
        return data


class EvalRecord(_Part):
    """A ``session-eval`` record, schema_version 1, of the aiat-llm-eval/1.0 standard."""

    schema_version: SchemaVersion = SCHEMA_VERSION
    record_kind: Literal["session-eval"]
    run_id: Text
    session_id: Text
    standard_version: Text
    rubric_version: Text
    provenance: Provenance
    model: ModelInfo
    harness: Harness
    kpis: Kpis
    dimensions: list[DimensionRecord]
    handle: Text | None = None
    anonymized: StrictBool
    timestamp: Timestamp

    @model_validator(mode="before")
    @classmethod
    def _no_global_score(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for key in FORBIDDEN_GLOBAL_SCORE_KEYS:
                if key in data:
                    raise ValueError(
                        f"a record must not carry a global score ({key!r}): the standard allows "
                        "per-dimension verdicts only"
                    )
        return data


class InvalidRecord(ValueError):
    """A record breaks the schema; the message names each offending field."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        super().__init__("; ".join(f"{field}: {message}" for field, message in problems))


_TYPE_TAGS: Final = frozenset({"int", "float", "str", "bool", "none", "dict", "list"})


def _field_path(location: tuple[Any, ...]) -> str:
    path = ""
    for part in location:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part in _TYPE_TAGS or "[" in part or "(" in part:
            continue  # pydantic's names for union members, not fields
        else:
            path += f".{part}" if path else str(part)
    return path or "record"


def validate_record(obj: object) -> EvalRecord:
    """Validate a record; raise ``InvalidRecord`` naming every field that is wrong."""
    if not isinstance(obj, dict):
        raise InvalidRecord([("record", "must be a JSON object")])
    seen: dict[str, str] = {}
    # A global score is named here, so that the fields are still checked (the model's own
    # check would stop at it).
    for key in FORBIDDEN_GLOBAL_SCORE_KEYS:
        if key in obj:
            seen[key] = (
                f"a record must not carry a global score ({key!r}): the standard allows per-dimension verdicts only"
            )
    try:
        record = EvalRecord.model_validate({key: value for key, value in obj.items() if key not in seen})
    except ValidationError as exc:
        for error in exc.errors(include_url=False):
            message = str(error["msg"]).removeprefix("Value error, ")
            seen.setdefault(_field_path(tuple(error["loc"])), message)
    if seen:
        raise InvalidRecord(list(seen.items())) from None
    return record


def _pick(obj: object, allowed: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(obj, dict):
        return {}
    return {key: obj[key] for key in allowed if key in obj}


def project_submission(record: dict[str, Any]) -> dict[str, Any]:
    """The data-minimised projection: only whitelisted fields; never evidence."""
    out = _pick(record, SUBMISSION_FIELDS["top"])
    for part in ("provenance", "model", "harness", "kpis"):
        out[part] = _pick(record.get(part), SUBMISSION_FIELDS[part])
    dimensions = record.get("dimensions")
    out["dimensions"] = [
        _pick(dimension, SUBMISSION_FIELDS["dimensions"])
        for dimension in (dimensions if isinstance(dimensions, list) else [])
    ]
    return out


JSON_SCHEMA_TITLE: Final = "aiat-llm-eval/1.0 session-eval record (schema_version 1)"


def record_json_schema() -> dict[str, Any]:
    """The JSON Schema of the record, as exported to ``docs/eval-record.schema.json``."""
    schema = EvalRecord.model_json_schema()
    schema["title"] = JSON_SCHEMA_TITLE
    schema["description"] = (
        "One session-eval record: no top-level overall/total/mean/global_score; judge dimensions "
        'carry advisory: true and calibration_status: "uncalibrated", deterministic ones carry '
        "neither; KPIs are non-negative numbers or null. The plugin (pytest_sessioneval.records."
        "validate_record) also enforces what this schema leaves to it: a timestamp must parse as "
        "JavaScript's Date.parse reads it (wider than JSON Schema's date-time format), an integer must "
        "fit in 64 bits, a number must be finite, and text must not be blank by JavaScript's trim "
        "(a dimension's evidence excepted: it may be any string)."
    )
    schema["not"] = {"anyOf": [{"required": [key]} for key in FORBIDDEN_GLOBAL_SCORE_KEYS]}
    _type_every_const(schema)
    return schema


_JSON_TYPE_OF_CONST: Final = {str: "string", bool: "boolean", int: "integer"}


def _type_every_const(schema: Any) -> None:
    """Give every ``const`` its ``type``, as recent pydantic does and older pydantic does not.

    The exported schema then reads the same whichever pydantic the package runs on.
    """
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "const" in node and "type" not in node and type(node["const"]) in _JSON_TYPE_OF_CONST:
                node["type"] = _JSON_TYPE_OF_CONST[type(node["const"])]
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
