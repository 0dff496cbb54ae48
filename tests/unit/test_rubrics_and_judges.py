"""The advisory judge overlay and pre-registered custom rubrics, through pluggy hooks."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from pytest_sessioneval import RUBRIC_V1, Dimension, Rubric, Verdict, score_sessions
from pytest_sessioneval.core.rubric import RubricError


def test_a_rubric_text_path_may_be_a_string(tmp_path: Path) -> None:
    from pytest_sessioneval import Dimension, Rubric, Verdict

    text = tmp_path / "r.md"
    text.write_text("r")
    rubric = Rubric("r", str(text), (Dimension("x", lambda c: Verdict("pass", "")),))  # type: ignore[arg-type]
    assert rubric.text_path == text and len(rubric.sha256) == 64


def test_rubric_rules_in_the_core(tmp_path: Path) -> None:
    text = tmp_path / "r.md"
    text.write_text("x")
    with pytest.raises(RubricError, match="collide"):
        Rubric("r", text, (Dimension("a", lambda c: Verdict("pass", "")),), judge_ids=("a",))
    for blank in ("", " ", "\u00a0\u3000"):
        with pytest.raises(RubricError, match="a version string that is not blank"):
            Rubric(blank, text, ())
    assert (
        Rubric("r", text, RUBRIC_V1.dimensions).sha256
        == "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"
    )


def test_each_rubric_version_hashes_its_own_text_also_when_made_by_replace(tmp_path: Path) -> None:
    import dataclasses

    first, second = tmp_path / "v1.md", tmp_path / "v2.md"
    first.write_text("one")
    second.write_text("two")
    v1 = Rubric("v1", first, (Dimension("x", lambda c: Verdict("pass", "")),))
    assert v1.sha256 == hashlib.sha256(b"one").hexdigest()
    v2 = dataclasses.replace(v1, version="v2", text_path=second)
    assert v2.sha256 == hashlib.sha256(b"two").hexdigest() and v1.sha256 == hashlib.sha256(b"one").hexdigest()


def test_the_api_says_so_when_the_rubric_is_no_rubric(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="rubric must be a Rubric"):
        score_sessions(tmp_path, rubric="token-budget-v1")  # type: ignore[arg-type]


def test_an_expression_with_many_names_not_known_before_collection_asks_without_trying_every_reading() -> None:
    from _pytest.mark.expression import Expression

    from pytest_sessioneval.plugin.judge_selection import _can_hold

    # No reading selects ("x1 and not x1"), so every one would be tried: 2**30 of them.
    never = Expression.compile(" or ".join(f"(x{i} and not x{i})" for i in range(30)))
    assert _can_hold(never, lambda name, **kwargs: None)  # past 6 open names: asked
    assert not _can_hold(Expression.compile("(x1 and not x1) or (x2 and not x2)"), lambda name, **kwargs: None)
