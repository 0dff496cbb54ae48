"""Checking a whole dataset against its manifest: the record count, the required ids and
the quotas per group, each finding named with the records it is about."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.naming import unique_name
from ..core.text import first_few
from .fields import show_path
from .manifest import DatasetManifest, Quota, describe_quota, quota_admits

__all__ = ["DatasetFinding", "check_dataset", "group_of"]


@dataclass(frozen=True, slots=True)
class DatasetFinding:
    """The result of one dataset-level check.

    ``check`` is the item's check name; ``key`` is where the manifest declares
    the rule, so a report can point at its line.
    """

    check: str
    held: bool | None  # None: cannot tell, faults of the file itself could make up the difference
    message: str
    key: tuple[str, ...]


def _group_text(value: Any) -> str:
    """The text a value that is no string names its group by: compact JSON, keys sorted."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False)


#: The group a record's field puts it in: ``(True, the string)`` for a string value, and
#: ``(False, its compact JSON text with sorted keys)`` for any other (``1``, ``true``,
#: ``["a","b"]``, ``{"max":0,"min":0}``). The string ``"1"`` and the number ``1`` are apart.
Group = tuple[bool, str]


def group_of(record: Mapping[str, Any], name: str) -> Group | None:
    """The ``Group`` of a record's field; ``None`` when the record lacks the field: it belongs
    to no group of it."""
    if name not in record:
        return None
    value = record[name]
    if type(value) is str:
        return (True, value)
    try:
        return (False, _group_text(value))
    except (TypeError, ValueError, RecursionError):
        return (False, repr(value))


def _value_text(key: str) -> str | None:
    """The JSON text (as ``group_of`` spells it) of the value that is no string which a
    manifest's group name spells (``{"min": 0, "max": 0}`` as ``{"max":0,"min":0}``), or ``None``
    when the name spells no such value."""
    try:
        value = json.loads(key)
        return None if type(value) is str else _group_text(value)
    except (ValueError, RecursionError):  # no JSON, or NaN and the like
        return None


def _names_of(keys: Iterable[str]) -> dict[Group, set[str]]:
    """Record group -> every manifest name it counts under. A name matches a string value as
    written, and a value that is no string by its JSON text in any spacing and key order. Two
    names may spell one value (``{"min": 0, "max": 0}`` and ``{"min":0,"max":0}``): it counts
    under both, whatever order the names come in."""
    names: dict[Group, set[str]] = {}
    for key in keys:
        names.setdefault((True, key), set()).add(key)
        text = _value_text(key)
        if text is not None:
            names.setdefault((False, text), set()).add(key)
    return names


def _grouped(
    records: Sequence[Mapping[str, Any]],
    invalid: Sequence[Collection[str]],
    fields: Sequence[str],
) -> tuple[Counter[tuple[Group, ...]], int]:
    """Records counted by their groups (``group_of``) in ``fields``, and how many could
    not be placed: a field invalid (its ``fields`` check fails already, a required one also
    when missing). A record without one of the fields is in no group (see ``_lacking``)."""
    counts: Counter[tuple[Group, ...]] = Counter()
    unplaced = 0
    for record, bad in zip(records, invalid):
        if any(name in bad for name in fields):
            unplaced += 1
            continue
        values = tuple(group_of(record, name) for name in fields)
        if None not in values:
            counts[values] += 1  # type: ignore[index]
    return counts, unplaced


def _lacking(records: Sequence[Mapping[str, Any]], invalid: Sequence[Collection[str]], fields: Sequence[str]) -> int:
    """How many records lack one of ``fields`` (and hold none of them invalid): in no group."""
    return sum(
        1
        for record, bad in zip(records, invalid)
        if not any(name in bad for name in fields) and any(name not in record for name in fields)
    )


def check_dataset(
    manifest: DatasetManifest,
    records: Sequence[Mapping[str, Any]],
    *,
    data: str,
    manifest_name: str,
    noun: str = "records",
    invalid_fields: Sequence[Collection[str]] | None = None,
    unreadable: int = 0,
) -> list[DatasetFinding]:
    """Every dataset-level rule the manifest declares, checked against ``records``.

    ``records`` are the JSON objects of the file; ``data`` and ``manifest_name``
    name the files in messages. A rule fails only when it fails whatever the
    file's own faults hide, each fault failing its own item already:
    ``unreadable`` lines could each have been a record, and a record is in no
    group of a field ``invalid_fields`` (aligned with ``records``) names. When
    those could make up the difference, the finding is ``held=None``: cannot tell.
    """
    invalid = invalid_fields if invalid_fields is not None else [()] * len(records)

    def counted(number: int) -> str:
        return f"{number} {noun if number != 1 else noun.removesuffix('s')}"

    findings: list[DatasetFinding] = []
    if manifest.min_records is not None:
        count, least = len(records), manifest.min_records
        if count >= least:
            findings.append(
                DatasetFinding(
                    "min-records",
                    True,
                    f"{data} holds {counted(count)}, at least min_records {least}",
                    ("min_records",),
                )
            )
        elif count + unreadable >= least:
            findings.append(
                DatasetFinding(
                    "min-records",
                    None,
                    f"cannot tell: {data} holds {counted(count)} and {unreadable} line(s) that could not be read "
                    f"(see their checks); min_records in {manifest_name} is {least}",
                    ("min_records",),
                )
            )
        else:
            findings.append(
                DatasetFinding(
                    "min-records",
                    False,
                    f"{data} holds {counted(count)}, fewer than the {least} that min_records in {manifest_name} "
                    f"requires; add {noun} or lower min_records",
                    ("min_records",),
                )
            )
    if manifest.required_ids:
        present = {record["id"] for record in records if isinstance(record.get("id"), str)}
        missing = [wanted for wanted in manifest.required_ids if wanted not in present]
        # A record whose id is missing or invalid (a typo) may be one of them, as may each unreadable line.
        no_id = sum(
            1
            for record, bad in zip(records, invalid)
            if "id" in bad or not isinstance(record.get("id"), str) or not record["id"].strip()
        )
        if not missing:
            held: bool | None = True
            text = f"all {len(manifest.required_ids)} required ids are present"
        elif len(missing) <= unreadable + no_id:
            held = None
            text = (
                f"cannot tell whether {data} holds {', '.join(map(repr, missing))}: {unreadable} line(s) "
                f"could not be read and {no_id} of the {noun} {'has' if no_id == 1 else 'have'} no valid id "
                "(see their checks)"
            )
        else:
            held = False
            text = (
                f"{data} lacks {len(missing)} of the {len(manifest.required_ids)} required id(s): "
                f"{', '.join(map(repr, missing))}; add them, or remove them from required_ids in {manifest_name}"
            )
        findings.append(DatasetFinding("required-ids", held, text, ("required_ids",)))
    quotas = manifest.quotas
    if quotas is None:
        return findings

    def finding(check: str, key: tuple[str, ...], quota: Quota, count: int, unsure: int, what: str) -> DatasetFinding:
        wanted = describe_quota(quota)
        if quota_admits(quota, count):
            return DatasetFinding(check, True, f"{data} has {counted(count)} with {what} ({wanted})", key)
        least = quota if isinstance(quota, int) else quota.min
        if least is not None and count < least <= count + unsure:
            return DatasetFinding(
                check,
                None,
                f"cannot tell: {data} has {counted(count)} with {what} and {unsure} that could not be placed "
                f"(faulty lines, invalid, undeclared or missing values: see their checks); {manifest_name} requires {wanted}",
                key,
            )
        return DatasetFinding(
            check,
            False,
            f"{data} has {counted(count)} with {what}, but {manifest_name} requires {wanted} "
            f"({show_path('quotas', key[1:])}); add or relabel {noun}, or change the quota",
            key,
        )

    def closed(
        check: str,
        key: tuple[str, ...],
        others: list[tuple[tuple[Group, ...], int]],
        what: str,
        lacking: int,
        fields: str,
        unplaced: int,
        invalid: str,
    ) -> DatasetFinding:
        """Whether every record falls in a group that has a quota (unless the manifest allows
        others): a record without the field is in none (a mistyped field name leaves every
        record so). It judges the values it can read: ``unplaced`` records, whose ``invalid``
        field fails their own check, and unreadable lines are counted in its message, not
        judged again."""
        place = f"quotas.{key[1]}"
        if not others and not lacking:
            unseen = [
                *(
                    [f"{unplaced} of the {noun} {'holds' if unplaced == 1 else 'hold'} an invalid or missing {invalid}"]
                    if unplaced
                    else []
                ),
                *([f"{unreadable} line(s) could not be read"] if unreadable else []),
            ]
            if unseen:
                return DatasetFinding(
                    check,
                    True,
                    f"every {what} that could be read has a quota in {place}; {' and '.join(unseen)} "
                    "(see their checks)",
                    key,
                )
            return DatasetFinding(check, True, f"every {what} of the {noun} has a quota in {place}", key)
        problems = []
        if others:
            shown = first_few(
                [f"{' and '.join(repr(text) for _, text in groups)} ({count})" for groups, count in others], limit=5
            )
            problems.append(
                f"{counted(sum(count for _, count in others))} whose {what} has no quota in {place} of {manifest_name}: {shown}"
            )
        if lacking:
            problems.append(f"{counted(lacking)} without {fields}, which {place} of {manifest_name} groups by")
        advice = [
            *(["relabel them, declare a quota for it"] if others else []),
            *([f"give each record {fields} (or correct the field's name)"] if lacking else []),
        ]
        return DatasetFinding(
            check,
            False,
            f"{data} has {' and '.join(problems)}; {', '.join(advice)}, or set quotas.allow_undeclared",
            key,
        )

    closed_groups = not quotas.allow_undeclared
    undeclared: dict[str, set[Group]] = {}  # field -> its values that no quota names (when closed)
    for group, field_name, quota_of in (
        ("label", quotas.label_field, quotas.per_label),
        ("locale", quotas.locale_field, quotas.per_locale),
    ):
        if not quota_of:
            continue
        assert field_name is not None
        counts, unplaced = _grouped(records, invalid, [field_name])
        lacking = _lacking(records, invalid, [field_name])
        names = _names_of(quota_of)
        per_name: Counter[str] = Counter()
        others: list[tuple[tuple[Group, ...], int]] = []
        for (value_group,), count in counts.items():
            for name in names.get(value_group, ()):
                per_name[name] += count
            if value_group not in names:
                others.append(((value_group,), count))
        if closed_groups:
            undeclared[field_name] = {value[0] for value, _ in others}
        # A record whose value no quota names may be a typo of a quota's value: it could count there.
        # So may a record without the field (an omission, or the field's name mistyped).
        unsure = unreadable + unplaced + (sum(count for _, count in others) + lacking if closed_groups else 0)
        for value, quota in quota_of.items():
            findings.append(
                finding(
                    f"quota:{group}={value}",
                    ("quotas", f"per_{group}", value),
                    quota,
                    per_name[value],
                    unsure,
                    f"{field_name} {value!r}",
                )
            )
        if closed_groups:
            findings.append(
                closed(
                    f"quota:{group}s-declared",
                    ("quotas", f"per_{group}"),
                    others,
                    field_name,
                    lacking,
                    field_name,
                    unplaced,
                    field_name,
                )
            )
    if quotas.per_label_locale:
        label_field, locale_field = quotas.label_field, quotas.locale_field
        assert label_field is not None and locale_field is not None
        label_names = _names_of([*quotas.per_label, *quotas.per_label_locale])
        locale_names = _names_of(
            [*quotas.per_locale, *(locale for locales in quotas.per_label_locale.values() for locale in locales)]
        )
        by_groups, unplaced = _grouped(records, invalid, [label_field, locale_field])
        lacking = _lacking(records, invalid, [label_field, locale_field])
        pairs = {(label, locale) for label, locales in quotas.per_label_locale.items() for locale in locales}
        per_pair: Counter[tuple[str, str]] = Counter()
        pair_others: list[
            tuple[tuple[Group, ...], int]
        ] = []  # (record groups, count) of the records in no declared pair
        for (label_group, locale_group), count in by_groups.items():
            declared = [
                (label, locale)
                for label in label_names.get(label_group, ())
                for locale in locale_names.get(locale_group, ())
                if (label, locale) in pairs
            ]
            for pair in declared:
                per_pair[pair] += count
            if not declared:
                pair_others.append(((label_group, locale_group), count))
        for label, locales in quotas.per_label_locale.items():
            for locale, quota in locales.items():
                # A record of an undeclared pair could count here if fixing a value no quota
                # knows (a typo) would make it this pair.
                could = (
                    sum(
                        count
                        for (label_group, locale_group), count in pair_others
                        if (label in label_names.get(label_group, ()) or label_group not in label_names)
                        and (locale in locale_names.get(locale_group, ()) or locale_group not in locale_names)
                    )
                    + lacking
                    if closed_groups
                    else 0
                )
                findings.append(
                    finding(
                        f"quota:label={label},locale={locale}",
                        ("quotas", "per_label_locale", label, locale),
                        quota,
                        per_pair[(label, locale)],
                        unreadable + unplaced + could,
                        f"{label_field} {label!r} and {locale_field} {locale!r}",
                    )
                )
        if closed_groups:
            # A pair whose label or locale is already reported as undeclared is not reported again.
            fresh = [
                (pair, count)
                for pair, count in pair_others
                if pair[0] not in undeclared.get(label_field, ()) and pair[1] not in undeclared.get(locale_field, ())
            ]
            # Nor is a record without a field whose own kind's check reports it already.
            unreported = [name for name in (label_field, locale_field) if name not in undeclared]
            findings.append(
                closed(
                    "quota:label-locales-declared",
                    ("quotas", "per_label_locale"),
                    fresh,
                    f"pair of {label_field} and {locale_field}",
                    _lacking(records, invalid, unreported),
                    " or ".join(unreported),
                    unplaced,
                    f"{label_field} or {locale_field}",
                )
            )
    return _named_once(findings)


def _named_once(findings: list[DatasetFinding]) -> list[DatasetFinding]:
    """Each check under a name of its own: a label spelled like a pair (``a,locale=en``) must not
    share a node id with the pair's quota; a later one is ``~2``, ``~3``..."""
    taken: set[str] = set()
    named = []
    for finding in findings:
        check = unique_name(taken, lambda n: finding.check if n == 1 else f"{finding.check}~{n}")
        named.append(finding if check == finding.check else dataclasses.replace(finding, check=check))
    return named
