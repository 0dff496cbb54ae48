"""The session-eval record of aiat-llm-eval/1.0: its schema (``schema``), how one is built
from a scored session (``build``), the append-only journal that keeps them (``journal``),
re-verification against a fresh scoring (``verify``), and the seal beside a journal that
makes it tamper-evident (``seal``). Pure, but for the journal's file locks."""

from .build import PLUGIN_VERSION, build_record, hostname_hash, recorded_platform, run_id
from .journal import AppendOutcome, JournalError, JournalLocked, append_records, read_journal
from .schema import (
    FORBIDDEN_GLOBAL_SCORE_KEYS,
    MODEL_SOURCES,
    RECORD_KIND,
    STANDARD_VERSION,
    SUBMISSION_FIELDS,
    EvalRecord,
    InvalidRecord,
    project_submission,
    record_json_schema,
    validate_record,
)

__all__ = [
    "FORBIDDEN_GLOBAL_SCORE_KEYS",
    "MODEL_SOURCES",
    "PLUGIN_VERSION",
    "RECORD_KIND",
    "STANDARD_VERSION",
    "SUBMISSION_FIELDS",
    "AppendOutcome",
    "EvalRecord",
    "InvalidRecord",
    "JournalError",
    "JournalLocked",
    "append_records",
    "build_record",
    "hostname_hash",
    "project_submission",
    "read_journal",
    "record_json_schema",
    "recorded_platform",
    "run_id",
    "validate_record",
]
