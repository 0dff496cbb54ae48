"""A custom, pre-registered rubric: rubric-v1 plus a token budget.

Load it as a plugin and select it::

    PYTHONPATH=examples/rubrics pytest -p token_budget \
        --session-eval examples/metrics --session-eval-rubric token-budget-v1

The rubric text beside this file is hashed into every record, exactly like
rubric-v1: the eval journal refuses records of ``token-budget-v1`` scored
against an edited text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from pytest_sessioneval import RUBRIC_V1, Dimension, Rubric, SessionContext, Verdict

BUDGET: Final = 300_000


def token_budget(context: SessionContext) -> Verdict:
    """pass when input + output tokens stay within the budget; unknown tokens: cannot-determine."""
    spent_in, spent_out = context.kpis["token_input"], context.kpis["token_output"]
    if spent_in is None or spent_out is None:
        return Verdict(
            "cannot-determine",
            f"token_input={spent_in}, token_output={spent_out}: token use not recorded, budget unknown.",
        )
    spent = spent_in + spent_out
    if spent <= BUDGET:
        return Verdict("pass", f"{spent} tokens (input {spent_in} + output {spent_out}) <= budget {BUDGET}.")
    return Verdict("fail", f"{spent} tokens (input {spent_in} + output {spent_out}) > budget {BUDGET}.")


TOKEN_BUDGET_V1: Final = Rubric(
    version="token-budget-v1",
    text_path=Path(__file__).with_name("token-budget-v1.md"),
    dimensions=(*RUBRIC_V1.dimensions, Dimension("token-budget", token_budget)),
    judge_ids=("report-quality",),
)


def pytest_sessioneval_rubrics() -> list[Rubric]:
    return [TOKEN_BUDGET_V1]
