"""The advisory judge overlay and its firewall.

A judge (an LLM or a human, behind the ``pytest_sessioneval_judge`` hook) gives
its opinion on a scored session. Whatever it returns, only the judge ids the
rubric pre-registers are accepted, and ``method``, ``advisory`` and
``calibration_status`` are stamped here, never taken from the judge, so an
opinion can never pass for a measurement. A judge that raises or runs out of
time is an infrastructure failure: its dimensions become ``cannot-determine``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from .core.rubric import CANNOT_DETERMINE, JUDGE, STATUSES, DimensionVerdict, Rubric
from .core.text import exception_text, plain_text, printable, show
from .core.values import plain_number

__all__ = ["Judge", "JudgeContractError", "judge_session"]

Judge = tuple[str, Callable[[dict[str, Any]], Any]]


class JudgeContractError(Exception):
    """A judge answered outside the contract (an id the rubric does not pre-register, ...)."""


class _TimedOut(Exception):
    pass


def _call(judge: Callable[[dict[str, Any]], Any], record: dict[str, Any], timeout: float | None) -> Any:
    if timeout is None:
        return judge(record)
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = judge(record)
        except BaseException as exc:  # noqa: BLE001  reported as the judge's failure, never raised here
            outcome["error"] = exc

    # A daemon thread: a judge that never returns cannot keep the run alive.
    thread = threading.Thread(target=target, name="session-eval-judge", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise _TimedOut
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def _check(plugin: str, answer: Any, rubric: Rubric) -> list[dict[str, Any]]:
    """The judge's verdicts, checked, in plain values (``str``, ``int``, ``float``) that every
    report and pytest-xdist's wire carry; evidence ``printable``. Whatever the answer holds
    (an id whose ``==`` raises, a dict whose ``get`` raises...), a fault is a contract error."""
    try:
        return _checked(plugin, answer, rubric)
    except (JudgeContractError, KeyboardInterrupt):
        raise
    except BaseException as exc:  # noqa: BLE001  the judge's answer at fault, said as such
        raise JudgeContractError(
            f"judge plugin {plugin!r}: its answer cannot be checked: {type(exc).__name__}: {exception_text(exc)}"
        ) from None


def _checked(plugin: str, answer: Any, rubric: Rubric) -> list[dict[str, Any]]:
    if answer is None:
        return []
    if not isinstance(answer, (list, tuple)):
        raise JudgeContractError(
            f"judge plugin {plugin!r} returned {type(answer).__name__}; expected a list of verdicts or None"
        )
    verdicts = []
    for index, verdict in enumerate(list(answer)):
        where = f"judge plugin {plugin!r}, verdict {index}"
        if not isinstance(verdict, dict):
            raise JudgeContractError(f"{where}: expected a dict with id, status and evidence, got {show(verdict)}")
        fields = {key: verdict[key] for key in ("id", "status", "evidence", "score") if key in verdict}
        given = fields.get("id")
        dimension = next((known for known in rubric.dimension_ids if _same_text(given, known)), None)
        if dimension is not None:
            raise JudgeContractError(
                f"{where}: {dimension!r} is a deterministic dimension of {rubric.version}; a judge may "
                f"only answer the pre-registered judge dimensions ({', '.join(rubric.judge_ids) or 'none'})"
            )
        dimension = next((known for known in rubric.judge_ids if _same_text(given, known)), None)
        if dimension is None:
            raise JudgeContractError(
                f"{where}: {show(given)} is not a judge dimension {rubric.version} pre-registers "
                f"({', '.join(rubric.judge_ids) or 'none'})"
            )
        status = next((known for known in STATUSES if _same_text(fields.get("status"), known)), None)
        if status is None:
            raise JudgeContractError(
                f"{where}: status {show(fields.get('status'))} is not one of {', '.join(STATUSES)}"
            )
        evidence = plain_text(fields.get("evidence"))
        if evidence is None:
            raise JudgeContractError(f"{where}: evidence must be a string")
        checked: dict[str, Any] = {"id": dimension, "status": status, "evidence": printable(evidence)}
        if "score" in fields:
            score = fields["score"]
            number = plain_number(score)
            if score is not None and (number is None or (type(number) is int and not -(1 << 63) <= number < 1 << 64)):
                shown = show(score) if type(number) is not int else f"an integer of {number.bit_length()} bits"
                raise JudgeContractError(
                    f"{where}: score must be a finite number (integers of at most 64 bits) or null, got {shown}"
                )
            checked["score"] = number
        verdicts.append(checked)
    return verdicts


def _same_text(given: Any, known: str) -> bool:
    """Whether ``given`` is the text ``known`` (a ``str`` subclass such as a ``StrEnum`` is;
    another type is not, whatever its ``==`` says)."""
    return isinstance(given, str) and str.__eq__(given, known) is True


def judge_session(
    judges: Sequence[Judge], record: dict[str, Any], rubric: Rubric, timeout: float | None
) -> tuple[DimensionVerdict, ...]:
    """Ask every judge about one session; stamp and order the accepted verdicts.

    Raises ``JudgeContractError`` naming the plugin when a judge breaks the contract.
    """
    answered: dict[str, DimensionVerdict] = {}
    failures: list[str] = []
    for plugin, judge in judges:
        try:
            answer = _call(judge, record, timeout)
        except _TimedOut:
            failures.append(f"judge plugin {plugin!r} timed out after {timeout:g} s")
            continue
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001  an infrastructure failure, not a verdict on the session
            # Also SystemExit, pytest.skip() and the like, asyncio's CancelledError: anything a judge
            # raises, but the user's interrupt.
            failures.append(f"judge plugin {plugin!r} raised {type(exc).__name__}: {exception_text(exc)}")
            continue
        for verdict in _check(plugin, answer, rubric):
            if verdict["id"] in answered:
                raise JudgeContractError(
                    f"judge plugin {plugin!r}: {verdict['id']!r} was already answered (by this judge or another); "
                    "each judge dimension takes one verdict per session"
                )
            answered[verdict["id"]] = DimensionVerdict(
                verdict["id"], JUDGE, verdict["status"], verdict["evidence"], verdict.get("score"), "score" in verdict
            )
    if failures:
        reason = "; ".join(failures)
        for dimension in rubric.judge_ids:
            answered.setdefault(
                dimension,
                # The reason holds the judge's own words (an exception's text): printable, as its evidence is.
                DimensionVerdict(
                    dimension, JUDGE, CANNOT_DETERMINE, printable(f"Judge infrastructure failure: {reason}.")
                ),
            )
    return tuple(answered[dimension] for dimension in rubric.judge_ids if dimension in answered)
