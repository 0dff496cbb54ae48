"""The README shows what a real run prints: its example output block comes from the
Quickstart's first command, run here on copies of the shipped examples."""

from __future__ import annotations

import re
import shlex

import pytest
from builders import ROOT, copy_example

README = ROOT / "README.md"
# pytest's last line: its counts, then the time taken, which no two runs share.
COUNTS_LINE = re.compile(r"^=+ (?P<counts>.+?) in [\d.]+s(?: \([\d:]+\))? =+$")


def _example_block(text: str) -> list[str]:
    """The lines of the README's first code block that shows a command run (``$ pytest ...``)."""
    blocks = re.findall(r"^```\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)
    return next(block for block in blocks if block.startswith("$ pytest ")).splitlines()


def _quickstart_command(text: str) -> list[str]:
    """The pytest arguments of the Quickstart's first command."""
    quickstart = text.split("## Quickstart", 1)[1]
    first = re.search(r"^```sh\n(.*?)\n", quickstart, flags=re.MULTILINE)
    assert first is not None, "the Quickstart has no command"
    return shlex.split(first.group(1).split(".venv/bin/pytest ", 1)[1])


def _same_line(shown: str, printed: str) -> bool:
    """A line of the README's block as pytest printed it; the last line, whatever the time taken."""
    if shown == printed:
        return True
    shown_counts, printed_counts = COUNTS_LINE.match(shown), COUNTS_LINE.match(printed)
    return bool(shown_counts and printed_counts and shown_counts["counts"] == printed_counts["counts"])


def _missing(shown: list[str], printed: list[str]) -> list[str]:
    """The lines of ``shown`` not found in ``printed`` in their order (``...`` stands for any lines)."""
    missing, position = [], 0
    for line in shown:
        if line == "...":
            continue
        found = next((i for i in range(position, len(printed)) if _same_line(line, printed[i])), None)
        if found is None:
            missing.append(line)
        else:
            position = found + 1
    return missing


def test_the_readme_example_is_what_its_quickstart_command_prints(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = README.read_text(encoding="utf-8")
    block = _example_block(text)
    args = _quickstart_command(text)
    assert block[0] == f"$ pytest {shlex.join(args)}", "the example shows another command than the Quickstart's"
    assert len(block) > 30 and "..." in block
    for name in ("metrics", "metrics-pre-telemetry"):
        copy_example(pytester.path / "examples", name)
    pytester.makeini("[pytest]\n")
    monkeypatch.setenv("COLUMNS", "80")  # as the README's run was printed: in a terminal, not on CI,
    for name in ("CI", "BUILD_NUMBER"):  # where pytest adds each failure's reason to its short summary line
        monkeypatch.delenv(name, raising=False)
    result = pytester.runpytest(*args)
    printed = result.stdout.lines
    assert _missing(block[1:], printed) == [], result.stdout.str()
    # The Quickstart tells how the run ends: its counts (pytest's last line) and exit code.
    told = re.search(r"ends with\s+`(?P<counts>[^`]+)`\s+and exit code (?P<code>\d)", text)
    assert told is not None, "the Quickstart no longer says how its first command ends"
    last = COUNTS_LINE.match(printed[-1])
    assert last is not None and last["counts"] == told["counts"], printed[-1]
    assert result.ret == int(told["code"])
    for line in (
        "Why verdicts were not decided:",
        "=================================== FAILURES ===================================",
    ):
        assert line in block  # the example shows why verdicts are undecided and a failure's evidence


def test_lines_left_out_or_changed_are_found_missing() -> None:
    printed = ["a", "b", "c", "========= 1 failed, 2 passed in 0.31s =========="]
    assert _missing(["a", "...", "c", "=== 1 failed, 2 passed in 12.05s ==="], printed) == []
    assert _missing(["b", "a"], printed) == ["a"]  # out of order
    assert _missing(["a", "d"], printed) == ["d"]
    assert _missing(["= 2 failed, 2 passed in 0.31s ="], printed) == ["= 2 failed, 2 passed in 0.31s ="]
